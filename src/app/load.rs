//! From the command line's model arguments and load options to a loaded
//! [`Model`]: files on disk ([`model_args`]), or a declaration of a game
//! folder (`--game`), drawn with the skins asked for. Each game folder is
//! opened, its declarations and materials read, once per run
//! ([`GameFolders`]), however many models come from it and however often
//! they are loaded again.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use glam::Vec3;

use super::layer_args::{resolve_layers, LayerArg};
use super::model_args;
use super::render_args::{LoadArgs, Switch};
use super::AppError;
use crate::anim::LoopOverrides;
use crate::crowd::LayerRecipe;
use crate::game::Game;
use crate::gltf::is_gltf_extension;
use crate::gpu::shader_types::{MAX_MODELS, MAX_SKINS};
use crate::material::MaterialLibrary;
use crate::model::{Character, ClipFile, HeldMorph, LoadOptions, Model, SkinChoice};
use crate::skin::InfluenceLimit;
use crate::vfs::GameFile;

/// The models a crowd mixes, and each one's share of it.
pub struct Cast {
    pub models: Vec<Model>,
    /// Per model, its weight (`--mix`; 1 when not named).
    pub shares: Vec<f32>,
    /// Per model, the layers its instances play (`--layer`, `--additive`).
    pub layers: Vec<Vec<LayerRecipe>>,
    /// Per model, the seconds its loading took: files read, meshes welded,
    /// LOD chains built, clips measured (the start-up log says it).
    pub load_seconds: Vec<f64>,
    /// When the last model was loaded: the time to the first frame counts
    /// from here ([`super::log_first_frame`]).
    pub loaded_at: Instant,
}

impl Cast {
    /// Each model's name: its mesh file's stem (what `--mix` names).
    pub fn names(&self) -> Vec<String> {
        self.models
            .iter()
            .map(|m| m.mesh_file.file_stem())
            .collect()
    }
}

/// The game folders models were loaded from, each opened once: a mixed
/// crowd of one folder's declarations, and the reload that switches
/// influences, read its archives, declarations and `.mtr` files once.
#[derive(Default)]
pub(super) struct GameFolders {
    opened: RefCell<Vec<Rc<GameFolder>>>,
}

/// A game folder, its declarations and its materials, read.
struct GameFolder {
    base: PathBuf,
    mod_dir: Option<PathBuf>,
    game: Game,
    materials: MaterialLibrary,
}

/// [`GameFolders::load_cast`] with folders opened for this cast alone.
pub(super) fn load_cast(
    model: Option<&Path>,
    anims: &[PathBuf],
    mesh_name: Option<&str>,
    load: &LoadArgs,
    limit: InfluenceLimit,
) -> Result<Cast, AppError> {
    let folders = GameFolders::default();
    let cast = folders.load_cast(model, anims, mesh_name, load, limit)?;
    folders.log_loaded(&cast);
    Ok(cast)
}

impl GameFolders {
    /// The game in `base` (and `mod_dir`), opened the first time it is asked for.
    fn open(&self, base: &Path, mod_dir: Option<&Path>) -> Rc<GameFolder> {
        let mut opened = self.opened.borrow_mut();
        if let Some(folder) = opened
            .iter()
            .find(|f| f.base == base && f.mod_dir.as_deref() == mod_dir)
        {
            return Rc::clone(folder);
        }
        let (game, _) = Game::open(base, mod_dir);
        let materials = MaterialLibrary::read(&game.vfs);
        let folder = Rc::new(GameFolder {
            base: base.to_path_buf(),
            mod_dir: mod_dir.map(Path::to_path_buf),
            game,
            materials,
        });
        opened.push(Rc::clone(&folder));
        folder
    }

    /// What loading `cast` found, logged once the caller has checked it
    /// (bad input is one error line): each opened folder's material
    /// summary ([`MaterialLibrary::log_summary`]), then each model's
    /// missing or unreadable images.
    pub(super) fn log_loaded(&self, cast: &Cast) {
        for folder in self.opened.borrow().iter() {
            folder.materials.log_summary();
        }
        for model in &cast.models {
            for warning in &model.materials.warnings {
                log::warn!("{warning}");
            }
        }
    }

    /// The models the command line names: `model`, then every argument of
    /// `anims` that is no .md5anim starts another, and the .md5anim files
    /// after a model are its clips. Each is loaded as
    /// [`GameFolders::load_model`] loads one (`--mesh`, `--skin` and
    /// `--skins` apply to each); `--mix` gives their shares of the crowd.
    pub(super) fn load_cast(
        &self,
        model: Option<&Path>,
        anims: &[PathBuf],
        mesh_name: Option<&str>,
        load: &LoadArgs,
        limit: InfluenceLimit,
    ) -> Result<Cast, AppError> {
        let groups = model_args::group(model, anims);
        if groups.len() > MAX_MODELS {
            return Err(AppError::Arguments(format!(
                "{} models named; a crowd mixes at most {MAX_MODELS}",
                groups.len()
            )));
        }
        let mut models = Vec::with_capacity(groups.len());
        let mut load_seconds = Vec::with_capacity(groups.len());
        for (model, anims) in &groups {
            let started = Instant::now();
            models.push(self.load_model(model.as_deref(), anims, mesh_name, load, limit)?);
            load_seconds.push(started.elapsed().as_secs_f64());
        }
        check_held_morphs(&load.morphs, &models)?;
        let layer_args: Vec<LayerArg> = load.layers.iter().chain(&load.additive).cloned().collect();
        let layers = resolve_layers(&layer_args, &models)?;
        let mut cast = Cast {
            shares: vec![1.0; models.len()],
            layers,
            models,
            load_seconds,
            loaded_at: Instant::now(),
        };
        let names = cast.names();
        for (name, weight) in &load.mix {
            let mut matching = names.iter().enumerate().filter(|(_, n)| *n == name);
            match (matching.next(), matching.next()) {
                (Some((model, _)), None) => cast.shares[model] = *weight,
                (Some(_), Some(_)) => {
                    return Err(AppError::Arguments(format!(
                        "--mix {name}: several models are named {name}"
                    )))
                }
                (None, _) => {
                    return Err(AppError::Arguments(format!(
                        "--mix {name}: no model is named {name}; the models are: {}",
                        names.join(", ")
                    )))
                }
            }
        }
        if cast.shares.iter().sum::<f32>() <= 0.0 {
            return Err(AppError::Arguments(
                "--mix gives every model a weight of 0".into(),
            ));
        }
        Ok(cast)
    }

    /// The model the command line names, loaded as `load` says; its options
    /// are checked before any model file is read. With `--game`, a `model`
    /// that is no file or folder on disk is a declaration's name (or a mesh's
    /// path in the game's archives).
    fn load_model(
        &self,
        model: Option<&Path>,
        anims: &[PathBuf],
        mesh_name: Option<&str>,
        load: &LoadArgs,
        limit: InfluenceLimit,
    ) -> Result<Model, AppError> {
        for (option, folder) in [
            ("--textures", &load.textures),
            ("--game", &load.game),
            ("--mod", &load.mod_dir),
        ] {
            if let Some(folder) = folder.as_deref().filter(|f| !f.is_dir()) {
                return Err(AppError::Arguments(format!(
                    "{option} {}: no such directory",
                    folder.display()
                )));
            }
        }
        let named_folder = load
            .game
            .as_deref()
            .or(load.textures.as_deref())
            .map(|base| self.open(base, load.mod_dir.as_deref()));
        let character = match (model, &named_folder) {
            (Some(name), Some(folder)) if load.game.is_some() && !name.exists() => {
                declared(&folder.game, name, anims, mesh_name)?
            }
            _ => {
                let files = model_args::resolve(model, anims, mesh_name)?;
                let mesh = GameFile::loose(&files.mesh);
                Character {
                    name: mesh.file_stem(),
                    mesh,
                    clips: files
                        .anims
                        .iter()
                        .map(|path| ClipFile::named_after(GameFile::loose(path)))
                        .collect(),
                    offset: Vec3::ZERO,
                    skin: None,
                    channels: Vec::new(),
                }
            }
        };
        // The command line's after the declaration's: one of the same name
        // replaces it.
        let mut character = character;
        character.channels.extend(load.channels.iter().cloned());
        let skin_names: Vec<String> = match (&load.skin, character.skin.as_ref()) {
            _ if !load.skins.is_empty() => load.skins.clone(),
            (Some(skin), _) => vec![skin.clone()],
            (None, Some(declared)) => vec![declared.clone()],
            (None, None) => Vec::new(),
        };
        if skin_names.len() > MAX_SKINS {
            return Err(AppError::Arguments(format!(
                "--skins names {} skins; a crowd draws at most {MAX_SKINS}",
                skin_names.len()
            )));
        }
        let loop_overrides = LoopOverrides {
            looping: load.looping.clone(),
            once: load.once.clone(),
        };
        let gltf = is_gltf_extension(&character.mesh.extension());
        if gltf {
            if let Some(clip) = character.clips.first() {
                return Err(AppError::Arguments(format!(
                    "{}: a glTF file plays its own animations; {} cannot be added to it",
                    character.mesh, clip.file
                )));
            }
            if !skin_names.is_empty() {
                return Err(AppError::Arguments(format!(
                    "skin {}: skins are id Tech declarations; a glTF model ({}) draws its own \
                     materials",
                    skin_names.join(", "),
                    character.mesh
                )));
            }
        } else {
            let clip_names: Vec<&str> = character.clips.iter().map(|c| c.name.as_str()).collect();
            loop_overrides
                .check(&clip_names)
                .map_err(AppError::Arguments)?;
        }
        // A mesh on disk draws with the materials, and skins, of the game
        // folder it lies in.
        let folder = named_folder.or_else(|| {
            character
                .mesh
                .loose_path()
                .and_then(MaterialLibrary::base_folder_for)
                .map(|base| self.open(&base, None))
        });
        let game = folder.as_ref().map(|folder| &folder.game);
        let skins = choose_skins(&skin_names, character.skin.as_deref(), game)?;
        let options = LoadOptions {
            influences: limit,
            loop_overrides,
            materials: folder.as_ref().map(|folder| &folder.materials),
            offset: character.offset,
            skins,
            unwelded: load.weld == Switch::Off,
            morphs: load.morphs.clone(),
        };
        if gltf {
            let mut model = Model::load_gltf(&character.mesh, &options)?;
            model.channels = model.resolve_channels(&character.channels).0;
            let clip_names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
            options
                .loop_overrides
                .check(&clip_names)
                .map_err(AppError::Arguments)?;
            return Ok(model);
        }
        let mut model = Model::load_with(&character.mesh, &character.clips, &options)?;
        // A joint a channel names that the mesh lacks is a warning, with
        // the declaration's line or the --channel it came from.
        model.channels = model.resolve_channels(&character.channels).0;
        Ok(model)
    }
}

/// Each `--morph` names a morph target some model of the crowd has.
fn check_held_morphs(held: &[HeldMorph], models: &[Model]) -> Result<(), AppError> {
    let Some(unknown) = held
        .iter()
        .find(|h| !models.iter().any(|m| m.morphs.names.contains(&h.name)))
    else {
        return Ok(());
    };
    let mut names: Vec<&str> = models
        .iter()
        .flat_map(|m| m.morphs.names.iter().map(String::as_str))
        .collect();
    names.dedup();
    let known = match names.is_empty() {
        true => "no model has morph targets".to_owned(),
        false => format!("the morph targets are: {}", names.join(", ")),
    };
    Err(AppError::Arguments(format!(
        "--morph {}: no model has a morph target of that name; {known}",
        unknown.name
    )))
}

/// `name` as the game's declarations (or archives) give it, with `anims`
/// (files on disk, or paths in the game) as further clips.
fn declared(
    game: &Game,
    name: &Path,
    anims: &[PathBuf],
    mesh_name: Option<&str>,
) -> Result<Character, AppError> {
    if let Some(mesh) = mesh_name {
        return Err(AppError::Arguments(format!(
            "--mesh {mesh} picks a mesh inside a directory; {} names a declaration",
            name.display()
        )));
    }
    let text = name.to_string_lossy();
    let mut character = match game.vfs.find(&text) {
        Some(mesh) if mesh.extension() == "md5mesh" => Character {
            name: mesh.file_stem(),
            mesh,
            clips: Vec::new(),
            offset: Vec3::ZERO,
            skin: None,
            channels: Vec::new(),
        },
        _ => game
            .character(&text)
            .map_err(|message| AppError::Arguments(format!("{message} (in {})", game.vfs)))?,
    };
    for anim in anims {
        let file = if anim.is_file() {
            GameFile::loose(anim)
        } else {
            game.vfs.find(&anim.to_string_lossy()).ok_or_else(|| {
                AppError::Arguments(format!(
                    "{}: no such file on disk or in {}",
                    anim.display(),
                    game.vfs
                ))
            })?
        };
        character.clips.push(ClipFile::named_after(file));
    }
    Ok(character)
}

/// The skins `names` asks for, from `game`'s declarations (none named: the
/// mesh's own materials). A skin named on the command line must exist; a
/// declaration's that does not is a warning, and the mesh's own materials
/// are drawn, as the game draws them.
fn choose_skins(
    names: &[String],
    declared: Option<&str>,
    game: Option<&Game>,
) -> Result<Vec<SkinChoice>, AppError> {
    if names.is_empty() {
        return Ok(vec![SkinChoice::default_skin()]);
    }
    let Some(game) = game else {
        return Err(AppError::Arguments(format!(
            "skin {}: skins are declared in a game folder's skins/*.skin; name the folder with \
             --game or --textures",
            names.join(", ")
        )));
    };
    names
        .iter()
        .map(|name| match game.skin(name) {
            Ok(skin) => Ok(skin),
            Err(message) if declared == Some(name.as_str()) => {
                log::warn!("the declaration's skin: {message}; drawing the mesh's own materials");
                Ok(SkinChoice::default_skin())
            }
            Err(message) => Err(AppError::Arguments(format!("{message} (in {})", game.vfs))),
        })
        .collect()
}
