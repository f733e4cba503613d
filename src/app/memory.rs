//! Whether a crowd fits the device, asked before any memory is allocated,
//! so too many instances is one clear message saying how many would fit
//! rather than a failed allocation halfway through building the renderer.
//!
//! Per instance the renderer keeps a placement, and per frame in flight the
//! instance's animation state, skinning transforms and a slot in the
//! visible list (and, skinning on the CPU, its skinned vertices):
//! [`per_instance_buffers`] mirrors `Renderer::new` and must change with
//! it. Three device limits cap those buffers: the largest buffer, the
//! largest storage-buffer binding, and the memory heaps.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::anim::SkinningTransform;
use crate::gpu::animation_data::InstanceAnimation;
use crate::gpu::frame::FRAMES_IN_FLIGHT;
use crate::gpu::gpu_model::{self, SurfaceVertex};
use crate::gpu::renderer::{Animation, CrowdInstance};
use crate::gpu::Context;
use crate::model::Model;

/// A renderer buffer whose size is proportional to the instance count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstanceBuffer {
    pub name: &'static str,
    pub bytes_per_instance: u64,
    /// One per frame in flight, or one.
    pub copies: u64,
    /// Bound as a storage buffer, so also capped by maxStorageBufferRange.
    pub storage: bool,
    pub location: MemoryLocation,
}

pub fn per_instance_buffers(
    model: &Model,
    animation: Animation,
    cpu_skinning: bool,
) -> Vec<InstanceBuffer> {
    let joints = model.skeleton.joint_count() as u64;
    let vertices: u64 = gpu_model::drawn_meshes(model)
        .map(|m| m.vertex_count() as u64)
        .sum();
    let transforms = joints * size_of::<SkinningTransform>() as u64;
    let frames = FRAMES_IN_FLIGHT as u64;
    let storage = |name, bytes_per_instance, copies, location| InstanceBuffer {
        name,
        bytes_per_instance,
        copies,
        storage: true,
        location,
    };
    let mut buffers = vec![
        storage(
            "crowd instances",
            size_of::<CrowdInstance>() as u64,
            1,
            MemoryLocation::GpuOnly,
        ),
        storage(
            "skinning transforms",
            transforms,
            frames,
            match animation {
                Animation::Cpu => MemoryLocation::CpuToGpu,
                Animation::Gpu | Animation::Off => MemoryLocation::GpuOnly,
            },
        ),
        storage(
            "instance animation",
            size_of::<InstanceAnimation>() as u64,
            frames,
            MemoryLocation::CpuToGpu,
        ),
        storage("visible instances", 4, frames, MemoryLocation::GpuOnly),
    ];
    if cpu_skinning {
        buffers.extend([
            storage(
                "identity skinning transforms",
                transforms,
                1,
                MemoryLocation::GpuOnly,
            ),
            storage("visible instances (all)", 4, 1, MemoryLocation::GpuOnly),
            InstanceBuffer {
                name: "CPU-skinned vertices",
                bytes_per_instance: vertices * size_of::<SurfaceVertex>() as u64,
                copies: frames,
                storage: false,
                location: MemoryLocation::CpuToGpu,
            },
        ]);
    }
    buffers
}

/// A memory heap, as the allocator would use it for a location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heap {
    pub index: u32,
    pub size: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub max_buffer_size: u64,
    pub max_storage_buffer_range: u64,
    /// Where `GpuOnly` memory comes from.
    pub device_heap: Heap,
    /// Where `CpuToGpu` memory comes from when nothing smaller is left.
    pub host_heap: Heap,
}

impl DeviceLimits {
    pub fn of(ctx: &Context) -> DeviceLimits {
        let (instance, device) = (&ctx.instance, ctx.physical_device);
        let properties = unsafe { instance.get_physical_device_properties(device) };
        let memory = unsafe { instance.get_physical_device_memory_properties(device) };
        // Largest heap among memory types with `flags` (every device has a
        // device-local and a host-visible coherent type).
        let heap = |flags: vk::MemoryPropertyFlags| {
            memory
                .memory_types_as_slice()
                .iter()
                .filter(|t| t.property_flags.contains(flags))
                .map(|t| Heap {
                    index: t.heap_index,
                    size: memory.memory_heaps[t.heap_index as usize].size,
                })
                .max_by_key(|h| h.size)
                .unwrap_or(Heap {
                    index: u32::MAX,
                    size: u64::MAX,
                })
        };
        DeviceLimits {
            max_buffer_size: max_buffer_size(ctx).unwrap_or(u64::MAX),
            max_storage_buffer_range: u64::from(properties.limits.max_storage_buffer_range),
            device_heap: heap(vk::MemoryPropertyFlags::DEVICE_LOCAL),
            host_heap: heap(
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            ),
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

/// The most instances the buffers allow, and the limit that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    pub instances: u64,
    pub limit: String,
}

pub fn instances_that_fit(buffers: &[InstanceBuffer], limits: &DeviceLimits) -> Fit {
    let mut fit = Fit {
        instances: u64::MAX,
        limit: String::new(),
    };
    let mut tighten = |instances: u64, limit: &dyn Fn() -> String| {
        if instances < fit.instances {
            fit = Fit {
                instances,
                limit: limit(),
            };
        }
    };
    for buffer in buffers.iter().filter(|b| b.bytes_per_instance > 0) {
        let (cap, cap_name) =
            if buffer.storage && limits.max_storage_buffer_range < limits.max_buffer_size {
                (limits.max_storage_buffer_range, "maxStorageBufferRange")
            } else {
                (limits.max_buffer_size, "maxBufferSize")
            };
        let instances = cap / buffer.bytes_per_instance;
        tighten(instances, &|| {
            format!(
                "its {} buffer takes {} bytes per instance and the device's {cap_name} is {}, \
                 room for {instances}",
                buffer.name,
                buffer.bytes_per_instance,
                mib(cap)
            )
        });
    }
    for heap in [limits.device_heap, limits.host_heap] {
        let bytes: u64 = buffers
            .iter()
            .filter(|b| heap_of(b.location, limits) == heap)
            .map(|b| b.bytes_per_instance * b.copies)
            .sum();
        if let Some(instances) = heap.size.checked_div(bytes) {
            tighten(instances, &|| {
                format!(
                    "its per-instance buffers take {bytes} bytes per instance and share a {} \
                     memory heap, room for at most {instances}",
                    mib(heap.size)
                )
            });
        }
    }
    fit
}

fn heap_of(location: MemoryLocation, limits: &DeviceLimits) -> Heap {
    match location {
        MemoryLocation::GpuOnly => limits.device_heap,
        _ => limits.host_heap,
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(
        name: &'static str,
        bytes: u64,
        copies: u64,
        storage: bool,
        location: MemoryLocation,
    ) -> InstanceBuffer {
        InstanceBuffer {
            name,
            bytes_per_instance: bytes,
            copies,
            storage,
            location,
        }
    }

    fn limits(unified: bool) -> DeviceLimits {
        DeviceLimits {
            max_buffer_size: 4 << 30,
            max_storage_buffer_range: 128 << 20,
            device_heap: Heap {
                index: 0,
                size: 8 << 30,
            },
            host_heap: Heap {
                index: if unified { 0 } else { 1 },
                size: if unified { 8 << 30 } else { 1 << 30 },
            },
        }
    }

    #[test]
    fn the_storage_binding_caps_the_transforms() {
        let buffers = [
            buffer("crowd instances", 32, 1, true, MemoryLocation::GpuOnly),
            buffer(
                "skinning transforms",
                32 * 64,
                2,
                true,
                MemoryLocation::CpuToGpu,
            ),
        ];
        let fit = instances_that_fit(&buffers, &limits(false));
        assert_eq!(fit.instances, (128 << 20) / (32 * 64));
        assert_eq!(
            fit.limit,
            "its skinning transforms buffer takes 2048 bytes per instance and the device's \
             maxStorageBufferRange is 128 MiB, room for 65536"
        );
    }

    #[test]
    fn a_heap_holds_every_buffer_placed_in_it() {
        let big = 1 << 20;
        let buffers = [
            buffer("crowd instances", 32, 1, true, MemoryLocation::GpuOnly),
            buffer(
                "CPU-skinned vertices",
                big,
                2,
                false,
                MemoryLocation::CpuToGpu,
            ),
        ];
        // Separate heaps: the 1 GiB host heap holds 2 MiB per instance.
        let fit = instances_that_fit(&buffers, &limits(false));
        assert_eq!(fit.instances, 512);
        assert!(
            fit.limit
                .ends_with("share a 1024 MiB memory heap, room for at most 512"),
            "{}",
            fit.limit
        );
        // One heap (integrated GPUs, lavapipe): both buffers count against it.
        let fit = instances_that_fit(&buffers, &limits(true));
        assert_eq!(fit.instances, (8 << 30) / (2 * big + 32));
        // Without a storage binding the buffer size is the cap.
        let huge = [buffer(
            "CPU-skinned vertices",
            1 << 30,
            1,
            false,
            MemoryLocation::CpuToGpu,
        )];
        let fit = instances_that_fit(&huge, &limits(true));
        assert_eq!(fit.instances, 4);
        assert!(fit.limit.contains("maxBufferSize"), "{}", fit.limit);
    }
}
