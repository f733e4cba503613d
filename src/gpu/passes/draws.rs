//! The indirect draws from the cull pass's counts (draws.comp): every mesh
//! and level of detail gets its level's visible count as instanceCount and
//! its region of the visible lists as firstInstance; so does each level of
//! the skeleton overlay. Counting stays one atomic per visible instance.

use ash::vk;

use super::animate::{Animate, Kernel, PerKernel};
use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// draws.comp sized for each animate kernel's dispatch.
pub struct Draws {
    pub pipelines: PerKernel,
}

/// draws.comp for every animate kernel a skeleton of `joints` joints
/// allows: each writes the dispatch of its kernel, in workgroups of the
/// size `animate`'s pipeline for it declares.
pub fn create_draws(
    ctx: &Context,
    layout: vk::PipelineLayout,
    joints: usize,
    animate: &Animate,
) -> Result<Draws, GpuError> {
    let pipelines = PerKernel::new(ctx, joints, |kernel| {
        // draws.comp's ANIMATE_INSTANCES_PER_WORKGROUP.
        let instances = kernel.instances_per_workgroup(&animate.pipelines.get(kernel));
        let specialization = pipeline::constant_0(&instances);
        let shader = ShaderStage {
            name: "draws.comp",
            spirv: spirv::DRAWS_COMP,
            specialization: Some(&specialization),
        };
        pipeline::create_compute_pipeline(ctx, "write draws", layout, &shader)
    })?;
    Ok(Draws { pipelines })
}

impl Destroy for Draws {
    fn destroy(self, ctx: &Context) {
        self.pipelines.destroy(ctx);
    }
}

/// After the cull pass, with the compute set bound: one workgroup.
pub fn record_draws(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Draws,
    animate: Kernel,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
) {
    let _label = debug::label(ctx, cmd, "write draws");
    super::cull::bind_and_push(ctx, cmd, pass.pipelines.get(animate), layout, constants);
    unsafe { ctx.device.cmd_dispatch(cmd, 1, 1, 1) };
}
