//! One frame's commands, in pass order, with the barriers between passes.
//! With locomotion on, the agent pass first moves everyone. Without
//! occlusion culling: reset the counters, cull, write the draws,
//! animate (GPU animation only), then the scene. With it, niagara's two
//! phases: the early cull keeps what was visible last frame, which is
//! animated and drawn; the depth pyramid is built from that depth; the late
//! cull tests everything against it, and what newly passed is animated and
//! drawn over the early image. The skeleton overlay comes last in the
//! opaque scene, on top; BLEND meshes after it, into scopes of their own
//! (weighted blended transparency); the ui overlay, when shown, last, in a
//! scope of its own.

use ash::vk;

use super::crowd_buffers::{Animation, CrowdBuffer};
use super::crowd_resources::{CrowdResources, CrowdSlotSets};
use super::draw_commands::shadow_command_set;
use super::frame::FrameSlot;
use super::frame_loop::{FrameInput, Shadows, ViewOptions};
use super::impostor_atlas::BakePlan;
use super::model_resources::ModelResources;
use super::passes::agents::AgentStep;
use super::passes::crowd_draw::{self, DrawOptions, Look, Surface};
use super::passes::impostor_draw::ImpostorLook;
use super::passes::overlay::OverlayFrame;
use super::passes::{ground, impostor_draw, pyramid, skeleton_overlay};
use super::profiler::Profiler;
use super::renderer::Renderer;
use super::resources::Buffer;
use super::scene_pipelines::ScenePipelines;
use super::shader_types::{CrowdComputeConstants, CullPhase, DrawConstants, PALETTE_PER_INSTANCE};
use super::shadow_map::ShadowMap;
use super::targets::{begin_rendering, end_rendering, Closing, Scope, Targets};
use super::{debug, pipeline, Context, GpuError};
use compute::{record_agent_pass, record_reset, record_visible_count_readback};
use shadows::cascade_names;

mod compute;
mod shadows;

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
        // A cascade's names are its own (cascade_names); it poses nothing
        // and draws no impostor.
        CullPhase::Shadow => cascade_names(0),
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
        (input, bakes): (&FrameInput, &BakePlan),
        overlay: Option<&OverlayFrame>,
    ) -> Result<(), GpuError> {
        let agent_step = self
            .crowd
            .as_ref()
            .and_then(|crowd| self.crowd_frames.agent_step(crowd, input.view.locomotion));
        let mut frame = self.frame_recorder(ctx, cmd, slot, input);
        frame.open(agent_step, bakes);
        // The pipeline statistics span the scene; a query begun inside a
        // dynamic rendering scope crashes lavapipe.
        frame.profiler.begin_statistics(ctx, cmd);
        frame.record_camera_view();
        frame.profiler.end_statistics(ctx, cmd);
        self.record_ui_overlay(ctx, cmd, overlay, input.view.compute_only)
    }

    /// What recording slot `slot`'s frame reads, and the choices `view`
    /// makes for the whole frame.
    fn frame_recorder<'a>(
        &'a mut self,
        ctx: &'a Context,
        cmd: vk::CommandBuffer,
        slot: usize,
        input: &'a FrameInput,
    ) -> FrameRecorder<'a> {
        let view = &input.view;
        let model = &self.model;
        let crowd = self.crowd.as_ref().expect("upload checked the crowd");
        let animation = crowd.shape.animation;
        // The CPU-skinning yardstick draws every instance itself.
        let cpu_skinned = crowd.buffer(CrowdBuffer::CpuSkinnedVertices, slot);
        let occlusion = view.occlusion && view.frozen_cull.is_none();
        let phases: &[CullPhase] = match (occlusion, cpu_skinned, view.compute_only) {
            (true, None, false) => &[CullPhase::Early, CullPhase::Late],
            _ => &[CullPhase::All],
        };
        let skinning = (animation != Animation::BindPose).then_some(view.skinning);
        let shadow_cascades = self.shadow_cascades(&input.uniforms, view).len();
        FrameRecorder {
            ctx,
            cmd,
            slot,
            view,
            profiler: &mut self.profiler,
            model,
            crowd,
            frame: &self.slots[slot],
            sets: &crowd.slots[slot],
            targets: &self.targets,
            pipelines: &self.pipelines,
            visible: crowd
                .buffer(CrowdBuffer::VisibleInstances, slot)
                .expect("every crowd has a visible list"),
            cpu_skinned,
            phases,
            impostors: draws_impostors(view, animation),
            // Without level of detail cull.comp puts everyone at level 0.
            drawn_levels: match view.lod_bias {
                Some(_) => model.model.lod_count,
                None => 1,
            },
            draw_constants: DrawConstants::new(skinning, crowd.instance_count(), view.show_lod),
            shadow_cascades,
            shadow_map: &self.shadow_map,
        }
    }

    /// The ui overlay over the frame, in a scope of its own; its failure
    /// to draw is returned.
    fn record_ui_overlay(
        &mut self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        overlay: Option<&OverlayFrame>,
        compute_only: bool,
    ) -> Result<(), GpuError> {
        // Without a scene the colour target holds nothing to draw over.
        match (overlay, &mut self.overlay, compute_only) {
            (Some(frame), Some(pass), false) => {
                let _label = debug::label(ctx, cmd, "ui overlay");
                let scope = self.profiler.begin(ctx, cmd, "ui overlay");
                let drawn = pass.record(ctx, cmd, self.targets.picture(), frame);
                self.profiler.end(ctx, cmd, scope);
                drawn
            }
            _ => Ok(()),
        }
    }
}

/// One frame being recorded: what its passes read, borrowed from the
/// renderer, and the choices made once for the whole frame.
struct FrameRecorder<'a> {
    ctx: &'a Context,
    cmd: vk::CommandBuffer,
    slot: usize,
    view: &'a ViewOptions,
    profiler: &'a mut Profiler,
    model: &'a ModelResources,
    crowd: &'a CrowdResources,
    frame: &'a FrameSlot,
    sets: &'a CrowdSlotSets,
    targets: &'a Targets,
    pipelines: &'a ScenePipelines,
    /// The visible lists, whose header the culls count into.
    visible: &'a Buffer,
    /// The CPU-skinned vertices of the CPU-skinning yardstick.
    cpu_skinned: Option<&'a Buffer>,
    /// Early then late with occlusion culling, else all at once.
    phases: &'static [CullPhase],
    /// The level past the chain is drawn as impostors.
    impostors: bool,
    /// The levels of detail the culls put instances at.
    drawn_levels: u32,
    draw_constants: DrawConstants,
    /// Shadow cascades culled and drawn this frame (0: no shadow map).
    shadow_cascades: usize,
    shadow_map: &'a ShadowMap,
}

impl FrameRecorder<'_> {
    /// What the compute passes of `phase` are told; `view` 0 is the
    /// camera's, c + 1 shadow cascade c's.
    fn constants(&self, phase: CullPhase, view: usize) -> CrowdComputeConstants {
        let model = &self.model.model;
        CrowdComputeConstants {
            instance_count: self.crowd.instance_count(),
            model_count: model.parts.len() as u32,
            lod_count: model.lod_count,
            phase: phase as u32,
            palette_rows: self
                .crowd
                .palette_rows(self.slot)
                .unwrap_or(PALETTE_PER_INSTANCE),
            impostors: self.impostors.into(),
            view: view as u32,
            command_set: match phase {
                CullPhase::Shadow => shadow_command_set(view - 1),
                _ => phase_commands(phase),
            } as u32,
            draw_commands: self.model.draw_commands.gpu(),
        }
    }

    /// The frame's start: the profiler's queries, the counters the culls
    /// count into zeroed, the compute sets bound, and the agents moved
    /// when they walk (or go home).
    fn open(&mut self, agent_step: Option<AgentStep>, bakes: &BakePlan) {
        let (ctx, cmd) = (self.ctx, self.cmd);
        // Query pools are reset outside any rendering scope, before first use.
        self.profiler.begin_frame(ctx, cmd, self.slot);
        {
            let _label = debug::label(ctx, cmd, "impostor bake");
            // Timed only in the frames that bake.
            let scope = (bakes.units() > 0).then(|| self.profiler.begin(ctx, cmd, "impostor bake"));
            let inputs = self.model.bake_inputs();
            self.model.impostors.record(ctx, cmd, &inputs, bakes);
            if let Some(scope) = scope {
                self.profiler.end(ctx, cmd, scope);
            }
        }
        record_reset(ctx, cmd, self.visible);
        self.bind_compute_set(self.sets.compute);
        if let Some(step) = agent_step {
            let constants = self.constants(self.phases[0], 0);
            record_agent_pass(ctx, cmd, self.profiler, self.model, constants, step);
        }
    }

    /// The camera's cull and draws, phase after phase as niagara records
    /// them: cull and draw the early phase, build the depth pyramid from
    /// its depth, cull and draw the late phase over it (or one phase
    /// without occlusion culling). The visible counts are read back after
    /// the last cull.
    fn record_camera_view(&mut self) {
        for (index, &phase) in self.phases.iter().enumerate() {
            let names = phase_names(phase);
            let last = index + 1 == self.phases.len();
            self.record_cull(phase, &names, 0);
            if index == 0 {
                // Casters are posed as the camera's first cull left them,
                // and the first scope receives their shadows.
                self.record_shadows();
            }
            if last {
                record_visible_count_readback(
                    self.ctx,
                    self.cmd,
                    (self.visible, &self.frame.visible_readback),
                    (
                        &self.model.impostors.requests,
                        &self.frame.impostor_requests,
                    ),
                );
            }
            if self.view.compute_only {
                continue;
            }
            let _scene = debug::label(self.ctx, self.cmd, names.scene);
            self.record_scene(phase, index, &names);
            if !last {
                self.record_pyramid();
            }
        }
    }

    /// `phase`'s rendering scope, the `index`-th: the ground (first scope,
    /// with locomotion), the crowd's meshes, its impostors, and after the
    /// last cull the skeleton overlay on top; then, for a model with BLEND
    /// meshes, every phase's BLEND meshes and their composite.
    fn record_scene(&mut self, phase: CullPhase, index: usize, names: &PhaseNames) {
        let (ctx, cmd) = (self.ctx, self.cmd);
        let crowd = self.crowd;
        let last = index + 1 == self.phases.len();
        let commands = phase_commands(phase);
        let crowd_set = self.crowd_set();
        let opening = if index == 0 {
            Scope::First
        } else {
            Scope::Continued
        };
        // The first scope to open also clears the targets: the ground's
        // when the crowd stands on one, else the draw's.
        let draws_ground = index == 0 && (self.view.locomotion || self.view.ground);
        let first = self
            .profiler
            .begin(ctx, cmd, if draws_ground { "ground" } else { names.draw });
        let closing = match (last, self.targets.blends()) {
            (false, _) => Closing::Pyramid,
            (true, false) => Closing::Picture,
            (true, true) => Closing::Blended,
        };
        begin_rendering(ctx, cmd, self.targets, opening, closing);
        pipeline::set_viewport(ctx, cmd, self.targets.extent());
        self.bind_scene_set(crowd_set);
        let draw = if draws_ground {
            let blobs = (self.view.shadows == Shadows::Blob).then_some(crowd.instance_count());
            ground::record_ground(ctx, cmd, &self.pipelines.ground, blobs);
            self.profiler.end(ctx, cmd, first);
            self.profiler.begin(ctx, cmd, names.draw)
        } else {
            first
        };
        self.record_meshes(commands, false);
        self.profiler.end(ctx, cmd, draw);
        if self.impostors {
            let constants = self.draw_constants;
            self.record_impostors(
                commands,
                Some(names.impostors),
                (constants, ImpostorLook::Picture),
            );
        }
        let animated = crowd.shape.animation != Animation::BindPose;
        if last && self.view.show_skeleton && animated {
            self.record_skeleton_overlay(crowd_set);
        }
        end_rendering(ctx, cmd, self.targets, closing);
        if closing == Closing::Blended {
            self.record_blended();
        }
    }

    /// The compute passes' set 0 (`set`) and the depth pyramid's set 1.
    fn bind_compute_set(&self, set: vk::DescriptorSet) {
        unsafe {
            self.ctx.device.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.model.compute_pipeline_layout,
                0,
                &[set, self.targets.pyramid_set],
                &[],
            );
        }
    }

    /// The impostors of the phase whose draws are `commands`, in the
    /// profiler's scope `scope` (none: the caller's).
    fn record_impostors(
        &mut self,
        commands: usize,
        scope: Option<&'static str>,
        (constants, look): (DrawConstants, ImpostorLook),
    ) {
        let (ctx, cmd, model) = (self.ctx, self.cmd, self.model);
        let scope = scope.map(|name| {
            let timed = self.profiler.begin(ctx, cmd, name);
            (timed, debug::label(ctx, cmd, name))
        });
        let offsets: Vec<u64> = (0..model.model.parts.len())
            .map(|m| model.draw_commands.impostor(commands, m))
            .collect();
        impostor_draw::record_impostor_draw(
            ctx,
            cmd,
            &self.pipelines.impostor_draw,
            &model.model,
            &model.impostors.sets,
            (self.frame.draw_commands.handle, &offsets),
            (constants, look),
        );
        if let Some((timed, _label)) = scope {
            self.profiler.end(ctx, cmd, timed);
        }
    }

    /// The set 0 the crowd's meshes draw with: the identity skinning of
    /// the CPU-skinning yardstick, or the scene's.
    fn crowd_set(&self) -> vk::DescriptorSet {
        match (self.sets.identity_scene, self.cpu_skinned) {
            (Some(identity_set), Some(_)) => identity_set,
            _ => self.sets.scene,
        }
    }

    /// The meshes of command set `commands`: the opaque and masked ones,
    /// or (`blended`) the BLEND ones.
    fn record_meshes(&self, commands: usize, blended: bool) {
        let (model, crowd) = (self.model, self.crowd);
        let surface = match self.cpu_skinned {
            Some(vertices) if self.sets.identity_scene.is_some() => Surface::CpuSkinned {
                vertices: vertices.handle,
                models: &crowd.models,
            },
            _ => Surface::BindPose {
                draw_commands: (self.frame.draw_commands.handle, model.draw_commands),
                set: commands,
                drawn_levels: self.drawn_levels,
            },
        };
        crowd_draw::record_crowd_draw(
            self.ctx,
            self.cmd,
            &self.pipelines.crowd_draw,
            model.draw_pipeline_layout,
            &model.model,
            model.materials.sets(),
            surface,
            self.draw_constants,
            DrawOptions {
                look: match self.view.wireframe {
                    true => Look::Wireframe,
                    false => Look::Filled,
                },
                lod_influences: self.view.lod_influences,
                multi_draw: self.view.multi_draw,
                blended,
            },
        );
    }

    /// The BLEND meshes of every phase, once the opaque picture is
    /// finished (impostors and skeleton overlay included), into the
    /// weighted blend targets, then their composite over the picture. Any
    /// order of instances and meshes gives the same sums, so neither the
    /// cull's appends nor the file's mesh order show.
    fn record_blended(&mut self) {
        let (ctx, cmd) = (self.ctx, self.cmd);
        let composite = self
            .model
            .blend_composite
            .as_ref()
            .zip(self.pipelines.blend_composite)
            .expect("targets blend only for a model with BLEND meshes");
        let _label = debug::label(ctx, cmd, "crowd: blended");
        let scope = self.profiler.begin(ctx, cmd, "blended");
        self.targets.begin_blended(ctx, cmd);
        self.bind_scene_set(self.crowd_set());
        match self.cpu_skinned {
            // One draw per instance: the phases do not split it.
            Some(_) => self.record_meshes(0, true),
            None => {
                for commands in 0..self.phases.len() {
                    self.record_meshes(commands, true);
                }
            }
        }
        self.profiler.end(ctx, cmd, scope);
        let _label = debug::label(ctx, cmd, "blend composite");
        let scope = self.profiler.begin(ctx, cmd, "blend composite");
        self.targets.end_blended(ctx, cmd, composite);
        self.profiler.end(ctx, cmd, scope);
    }

    /// Every phase's skeletons, over the crowd drawn with `crowd_set`.
    fn record_skeleton_overlay(&mut self, crowd_set: vk::DescriptorSet) {
        let (ctx, cmd, model) = (self.ctx, self.cmd, self.model);
        let skeleton = self.profiler.begin(ctx, cmd, "skeleton");
        if crowd_set != self.sets.scene {
            self.bind_scene_set(self.sets.scene);
        }
        for commands in 0..self.phases.len() {
            skeleton_overlay::record_skeleton_overlay(
                ctx,
                cmd,
                &self.pipelines.skeleton_overlay,
                model.draw_pipeline_layout,
                &model.model,
                (self.frame.draw_commands.handle, model.draw_commands),
                commands,
                self.drawn_levels,
                self.draw_constants,
            );
        }
        self.profiler.end(ctx, cmd, skeleton);
    }

    /// The depth pyramid of the early phase's depth, for the late cull.
    fn record_pyramid(&mut self) {
        let (ctx, cmd) = (self.ctx, self.cmd);
        let scope = self.profiler.begin(ctx, cmd, "depth pyramid");
        self.targets.record_depth_resolve(ctx, cmd, self.model);
        pyramid::record_pyramid(
            ctx,
            cmd,
            &self.model.pyramid,
            self.model.compute_pipeline_layout,
            &self.targets.pyramid_levels,
        );
        self.profiler.end(ctx, cmd, scope);
    }

    fn bind_scene_set(&self, set: vk::DescriptorSet) {
        unsafe {
            self.ctx.device.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.model.draw_pipeline_layout,
                0,
                &[set],
                &[],
            );
        }
    }
}

/// Which of the frame slot's draws and dispatch `phase` writes: the early
/// phase's (or the only phase's), or the late's.
/// Whether a frame with `view` of a crowd animated by `animation` draws
/// impostors. They are the level past the chain: none without level of
/// detail. The yardsticks draw every instance as a mesh: CPU skinning
/// skins them all, and the bind-pose crowd stands unanimated.
pub(super) fn draws_impostors(view: &ViewOptions, animation: Animation) -> bool {
    view.impostors
        && view.lod_bias.is_some()
        && matches!(animation, Animation::Gpu | Animation::Cpu)
}

fn phase_commands(phase: CullPhase) -> usize {
    usize::from(phase == CullPhase::Late)
}
