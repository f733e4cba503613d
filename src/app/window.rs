//! The interactive window (winit 0.30 `ApplicationHandler`): renders
//! continuously, recreates the swapchain when the window changes, and stops
//! rendering (and waiting on the GPU) while it is minimised.
//!
//! Input is mapped in [`super::controls`], which also lists the controls.
//! The title shows the frame's costs (see [`super::title`]).
//!
//! This file holds the events and the key dispatch; what exists while the
//! window is open is in `live`, the frames and the swapchain in `draw`, the
//! crowd and model rebuilds in `rebuild`, and `--exercise-window`'s script
//! in `exercise`.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::WindowId;

use super::controls::{self, Action};
use super::crowd_state::CrowdSpec;
use super::load::Cast;
use super::overlay::OverlayView;
use super::title::{self, Averages};
use super::{AppError, RenderArgs};
use crate::gpu::debug::MessageCounts;
use crate::gpu::frame_loop::Shadows;
use crate::skin::InfluenceLimit;
use live::Live;

mod draw;
mod exercise;
mod live;
mod rebuild;

/// Radians of orbit per pixel dragged.
const ORBIT_SPEED: f32 = 0.008;
/// Distance factor per wheel line.
const ZOOM_STEP: f32 = 0.9;

/// Loads the models again with another influence limit (the `I` key).
pub type Reload<'a> = &'a dyn Fn(InfluenceLimit) -> Result<Cast, AppError>;

pub fn run(
    args: &RenderArgs,
    model: Rc<Cast>,
    spec: CrowdSpec,
    reload: Reload,
) -> Result<Option<Arc<MessageCounts>>, AppError> {
    let event_loop = EventLoop::new().map_err(|e| AppError::Window(e.to_string()))?;
    let mut app = App {
        args,
        model: Some(model),
        reload,
        spec,
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
    /// What the window draws, until it opens (its scene holds it then).
    model: Option<Rc<Cast>>,
    reload: Reload<'a>,
    /// The crowd to start with.
    spec: CrowdSpec,
    /// Exists between `resumed` and exit.
    live: Option<Live>,
    /// The first error ends the loop; with validation on, the counters.
    outcome: Result<Option<Arc<MessageCounts>>, AppError>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Drag {
    Orbit,
    Pan,
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let Some(model) = self.model.take() else {
            return; // already open
        };
        match Live::new(event_loop, self.args, model, self.spec) {
            Ok(live) => self.live = Some(live),
            Err(error) => self.fail(error, event_loop),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match self.handle(event, event_loop) {
            Err(error) => self.fail(error, event_loop),
            Ok(()) => {
                let frames_drawn = self.live.as_ref().map(|live| live.frames_drawn);
                if let (Some(n), Some(drawn)) = (self.args.frames, frames_drawn) {
                    if drawn >= n {
                        event_loop.exit();
                    }
                }
            }
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

impl App<'_> {
    /// Handles a window event.
    fn handle(&mut self, event: WindowEvent, event_loop: &ActiveEventLoop) -> Result<(), AppError> {
        if matches!(event, WindowEvent::RedrawRequested) {
            // The overlay's clicks act before the frame they change.
            for action in self
                .live
                .as_mut()
                .map(Live::run_overlay)
                .unwrap_or_default()
            {
                self.act(action, event_loop)?;
            }
        }
        let Some(live) = self.live.as_mut() else {
            return Ok(());
        };
        // egui takes the pointer over its panel and the keys while a text
        // field has focus; the camera and the shortcuts get the rest.
        let taken_by_overlay = live.overlay.shown
            && live
                .overlay_input
                .on_window_event(&live.window, &event)
                .consumed;
        match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                live.on_resize(size);
                Ok(())
            }
            WindowEvent::KeyboardInput {
                event,
                is_synthetic,
                ..
            } if !taken_by_overlay => {
                // Synthetic presses stand for keys already down when the
                // window gained focus: held fly keys, not new actions.
                if !live.fly.update(&event)
                    && event.state == ElementState::Pressed
                    && !event.repeat
                    && !is_synthetic
                {
                    if let Some(action) = controls::action_for(&event.logical_key) {
                        return self.act(action, event_loop);
                    }
                }
                Ok(())
            }
            WindowEvent::Focused(false) => {
                live.fly.release_all();
                live.drag = None;
                Ok(())
            }
            WindowEvent::MouseInput { button, state, .. } => {
                let drag = match button {
                    MouseButton::Left => Some(Drag::Orbit),
                    MouseButton::Right | MouseButton::Middle => Some(Drag::Pan),
                    _ => None,
                };
                match (drag, state) {
                    (Some(drag), ElementState::Pressed) if !taken_by_overlay => {
                        live.drag = Some((drag, live.cursor))
                    }
                    (Some(drag), ElementState::Released)
                        if live.drag.is_some_and(|(held, _)| held == drag) =>
                    {
                        live.drag = None
                    }
                    _ => {}
                }
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some((drag, from)) = live.drag {
                    let (dx, dy) = ((position.x - from.x) as f32, (position.y - from.y) as f32);
                    match drag {
                        Drag::Orbit => live.scene.camera.orbit(-dx * ORBIT_SPEED, dy * ORBIT_SPEED),
                        Drag::Pan => {
                            let height = live.window.inner_size().height.max(1) as f32;
                            live.scene.camera.pan(dx, dy, height);
                        }
                    }
                    live.drag = Some((drag, position));
                }
                live.cursor = position;
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } if !taken_by_overlay => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                live.scene.camera.zoom(ZOOM_STEP.powf(lines));
                Ok(())
            }
            WindowEvent::RedrawRequested => live.draw(self.args),
            _ => Ok(()),
        }
    }

    /// The first error ends the loop; it is what [`run`] returns.
    fn fail(&mut self, error: AppError, event_loop: &ActiveEventLoop) {
        self.outcome = Err(error);
        event_loop.exit();
    }

    /// Handles a key's or the overlay's action.
    fn act(&mut self, action: Action, event_loop: &ActiveEventLoop) -> Result<(), AppError> {
        let Some(live) = self.live.as_mut() else {
            return Ok(());
        };
        let clip_count = live.scene.crowd.clip_names.len();
        let play = |live: &mut Live, clip: Option<u32>| match clip {
            Some(clip) if (clip as usize) < clip_count => {
                live.scene.crowd.play(clip, None, live.scene.time)
            }
            Some(clip) => log::warn!("no clip {}: the models have {clip_count}", clip + 1),
            None => log::warn!("no model has clips"),
        };
        match action {
            Action::Quit => event_loop.exit(),
            Action::Pause => live.paused = !live.paused,
            Action::PreviousClip => play(live, live.scene.crowd.stepped_clip(-1)),
            Action::NextClip => play(live, live.scene.crowd.stepped_clip(1)),
            Action::NextLayerClip => live.scene.crowd.step_layer_clip(0, 1),
            Action::LayerClip { layer, clip } => {
                live.scene.crowd.play_layer_clip(layer as usize, clip);
            }
            Action::LayerWeight { layer, weight } => {
                live.scene.crowd.set_layer_weight(layer as usize, weight);
            }
            Action::Clip(clip) => play(live, Some(clip)),
            Action::SetInstances(count) => {
                live.resize_crowd(count)?;
            }
            Action::MixClips => {
                let spec = CrowdSpec {
                    clip: None,
                    ..live.scene.crowd.spec
                };
                let shares = live.scene.crowd.shares.clone();
                live.rebuild_crowd(spec, &shares)?;
            }
            Action::ModelClip { model, clip } => {
                let crowd = &mut live.scene.crowd;
                if crowd.model_picks(model as usize).any(|pick| pick == clip) {
                    crowd.play(clip, Some(model as usize), live.scene.time);
                } else {
                    log::warn!("model {} has no clip {}", model + 1, clip + 1);
                }
            }
            Action::ModelShare { model, share } => {
                let mut shares = live.scene.crowd.shares.clone();
                match shares.get_mut(model as usize) {
                    Some(weight) => *weight = share.max(0.0),
                    None => log::warn!("no model {}", model + 1),
                }
                if shares.iter().sum::<f32>() <= 0.0 {
                    log::warn!("every model's share would be 0: the crowd stays as it is");
                } else {
                    live.rebuild_crowd(live.scene.crowd.spec, &shares)?;
                }
            }
            Action::BlendTime(seconds) => live.scene.crowd.spec.blend_time = seconds,
            Action::TimeScale(scale) => live.time_scale = scale,
            Action::LodBias(bias) => {
                live.lod_bias = bias;
                let view = &mut live.scene.view;
                view.lod_bias = view.lod_bias.map(|_| bias);
            }
            Action::AnimationLod => live.scene.view.anim_lod = !live.scene.view.anim_lod,
            Action::LodInfluences => {
                live.scene.view.lod_influences = !live.scene.view.lod_influences;
            }
            Action::FreezeCulling => live.scene.toggle_frozen_culling(),
            Action::Overlay => live.overlay.shown = !live.overlay.shown,
            Action::DoubleCrowd => {
                let count = live.scene.crowd.spec.instances.saturating_mul(2);
                live.resize_crowd(count)?;
            }
            Action::HalveCrowd => {
                let count = (live.scene.crowd.spec.instances / 2).max(1);
                live.resize_crowd(count)?;
            }
            Action::Skeleton => live.scene.view.show_skeleton = !live.scene.view.show_skeleton,
            Action::Skinning => live.scene.view.skinning = live.scene.view.skinning.toggled(),
            Action::Influences => {
                live.switch_influences(self.reload)?;
            }
            Action::Wireframe if live.ctx.wireframe => {
                live.scene.view.wireframe = !live.scene.view.wireframe
            }
            Action::Wireframe => log::warn!(
                "no wireframe: {} lacks the fillModeNonSolid feature",
                live.ctx.device_name
            ),
            Action::LevelOfDetail => {
                let view = &mut live.scene.view;
                view.lod_bias = match view.lod_bias {
                    Some(_) => None,
                    None => Some(live.lod_bias),
                };
            }
            Action::ShowLod => live.scene.view.show_lod = !live.scene.view.show_lod,
            Action::Occlusion => live.scene.view.occlusion = !live.scene.view.occlusion,
            Action::Impostors => live.scene.view.impostors = !live.scene.view.impostors,
            Action::Msaa => live.toggle_msaa()?,
            Action::Shadows => {
                let view = &mut live.scene.view;
                view.shadows = match view.shadows {
                    Shadows::Map => Shadows::Blob,
                    Shadows::Blob => Shadows::Off,
                    Shadows::Off => Shadows::Map,
                }
            }
            Action::CascadeColors => {
                let view = &mut live.scene.view;
                view.shadow_cascade_colors = !view.shadow_cascade_colors;
            }
            Action::Locomotion => live.toggle_locomotion(self.args),
            Action::ResetCamera => live.frame_crowd(self.args),
            Action::Capture => live.capture.request_next_frame(),
        }
        // The sliders send a value every frame they are dragged.
        let logged = !matches!(
            action,
            Action::Quit
                | Action::BlendTime(_)
                | Action::TimeScale(_)
                | Action::LodBias(_)
                | Action::LayerWeight { .. }
        );
        if let (Some(live), true) = (&self.live, logged) {
            live.log_view();
        }
        Ok(())
    }
}

impl Live {
    /// One line after each key, so a change is on record.
    fn log_view(&self) {
        let view = &self.scene.view;
        let flags = [
            (self.paused, ", paused"),
            (view.show_skeleton, ", skeleton"),
            (view.wireframe, ", wireframe"),
            (view.lod_bias.is_none(), ", LOD off"),
            (view.show_lod, ", LOD tint"),
            (!view.lod_influences, ", all influences at every level"),
            (!view.anim_lod, ", animation LOD off"),
            (self.scene.culling_frozen(), ", culling frozen"),
            (!view.occlusion, ", occlusion off"),
            (!view.impostors, ", impostors off"),
            (self.renderer.samples() < self.msaa, ", MSAA off"),
            (view.shadows == Shadows::Blob, ", blob shadows"),
            (view.shadows == Shadows::Off, ", shadows off"),
            (view.shadow_cascade_colors, ", cascade colours"),
            (self.scene.crowd.walks(), ", walking"),
        ];
        let crowd = &self.scene.crowd;
        // With several models, what each has of the crowd and plays.
        let names = self.scene.cast.names();
        let models = (names.len() > 1).then(|| {
            let model = |(m, name): (usize, &String)| {
                let clip = crowd.common_pick(Some(m));
                let clip = clip.and_then(|c| crowd.clip_names.get(c as usize));
                let clip = clip.map_or("mixed", String::as_str);
                format!("{name} {} ({clip})", crowd.model_instances(m))
            };
            let models: Vec<String> = names.iter().enumerate().map(model).collect();
            format!("; {}", models.join(", "))
        });
        log::info!(
            "clip {}, {} instances, {}, {} influences{}{}",
            crowd.clip_name().unwrap_or("mixed"),
            crowd.spec.instances,
            title::skinning_label(view.skinning, crowd.spec.animation),
            self.scene.cast.models[0].influences().count(),
            flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| *name)
                .collect::<String>(),
            models.unwrap_or_default()
        );
    }

    fn aspect(&self) -> f32 {
        let extent = self.renderer.extent();
        extent.width as f32 / extent.height as f32
    }

    /// Locomotion on or off (off: everyone back on the grid, playing what
    /// they played there); the camera frames where the crowd now goes.
    fn toggle_locomotion(&mut self, args: &RenderArgs) {
        let crowd = &mut self.scene.crowd;
        if crowd.locomotion.is_none() {
            log::warn!("locomotion: some model has no looping clip that moves over the ground");
            return;
        }
        crowd.spec.locomotion = !crowd.spec.locomotion;
        self.frame_crowd(args);
    }

    /// MSAA off, or back on at `--msaa` samples a pixel (as many of them
    /// as the device offers): new targets and pipelines, nothing else.
    fn toggle_msaa(&mut self) -> Result<(), AppError> {
        if self.msaa == 1 {
            log::warn!("MSAA: drawing one sample a pixel, the most --msaa and the device allow");
            return Ok(());
        }
        let wanted = match self.renderer.samples() {
            1 => self.msaa,
            _ => 1,
        };
        self.renderer.set_samples(&self.ctx, wanted)?;
        Ok(())
    }

    /// The start view (`--view`), fitted to the crowd.
    fn frame_crowd(&mut self, args: &RenderArgs) {
        self.scene.camera = args
            .view
            .camera(args.draw.camera, &self.scene.crowd, self.aspect());
    }

    /// Every [`title::REFRESH`]: the averages since the last refresh.
    fn refresh_title(&mut self, now: Instant) {
        let Some(averages) = self.meter.report(now) else {
            return;
        };
        let stats = self.title_stats(&averages);
        self.window.set_title(&title::window_title(&stats));
        self.averages = Some(averages);
    }

    fn title_stats(&self, averages: &Averages) -> title::TitleStats {
        let visible = self.visible.unwrap_or_default();
        title::title_stats(averages, &self.scene, visible, &self.renderer)
    }

    /// Lays the overlay out, if shown, for the frame about to be drawn;
    /// returns what its controls asked for.
    fn run_overlay(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        if !self.overlay.shown {
            return actions;
        }
        let input = self.overlay_input.take_egui_input(&self.window);
        let stats = self.averages.as_ref().map(|a| self.title_stats(a));
        let view = OverlayView {
            device: &self.ctx.device_name,
            driver: &self.ctx.driver,
            stats: stats.as_ref(),
            scene: &self.scene,
            paused: self.paused,
            time_scale: self.time_scale,
            lod_bias: self.lod_bias,
            max_instances: self.max_instances,
            capture_available: self.capture.available(),
            wireframe_available: self.ctx.wireframe,
            gpu_memory: self.renderer.memory(),
            impostor_clips: self.renderer.model.impostors.baked_clips(),
            msaa: (self.renderer.samples(), self.msaa),
            palette_rows: self.renderer.palette_rows(),
        };
        let (mut frame, platform_output) = self.overlay.run(input, &view, &mut actions);
        self.overlay_input
            .handle_platform_output(&self.window, platform_output);
        // A frame laid out but never drawn (the window was minimised)
        // still had textures to upload.
        if let Some(undrawn) = self.scene.overlay.take() {
            let mut textures = undrawn.textures;
            textures.append(frame.textures);
            frame.textures = textures;
        }
        self.scene.overlay = Some(frame);
        actions
    }
}
