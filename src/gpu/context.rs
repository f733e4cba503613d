//! Instance, physical device choice, logical device, the one queue, and the
//! memory allocator: everything a pass needs, created once. The device is
//! chosen, and created, in `device_choice`.

use std::ffi::{c_char, CStr};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ash::{khr, vk};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use super::debug::{self, MessageCounts};
use super::device_choice::{choose_physical_device, create_device, driver_description};
use super::{vk_error, GpuError};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validation {
    Off,
    /// Debug builds: validate when the layer is there, silently skip if not.
    IfInstalled,
    /// `--validate`: a missing layer is an error, since a run that cannot
    /// report problems must not pass for a clean one.
    Required,
}

pub struct ContextDesc {
    pub validation: Validation,
    /// Index into `vkEnumeratePhysicalDevices` order; `None` picks the best.
    pub gpu_index: Option<usize>,
    /// The window to present to; `None` renders offscreen only.
    pub window: Option<(RawDisplayHandle, RawWindowHandle)>,
}

/// Which GPU measurements the device offers (see [`super::profiler`]).
#[derive(Clone, Copy, Debug)]
pub struct QuerySupport {
    /// Nanoseconds per timestamp tick and the mask of meaningful bits;
    /// `None` when the queue writes no timestamps (`timestampValidBits == 0`).
    pub timestamps: Option<TimestampFormat>,
    /// `pipelineStatisticsQuery`, enabled whenever the device has it.
    pub pipeline_statistics: bool,
}

/// What multisampled targets the device offers (checked in `check_device`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultisampleSupport {
    /// Counts a colour and a depth target can both have, and pyramid.comp
    /// can read the depth of when the device resolves no depth to its MIN.
    pub counts: vk::SampleCountFlags,
    /// `VK_RESOLVE_MODE_MIN_BIT` is a supported depth resolve: with reverse
    /// Z the farthest sample, what the depth pyramid must be built from to
    /// stay conservative. Without it a compute pass reads every sample.
    pub min_depth_resolve: bool,
}

impl MultisampleSupport {
    /// The counts offered, smallest first.
    pub fn offered(&self) -> Vec<u32> {
        (0..=6)
            .map(|power| 1u32 << power)
            .filter(|&count| self.counts.contains(vk::SampleCountFlags::from_raw(count)))
            .collect()
    }

    /// The largest count offered that is at most `requested` (1 always is).
    pub fn clamp(&self, requested: u32) -> u32 {
        self.offered()
            .into_iter()
            .filter(|&count| count <= requested)
            .max()
            .unwrap_or(1)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct TimestampFormat {
    pub period_ns: f64,
    pub valid_mask: u64,
}

/// A presentable surface and the instance-level functions that query it.
pub struct Surface {
    pub loader: khr::surface::Instance,
    pub handle: vk::SurfaceKHR,
}

pub struct Context {
    /// The process's loader ([`super::driver`]): shared, never unloaded.
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    /// Device-level debug-utils functions: names and labels (see [`debug`]).
    pub debug_utils: Option<ash::ext::debug_utils::Device>,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// Shared: the messenger callback holds its address, and the caller may
    /// keep a clone to read the totals after the context (and with it the
    /// instance, whose destruction may still report) is gone.
    pub message_counts: Arc<MessageCounts>,
    pub validation_enabled: bool,
    pub surface: Option<Surface>,
    pub physical_device: vk::PhysicalDevice,
    pub device_name: String,
    /// The driver's name and version, as it reports them (the overlay's
    /// statistics).
    pub driver: String,
    pub device: ash::Device,
    /// One queue does graphics, compute, transfer and present: enough for a
    /// renderer whose frames are serial anyway, and no ownership transfers.
    pub queue_family: u32,
    pub queue: vk::Queue,
    /// `fillModeNonSolid` is enabled: wireframe pipelines can be made.
    pub wireframe: bool,
    /// `textureCompressionBC` is enabled: DDS images upload as their BC1-3
    /// blocks (else they are decoded on the CPU). Tests clear it to take
    /// the CPU path on a device that has the feature.
    pub texture_compression_bc: bool,
    /// `multiDrawIndirect` is enabled: one indirect draw call can issue
    /// several consecutive draw commands. Tests clear it to take the path
    /// of a device without it.
    pub multi_draw_indirect: bool,
    /// What the GPU profiler can measure on this device and queue.
    pub queries: QuerySupport,
    /// The most anisotropy the material sampler takes: `samplerAnisotropy`
    /// enabled and `maxSamplerAnisotropy` up to 16; `None` without it and
    /// on a CPU driver (`material_anisotropy` says why).
    pub max_anisotropy: Option<f32>,
    /// The sample counts the frame's targets can have, and how their depth
    /// is resolved for the depth pyramid.
    pub multisample: MultisampleSupport,
    pub dynamic_rendering: khr::dynamic_rendering::Device,
    pub synchronization2: khr::synchronization2::Device,
    /// Every pipeline is created through it: a pipeline made again (a
    /// model reloaded, targets of another sample count) reuses the
    /// driver's compiled code. Lives as long as the device, in memory only.
    pub pipeline_cache: vk::PipelineCache,
    /// gpu-allocator needs `&mut`; a mutex lets every creation function take
    /// `&Context`. Shared with the overlay's egui renderer, which takes an
    /// `Arc` and is destroyed before the context. Dropped by hand before the
    /// device.
    pub allocator: ManuallyDrop<Arc<Mutex<Allocator>>>,
    /// Test hook: the object creation that is made to fail (see
    /// [`Context::fail_creation_step`]).
    fail_at: AtomicU32,
    creation_steps: AtomicU32,
}

impl Context {
    pub fn new(desc: &ContextDesc) -> Result<Context, GpuError> {
        let entry = super::driver::entry()?;
        let validation_enabled = match desc.validation {
            Validation::Off => false,
            Validation::IfInstalled => has_layer(&entry, VALIDATION_LAYER)?,
            Validation::Required if has_layer(&entry, VALIDATION_LAYER)? => true,
            Validation::Required => {
                return Err(GpuError::ValidationLayerMissing(
                    "VK_LAYER_KHRONOS_validation",
                ))
            }
        };
        let message_counts = Arc::<MessageCounts>::default();
        let (instance, has_debug_utils) =
            create_instance(&entry, desc, validation_enabled, &message_counts)?;

        // Failures from here on must not leak the instance-level objects.
        let mut messenger = None;
        let mut surface = None;
        let device_level = create_instance_objects(
            &entry,
            &instance,
            desc,
            has_debug_utils,
            &message_counts,
            &mut messenger,
            &mut surface,
        )
        .and_then(|()| {
            let chosen = choose_physical_device(&instance, surface.as_ref(), desc.gpu_index)?;
            let device = create_device(&instance, &chosen, surface.is_some())?;
            let allocator = Allocator::new(&AllocatorCreateDesc {
                instance: instance.clone(),
                device: device.clone(),
                physical_device: chosen.handle,
                debug_settings: Default::default(),
                buffer_device_address: false,
                allocation_sizes: Default::default(),
            });
            let allocator = match allocator {
                Ok(allocator) => allocator,
                Err(source) => {
                    unsafe { device.destroy_device(None) };
                    return Err(GpuError::Allocation {
                        name: "allocator".into(),
                        source,
                    });
                }
            };
            let cache_info = vk::PipelineCacheCreateInfo::default();
            match unsafe { device.create_pipeline_cache(&cache_info, None) } {
                Ok(cache) => Ok((chosen, device, allocator, cache)),
                Err(result) => {
                    drop(allocator);
                    unsafe { device.destroy_device(None) };
                    Err(vk_error("vkCreatePipelineCache")(result))
                }
            }
        });
        let (chosen, device, allocator, pipeline_cache) = match device_level {
            Ok(created) => created,
            Err(error) => {
                destroy_instance_objects(&instance, messenger.as_ref(), surface.as_ref());
                return Err(error);
            }
        };
        let queue = unsafe { device.get_device_queue(chosen.queue_family, 0) };
        let driver = driver_description(&instance, chosen.handle);

        let ctx = Context {
            debug_utils: has_debug_utils
                .then(|| ash::ext::debug_utils::Device::new(&instance, &device)),
            dynamic_rendering: khr::dynamic_rendering::Device::new(&instance, &device),
            synchronization2: khr::synchronization2::Device::new(&instance, &device),
            pipeline_cache,
            entry,
            instance,
            messenger,
            message_counts,
            validation_enabled,
            surface,
            physical_device: chosen.handle,
            device_name: chosen.name,
            driver,
            device,
            queue_family: chosen.queue_family,
            queue,
            wireframe: chosen.fill_mode_non_solid,
            max_anisotropy: chosen.max_anisotropy,
            texture_compression_bc: chosen.texture_compression_bc,
            multi_draw_indirect: chosen.multi_draw_indirect,
            queries: chosen.queries,
            multisample: chosen.multisample,
            allocator: ManuallyDrop::new(Arc::new(Mutex::new(allocator))),
            fail_at: AtomicU32::new(u32::MAX),
            creation_steps: AtomicU32::new(0),
        };
        debug::set_name(&ctx, ctx.device.handle(), "md5crowd device");
        debug::set_name(&ctx, ctx.queue, "graphics+compute+present queue");
        debug::set_name(&ctx, ctx.pipeline_cache, "pipeline cache");
        Ok(ctx)
    }

    pub fn wait_idle(&self) -> Result<(), GpuError> {
        unsafe { self.device.device_wait_idle() }.map_err(vk_error("vkDeviceWaitIdle"))
    }

    /// Test hook: from now on, counting from 0, object creation number
    /// `step` fails with [`GpuError::InjectedFailure`] (`None`: none
    /// fails). A test walks `step` over every creation a constructor makes
    /// and checks, under validation, that each failure leaves nothing alive.
    pub fn fail_creation_step(&self, step: Option<u32>) {
        self.creation_steps.store(0, Ordering::Relaxed);
        self.fail_at
            .store(step.unwrap_or(u32::MAX), Ordering::Relaxed);
    }

    /// Object creations since the last [`Context::fail_creation_step`].
    pub fn creation_steps(&self) -> u32 {
        self.creation_steps.load(Ordering::Relaxed)
    }

    /// Called before each Vulkan object or memory creation: counts it, and
    /// fails it when the test hook says so.
    pub(crate) fn creation_step(&self, call: &'static str) -> Result<(), GpuError> {
        let step = self.creation_steps.fetch_add(1, Ordering::Relaxed);
        if step == self.fail_at.load(Ordering::Relaxed) {
            return Err(GpuError::InjectedFailure { call, step });
        }
        Ok(())
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe {
            // Nothing useful can be done about a lost device while tearing down.
            let _ = self.device.device_wait_idle();
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_device(None);
            destroy_instance_objects(
                &self.instance,
                self.messenger.as_ref(),
                self.surface.as_ref(),
            );
        }
    }
}

/// The debug messenger (when debug utils are on) and the window surface
/// (when there is a window), stored as they are made.
fn create_instance_objects(
    entry: &ash::Entry,
    instance: &ash::Instance,
    desc: &ContextDesc,
    has_debug_utils: bool,
    counts: &MessageCounts,
    messenger: &mut Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    surface: &mut Option<Surface>,
) -> Result<(), GpuError> {
    if has_debug_utils {
        let loader = ash::ext::debug_utils::Instance::new(entry, instance);
        let info = debug::messenger_create_info(counts);
        let handle = unsafe { loader.create_debug_utils_messenger(&info, None) }
            .map_err(vk_error("vkCreateDebugUtilsMessengerEXT"))?;
        *messenger = Some((loader, handle));
    }
    if let Some((display, window)) = desc.window {
        let handle = unsafe { ash_window::create_surface(entry, instance, display, window, None) }
            .map_err(vk_error("vkCreate*SurfaceKHR"))?;
        *surface = Some(Surface {
            loader: khr::surface::Instance::new(entry, instance),
            handle,
        });
    }
    Ok(())
}

/// Reverse creation order; the device must already be gone.
fn destroy_instance_objects(
    instance: &ash::Instance,
    messenger: Option<&(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    surface: Option<&Surface>,
) {
    unsafe {
        if let Some(surface) = surface {
            surface.loader.destroy_surface(surface.handle, None);
        }
        if let Some((loader, messenger)) = messenger {
            loader.destroy_debug_utils_messenger(*messenger, None);
        }
        instance.destroy_instance(None);
    }
}

fn has_layer(entry: &ash::Entry, name: &CStr) -> Result<bool, GpuError> {
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(vk_error("vkEnumerateInstanceLayerProperties"))?;
    Ok(layers
        .iter()
        .any(|layer| layer.layer_name_as_c_str() == Ok(name)))
}

fn has_instance_extension(
    entry: &ash::Entry,
    layer: Option<&CStr>,
    name: &CStr,
) -> Result<bool, GpuError> {
    let extensions = unsafe { entry.enumerate_instance_extension_properties(layer) }
        .map_err(vk_error("vkEnumerateInstanceExtensionProperties"))?;
    Ok(extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name)))
}

/// Returns the instance and whether VK_EXT_debug_utils is enabled on it.
fn create_instance(
    entry: &ash::Entry,
    desc: &ContextDesc,
    validation: bool,
    counts: &MessageCounts,
) -> Result<(ash::Instance, bool), GpuError> {
    let layer = validation.then_some(VALIDATION_LAYER);
    let has_debug_utils = has_instance_extension(entry, None, ash::ext::debug_utils::NAME)?
        || (validation && has_instance_extension(entry, layer, ash::ext::debug_utils::NAME)?);
    let has_validation_features =
        validation && has_instance_extension(entry, layer, ash::ext::validation_features::NAME)?;

    let mut extensions: Vec<*const c_char> = Vec::new();
    if let Some((display, _)) = desc.window {
        extensions.extend_from_slice(
            ash_window::enumerate_required_extensions(display)
                .map_err(vk_error("ash_window::enumerate_required_extensions"))?,
        );
    }
    if has_debug_utils {
        extensions.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    if has_validation_features {
        extensions.push(ash::ext::validation_features::NAME.as_ptr());
    }
    let layers: Vec<*const c_char> = layer.iter().map(|l| l.as_ptr()).collect();

    let app_info = vk::ApplicationInfo::default()
        .application_name(c"md5crowd")
        .engine_name(c"md5crowd")
        .api_version(vk::API_VERSION_1_2);
    // Synchronization validation catches missing barriers, the class of bug
    // that works on one driver and corrupts frames on the next.
    let enabled_features = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut validation_features =
        vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_features);
    let mut messenger_info = debug::messenger_create_info(counts);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    if has_debug_utils {
        info = info.push_next(&mut messenger_info);
    }
    if has_validation_features {
        info = info.push_next(&mut validation_features);
    }
    let instance =
        unsafe { entry.create_instance(&info, None) }.map_err(super::driver::instance_error)?;
    Ok((instance, has_debug_utils))
}
