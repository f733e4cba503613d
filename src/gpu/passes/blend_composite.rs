//! The composite of weighted blended transparency (blend_composite.frag):
//! one triangle over the picture lays the BLEND surfaces' weighted average
//! colour over it with their coverage. Its layouts live as long as the
//! model's resources and its pipeline as the scene's, only for models with
//! BLEND meshes; the images it reads are the targets'
//! (`targets::weighted_blend`), which its set layout is made for.

use ash::vk;

use crate::gpu::descriptors::{self, SetLayout};
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{self, Blend, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats};
use crate::gpu::shaders::spirv;
use crate::gpu::targets::COLOR_FORMAT;
use crate::gpu::{Context, GpuError};

/// What the composite's pipelines share whatever the sample count: its
/// set layout, which the targets make their set with, and pipeline layout.
pub struct BlendCompositeLayout {
    /// Set 0: the weighted colours and weights.
    pub set_layout: SetLayout,
    pipeline_layout: vk::PipelineLayout,
}

/// The picture: one sample a pixel, whatever the scene's sample count.
const PICTURE: TargetFormats = TargetFormats {
    color: Some(COLOR_FORMAT),
    further_colors: &[],
    depth: vk::Format::UNDEFINED,
    samples: vk::SampleCountFlags::TYPE_1,
};

pub fn create_blend_composite_layout(ctx: &Context) -> Result<BlendCompositeLayout, GpuError> {
    use vk::ShaderStageFlags as Stage;
    let set_layout = guard(
        ctx,
        descriptors::create_set_layout(
            ctx,
            "blend composite set layout",
            0,
            &[
                (
                    "blend_composite.frag",
                    spirv::BLEND_COMPOSITE_FRAG,
                    Stage::FRAGMENT,
                ),
                (
                    "blend_composite_samples.frag",
                    spirv::BLEND_COMPOSITE_SAMPLES_FRAG,
                    Stage::FRAGMENT,
                ),
            ],
        )?,
    );
    let pipeline_layout = pipeline::create_pipeline_layout(
        ctx,
        "blend composite pipeline layout",
        &[set_layout.handle],
        &[],
    )?;
    Ok(BlendCompositeLayout {
        pipeline_layout,
        set_layout: set_layout.keep(),
    })
}

/// The composite of weighted targets with `samples` a pixel: averaging
/// them in the shader where there are several.
pub fn create_blend_composite(
    ctx: &Context,
    layout: &BlendCompositeLayout,
    samples: vk::SampleCountFlags,
) -> Result<vk::Pipeline, GpuError> {
    let stage = |name, spirv, specialization| ShaderStage {
        name,
        spirv,
        specialization,
    };
    let count = samples.as_raw();
    let sample_count = pipeline::constant_0(&count);
    let fragment_shader = match samples == vk::SampleCountFlags::TYPE_1 {
        true => stage("blend_composite.frag", spirv::BLEND_COMPOSITE_FRAG, None),
        false => stage(
            "blend_composite_samples.frag",
            spirv::BLEND_COMPOSITE_SAMPLES_FRAG,
            Some(&sample_count),
        ),
    };
    pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: &format!("blend composite ({count} samples)"),
            layout: layout.pipeline_layout,
            vertex_shader: stage("blend_composite.vert", spirv::BLEND_COMPOSITE_VERT, None),
            fragment_shader: Some(fragment_shader),
            vertex_bindings: &[],
            vertex_attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::CLOCKWISE,
            depth: Depth::Off,
            blend: Blend::Over,
            alpha_to_coverage: false,
            depth_bias: None,
            formats: PICTURE,
        },
    )
}

/// Draws the composite (`pipeline`) over the picture, inside a rendering
/// scope of the picture alone, with `set` holding the weighted targets.
pub fn record_blend_composite(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    (layout, pipeline): (&BlendCompositeLayout, vk::Pipeline),
    set: vk::DescriptorSet,
) {
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
        ctx.device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout.pipeline_layout,
            0,
            &[set],
            &[],
        );
        ctx.device.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

impl Destroy for BlendCompositeLayout {
    fn destroy(self, ctx: &Context) {
        self.pipeline_layout.destroy(ctx);
        self.set_layout.destroy(ctx);
    }
}
