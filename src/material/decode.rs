//! Image files (TGA, PNG, JPEG, and the first level of a DDS) to RGBA8
//! pixels, on the CPU: the part of texture loading that needs no GPU. A
//! file that cannot be decoded is one warning and the map's default texel,
//! never an error; an image larger than the device allows is scaled down;
//! a height map becomes a normal map here.

use std::fmt;

use glam::Vec3;
use image::imageops::FilterType;
use image::{GrayImage, ImageFormat, RgbImage, RgbaImage};

use super::{dds, specular_of_specular_glossiness, ImageBytes, ImageSource, TexelTransform};

/// Which of a material's maps an image is; it decides the texture format
/// (colour or data) and the texel that stands in for a missing map. Doom 3
/// materials have the first three; glTF's emissive and occlusion textures
/// are the last two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    Diffuse,
    Normal,
    /// Doom 3: a specular level. glTF metallic-roughness: roughness in
    /// green, metallic in blue (the file's layout).
    Specular,
    Emissive,
    /// Ambient occlusion in red, its strength applied.
    Occlusion,
}

impl MapKind {
    pub const ALL: [MapKind; 5] = [
        MapKind::Diffuse,
        MapKind::Normal,
        MapKind::Specular,
        MapKind::Emissive,
        MapKind::Occlusion,
    ];

    /// The 1x1 texture used when the map is missing or unreadable: a neutral
    /// mid-grey surface, a normal straight along the surface normal (128
    /// encodes 0, see [`encode_normal`]), no specular highlight, no
    /// emission, nothing occluded.
    pub fn default_texel(self) -> [u8; 4] {
        match self {
            MapKind::Diffuse => [128, 128, 128, 255],
            MapKind::Normal => [128, 128, 255, 255],
            MapKind::Specular | MapKind::Emissive => [0, 0, 0, 255],
            MapKind::Occlusion => [255, 255, 255, 255],
        }
    }

    fn default_description(self) -> &'static str {
        match self {
            MapKind::Diffuse => "mid-grey",
            MapKind::Normal => "flat",
            MapKind::Specular | MapKind::Emissive => "black",
            MapKind::Occlusion => "white",
        }
    }
}

impl fmt::Display for MapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MapKind::Diffuse => "diffuse",
            MapKind::Normal => "normal",
            MapKind::Specular => "specular",
            MapKind::Emissive => "emissive",
            MapKind::Occlusion => "occlusion",
        })
    }
}

/// Pixels ready to upload: `width * height` RGBA8 texels, rows top first.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedImage {
    pub rgba: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// Whether this is a kind's 1x1 stand-in ([`DecodedImage::default_for`])
    /// rather than the file's pixels.
    pub is_default: bool,
    /// What went wrong or was changed (already logged), for callers and tests.
    pub warnings: Vec<String>,
}

impl DecodedImage {
    /// A 1x1 image of one texel.
    pub fn solid(texel: [u8; 4]) -> DecodedImage {
        DecodedImage {
            rgba: texel.to_vec(),
            width: 1,
            height: 1,
            is_default: false,
            warnings: Vec::new(),
        }
    }

    /// `kind`'s stand-in for a missing map.
    pub fn default_for(kind: MapKind) -> DecodedImage {
        DecodedImage {
            is_default: true,
            ..DecodedImage::solid(kind.default_texel())
        }
    }
}

/// Decodes `source` as a `kind` map no larger than `max_dimension` texels
/// on a side (the device's `maxImageDimension2D`): of a DDS file, its
/// first level. Never fails: a file that cannot be read or decoded gives
/// one warning naming it and the error, and `kind`'s default texel; an
/// oversized image is scaled down with one warning.
pub fn decode_image(source: &ImageSource, kind: MapKind, max_dimension: u32) -> DecodedImage {
    match ImageBytes::read(source) {
        Ok(image) => decode_bytes(&image, kind, max_dimension),
        Err(error) => cannot_decode(source.file(), kind, error),
    }
}

/// [`decode_image`] of an image already read.
pub(super) fn decode_bytes(image: &ImageBytes, kind: MapKind, max_dimension: u32) -> DecodedImage {
    let file = &image.file;
    let mut rgba = match pixels(image) {
        Ok(rgba) => rgba,
        Err(error) => return cannot_decode(file, kind, error),
    };
    transform_texels(&mut rgba, image.transform);
    let mut warnings = Vec::new();
    let (width, height) = fit_within(rgba.width(), rgba.height(), max_dimension);
    if (width, height) != rgba.dimensions() {
        warn(
            &mut warnings,
            format!(
                "{file}: {}x{} is larger than the device's {max_dimension}x{max_dimension} \
                 limit; scaled down to {width}x{height}",
                rgba.width(),
                rgba.height()
            ),
        );
        rgba = image::imageops::resize(&rgba, width, height, FilterType::Triangle);
    }
    DecodedImage {
        width,
        height,
        rgba: rgba.into_raw(),
        is_default: false,
        warnings,
    }
}

/// `rgba` made what `transform` says (see [`TexelTransform`]).
fn transform_texels(rgba: &mut RgbaImage, transform: TexelTransform) {
    match transform {
        TexelTransform::None => {}
        TexelTransform::HeightToNormal(scale) => {
            let heights: Vec<u8> = rgba
                .pixels()
                .map(|p| ((u16::from(p[0]) + u16::from(p[1]) + u16::from(p[2])) / 3) as u8)
                .collect();
            let normals = normals_from_heights(&heights, rgba.width(), rgba.height(), scale);
            *rgba = RgbaImage::from_raw(rgba.width(), rgba.height(), normals)
                .expect("one normal per height");
        }
        TexelTransform::ScaleSrgb(factor) => scale_srgb(rgba, factor),
        TexelTransform::MetallicRoughness {
            metallic,
            roughness,
        } => {
            for texel in rgba.pixels_mut() {
                let scaled = |byte: u8, factor: f32| {
                    (f32::from(byte) * factor.clamp(0.0, 1.0)).round() as u8
                };
                texel.0 = [
                    255,
                    scaled(texel.0[1], roughness),
                    scaled(texel.0[2], metallic),
                    255,
                ];
            }
        }
        TexelTransform::Occlusion(strength) => {
            for texel in rgba.pixels_mut() {
                let occlusion = f32::from(texel.0[0]) / 255.0;
                let byte = ((1.0 + strength.clamp(0.0, 1.0) * (occlusion - 1.0)) * 255.0).round();
                let byte = byte as u8;
                texel.0 = [byte, byte, byte, 255];
            }
        }
        TexelTransform::NormalScale(scale) => {
            for texel in rgba.pixels_mut() {
                for channel in &mut texel.0[..2] {
                    let scaled = (f32::from(*channel) - 128.0) * scale + 128.0;
                    *channel = scaled.round().clamp(1.0, 255.0) as u8;
                }
            }
        }
        TexelTransform::SpecularGlossiness {
            specular,
            glossiness,
        } => {
            for texel in rgba.pixels_mut() {
                let colour = [0, 1, 2].map(|c| srgb_to_linear(texel.0[c]) * specular[c]);
                let level = specular_of_specular_glossiness(
                    colour,
                    f32::from(texel.0[3]) / 255.0 * glossiness,
                );
                let byte = (level * 255.0).round() as u8;
                texel.0 = [byte, byte, byte, 255];
            }
        }
    }
}

/// Each texel's colour times `factor` (in linear values), and its alpha
/// times `factor[3]`.
fn scale_srgb(rgba: &mut RgbaImage, factor: [f32; 4]) {
    for texel in rgba.pixels_mut() {
        for (channel, f) in texel.0[..3].iter_mut().zip(factor) {
            *channel = linear_to_srgb(srgb_to_linear(*channel) * f);
        }
        let scaled = f32::from(texel.0[3]) / 255.0 * factor[3];
        texel.0[3] = (scaled * 255.0).round().clamp(0.0, 255.0) as u8;
    }
}

/// An sRGB-encoded byte's linear value, as the GPU's sRGB decode gives it.
pub fn srgb_to_linear(byte: u8) -> f32 {
    let c = f32::from(byte) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A linear value sRGB-encoded, 0..1 (clamped), not yet rounded to a byte:
/// what an sRGB attachment stores before it rounds.
pub fn srgb_encode(linear: f32) -> f32 {
    let c = linear.clamp(0.0, 1.0);
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn linear_to_srgb(linear: f32) -> u8 {
    (srgb_encode(linear) * 255.0).round() as u8
}

/// `kind`'s default, with the one warning saying why `file` is not used.
pub(super) fn cannot_decode(
    file: &impl fmt::Display,
    kind: MapKind,
    error: impl fmt::Display,
) -> DecodedImage {
    let mut decoded = DecodedImage::default_for(kind);
    warn(&mut decoded.warnings, cannot_use(file, kind, error));
    decoded
}

/// Why `file` is not used as the `kind` map, and what stands in for it.
pub(super) fn cannot_use(
    file: &impl fmt::Display,
    kind: MapKind,
    error: impl fmt::Display,
) -> String {
    format!(
        "{file}: cannot decode the {kind} map ({error}); using a {} texture",
        kind.default_description()
    )
}

pub(super) fn warn(warnings: &mut Vec<String>, warning: String) {
    log::warn!("{warning}");
    warnings.push(warning);
}

/// The file's pixels. DDS, PNG, JPEG and WebP are recognised by their signature
/// (a `.tga` that is really a JPEG happens); anything else is taken by its
/// extension, and a name without a known one as TGA, which has no
/// signature and is what the game's extensionless names usually are.
fn pixels(image: &ImageBytes) -> Result<RgbaImage, String> {
    let bytes = &image.bytes[..];
    if bytes.is_empty() {
        return Ok(RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
    }
    if dds::is_dds(bytes) {
        let dds = dds::parse_dds(bytes)?;
        let rgba = dds.decode_level(0);
        return Ok(RgbaImage::from_raw(dds.width, dds.height, rgba).expect("a texel per pixel"));
    }
    let format = match image::guess_format(bytes) {
        Ok(format @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP)) => format,
        _ => ImageFormat::from_extension(&image.extension)
            .filter(|f| {
                matches!(
                    f,
                    ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Tga
                )
            })
            .unwrap_or(ImageFormat::Tga),
    };
    image::load_from_memory_with_format(bytes, format)
        .map(|image| image.to_rgba8())
        .map_err(|error| error.to_string())
}

/// The largest size with `width:height`'s aspect whose sides fit in
/// `max_dimension` (unchanged when they already do).
pub fn fit_within(width: u32, height: u32, max_dimension: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= max_dimension || max_dimension == 0 {
        return (width, height);
    }
    let scale = f64::from(max_dimension) / f64::from(longest);
    let fit = |side: u32| ((f64::from(side) * scale).round() as u32).clamp(1, max_dimension);
    (fit(width), fit(height))
}

/// A tangent-space normal map from a height map (`width * height` heights,
/// rows top first, 0 low, 255 high): the slope by central differences
/// (wrapping at the edges, as the textures tile), times `scale`, tilts the
/// normal away from uphill. Rows grow downward and green is minus the slope
/// along them, as in the game's own `heightmap(` (so derived maps match
/// its `_local` ones). Returns RGBA8 texels encoded by [`encode_normal`].
pub fn normals_from_heights(heights: &[u8], width: u32, height: u32, scale: f32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    assert_eq!(heights.len(), w * h, "one height per texel");
    let at = |x: usize, y: usize| f32::from(heights[y * w + x]) / 255.0;
    let mut normals = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        let (up, down) = ((y + h - 1) % h, (y + 1) % h);
        for x in 0..w {
            let (left, right) = ((x + w - 1) % w, (x + 1) % w);
            let dx = (at(right, y) - at(left, y)) * 0.5 * scale;
            let dy = (at(x, down) - at(x, up)) * 0.5 * scale;
            let normal = Vec3::new(-dx, -dy, 1.0).normalize();
            normals.extend_from_slice(&encode_normal(normal));
        }
    }
    normals
}

/// [`normals_from_heights`] for a grey image, as an RGB normal map (for
/// tools that write normal maps to disk).
pub fn normal_map_from_height(heights: &GrayImage, scale: f32) -> RgbImage {
    let (width, height) = heights.dimensions();
    let rgba = normals_from_heights(heights.as_raw(), width, height, scale);
    let rgb = rgba
        .chunks_exact(4)
        .flat_map(|texel| [texel[0], texel[1], texel[2]])
        .collect();
    RgbImage::from_raw(width, height, rgb).expect("one normal per height")
}

/// A unit vector as a normal-map texel: `128 + 127 * component`, so that
/// the renderer's `(v * 255 - 128) / 127` gives it back and 0 is exactly 128.
pub fn encode_normal(normal: Vec3) -> [u8; 4] {
    let encode = |c: f32| (128.0 + 127.0 * c).round().clamp(0.0, 255.0) as u8;
    [encode(normal.x), encode(normal.y), encode(normal.z), 255]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_height_map_is_a_flat_normal_map() {
        let normals = normals_from_heights(&[77; 12], 4, 3, 8.0);
        for texel in normals.chunks(4) {
            assert_eq!(texel, [128, 128, 255, 255]);
        }
    }

    #[test]
    fn a_ramp_tilts_the_normal_away_from_uphill() {
        // Heights rise to the right (x) on a wide image; no slope along y.
        let width = 8;
        let heights: Vec<u8> = (0..2 * width).map(|i| (i % width) as u8 * 30).collect();
        let normals = normals_from_heights(&heights, width, 2, 4.0);
        let texel = &normals[4 * 3..4 * 4]; // x = 3, away from the wrapping edges
        assert!(texel[0] < 128, "x tilts toward -x: {texel:?}");
        assert_eq!(texel[1], 128);
        assert!(texel[2] < 255 && texel[2] > 128);
        // The exact value: slope 30/255 * 4 along x.
        let slope = 30.0 / 255.0 * 4.0;
        let expected = Vec3::new(-slope, 0.0, 1.0).normalize();
        assert_eq!(texel, encode_normal(expected));

        // Heights rising downward tilt green the same way.
        let column: Vec<u8> = (0..8u8).flat_map(|y| [y * 30, y * 30]).collect();
        let normals = normals_from_heights(&column, 2, 8, 4.0);
        let texel = &normals[4 * 2 * 3..4 * 2 * 3 + 4];
        assert_eq!(texel[0], 128);
        assert!(texel[1] < 128, "{texel:?}");

        // The same as an image.
        let image = GrayImage::from_raw(2, 8, column).unwrap();
        let rgb = normal_map_from_height(&image, 4.0);
        assert_eq!(rgb.get_pixel(0, 3).0, [texel[0], texel[1], texel[2]]);
    }

    #[test]
    fn fitting_keeps_the_aspect() {
        assert_eq!(fit_within(512, 256, 4096), (512, 256));
        assert_eq!(fit_within(8192, 2048, 4096), (4096, 1024));
        assert_eq!(fit_within(3, 9000, 4096), (1, 4096));
    }
}
