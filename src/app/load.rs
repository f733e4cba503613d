//! From the command line's model arguments and load options to a loaded
//! [`Model`]: files on disk ([`model_args`]), or a declaration of a game
//! folder (`--game`), drawn with the skins asked for.

use std::path::{Path, PathBuf};

use glam::Vec3;

use super::model_args;
use super::render_args::{LoadArgs, Switch};
use super::AppError;
use crate::anim::LoopOverrides;
use crate::game::{Game, SkinChoice};
use crate::gpu::shader_types::{MAX_MODELS, MAX_SKINS};
use crate::material::MaterialLibrary;
use crate::model::{ClipFile, LoadOptions, Model};
use crate::skin::InfluenceLimit;
use crate::vfs::GameFile;

/// What to load, wherever it was found.
struct ModelSource {
    mesh: GameFile,
    clips: Vec<ClipFile>,
    offset: Vec3,
    /// The declaration's skin, drawn unless `--skin` or `--skins` says.
    declared_skin: Option<String>,
}

/// The models a crowd mixes, and each one's share of it.
pub struct Cast {
    pub models: Vec<Model>,
    /// Per model, its weight (`--mix`; 1 when not named).
    pub shares: Vec<f32>,
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

/// The models the command line names: `model`, then every argument of
/// `anims` that is no .md5anim starts another, and the .md5anim files
/// after a model are its clips. Each is loaded as [`load_model`] loads one
/// (`--mesh`, `--skin` and `--skins` apply to each); `--mix` gives their
/// shares of the crowd.
pub(super) fn load_cast(
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
    let models = groups
        .iter()
        .map(|(model, anims)| load_model(model.as_deref(), anims, mesh_name, load, limit))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cast = Cast {
        shares: vec![1.0; models.len()],
        models,
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
pub(super) fn load_model(
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
    let mut game = load
        .game
        .as_deref()
        .or(load.textures.as_deref())
        .map(|base| Game::open(base, load.mod_dir.as_deref()).0);
    let source = match (model, &game) {
        (Some(name), Some(game)) if load.game.is_some() && !name.exists() => {
            declared(game, name, anims, mesh_name)?
        }
        _ => {
            let files = model_args::resolve(model, anims, mesh_name)?;
            ModelSource {
                mesh: GameFile::loose(&files.mesh),
                clips: files
                    .anims
                    .iter()
                    .map(|path| ClipFile::named_after(GameFile::loose(path)))
                    .collect(),
                offset: Vec3::ZERO,
                declared_skin: None,
            }
        }
    };
    let skin_names: Vec<String> = match (&load.skin, source.declared_skin.as_ref()) {
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
    // Skins of a mesh on disk come from the game folder it lies in, the
    // one its materials are looked up in.
    if game.is_none() && !skin_names.is_empty() {
        game = source
            .mesh
            .loose_path()
            .and_then(MaterialLibrary::base_folder_for)
            .map(|base| Game::open(&base, None).0);
    }
    let skins = choose_skins(&skin_names, source.declared_skin.as_deref(), game.as_ref())?;

    let loop_overrides = LoopOverrides {
        looping: load.looping.clone(),
        once: load.once.clone(),
    };
    let clip_names: Vec<&str> = source.clips.iter().map(|c| c.name.as_str()).collect();
    loop_overrides
        .check(&clip_names)
        .map_err(AppError::Arguments)?;
    let options = LoadOptions {
        influences: limit,
        loop_overrides,
        game: game.map(|game| game.vfs),
        offset: source.offset,
        skins,
        unwelded: load.weld == Switch::Off,
    };
    Ok(Model::load_with(&source.mesh, &source.clips, &options)?)
}

/// `name` as the game's declarations (or archives) give it, with `anims`
/// (files on disk, or paths in the game) as further clips.
fn declared(
    game: &Game,
    name: &Path,
    anims: &[PathBuf],
    mesh_name: Option<&str>,
) -> Result<ModelSource, AppError> {
    if let Some(mesh) = mesh_name {
        return Err(AppError::Arguments(format!(
            "--mesh {mesh} picks a mesh inside a directory; {} names a declaration",
            name.display()
        )));
    }
    let text = name.to_string_lossy();
    let mut source = match game.vfs.find(&text) {
        Some(mesh) if mesh.extension() == "md5mesh" => ModelSource {
            mesh,
            clips: Vec::new(),
            offset: Vec3::ZERO,
            declared_skin: None,
        },
        _ => {
            let character = game
                .character(&text)
                .map_err(|message| AppError::Arguments(format!("{message} (in {})", game.vfs)))?;
            ModelSource {
                mesh: character.mesh,
                clips: character.clips,
                offset: character.offset,
                declared_skin: character.skin,
            }
        }
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
        source.clips.push(ClipFile::named_after(file));
    }
    Ok(source)
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
