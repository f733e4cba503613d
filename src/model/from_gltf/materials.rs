//! glTF materials to the three maps crowd.frag shades with: the base
//! colour (its texture times its factor) as the diffuse map, the normal
//! texture as the normal map, and metallic-roughness as a specular level
//! (`material::specular_of_metallic_roughness`).

use std::sync::Arc;

use crate::gltf::GltfFile;
use crate::material::{ImageBytes, MaterialMaps, TexelTransform};

/// The maps of material `index` (`None`: glTF's default material, plain
/// white and rough). Images that cannot be read are warnings, and their
/// maps draw with the kind's default.
pub fn material_maps(
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
    // A factor of 1 leaves the texels as they are: no round trip through
    // linear values.
    let base_color = match pbr.base_color_factor() {
        [1.0, 1.0, 1.0, 1.0] if pbr.base_color_texture().is_some() => TexelTransform::None,
        factor => TexelTransform::ScaleSrgb(factor),
    };
    let diffuse = match pbr.base_color_texture() {
        Some(info) => image_of(info.texture(), info.tex_coord(), "base colour texture")
            .map(|image| bytes(image, base_color)),
        None => Some(factor_only(
            file,
            &format!("{path}.baseColorFactor"),
            base_color,
        )),
    };
    let normal = material.normal_texture().and_then(|info| {
        image_of(info.texture(), info.tex_coord(), "normal texture")
            .map(|image| bytes(image, TexelTransform::None))
    });
    let metallic_roughness = TexelTransform::MetallicRoughness {
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
    };
    let specular = match pbr.metallic_roughness_texture() {
        Some(info) => image_of(
            info.texture(),
            info.tex_coord(),
            "metallic-roughness texture",
        )
        .map(|image| bytes(image, metallic_roughness)),
        None => Some(factor_only(
            file,
            &format!("{path}.metallicFactor/roughnessFactor"),
            metallic_roughness,
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
