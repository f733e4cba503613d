//! `--exercise-window`: the script the window test drives the window with.

use std::time::{Duration, Instant};

use winit::dpi::PhysicalSize;
use winit::window::Window;

/// `--exercise-window`, the window test's driver: two resizes, then a
/// minimisation, at fixed frame counts. A bare X server (Xvfb, no window
/// manager) ignores minimise requests, so the exercise also holds the app
/// in its minimised state for a while itself: what runs then is the same
/// code a real minimisation runs (no swapchain, no frames, no spinning).
#[derive(Default)]
pub(super) struct Exercise {
    pub(super) step: usize,
    pub(super) minimised_since: Option<Instant>,
    pub(super) idle_wakeups: u32,
}

impl Exercise {
    const FIRST_RESIZE: (u32, PhysicalSize<u32>) = (3, PhysicalSize::new(640, 360));
    const SECOND_RESIZE: (u32, PhysicalSize<u32>) = (6, PhysicalSize::new(1000, 400));
    const MINIMISE_AT: u32 = 9;
    const MINIMISED_FOR: Duration = Duration::from_millis(300);

    /// Advances the script; returns a size change the app must handle as if
    /// the window system had reported it.
    pub(super) fn step(&mut self, window: &Window, frames_drawn: u32) -> Option<PhysicalSize<u32>> {
        match self.step {
            0 | 1 => {
                let (at, size) = [Self::FIRST_RESIZE, Self::SECOND_RESIZE][self.step];
                if frames_drawn >= at {
                    log::info!("exercise: resize to {}x{}", size.width, size.height);
                    // The real Resized event follows from the window system.
                    let _ = window.request_inner_size(size);
                    self.step += 1;
                }
                None
            }
            2 if frames_drawn >= Self::MINIMISE_AT => {
                log::info!("exercise: minimise");
                window.set_minimized(true);
                self.minimised_since = Some(Instant::now());
                self.step += 1;
                Some(PhysicalSize::new(0, 0))
            }
            3 if self
                .minimised_since
                .is_some_and(|t| t.elapsed() >= Self::MINIMISED_FOR) =>
            {
                log::info!("exercise: restore");
                window.set_minimized(false);
                self.minimised_since = None;
                self.step += 1;
                Some(window.inner_size())
            }
            _ => None,
        }
    }

    pub(super) fn wake_at(&self) -> Instant {
        self.minimised_since
            .map_or_else(Instant::now, |t| t + Self::MINIMISED_FOR)
    }
}
