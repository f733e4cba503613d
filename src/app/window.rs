//! The interactive window (winit 0.30 `ApplicationHandler`): renders
//! continuously, recreates the swapchain when the window changes, and stops
//! rendering (and waiting on the GPU) while it is minimised.
//!
//! Keys: Esc quits, Space pauses, K toggles the skeleton, L switches between
//! linear and dual quaternion skinning, F12 captures the next frame when
//! running under RenderDoc. Left-drag orbits, the wheel zooms. The title
//! shows the frame's costs (see [`super::title`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::MemoryLocation;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use super::camera::{self, OrbitCamera};
use super::capture::FrameCapture;
use super::crowd_state::CrowdState;
use super::frame_stats::FrameLog;
use super::title::{self, FrameMeter, TitleStats};
use super::{validation, validation_counts, AppError, RenderArgs};
use crate::gpu::debug::MessageCounts;
use crate::gpu::frame::{self, Frame, FRAMES_IN_FLIGHT};
use crate::gpu::passes::crowd_draw::SkinningMode;
use crate::gpu::renderer::{Renderer, RendererDesc};
use crate::gpu::resources::{self, Buffer};
use crate::gpu::swapchain::{self, Acquired, Swapchain};
use crate::gpu::{output, Context, ContextDesc};
use crate::model::Model;

/// Radians of orbit per pixel dragged.
const ORBIT_SPEED: f32 = 0.008;
/// Distance factor per wheel line.
const ZOOM_STEP: f32 = 0.9;

pub fn run(args: &RenderArgs, model: &Model) -> Result<Option<Arc<MessageCounts>>, AppError> {
    if args.screenshot.is_some() && args.frames.is_none() {
        return Err(AppError::Arguments(
            "--screenshot with a window needs --frames (the frame to save is the last one)".into(),
        ));
    }
    let event_loop = EventLoop::new().map_err(|e| AppError::Window(e.to_string()))?;
    let mut app = App {
        args,
        model,
        live: None,
        outcome: Ok(None),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::Window(e.to_string()))?;
    if let Some(live) = app.live.take() {
        // The loop can end without `exiting` on some platforms.
        app.outcome = app.outcome.and(live.destroy(args));
    }
    app.outcome
}

struct App<'a> {
    args: &'a RenderArgs,
    model: &'a Model,
    /// Exists between `resumed` and exit.
    live: Option<Live>,
    /// The first error ends the loop; with validation on, the counters.
    outcome: Result<Option<Arc<MessageCounts>>, AppError>,
}

/// Everything that exists while the window is open. Field order is not
/// relied upon: [`Live::destroy`] tears down in dependency order.
struct Live {
    window: Window,
    ctx: Context,
    renderer: Renderer,
    frames: Vec<Frame>,
    /// `None` while the window has no area.
    swapchain: Option<Swapchain>,
    swapchain_stale: bool,
    readback: Option<Buffer>,
    crowd: CrowdState,
    camera: OrbitCamera,
    skinning_mode: SkinningMode,
    show_skeleton: bool,
    paused: bool,
    animation_time: f32,
    last_frame: Instant,
    frames_drawn: u32,
    drag_from: Option<PhysicalPosition<f64>>,
    cursor: PhysicalPosition<f64>,
    exercise: Option<Exercise>,
    capture: FrameCapture,
    frame_log: FrameLog,
    /// Instances the cull pass kept in the last finished frame.
    visible: u32,
    meter: FrameMeter,
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            return;
        }
        match Live::new(event_loop, self.args, self.model) {
            Ok(live) => self.live = Some(live),
            Err(error) => {
                self.outcome = Err(error);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                live.on_resize(size);
                Ok(())
            }
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(key),
                        state: ElementState::Pressed,
                        repeat: false,
                        ..
                    },
                ..
            } => {
                live.on_key(key, event_loop);
                Ok(())
            }
            WindowEvent::MouseInput {
                button: MouseButton::Left,
                state,
                ..
            } => {
                live.drag_from = (state == ElementState::Pressed).then_some(live.cursor);
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some(from) = live.drag_from {
                    let (dx, dy) = (position.x - from.x, position.y - from.y);
                    live.camera
                        .orbit(-dx as f32 * ORBIT_SPEED, dy as f32 * ORBIT_SPEED);
                    live.drag_from = Some(position);
                }
                live.cursor = position;
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                live.camera.zoom(ZOOM_STEP.powf(lines));
                Ok(())
            }
            WindowEvent::RedrawRequested => live.draw(self.args, self.model),
            _ => Ok(()),
        };
        if let Err(error) = result {
            self.outcome = Err(error);
            event_loop.exit();
        } else if self.args.frames.is_some_and(|n| live.frames_drawn >= n) {
            event_loop.exit();
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if let Some(exercise) = live.exercise.as_mut() {
            if let Some(size) = exercise.step(&live.window, live.frames_drawn) {
                live.on_resize(size);
            }
        }
        if live.minimised() {
            // Nothing to draw into: sleep until the window system (or the
            // exercise's timer) has news, instead of spinning.
            if let Some(exercise) = live.exercise.as_mut() {
                exercise.idle_wakeups += 1;
                event_loop.set_control_flow(ControlFlow::WaitUntil(exercise.wake_at()));
            } else {
                event_loop.set_control_flow(ControlFlow::Wait);
            }
        } else {
            event_loop.set_control_flow(ControlFlow::Poll);
            live.window.request_redraw();
        }
    }

    fn exiting(&mut self, _: &ActiveEventLoop) {
        if let Some(live) = self.live.take() {
            let outcome = std::mem::replace(&mut self.outcome, Ok(None));
            self.outcome = outcome.and(live.destroy(self.args));
        }
    }
}

impl Live {
    fn new(
        event_loop: &ActiveEventLoop,
        args: &RenderArgs,
        model: &Model,
    ) -> Result<Live, AppError> {
        let attributes = Window::default_attributes()
            .with_title(format!("md5crowd - {}", model.mesh_path.display()))
            .with_inner_size(PhysicalSize::new(args.width, args.height));
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
            gpu_index: args.gpu,
            window: Some((display.as_raw(), handle.as_raw())),
        })?;
        log::info!("GPU: {}", ctx.device_name);
        let crowd = CrowdState::new(
            model,
            args.instances,
            args.seed,
            args.animation(),
            args.cpu_skinning,
        );
        let size = window.inner_size();
        let renderer = Renderer::new(
            &ctx,
            model,
            &crowd.placements,
            &RendererDesc {
                // Replaced by the swapchain's extent before the first frame.
                extent: vk::Extent2D {
                    width: size.width.max(1),
                    height: size.height.max(1),
                },
                animation: args.animation(),
                cpu_skinning: args.cpu_skinning,
                memory_budget: args.memory_budget(),
            },
        )?;
        let frames = frame::create_frames(&ctx)?;
        Ok(Live {
            camera: OrbitCamera::framing(&crowd.world_bounds),
            window,
            ctx,
            renderer,
            frames,
            swapchain: None,
            swapchain_stale: true,
            readback: None,
            crowd,
            skinning_mode: args.skinning,
            show_skeleton: args.skeleton,
            paused: false,
            animation_time: 0.0,
            last_frame: Instant::now(),
            frames_drawn: 0,
            drag_from: None,
            cursor: PhysicalPosition::default(),
            exercise: args.exercise_window.then(Exercise::default),
            capture,
            frame_log: FrameLog::default(),
            visible: args.instances,
            meter: FrameMeter::new(Instant::now()),
        })
    }

    fn minimised(&self) -> bool {
        let size = self.window.inner_size();
        let simulated = self
            .exercise
            .as_ref()
            .is_some_and(|e| e.minimised_since.is_some());
        size.width == 0 || size.height == 0 || self.window.is_minimized() == Some(true) || simulated
    }

    fn on_resize(&mut self, size: PhysicalSize<u32>) {
        log::debug!("window resized to {}x{}", size.width, size.height);
        self.swapchain_stale = true;
    }

    fn on_key(&mut self, key: KeyCode, event_loop: &ActiveEventLoop) {
        match key {
            KeyCode::Escape => event_loop.exit(),
            KeyCode::Space => self.paused = !self.paused,
            KeyCode::KeyK => self.show_skeleton = !self.show_skeleton,
            KeyCode::KeyL => {
                self.skinning_mode = self.skinning_mode.toggled();
                log::info!("skinning: {:?}", self.skinning_mode);
            }
            KeyCode::F12 => self.capture.request_next_frame(),
            _ => {}
        }
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
        self.swapchain = Some(swapchain::create_swapchain(
            &self.ctx,
            extent,
            !args.no_vsync,
            old,
        )?);
        if extent != self.renderer.extent {
            self.renderer.resize(&self.ctx, extent)?;
        }
        self.swapchain_stale = false;
        Ok(true)
    }

    fn draw(&mut self, args: &RenderArgs, model: &Model) -> Result<(), AppError> {
        if self.minimised() || !self.ensure_swapchain(args)? {
            return Ok(());
        }
        let slot = self.frames_drawn as usize % FRAMES_IN_FLIGHT;
        frame::wait(&self.ctx, &self.frames[slot])?;
        if self.frames_drawn as usize >= FRAMES_IN_FLIGHT {
            self.visible = self.renderer.visible_count(slot);
        }
        if let Some(measured) = self
            .frame_log
            .collect(&self.ctx, &mut self.renderer, slot)?
        {
            if args.print_timings {
                println!("{measured}");
            }
            self.meter.add(&measured);
        }
        let Some(swapchain) = &self.swapchain else {
            return Ok(());
        };
        let image = match swapchain::acquire(swapchain, slot)? {
            Acquired::Image { index, suboptimal } => {
                // Still drawn: the acquire semaphore is signalled and must be
                // waited on. Recreated after presenting.
                self.swapchain_stale |= suboptimal;
                index
            }
            Acquired::OutOfDate => {
                self.swapchain_stale = true;
                return Ok(());
            }
        };

        let now = Instant::now();
        if !self.paused {
            self.animation_time += (now - self.last_frame).as_secs_f32();
        }
        self.last_frame = now;
        self.crowd.animate(model, self.animation_time);

        let last = args.frames.is_some_and(|n| self.frames_drawn + 1 == n);
        if last && args.screenshot.is_some() && self.readback.is_none() {
            let extent = self.renderer.extent;
            self.readback = Some(resources::create_buffer(
                &self.ctx,
                "screenshot readback",
                u64::from(extent.width) * u64::from(extent.height) * 4,
                vk::BufferUsageFlags::TRANSFER_DST,
                MemoryLocation::GpuToCpu,
            )?);
        }

        self.capture
            .begin_frame(&self.ctx, u64::from(self.frames_drawn));
        let cpu_start = Instant::now();
        let frame = &self.frames[slot];
        let cmd = frame::begin(&self.ctx, frame)?;
        let extent = self.renderer.extent;
        self.renderer.record(
            &self.ctx,
            cmd,
            slot,
            &self.crowd.frame_input(
                camera::frame_uniforms(&self.camera, extent.width as f32 / extent.height as f32),
                self.skinning_mode,
                self.show_skeleton,
            ),
        );
        output::record_blit_to_swapchain(
            &self.ctx,
            cmd,
            &self.renderer.color,
            swapchain.images[image as usize],
        );
        if let (true, Some(readback)) = (last, &self.readback) {
            output::record_readback(&self.ctx, cmd, &self.renderer.color, readback);
        }
        frame::submit(
            &self.ctx,
            frame,
            Some((
                swapchain.image_available[slot],
                vk::PipelineStageFlags2::BLIT,
            )),
            Some(swapchain.render_finished[image as usize]),
        )?;
        self.frame_log
            .submitted(slot, u64::from(self.frames_drawn), cpu_start.elapsed());
        self.swapchain_stale |= swapchain::present(&self.ctx, swapchain, image)?;
        self.capture.end_frame(&self.ctx);
        self.frames_drawn += 1;
        self.refresh_title(args, model, now);
        Ok(())
    }

    /// Every [`title::REFRESH`]: the averages since the last refresh.
    fn refresh_title(&mut self, args: &RenderArgs, model: &Model, now: Instant) {
        let Some(averages) = self.meter.report(now) else {
            return;
        };
        let total = self.crowd.instances.len() as u32;
        let visible = self.visible;
        let clip = self
            .crowd
            .instances
            .first()
            .and_then(|focus| model.clips.get(focus.clip as usize))
            .map_or("bind pose", |clip| clip.name.as_str());
        self.window.set_title(&title::window_title(&TitleStats {
            fps: averages.fps,
            cpu_ms: averages.cpu_ms,
            gpu: averages.gpu,
            visible_instances: visible,
            total_instances: total,
            triangles: u64::from(visible) * model.triangle_count() as u64,
            clip,
            skinning: title::skinning_label(self.skinning_mode, args.cpu_skinning),
        }));
    }

    /// Waits for the GPU, saves the screenshot if one was asked for, and
    /// destroys everything before the window goes.
    fn destroy(self, args: &RenderArgs) -> Result<Option<Arc<MessageCounts>>, AppError> {
        let idle = self.ctx.wait_idle().map_err(AppError::from);
        let saved = match (&self.readback, &args.screenshot) {
            (Some(readback), Some(path)) if idle.is_ok() => {
                super::headless::save_png(readback, self.renderer.extent, path)
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
        if let Some(readback) = self.readback {
            resources::destroy_buffer(&self.ctx, readback);
        }
        if let Some(swapchain) = self.swapchain {
            swapchain::destroy_swapchain(&self.ctx, swapchain);
        }
        frame::destroy_frames(&self.ctx, self.frames);
        self.renderer.destroy(&self.ctx);
        let counts = validation_counts(&self.ctx);
        // The surface inside the context must go before the window.
        drop(self.ctx);
        drop(self.window);
        idle?;
        saved?;
        Ok(counts)
    }
}

/// `--exercise-window`, the window test's driver: two resizes, then a
/// minimisation, at fixed frame counts. A bare X server (Xvfb, no window
/// manager) ignores minimise requests, so the exercise also holds the app
/// in its minimised state for a while itself: what runs then is the same
/// code a real minimisation runs (no swapchain, no frames, no spinning).
#[derive(Default)]
struct Exercise {
    step: usize,
    minimised_since: Option<Instant>,
    idle_wakeups: u32,
}

impl Exercise {
    const FIRST_RESIZE: (u32, PhysicalSize<u32>) = (3, PhysicalSize::new(640, 360));
    const SECOND_RESIZE: (u32, PhysicalSize<u32>) = (6, PhysicalSize::new(1000, 400));
    const MINIMISE_AT: u32 = 9;
    const MINIMISED_FOR: Duration = Duration::from_millis(300);

    /// Advances the script; returns a size change the app must handle as if
    /// the window system had reported it.
    fn step(&mut self, window: &Window, frames_drawn: u32) -> Option<PhysicalSize<u32>> {
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

    fn wake_at(&self) -> Instant {
        self.minimised_since
            .map_or_else(Instant::now, |t| t + Self::MINIMISED_FOR)
    }
}
