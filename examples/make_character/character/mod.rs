//! The crowdling: an original md5 character made from code, so that md5crowd
//! ships with a model whose every byte is explained and reproducible.
//!
//! The generator is deterministic: no clocks, no randomness, no hash-map
//! order, and its math runs in f64 before rounding to the f32 the files hold,
//! so the output is the same byte for byte on every run.

mod anim_export;
mod atlas;
mod body;
mod checks;
mod clips;
mod curves;
mod exporters;
mod font;
mod gait;
mod idle;
pub mod low_poly;
mod mesh_export;
mod pose;
mod skeleton;
mod sweep;
mod textures;
mod tube;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use md5crowd::md5::{write_anim, write_mesh};

pub const MESH_FILE: &str = "crowdling.md5mesh";
pub const COMMANDLINE: &str = "cargo run --release --example make_character";

/// Builds the character, checks it and writes every file into `dir`.
/// Returns the written paths, relative to `dir`.
pub fn write_all(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let skeleton = skeleton::Skeleton::crowdling();
    let surfaces = body::crowdling_surfaces(&skeleton, body::Detail::Shipped);
    let mesh = mesh_export::md5_mesh(&skeleton, &surfaces);
    checks::check_mesh(&surfaces, &mesh);

    fs::create_dir_all(dir)?;
    let mut written = vec![PathBuf::from(MESH_FILE)];
    fs::write(dir.join(MESH_FILE), write_mesh(&mesh))?;
    for clip in &clips::CLIPS {
        let anim = anim_export::md5_anim(&skeleton, &mesh, clip);
        checks::check_anim(clip.name, &mesh, &anim);
        let file = PathBuf::from(format!("{}.md5anim", clip.name));
        fs::write(dir.join(&file), write_anim(&anim))?;
        written.push(file);
    }
    written.extend(textures::write_textures(dir).map_err(io::Error::other)?);
    Ok(written)
}
