//! The composite of weighted blended transparency (blend_composite.frag):
//! one triangle over the picture lays the BLEND surfaces' weighted average
//! colour over it with their coverage. It lives as long as the model's
//! resources, and only for models with BLEND meshes; the images it reads
//! are the targets' (`targets::weighted_blend`), which its set layout is
//! made for.

use ash::vk;

use crate::gpu::descriptors::{self, SetLayout};
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{self, Blend, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats};
use crate::gpu::shaders::spirv;
use crate::gpu::targets::COLOR_FORMAT;
use crate::gpu::{Context, GpuError};

pub struct BlendComposite {
    /// Set 0: the weighted colours and weights, averaged over each
    /// pixel's samples.
    pub set_layout: SetLayout,
    pipeline_layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

/// The picture: one sample a pixel, whatever the scene's sample count.
const PICTURE: TargetFormats = TargetFormats {
    color: Some(COLOR_FORMAT),
    second_color: None,
    depth: vk::Format::UNDEFINED,
    samples: vk::SampleCountFlags::TYPE_1,
};

pub fn create_blend_composite(ctx: &Context) -> Result<BlendComposite, GpuError> {
    let set_layout = guard(
        ctx,
        descriptors::create_set_layout(
            ctx,
            "blend composite set layout",
            0,
            &[(
                "blend_composite.frag",
                spirv::BLEND_COMPOSITE_FRAG,
                vk::ShaderStageFlags::FRAGMENT,
            )],
        )?,
    );
    let pipeline_layout = guard(
        ctx,
        pipeline::create_pipeline_layout(
            ctx,
            "blend composite pipeline layout",
            &[set_layout.handle],
            &[],
        )?,
    );
    let stage = |name, spirv| ShaderStage {
        name,
        spirv,
        specialization: None,
    };
    let pipeline = pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: "blend composite",
            layout: *pipeline_layout,
            vertex_shader: stage("blend_composite.vert", spirv::BLEND_COMPOSITE_VERT),
            fragment_shader: Some(stage("blend_composite.frag", spirv::BLEND_COMPOSITE_FRAG)),
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
    )?;
    Ok(BlendComposite {
        pipeline,
        pipeline_layout: pipeline_layout.keep(),
        set_layout: set_layout.keep(),
    })
}

/// Draws the composite over the picture, inside a rendering scope of the
/// picture alone, with `set` holding the averaged weighted targets.
pub fn record_blend_composite(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &BlendComposite,
    set: vk::DescriptorSet,
) {
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pass.pipeline);
        ctx.device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            pass.pipeline_layout,
            0,
            &[set],
            &[],
        );
        ctx.device.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

impl Destroy for BlendComposite {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
        self.pipeline_layout.destroy(ctx);
        self.set_layout.destroy(ctx);
    }
}
