//! Locomotion on the GPU (agents.comp): before culling, moves every instance
//! along its lane to where it is at the frame's time and picks the clip its
//! speed calls for, writing the placements and the frame slot's instance
//! animation. The CPU reference is `crowd::agent_state`.

use ash::vk;

use super::cull;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{self, ComputePipeline, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

pub struct Agents {
    /// Walks everyone to where they are at the frame's time.
    pub walk: ComputePipeline,
    /// Puts everyone back where they stand without locomotion.
    pub return_home: ComputePipeline,
}

pub fn create_agents(ctx: &Context, layout: vk::PipelineLayout) -> Result<Agents, GpuError> {
    let pipeline = |name: &str, return_home: bool| {
        // agents.comp's RETURN_HOME.
        let return_home: vk::Bool32 = return_home.into();
        let specialization = pipeline::constant_0(&return_home);
        let shader = ShaderStage {
            name: "agents.comp",
            spirv: spirv::AGENTS_COMP,
            specialization: Some(&specialization),
        };
        pipeline::create_compute_pipeline(ctx, name, layout, &shader)
    };
    let walk = guard(ctx, pipeline("agents", false)?);
    let return_home = pipeline("agents: return home", true)?;
    Ok(Agents {
        walk: walk.keep(),
        return_home,
    })
}

impl Destroy for Agents {
    fn destroy(self, ctx: &Context) {
        self.return_home.destroy(ctx);
        self.walk.destroy(ctx);
    }
}

/// What the agent pass does this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentStep {
    Walk,
    ReturnHome,
}

/// One invocation per instance, with the compute set bound. Walking
/// writes the placements and the instance animation; returning home, the
/// placements only (the CPU uploads the animation again).
pub fn record_agents(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Agents,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
    step: AgentStep,
) {
    let (label, pipeline) = match step {
        AgentStep::Walk => ("agents", pass.walk),
        AgentStep::ReturnHome => ("agents: return home", pass.return_home),
    };
    let _label = debug::label(ctx, cmd, label);
    cull::dispatch_per_instance(ctx, cmd, pipeline, layout, constants);
}
