//! Frustum culling on the GPU (cull.comp): compacts the ids of the instances
//! whose bounding sphere meets the view frustum and counts them into every
//! indirect draw command, so draws and animation cover only what is seen.

use ash::vk;

use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ComputePipeline, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

pub struct Cull {
    pub pipeline: ComputePipeline,
}

pub fn create_cull(ctx: &Context, layout: vk::PipelineLayout) -> Result<Cull, GpuError> {
    let shader = ShaderStage {
        name: "cull.comp",
        spirv: spirv::CULL_COMP,
        specialization: None,
    };
    let pipeline = pipeline::create_compute_pipeline(ctx, "cull", layout, &shader)?;
    Ok(Cull { pipeline })
}

impl Destroy for Cull {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// One invocation per instance. The compute set (set 0 of `layout`) must be
/// bound and the visible counts zeroed before this runs.
pub fn record_cull(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Cull,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
) {
    let _label = debug::label(ctx, cmd, "cull");
    dispatch_per_instance(ctx, cmd, pass.pipeline, layout, constants);
}

/// Binds `pipeline` and pushes the constants the compute passes share.
pub(super) fn bind_and_push(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pipeline: ComputePipeline,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
) {
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.handle);
        ctx.device.cmd_push_constants(
            cmd,
            layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            bytemuck::bytes_of(&constants),
        );
    }
}

/// One invocation per instance of the crowd.
pub(super) fn dispatch_per_instance(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pipeline: ComputePipeline,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
) {
    bind_and_push(ctx, cmd, pipeline, layout, constants);
    let groups = pipeline.groups_for(constants.instance_count);
    unsafe { ctx.device.cmd_dispatch(cmd, groups, 1, 1) };
}
