//! The sun's shadow cascades in a frame's recording: after the camera's
//! first cull, each cascade's cull, then each one's casters drawn into its
//! layer of the shadow map, under names of their own.

use super::compute::record_reset;
use super::{FrameRecorder, PhaseNames};
use crate::gpu::crowd_buffers::CrowdBuffer;
use crate::gpu::debug;
use crate::gpu::draw_commands::shadow_command_set;
use crate::gpu::passes::crowd_draw::{self, DrawOptions, Look, Surface};
use crate::gpu::passes::impostor_draw::ImpostorLook;
use crate::gpu::shader_types::{CullPhase, DrawConstants, MAX_SHADOW_CASCADES};

/// Shadow cascade `cascade`'s names: its cull's, and its draws' (the
/// scene's).
pub(super) fn cascade_names(cascade: usize) -> PhaseNames {
    const CULLS: [&str; MAX_SHADOW_CASCADES] = [
        "shadow cull 0",
        "shadow cull 1",
        "shadow cull 2",
        "shadow cull 3",
    ];
    const DRAWS: [&str; MAX_SHADOW_CASCADES] = [
        "shadow cascade 0",
        "shadow cascade 1",
        "shadow cascade 2",
        "shadow cascade 3",
    ];
    PhaseNames {
        cull: CULLS[cascade],
        animate: "",
        draw: DRAWS[cascade],
        impostors: "",
        scene: DRAWS[cascade],
    }
}

impl FrameRecorder<'_> {
    /// The sun's shadow cascades, after the camera's first cull: each
    /// one's cull (cull.comp's shadow phase, into its own lists and draw
    /// commands), then each one's casters, depth only, into its layer of
    /// the shadow map. Nothing without shadow maps.
    pub(super) fn record_shadows(&mut self) {
        if self.shadow_cascades == 0 {
            return;
        }
        let (ctx, cmd, model) = (self.ctx, self.cmd, self.model);
        let cascades = &self.sets.shadow[..self.shadow_cascades];
        for (cascade, sets) in cascades.iter().enumerate() {
            let names = cascade_names(cascade);
            let _label = debug::label(ctx, cmd, names.cull);
            let visible = self
                .crowd
                .cascade_buffer(CrowdBuffer::ShadowVisibleInstances, self.slot, cascade)
                .expect("a crowd with shadow cascades has their lists");
            record_reset(ctx, cmd, visible);
            self.bind_compute_set(sets.compute);
            self.record_cull(CullPhase::Shadow, &names, cascade + 1);
        }
        self.bind_compute_set(self.sets.compute);
        self.shadow_map.record_begin_drawing(ctx, cmd);
        for (cascade, sets) in cascades.iter().enumerate() {
            let names = cascade_names(cascade);
            let _label = debug::label(ctx, cmd, names.draw);
            let scope = self.profiler.begin(ctx, cmd, names.draw);
            self.shadow_map.record_begin_cascade(ctx, cmd, cascade);
            self.bind_scene_set(sets.scene);
            let constants = DrawConstants {
                view: cascade as u32 + 1,
                show_lod: 0,
                ..self.draw_constants
            };
            crowd_draw::record_crowd_draw(
                ctx,
                cmd,
                &self.pipelines.crowd_draw,
                model.draw_pipeline_layout,
                &model.model,
                model.materials.sets(),
                Surface::BindPose {
                    draw_commands: (self.frame.draw_commands.handle, model.draw_commands),
                    set: shadow_command_set(cascade),
                    drawn_levels: self.drawn_levels,
                },
                constants,
                DrawOptions {
                    look: Look::ShadowDepth,
                    lod_influences: self.view.lod_influences,
                    multi_draw: self.view.multi_draw,
                    // BLEND parts cast no shadow.
                    blended: false,
                },
            );
            if self.impostors {
                let commands = shadow_command_set(cascade);
                self.record_impostors(commands, None, (constants, ImpostorLook::ShadowDepth));
            }
            self.shadow_map.record_end_cascade(ctx, cmd);
            self.profiler.end(ctx, cmd, scope);
        }
        self.shadow_map.record_end_drawing(ctx, cmd);
    }
}
