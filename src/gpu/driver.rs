//! The Vulkan loader and the driver, loaded once per process and kept
//! loaded until it exits.
//!
//! The loader maps a driver's library when an instance is created and
//! unmaps it when the last instance is destroyed. Drivers are not all built
//! to be unloaded: the NVIDIA driver leaves threads running that crash the
//! process once their code is unmapped, and after a few dozen load cycles
//! its `vkCreateInstance` stops finding the driver at all. So the first
//! [`Context`](super::Context) loads `libvulkan` once and creates one bare
//! instance (no layer, no extension) that is never destroyed: the driver
//! stays mapped from then on, whatever the contexts do. Every context
//! still makes its own instance, debug messenger and device, so its
//! validation messages stay its own.

use std::sync::Mutex;

use ash::vk;

use super::GpuError;

/// The loaded loader, and the instance that pins the driver. Never dropped:
/// dropping either would unload what this exists to keep.
struct Driver {
    entry: ash::Entry,
    _pin: ash::Instance,
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

/// The process's Vulkan entry points, loading the loader and pinning the
/// driver on the first call. A failure (no loader, no driver) is not
/// remembered: the next call tries again.
pub fn entry() -> Result<ash::Entry, GpuError> {
    // A poisoned lock only means another thread panicked while loading;
    // the `Option` is still either empty or complete.
    let mut driver = DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(driver) = driver.as_ref() {
        return Ok(driver.entry.clone());
    }
    // SAFETY: loading the system's libvulkan runs its initialisers; that is
    // the documented way to use a dynamically loaded loader.
    let entry = unsafe { ash::Entry::load()? };
    let app_info = vk::ApplicationInfo::default()
        .application_name(c"md5crowd driver pin")
        .api_version(vk::API_VERSION_1_2);
    let info = vk::InstanceCreateInfo::default().application_info(&app_info);
    let pin = unsafe { entry.create_instance(&info, None) }.map_err(instance_error)?;
    let loaded = Driver { entry, _pin: pin };
    let entry = loaded.entry.clone();
    *driver = Some(loaded);
    Ok(entry)
}

/// What a failed `vkCreateInstance` means to the user.
pub fn instance_error(result: vk::Result) -> GpuError {
    match result {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => GpuError::NoDriver,
        result => GpuError::Vulkan {
            call: "vkCreateInstance",
            result,
        },
    }
}
