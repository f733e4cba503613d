//! An installed id Tech 4 game as md5crowd reads it: its folders
//! ([`Vfs`]: loose files and pk4 archives) and the declarations in them
//! ([`DeclSet`]: `def/*.def`, `skins/*.skin`). This is where declaration
//! text meets files: a name such as `monster_demon_imp` becomes the mesh
//! and clip files to load ([`Game::character`]), and a skin name the
//! material remaps to draw with ([`Game::skin`]).

use std::path::Path;

use crate::anim::{ChannelSpec, JointReach, JointTerm, TermEffect};
use crate::decl::{DeclSet, DeclSource, DeclaredChannel, ResolvedModel};
use crate::model::{Character, CharacterChannel, ClipFile, SkinChoice, DEFAULT_SKIN};
use crate::vfs::Vfs;

/// A game folder and its declarations, read once.
#[derive(Clone, Debug)]
pub struct Game {
    pub vfs: Vfs,
    pub decls: DeclSet,
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

    /// The character that the model or entityDef `name` draws, with its
    /// model's channels. A clip whose file the game lacks is left out with
    /// a warning (games ship declarations for clips their demos do not
    /// hold); a missing mesh is an error naming the declaration.
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
        let channels = resolved
            .channels
            .iter()
            .filter_map(|declared| {
                character_channel(declared)
                    .map_err(|warning| log::warn!("{warning}"))
                    .ok()
            })
            .collect();
        Ok(Character {
            name: name.clone(),
            mesh,
            clips,
            offset: resolved.offset,
            skin: resolved.skin.clone(),
            channels,
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

/// A model declaration's channel as the runtime takes it, or the warning
/// to give when it makes none (a joint written as a quoted name with a
/// space: the declaration syntax takes it, a channel does not).
pub(crate) fn character_channel(declared: &DeclaredChannel) -> Result<CharacterChannel, String> {
    let written_at = format!("model '{}' ({})", declared.model, declared.origin);
    let terms = declared
        .channel
        .joints
        .iter()
        .map(|joint| JointTerm {
            name: joint.name.clone(),
            reach: if joint.subtree {
                JointReach::Subtree
            } else {
                JointReach::Joint
            },
            effect: if joint.removed {
                TermEffect::Remove
            } else {
                TermEffect::Add
            },
        })
        .collect();
    match ChannelSpec::new(declared.channel.name.clone(), terms) {
        Ok(spec) => Ok(CharacterChannel { spec, written_at }),
        Err(error) => Err(format!("{written_at}: {error}; the channel is left out")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{ChannelDecl, ChannelJoint, Origin};

    fn declared(joints: &[(&str, bool, bool)]) -> DeclaredChannel {
        DeclaredChannel {
            model: "monster_demon_imp".into(),
            origin: Origin {
                source: "def/imp.def".into(),
                line: 16,
            },
            channel: ChannelDecl {
                name: "legs".into(),
                joints: joints
                    .iter()
                    .map(|&(name, subtree, removed)| ChannelJoint {
                        name: name.into(),
                        subtree,
                        removed,
                    })
                    .collect(),
            },
        }
    }

    #[test]
    fn declared_channels_become_specs_with_where_they_were_written() {
        let channel = character_channel(&declared(&[
            ("origin", false, false),
            ("Hips", true, false),
            ("Waist", true, true),
            ("SPINNER", false, true),
        ]))
        .unwrap();
        assert_eq!(
            channel.spec.to_string(),
            "legs=origin *Hips -*Waist -SPINNER"
        );
        assert_eq!(
            channel.written_at,
            "model 'monster_demon_imp' (def/imp.def:16)"
        );
        // A quoted joint name may hold a space; a channel's may not.
        assert_eq!(
            character_channel(&declared(&[("left hip", false, false)])).unwrap_err(),
            "model 'monster_demon_imp' (def/imp.def:16): channel 'legs=left hip': expected a \
             joint name: a word not starting with '-' or '*', found 'left hip'; the channel is \
             left out"
        );
    }
}
