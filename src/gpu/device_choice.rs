//! Which physical device the context runs on: every device checked for
//! what md5crowd requires (Vulkan 1.2, dynamic rendering, synchronization2,
//! a queue that does everything), the best usable one chosen, and the
//! logical device created with the optional features it offers.

use std::ffi::{c_char, CStr};

use ash::{khr, vk};

use super::context::{MultisampleSupport, QuerySupport, Surface, TimestampFormat};
use super::{vk_error, GpuError};

/// Dynamic rendering and synchronization2 are core in 1.3; as 1.2 extensions
/// they run on every desktop driver of the last years, lavapipe included.
const REQUIRED_DEVICE_EXTENSIONS: [&CStr; 2] =
    [khr::dynamic_rendering::NAME, khr::synchronization2::NAME];

/// A device that has all md5crowd requires, with the optional features it
/// offers: [`create_device`] enables these and nothing more.
pub(super) struct ChosenDevice {
    pub(super) handle: vk::PhysicalDevice,
    pub(super) name: String,
    pub(super) queue_family: u32,
    /// Optional: only the wireframe view needs it.
    pub(super) fill_mode_non_solid: bool,
    /// Optional: without it the materials are filtered trilinearly only.
    pub(super) max_anisotropy: Option<f32>,
    /// Optional: without it DDS images are decoded on the CPU.
    pub(super) texture_compression_bc: bool,
    /// Optional: without it every level of detail is a draw call of its own.
    pub(super) multi_draw_indirect: bool,
    /// Optional (VK_KHR_maintenance4): lets the impostor bake's fragment
    /// shader leave crowd.vert's band fade unread; without it the
    /// validation layers warn of the unread output, nothing else changes.
    pub(super) maintenance4: bool,
    pub(super) queries: QuerySupport,
    pub(super) multisample: MultisampleSupport,
}

/// The device `gpu_index` names, or else the best usable one (a discrete
/// GPU before an integrated one before a CPU driver).
pub(super) fn choose_physical_device(
    instance: &ash::Instance,
    surface: Option<&Surface>,
    gpu_index: Option<usize>,
) -> Result<ChosenDevice, GpuError> {
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(vk_error("vkEnumeratePhysicalDevices"))?;
    if let Some(index) = gpu_index {
        let Some(&device) = devices.get(index) else {
            return Err(GpuError::GpuIndex {
                index,
                reason: format!("only {} Vulkan device(s) present", devices.len()),
            });
        };
        return check_device(instance, device, surface)?
            .map(|(chosen, _)| chosen)
            .map_err(|reason| GpuError::GpuIndex { index, reason });
    }
    let mut rejections = String::new();
    let mut best: Option<(ChosenDevice, u32)> = None;
    for device in devices {
        match check_device(instance, device, surface)? {
            Ok((chosen, score)) => {
                if best
                    .as_ref()
                    .is_none_or(|(_, best_score)| score > *best_score)
                {
                    best = Some((chosen, score));
                }
            }
            Err(reason) => rejections.push_str(&format!("; {reason}")),
        }
    }
    best.map(|(chosen, _)| chosen)
        .ok_or(GpuError::NoSuitableDevice(rejections))
}

/// `Ok(Ok((device, score)))` when usable (higher score preferred),
/// `Ok(Err(reason))` when not.
fn check_device(
    instance: &ash::Instance,
    device: vk::PhysicalDevice,
    surface: Option<&Surface>,
) -> Result<Result<(ChosenDevice, u32), String>, GpuError> {
    let properties = unsafe { instance.get_physical_device_properties(device) };
    let name = properties.device_name_as_c_str().map_or_else(
        |_| "<unnamed device>".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    if properties.api_version < vk::API_VERSION_1_2 {
        return Ok(Err(format!("{name}: Vulkan 1.2 required")));
    }
    // crowd.frag samples three maps under each of the crowd's skins.
    let samplers = 3 * super::shader_types::MAX_SKINS as u32;
    if properties.limits.max_per_stage_descriptor_samplers < samplers {
        return Ok(Err(format!(
            "{name}: {samplers} samplers per shader stage required, it has {}",
            properties.limits.max_per_stage_descriptor_samplers
        )));
    }

    let available = unsafe { instance.enumerate_device_extension_properties(device) }
        .map_err(vk_error("vkEnumerateDeviceExtensionProperties"))?;
    let swapchain = surface.map(|_| khr::swapchain::NAME);
    for required in REQUIRED_DEVICE_EXTENSIONS.iter().chain(swapchain.iter()) {
        if !available
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(required))
        {
            return Ok(Err(format!("{name}: lacks {}", required.to_string_lossy())));
        }
    }
    let has_maintenance4 = available
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(khr::maintenance4::NAME));
    let mut dynamic_rendering = vk::PhysicalDeviceDynamicRenderingFeatures::default();
    let mut synchronization2 = vk::PhysicalDeviceSynchronization2Features::default();
    let mut maintenance4 = vk::PhysicalDeviceMaintenance4Features::default();
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut dynamic_rendering)
        .push_next(&mut synchronization2);
    if has_maintenance4 {
        features = features.push_next(&mut maintenance4);
    }
    unsafe { instance.get_physical_device_features2(device, &mut features) };
    let fill_mode_non_solid = features.features.fill_mode_non_solid == vk::TRUE;
    let max_anisotropy = material_anisotropy(
        properties.device_type,
        features.features.sampler_anisotropy == vk::TRUE,
        properties.limits.max_sampler_anisotropy,
    );
    let pipeline_statistics = features.features.pipeline_statistics_query == vk::TRUE;
    let texture_compression_bc = features.features.texture_compression_bc == vk::TRUE;
    let multi_draw_indirect = features.features.multi_draw_indirect == vk::TRUE;
    let maintenance4 = has_maintenance4 && maintenance4.maintenance4 == vk::TRUE;
    if dynamic_rendering.dynamic_rendering == vk::FALSE
        || synchronization2.synchronization2 == vk::FALSE
    {
        return Ok(Err(format!(
            "{name}: dynamic rendering or synchronization2 feature off"
        )));
    }

    let families = unsafe { instance.get_physical_device_queue_family_properties(device) };
    let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let mut queue_family = None;
    for (index, family) in (0u32..).zip(&families) {
        let presents = match surface {
            Some(s) => unsafe {
                s.loader
                    .get_physical_device_surface_support(device, index, s.handle)
            }
            .map_err(vk_error("vkGetPhysicalDeviceSurfaceSupportKHR"))?,
            None => true,
        };
        if family.queue_flags.contains(wanted) && presents {
            queue_family = Some(index);
            break;
        }
    }
    let Some(queue_family) = queue_family else {
        return Ok(Err(format!(
            "{name}: no queue family does graphics, compute and present"
        )));
    };
    let valid_bits = families[queue_family as usize].timestamp_valid_bits;
    let queries = QuerySupport {
        timestamps: (valid_bits > 0).then(|| TimestampFormat {
            period_ns: f64::from(properties.limits.timestamp_period),
            valid_mask: u64::MAX >> (64 - valid_bits.min(64)),
        }),
        pipeline_statistics,
    };

    let multisample = multisample_support(instance, device, &properties.limits);

    let score = match properties.device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => 4,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 3,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 1,
        _ => 0,
    };
    Ok(Ok((
        ChosenDevice {
            handle: device,
            name,
            queue_family,
            fill_mode_non_solid,
            max_anisotropy,
            texture_compression_bc,
            multi_draw_indirect,
            maintenance4,
            queries,
            multisample,
        },
        score,
    )))
}

/// The anisotropy the material sampler is created with: up to 16 where
/// the device filters anisotropically, none on a CPU driver. llvmpipe's
/// anisotropic filter is an elliptical weighted average that reads every
/// texel under the pixel's footprint, however long the ellipse
/// (`maxSamplerAnisotropy` does not bound it), and it costs most at 4x
/// MSAA: the 4096 overview's 4x frame took 660 ms with it, 210 ms
/// without, and where a window one pixel high stretches the footprints
/// one frame did not end within minutes.
fn material_anisotropy(
    device_type: vk::PhysicalDeviceType,
    sampler_anisotropy: bool,
    max_sampler_anisotropy: f32,
) -> Option<f32> {
    (sampler_anisotropy && device_type != vk::PhysicalDeviceType::CPU)
        .then(|| max_sampler_anisotropy.min(16.0))
}

/// The sample counts of [`MultisampleSupport`]: the framebuffer limits for
/// colour and depth together, and, where no MIN depth resolve exists, the
/// depth's as a sampled image (the compute pass reads its samples).
fn multisample_support(
    instance: &ash::Instance,
    device: vk::PhysicalDevice,
    limits: &vk::PhysicalDeviceLimits,
) -> MultisampleSupport {
    let mut resolve = vk::PhysicalDeviceDepthStencilResolveProperties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut resolve);
    unsafe { instance.get_physical_device_properties2(device, &mut properties) };
    let min_depth_resolve = resolve
        .supported_depth_resolve_modes
        .contains(vk::ResolveModeFlags::MIN);
    let mut counts =
        limits.framebuffer_color_sample_counts & limits.framebuffer_depth_sample_counts;
    if !min_depth_resolve {
        counts &= limits.sampled_image_depth_sample_counts;
    }
    MultisampleSupport {
        counts: counts | vk::SampleCountFlags::TYPE_1,
        min_depth_resolve,
    }
}

/// The logical device: its one queue, the swapchain extension when there
/// is a window, and what `chosen` offers enabled.
pub(super) fn create_device(
    instance: &ash::Instance,
    chosen: &ChosenDevice,
    with_swapchain: bool,
) -> Result<ash::Device, GpuError> {
    let priorities = [1.0];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(chosen.queue_family)
        .queue_priorities(&priorities)];
    let mut extensions: Vec<*const c_char> = REQUIRED_DEVICE_EXTENSIONS
        .iter()
        .map(|e| e.as_ptr())
        .collect();
    if with_swapchain {
        extensions.push(khr::swapchain::NAME.as_ptr());
    }
    if chosen.maintenance4 {
        extensions.push(khr::maintenance4::NAME.as_ptr());
    }
    let mut maintenance4 = vk::PhysicalDeviceMaintenance4Features::default().maintenance4(true);
    let mut dynamic_rendering =
        vk::PhysicalDeviceDynamicRenderingFeatures::default().dynamic_rendering(true);
    let mut synchronization2 =
        vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
    let features = vk::PhysicalDeviceFeatures::default()
        .fill_mode_non_solid(chosen.fill_mode_non_solid)
        .sampler_anisotropy(chosen.max_anisotropy.is_some())
        .texture_compression_bc(chosen.texture_compression_bc)
        .multi_draw_indirect(chosen.multi_draw_indirect)
        .pipeline_statistics_query(chosen.queries.pipeline_statistics);
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_info)
        .enabled_extension_names(&extensions)
        .enabled_features(&features)
        .push_next(&mut dynamic_rendering)
        .push_next(&mut synchronization2);
    if chosen.maintenance4 {
        info = info.push_next(&mut maintenance4);
    }
    unsafe { instance.create_device(chosen.handle, &info, None) }
        .map_err(vk_error("vkCreateDevice"))
}

/// `llvmpipe Mesa 22.3.6 (LLVM 15.0.6)`: the driver's name and
/// its own description of its version (Vulkan 1.2's driver properties).
pub(super) fn driver_description(instance: &ash::Instance, device: vk::PhysicalDevice) -> String {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    unsafe { instance.get_physical_device_properties2(device, &mut properties) };
    let name = driver
        .driver_name_as_c_str()
        .map_or_else(|_| "unknown driver".into(), |name| name.to_string_lossy());
    let info = driver
        .driver_info_as_c_str()
        .map_or_else(|_| "".into(), |info| info.to_string_lossy());
    if info.is_empty() {
        name.into_owned()
    } else {
        format!("{name} {info}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn materials_are_filtered_anisotropically_on_gpus_only() {
        use vk::PhysicalDeviceType as Type;
        assert_eq!(
            material_anisotropy(Type::DISCRETE_GPU, true, 16.0),
            Some(16.0)
        );
        assert_eq!(
            material_anisotropy(Type::INTEGRATED_GPU, true, 8.0),
            Some(8.0)
        );
        assert_eq!(
            material_anisotropy(Type::DISCRETE_GPU, true, 64.0),
            Some(16.0)
        );
        assert_eq!(material_anisotropy(Type::DISCRETE_GPU, false, 16.0), None);
        assert_eq!(material_anisotropy(Type::CPU, true, 16.0), None);
    }
}
