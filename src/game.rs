//! An installed id Tech 4 game as md5crowd reads it: its folders
//! ([`Vfs`]: loose files and pk4 archives) and the declarations in them
//! ([`DeclSet`]: `def/*.def`, `skins/*.skin`). This is where declaration
//! text meets files: a name such as `monster_demon_imp` becomes the mesh
//! and clip files to load ([`Game::character`]), and a skin name the
//! material remaps to draw with ([`Game::skin`]).

use std::fmt;
use std::path::Path;

use glam::Vec3;

use crate::decl::{DeclSet, DeclSource, ResolvedModel, SkinBody};
use crate::model::ClipFile;
use crate::vfs::{GameFile, Vfs};

/// The word `--skin` and `--skins` take for a mesh's own materials.
pub const DEFAULT_SKIN: &str = "default";

/// A game folder and its declarations, read once.
#[derive(Clone, Debug)]
pub struct Game {
    pub vfs: Vfs,
    pub decls: DeclSet,
}

/// A character a declaration names, its files found in the game.
#[derive(Clone, Debug, PartialEq)]
pub struct Character {
    /// The declaration asked for (as declared, not as typed).
    pub name: String,
    pub mesh: GameFile,
    /// The declaration's clips whose files the game holds, named as it
    /// names them, in the order declared.
    pub clips: Vec<ClipFile>,
    /// Added to the model's positions.
    pub offset: Vec3,
    /// The skin the declaration draws the character with.
    pub skin: Option<String>,
}

/// A skin to draw a crowd with: a name and its material remaps (none for
/// [`DEFAULT_SKIN`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinChoice {
    pub name: String,
    pub body: SkinBody,
}

impl SkinChoice {
    /// The mesh's own materials.
    pub fn default_skin() -> SkinChoice {
        SkinChoice {
            name: DEFAULT_SKIN.to_owned(),
            body: SkinBody::default(),
        }
    }

    /// The material a surface declared with `material` draws with.
    pub fn remap<'a>(&'a self, material: &'a str) -> &'a str {
        self.body.remap(material)
    }
}

impl fmt::Display for SkinChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Game {
    /// The game in `base` (with `mod_dir` searched first, when given) and
    /// every model, entityDef and skin declaration in it: `def/*.def`, then
    /// `skins/*.skin`, each folder by name, as the game reads them. Never
    /// fails: an archive or file that cannot be read, and a declaration
    /// with a syntax error, are warnings (logged, and returned).
    pub fn open(base: &Path, mod_dir: Option<&Path>) -> (Game, Vec<String>) {
        let (vfs, mut warnings) = Vfs::open_game(base, mod_dir);
        let (game, decl_warnings) = Game::from_vfs(vfs);
        warnings.extend(decl_warnings);
        (game, warnings)
    }

    /// [`Game::open`] of a file system already opened.
    pub fn from_vfs(vfs: Vfs) -> (Game, Vec<String>) {
        let mut warnings = Vec::new();
        let mut sources = Vec::new();
        for file in vfs
            .list("def", "def")
            .into_iter()
            .chain(vfs.list("skins", "skin"))
        {
            match file.read() {
                Ok(bytes) => sources.push(DeclSource::from_bytes(file.to_string(), &bytes)),
                Err(error) => {
                    let warning =
                        format!("{file}: cannot read ({error}); its declarations are left out");
                    log::warn!("{warning}");
                    warnings.push(warning);
                }
            }
        }
        let decls = DeclSet::parse(sources);
        warnings.extend(decls.warnings().iter().cloned());
        (Game { vfs, decls }, warnings)
    }

    /// The character that the model or entityDef `name` draws. A clip
    /// whose file the game lacks is left out with a warning (games ship
    /// declarations for clips their demos do not hold); a missing mesh is
    /// an error naming the declaration.
    pub fn character(&self, name: &str) -> Result<Character, String> {
        let resolved = self.decls.resolve_model(name).map_err(|e| e.to_string())?;
        self.files_of(&resolved)
    }

    fn files_of(&self, resolved: &ResolvedModel) -> Result<Character, String> {
        let (_, name, origin) = resolved
            .chain
            .first()
            .expect("a resolved model has its chain");
        let mesh = self.vfs.find(&resolved.mesh).ok_or_else(|| {
            format!(
                "{name} ({origin}): its mesh {} is not in {}",
                resolved.mesh, self.vfs
            )
        })?;
        let mut clips = Vec::with_capacity(resolved.anims.len());
        for anim in &resolved.anims {
            match self.vfs.find(anim.file()) {
                Some(file) => clips.push(ClipFile {
                    name: anim.name.clone(),
                    file,
                }),
                None => log::warn!(
                    "{name} ({origin}): clip '{}': {} is not in {}; left out",
                    anim.name,
                    anim.file(),
                    self.vfs
                ),
            }
        }
        Ok(Character {
            name: name.clone(),
            mesh,
            clips,
            offset: resolved.offset,
            skin: resolved.skin.clone(),
        })
    }

    /// The skin `name` ([`DEFAULT_SKIN`]: the mesh's own materials), or
    /// an error listing the closest declared names.
    pub fn skin(&self, name: &str) -> Result<SkinChoice, String> {
        if name.eq_ignore_ascii_case(DEFAULT_SKIN) {
            return Ok(SkinChoice::default_skin());
        }
        let decls = &self.decls;
        match decls.skin(name) {
            Some(skin) => Ok(SkinChoice {
                name: skin.name.clone(),
                body: skin.body.clone(),
            }),
            None => {
                let closest = decls.closest_skin_names(name, 5);
                Err(if closest.is_empty() {
                    format!("no skin is named '{name}' (the game folder declares none)")
                } else {
                    format!(
                        "no skin is named '{name}'; the closest names: {}",
                        closest.join(", ")
                    )
                })
            }
        }
    }
}
