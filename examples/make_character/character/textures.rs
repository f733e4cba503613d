//! The two materials, painted procedurally. Every atlas region is a checker of
//! numbered cells (limb cells also carry L or R), so a wrong uv, a mirrored
//! lookup or a part skinned to the wrong side is visible at a glance; the
//! head wears a face, hair with a parting on its left, and L/R ears.

use std::path::{Path, PathBuf};

use image::{GrayImage, ImageFormat, ImageResult, Luma, Rgb, RgbImage};
use md5crowd::material::normal_map_from_height;

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

/// How much the height map's 0-255 range tilts the normals it becomes:
/// enough for seams and raised letters to catch the light, no more.
const HEIGHT_SCALE: f32 = 3.0;

/// Per mesh: the material name (its md5 `shader`), the diffuse texture and
/// how each of its texels stands out and shines.
type Painted = (&'static str, RgbImage, fn(u32, u32, Rgb<u8>) -> Surface);

/// Writes each mesh's maps where its material points: the diffuse texture
/// (`<shader>.png`), a normal map derived from a painted height map
/// (`<shader>_local.png`, Doom 3's name for tangent-space normals) and a
/// specular map (`<shader>_s.png`), plus `materials/crowdling.mtr` tying
/// them together, one material in each of the two syntaxes Doom 3 accepts.
/// Returns the written paths, relative to `dir`.
pub fn write_textures(dir: &Path) -> ImageResult<Vec<PathBuf>> {
    let mut written = Vec::new();
    let painted: [Painted; 2] = [
        (atlas::BODY_SHADER, body_texture(), body_surface),
        (atlas::HEAD_SHADER, head_texture(), head_surface),
    ];
    for (shader, diffuse, surface) in painted {
        let (height, specular) = surface_maps(&diffuse, surface);
        let normal = normal_map_from_height(&height, HEIGHT_SCALE);
        for (suffix, image) in [("", diffuse), ("_local", normal), ("_s", specular)] {
            let file = PathBuf::from(format!("{shader}{suffix}.png"));
            if let Some(parent) = dir.join(&file).parent() {
                std::fs::create_dir_all(parent)?;
            }
            image.save_with_format(dir.join(&file), ImageFormat::Png)?;
            written.push(file);
        }
    }
    let material_file = PathBuf::from("materials/crowdling.mtr");
    std::fs::create_dir_all(dir.join("materials"))?;
    std::fs::write(dir.join(&material_file), MATERIALS)?;
    written.push(material_file);
    Ok(written)
}

/// The crowdling's materials. Image paths carry no extension (Doom 3
/// writes `.tga` and finds whatever is there); the body uses the keyword
/// form, the head the stage form.
const MATERIALS: &str = "// The crowdling's materials, written by examples/make_character.
// Doom 3 syntax: md5crowd reads diffusemap, bumpmap and specularmap in
// either form below and skips every other keyword.

textures/crowdling_body
{
\tqer_editorimage\ttextures/crowdling_body
\tdiffusemap\ttextures/crowdling_body
\tbumpmap\t\ttextures/crowdling_body_local
\tspecularmap\ttextures/crowdling_body_s
}

textures/crowdling_head
{
\tqer_editorimage\ttextures/crowdling_head
\t{
\t\tblend\tdiffusemap
\t\tmap\ttextures/crowdling_head
\t}
\t{
\t\tblend\tbumpmap
\t\tmap\ttextures/crowdling_head_local
\t}
\t{
\t\tblend\tspecularmap
\t\tmap\ttextures/crowdling_head_s
\t}
}
";

/// A texel's relief and shine.
#[derive(Clone, Copy)]
struct Surface {
    /// 0 (deepest) to 1 (highest); 0.5 is the plain surface.
    height: f64,
    /// Specular grey: 0 matte to 255 mirror-like.
    shine: u8,
}

/// Paints the height and specular maps texel by texel from the diffuse
/// texture: each colour of the palette is a material.
fn surface_maps(
    diffuse: &RgbImage,
    surface: fn(u32, u32, Rgb<u8>) -> Surface,
) -> (GrayImage, RgbImage) {
    let mut height = GrayImage::new(diffuse.width(), diffuse.height());
    let mut specular = RgbImage::new(diffuse.width(), diffuse.height());
    for (x, y, &color) in diffuse.enumerate_pixels() {
        let Surface { height: h, shine } = surface(x, y, color);
        height.put_pixel(x, y, Luma([(h.clamp(0.0, 1.0) * 255.0).round() as u8]));
        specular.put_pixel(x, y, Rgb([shine; 3]));
    }
    (height, specular)
}

/// Cloth is matte, skin a little shiny, leather more; letters stand out of
/// their cells, and a seam runs round every numbered cell.
fn body_surface(x: u32, y: u32, color: Rgb<u8>) -> Surface {
    let shine = match color {
        c if SHIRT.contains(&c) || TROUSERS.contains(&c) => 16,
        c if SKIN.contains(&c) => 48,
        c if SHOE.contains(&c) => 120,
        BELT => 150,
        SOLE => 24,
        _ => 40, // ink
    };
    let raised = color == LIGHT_INK || color == DARK_INK || color == BELT;
    let [left, top, right, bottom] = atlas::NECK_TEXELS;
    let in_neck = (left..right).contains(&x) && (top..bottom).contains(&y);
    let seam = !in_neck && [x, y].iter().any(|t| t.is_multiple_of(32) || t % 32 == 31);
    let height = match (raised, seam) {
        (_, true) => 0.2,
        (true, false) => 0.75,
        (false, false) => 0.5,
    };
    Surface { height, shine }
}

/// Strands of hair, eyes and lips stand out; eyes shine most.
fn head_surface(_x: u32, _y: u32, color: Rgb<u8>) -> Surface {
    let (height, shine) = match color {
        c if c == HAIR[0] => (0.65, 70),
        c if c == HAIR[1] => (0.45, 50),
        EYE_WHITE => (0.6, 200),
        IRIS => (0.62, 255),
        LIPS => (0.6, 110),
        _ => (0.5, 40),
    };
    Surface { height, shine }
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
