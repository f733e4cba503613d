//! One frame's commands, in pass order, with the barriers between passes.
//! With locomotion on, the agent pass first moves everyone. Without
//! occlusion culling: reset the counters, cull, write the draws,
//! animate (GPU animation only), then the scene. With it, niagara's two
//! phases: the early cull keeps what was visible last frame, which is
//! animated and drawn; the depth pyramid is built from that depth; the late
//! cull tests everything against it, and what newly passed is animated and
//! drawn over the early image. The skeleton overlay comes last in the
//! scene, on top; the ui overlay, when shown, after it, in a scope of its
//! own.

use ash::vk;

use super::crowd_buffers::{Animation, CrowdBuffer, VISIBLE_HEADER_BYTES};
use super::frame_loop::FrameInput;
use super::model_resources::ModelResources;
use super::passes::agents::{self, AgentStep};
use super::passes::crowd_draw::{self, DrawOptions, Surface};
use super::passes::overlay::OverlayFrame;
use super::passes::{animate, cull, draws, ground, impostor_draw, pyramid, skeleton_overlay};
use super::profiler::Profiler;
use super::renderer::Renderer;
use super::resources::{memory_barrier, Buffer};
use super::shader_types::{CrowdComputeConstants, CullPhase, DrawConstants, PALETTE_PER_INSTANCE};
use super::targets::{begin_rendering, end_rendering, Scope};
use super::{debug, pipeline, Context, GpuError};

/// The profiler's and RenderDoc's names for a phase's passes.
struct PhaseNames {
    cull: &'static str,
    animate: &'static str,
    draw: &'static str,
    impostors: &'static str,
    scene: &'static str,
}

fn phase_names(phase: CullPhase) -> PhaseNames {
    match phase {
        CullPhase::All => PhaseNames {
            cull: "cull",
            animate: "animate",
            draw: "draw",
            impostors: "impostors",
            scene: "scene",
        },
        CullPhase::Early => PhaseNames {
            cull: "cull early",
            animate: "animate early",
            draw: "draw early",
            impostors: "impostors early",
            scene: "scene early",
        },
        CullPhase::Late => PhaseNames {
            cull: "cull late",
            animate: "animate late",
            draw: "draw late",
            impostors: "impostors late",
            scene: "scene late",
        },
    }
}

impl Renderer {
    /// Records the passes of frame slot `slot`, whose buffers hold this
    /// frame's input, into `cmd`, then `overlay` over them; afterwards the
    /// colour target holds the frame, ready to be copied out. Recording
    /// goes on to the end whatever happens; the ui overlay's failure to
    /// draw is returned, for after the submission.
    pub(super) fn record(
        &mut self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        slot: usize,
        input: &FrameInput,
        overlay: Option<&OverlayFrame>,
    ) -> Result<(), GpuError> {
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        let agent_step = self
            .crowd
            .as_ref()
            .and_then(|crowd| self.crowd_frames.agent_step(crowd, input.view.locomotion));
        let model = &self.model;
        let crowd = self.crowd.as_ref().expect("upload checked the crowd");
        let frame = &self.slots[slot];
        let sets = &crowd.slots[slot];
        let animation = crowd.shape.animation;
        let visible = crowd
            .buffer(CrowdBuffer::VisibleInstances, slot)
            .expect("every crowd has a visible list");
        // The CPU-skinning yardstick draws every instance itself.
        let cpu_skinned = crowd.buffer(CrowdBuffer::CpuSkinnedVertices, slot);
        let compute_only = input.view.compute_only;
        let occlusion = input.view.occlusion && input.view.frozen_cull.is_none();
        let phases: &[CullPhase] = match (occlusion, cpu_skinned, compute_only) {
            (true, None, false) => &[CullPhase::Early, CullPhase::Late],
            _ => &[CullPhase::All],
        };
        // Impostors are the level past the chain: none without level of
        // detail. The yardsticks draw every instance as a mesh: CPU
        // skinning skins them all, and the bind-pose crowd stands
        // unanimated.
        let impostors = input.view.impostors
            && input.view.lod_bias.is_some()
            && matches!(animation, Animation::Gpu | Animation::Cpu);
        let constants = |phase: CullPhase| CrowdComputeConstants {
            instance_count: crowd.instance_count,
            model_count: model.model.parts.len() as u32,
            lod_count: model.model.lod_count,
            phase: phase as u32,
            palette_rows: crowd.palette_rows(slot).unwrap_or(PALETTE_PER_INSTANCE),
            impostors: impostors.into(),
            draw_commands: model.draw_commands.gpu(),
        };
        let skinning = (animation != Animation::BindPose).then_some(input.view.skinning);
        let draw_constants =
            DrawConstants::new(skinning, crowd.instance_count, input.view.show_lod);
        let layout = model.compute_pipeline_layout;
        // Without level of detail cull.comp puts everyone at level 0.
        let drawn_levels = match input.view.lod_bias {
            Some(_) => model.model.lod_count,
            None => 1,
        };
        let bind_scene_set = |set| unsafe {
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                model.draw_pipeline_layout,
                0,
                &[set],
                &[],
            );
        };

        // Query pools are reset outside any rendering scope, before first use.
        self.profiler.begin_frame(ctx, cmd, slot);
        record_reset(ctx, cmd, visible);
        unsafe {
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                &[sets.compute, self.targets.pyramid_set],
                &[],
            );
        }
        if let Some(step) = agent_step {
            record_agent_pass(
                ctx,
                cmd,
                &mut self.profiler,
                model,
                constants(phases[0]),
                step,
            );
        }
        // The pipeline statistics span the scene; a query begun inside a
        // dynamic rendering scope crashes lavapipe.
        self.profiler.begin_statistics(ctx, cmd);
        for (index, &phase) in phases.iter().enumerate() {
            let names = phase_names(phase);
            let last = index + 1 == phases.len();
            let constants = constants(phase);
            // The early phase's (or the only) draws and dispatch, or the late's.
            let commands = usize::from(phase == CullPhase::Late);
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
            draws::record_draws(
                ctx,
                cmd,
                &model.draws,
                crowd.animate_kernel,
                layout,
                constants,
            );
            self.profiler.end(ctx, cmd, scope);
            // Last frame's indirect reads of this slot's draws were waited
            // for by its fence; this frame's wait for draws.comp (which also
            // keeps the early counts).
            memory_barrier(
                ctx,
                cmd,
                (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
                (
                    Stage::DRAW_INDIRECT
                        | Stage::COMPUTE_SHADER
                        | Stage::VERTEX_SHADER
                        | Stage::COPY,
                    Access::INDIRECT_COMMAND_READ
                        | Access::SHADER_STORAGE_READ
                        | Access::TRANSFER_READ,
                ),
            );
            if animation == Animation::Gpu {
                let scope = self.profiler.begin(ctx, cmd, names.animate);
                let dispatch = (
                    frame.draw_commands.handle,
                    model.draw_commands.dispatch(commands),
                );
                animate::record_animate(
                    ctx,
                    cmd,
                    &model.animate,
                    crowd.animate_kernel,
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
            if last {
                record_visible_count_readback(ctx, cmd, visible, &frame.visible_readback);
            }
            if compute_only {
                continue;
            }

            let (crowd_set, surface) = match (sets.identity_scene, cpu_skinned) {
                (Some(identity_set), Some(vertices)) => (
                    identity_set,
                    Surface::CpuSkinned {
                        vertices: vertices.handle,
                        models: &crowd.models,
                    },
                ),
                _ => (
                    sets.scene,
                    Surface::BindPose {
                        draw_commands: (frame.draw_commands.handle, model.draw_commands),
                        set: commands,
                        drawn_levels,
                    },
                ),
            };
            let _scene = debug::label(ctx, cmd, names.scene);
            let opening = if index == 0 {
                Scope::First
            } else {
                Scope::Continued
            };
            // The first scope to open also clears the targets: the ground's
            // when the crowd stands on one, else the draw's.
            let draws_ground = index == 0 && input.view.locomotion;
            let first =
                self.profiler
                    .begin(ctx, cmd, if draws_ground { "ground" } else { names.draw });
            begin_rendering(ctx, cmd, &self.targets, opening);
            pipeline::set_viewport(ctx, cmd, self.targets.color.extent);
            bind_scene_set(crowd_set);
            let draw = if draws_ground {
                ground::record_ground(ctx, cmd, &model.ground, crowd.instance_count);
                self.profiler.end(ctx, cmd, first);
                self.profiler.begin(ctx, cmd, names.draw)
            } else {
                first
            };
            crowd_draw::record_crowd_draw(
                ctx,
                cmd,
                &model.crowd_draw,
                model.draw_pipeline_layout,
                &model.model,
                &model.material_sets,
                surface,
                draw_constants,
                DrawOptions {
                    wireframe: input.view.wireframe,
                    lod_influences: input.view.lod_influences,
                    multi_draw: input.view.multi_draw,
                },
            );
            self.profiler.end(ctx, cmd, draw);
            if impostors {
                let scope = self.profiler.begin(ctx, cmd, names.impostors);
                let _label = debug::label(ctx, cmd, names.impostors);
                let offsets: Vec<u64> = (0..model.model.parts.len())
                    .map(|m| model.draw_commands.impostor(commands, m))
                    .collect();
                impostor_draw::record_impostor_draw(
                    ctx,
                    cmd,
                    &model.impostor_draw,
                    &model.model,
                    &model.impostors.sets,
                    (frame.draw_commands.handle, &offsets),
                    draw_constants,
                );
                self.profiler.end(ctx, cmd, scope);
            }
            if last && input.view.show_skeleton && animation != Animation::BindPose {
                let skeleton = self.profiler.begin(ctx, cmd, "skeleton");
                if crowd_set != sets.scene {
                    bind_scene_set(sets.scene);
                }
                for commands in 0..phases.len() {
                    skeleton_overlay::record_skeleton_overlay(
                        ctx,
                        cmd,
                        &model.skeleton_overlay,
                        model.draw_pipeline_layout,
                        &model.model,
                        (frame.draw_commands.handle, model.draw_commands),
                        commands,
                        drawn_levels,
                        draw_constants,
                    );
                }
                self.profiler.end(ctx, cmd, skeleton);
            }
            end_rendering(ctx, cmd, &self.targets, last);
            if !last {
                let scope = self.profiler.begin(ctx, cmd, "depth pyramid");
                pyramid::record_pyramid(
                    ctx,
                    cmd,
                    &model.pyramid,
                    layout,
                    &self.targets.pyramid_levels,
                );
                self.profiler.end(ctx, cmd, scope);
            }
        }
        self.profiler.end_statistics(ctx, cmd);
        // Without a scene the colour target holds nothing to draw over.
        match (overlay, &mut self.overlay, compute_only) {
            (Some(frame), Some(pass), false) => {
                let _label = debug::label(ctx, cmd, "ui overlay");
                let scope = self.profiler.begin(ctx, cmd, "ui overlay");
                let drawn = pass.record(ctx, cmd, &self.targets.color, frame);
                self.profiler.end(ctx, cmd, scope);
                drawn
            }
            _ => Ok(()),
        }
    }
}

/// The agent pass, between the barriers it needs: the placements are one
/// buffer for every frame in flight, so the last frame's reads (culling,
/// vertex shaders) and writes come before this frame's writes, and these
/// before this frame's reads.
fn record_agent_pass(
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
fn record_reset(ctx: &Context, cmd: vk::CommandBuffer, visible: &Buffer) {
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

fn record_visible_count_readback(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    visible: &Buffer,
    readback: &Buffer,
) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    // The header: the per-level counts and the palette rows wanted.
    let region = vk::BufferCopy::default().size(VISIBLE_HEADER_BYTES);
    unsafe {
        ctx.device
            .cmd_copy_buffer(cmd, visible.handle, readback.handle, &[region]);
    }
    memory_barrier(
        ctx,
        cmd,
        (Stage::COPY, Access::TRANSFER_WRITE),
        (Stage::HOST, Access::HOST_READ),
    );
}
