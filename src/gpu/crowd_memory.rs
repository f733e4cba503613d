//! What a crowd costs in device memory: the buffers the renderer sizes by
//! the instance count, and the check that refuses a crowd too big for the
//! device's largest device-local heap before anything is allocated for it.

use ash::vk;

use super::animation_data::InstanceAnimation;
use super::frame::FRAMES_IN_FLIGHT;
use super::gpu_model::{GpuModel, SurfaceVertex};
use super::renderer::CrowdInstance;
use super::{Context, GpuError};
use crate::anim::SkinningTransform;

/// A renderer buffer whose size is proportional to the instance count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstanceBuffer {
    pub name: &'static str,
    pub bytes_per_instance: u64,
    /// 1, or one per frame in flight.
    pub copies: u64,
    /// Bound as a storage buffer, so also capped by maxStorageBufferRange.
    pub storage: bool,
}

/// The buffers [`Renderer::new`] sizes by the crowd: what decides how many
/// instances fit a device's limits and memory.
pub fn per_instance_buffers(
    joint_count: u32,
    vertex_count: u32,
    cpu_skinning: bool,
) -> Vec<InstanceBuffer> {
    let buffer = |name, bytes_per_instance, copies, storage| InstanceBuffer {
        name,
        bytes_per_instance,
        copies,
        storage,
    };
    let per_frame = FRAMES_IN_FLIGHT as u64;
    let transforms = u64::from(joint_count) * size_of::<SkinningTransform>() as u64;
    let mut buffers = vec![
        buffer(
            "crowd instances",
            size_of::<CrowdInstance>() as u64,
            1,
            true,
        ),
        buffer("skinning transforms", transforms, per_frame, true),
        buffer(
            "instance animation",
            size_of::<InstanceAnimation>() as u64,
            per_frame,
            true,
        ),
        buffer(
            "visible instances",
            size_of::<u32>() as u64,
            per_frame,
            true,
        ),
    ];
    if cpu_skinning {
        let vertices = u64::from(vertex_count) * size_of::<SurfaceVertex>() as u64;
        buffers.extend([
            buffer("identity skinning transforms", transforms, 1, true),
            buffer("visible instances (all)", size_of::<u32>() as u64, 1, true),
            buffer("vertices: CPU-skinned", vertices, per_frame, false),
        ]);
    }
    buffers
}

/// Device memory per instance, every copy counted.
pub(super) fn bytes_per_instance(model: &GpuModel, cpu_skinning: bool) -> u64 {
    per_instance_buffers(model.joint_count, model.vertex_count, cpu_skinning)
        .iter()
        .map(|b| b.bytes_per_instance * b.copies)
        .sum()
}

/// Refuses a crowd whose per-instance buffers alone would not fit in the
/// largest device-local heap, saying how many would: better than an
/// allocation failure halfway through creating the renderer.
pub(super) fn check_crowd_fits(
    ctx: &Context,
    model: &GpuModel,
    per_instance: u64,
    instance_count: u32,
    budget: Option<u64>,
) -> Result<(), GpuError> {
    let properties = unsafe {
        ctx.instance
            .get_physical_device_memory_properties(ctx.physical_device)
    };
    let heap = properties.memory_heaps[..properties.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
        .unwrap_or(0);
    let available = budget.map_or(heap, |b| b.min(heap));
    let needed = per_instance * u64::from(instance_count) + model.buffer_bytes();
    if needed <= available {
        return Ok(());
    }
    Err(GpuError::CrowdTooLarge {
        requested: instance_count,
        fits: available.saturating_sub(model.buffer_bytes()) / per_instance,
        needed_mib: needed.div_ceil(1 << 20),
        heap_mib: available >> 20,
    })
}
