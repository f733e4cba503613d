//! Whether a crowd fits the device: every buffer of [`super::crowd_buffers`]
//! held against the device's caps on single buffers and its largest
//! device-local heap, at the size each may reach ([`super::crowd_bytes`]).

use ash::vk;

use super::{crowd_buffers, crowd_bytes, CrowdShape};
use crate::gpu::{Context, GpuError};

/// The device's caps on single buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferLimits {
    pub max_buffer_size: u64,
    pub max_storage_buffer_range: u64,
    /// The largest device-local heap, or a smaller budget (a test hook
    /// playing a small GPU).
    pub heap_size: u64,
}

impl BufferLimits {
    pub fn of(ctx: &Context, budget: Option<u64>) -> BufferLimits {
        let properties = unsafe {
            ctx.instance
                .get_physical_device_properties(ctx.physical_device)
        };
        let memory = unsafe {
            ctx.instance
                .get_physical_device_memory_properties(ctx.physical_device)
        };
        let heap = memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
        BufferLimits {
            max_buffer_size: max_buffer_size(ctx).unwrap_or(u64::MAX),
            max_storage_buffer_range: u64::from(properties.limits.max_storage_buffer_range),
            heap_size: budget.map_or(heap, |b| b.min(heap)),
        }
    }
}

/// maxBufferSize, which only drivers with VK_KHR_maintenance4 state.
fn max_buffer_size(ctx: &Context) -> Option<u64> {
    let extensions = unsafe {
        ctx.instance
            .enumerate_device_extension_properties(ctx.physical_device)
    }
    .ok()?;
    let name = ash::khr::maintenance4::NAME;
    if !extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
    {
        return None;
    }
    let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut maintenance4);
    unsafe {
        ctx.instance
            .get_physical_device_properties2(ctx.physical_device, &mut properties)
    };
    Some(maintenance4.max_buffer_size)
}

/// The most instances of `shape` the device holds besides `fixed_bytes`
/// (the model and the frame slots), and the limit that decides, in words.
pub fn instances_that_fit(
    shape: &CrowdShape,
    limits: &BufferLimits,
    fixed_bytes: u64,
) -> (u64, String) {
    let buffers = crowd_buffers(shape);
    let by_buffer = buffers.iter().filter_map(|buffer| {
        let (cap, cap_name) =
            if buffer.is_storage() && limits.max_storage_buffer_range < limits.max_buffer_size {
                (limits.max_storage_buffer_range, "maxStorageBufferRange")
            } else {
                (limits.max_buffer_size, "maxBufferSize")
            };
        let instances = cap
            .saturating_sub(buffer.header_bytes)
            .checked_div(buffer.bytes_per_instance)?;
        let reason = format!(
            "its {} buffer takes {} bytes per instance and the device's {cap_name} is {} MiB",
            buffer.name,
            buffer.bytes_per_instance,
            cap >> 20
        );
        Some((instances, reason))
    });
    let per_instance: u64 = buffers
        .iter()
        .map(|b| b.bytes_per_instance * b.copies())
        .sum();
    let headers: u64 = buffers.iter().map(|b| b.header_bytes * b.copies()).sum();
    let by_heap = limits
        .heap_size
        .saturating_sub(fixed_bytes + headers)
        .checked_div(per_instance)
        .map(|instances| {
            let needed = fixed_bytes + crowd_bytes(shape, instances as u32);
            let reason = format!(
                "{} MiB of device memory hold the model and {instances} instances ({} MiB), \
                 and the largest device-local heap has {} MiB",
                needed.div_ceil(1 << 20),
                (per_instance * instances) >> 20,
                limits.heap_size >> 20
            );
            (instances, reason)
        });
    by_buffer
        .chain(by_heap)
        .min_by_key(|(instances, _)| *instances)
        .unwrap_or((u64::MAX, String::new()))
}

/// Refuses a crowd the device cannot hold, saying how many would fit:
/// better than an allocation failure halfway through building it.
pub fn check_crowd_fits(
    shape: &CrowdShape,
    instances: u32,
    limits: &BufferLimits,
    fixed_bytes: u64,
) -> Result<(), GpuError> {
    let (fits, reason) = instances_that_fit(shape, limits, fixed_bytes);
    if u64::from(instances) <= fits {
        return Ok(());
    }
    Err(GpuError::CrowdTooLarge {
        requested: instances,
        fits,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::shape;
    use super::super::Animation;
    use super::*;
    use crate::gpu::shader_types::SurfaceVertex;

    const LIMITS: BufferLimits = BufferLimits {
        max_buffer_size: 4 << 30,
        max_storage_buffer_range: 128 << 20,
        heap_size: 64 << 30,
    };

    #[test]
    fn the_storage_binding_caps_the_transforms() {
        let (fits, reason) = instances_that_fit(&shape(64, 1000, Animation::Gpu), &LIMITS, 0);
        assert_eq!(fits, (128 << 20) / (32 * 64));
        assert_eq!(
            reason,
            "its skinning transforms buffer takes 2048 bytes per instance and the device's \
             maxStorageBufferRange is 128 MiB"
        );
    }

    #[test]
    fn the_buffer_size_caps_vertex_buffers() {
        // 26214 vertices of 40 bytes: 1 MiB per instance of CPU-skinned data.
        let vertex = size_of::<SurfaceVertex>() as u64;
        assert_eq!(vertex, 40, "position, normal, tangent");
        let cpu = shape(23, (1 << 20) / vertex as u32, Animation::CpuSkinned);
        let (fits, reason) = instances_that_fit(&cpu, &LIMITS, 0);
        assert_eq!(fits, (4u64 << 30) / (vertex * ((1 << 20) / vertex)));
        assert!(reason.contains("maxBufferSize is 4096 MiB"), "{reason}");
        // Without maintenance4 no buffer size is stated: bindings and the heap cap.
        let unstated = BufferLimits {
            max_buffer_size: u64::MAX,
            ..LIMITS
        };
        let (fits, reason) = instances_that_fit(&cpu, &unstated, 0);
        assert!(reason.contains("heap"), "{reason}");
        assert!(crowd_bytes(&cpu, fits as u32) <= unstated.heap_size);
        assert!(crowd_bytes(&cpu, fits as u32 + 1) > unstated.heap_size);
    }

    #[test]
    fn the_heap_fit_leaves_room_for_the_model() {
        let small = BufferLimits {
            heap_size: 2 << 20,
            ..LIMITS
        };
        let gpu = shape(23, 3158, Animation::Gpu);
        let model = 300_000;
        let (fits, _) = instances_that_fit(&gpu, &small, model);
        assert!(model + crowd_bytes(&gpu, fits as u32) <= small.heap_size);
        assert!(model + crowd_bytes(&gpu, fits as u32 + 1) > small.heap_size);
        assert!(check_crowd_fits(&gpu, fits as u32, &small, model).is_ok());
        let refused = check_crowd_fits(&gpu, fits as u32 + 1, &small, model).unwrap_err();
        assert!(
            refused
                .to_string()
                .ends_with(&format!("at most {fits} instances fit")),
            "{refused}"
        );
    }
}
