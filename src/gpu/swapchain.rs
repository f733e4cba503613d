//! The swapchain: created for the window's current size, recreated when the
//! window changes (out of date or suboptimal), and never created for a
//! zero-sized (minimised) window.

use std::time::Duration;

use ash::{khr, vk};

use super::frame::FRAMES_IN_FLIGHT;
use super::guard::{guard, Destroy};
use super::{debug, vk_error, Context, GpuError};

pub struct Swapchain {
    loader: khr::swapchain::Device,
    pub handle: vk::SwapchainKHR,
    pub images: Vec<vk::Image>,
    pub format: vk::Format,
    pub extent: vk::Extent2D,
    /// Per frame slot: signalled when the acquired image may be written.
    pub image_available: Vec<vk::Semaphore>,
    /// Per image, not per frame slot: presentation holds an image's
    /// semaphore until the image comes back, which can be after the slot
    /// has been reused.
    pub render_finished: Vec<vk::Semaphore>,
}

pub enum Acquired {
    Image {
        index: u32,
        suboptimal: bool,
    },
    /// The surface changed under us, or the presentation engine kept every
    /// image past [`ACQUIRE_TIMEOUT`]: recreate and skip this frame.
    OutOfDate,
}

/// How long an acquire may wait for the presentation engine to give an
/// image back. The slot's fence is waited on first, so only presentation
/// itself can hold every image, for a few refreshes at most; a wait this
/// long means a window system that stopped answering. Bounded, the event
/// loop goes on handling input and the swapchain is rebuilt instead of the
/// app hanging in the acquire.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// The size a swapchain for this surface must have; zero while the window is
/// minimised (then no swapchain can exist and the caller waits for events).
pub fn surface_extent(
    ctx: &Context,
    window_extent: vk::Extent2D,
) -> Result<vk::Extent2D, GpuError> {
    Ok(extent_for(&surface_capabilities(ctx)?, window_extent))
}

fn extent_for(
    capabilities: &vk::SurfaceCapabilitiesKHR,
    window_extent: vk::Extent2D,
) -> vk::Extent2D {
    // u32::MAX means the window system lets the swapchain decide the size.
    if capabilities.current_extent.width != u32::MAX {
        return capabilities.current_extent;
    }
    vk::Extent2D {
        width: window_extent.width.clamp(
            capabilities.min_image_extent.width,
            capabilities.max_image_extent.width,
        ),
        height: window_extent.height.clamp(
            capabilities.min_image_extent.height,
            capabilities.max_image_extent.height,
        ),
    }
}

/// A swapchain for a window of `window_extent`, sized by the surface as it
/// is at the last moment: a window resized meanwhile (X11 reports sizes
/// late) would otherwise get a swapchain of a size the surface no longer
/// has. `None` when the surface has no area now. `old` is retired (and
/// destroyed) either way.
pub fn create_swapchain(
    ctx: &Context,
    window_extent: vk::Extent2D,
    vsync: bool,
    old: Option<Swapchain>,
) -> Result<Option<Swapchain>, GpuError> {
    let surface = ctx
        .surface
        .as_ref()
        .expect("a swapchain needs a context created with a window");
    let formats = unsafe {
        surface
            .loader
            .get_physical_device_surface_formats(ctx.physical_device, surface.handle)
    }
    .map_err(vk_error("vkGetPhysicalDeviceSurfaceFormatsKHR"))?;
    let present_modes = unsafe {
        surface
            .loader
            .get_physical_device_surface_present_modes(ctx.physical_device, surface.handle)
    }
    .map_err(vk_error("vkGetPhysicalDeviceSurfacePresentModesKHR"))?;

    // The renderer's target is sRGB; blitting it into an sRGB image keeps the
    // encoding, into a UNORM one would show linear values (too dark).
    let format = formats
        .iter()
        .find(|f| {
            matches!(
                f.format,
                vk::Format::B8G8R8A8_SRGB | vk::Format::R8G8B8A8_SRGB
            ) && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR
        })
        .or(formats.first())
        .copied()
        .ok_or(GpuError::Vulkan {
            call: "vkGetPhysicalDeviceSurfaceFormatsKHR (no formats)",
            result: vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        })?;
    let present_mode = choose_present_mode(&present_modes, vsync);
    // From here on every way out destroys what was made: on failure the
    // old swapchain too, which the caller handed over. The capabilities are
    // queried last, just before the swapchain is made for them.
    let old = old.map(|old| guard(ctx, old));
    let capabilities = surface_capabilities(ctx)?;
    let extent = extent_for(&capabilities, window_extent);
    if extent.width == 0 || extent.height == 0 {
        return Ok(None);
    }
    // One more than the minimum so acquiring rarely waits on the compositor.
    let mut image_count = capabilities.min_image_count + 1;
    if capabilities.max_image_count != 0 {
        image_count = image_count.min(capabilities.max_image_count);
    }
    if !capabilities
        .supported_usage_flags
        .contains(vk::ImageUsageFlags::TRANSFER_DST)
    {
        return Err(GpuError::Vulkan {
            call: "vkGetPhysicalDeviceSurfaceCapabilitiesKHR (swapchain images cannot be blit targets)",
            result: vk::Result::ERROR_FEATURE_NOT_PRESENT,
        });
    }

    let loader = khr::swapchain::Device::new(&ctx.instance, &ctx.device);
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(surface.handle)
        .min_image_count(image_count)
        .image_format(format.format)
        .image_color_space(format.color_space)
        .image_extent(extent)
        .image_array_layers(1)
        // The renderer draws offscreen and blits the result here.
        .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
        .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
        .pre_transform(capabilities.current_transform)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(present_mode)
        .clipped(true)
        .old_swapchain(old.as_ref().map_or(vk::SwapchainKHR::null(), |s| s.handle));
    ctx.creation_step("vkCreateSwapchainKHR")?;
    let handle = unsafe { loader.create_swapchain(&info, None) }
        .map_err(vk_error("vkCreateSwapchainKHR"))?;
    let mut swapchain = guard(
        ctx,
        Swapchain {
            loader,
            handle,
            images: Vec::new(),
            format: format.format,
            extent,
            image_available: Vec::new(),
            render_finished: Vec::new(),
        },
    );
    // Recreation happens after a device-wide wait, so nothing still uses it.
    drop(old);
    swapchain.images = unsafe { swapchain.loader.get_swapchain_images(handle) }
        .map_err(vk_error("vkGetSwapchainImagesKHR"))?;
    debug::set_name(
        ctx,
        handle,
        &format!("swapchain {}x{}", extent.width, extent.height),
    );
    for (i, &image) in swapchain.images.iter().enumerate() {
        debug::set_name(ctx, image, &format!("swapchain image {i}"));
    }
    for slot in 0..FRAMES_IN_FLIGHT {
        let semaphore = create_semaphore(ctx, &format!("frame {slot} image available"))?;
        swapchain.image_available.push(semaphore);
    }
    for i in 0..swapchain.images.len() {
        let semaphore = create_semaphore(ctx, &format!("swapchain image {i} render finished"))?;
        swapchain.render_finished.push(semaphore);
    }
    log::info!(
        "swapchain: {}x{} {:?} {:?}, {} images",
        extent.width,
        extent.height,
        format.format,
        present_mode,
        swapchain.images.len()
    );
    Ok(Some(swapchain.keep()))
}

impl Destroy for Swapchain {
    fn destroy(self, ctx: &Context) {
        self.image_available.destroy(ctx);
        self.render_finished.destroy(ctx);
        unsafe { self.loader.destroy_swapchain(self.handle, None) };
    }
}

pub fn acquire(swapchain: &Swapchain, slot: usize) -> Result<Acquired, GpuError> {
    let result = unsafe {
        swapchain.loader.acquire_next_image(
            swapchain.handle,
            ACQUIRE_TIMEOUT.as_nanos() as u64,
            swapchain.image_available[slot],
            vk::Fence::null(),
        )
    };
    match result {
        Ok((index, suboptimal)) => Ok(Acquired::Image { index, suboptimal }),
        Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::OutOfDate),
        // Neither signals the semaphore, so the skipped frame waits on nothing.
        Err(vk::Result::TIMEOUT | vk::Result::NOT_READY) => {
            log::warn!(
                "the window system gave no swapchain image back within {ACQUIRE_TIMEOUT:?}: \
                 skipping the frame and recreating the swapchain"
            );
            Ok(Acquired::OutOfDate)
        }
        Err(result) => Err(GpuError::Vulkan {
            call: "vkAcquireNextImageKHR",
            result,
        }),
    }
}

/// Queues image `index` for presentation once its rendering finished.
/// Returns whether the swapchain should be recreated.
pub fn present(ctx: &Context, swapchain: &Swapchain, index: u32) -> Result<bool, GpuError> {
    let wait = [swapchain.render_finished[index as usize]];
    let swapchains = [swapchain.handle];
    let indices = [index];
    let info = vk::PresentInfoKHR::default()
        .wait_semaphores(&wait)
        .swapchains(&swapchains)
        .image_indices(&indices);
    match unsafe { swapchain.loader.queue_present(ctx.queue, &info) } {
        Ok(suboptimal) => Ok(suboptimal),
        Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(true),
        Err(result) => Err(GpuError::Vulkan {
            call: "vkQueuePresentKHR",
            result,
        }),
    }
}

/// FIFO (vsync) is the only mode every driver has. Without vsync, MAILBOX
/// (newest frame wins, no tearing) beats IMMEDIATE (tears).
fn choose_present_mode(available: &[vk::PresentModeKHR], vsync: bool) -> vk::PresentModeKHR {
    if vsync {
        return vk::PresentModeKHR::FIFO;
    }
    [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE]
        .into_iter()
        .find(|mode| available.contains(mode))
        .unwrap_or(vk::PresentModeKHR::FIFO)
}

fn surface_capabilities(ctx: &Context) -> Result<vk::SurfaceCapabilitiesKHR, GpuError> {
    let surface = ctx
        .surface
        .as_ref()
        .expect("a swapchain needs a context created with a window");
    unsafe {
        surface
            .loader
            .get_physical_device_surface_capabilities(ctx.physical_device, surface.handle)
    }
    .map_err(vk_error("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))
}

fn create_semaphore(ctx: &Context, name: &str) -> Result<vk::Semaphore, GpuError> {
    ctx.creation_step("vkCreateSemaphore")?;
    let semaphore = unsafe {
        ctx.device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
    }
    .map_err(vk_error("vkCreateSemaphore"))?;
    debug::set_name(ctx, semaphore, name);
    Ok(semaphore)
}
