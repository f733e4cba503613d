//! The window's frames: the swapchain kept to the window's size, nothing
//! drawn while it is minimised, and each frame drawn through the one frame
//! loop, the last one read back when a screenshot was asked for.

use std::time::Instant;

use ash::vk;
use winit::dpi::PhysicalSize;

use super::Live;
use crate::app::headless::screenshot_readback;
use crate::app::{AppError, RenderArgs};
use crate::gpu::frame_loop::Destination;
use crate::gpu::guard::Destroy;
use crate::gpu::swapchain;

/// Fly speed, in orbit distances per second.
const FLY_SPEED: f32 = 0.6;

impl Live {
    pub(super) fn minimised(&self) -> bool {
        let size = self.window.inner_size();
        let simulated = self
            .exercise
            .as_ref()
            .is_some_and(|e| e.minimised_since.is_some());
        size.width == 0 || size.height == 0 || self.window.is_minimized() == Some(true) || simulated
    }

    pub(super) fn on_resize(&mut self, size: PhysicalSize<u32>) {
        log::debug!("window resized to {}x{}", size.width, size.height);
        self.swapchain_stale = true;
    }

    /// Makes the swapchain match the window; false while there is nothing
    /// to present to.
    fn ensure_swapchain(&mut self, args: &RenderArgs) -> Result<bool, AppError> {
        if !self.swapchain_stale && self.swapchain.is_some() {
            return Ok(true);
        }
        let size = self.window.inner_size();
        let window_extent = vk::Extent2D {
            width: size.width,
            height: size.height,
        };
        let extent = swapchain::surface_extent(&self.ctx, window_extent)?;
        if extent.width == 0 || extent.height == 0 {
            return Ok(false);
        }
        // Frames in flight still read the swapchain images and targets.
        self.ctx.wait_idle()?;
        let old = self.swapchain.take();
        // Sized by the surface as it is now, which may differ from the
        // window size read above: X11 reports resizes late.
        let Some(swapchain) =
            swapchain::create_swapchain(&self.ctx, window_extent, !args.no_vsync, old)?
        else {
            return Ok(false);
        };
        let extent = swapchain.extent;
        self.swapchain = Some(swapchain);
        if extent != self.renderer.extent() {
            self.renderer.resize(&self.ctx, extent)?;
            // A screenshot readback is sized to the image.
            if let Some(readback) = self.readback.take() {
                readback.destroy(&self.ctx);
            }
        }
        if self.frames_drawn == 0 {
            self.frame_crowd(args);
        }
        self.swapchain_stale = false;
        Ok(true)
    }

    pub(super) fn draw(&mut self, args: &RenderArgs) -> Result<(), AppError> {
        if self.minimised() || !self.ensure_swapchain(args)? {
            return Ok(());
        }
        let Some(swapchain) = &self.swapchain else {
            return Ok(());
        };
        let now = Instant::now();
        let elapsed = (now - self.last_frame).as_secs_f32();
        self.last_frame = now;
        if !self.paused {
            self.scene.time += elapsed * self.time_scale;
        }
        self.scene
            .camera
            .fly(self.fly.direction() * FLY_SPEED * elapsed);
        self.scene.aspect = self.aspect();

        let last = args.frames.is_some_and(|n| self.frames_drawn + 1 == n);
        if last && args.screenshot.is_some() && self.readback.is_none() {
            self.readback = Some(screenshot_readback(&self.ctx, self.renderer.extent())?);
        }
        let report = self.renderer.draw_frame(
            &self.ctx,
            Destination::Present(swapchain),
            self.readback.as_ref().filter(|_| last),
            &mut self.capture,
            &mut self.scene,
        )?;
        self.swapchain_stale |= report.swapchain_stale;
        if let Some(visible) = report.visible {
            self.visible = Some(visible);
        }
        if let Some(measured) = &report.finished {
            if args.print_timings {
                println!("{measured}");
            }
            self.meter.add(measured);
        }
        super::super::log_first_frame(&self.scene.cast, &mut self.renderer);
        if report.drawn {
            self.frames_drawn += 1;
            self.overlay.add_frame_time(elapsed);
            self.refresh_title(now);
        }
        Ok(())
    }
}
