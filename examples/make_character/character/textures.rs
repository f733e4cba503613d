//! The two textures, painted procedurally. Every atlas region is a checker of
//! numbered cells (limb cells also carry L or R), so a wrong uv, a mirrored
//! lookup or a part skinned to the wrong side is visible at a glance; the
//! head wears a face, hair with a parting on its left, and L/R ears.

use std::path::{Path, PathBuf};

use image::{ImageFormat, ImageResult, Rgb, RgbImage};

use super::atlas::{self, Texels};
use super::curves::smoothstep;
use super::font;
use super::skeleton::Side;

const SHIRT: [Rgb<u8>; 2] = [Rgb([46, 139, 153]), Rgb([34, 110, 122])];
const TROUSERS: [Rgb<u8>; 2] = [Rgb([62, 70, 128]), Rgb([46, 52, 100])];
const SKIN: [Rgb<u8>; 2] = [Rgb([232, 186, 148]), Rgb([214, 166, 128])];
const SHOE: [Rgb<u8>; 2] = [Rgb([118, 76, 44]), Rgb([92, 58, 34])];
const SOLE: Rgb<u8> = Rgb([38, 30, 26]);
const BELT: Rgb<u8> = Rgb([58, 38, 26]);
const LIGHT_INK: Rgb<u8> = Rgb([246, 240, 222]);
const DARK_INK: Rgb<u8> = Rgb([48, 30, 30]);
const HAIR: [Rgb<u8>; 2] = [Rgb([74, 48, 30]), Rgb([56, 36, 22])];
const EYE_WHITE: Rgb<u8> = Rgb([245, 245, 240]);
const IRIS: Rgb<u8> = Rgb([40, 70, 130]);
const LIPS: Rgb<u8> = Rgb([168, 62, 60]);

/// Writes each texture where its mesh's shader string points, as a PNG.
/// Returns the written paths, relative to `dir`.
pub fn write_textures(dir: &Path) -> ImageResult<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (shader, image) in [
        (atlas::BODY_SHADER, body_texture()),
        (atlas::HEAD_SHADER, head_texture()),
    ] {
        let file = PathBuf::from(format!("{shader}.png"));
        if let Some(parent) = dir.join(&file).parent() {
            std::fs::create_dir_all(parent)?;
        }
        image.save_with_format(dir.join(&file), ImageFormat::Png)?;
        written.push(file);
    }
    Ok(written)
}

fn body_texture() -> RgbImage {
    let mut image = RgbImage::new(atlas::SIZE, atlas::SIZE);
    numbered_cells(&mut image, atlas::TORSO_TEXELS, 32, "", SHIRT, LIGHT_INK);
    // Trousers up to a belt at the hips: the torso's v runs from the neck (0)
    // down to the crotch (1), and the hips sit at about 0.8 of it.
    let [left, top, right, bottom] = atlas::TORSO_TEXELS;
    let belt = top + (bottom - top) * 3 / 4;
    for y in belt..bottom {
        for x in left..right {
            let pixel = image.get_pixel_mut(x, y);
            if let Some(shade) = SHIRT.iter().position(|c| c == pixel) {
                *pixel = TROUSERS[shade];
            }
        }
    }
    fill(&mut image, [left, belt, right, belt + 6], BELT);
    fill(&mut image, atlas::NECK_TEXELS, SKIN[0]);
    for side in Side::BOTH {
        let letter = if side == Side::Left { "L" } else { "R" };
        numbered_cells(
            &mut image,
            atlas::leg_texels(side),
            32,
            letter,
            TROUSERS,
            LIGHT_INK,
        );
        numbered_cells(
            &mut image,
            atlas::hand_texels(side),
            32,
            letter,
            SKIN,
            DARK_INK,
        );
        // A short sleeve over the upper arm, skin below.
        let [left, top, right, bottom] = atlas::arm_texels(side);
        let sleeve = top + (bottom - top) * 2 / 5;
        numbered_cells(
            &mut image,
            atlas::arm_texels(side),
            32,
            letter,
            SKIN,
            DARK_INK,
        );
        fill(&mut image, [left, top, right, sleeve], SHIRT[1]);
        label(&mut image, [left, top, right, sleeve], letter, LIGHT_INK);
        // The seam runs under the sole: u near 0 and 1.
        let texels = atlas::shoe_texels(side);
        numbered_cells(&mut image, texels, 32, letter, SHOE, LIGHT_INK);
        let [left, top, right, bottom] = texels;
        let sole = (right - left) / 6;
        fill(&mut image, [left, top, left + sole, bottom], SOLE);
        fill(&mut image, [right - sole, top, right, bottom], SOLE);
    }
    image
}

/// A checker of `cell`-texel squares, each labelled `prefix` + its number
/// (row-major from the top-left).
fn numbered_cells(
    image: &mut RgbImage,
    texels: Texels,
    cell: u32,
    prefix: &str,
    colors: [Rgb<u8>; 2],
    ink: Rgb<u8>,
) {
    let [left, top, right, bottom] = texels;
    let columns = (right - left) / cell;
    for row in 0..(bottom - top) / cell {
        for column in 0..columns {
            let x = left + column * cell;
            let y = top + row * cell;
            let square = [x, y, x + cell, y + cell];
            fill(image, square, colors[((row + column) % 2) as usize]);
            label(
                image,
                square,
                &format!("{prefix}{}", row * columns + column),
                ink,
            );
        }
    }
}

/// `text` at twice the font size, centred in `texels`.
fn label(image: &mut RgbImage, texels: Texels, text: &str, ink: Rgb<u8>) {
    const SCALE: u32 = 2;
    let [left, top, right, bottom] = texels;
    let x = left + (right - left - font::text_width(text, SCALE)) / 2;
    let y = top + (bottom - top - font::GLYPH_HEIGHT * SCALE) / 2;
    font::rasterize(text, SCALE, |dx, dy| image.put_pixel(x + dx, y + dy, ink));
}

fn fill(image: &mut RgbImage, [left, top, right, bottom]: Texels, color: Rgb<u8>) {
    for y in top..bottom {
        for x in left..right {
            image.put_pixel(x, y, color);
        }
    }
}

/// The head region is one wrap around the head (u = 0.5 is the face, u
/// grows towards the character's left) from the crown (v = 0) to the chin.
fn head_texture() -> RgbImage {
    let mut image = RgbImage::new(atlas::SIZE, atlas::SIZE);
    let [left, top, right, bottom] = atlas::HEAD_TEXELS;
    for y in top..bottom {
        for x in left..right {
            // Degrees around from the nose (+ is the character's left) and
            // how far down the head, 0 at the crown and 1 at the chin.
            let around = (f64::from(x - left) + 0.5) / f64::from(right - left) * 360.0 - 180.0;
            let down = (f64::from(y - top) + 0.5) / f64::from(bottom - top);
            image.put_pixel(x, y, head_color(x, y, around, down));
        }
    }
    fill(&mut image, atlas::NOSE_TEXELS, SKIN[0]);
    for (side, letter) in [(Side::Left, "L"), (Side::Right, "R")] {
        let center_x =
            left + ((90.0 * side.sign() + 180.0) / 360.0 * f64::from(right - left)) as u32;
        let center_y = top + (0.58 * f64::from(bottom - top)) as u32;
        label(
            &mut image,
            [center_x - 8, center_y - 8, center_x + 8, center_y + 8],
            letter,
            DARK_INK,
        );
    }
    image
}

fn head_color(x: u32, y: u32, around: f64, down: f64) -> Rgb<u8> {
    let inside = |center_around: f64, center_down: f64, radius_around: f64, radius_down: f64| {
        let a = (around - center_around) / radius_around;
        let d = (down - center_down) / radius_down;
        a * a + d * d <= 1.0
    };
    let hairline = 0.30 + 0.32 * smoothstep(70.0, 130.0, around.abs());
    if down < hairline {
        let parting = (around - 35.0).abs() < 1.5 && down < 0.24;
        return if parting {
            SKIN[1]
        } else {
            HAIR[((x / 3) % 2) as usize]
        };
    }
    for eye in [-24.0, 24.0] {
        if inside(eye, 0.545, 3.0, 0.028) {
            return IRIS;
        }
        if inside(eye, 0.545, 8.0, 0.04) {
            return EYE_WHITE;
        }
        let brow = (down - (0.47 + 0.0001 * (around - eye).powi(2))).abs() < 0.012;
        if brow && (around - eye).abs() < 9.0 {
            return HAIR[0];
        }
    }
    // A smile: the corners sit higher than the middle.
    let smile = 0.78 - 0.00025 * around * around;
    if (down - smile).abs() < 0.015 && around.abs() < 16.0 {
        return LIPS;
    }
    if [-90.0, 90.0]
        .into_iter()
        .any(|ear| inside(ear, 0.58, 11.0, 0.1))
    {
        return SKIN[1];
    }
    // A faint grid shows how the texture stretches over the head.
    if x.is_multiple_of(16) || y.is_multiple_of(16) {
        return Rgb([222, 176, 138]);
    }
    SKIN[0]
}
