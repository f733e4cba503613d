//! Animation on the GPU (animate.comp): for each visible instance, sample
//! its clip (and the clip it fades from), run the joint hierarchy and write
//! its skinning transforms, a quaternion and a translation per joint, into
//! the buffer crowd.vert reads. The CPU reference is `crowd::animate_crowd`.

use ash::vk;

use super::cull;
use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

pub struct Animate {
    pub pipeline: vk::Pipeline,
}

pub fn create_animate(ctx: &Context, layout: vk::PipelineLayout) -> Result<Animate, GpuError> {
    let shader = ShaderStage {
        name: "animate.comp",
        spirv: spirv::ANIMATE_COMP,
        specialization: None,
    };
    let pipeline = pipeline::create_compute_pipeline(ctx, "animate", layout, &shader)?;
    Ok(Animate { pipeline })
}

impl Destroy for Animate {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// After the cull pass and the draws pass, with the compute set bound: as
/// many workgroups as draws.comp wrote into the `VkDispatchIndirectCommand`
/// at `dispatch` (buffer, offset), enough for the instances this phase
/// appended and no more.
pub fn record_animate(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Animate,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
    dispatch: (vk::Buffer, u64),
) {
    let _label = debug::label(ctx, cmd, "animate");
    cull::bind_and_push(ctx, cmd, pass.pipeline, layout, constants);
    unsafe {
        ctx.device
            .cmd_dispatch_indirect(cmd, dispatch.0, dispatch.1)
    };
}
