//! The bake's pipelines and what they write: crowd.vert with every
//! influence and impostor_bake.frag, one pipeline per (shading model, MASK
//! or not) among a model's meshes, each writing a texel's albedo, normal
//! and depth and, where the atlas keeps them, its surface and emission.

use ash::vk;

use super::BakeInputs;
use crate::crowd::{AtlasImage, ImpostorLayout};
use crate::gpu::gpu_model::MeshDraw;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::passes::crowd_draw;
use crate::gpu::pipeline::{
    self, Blend, Constants, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats,
};
use crate::gpu::shaders::spirv;
use crate::gpu::targets::DEPTH_FORMAT;
use crate::gpu::{Context, GpuError};
use crate::material::{AlphaMode, ShadingModel};

/// Albedo and coverage: sRGB, so the mips average in linear light.
pub const ALBEDO_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
/// The normal in the view's frame and the depth along it, x * 0.5 + 0.5.
pub const NORMAL_DEPTH_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
/// Metallic, roughness, occlusion, and the share of metallic-roughness
/// texels: as the maps keep them.
pub const SURFACE_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
/// Emission, and the share of unlit texels: sRGB as the emissive map (the
/// mips average in linear light; alpha stays linear).
pub const EMISSION_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// What an atlas image is stored as.
pub fn atlas_format(image: AtlasImage) -> vk::Format {
    match image {
        AtlasImage::Albedo(_) => ALBEDO_FORMAT,
        AtlasImage::NormalDepth => NORMAL_DEPTH_FORMAT,
        AtlasImage::Surface => SURFACE_FORMAT,
        AtlasImage::Emission => EMISSION_FORMAT,
    }
}

/// Attachments 1.. of a bake pipeline: the atlas's images after the albedo
/// (`ImpostorLayout::images`). Without surfaces, impostor_bake.frag's last
/// two outputs have no attachment, and what it writes there is discarded.
fn further_colors(layout: &ImpostorLayout) -> &'static [vk::Format] {
    match layout.surfaces {
        true => &[NORMAL_DEPTH_FORMAT, SURFACE_FORMAT, EMISSION_FORMAT],
        false => &[NORMAL_DEPTH_FORMAT],
    }
}

/// What picks a bake pipeline: meshes sharing it share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BakeVariant {
    pub model: ShadingModel,
    /// MASK: its cut texels stay empty; BLEND: its texels are kept as
    /// densely as its alpha.
    pub alpha: AlphaMode,
}

impl BakeVariant {
    pub fn of(draw: &MeshDraw) -> BakeVariant {
        BakeVariant {
            model: draw.shading.model,
            alpha: draw.shading.alpha,
        }
    }

    /// The pipeline's debug name: Doom 3's opaque one keeps its name.
    fn name(&self) -> String {
        let model = match self.model {
            ShadingModel::Doom3 => "",
            ShadingModel::MetallicRoughness => ", metallic-roughness",
            ShadingModel::Unlit => ", unlit",
        };
        let alpha = match self.alpha {
            AlphaMode::Opaque => "",
            AlphaMode::Mask => ", alpha MASK",
            AlphaMode::Blend => ", alpha BLEND",
        };
        format!("impostor bake{model}{alpha}")
    }
}

/// One model's bake pipelines, one per variant its meshes use.
pub struct BakePipelines {
    variants: Vec<BakeVariant>,
    pipelines: Vec<vk::Pipeline>,
}

impl Destroy for BakePipelines {
    fn destroy(self, ctx: &Context) {
        self.pipelines.destroy(ctx);
    }
}

impl BakePipelines {
    /// The pipelines `draws` (a model's meshes) need.
    pub fn new(
        ctx: &Context,
        inputs: &BakeInputs,
        layout: &ImpostorLayout,
        draws: &[MeshDraw],
    ) -> Result<BakePipelines, GpuError> {
        let mut made = guard(
            ctx,
            BakePipelines {
                variants: Vec::new(),
                pipelines: Vec::new(),
            },
        );
        for variant in draws.iter().map(BakeVariant::of) {
            if !made.variants.contains(&variant) {
                let pipeline = bake_pipeline(ctx, inputs, layout, variant)?;
                made.variants.push(variant);
                made.pipelines.push(pipeline);
            }
        }
        Ok(made.keep())
    }

    /// The pipeline that bakes `draw`, one of the meshes it was made for.
    pub fn of(&self, draw: &MeshDraw) -> vk::Pipeline {
        let variant = BakeVariant::of(draw);
        let index = self.variants.iter().position(|&v| v == variant);
        self.pipelines[index.expect("a pipeline per variant of the model's meshes")]
    }
}

/// A bake pipeline: crowd.vert with every influence, and
/// impostor_bake.frag specialized for the variant's shading model and
/// alpha mode. No face is culled: the orthographic
/// cameras need not keep md5's winding.
fn bake_pipeline(
    ctx: &Context,
    inputs: &BakeInputs,
    layout: &ImpostorLayout,
    variant: BakeVariant,
) -> Result<vk::Pipeline, GpuError> {
    let limit = inputs.gpu_model.limit;
    let (bindings, attributes) = crowd_draw::vertex_input(limit);
    let influences = limit.count() as u32;
    let vertex_constants = pipeline::constant_0(&influences);
    let fragment_constants =
        Constants::new(&[layout.skins, variant.alpha as u32, variant.model as u32]);
    let fragment_constants = fragment_constants.info();
    pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: &variant.name(),
            layout: inputs.draw_pipeline_layout,
            vertex_shader: ShaderStage {
                name: "crowd.vert",
                spirv: spirv::CROWD_VERT,
                specialization: Some(&vertex_constants),
            },
            fragment_shader: Some(ShaderStage {
                name: "impostor_bake.frag",
                spirv: spirv::IMPOSTOR_BAKE_FRAG,
                specialization: Some(&fragment_constants),
            }),
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::CLOCKWISE,
            depth: Depth::TestAndWrite,
            blend: Blend::Replace,
            alpha_to_coverage: false,
            depth_bias: None,
            formats: TargetFormats {
                color: Some(ALBEDO_FORMAT),
                further_colors: further_colors(layout),
                depth: DEPTH_FORMAT,
                samples: vk::SampleCountFlags::TYPE_1,
            },
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attachments_are_the_atlas_images_in_its_order() {
        let posed = crate::bounds::Bounds::point(glam::Vec3::ZERO);
        for surfaces in [false, true] {
            let layout = ImpostorLayout::new(1, (2, surfaces), posed, 1 << 30);
            // A scope binds one skin's albedo, then every other image.
            let bound: Vec<vk::Format> = layout
                .images()
                .into_iter()
                .filter(|image| !matches!(image, AtlasImage::Albedo(s) if *s > 0))
                .map(atlas_format)
                .collect();
            let mut expected = vec![ALBEDO_FORMAT];
            expected.extend(further_colors(&layout));
            assert_eq!(bound, expected, "surfaces: {surfaces}");
        }
    }
}
