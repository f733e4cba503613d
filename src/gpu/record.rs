//! One frame's commands, in pass order, with the barriers between passes:
//! reset the counters, cull, animate (GPU animation only), copy the visible
//! count out, then the scene: the crowd draw and the skeleton overlay.

use ash::vk;

use super::crowd_resources::{Animation, CrowdBuffer};
use super::frame_loop::FrameInput;
use super::passes::crowd_draw::{self, Surface, DRAW_COMMAND_SIZE};
use super::passes::{animate, cull, skeleton_overlay};
use super::renderer::Renderer;
use super::resources::{memory_barrier, Buffer};
use super::shader_types::{CrowdComputeConstants, DrawConstants};
use super::targets::{begin_rendering, end_rendering};
use super::{debug, pipeline, Context};

impl Renderer {
    /// Records the passes of frame slot `slot`, whose buffers hold this
    /// frame's input, into `cmd`; afterwards the colour target holds the
    /// frame, ready to be copied out.
    pub(super) fn record(
        &mut self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        slot: usize,
        input: &FrameInput,
    ) {
        let model = &self.model;
        let crowd = self.crowd.as_ref().expect("upload checked the crowd");
        let frame = &self.slots[slot];
        let sets = &crowd.slots[slot];
        let animation = crowd.shape.animation;
        let constants = CrowdComputeConstants {
            instance_count: crowd.instance_count,
            joint_count: model.model.joint_count,
            clip_count: model.animation.clip_count,
            draw_command_count: model.draw_command_count(),
        };
        let visible = crowd
            .buffer(CrowdBuffer::VisibleInstances, slot)
            .expect("every crowd has a visible list");

        // Query pools are reset outside any rendering scope, before first use.
        self.profiler.begin_frame(ctx, cmd, slot);
        record_reset(
            ctx,
            cmd,
            visible,
            &frame.draw_commands,
            &model.draw_command_template,
        );
        unsafe {
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                model.compute_pipeline_layout,
                0,
                &[sets.compute],
                &[],
            );
        }
        let layout = model.compute_pipeline_layout;
        let scope = self.profiler.begin(ctx, cmd, "cull");
        cull::record_cull(ctx, cmd, &model.cull, layout, constants);
        self.profiler.end(ctx, cmd, scope);
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (
                Stage::COMPUTE_SHADER | Stage::DRAW_INDIRECT | Stage::VERTEX_SHADER | Stage::COPY,
                Access::SHADER_STORAGE_READ | Access::INDIRECT_COMMAND_READ | Access::TRANSFER_READ,
            ),
        );
        if animation == Animation::Gpu {
            let scope = self.profiler.begin(ctx, cmd, "animate");
            animate::record_animate(ctx, cmd, &model.animate, layout, constants);
            self.profiler.end(ctx, cmd, scope);
            memory_barrier(
                ctx,
                cmd,
                (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
                (Stage::VERTEX_SHADER, Access::SHADER_STORAGE_READ),
            );
        }
        record_visible_count_readback(ctx, cmd, visible, &frame.visible_readback);

        let (crowd_set, surface) = match (
            sets.identity_scene,
            crowd.buffer(CrowdBuffer::CpuSkinnedVertices, slot),
        ) {
            (Some(identity_set), Some(vertices)) => (
                identity_set,
                Surface::CpuSkinned {
                    vertices: vertices.handle,
                    instance_count: crowd.instance_count,
                },
            ),
            _ => (
                sets.scene,
                Surface::BindPose {
                    draw_commands: frame.draw_commands.handle,
                },
            ),
        };
        let skinning = (animation != Animation::BindPose).then_some(input.view.skinning);
        let draw_constants = DrawConstants::new(model.model.joint_count, skinning);

        let _scene = debug::label(ctx, cmd, "scene");
        self.profiler.begin_statistics(ctx, cmd);
        // "draw" includes clearing the targets as the rendering scope opens.
        let draw = self.profiler.begin(ctx, cmd, "draw");
        begin_rendering(ctx, cmd, &self.targets.color, &self.targets.depth);
        pipeline::set_viewport(ctx, cmd, self.targets.color.extent);
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
        bind_scene_set(crowd_set);
        crowd_draw::record_crowd_draw(
            ctx,
            cmd,
            &model.crowd_draw,
            model.draw_pipeline_layout,
            &model.model,
            &model.texture_sets,
            surface,
            draw_constants,
            input.view.wireframe,
        );
        self.profiler.end(ctx, cmd, draw);
        if input.view.show_skeleton && animation != Animation::BindPose {
            let overlay = self.profiler.begin(ctx, cmd, "overlay");
            if crowd_set != sets.scene {
                bind_scene_set(sets.scene);
            }
            skeleton_overlay::record_skeleton_overlay(
                ctx,
                cmd,
                &model.skeleton_overlay,
                model.draw_pipeline_layout,
                &model.model,
                (
                    frame.draw_commands.handle,
                    model.model.draws.len() as u64 * DRAW_COMMAND_SIZE,
                ),
                draw_constants,
            );
            self.profiler.end(ctx, cmd, overlay);
        }
        end_rendering(ctx, cmd, &self.targets.color);
        self.profiler.end_statistics(ctx, cmd);
    }
}

/// Zeroes the visible count and the draw commands' instance counts: what
/// cull.comp accumulates into with atomics.
fn record_reset(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    visible: &Buffer,
    draw_commands: &Buffer,
    template: &Buffer,
) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "reset counts");
    unsafe {
        ctx.device
            .cmd_fill_buffer(cmd, visible.handle, 0, size_of::<u32>() as u64, 0);
        let region = vk::BufferCopy::default().size(template.size);
        ctx.device
            .cmd_copy_buffer(cmd, template.handle, draw_commands.handle, &[region]);
    }
    memory_barrier(
        ctx,
        cmd,
        (Stage::CLEAR | Stage::COPY, Access::TRANSFER_WRITE),
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
    let region = vk::BufferCopy::default().size(size_of::<u32>() as u64);
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
