//! How a material is lit and composited, chosen once at load: the shading
//! model (Doom 3's for md5 materials, glTF's metallic-roughness or unlit),
//! the alpha mode and whether both faces are drawn. Each distinct
//! (model, alpha, sides) is one pipeline variant of the crowd draw; the
//! cutoff is a constant of the material's descriptor set
//! (`gpu::shader_types::MaterialConstants`).

use serde::Serialize;

use crate::shared_constants::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, SHADING_DOOM3, SHADING_METALLIC_ROUGHNESS, SHADING_UNLIT,
};

/// Which lighting model a mesh is shaded with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ShadingModel {
    /// Diffuse, normal and specular maps, Lambert plus a fixed Blinn-Phong
    /// highlight: md5 materials, and glTF specular-glossiness ones.
    #[default]
    #[serde(rename = "doom3")]
    Doom3 = SHADING_DOOM3 as isize,
    /// The glTF 2.0 specification's BRDF (Appendix B).
    #[serde(rename = "metallic-roughness")]
    MetallicRoughness = SHADING_METALLIC_ROUGHNESS as isize,
    /// KHR_materials_unlit: base colour, untouched by light and shadow.
    #[serde(rename = "unlit")]
    Unlit = SHADING_UNLIT as isize,
}

/// glTF's `alphaMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum AlphaMode {
    #[default]
    #[serde(rename = "OPAQUE")]
    Opaque = ALPHA_OPAQUE as isize,
    /// Cut where alpha is under the cutoff.
    #[serde(rename = "MASK")]
    Mask = ALPHA_MASK as isize,
    /// Composited over what is behind, after everything opaque.
    #[serde(rename = "BLEND")]
    Blend = ALPHA_BLEND as isize,
}

/// glTF's default `alphaCutoff`.
pub const DEFAULT_ALPHA_CUTOFF: f32 = 0.5;

/// A material's shading, as `inspect --json` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Shading {
    pub model: ShadingModel,
    pub alpha: AlphaMode,
    /// Alpha below this is cut (MASK only; 0.5 otherwise, as glTF says).
    pub alpha_cutoff: f32,
    /// Both faces drawn, a back face lit with its normal turned round.
    pub double_sided: bool,
}

impl Default for Shading {
    /// Doom 3's: opaque, one-sided.
    fn default() -> Shading {
        Shading {
            model: ShadingModel::Doom3,
            alpha: AlphaMode::Opaque,
            alpha_cutoff: DEFAULT_ALPHA_CUTOFF,
            double_sided: false,
        }
    }
}

/// What picks a crowd pipeline variant: materials sharing it share one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShadingVariant {
    pub model: ShadingModel,
    pub alpha: AlphaMode,
    pub double_sided: bool,
}

impl Shading {
    pub fn variant(&self) -> ShadingVariant {
        ShadingVariant {
            model: self.model,
            alpha: self.alpha,
            double_sided: self.double_sided,
        }
    }
}
