//! A material's images read into memory at load ([`MaterialMaps::read`]),
//! so that what draws them holds bytes, not files: the GPU upload decodes
//! [`ImageBytes`] and opens nothing.

use std::sync::Arc;

use super::decode::cannot_use;
use super::{ImageSource, MapKind, MaterialImages, Shading};

/// An image file's bytes, read once, with what decoding them needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageBytes {
    /// The file it was read from, for messages and debug names.
    pub file: String,
    /// Its extension in lower case: the format of a file without a
    /// signature (TGA).
    pub extension: String,
    /// What decoding does to the texels beyond decoding them.
    pub transform: TexelTransform,
    /// The encoded file. Empty: a 1x1 white image for the transform to
    /// colour (a glTF material's factor without a texture).
    pub bytes: Arc<[u8]>,
}

/// What an image's texels become once decoded, for maps that are not
/// stored the way the shader samples them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TexelTransform {
    #[default]
    None,
    /// A height map, made a normal map with this bump scale at decode
    /// time ([`super::normals_from_heights`]): Doom 3's `heightmap`.
    HeightToNormal(f32),
    /// Sampled colour times a linear RGBA factor (glTF's
    /// `baseColorFactor`); the texels are sRGB.
    ScaleSrgb([f32; 4]),
    /// glTF's metallicRoughness map (metallic in blue, roughness in
    /// green) times its factors, kept where the file has them for
    /// crowd.frag's metallic-roughness shading.
    MetallicRoughness { metallic: f32, roughness: f32 },
    /// KHR_materials_pbrSpecularGlossiness's map (specular colour in RGB,
    /// sRGB; glossiness in alpha) times its factors, made the specular
    /// map crowd.frag's Doom 3 shading takes
    /// ([`specular_of_specular_glossiness`]).
    SpecularGlossiness { specular: [f32; 3], glossiness: f32 },
    /// glTF's occlusion texture (red) with its strength applied: 1 + s (r - 1).
    Occlusion(f32),
    /// glTF's normal texture with its `scale` applied to x and y.
    NormalScale(f32),
}

/// The specular level crowd.frag's Doom 3 shading draws for a
/// specular-glossiness texel (linear specular colour, glossiness): the
/// colour's mean reflectance dimmed by the square of the glossiness, as a
/// single fixed-exponent highlight cannot narrow.
pub fn specular_of_specular_glossiness(specular: [f32; 3], glossiness: f32) -> f32 {
    let reflectance = specular.iter().map(|c| c.clamp(0.0, 1.0)).sum::<f32>() / 3.0;
    let smoothness = glossiness.clamp(0.0, 1.0);
    reflectance * smoothness * smoothness
}

impl ImageBytes {
    /// The image `source` names, read. Errors say what went wrong, not
    /// which file.
    pub fn read(source: &ImageSource) -> std::io::Result<ImageBytes> {
        let file = source.file();
        Ok(ImageBytes {
            file: file.to_string(),
            extension: file.extension(),
            transform: match source {
                ImageSource::File(_) => TexelTransform::None,
                ImageSource::HeightMap { scale, .. } => TexelTransform::HeightToNormal(*scale),
            },
            bytes: file.read()?.into(),
        })
    }
}

/// A material's maps, read, and how it is shaded. A map that is `None`
/// (not named, not found or not readable) is drawn with its kind's
/// default texel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialMaps {
    pub diffuse: Option<ImageBytes>,
    pub normal: Option<ImageBytes>,
    pub specular: Option<ImageBytes>,
    pub emissive: Option<ImageBytes>,
    pub occlusion: Option<ImageBytes>,
    pub shading: Shading,
}

impl MaterialMaps {
    /// Reads the images `images` found. A file that cannot be read is its
    /// kind's default and a warning, added to `warnings` for the caller to
    /// log.
    pub fn read(images: &MaterialImages, warnings: &mut Vec<String>) -> MaterialMaps {
        let mut read = |kind: MapKind| {
            let source = images.get(kind)?;
            ImageBytes::read(source)
                .map_err(|error| warnings.push(cannot_use(source.file(), kind, error)))
                .ok()
        };
        MaterialMaps {
            diffuse: read(MapKind::Diffuse),
            normal: read(MapKind::Normal),
            specular: read(MapKind::Specular),
            ..MaterialMaps::default()
        }
    }

    pub fn get(&self, kind: MapKind) -> Option<&ImageBytes> {
        match kind {
            MapKind::Diffuse => self.diffuse.as_ref(),
            MapKind::Normal => self.normal.as_ref(),
            MapKind::Specular => self.specular.as_ref(),
            MapKind::Emissive => self.emissive.as_ref(),
            MapKind::Occlusion => self.occlusion.as_ref(),
        }
    }
}
