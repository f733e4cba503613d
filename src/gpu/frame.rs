//! Frames in flight: while the GPU draws frame N, the CPU records frame N+1
//! into the other slot. A slot's fence says when its command buffer and the
//! buffers written per frame may be touched again.

use super::memory::{DeviceMemory, MemoryReport};
use ash::vk;

use gpu_allocator::MemoryLocation;

use super::guard::{guard, Destroy};
use super::impostor_atlas;
use super::resources::{self, Buffer};
use super::shader_types::{FrameUniforms, VisibleHeader};
use super::{debug, vk_error, Context, GpuError};

/// Two: the CPU runs at most one frame ahead, which keeps latency at one
/// frame while never leaving the GPU idle waiting for commands.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// Everything one frame in flight owns that does not grow with the crowd:
/// its commands, the fence that says when they are done, and the small
/// buffers the passes write each frame.
pub struct FrameSlot {
    pub command_pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    /// `cmd`'s debug name.
    pub name: String,
    /// Signalled when the GPU has finished this slot's last submission.
    pub in_flight: vk::Fence,
    pub uniforms: Buffer,
    /// The indirect draws: one per mesh and level of detail, then the
    /// skeleton overlay's; draws.comp fills in their instances.
    pub draw_commands: Buffer,
    /// The visible lists' header (the count of each level, the palette
    /// rows wanted), copied out for statistics and palette growth.
    pub visible_readback: Buffer,
    /// The clips the crowd wanted as impostors, copied out so the CPU
    /// bakes them (`ImpostorAtlases::note_requests`).
    pub impostor_requests: Buffer,
}

impl FrameSlot {
    /// Slot `slot` of a renderer whose indirect draws start as
    /// `draw_commands`, whose impostor requests take `requests_bytes`.
    pub fn new(
        ctx: &Context,
        slot: usize,
        draw_commands: &[u32],
        requests_bytes: u64,
    ) -> Result<FrameSlot, GpuError> {
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(ctx.queue_family);
        ctx.creation_step("vkCreateCommandPool")?;
        let command_pool = unsafe { ctx.device.create_command_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateCommandPool"))?;
        let command_pool = guard(ctx, command_pool);
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(*command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        ctx.creation_step("vkAllocateCommandBuffers")?;
        // Freed with the pool.
        let cmd = unsafe { ctx.device.allocate_command_buffers(&alloc_info) }
            .map_err(vk_error("vkAllocateCommandBuffers"))?[0];
        // Created signalled: the first wait on a slot must not block.
        let fence_info = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
        ctx.creation_step("vkCreateFence")?;
        let in_flight = unsafe { ctx.device.create_fence(&fence_info, None) }
            .map_err(vk_error("vkCreateFence"))?;
        let in_flight = guard(ctx, in_flight);
        let buffer = |name: &str, size, usage, location| {
            let name = format!("{name}, frame {slot}");
            resources::create_buffer(ctx, &name, size, usage, location).map(|b| guard(ctx, b))
        };
        let uniforms = buffer(
            "frame uniforms",
            size_of::<FrameUniforms>() as u64,
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            MemoryLocation::CpuToGpu,
        )?;
        let draw_commands = guard(
            ctx,
            resources::create_buffer_with_data(
                ctx,
                &format!("draw commands, frame {slot}"),
                // Read back by the GPU == CPU test of draws.comp.
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::INDIRECT_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC,
                bytemuck::cast_slice(draw_commands),
            )?,
        );
        let visible_readback = buffer(
            "visible counts readback",
            size_of::<VisibleHeader>() as u64,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let impostor_requests = guard(
            ctx,
            impostor_atlas::create_requests_readback(ctx, slot, requests_bytes)?,
        );
        let name = format!("frame {slot} commands");
        debug::set_name(ctx, *command_pool, &format!("frame {slot} command pool"));
        debug::set_name(ctx, cmd, &name);
        debug::set_name(ctx, *in_flight, &format!("frame {slot} in flight"));
        Ok(FrameSlot {
            command_pool: command_pool.keep(),
            cmd,
            name,
            in_flight: in_flight.keep(),
            uniforms: uniforms.keep(),
            draw_commands: draw_commands.keep(),
            visible_readback: visible_readback.keep(),
            impostor_requests: impostor_requests.keep(),
        })
    }
}

impl DeviceMemory for FrameSlot {
    fn memory(&self) -> MemoryReport {
        MemoryReport::buffers([
            &self.uniforms,
            &self.draw_commands,
            &self.visible_readback,
            &self.impostor_requests,
        ])
    }
}

impl Destroy for FrameSlot {
    fn destroy(self, ctx: &Context) {
        self.impostor_requests.destroy(ctx);
        self.visible_readback.destroy(ctx);
        self.draw_commands.destroy(ctx);
        self.uniforms.destroy(ctx);
        self.in_flight.destroy(ctx);
        self.command_pool.destroy(ctx);
    }
}

/// Blocks until the GPU is done with the slot's previous submission.
pub fn wait(ctx: &Context, frame: &FrameSlot) -> Result<(), GpuError> {
    unsafe {
        ctx.device
            .wait_for_fences(&[frame.in_flight], true, u64::MAX)
    }
    .map_err(vk_error("vkWaitForFences"))
}

/// Resets the slot and opens its command buffer. Call after [`wait`] and
/// after acquiring a swapchain image: the fence is reset only once a
/// submission is certain, so an early return never leaves it unsignalled.
pub fn begin(ctx: &Context, frame: &FrameSlot) -> Result<vk::CommandBuffer, GpuError> {
    unsafe {
        ctx.device
            .reset_fences(&[frame.in_flight])
            .map_err(vk_error("vkResetFences"))?;
        ctx.device
            .reset_command_pool(frame.command_pool, vk::CommandPoolResetFlags::empty())
            .map_err(vk_error("vkResetCommandPool"))?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        ctx.device
            .begin_command_buffer(frame.cmd, &begin)
            .map_err(vk_error("vkBeginCommandBuffer"))?;
    }
    // RenderDoc ties a command buffer's name to its recording: named only
    // at allocation, it shows as "Command Buffer N" in captures.
    debug::set_name(ctx, frame.cmd, &frame.name);
    Ok(frame.cmd)
}

/// Closes and submits the slot's commands. `wait` is a semaphore the
/// commands wait for at the given stage (a swapchain image being ready);
/// `signal` is signalled when they finish (the image may be presented).
pub fn submit(
    ctx: &Context,
    frame: &FrameSlot,
    wait: Option<(vk::Semaphore, vk::PipelineStageFlags2)>,
    signal: Option<vk::Semaphore>,
) -> Result<(), GpuError> {
    unsafe { ctx.device.end_command_buffer(frame.cmd) }.map_err(vk_error("vkEndCommandBuffer"))?;
    let waits: Vec<vk::SemaphoreSubmitInfo> = wait
        .iter()
        .map(|&(semaphore, stage)| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .stage_mask(stage)
        })
        .collect();
    let signals: Vec<vk::SemaphoreSubmitInfo> = signal
        .iter()
        .map(|&semaphore| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        })
        .collect();
    let command_buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(frame.cmd)];
    let submit = vk::SubmitInfo2::default()
        .wait_semaphore_infos(&waits)
        .command_buffer_infos(&command_buffers)
        .signal_semaphore_infos(&signals);
    unsafe {
        ctx.synchronization2
            .queue_submit2(ctx.queue, &[submit], frame.in_flight)
    }
    .map_err(vk_error("vkQueueSubmit2"))
}
