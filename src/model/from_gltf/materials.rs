//! glTF materials to the maps and shading crowd.frag draws with: the base
//! colour (its texture times its factor) as the diffuse map, the normal
//! texture (its scale applied) as the normal map, metallic-roughness as
//! the specular map (the file's channels, times the factors), the
//! emissive texture times its factor and the occlusion texture with its
//! strength; the shading model, alpha mode and sides
//! ([`crate::material::Shading`]). A material of
//! KHR_materials_pbrSpecularGlossiness maps its diffuse texture and
//! factor the same way, and specular-glossiness to Doom 3's specular
//! level (`material::specular_of_specular_glossiness`), drawn with Doom
//! 3's model.

use std::sync::Arc;

use glam::{Affine2, Vec2};

use crate::gltf::GltfFile;
use crate::material::{
    AlphaMode, ImageBytes, MaterialMaps, Shading, ShadingModel, TexelTransform,
    DEFAULT_ALPHA_CUTOFF,
};

/// The maps of each distinct material of `materials` (per primitive, its
/// material index; `None`: the default material), in the order first met;
/// per primitive, its index into them; and the image warnings.
pub fn of_primitives(
    file: &GltfFile,
    materials: impl Iterator<Item = Option<usize>>,
) -> (Vec<MaterialMaps>, Vec<usize>, Vec<String>) {
    let mut maps = Vec::new();
    let mut of_primitive = Vec::new();
    let mut warnings = file.material_warnings.clone();
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

/// The maps and shading of material `index` (`None`: glTF's default
/// material, plain white, metallic and rough). Images that cannot be read
/// are warnings, and their maps draw with the kind's default.
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
            specular: Some(factor_only(
                file,
                "default material",
                TexelTransform::MetallicRoughness {
                    metallic: 1.0,
                    roughness: 1.0,
                },
            )),
            shading: Shading {
                model: ShadingModel::MetallicRoughness,
                ..Shading::default()
            },
            ..MaterialMaps::default()
        };
    };
    let path = format!("materials[{}]", material.index().unwrap_or_default());
    let mut image_of = |info: Option<(gltf::Texture, u32)>, map: &str| {
        let (texture, coordinates) = info?;
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
    let shading = shading(&material, gloss.is_some());
    // A factor of 1 leaves the texels as they are: no round trip through
    // linear values.
    let base_color = match colour_factor {
        [1.0, 1.0, 1.0, 1.0] if colour_texture.is_some() => TexelTransform::None,
        factor => TexelTransform::ScaleSrgb(factor),
    };
    // A texture that cannot be drawn is glTF's default, the factor alone.
    let diffuse = Some(
        match image_of(info(colour_texture), "base colour texture") {
            Some(image) => bytes(image, base_color),
            None => factor_only(file, &format!("{path}.{colour_name}"), base_color),
        },
    );
    let normal_texture = material.normal_texture();
    let normal_scale = normal_texture.as_ref().map_or(1.0, |n| n.scale());
    let normal = image_of(
        normal_texture.map(|n| (n.texture(), n.tex_coord())),
        "normal texture",
    )
    .map(|image| match normal_scale {
        1.0 => bytes(image, TexelTransform::None),
        scale => bytes(image, TexelTransform::NormalScale(scale)),
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
    let specular = Some(match image_of(info(specular_texture), specular_name) {
        Some(image) => bytes(image, specular_transform),
        None => factor_only(file, &format!("{path}.{factor_name}"), specular_transform),
    });
    let occlusion_texture = material.occlusion_texture();
    let strength = occlusion_texture.as_ref().map_or(1.0, |o| o.strength());
    let occlusion = image_of(
        occlusion_texture.map(|o| (o.texture(), o.tex_coord())),
        "occlusion texture",
    )
    .map(|image| bytes(image, TexelTransform::Occlusion(strength)));
    // The attachments clamp at 1, so an emission that the strength takes
    // past 1 draws the same clamped in the texel.
    let strength = material.emissive_strength().unwrap_or(1.0).max(0.0);
    let [r, g, b] = material.emissive_factor().map(|c| c * strength);
    let emissive_transform = TexelTransform::ScaleSrgb([r, g, b, 1.0]);
    let emissive = match image_of(info(material.emissive_texture()), "emissive texture") {
        Some(image) => Some(bytes(image, emissive_transform)),
        None if [r, g, b] == [0.0; 3] => None,
        None => Some(factor_only(
            file,
            &format!("{path}.emissiveFactor"),
            emissive_transform,
        )),
    };
    MaterialMaps {
        diffuse,
        normal,
        specular,
        emissive,
        occlusion,
        shading,
    }
}

/// How `material` is shaded: unlit where it says so, Doom 3's model for
/// specular-glossiness (whose maps become Doom 3's), metallic-roughness
/// otherwise. Its cutoff was checked when the file was read
/// (`gltf::material_json`).
fn shading(material: &gltf::Material, specular_glossiness: bool) -> Shading {
    let model = if material.unlit() {
        ShadingModel::Unlit
    } else if specular_glossiness {
        ShadingModel::Doom3
    } else {
        ShadingModel::MetallicRoughness
    };
    let alpha = match material.alpha_mode() {
        gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        gltf::material::AlphaMode::Mask => AlphaMode::Mask,
        gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    Shading {
        model,
        alpha,
        alpha_cutoff: material.alpha_cutoff().unwrap_or(DEFAULT_ALPHA_CUTOFF),
        double_sided: material.double_sided(),
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

/// A texture reference as `material_maps` reads it.
fn info(info: Option<gltf::texture::Info<'_>>) -> Option<(gltf::Texture<'_>, u32)> {
    info.map(|i| (i.texture(), i.tex_coord()))
}
