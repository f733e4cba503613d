//! The compute side of a frame's recording: a phase's cull, the draws it
//! writes and the poses of what it kept, the agent pass, and the counts
//! the culls accumulate, zeroed before and copied out after, each between
//! the barriers it needs.

use ash::vk;

use super::{phase_commands, FrameRecorder, PhaseNames};
use crate::gpu::crowd_buffers::{Animation, VISIBLE_HEADER_BYTES};
use crate::gpu::model_resources::ModelResources;
use crate::gpu::passes::agents::{self, AgentStep};
use crate::gpu::passes::{animate, cull, draws};
use crate::gpu::profiler::Profiler;
use crate::gpu::resources::{memory_barrier, Buffer};
use crate::gpu::shader_types::{CrowdComputeConstants, CullPhase};
use crate::gpu::{debug, Context};

impl FrameRecorder<'_> {
    /// `phase`'s compute work: the cull and the draws it writes
    /// (cull.comp, draws.comp), then the poses of what it kept
    /// (animate.comp, GPU animation only), with the barriers before the
    /// draws read them.
    pub(super) fn record_cull(&mut self, phase: CullPhase, names: &PhaseNames, view: usize) {
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        let (ctx, cmd) = (self.ctx, self.cmd);
        let model = self.model;
        let layout = model.compute_pipeline_layout;
        let constants = self.constants(phase, view);
        if phase == CullPhase::Late {
            // The early draws read the lists, transforms and draws the
            // late passes append to; the pyramid was just written.
            memory_barrier(
                ctx,
                cmd,
                (
                    Stage::DRAW_INDIRECT | Stage::VERTEX_SHADER | Stage::COMPUTE_SHADER,
                    Access::SHADER_STORAGE_WRITE,
                ),
                (
                    Stage::COMPUTE_SHADER,
                    Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
                ),
            );
        }
        let scope = self.profiler.begin(ctx, cmd, names.cull);
        cull::record_cull(ctx, cmd, &model.cull, layout, constants);
        // The counts and lists are read by draws.comp, animate.comp,
        // the vertex shaders and the readback copy.
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (
                Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER | Stage::COPY,
                Access::SHADER_STORAGE_READ | Access::TRANSFER_READ,
            ),
        );
        let kernel = self.crowd.animate_kernel;
        draws::record_draws(ctx, cmd, &model.draws, kernel, layout, constants);
        self.profiler.end(ctx, cmd, scope);
        // Last frame's indirect reads of this slot's draws were waited
        // for by its fence; this frame's wait for draws.comp (which also
        // keeps the early counts).
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (
                Stage::DRAW_INDIRECT | Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER | Stage::COPY,
                Access::INDIRECT_COMMAND_READ | Access::SHADER_STORAGE_READ | Access::TRANSFER_READ,
            ),
        );
        if self.crowd.shape.animation == Animation::Gpu && phase != CullPhase::Shadow {
            let scope = self.profiler.begin(ctx, cmd, names.animate);
            let commands = phase_commands(phase);
            let dispatch = (
                self.frame.draw_commands.handle,
                model.draw_commands.dispatch(commands),
            );
            animate::record_animate(
                ctx,
                cmd,
                &model.animate,
                kernel,
                layout,
                constants,
                dispatch,
            );
            self.profiler.end(ctx, cmd, scope);
            memory_barrier(
                ctx,
                cmd,
                (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
                (Stage::VERTEX_SHADER, Access::SHADER_STORAGE_READ),
            );
        }
    }
}

/// The agent pass, between the barriers it needs: the placements are one
/// buffer for every frame in flight, so the last frame's reads (culling,
/// vertex shaders) and writes come before this frame's writes, and these
/// before this frame's reads.
pub(super) fn record_agent_pass(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    profiler: &mut Profiler,
    model: &ModelResources,
    constants: CrowdComputeConstants,
    step: AgentStep,
) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let readers = Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER;
    memory_barrier(
        ctx,
        cmd,
        (readers, Access::SHADER_STORAGE_WRITE),
        (
            Stage::COMPUTE_SHADER,
            Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
        ),
    );
    let scope = profiler.begin(ctx, cmd, "agents");
    let layout = model.compute_pipeline_layout;
    agents::record_agents(ctx, cmd, &model.agents, layout, constants, step);
    profiler.end(ctx, cmd, scope);
    memory_barrier(
        ctx,
        cmd,
        (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
        (readers, Access::SHADER_STORAGE_READ),
    );
}

/// Zeroes the visible lists' header, the counts of every level and the
/// palette rows wanted: what cull.comp accumulates into with atomics.
pub(super) fn record_reset(ctx: &Context, cmd: vk::CommandBuffer, visible: &Buffer) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "reset counts");
    unsafe {
        ctx.device
            .cmd_fill_buffer(cmd, visible.handle, 0, VISIBLE_HEADER_BYTES, 0);
    }
    // Also orders this frame's culls after the last frame's late cull,
    // which wrote the visibility they read.
    memory_barrier(
        ctx,
        cmd,
        (
            Stage::CLEAR | Stage::COPY | Stage::COMPUTE_SHADER,
            Access::TRANSFER_WRITE | Access::SHADER_STORAGE_WRITE,
        ),
        (
            Stage::COMPUTE_SHADER,
            Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
        ),
    );
}

/// Copies out what the culls counted, for the CPU to read once the frame
/// is done: the visible lists' header (the per-level counts and the palette
/// rows wanted), and the clips wanted as impostors.
pub(super) fn record_visible_count_readback(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    (visible, readback): (&Buffer, &Buffer),
    (requests, requests_readback): (&Buffer, &Buffer),
) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let header = vk::BufferCopy::default().size(VISIBLE_HEADER_BYTES);
    let wanted = vk::BufferCopy::default().size(requests.size);
    unsafe {
        ctx.device
            .cmd_copy_buffer(cmd, visible.handle, readback.handle, &[header]);
        ctx.device
            .cmd_copy_buffer(cmd, requests.handle, requests_readback.handle, &[wanted]);
    }
    memory_barrier(
        ctx,
        cmd,
        (Stage::COPY, Access::TRANSFER_WRITE),
        (Stage::HOST, Access::HOST_READ),
    );
}
