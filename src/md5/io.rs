//! Reading md5 files from disk.

use std::path::Path;

use super::{parse_anim, parse_mesh, Md5Anim, Md5Error, Md5Mesh};

/// Reads and parses an `.md5mesh`; errors name the file as `path` spells it.
pub fn read_mesh_file(path: &Path) -> Result<Md5Mesh, Md5Error> {
    let (text, file) = read_text(path)?;
    parse_mesh(&text, &file)
}

/// Reads and parses an `.md5anim`; errors name the file as `path` spells it.
pub fn read_anim_file(path: &Path) -> Result<Md5Anim, Md5Error> {
    let (text, file) = read_text(path)?;
    parse_anim(&text, &file)
}

/// The file's text and its name for messages. Bytes that are not UTF-8 (old
/// exporters wrote Latin-1 joint names) become U+FFFD rather than failing.
fn read_text(path: &Path) -> Result<(String, String), Md5Error> {
    let file = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            Ok((text, file))
        }
        Err(e) => Err(Md5Error {
            file,
            location: None,
            message: format!("cannot read: {e}"),
        }),
    }
}
