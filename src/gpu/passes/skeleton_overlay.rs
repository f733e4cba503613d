//! Joint-to-parent lines of every instance, drawn over the skin (no depth
//! test) so the pose under the mesh can be checked by eye.

use std::mem::{offset_of, size_of};

use ash::vk;

use crate::gpu::draw_commands::DrawCommandLayout;
use crate::gpu::gpu_model::GpuModel;
use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, Blend, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats};
use crate::gpu::shader_types::{DrawConstants, SkeletonVertex};
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

pub struct SkeletonOverlay {
    pub pipeline: vk::Pipeline,
}

pub fn vertex_input() -> (
    [vk::VertexInputBindingDescription; 1],
    [vk::VertexInputAttributeDescription; 2],
) {
    (
        [vk::VertexInputBindingDescription {
            binding: 0,
            stride: size_of::<SkeletonVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }],
        [
            vk::VertexInputAttributeDescription {
                location: 0,
                binding: 0,
                format: vk::Format::R32G32B32_SFLOAT,
                offset: offset_of!(SkeletonVertex, bind_position) as u32,
            },
            vk::VertexInputAttributeDescription {
                location: 1,
                binding: 0,
                format: vk::Format::R32_UINT,
                offset: offset_of!(SkeletonVertex, joint) as u32,
            },
        ],
    )
}

pub fn create_skeleton_overlay(
    ctx: &Context,
    layout: vk::PipelineLayout,
    formats: TargetFormats,
) -> Result<SkeletonOverlay, GpuError> {
    let (bindings, attributes) = vertex_input();
    let pipeline = pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: "skeleton overlay",
            layout,
            vertex_shader: ShaderStage {
                name: "skeleton.vert",
                spirv: spirv::SKELETON_VERT,
                specialization: None,
            },
            fragment_shader: Some(ShaderStage {
                name: "skeleton.frag",
                spirv: spirv::SKELETON_FRAG,
                specialization: None,
            }),
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            topology: vk::PrimitiveTopology::LINE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::CLOCKWISE,
            depth: Depth::Off,
            blend: Blend::Replace,
            alpha_to_coverage: false,
            depth_bias: None,
            formats,
        },
    )?;
    Ok(SkeletonOverlay { pipeline })
}

impl Destroy for SkeletonOverlay {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// Records the lines, inside a dynamic rendering scope whose set 0 (scene,
/// with the real skinning transforms) is already bound with `layout`.
/// Each model's first `drawn_levels` overlay commands of command set `set`
/// in `draw_commands` are drawn.
#[allow(clippy::too_many_arguments)]
pub fn record_skeleton_overlay(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &SkeletonOverlay,
    layout: vk::PipelineLayout,
    model: &GpuModel,
    draw_commands: (vk::Buffer, DrawCommandLayout),
    set: usize,
    drawn_levels: u32,
    constants: DrawConstants,
) {
    let _label = debug::label(ctx, cmd, "skeleton overlay");
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pass.pipeline);
        ctx.device.cmd_push_constants(
            cmd,
            layout,
            vk::ShaderStageFlags::VERTEX,
            0,
            bytemuck::bytes_of(&constants),
        );
        ctx.device
            .cmd_bind_vertex_buffers(cmd, 0, &[model.skeleton_lines.handle], &[0]);
        let (buffer, commands) = draw_commands;
        for part in 0..model.parts.len() {
            for lod in 0..drawn_levels {
                let offset = commands.overlay(set, part, lod);
                ctx.device.cmd_draw_indirect(cmd, buffer, offset, 1, 0);
            }
        }
    }
}
