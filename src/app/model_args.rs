//! Which files the command line names: a mesh and its clips, a directory
//! holding them, or (no argument) the shipped character.

use std::path::{Path, PathBuf};

use super::AppError;

/// The shipped character's directory, relative to the working directory or
/// to the crate (so `cargo run` works from anywhere in the checkout).
pub const SHIPPED_DIR: &str = "assets";
pub const SHIPPED_MESH: &str = "crowdling";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFiles {
    pub mesh: PathBuf,
    /// Each becomes a clip named after its file stem, in this order.
    pub anims: Vec<PathBuf>,
}

/// `model` is a mesh file or a directory (`None`: the shipped character);
/// `anims`, when given, replace a directory's own; `mesh_name` picks a mesh
/// inside a directory.
pub fn resolve(
    model: Option<&Path>,
    anims: &[PathBuf],
    mesh_name: Option<&str>,
) -> Result<ModelFiles, AppError> {
    match model {
        None => {
            let dir = shipped_dir().ok_or_else(|| {
                AppError::Arguments(format!(
                    "no model given and the shipped character is in neither ./{SHIPPED_DIR} nor \
                     {}; name an .md5mesh or a directory holding one",
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join(SHIPPED_DIR)
                        .display()
                ))
            })?;
            from_directory(&dir, anims, Some(mesh_name.unwrap_or(SHIPPED_MESH)))
        }
        Some(dir) if dir.is_dir() => from_directory(dir, anims, mesh_name),
        Some(file) => {
            if let Some(name) = mesh_name {
                return Err(AppError::Arguments(format!(
                    "--mesh {name} picks a mesh inside a directory, but {} is a file",
                    file.display()
                )));
            }
            if has_extension(file, "md5anim") {
                return Err(AppError::Arguments(format!(
                    "{} is an animation; the first argument is the .md5mesh (or a directory \
                     holding one), the clips follow it",
                    file.display()
                )));
            }
            Ok(ModelFiles {
                mesh: file.to_owned(),
                anims: anims.to_vec(),
            })
        }
    }
}

/// The model arguments as models: `model`, then each argument of `anims`
/// that is no .md5anim starts another model, and the .md5anim files after
/// a model are its clips. No argument at all: the shipped character.
pub fn group(model: Option<&Path>, anims: &[PathBuf]) -> Vec<(Option<PathBuf>, Vec<PathBuf>)> {
    let mut groups = vec![(model.map(Path::to_owned), Vec::new())];
    for arg in anims {
        match groups.last_mut() {
            Some((_, clips)) if has_extension(arg, "md5anim") => clips.push(arg.clone()),
            _ => groups.push((Some(arg.clone()), Vec::new())),
        }
    }
    groups
}

fn shipped_dir() -> Option<PathBuf> {
    let here = PathBuf::from(SHIPPED_DIR);
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED_DIR);
    [here, crate_dir]
        .into_iter()
        .find(|dir| dir.join(format!("{SHIPPED_MESH}.md5mesh")).is_file())
}

fn from_directory(
    dir: &Path,
    anims: &[PathBuf],
    mesh_name: Option<&str>,
) -> Result<ModelFiles, AppError> {
    let mut meshes = files_with_extension(dir, "md5mesh")?;
    for extension in ["glb", "gltf"] {
        meshes.extend(files_with_extension(dir, extension)?);
    }
    let mesh = match mesh_name {
        Some(name) => meshes
            .iter()
            .find(|m| {
                m.file_name().is_some_and(|n| n == name) || m.file_stem().is_some_and(|s| s == name)
            })
            .cloned()
            .ok_or_else(|| {
                AppError::Arguments(format!(
                    "--mesh {name}: {} holds no such md5mesh{}",
                    dir.display(),
                    listed(" (it holds: ", &meshes, ")")
                ))
            })?,
        None => match meshes.as_slice() {
            [] => {
                return Err(AppError::Arguments(format!(
                    "{}: no .md5mesh, .glb or .gltf in this directory",
                    dir.display()
                )))
            }
            [only] => only.clone(),
            several => {
                return Err(AppError::Arguments(format!(
                    "{} holds several meshes{}; pick one with --mesh NAME",
                    dir.display(),
                    listed(": ", several, "")
                )))
            }
        },
    };
    let anims = if anims.is_empty() && has_extension(&mesh, "md5mesh") {
        files_with_extension(dir, "md5anim")?
    } else {
        anims.to_vec()
    };
    Ok(ModelFiles { mesh, anims })
}

/// The directory's files ending in `.extension` (any case), by name.
fn files_with_extension(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, AppError> {
    let unreadable = |e: std::io::Error| {
        AppError::Arguments(format!("{}: cannot read the directory: {e}", dir.display()))
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        if has_extension(&path, extension) && path.is_file() {
            files.push(path);
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// `prefix a.md5mesh, b.md5mesh suffix`, or nothing for no files.
fn listed(prefix: &str, files: &[PathBuf], suffix: &str) -> String {
    if files.is_empty() {
        return String::new();
    }
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    format!("{prefix}{}{suffix}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory holding empty files with these names.
    fn dir_with(test: &str, files: &[&str]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("md5crowd-model-args-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for file in files {
            std::fs::write(dir.join(file), "").unwrap();
        }
        dir
    }

    fn message(result: Result<ModelFiles, AppError>) -> String {
        match result {
            Err(AppError::Arguments(message)) => message,
            other => panic!("expected an argument error, got {other:?}"),
        }
    }

    #[test]
    fn a_directory_gives_its_mesh_and_every_anim_by_name() {
        let dir = dir_with(
            "one_mesh",
            &["hero.md5mesh", "walk.md5anim", "idle.MD5ANIM", "notes.txt"],
        );
        let files = resolve(Some(&dir), &[], None).unwrap();
        assert_eq!(files.mesh, dir.join("hero.md5mesh"));
        assert_eq!(
            files.anims,
            [dir.join("idle.MD5ANIM"), dir.join("walk.md5anim")]
        );
        let given = [PathBuf::from("elsewhere/run.md5anim")];
        assert_eq!(
            resolve(Some(&dir), &given, None).unwrap().anims,
            given,
            "named anims replace the directory's"
        );
    }

    #[test]
    fn several_meshes_need_a_name() {
        let dir = dir_with("two_meshes", &["b.md5mesh", "a.md5mesh", "run.md5anim"]);
        let error = message(resolve(Some(&dir), &[], None));
        assert!(
            error.contains("several meshes: a.md5mesh, b.md5mesh; pick one with --mesh"),
            "{error}"
        );
        for name in ["b", "b.md5mesh"] {
            assert_eq!(
                resolve(Some(&dir), &[], Some(name)).unwrap().mesh,
                dir.join("b.md5mesh")
            );
        }
        let error = message(resolve(Some(&dir), &[], Some("c")));
        assert!(
            error.contains("--mesh c: ")
                && error.contains("holds no such md5mesh (it holds: a.md5mesh, b.md5mesh)"),
            "{error}"
        );
    }

    #[test]
    fn a_directory_without_a_mesh_is_an_error() {
        let dir = dir_with("no_mesh", &["walk.md5anim"]);
        let error = message(resolve(Some(&dir), &[], None));
        assert!(
            error.ends_with("no .md5mesh, .glb or .gltf in this directory"),
            "{error}"
        );
    }

    #[test]
    fn a_file_is_the_mesh_with_the_anims_given() {
        let anims = [PathBuf::from("walk.md5anim")];
        let files = resolve(Some(Path::new("hero.md5mesh")), &anims, None).unwrap();
        assert_eq!(files.mesh, Path::new("hero.md5mesh"));
        assert_eq!(files.anims, anims);
        let error = message(resolve(Some(Path::new("walk.md5anim")), &[], None));
        assert!(error.contains("walk.md5anim is an animation"), "{error}");
        let error = message(resolve(Some(Path::new("hero.md5mesh")), &[], Some("x")));
        assert!(
            error.contains("--mesh x picks a mesh inside a directory"),
            "{error}"
        );
    }

    #[test]
    fn no_model_is_the_shipped_character_from_anywhere() {
        // Unit tests run in the crate directory; the fallback to the crate's
        // own assets is what makes other working directories work too.
        let files = resolve(None, &[], None).unwrap();
        assert!(
            files.mesh.ends_with("assets/crowdling.md5mesh"),
            "{files:?}"
        );
        let names: Vec<_> = files
            .anims
            .iter()
            .map(|a| a.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["idle", "run", "walk", "wave"]);
    }
}
