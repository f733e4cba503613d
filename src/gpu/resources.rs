//! Buffers and images as plain structs (handle + memory + size), their
//! creation and destruction, staged uploads, and the barrier helper.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::guard::{guard, Destroy};
use super::{debug, vk_error, Context, GpuError};

pub struct Buffer {
    pub handle: vk::Buffer,
    pub allocation: Allocation,
    pub size: u64,
    /// Device memory the allocator charged for it: its memory
    /// requirements and the padding that aligned it.
    pub memory_bytes: u64,
}

/// `location` says who writes it: `GpuOnly` for data uploaded once through
/// [`create_buffer_with_data`], `CpuToGpu` for per-frame data the CPU writes
/// through [`Buffer::write`], `GpuToCpu` for readbacks.
pub fn create_buffer(
    ctx: &Context,
    name: &str,
    size: u64,
    usage: vk::BufferUsageFlags,
    location: MemoryLocation,
) -> Result<Buffer, GpuError> {
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    ctx.creation_step("vkCreateBuffer")?;
    let handle =
        unsafe { ctx.device.create_buffer(&info, None) }.map_err(vk_error("vkCreateBuffer"))?;
    let handle = guard(ctx, BufferHandle(handle));
    let requirements = unsafe { ctx.device.get_buffer_memory_requirements(handle.0) };
    let (allocation, memory_bytes) = allocate(ctx, name, requirements, location, true)?;
    let allocation = guard(ctx, Memory(allocation));
    unsafe {
        ctx.device
            .bind_buffer_memory(handle.0, allocation.0.memory(), allocation.0.offset())
    }
    .map_err(vk_error("vkBindBufferMemory"))?;
    debug::set_name(ctx, handle.0, name);
    Ok(Buffer {
        handle: handle.keep().0,
        allocation: allocation.keep().0,
        size,
        memory_bytes,
    })
}

pub fn destroy_buffer(ctx: &Context, buffer: Buffer) {
    unsafe { ctx.device.destroy_buffer(buffer.handle, None) };
    free(ctx, buffer.allocation);
}

impl Destroy for Buffer {
    fn destroy(self, ctx: &Context) {
        destroy_buffer(ctx, self);
    }
}

/// Parts of a buffer or image being made, each freed on its own until the
/// whole exists.
struct BufferHandle(vk::Buffer);
struct ImageHandle(vk::Image);
struct Memory(Allocation);

impl Destroy for BufferHandle {
    fn destroy(self, ctx: &Context) {
        unsafe { ctx.device.destroy_buffer(self.0, None) };
    }
}

impl Destroy for ImageHandle {
    fn destroy(self, ctx: &Context) {
        unsafe { ctx.device.destroy_image(self.0, None) };
    }
}

impl Destroy for Memory {
    fn destroy(self, ctx: &Context) {
        free(ctx, self.0);
    }
}

impl Buffer {
    /// Copies `data` to the start of a host-visible buffer. Memory from
    /// gpu-allocator's host locations is coherent: no flush needed.
    ///
    /// Panics if the buffer is not host-visible or too small: both are
    /// programming errors in the renderer, not data errors.
    pub fn write<T: bytemuck::Pod>(&mut self, data: &[T]) {
        self.write_at(0, data);
    }

    /// [`Buffer::write`] from element `first` on (the buffer taken as an
    /// array of `T`).
    pub fn write_at<T: bytemuck::Pod>(&mut self, first: usize, data: &[T]) {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let start = first * std::mem::size_of::<T>();
        assert!(
            start + bytes.len() <= self.size as usize,
            "buffer write past the end"
        );
        let mapped = self
            .allocation
            .mapped_slice_mut()
            .expect("write to a host-visible buffer");
        mapped[start..start + bytes.len()].copy_from_slice(bytes);
    }

    /// The start of a host-visible buffer, e.g. a readback after its fence.
    pub fn read(&self) -> &[u8] {
        let mapped = self
            .allocation
            .mapped_slice()
            .expect("read a host-visible buffer");
        &mapped[..self.size as usize]
    }
}

/// A device-local buffer holding `data`, filled through a staging buffer.
pub fn create_buffer_with_data(
    ctx: &Context,
    name: &str,
    usage: vk::BufferUsageFlags,
    data: &[u8],
) -> Result<Buffer, GpuError> {
    let usage = usage | vk::BufferUsageFlags::TRANSFER_DST;
    let buffer = guard(
        ctx,
        create_buffer(ctx, name, data.len() as u64, usage, MemoryLocation::GpuOnly)?,
    );
    upload_to_buffer(ctx, name, &buffer, data)?;
    Ok(buffer.keep())
}

/// A device-local buffer that shaders read through a format, four 32-bit
/// floats a texel (`samplerBuffer`, `texelFetch`): how animate.comp reads the
/// clips and the skeleton. A texel fetch moves a whole texel, where a
/// storage buffer's vec4 may be four scalar loads (lavapipe turns every
/// component a lane reads at its own address into a loop over the lanes).
pub struct TexelBuffer {
    pub buffer: Buffer,
    pub view: vk::BufferView,
}

/// The format of every [`TexelBuffer`].
pub const TEXEL_FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
pub const TEXEL_BYTES: usize = 16;

/// A [`TexelBuffer`] holding `texels`, or the device limit it breaks
/// (`maxTexelBufferElements`, at least 65536 texels).
pub fn create_texel_buffer_with_data(
    ctx: &Context,
    name: &str,
    texels: &[[f32; 4]],
) -> Result<TexelBuffer, GpuError> {
    let limits = unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.physical_device)
            .limits
    };
    let limit = limits.max_texel_buffer_elements;
    if texels.len() as u64 > u64::from(limit) {
        return Err(GpuError::TexelBufferTooLarge {
            name: name.to_owned(),
            texels: texels.len() as u64,
            limit,
        });
    }
    let buffer = guard(
        ctx,
        create_buffer_with_data(
            ctx,
            name,
            vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
            bytemuck::cast_slice(texels),
        )?,
    );
    let info = vk::BufferViewCreateInfo::default()
        .buffer(buffer.handle)
        .format(TEXEL_FORMAT)
        .offset(0)
        .range(vk::WHOLE_SIZE);
    ctx.creation_step("vkCreateBufferView")?;
    let view = unsafe { ctx.device.create_buffer_view(&info, None) }
        .map_err(vk_error("vkCreateBufferView"))?;
    debug::set_name(ctx, view, &format!("{name} texels"));
    Ok(TexelBuffer {
        buffer: buffer.keep(),
        view,
    })
}

impl Destroy for TexelBuffer {
    fn destroy(self, ctx: &Context) {
        unsafe { ctx.device.destroy_buffer_view(self.view, None) };
        self.buffer.destroy(ctx);
    }
}

/// Fills the start of a device-local `buffer` (made with TRANSFER_DST)
/// through a staging buffer, and waits for it.
pub fn upload_to_buffer(
    ctx: &Context,
    name: &str,
    buffer: &Buffer,
    data: &[u8],
) -> Result<(), GpuError> {
    upload_with_staging(ctx, name, data, |cmd, staging| unsafe {
        let region = vk::BufferCopy::default().size(data.len() as u64);
        ctx.device
            .cmd_copy_buffer(cmd, staging, buffer.handle, &[region]);
    })
}

/// A global memory barrier: the passes hand buffers to each other whole.
pub fn memory_barrier(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) {
    let barriers = [vk::MemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)];
    let info = vk::DependencyInfo::default().memory_barriers(&barriers);
    unsafe { ctx.synchronization2.cmd_pipeline_barrier2(cmd, &info) };
}

/// A copy of a device-local buffer's contents, through a one-off readback
/// that waits for the GPU: for tests and tools, never the frame loop.
pub fn read_buffer<T: bytemuck::Pod>(ctx: &Context, source: &Buffer) -> Result<Vec<T>, GpuError> {
    let readback = create_buffer(
        ctx,
        "readback (staging)",
        source.size,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )?;
    let copied = submit_and_wait(ctx, "read back a buffer", |cmd| unsafe {
        let region = vk::BufferCopy::default().size(source.size);
        ctx.device
            .cmd_copy_buffer(cmd, source.handle, readback.handle, &[region]);
    });
    let contents = copied.map(|()| bytemuck::pod_collect_to_vec(readback.read()));
    destroy_buffer(ctx, readback);
    contents
}

/// Puts `data` in a host-visible staging buffer and lets `record` copy it
/// out, in a one-off submission that is waited for.
pub fn upload_with_staging(
    ctx: &Context,
    name: &str,
    data: &[u8],
    record: impl FnOnce(vk::CommandBuffer, vk::Buffer),
) -> Result<(), GpuError> {
    let mut staging = create_buffer(
        ctx,
        &format!("{name} (staging)"),
        data.len() as u64,
        vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::CpuToGpu,
    )?;
    staging.write(data);
    let staging_handle = staging.handle;
    let result = submit_and_wait(ctx, &format!("upload {name}"), |cmd| {
        record(cmd, staging_handle)
    });
    destroy_buffer(ctx, staging);
    result
}

pub struct Image {
    pub handle: vk::Image,
    pub view: vk::ImageView,
    pub allocation: Allocation,
    /// Device memory the allocator charged for it: its memory
    /// requirements and the padding that aligned it.
    pub memory_bytes: u64,
    pub format: vk::Format,
    pub extent: vk::Extent2D,
    pub mip_levels: u32,
}

pub struct ImageDesc {
    pub extent: vk::Extent2D,
    pub format: vk::Format,
    pub usage: vk::ImageUsageFlags,
    pub mip_levels: u32,
    /// Where the view's channels come from (identity: as stored).
    pub swizzle: vk::ComponentMapping,
    /// `Some(n)`: an array of `n` layers, viewed as an array; `None`: one
    /// layer, viewed as a 2D image.
    pub array_layers: Option<u32>,
    /// Samples per texel: `TYPE_1` but for multisampled render targets.
    pub samples: vk::SampleCountFlags,
}

/// A device-local 2D image (or array) and a view of all its mips and layers.
pub fn create_image(ctx: &Context, name: &str, desc: &ImageDesc) -> Result<Image, GpuError> {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(desc.format)
        .extent(desc.extent.into())
        .mip_levels(desc.mip_levels)
        .array_layers(desc.array_layers.unwrap_or(1))
        .samples(desc.samples)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(desc.usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    ctx.creation_step("vkCreateImage")?;
    let handle =
        unsafe { ctx.device.create_image(&info, None) }.map_err(vk_error("vkCreateImage"))?;
    let handle = guard(ctx, ImageHandle(handle));
    let requirements = unsafe { ctx.device.get_image_memory_requirements(handle.0) };
    let location = MemoryLocation::GpuOnly;
    let (allocation, memory_bytes) = allocate(ctx, name, requirements, location, false)?;
    let allocation = guard(ctx, Memory(allocation));
    unsafe {
        ctx.device
            .bind_image_memory(handle.0, allocation.0.memory(), allocation.0.offset())
    }
    .map_err(vk_error("vkBindImageMemory"))?;
    let (view_type, layers) = match desc.array_layers {
        Some(layers) => (vk::ImageViewType::TYPE_2D_ARRAY, layers),
        None => (vk::ImageViewType::TYPE_2D, 1),
    };
    let view_info = vk::ImageViewCreateInfo::default()
        .image(handle.0)
        .view_type(view_type)
        .format(desc.format)
        .components(desc.swizzle)
        .subresource_range(layer_range(desc.format, 0, desc.mip_levels, 0..layers));
    ctx.creation_step("vkCreateImageView")?;
    let view = unsafe { ctx.device.create_image_view(&view_info, None) }
        .map_err(vk_error("vkCreateImageView"))?;
    debug::set_name(ctx, handle.0, name);
    debug::set_name(ctx, view, &format!("{name} view"));
    Ok(Image {
        handle: handle.keep().0,
        view,
        allocation: allocation.keep().0,
        memory_bytes,
        format: desc.format,
        extent: desc.extent,
        mip_levels: desc.mip_levels,
    })
}

pub fn destroy_image(ctx: &Context, image: Image) {
    unsafe {
        ctx.device.destroy_image_view(image.view, None);
        ctx.device.destroy_image(image.handle, None);
    }
    free(ctx, image.allocation);
}

impl Destroy for Image {
    fn destroy(self, ctx: &Context) {
        destroy_image(ctx, self);
    }
}

pub fn is_depth_format(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::D16_UNORM
            | vk::Format::D32_SFLOAT
            | vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT_S8_UINT
    )
}

pub fn subresource_range(
    format: vk::Format,
    base_mip: u32,
    mip_count: u32,
) -> vk::ImageSubresourceRange {
    layer_range(format, base_mip, mip_count, 0..1)
}

/// [`subresource_range`] over the array layers `layers`.
pub fn layer_range(
    format: vk::Format,
    base_mip: u32,
    mip_count: u32,
    layers: std::ops::Range<u32>,
) -> vk::ImageSubresourceRange {
    let aspect_mask = if is_depth_format(format) {
        vk::ImageAspectFlags::DEPTH
    } else {
        vk::ImageAspectFlags::COLOR
    };
    vk::ImageSubresourceRange::default()
        .aspect_mask(aspect_mask)
        .base_mip_level(base_mip)
        .level_count(mip_count)
        .base_array_layer(layers.start)
        .layer_count(layers.len() as u32)
}

/// One image layout transition / dependency, recorded on its own. Passes
/// batch nothing here on purpose: a frame has a handful of barriers.
pub struct ImageBarrier {
    pub image: vk::Image,
    pub range: vk::ImageSubresourceRange,
    pub src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    pub dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
    pub old_layout: vk::ImageLayout,
    pub new_layout: vk::ImageLayout,
}

impl ImageBarrier {
    /// A barrier over every layer of a single-mip `image` (a render
    /// target's, a resolve's, the shadow map's cascades).
    pub fn whole(
        image: &Image,
        src: (vk::PipelineStageFlags2, vk::AccessFlags2),
        dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
        old_layout: vk::ImageLayout,
        new_layout: vk::ImageLayout,
    ) -> ImageBarrier {
        ImageBarrier {
            image: image.handle,
            range: layer_range(image.format, 0, 1, 0..vk::REMAINING_ARRAY_LAYERS),
            src,
            dst,
            old_layout,
            new_layout,
        }
    }
}

pub fn image_barrier(ctx: &Context, cmd: vk::CommandBuffer, barrier: &ImageBarrier) {
    let barriers = [vk::ImageMemoryBarrier2::default()
        .image(barrier.image)
        .subresource_range(barrier.range)
        .src_stage_mask(barrier.src.0)
        .src_access_mask(barrier.src.1)
        .dst_stage_mask(barrier.dst.0)
        .dst_access_mask(barrier.dst.1)
        .old_layout(barrier.old_layout)
        .new_layout(barrier.new_layout)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)];
    let dependency = vk::DependencyInfo::default().image_memory_barriers(&barriers);
    unsafe { ctx.synchronization2.cmd_pipeline_barrier2(cmd, &dependency) };
}

/// Records `record` into a fresh command buffer, submits it and waits: for
/// load-time uploads and the headless readback, never inside a frame.
pub fn submit_and_wait(
    ctx: &Context,
    name: &str,
    record: impl FnOnce(vk::CommandBuffer),
) -> Result<(), GpuError> {
    let pool_info = vk::CommandPoolCreateInfo::default()
        .flags(vk::CommandPoolCreateFlags::TRANSIENT)
        .queue_family_index(ctx.queue_family);
    ctx.creation_step("vkCreateCommandPool")?;
    let pool = unsafe { ctx.device.create_command_pool(&pool_info, None) }
        .map_err(vk_error("vkCreateCommandPool"))?;
    debug::set_name(ctx, pool, &format!("{name} pool"));
    let result = record_and_submit(ctx, pool, name, record);
    // Destroying the pool frees its command buffer too.
    unsafe { ctx.device.destroy_command_pool(pool, None) };
    result
}

fn record_and_submit(
    ctx: &Context,
    pool: vk::CommandPool,
    name: &str,
    record: impl FnOnce(vk::CommandBuffer),
) -> Result<(), GpuError> {
    let alloc_info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    let cmd = unsafe { ctx.device.allocate_command_buffers(&alloc_info) }
        .map_err(vk_error("vkAllocateCommandBuffers"))?[0];
    debug::set_name(ctx, cmd, name);
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    unsafe { ctx.device.begin_command_buffer(cmd, &begin) }
        .map_err(vk_error("vkBeginCommandBuffer"))?;
    {
        let _label = debug::label(ctx, cmd, name);
        record(cmd);
    }
    unsafe { ctx.device.end_command_buffer(cmd) }.map_err(vk_error("vkEndCommandBuffer"))?;

    ctx.creation_step("vkCreateFence")?;
    let fence = unsafe {
        ctx.device
            .create_fence(&vk::FenceCreateInfo::default(), None)
    }
    .map_err(vk_error("vkCreateFence"))?;
    debug::set_name(ctx, fence, &format!("{name} fence"));
    let command_buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
    let submit = [vk::SubmitInfo2::default().command_buffer_infos(&command_buffers)];
    let result = unsafe {
        ctx.synchronization2
            .queue_submit2(ctx.queue, &submit, fence)
    }
    .map_err(vk_error("vkQueueSubmit2"))
    .and_then(|()| {
        unsafe { ctx.device.wait_for_fences(&[fence], true, u64::MAX) }
            .map_err(vk_error("vkWaitForFences"))
    });
    unsafe { ctx.device.destroy_fence(fence, None) };
    result
}

/// Memory for `requirements`, and the device memory it takes: the
/// requirements' size plus the padding the allocator left before it to
/// align it, which no `Allocation` states but the allocator's report
/// counts (gpu::memory sums these). Read from the report around the
/// allocation: resources are made at load and on resizes, not per frame.
fn allocate(
    ctx: &Context,
    name: &str,
    requirements: vk::MemoryRequirements,
    location: MemoryLocation,
    linear: bool,
) -> Result<(Allocation, u64), GpuError> {
    ctx.creation_step("allocate memory")?;
    let mut allocator = ctx
        .allocator
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let before = allocator.generate_report().total_allocated_bytes;
    let allocation = allocator
        .allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })
        .map_err(|source| GpuError::Allocation {
            name: name.to_owned(),
            source,
        })?;
    let charged = allocator.generate_report().total_allocated_bytes - before;
    Ok((allocation, charged))
}

fn free(ctx: &Context, allocation: Allocation) {
    let mut allocator = ctx
        .allocator
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Freeing only fails for allocations that are not this allocator's,
    // which would be a bug here; leaking is the harmless outcome.
    if let Err(error) = allocator.free(allocation) {
        log::error!("freeing GPU memory: {error}");
    }
}
