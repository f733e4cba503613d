//! Whether a crowd's buffers can exist on the device at all, asked before
//! anything is allocated: per-instance buffers grow with the crowd, and a
//! device caps every buffer (maxBufferSize) and every storage-buffer
//! binding (maxStorageBufferRange). Too many instances is then one clear
//! message saying how many would fit, rather than a failed allocation or a
//! validation error. Whether the buffers fit the device's *memory* is the
//! renderer's own check (`Renderer::new`), once the model is uploaded.
//! The buffers come from [`crate::gpu::crowd_memory::per_instance_buffers`], the list
//! `Renderer::new` allocates from.

use ash::vk;

use crate::gpu::crowd_memory::InstanceBuffer;
use crate::gpu::Context;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferLimits {
    pub max_buffer_size: u64,
    pub max_storage_buffer_range: u64,
}

impl BufferLimits {
    pub fn of(ctx: &Context) -> BufferLimits {
        let properties = unsafe {
            ctx.instance
                .get_physical_device_properties(ctx.physical_device)
        };
        BufferLimits {
            max_buffer_size: max_buffer_size(ctx).unwrap_or(u64::MAX),
            max_storage_buffer_range: u64::from(properties.limits.max_storage_buffer_range),
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

pub fn instances_that_fit(buffers: &[InstanceBuffer], limits: &BufferLimits) -> Fit {
    let cap = |buffer: &InstanceBuffer| {
        if buffer.storage && limits.max_storage_buffer_range < limits.max_buffer_size {
            (limits.max_storage_buffer_range, "maxStorageBufferRange")
        } else {
            (limits.max_buffer_size, "maxBufferSize")
        }
    };
    buffers
        .iter()
        .filter_map(|buffer| {
            let (cap, cap_name) = cap(buffer);
            let instances = cap.checked_div(buffer.bytes_per_instance)?;
            Some((instances, buffer, cap, cap_name))
        })
        .min_by_key(|(instances, ..)| *instances)
        .map_or(
            Fit {
                instances: u64::MAX,
                limit: String::new(),
            },
            |(instances, buffer, cap, cap_name)| Fit {
                instances,
                limit: format!(
                    "its {} buffer takes {} bytes per instance and the device's {cap_name} is \
                     {} MiB",
                    buffer.name,
                    buffer.bytes_per_instance,
                    cap >> 20
                ),
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: BufferLimits = BufferLimits {
        max_buffer_size: 4 << 30,
        max_storage_buffer_range: 128 << 20,
    };

    fn buffer(name: &'static str, bytes_per_instance: u64, storage: bool) -> InstanceBuffer {
        InstanceBuffer {
            name,
            bytes_per_instance,
            copies: 2,
            storage,
        }
    }

    #[test]
    fn the_storage_binding_caps_the_transforms() {
        let buffers = [
            buffer("crowd instances", 32, true),
            buffer("skinning transforms", 32 * 64, true),
        ];
        let fit = instances_that_fit(&buffers, &LIMITS);
        assert_eq!(fit.instances, (128 << 20) / (32 * 64));
        assert_eq!(
            fit.limit,
            "its skinning transforms buffer takes 2048 bytes per instance and the device's \
             maxStorageBufferRange is 128 MiB"
        );
    }

    #[test]
    fn the_buffer_size_caps_vertex_buffers() {
        let buffers = [
            buffer("skinning transforms", 736, true),
            buffer("CPU-skinned vertices", 1 << 20, false),
        ];
        let fit = instances_that_fit(&buffers, &LIMITS);
        assert_eq!(fit.instances, 4096);
        assert!(
            fit.limit.contains("maxBufferSize is 4096 MiB"),
            "{}",
            fit.limit
        );
        // Without maintenance4 no buffer size is stated: only bindings cap.
        let unstated = BufferLimits {
            max_buffer_size: u64::MAX,
            ..LIMITS
        };
        assert_eq!(
            instances_that_fit(&buffers, &unstated).instances,
            (128 << 20) / 736
        );
    }
}
