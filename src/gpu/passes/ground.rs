//! The ground the crowd stands on: a plane at z = 0 and a soft contact
//! shadow under every instance, drawn first in the scene so the characters
//! cover them. Neither has a vertex buffer: the shaders make their corners
//! from `gl_VertexIndex` and read the instances' placements (written by
//! the agent pass when the crowd walks).

use ash::vk;

use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{self, Blend, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats};
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// Two triangles, corners from `gl_VertexIndex`.
const QUAD_VERTICES: u32 = 6;

pub struct Ground {
    pub plane: vk::Pipeline,
    pub shadows: vk::Pipeline,
}

pub fn create_ground(
    ctx: &Context,
    layout: vk::PipelineLayout,
    formats: TargetFormats,
) -> Result<Ground, GpuError> {
    let stage = |name, spirv| ShaderStage {
        name,
        spirv,
        specialization: None,
    };
    let quads = |name, vertex_shader, fragment_shader, depth, blend| GraphicsPipelineDesc {
        name,
        layout,
        vertex_shader,
        fragment_shader: Some(fragment_shader),
        vertex_bindings: &[],
        vertex_attributes: &[],
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        polygon_mode: vk::PolygonMode::FILL,
        cull_mode: vk::CullModeFlags::NONE,
        front_face: vk::FrontFace::CLOCKWISE,
        depth,
        blend,
        alpha_to_coverage: false,
        depth_bias: None,
        formats,
    };
    let plane = guard(
        ctx,
        pipeline::create_graphics_pipeline(
            ctx,
            &quads(
                "ground plane",
                stage("ground.vert", spirv::GROUND_VERT),
                stage("ground.frag", spirv::GROUND_FRAG),
                Depth::TestAndWrite,
                Blend::Replace,
            ),
        )?,
    );
    // Over the ground, under the characters; overlapping shadows darken
    // each other, as they would.
    let shadows = pipeline::create_graphics_pipeline(
        ctx,
        &quads(
            "contact shadows",
            stage("blob_shadow.vert", spirv::BLOB_SHADOW_VERT),
            stage("blob_shadow.frag", spirv::BLOB_SHADOW_FRAG),
            Depth::TestOnly,
            Blend::Over,
        ),
    )?;
    Ok(Ground {
        plane: plane.keep(),
        shadows,
    })
}

impl Destroy for Ground {
    fn destroy(self, ctx: &Context) {
        self.plane.destroy(ctx);
        self.shadows.destroy(ctx);
    }
}

/// Records the plane, then with blob shadows one per instance of the
/// crowd of `blobs`, inside a rendering scope whose set 0 (the scene set:
/// frame uniforms, placements) is bound.
pub fn record_ground(ctx: &Context, cmd: vk::CommandBuffer, pass: &Ground, blobs: Option<u32>) {
    let _label = debug::label(ctx, cmd, "ground");
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pass.plane);
        ctx.device.cmd_draw(cmd, QUAD_VERTICES, 1, 0, 0);
        if let Some(instance_count) = blobs {
            ctx.device
                .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pass.shadows);
            ctx.device
                .cmd_draw(cmd, QUAD_VERTICES, instance_count, 0, 0);
        }
    }
}
