//! Where a finished frame goes: blitted into a swapchain image to be
//! presented, or copied into a host-visible buffer to be saved.

use ash::vk;

use super::resources::{self, Buffer, Image, ImageBarrier};
use super::Context;
use crate::gpu::debug;

/// Copies the renderer's color image (TRANSFER_SRC_OPTIMAL) into swapchain
/// image `target`, which ends ready to present. The blit converts between
/// the target's channel order and ours; sizes are equal.
pub fn record_blit_to_swapchain(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    color: &Image,
    target: vk::Image,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "present blit");
    let range = resources::subresource_range(color.format, 0, 1);
    // The image-available semaphore wait is at the blit stage, so this
    // barrier's first scope starts there too (no access to make available).
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: target,
            range,
            src: (Stage::BLIT, Access::NONE),
            dst: (Stage::BLIT, Access::TRANSFER_WRITE),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::TRANSFER_DST_OPTIMAL,
        },
    );
    let corner = vk::Offset3D {
        x: color.extent.width as i32,
        y: color.extent.height as i32,
        z: 1,
    };
    let blit = vk::ImageBlit::default()
        .src_subresource(color_layer())
        .src_offsets([vk::Offset3D::default(), corner])
        .dst_subresource(color_layer())
        .dst_offsets([vk::Offset3D::default(), corner]);
    unsafe {
        ctx.device.cmd_blit_image(
            cmd,
            color.handle,
            Layout::TRANSFER_SRC_OPTIMAL,
            target,
            Layout::TRANSFER_DST_OPTIMAL,
            &[blit],
            vk::Filter::NEAREST,
        );
    }
    // Presentation needs no access flags: the semaphore signalled at the end
    // of the submission makes the writes available to it.
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: target,
            range,
            src: (Stage::BLIT, Access::TRANSFER_WRITE),
            dst: (Stage::NONE, Access::NONE),
            old_layout: Layout::TRANSFER_DST_OPTIMAL,
            new_layout: Layout::PRESENT_SRC_KHR,
        },
    );
}

/// Copies the renderer's color image (TRANSFER_SRC_OPTIMAL) into `buffer`,
/// tightly packed RGBA8 rows, readable on the host once the fence signals.
pub fn record_readback(ctx: &Context, cmd: vk::CommandBuffer, color: &Image, buffer: &Buffer) {
    let _label = debug::label(ctx, cmd, "readback");
    let region = vk::BufferImageCopy::default()
        .image_subresource(color_layer())
        .image_extent(color.extent.into());
    unsafe {
        ctx.device.cmd_copy_image_to_buffer(
            cmd,
            color.handle,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            buffer.handle,
            &[region],
        );
    }
    let barriers = [vk::BufferMemoryBarrier2::default()
        .buffer(buffer.handle)
        .size(vk::WHOLE_SIZE)
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::HOST)
        .dst_access_mask(vk::AccessFlags2::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)];
    let dependency = vk::DependencyInfo::default().buffer_memory_barriers(&barriers);
    unsafe { ctx.synchronization2.cmd_pipeline_barrier2(cmd, &dependency) };
}

fn color_layer() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .layer_count(1)
}
