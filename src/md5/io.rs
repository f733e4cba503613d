//! Reading md5 files, from disk or from a game's archives.

use std::path::Path;

use super::{parse_anim, parse_mesh, Md5Anim, Md5Error, Md5Mesh};
use crate::vfs::GameFile;

/// Reads and parses an `.md5mesh` on disk; errors name the file as `path`
/// spells it.
pub fn read_mesh_file(path: &Path) -> Result<Md5Mesh, Md5Error> {
    read_mesh(&GameFile::loose(path))
}

/// Reads and parses an `.md5anim` on disk; errors name the file as `path`
/// spells it.
pub fn read_anim_file(path: &Path) -> Result<Md5Anim, Md5Error> {
    read_anim(&GameFile::loose(path))
}

/// Reads and parses an `.md5mesh`; errors name the file as its
/// [`GameFile`] display does (an archived one by archive and path).
pub fn read_mesh(file: &GameFile) -> Result<Md5Mesh, Md5Error> {
    let (text, name) = read_text(file)?;
    parse_mesh(&text, &name)
}

/// Reads and parses an `.md5anim`, named as [`read_mesh`] names it.
pub fn read_anim(file: &GameFile) -> Result<Md5Anim, Md5Error> {
    let (text, name) = read_text(file)?;
    parse_anim(&text, &name)
}

/// The file's text and its name for messages.
fn read_text(file: &GameFile) -> Result<(String, String), Md5Error> {
    let name = file.to_string();
    match file.read_text() {
        Ok(text) => Ok((text, name)),
        Err(e) => Err(Md5Error {
            file: name,
            location: None,
            message: format!("cannot read: {e}"),
        }),
    }
}
