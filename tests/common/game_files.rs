//! Game folders as the tests write them, file by file: loose files (their
//! folders made on the way), TGA images, the shipped character at a game's
//! path. Archives of them: [`super::pk4`].

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};

use super::assets;

/// Writes `bytes` at `path`, making its folders first.
pub fn write_file(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `image` as a TGA file, 24- or 32-bit as its colour type (the `image`
/// crate's encoder, never md5crowd's code).
pub fn tga_bytes(image: impl Into<DynamicImage>) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image.into().write_to(&mut bytes, ImageFormat::Tga).unwrap();
    bytes.into_inner()
}

/// An opaque `size`x`size` TGA of one colour.
pub fn solid_tga(size: u32, rgb: [u8; 3]) -> Vec<u8> {
    tga_bytes(RgbaImage::from_pixel(
        size,
        size,
        Rgba([rgb[0], rgb[1], rgb[2], 255]),
    ))
}

/// A shipped image, `assets/SHADER.png` (`textures/crowdling_body`), as a
/// TGA: what games ship.
pub fn shipped_tga(shader: &str) -> Vec<u8> {
    let png = assets().join(format!("{shader}.png"));
    tga_bytes(image::open(png).unwrap())
}

/// The shipped character's mesh and the clips named (`walk`...) as a
/// game holds them in `folder` (`models/md5/chars/crowdling`): each file's
/// path in the game and its bytes.
pub fn shipped_character(folder: &str, clips: &[&str]) -> Vec<(String, Vec<u8>)> {
    std::iter::once("crowdling.md5mesh".to_owned())
        .chain(clips.iter().map(|clip| format!("{clip}.md5anim")))
        .map(|file| {
            let bytes = std::fs::read(assets().join(&file)).unwrap();
            (format!("{folder}/{file}"), bytes)
        })
        .collect()
}
