//! glTF materials to the three maps crowd.frag shades with: the base
//! colour (its texture times its factor) as the diffuse map, the normal
//! texture as the normal map, and metallic-roughness as a specular level
//! (`material::specular_of_metallic_roughness`). A material of
//! KHR_materials_pbrSpecularGlossiness maps its diffuse texture and
//! factor the same way, and specular-glossiness to a specular level
//! (`material::specular_of_specular_glossiness`).

use std::sync::Arc;

use glam::{Affine2, Vec2};

use crate::gltf::GltfFile;
use crate::material::{ImageBytes, MaterialMaps, TexelTransform};

/// The maps of each distinct material of `materials` (per primitive, its
/// material index; `None`: the default material), in the order first met;
/// per primitive, its index into them; and the image warnings.
pub fn of_primitives(
    file: &GltfFile,
    materials: impl Iterator<Item = Option<usize>>,
) -> (Vec<MaterialMaps>, Vec<usize>, Vec<String>) {
    let mut maps = Vec::new();
    let mut of_primitive = Vec::new();
    let mut warnings = Vec::new();
    // The file's material index of each entry of `maps`.
    let mut material_of: Vec<Option<usize>> = Vec::new();
    for material in materials {
        let index = match material_of.iter().position(|&m| m == material) {
            Some(index) => index,
            None => {
                maps.push(material_maps(file, material, &mut warnings));
                material_of.push(material);
                maps.len() - 1
            }
        };
        of_primitive.push(index);
    }
    (maps, of_primitive, warnings)
}

/// The KHR_texture_transform of `material`'s colour texture, which moves
/// the texture coordinates of every map (md5crowd's meshes have one set):
/// `None` when it has none. A map transformed otherwise is a warning.
pub fn uv_transform(
    file: &GltfFile,
    material: &gltf::Material,
    warnings: &mut Vec<String>,
) -> Option<Affine2> {
    let affine = |info: &gltf::texture::Info| {
        info.texture_transform().map(|t| {
            // The extension rotates clockwise in texture space.
            Affine2::from_scale_angle_translation(
                Vec2::from(t.scale()),
                -t.rotation(),
                Vec2::from(t.offset()),
            )
        })
    };
    let pbr = material.pbr_metallic_roughness();
    let gloss = material.pbr_specular_glossiness();
    let colour = pbr
        .base_color_texture()
        .or_else(|| gloss.as_ref().and_then(|g| g.diffuse_texture()));
    let transform = colour.as_ref().and_then(affine);
    let others = [
        pbr.metallic_roughness_texture(),
        gloss.as_ref().and_then(|g| g.specular_glossiness_texture()),
    ];
    if others
        .iter()
        .flatten()
        .any(|info| affine(info) != transform)
    {
        warnings.push(format!(
            "{}: materials[{}]: its maps' KHR_texture_transforms differ; all are drawn with \
             the colour texture's",
            file.name,
            material.index().unwrap_or_default()
        ));
    }
    transform
}

/// The maps of material `index` (`None`: glTF's default material, plain
/// white and rough). Images that cannot be read are warnings, and their
/// maps draw with the kind's default.
fn material_maps(
    file: &GltfFile,
    index: Option<usize>,
    warnings: &mut Vec<String>,
) -> MaterialMaps {
    let Some(material) = index.and_then(|i| file.document.materials().nth(i)) else {
        return MaterialMaps {
            diffuse: Some(factor_only(
                file,
                "default material",
                TexelTransform::ScaleSrgb([1.0; 4]),
            )),
            normal: None,
            specular: None,
        };
    };
    let path = format!("materials[{}]", material.index().unwrap_or_default());
    let mut image_of = |texture: gltf::Texture, coordinates: u32, map: &str| {
        if coordinates != 0 {
            warnings.push(format!(
                "{}: {path}: the {map} uses TEXCOORD_{coordinates}; drawn with TEXCOORD_0",
                file.name
            ));
        }
        match file.image(&texture.source()) {
            Ok(image) => Some(image),
            Err(warning) => {
                warnings.push(format!("{warning}; the {map} is drawn with its default"));
                None
            }
        }
    };
    let pbr = material.pbr_metallic_roughness();
    let gloss = material.pbr_specular_glossiness();
    let (colour_texture, colour_factor, colour_name) = match &gloss {
        Some(g) => (g.diffuse_texture(), g.diffuse_factor(), "diffuseFactor"),
        None => (
            pbr.base_color_texture(),
            pbr.base_color_factor(),
            "baseColorFactor",
        ),
    };
    // A factor of 1 leaves the texels as they are: no round trip through
    // linear values.
    let base_color = match colour_factor {
        [1.0, 1.0, 1.0, 1.0] if colour_texture.is_some() => TexelTransform::None,
        factor => TexelTransform::ScaleSrgb(factor),
    };
    let diffuse = match colour_texture {
        Some(info) => image_of(info.texture(), info.tex_coord(), "base colour texture")
            .map(|image| bytes(image, base_color)),
        None => Some(factor_only(
            file,
            &format!("{path}.{colour_name}"),
            base_color,
        )),
    };
    let normal = material.normal_texture().and_then(|info| {
        image_of(info.texture(), info.tex_coord(), "normal texture")
            .map(|image| bytes(image, TexelTransform::None))
    });
    let (specular_texture, specular_transform, specular_name, factor_name) = match &gloss {
        Some(g) => (
            g.specular_glossiness_texture(),
            TexelTransform::SpecularGlossiness {
                specular: g.specular_factor(),
                glossiness: g.glossiness_factor(),
            },
            "specular-glossiness texture",
            "specularFactor/glossinessFactor",
        ),
        None => (
            pbr.metallic_roughness_texture(),
            TexelTransform::MetallicRoughness {
                metallic: pbr.metallic_factor(),
                roughness: pbr.roughness_factor(),
            },
            "metallic-roughness texture",
            "metallicFactor/roughnessFactor",
        ),
    };
    let specular = match specular_texture {
        Some(info) => image_of(info.texture(), info.tex_coord(), specular_name)
            .map(|image| bytes(image, specular_transform)),
        None => Some(factor_only(
            file,
            &format!("{path}.{factor_name}"),
            specular_transform,
        )),
    };
    MaterialMaps {
        diffuse,
        normal,
        specular,
    }
}

fn bytes(image: crate::gltf::ImageData, transform: TexelTransform) -> ImageBytes {
    ImageBytes {
        file: image.label,
        extension: image.extension,
        transform,
        bytes: image.bytes,
    }
}

/// A map of a factor alone: no bytes, which decode as one white texel
/// that the transform colours.
fn factor_only(file: &GltfFile, what: &str, transform: TexelTransform) -> ImageBytes {
    ImageBytes {
        file: format!("{}: {what}", file.name),
        extension: String::new(),
        transform,
        bytes: Arc::from(Vec::new()),
    }
}
