//! The depth pyramid (pyramid.comp) that the late phase of occlusion
//! culling tests against: one dispatch per level, each reading the level
//! below (level 0 the depth target), with a barrier between levels.

use ash::vk;

use crate::crowd::PyramidLevel;
use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ComputePipeline, ShaderStage};
use crate::gpu::resources::memory_barrier;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// pyramid.comp: a workgroup per tile of a level's texels, as wide and high
/// as its workgroup size.
pub struct Pyramid {
    pub pipeline: ComputePipeline,
}

pub fn create_pyramid(ctx: &Context, layout: vk::PipelineLayout) -> Result<Pyramid, GpuError> {
    let shader = ShaderStage {
        name: "pyramid.comp",
        spirv: spirv::PYRAMID_COMP,
        specialization: None,
    };
    let pipeline = pipeline::create_compute_pipeline(ctx, "depth pyramid", layout, &shader)?;
    Ok(Pyramid { pipeline })
}

impl Destroy for Pyramid {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// Builds every level, with the depth target readable and set 1 (the
/// pyramid set) bound with `layout`. Afterwards the pyramid is readable by
/// compute shaders.
pub fn record_pyramid(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Pyramid,
    layout: vk::PipelineLayout,
    levels: &[PyramidLevel],
) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "depth pyramid");
    // The previous frame's late cull read the pyramid (shared by the frame
    // slots, like the depth target it is built from).
    memory_barrier(
        ctx,
        cmd,
        (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_READ),
        (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
    );
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pass.pipeline.handle);
    }
    let [tile_width, tile_height, _] = pass.pipeline.workgroup_size;
    for (index, level) in levels.iter().enumerate() {
        unsafe {
            ctx.device.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                bytemuck::bytes_of(&(index as u32)),
            );
            ctx.device.cmd_dispatch(
                cmd,
                level.width.div_ceil(tile_width),
                level.height.div_ceil(tile_height),
                1,
            );
        }
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_READ),
        );
    }
}
