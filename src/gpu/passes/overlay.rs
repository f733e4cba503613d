//! The ui overlay: egui's triangles, drawn by egui-ash-renderer in a
//! rendering scope of their own over the finished colour target (loaded,
//! no depth). egui's textures (the font atlas) are uploaded before the
//! frame is recorded, with their own small submissions; a texture egui
//! frees is kept until the frame that last drew with it is done.
//!
//! egui-ash-renderer makes its buffers and images through
//! `NamingAllocator`, which names them; its pipeline, layouts, sampler,
//! image views and descriptor pool are private to it and stay unnamed
//! (RenderDoc shows them inside the "ui overlay" label).

use std::sync::Arc;

use ash::vk;
use ash::Device;
use egui_ash_renderer::allocator::{Allocator, GpuAllocator};
use egui_ash_renderer::{DynamicRendering, Options, RenderMode, RendererError, RendererResult};

use super::super::frame::FRAMES_IN_FLIGHT;
use super::super::guard::{guard, Destroy};
use super::super::resources::{self, Image, ImageBarrier};
use super::super::targets::COLOR_FORMAT;
use super::super::{debug, vk_error, Context, GpuError};

/// What egui produced for one frame: the overlay's part of a frame, handed
/// over by [`super::super::frame_loop::FrameSource::take_overlay`].
pub struct OverlayFrame {
    /// Tessellated, in egui points.
    pub primitives: Vec<egui::ClippedPrimitive>,
    /// Textures to create or update before drawing, and to free after.
    pub textures: egui::TexturesDelta,
    pub pixels_per_point: f32,
}

pub struct OverlayPass {
    renderer: egui_ash_renderer::Renderer<NamingAllocator>,
    /// egui-ash-renderer records its texture uploads into buffers of its own
    /// from this pool.
    upload_pool: vk::CommandPool,
    /// Per frame slot, the textures egui freed in the frame recorded there:
    /// freed once that slot's fence has signalled.
    retired: [Vec<egui::TextureId>; FRAMES_IN_FLIGHT],
}

impl OverlayPass {
    pub fn new(ctx: &Context) -> Result<OverlayPass, GpuError> {
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(ctx.queue_family);
        ctx.creation_step("vkCreateCommandPool")?;
        let upload_pool = unsafe { ctx.device.create_command_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateCommandPool"))?;
        let upload_pool = guard(ctx, upload_pool);
        debug::set_name(ctx, *upload_pool, "ui overlay upload pool");
        let allocator = NamingAllocator {
            allocator: GpuAllocator::new(Arc::clone(&ctx.allocator)),
            debug_utils: ctx.debug_utils.clone(),
        };
        let renderer = egui_ash_renderer::Renderer::with_allocator(
            allocator,
            ctx.device.clone(),
            RenderMode::DynamicRendering(DynamicRendering {
                color_attachment_format: COLOR_FORMAT,
                depth_attachment_format: None,
                stencil_attachment_format: None,
            }),
            Options {
                // Its vertex buffers rotate per draw; the overlay draws at
                // most once a frame, so a buffer comes round only after the
                // frame that used it is done.
                in_flight_frames: FRAMES_IN_FLIGHT,
                enable_depth_test: false,
                enable_depth_write: false,
                // The target encodes on store: egui's shader must output
                // linear values, or its colours come out too light.
                srgb_framebuffer: true,
            },
        )
        .map_err(overlay_error)?;
        Ok(OverlayPass {
            renderer,
            upload_pool: upload_pool.keep(),
            retired: Default::default(),
        })
    }

    /// Frees the textures the slot's previous frame retired (its fence has
    /// signalled), then uploads what `frame` needs and marks it applied. Updating a texture
    /// rewrites an image the other frame in flight may sample, so the GPU
    /// is idle first: egui changes textures only when new glyphs appear.
    pub fn upload(
        &mut self,
        ctx: &Context,
        slot: usize,
        frame: Option<&mut OverlayFrame>,
    ) -> Result<(), GpuError> {
        for id in std::mem::take(&mut self.retired[slot]) {
            self.renderer.free_texture(id).map_err(overlay_error)?;
        }
        let Some(frame) = frame else {
            return Ok(());
        };
        if !frame.textures.set.is_empty() {
            ctx.wait_idle()?;
        }
        for (id, deltas) in &frame.textures.set {
            // In order: a whole image, then the patches on it.
            for delta in deltas {
                self.renderer
                    .set_texture(ctx.queue, self.upload_pool, *id, delta)
                    .map_err(overlay_error)?;
            }
        }
        self.retired[slot].extend(frame.textures.free.iter().copied());
        // Applied: egui checks (in debug builds) that no delta is dropped
        // unapplied.
        frame.textures.clear();
        Ok(())
    }

    /// Draws `frame` over `color`, which the scene left a transfer source,
    /// and leaves it one again.
    pub fn record(
        &mut self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        color: &Image,
        frame: &OverlayFrame,
    ) -> Result<(), GpuError> {
        use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
        let range = resources::subresource_range(color.format, 0, 1);
        // The scene's last barrier made the image a transfer source; this
        // one chains after it, and egui blends over the scene's pixels.
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: color.handle,
                range,
                src: (Stage::ALL_TRANSFER, Access::NONE),
                dst: (
                    Stage::COLOR_ATTACHMENT_OUTPUT,
                    Access::COLOR_ATTACHMENT_READ | Access::COLOR_ATTACHMENT_WRITE,
                ),
                old_layout: Layout::TRANSFER_SRC_OPTIMAL,
                new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            },
        );
        let color_attachments = [vk::RenderingAttachmentInfo::default()
            .image_view(color.view)
            .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let info = vk::RenderingInfo::default()
            .render_area(color.extent.into())
            .layer_count(1)
            .color_attachments(&color_attachments);
        unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
        let drawn =
            self.renderer
                .cmd_draw(cmd, color.extent, frame.pixels_per_point, &frame.primitives);
        unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: color.handle,
                range,
                src: (
                    Stage::COLOR_ATTACHMENT_OUTPUT,
                    Access::COLOR_ATTACHMENT_WRITE,
                ),
                dst: (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
                old_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
                new_layout: Layout::TRANSFER_SRC_OPTIMAL,
            },
        );
        drawn.map_err(overlay_error)
    }
}

impl Destroy for OverlayPass {
    /// The caller makes sure the GPU is idle.
    fn destroy(self, ctx: &Context) {
        // egui-ash-renderer frees its objects (and its allocator handle)
        // when dropped.
        drop(self.renderer);
        self.upload_pool.destroy(ctx);
    }
}

/// gpu-allocator's memory for egui-ash-renderer, naming each buffer and
/// image it makes after what egui-ash-renderer asks it for.
struct NamingAllocator {
    allocator: GpuAllocator,
    debug_utils: Option<ash::ext::debug_utils::Device>,
}

impl Allocator for NamingAllocator {
    type Allocation = <GpuAllocator as Allocator>::Allocation;

    fn create_buffer(
        &mut self,
        device: &Device,
        size: usize,
        usage: vk::BufferUsageFlags,
    ) -> RendererResult<(vk::Buffer, Self::Allocation)> {
        let made = self.allocator.create_buffer(device, size, usage)?;
        let what = if usage.contains(vk::BufferUsageFlags::VERTEX_BUFFER) {
            "vertices"
        } else if usage.contains(vk::BufferUsageFlags::INDEX_BUFFER) {
            "indices"
        } else {
            "texture upload"
        };
        let name = format!("ui overlay {what} ({size} bytes)");
        debug::name_with(self.debug_utils.as_ref(), made.0, &name);
        Ok(made)
    }

    fn create_image(
        &mut self,
        device: &Device,
        width: u32,
        height: u32,
    ) -> RendererResult<(vk::Image, Self::Allocation)> {
        let made = self.allocator.create_image(device, width, height)?;
        let name = format!("ui overlay texture {width}x{height}");
        debug::name_with(self.debug_utils.as_ref(), made.0, &name);
        Ok(made)
    }

    fn destroy_buffer(
        &mut self,
        device: &Device,
        buffer: vk::Buffer,
        memory: Self::Allocation,
    ) -> RendererResult<()> {
        self.allocator.destroy_buffer(device, buffer, memory)
    }

    fn destroy_image(
        &mut self,
        device: &Device,
        image: vk::Image,
        memory: Self::Allocation,
    ) -> RendererResult<()> {
        self.allocator.destroy_image(device, image, memory)
    }

    fn update_buffer<T: Copy>(
        &mut self,
        device: &Device,
        memory: &mut Self::Allocation,
        data: &[T],
    ) -> RendererResult<()> {
        self.allocator.update_buffer(device, memory, data)
    }
}

fn overlay_error(error: RendererError) -> GpuError {
    match error {
        RendererError::Vulkan(result) => GpuError::Vulkan {
            call: "egui-ash-renderer",
            result,
        },
        RendererError::GpuAllocator(source) => GpuError::Allocation {
            name: "ui overlay".into(),
            source,
        },
        other => GpuError::Overlay(other.to_string()),
    }
}
