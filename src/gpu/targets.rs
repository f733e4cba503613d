//! The offscreen colour and depth images every pass renders into, and the
//! dynamic-rendering scope around the draws. The window blits the colour
//! image to the swapchain; headless reads it back.

use ash::vk;

use super::guard::{guard, Destroy};
use super::pipeline::TargetFormats;
use super::resources::{self, Image, ImageBarrier, ImageDesc};
use super::{Context, GpuError};

pub const TARGET_FORMATS: TargetFormats = TargetFormats {
    // sRGB: shaders write linear light, the hardware encodes on store.
    color: vk::Format::R8G8B8A8_SRGB,
    depth: vk::Format::D32_SFLOAT,
};

/// A dark grey-blue, in linear light.
const CLEAR_COLOR: [f32; 4] = [0.02, 0.025, 0.035, 1.0];

/// What the passes draw into, sized to the window or the screenshot.
pub struct Targets {
    /// Holds the finished frame in TRANSFER_SRC_OPTIMAL after a frame is recorded.
    pub color: Image,
    pub depth: Image,
}

pub(super) fn create_targets(ctx: &Context, extent: vk::Extent2D) -> Result<Targets, GpuError> {
    let color = guard(
        ctx,
        resources::create_image(
            ctx,
            "color target",
            &ImageDesc {
                extent,
                format: TARGET_FORMATS.color,
                usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                mip_levels: 1,
            },
        )?,
    );
    let depth = resources::create_image(
        ctx,
        "depth target",
        &ImageDesc {
            extent,
            format: TARGET_FORMATS.depth,
            usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            mip_levels: 1,
        },
    )?;
    Ok(Targets {
        color: color.keep(),
        depth,
    })
}

impl Destroy for Targets {
    fn destroy(self, ctx: &Context) {
        self.color.destroy(ctx);
        self.depth.destroy(ctx);
    }
}

/// Transitions the targets for drawing (their old contents are discarded)
/// and opens the rendering scope with both cleared.
pub(super) fn begin_rendering(ctx: &Context, cmd: vk::CommandBuffer, color: &Image, depth: &Image) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    // The previous frame (same images) last wrote them as attachments and
    // read the color image with a copy or blit.
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: color.handle,
            range: resources::subresource_range(color.format, 0, 1),
            src: (
                Stage::COLOR_ATTACHMENT_OUTPUT | Stage::ALL_TRANSFER,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            dst: (
                Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
        },
    );
    let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: depth.handle,
            range: resources::subresource_range(depth.format, 0, 1),
            src: (depth_stages, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
            dst: (
                depth_stages,
                Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
        },
    );
    let color_attachments = [vk::RenderingAttachmentInfo::default()
        .image_view(color.view)
        .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: CLEAR_COLOR,
            },
        })];
    // Reverse Z: the far plane is 0.
    let depth_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(depth.view)
        .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 0.0,
                stencil: 0,
            },
        });
    let info = vk::RenderingInfo::default()
        .render_area(color.extent.into())
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
}

/// Closes the rendering scope and makes the color image a transfer source.
pub(super) fn end_rendering(ctx: &Context, cmd: vk::CommandBuffer, color: &Image) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: color.handle,
            range: resources::subresource_range(color.format, 0, 1),
            src: (
                Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            dst: (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
            old_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            new_layout: Layout::TRANSFER_SRC_OPTIMAL,
        },
    );
}
