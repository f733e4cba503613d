//! The frame's rendering scopes over the targets: each opens with the
//! barriers that make the targets (and the resolves it writes) attachments,
//! and closes with the barrier that hands what it made to what comes next:
//! the farthest depth to the depth pyramid, or the picture to the frame's
//! end.

use ash::vk;

use super::Targets;
use crate::gpu::resources::{self, Image, ImageBarrier};
use crate::gpu::Context;

/// A dark grey-blue, in linear light.
const CLEAR_COLOR: [f32; 4] = [0.02, 0.025, 0.035, 1.0];

/// Which rendering scope of the frame is opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::gpu) enum Scope {
    /// The first: the targets' old contents are discarded and both cleared.
    First,
    /// After the depth pyramid: drawing goes on over what is there.
    Continued,
}

/// What follows a rendering scope, which decides what it resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::gpu) enum Closing {
    /// The depth pyramid, built from the farthest depth.
    Pyramid,
    /// The frame's end: the picture becomes a transfer source.
    Picture,
    /// The BLEND meshes' scope (`Targets::begin_blended`): the picture is
    /// finished as for `Picture` but stays an attachment for their
    /// composite, and the depth is kept for them to test against.
    Blended,
}

/// Transitions the targets for drawing and opens a rendering scope, which
/// resolves what `closing` needs.
pub(in crate::gpu) fn begin_rendering(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    targets: &Targets,
    scope: Scope,
    closing: Closing,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let (color, depth) = (&targets.color, &targets.depth);
    // Resolves run in the colour output stage, as colour attachment
    // accesses, depth resolves too.
    let resolve_write = (
        Stage::COLOR_ATTACHMENT_OUTPUT,
        Access::COLOR_ATTACHMENT_WRITE,
    );
    let barrier = ImageBarrier::whole;
    let mut barriers = opening_barriers(targets, scope);
    let load = match scope {
        Scope::First => vk::AttachmentLoadOp::CLEAR,
        Scope::Continued => vk::AttachmentLoadOp::LOAD,
    };
    let mut color_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(color.view)
        .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(load)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: CLEAR_COLOR,
            },
        });
    // Reverse Z: the far plane is 0. Stored for the depth pyramid, and for
    // the tests that read the depth back.
    let mut depth_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(depth.view)
        .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(load)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 0.0,
                stencil: 0,
            },
        });
    let resolve_target = |image: &Image, layout| {
        barrier(
            image,
            // Last read by the previous frame's copy, blit or pyramid; the
            // picture last written by the ui overlay.
            (
                Stage::ALL_TRANSFER | Stage::COMPUTE_SHADER | Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            resolve_write,
            Layout::UNDEFINED,
            layout,
        )
    };
    match (closing, &targets.resolves) {
        (Closing::Picture | Closing::Blended, Some(resolves)) => {
            // The samples are not needed once averaged.
            barriers.push(resolve_target(
                &resolves.color,
                Layout::COLOR_ATTACHMENT_OPTIMAL,
            ));
            color_attachment = color_attachment
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                .resolve_image_view(resolves.color.view)
                .resolve_image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL);
        }
        (Closing::Pyramid, Some(_)) => {
            if let Some(farthest) = targets.min_resolve() {
                barriers.push(resolve_target(farthest, Layout::DEPTH_ATTACHMENT_OPTIMAL));
                depth_attachment = depth_attachment
                    .resolve_mode(vk::ResolveModeFlags::MIN)
                    .resolve_image_view(farthest.view)
                    .resolve_image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL);
            }
        }
        (_, None) => {}
    }
    for barrier in &barriers {
        resources::image_barrier(ctx, cmd, barrier);
    }
    let color_attachments = [color_attachment];
    let info = vk::RenderingInfo::default()
        .render_area(color.extent.into())
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
}

/// The barriers that make the colour and depth targets attachments for a
/// scope: after the previous frame for the first, after the depth pyramid
/// for one that goes on.
fn opening_barriers(targets: &Targets, scope: Scope) -> Vec<ImageBarrier> {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let (color, depth) = (&targets.color, &targets.depth);
    let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    let depth_access =
        Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let color_write = (
        Stage::COLOR_ATTACHMENT_OUTPUT,
        Access::COLOR_ATTACHMENT_WRITE,
    );
    let barrier = ImageBarrier::whole;
    match scope {
        // The previous frame (same images) last wrote them as attachments
        // and read the picture with a copy or blit.
        Scope::First => vec![
            barrier(
                color,
                (
                    Stage::COLOR_ATTACHMENT_OUTPUT | Stage::ALL_TRANSFER,
                    Access::COLOR_ATTACHMENT_WRITE,
                ),
                color_write,
                Layout::UNDEFINED,
                Layout::COLOR_ATTACHMENT_OPTIMAL,
            ),
            barrier(
                depth,
                (
                    depth_stages | Stage::COMPUTE_SHADER | Stage::ALL_TRANSFER,
                    Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
                ),
                (depth_stages, depth_access),
                Layout::UNDEFINED,
                Layout::DEPTH_ATTACHMENT_OPTIMAL,
            ),
        ],
        Scope::Continued => vec![
            barrier(
                color,
                color_write,
                (
                    Stage::COLOR_ATTACHMENT_OUTPUT,
                    Access::COLOR_ATTACHMENT_READ | Access::COLOR_ATTACHMENT_WRITE,
                ),
                Layout::COLOR_ATTACHMENT_OPTIMAL,
                Layout::COLOR_ATTACHMENT_OPTIMAL,
            ),
            match targets.min_resolve() {
                // The last scope wrote the depth and resolved it.
                Some(_) => barrier(
                    depth,
                    (
                        depth_stages | Stage::COLOR_ATTACHMENT_OUTPUT,
                        Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    ),
                    (depth_stages, depth_access),
                    Layout::DEPTH_ATTACHMENT_OPTIMAL,
                    Layout::DEPTH_ATTACHMENT_OPTIMAL,
                ),
                // pyramid.comp or depth_resolve.comp read it.
                None => barrier(
                    depth,
                    (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
                    (depth_stages, depth_access),
                    Layout::SHADER_READ_ONLY_OPTIMAL,
                    Layout::DEPTH_ATTACHMENT_OPTIMAL,
                ),
            },
        ],
    }
}

/// Closes a rendering scope. Before the pyramid, the farthest depth
/// becomes readable by compute shaders; at the frame's end, the picture
/// becomes a transfer source; before the BLEND meshes, the picture and the
/// depth stay attachments, made visible to the scopes that follow.
pub(in crate::gpu) fn end_rendering(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    targets: &Targets,
    closing: Closing,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
    let color_written = (
        Stage::COLOR_ATTACHMENT_OUTPUT,
        Access::COLOR_ATTACHMENT_WRITE,
    );
    if closing == Closing::Blended {
        let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
        let barriers = [
            ImageBarrier::whole(
                targets.picture(),
                color_written,
                (
                    Stage::COLOR_ATTACHMENT_OUTPUT,
                    Access::COLOR_ATTACHMENT_READ | Access::COLOR_ATTACHMENT_WRITE,
                ),
                Layout::COLOR_ATTACHMENT_OPTIMAL,
                Layout::COLOR_ATTACHMENT_OPTIMAL,
            ),
            ImageBarrier::whole(
                &targets.depth,
                (depth_stages, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
                (
                    depth_stages,
                    Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
                ),
                Layout::DEPTH_ATTACHMENT_OPTIMAL,
                Layout::DEPTH_ATTACHMENT_OPTIMAL,
            ),
        ];
        for barrier in &barriers {
            resources::image_barrier(ctx, cmd, barrier);
        }
        return;
    }
    let (image, src, dst, old_layout, new_layout) = match (closing, targets.min_resolve()) {
        (Closing::Picture | Closing::Blended, _) => (
            targets.picture(),
            color_written,
            (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
            Layout::COLOR_ATTACHMENT_OPTIMAL,
            Layout::TRANSFER_SRC_OPTIMAL,
        ),
        // The resolve wrote it; the multisampled depth stays an attachment.
        (Closing::Pyramid, Some(farthest)) => (
            farthest,
            color_written,
            (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
            Layout::DEPTH_ATTACHMENT_OPTIMAL,
            Layout::SHADER_READ_ONLY_OPTIMAL,
        ),
        // pyramid.comp (or depth_resolve.comp) reads the depth itself.
        (Closing::Pyramid, None) => (
            &targets.depth,
            (
                Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS,
                Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
            Layout::DEPTH_ATTACHMENT_OPTIMAL,
            Layout::SHADER_READ_ONLY_OPTIMAL,
        ),
    };
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier::whole(image, src, dst, old_layout, new_layout),
    );
}
