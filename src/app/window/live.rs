//! What exists while the window is open, made when it opens and torn down
//! in dependency order when it closes (the screenshot saved first).

use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::exercise::Exercise;
use super::Drag;
use crate::app::controls::FlyKeys;
use crate::app::crowd_state::CrowdSpec;
use crate::app::headless::save_png;
use crate::app::load::Cast;
use crate::app::overlay::{self, Overlay};
use crate::app::scene::Scene;
use crate::app::title::{Averages, FrameMeter};
use crate::app::{build_crowd, log_summary, validation, validation_counts, AppError, RenderArgs};
use crate::gpu::capture::FrameCapture;
use crate::gpu::debug::MessageCounts;
use crate::gpu::frame_loop::VisibleCounts;
use crate::gpu::guard::Destroy;
use crate::gpu::renderer::Renderer;
use crate::gpu::resources::Buffer;
use crate::gpu::swapchain::Swapchain;
use crate::gpu::{Context, ContextDesc};

/// Everything that exists while the window is open. Field order is not
/// relied upon: [`Live::destroy`] tears down in dependency order.
pub(super) struct Live {
    pub(super) window: Window,
    pub(super) ctx: Context,
    pub(super) renderer: Renderer,
    /// `None` while the window has no area.
    pub(super) swapchain: Option<Swapchain>,
    pub(super) swapchain_stale: bool,
    pub(super) readback: Option<Buffer>,
    /// The crowd, camera, view switches and animation clock.
    pub(super) scene: Scene,
    pub(super) paused: bool,
    pub(super) last_frame: Instant,
    pub(super) frames_drawn: u32,
    /// What the held mouse button does, and where the cursor was.
    pub(super) drag: Option<(Drag, PhysicalPosition<f64>)>,
    pub(super) cursor: PhysicalPosition<f64>,
    pub(super) fly: FlyKeys,
    pub(super) exercise: Option<Exercise>,
    pub(super) capture: FrameCapture,
    /// Instances the cull pass kept in the last finished frame, per level.
    pub(super) visible: Option<VisibleCounts>,
    pub(super) meter: FrameMeter,
    /// The last refresh interval's averages, for the title and the overlay.
    pub(super) averages: Option<Averages>,
    pub(super) overlay: Overlay,
    /// Window events as egui sees them, while the overlay is shown.
    pub(super) overlay_input: egui_winit::State,
    /// Animation seconds per wall-clock second.
    pub(super) time_scale: f32,
    /// The pixel error level of detail allows, kept while it is off.
    pub(super) lod_bias: f32,
    /// The largest crowd the fit check accepts.
    pub(super) max_instances: u32,
    /// Samples a pixel when MSAA is on: `--msaa`, or as many as the device
    /// offers of it (the M key switches between 1 and this).
    pub(super) msaa: u32,
}

impl Live {
    pub(super) fn new(
        event_loop: &ActiveEventLoop,
        args: &RenderArgs,
        model: Rc<Cast>,
        spec: CrowdSpec,
    ) -> Result<Live, AppError> {
        let attributes = Window::default_attributes()
            .with_title(format!("md5crowd - {}", model.names().join(" + ")))
            .with_inner_size(PhysicalSize::new(args.draw.width, args.draw.height));
        let window = event_loop
            .create_window(attributes)
            .map_err(|e| AppError::Window(e.to_string()))?;
        let display = window
            .display_handle()
            .map_err(|e| AppError::Window(e.to_string()))?;
        let handle = window
            .window_handle()
            .map_err(|e| AppError::Window(e.to_string()))?;
        let capture = FrameCapture::new(args.capture_frame);
        let ctx = Context::new(&ContextDesc {
            validation: validation(args),
            gpu_index: args.draw.gpu,
            window: Some((display.as_raw(), handle.as_raw())),
        })?;
        let size = window.inner_size();
        // Replaced by the swapchain's extent before the first frame.
        let extent = vk::Extent2D {
            width: size.width.max(1),
            height: size.height.max(1),
        };
        let (crowd, renderer) = build_crowd(
            &ctx,
            &model,
            spec,
            (extent, args.msaa),
            // H may switch shadow maps on.
            (&args.draw, true),
        )?;
        log_summary(&ctx, &crowd, &model, renderer.memory());
        let view = args.view_options(&ctx, spec.locomotion);
        // Fitted again to the swapchain's aspect before the first frame.
        let camera = args.view.camera(args.draw.camera, &crowd, 1.0);
        let mut scene = Scene::new(model, crowd, camera, view, 1.0);
        scene.sun = args.draw.towards_sun();
        let max_instances = overlay::crowd_limit(&renderer);
        let renderer_samples = renderer.samples();
        let overlay = Overlay::new(args.overlay);
        let overlay_input = egui_winit::State::new(
            overlay.egui().clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            None,
        );
        Ok(Live {
            window,
            renderer,
            swapchain: None,
            swapchain_stale: true,
            readback: None,
            scene,
            paused: false,
            last_frame: Instant::now(),
            frames_drawn: 0,
            drag: None,
            cursor: PhysicalPosition::default(),
            fly: FlyKeys::default(),
            exercise: args.exercise_window.then(Exercise::default),
            capture,
            visible: None,
            meter: FrameMeter::new(Instant::now()),
            averages: None,
            overlay,
            overlay_input,
            time_scale: 1.0,
            lod_bias: args.draw.lod_bias,
            max_instances,
            msaa: renderer_samples,
            ctx,
        })
    }

    /// Waits for the GPU, saves the screenshot if one was asked for, and
    /// destroys everything before the window goes.
    pub(super) fn destroy(
        mut self,
        args: &RenderArgs,
    ) -> Result<Option<Arc<MessageCounts>>, AppError> {
        let finished = self.renderer.finish(&self.ctx).map_err(AppError::from);
        let saved = match (&self.readback, &args.screenshot) {
            (Some(readback), Some(path)) if finished.is_ok() => {
                save_png(readback, self.renderer.extent(), path)
            }
            _ => Ok(()),
        };
        if let Some(exercise) = &self.exercise {
            log::info!(
                "exercise: {} wakeup(s) while minimised, {} frames drawn",
                exercise.idle_wakeups,
                self.frames_drawn
            );
        }
        self.readback.destroy(&self.ctx);
        self.swapchain.destroy(&self.ctx);
        self.renderer.destroy(&self.ctx);
        let counts = validation_counts(&self.ctx);
        // The surface inside the context must go before the window.
        drop(self.ctx);
        drop(self.window);
        finished?;
        saved?;
        Ok(counts)
    }
}
