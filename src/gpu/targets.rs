//! What lives as long as the image size: the offscreen colour and depth
//! images every pass renders into, the depth pyramid occlusion culling
//! builds from the depth, and the dynamic-rendering scopes around the
//! draws. The window blits the colour image to the swapchain; headless
//! reads it back.

use super::memory::{DeviceMemory, MemoryReport};
use ash::vk;

use gpu_allocator::MemoryLocation;

use super::descriptors::{self, Resource};
use super::guard::{guard, Destroy};
use super::model_resources::ModelResources;
use super::pipeline::TargetFormats;
use super::resources::{self, Buffer, Image, ImageBarrier, ImageDesc};
use super::{Context, GpuError};
use crate::crowd::{pyramid_levels, PyramidLevel, MAX_PYRAMID_LEVELS};

pub const TARGET_FORMATS: TargetFormats = TargetFormats {
    // sRGB: shaders write linear light, the hardware encodes on store.
    color: vk::Format::R8G8B8A8_SRGB,
    second_color: None,
    depth: vk::Format::D32_SFLOAT,
};

/// A dark grey-blue, in linear light.
const CLEAR_COLOR: [f32; 4] = [0.02, 0.025, 0.035, 1.0];

/// What the passes draw into, sized to the window or the screenshot.
pub struct Targets {
    /// Holds the finished frame in TRANSFER_SRC_OPTIMAL after a frame is recorded.
    pub color: Image,
    pub depth: Image,
    /// The depth pyramid: a table of levels, then their texels (pyramid.glsl).
    pub pyramid: Buffer,
    pub pyramid_levels: Vec<PyramidLevel>,
    pool: vk::DescriptorPool,
    /// Set 1 of the compute passes: the depth target and the pyramid.
    pub pyramid_set: vk::DescriptorSet,
}

/// `pyramid_levels` in pyramid.glsl: width, height, first texel, 0.
const LEVEL_TABLE_BYTES: usize = MAX_PYRAMID_LEVELS * 4 * size_of::<u32>();

pub(super) fn create_targets(
    ctx: &Context,
    extent: vk::Extent2D,
    model: &ModelResources,
) -> Result<Targets, GpuError> {
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
                swizzle: vk::ComponentMapping::default(),
                array_layers: None,
            },
        )?,
    );
    let depth = guard(
        ctx,
        resources::create_image(
            ctx,
            "depth target",
            &ImageDesc {
                extent,
                format: TARGET_FORMATS.depth,
                // Sampled: the depth pyramid is reduced from it; a transfer
                // source for the tests that check the pyramid.
                usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC,
                mip_levels: 1,
                swizzle: vk::ComponentMapping::default(),
                array_layers: None,
            },
        )?,
    );
    let levels = pyramid_levels(extent.width, extent.height);
    let texels = levels.last().map_or(0, |l| l.offset + l.width * l.height);
    let mut table = vec![0u32; LEVEL_TABLE_BYTES / size_of::<u32>()];
    for (row, level) in table.chunks_exact_mut(4).zip(&levels) {
        row.copy_from_slice(&[level.width, level.height, level.offset, 0]);
    }
    let pyramid = guard(
        ctx,
        resources::create_buffer(
            ctx,
            &format!("depth pyramid {}x{}", extent.width, extent.height),
            (LEVEL_TABLE_BYTES + texels as usize * size_of::<f32>()) as u64,
            // A transfer source for the tests that read it back.
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        )?,
    );
    resources::upload_to_buffer(
        ctx,
        "depth pyramid levels",
        &pyramid,
        bytemuck::cast_slice(&table),
    )?;
    let pool = guard(
        ctx,
        descriptors::create_pool(
            ctx,
            "targets descriptor pool",
            &[(&model.pyramid_layout, 1)],
        )?,
    );
    let pyramid_set = descriptors::create_set(
        ctx,
        *pool,
        &model.pyramid_layout,
        "depth pyramid set",
        &[
            (
                "depth",
                Resource::Texture(
                    &depth,
                    model.depth_sampler,
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                ),
            ),
            ("DepthPyramid", Resource::Buffer(&pyramid)),
        ],
    )?;
    Ok(Targets {
        color: color.keep(),
        depth: depth.keep(),
        pyramid: pyramid.keep(),
        pyramid_levels: levels,
        pool: pool.keep(),
        pyramid_set,
    })
}

impl DeviceMemory for Targets {
    fn memory(&self) -> MemoryReport {
        MemoryReport::targets([&self.color, &self.depth], [&self.pyramid])
    }
}

impl Destroy for Targets {
    fn destroy(self, ctx: &Context) {
        // The pool frees the set.
        self.pool.destroy(ctx);
        self.pyramid.destroy(ctx);
        self.color.destroy(ctx);
        self.depth.destroy(ctx);
    }
}

/// Which rendering scope of the frame is opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    /// The first: the targets' old contents are discarded and both cleared.
    First,
    /// After the depth pyramid: drawing goes on over what is there.
    Continued,
}

/// Transitions the targets for drawing and opens a rendering scope.
pub(super) fn begin_rendering(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    targets: &Targets,
    scope: Scope,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let (color, depth) = (&targets.color, &targets.depth);
    let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    let depth_access =
        Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let color_write = (
        Stage::COLOR_ATTACHMENT_OUTPUT,
        Access::COLOR_ATTACHMENT_WRITE,
    );
    let (color_barrier, depth_barrier, load) = match scope {
        // The previous frame (same images) last wrote them as attachments
        // and read the colour image with a copy or blit.
        Scope::First => (
            ImageBarrier {
                image: color.handle,
                range: resources::subresource_range(color.format, 0, 1),
                src: (
                    Stage::COLOR_ATTACHMENT_OUTPUT | Stage::ALL_TRANSFER,
                    Access::COLOR_ATTACHMENT_WRITE,
                ),
                dst: color_write,
                old_layout: Layout::UNDEFINED,
                new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            },
            ImageBarrier {
                image: depth.handle,
                range: resources::subresource_range(depth.format, 0, 1),
                src: (depth_stages, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
                dst: (depth_stages, depth_access),
                old_layout: Layout::UNDEFINED,
                new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
            },
            vk::AttachmentLoadOp::CLEAR,
        ),
        // The first scope wrote both; pyramid.comp read the depth.
        Scope::Continued => (
            ImageBarrier {
                image: color.handle,
                range: resources::subresource_range(color.format, 0, 1),
                src: color_write,
                dst: (
                    Stage::COLOR_ATTACHMENT_OUTPUT,
                    Access::COLOR_ATTACHMENT_READ | Access::COLOR_ATTACHMENT_WRITE,
                ),
                old_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
                new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            },
            ImageBarrier {
                image: depth.handle,
                range: resources::subresource_range(depth.format, 0, 1),
                src: (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
                dst: (depth_stages, depth_access),
                old_layout: Layout::SHADER_READ_ONLY_OPTIMAL,
                new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
            },
            vk::AttachmentLoadOp::LOAD,
        ),
    };
    resources::image_barrier(ctx, cmd, &color_barrier);
    resources::image_barrier(ctx, cmd, &depth_barrier);
    let color_attachments = [vk::RenderingAttachmentInfo::default()
        .image_view(color.view)
        .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(load)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: CLEAR_COLOR,
            },
        })];
    // Reverse Z: the far plane is 0. Stored for the depth pyramid.
    let depth_attachment = vk::RenderingAttachmentInfo::default()
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
    let info = vk::RenderingInfo::default()
        .render_area(color.extent.into())
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
}

/// Closes a rendering scope. After the last, the colour image becomes a
/// transfer source; otherwise the depth image becomes readable by
/// pyramid.comp.
pub(super) fn end_rendering(ctx: &Context, cmd: vk::CommandBuffer, targets: &Targets, last: bool) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
    let barrier = if last {
        ImageBarrier {
            image: targets.color.handle,
            range: resources::subresource_range(targets.color.format, 0, 1),
            src: (
                Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            dst: (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
            old_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            new_layout: Layout::TRANSFER_SRC_OPTIMAL,
        }
    } else {
        ImageBarrier {
            image: targets.depth.handle,
            range: resources::subresource_range(targets.depth.format, 0, 1),
            src: (
                Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS,
                Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            dst: (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
            old_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
            new_layout: Layout::SHADER_READ_ONLY_OPTIMAL,
        }
    };
    resources::image_barrier(ctx, cmd, &barrier);
}
