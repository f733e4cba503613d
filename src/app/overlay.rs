//! The demo's own overlay (F1, `--overlay`): a panel on the left with the
//! live statistics, a graph of the last seconds' frame times and every
//! control of the window. Built with egui each frame it is shown; its
//! clicks come back as the same [`Action`]s the keys produce, so each
//! control has one implementation (in the window). Hidden, it costs
//! nothing: egui is not run and no pass is recorded.

use crate::gpu::memory::MemoryReport;
use std::collections::VecDeque;

use egui::{Color32, RawInput, Stroke};

use super::controls::Action;
use super::overlay_layers;
use super::scene::Scene;
use super::title::TitleStats;
use crate::gpu::frame_loop::Shadows;
use crate::gpu::passes::overlay::OverlayFrame;
use crate::gpu::renderer::Renderer;
use crate::gpu::GpuError;
use crate::skin::{InfluenceLimit, SkinningMethod};

/// The panel's width in points, margins included; the screen left of it
/// is the panel's, the rest the scene's.
pub const PANEL_WIDTH: f32 = 300.0;

/// Seconds of frame times the graph shows.
const GRAPH_SECONDS: f64 = 5.0;
/// The graph's height in points, and the frame time at its top.
const GRAPH_HEIGHT: f32 = 60.0;
const GRAPH_TOP_MS: f32 = 50.0;
/// A 60 Hz display's frame: the graph's reference line.
const TARGET_FRAME_MS: f32 = 1000.0 / 60.0;
/// The end of a model's share slider: a weight (`--mix`), so ten times
/// another model's default share of 1.
const MAX_SHARE: f32 = 10.0;

/// What the overlay shows and whose switches it sets.
pub struct OverlayView<'a> {
    pub device: &'a str,
    pub driver: &'a str,
    /// The window title's numbers; `None` until a refresh interval's
    /// frames were measured.
    pub stats: Option<&'a TitleStats>,
    pub scene: &'a Scene,
    pub paused: bool,
    pub time_scale: f32,
    /// The pixel error level of detail allows, while it is on or off.
    pub lod_bias: f32,
    /// The largest crowd the fit check accepts.
    pub max_instances: u32,
    /// This process runs under RenderDoc.
    pub capture_available: bool,
    /// The device can draw wireframe.
    pub wireframe_available: bool,
    /// Device memory now, and the skinning palette's rows (see
    /// `Renderer::memory`, `Renderer::palette_rows`).
    pub gpu_memory: MemoryReport,
    pub palette_rows: Option<u32>,
    /// Clips the impostor atlases hold baked now, and room for (every
    /// model's): a far character whose clip is not baked is a mesh.
    pub impostor_clips: (usize, usize),
    /// Samples a pixel drawn now, and with MSAA on (`--msaa`, clamped).
    pub msaa: (u32, u32),
}

/// The largest crowd the renderer's fit check accepts: the slider's end.
pub fn crowd_limit(renderer: &Renderer) -> u32 {
    match renderer.check_crowd_fits(u32::MAX) {
        Err(GpuError::CrowdTooLarge { fits, .. }) => u32::try_from(fits).unwrap_or(u32::MAX),
        _ => u32::MAX,
    }
}

pub struct Overlay {
    pub shown: bool,
    egui: egui::Context,
    /// Wall-clock seconds since the first frame and milliseconds, per frame,
    /// for the last [`GRAPH_SECONDS`].
    frame_times: VecDeque<(f64, f32)>,
    clock: f64,
    /// The crowd size on the slider while it is dragged: the crowd is
    /// rebuilt once, on release (see [`slider_acting_once`]).
    dragged_instances: Option<u32>,
    /// A model's share on its slider while it is dragged, likewise.
    dragged_share: Option<(usize, f32)>,
}

impl Overlay {
    pub fn new(shown: bool) -> Overlay {
        Overlay {
            shown,
            egui: egui::Context::default(),
            frame_times: VecDeque::new(),
            clock: 0.0,
            dragged_instances: None,
            dragged_share: None,
        }
    }

    /// The context egui-winit feeds in the window.
    pub fn egui(&self) -> &egui::Context {
        &self.egui
    }

    /// One frame took `seconds` of wall-clock time.
    pub fn add_frame_time(&mut self, seconds: f32) {
        self.clock += f64::from(seconds);
        self.frame_times.push_back((self.clock, seconds * 1e3));
        while let Some(&(at, _)) = self.frame_times.front() {
            if self.clock - at <= GRAPH_SECONDS {
                break;
            }
            self.frame_times.pop_front();
        }
    }

    /// Lays the panel out for `input` (the window's events, or headless
    /// just the screen), appends what its controls asked for to `actions`,
    /// and returns the triangles to draw and egui's requests to the window
    /// (cursor shape).
    pub fn run(
        &mut self,
        input: RawInput,
        view: &OverlayView,
        actions: &mut Vec<Action>,
    ) -> (OverlayFrame, egui::PlatformOutput) {
        let egui = self.egui.clone();
        let output = egui.run_ui(input, |ui| {
            let frame = egui::Frame::side_top_panel(ui.style())
                .fill(Color32::from_rgba_unmultiplied(20, 22, 28, 230));
            egui::Panel::left("md5crowd overlay")
                .exact_size(PANEL_WIDTH)
                .resizable(false)
                .frame(frame)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        self.panel(ui, view, actions);
                    });
                });
        });
        let frame = OverlayFrame {
            primitives: egui.tessellate(output.shapes, output.pixels_per_point),
            textures: output.textures_delta,
            pixels_per_point: output.pixels_per_point,
        };
        (frame, output.platform_output)
    }

    fn panel(&mut self, ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
        ui.heading("md5crowd");
        ui.label("F1 hides this panel");
        // The controls come first, so they stay where they are whatever
        // the statistics below them say.
        ui.separator();
        controls(ui, view, actions);
        self.crowd_size(ui, view, actions);
        overlay_layers::layer_rows(ui, view, actions);
        if view.scene.cast.models.len() > 1 {
            ui.separator();
            self.models(ui, view, actions);
        }
        ui.separator();
        statistics(ui, view);
        ui.separator();
        ui.label("frame time, last 5 s");
        self.frame_time_graph(ui);
    }

    fn crowd_size(&mut self, ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
        let current = view.scene.crowd.spec.instances;
        let (_, released) = slider_acting_once(ui, &mut self.dragged_instances, current, |n| {
            egui::Slider::new(n, 1..=view.max_instances.max(1))
                .logarithmic(true)
                .text("instances")
        });
        if let Some(instances) = released {
            actions.push(Action::SetInstances(instances));
        }
    }

    /// Per model of a mixed crowd: its share of the crowd (a weight, as
    /// `--mix` gives it) and the clip its instances play.
    fn models(&mut self, ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
        let crowd = &view.scene.crowd;
        let names = view.scene.cast.names();
        egui::Grid::new("model controls").show(ui, |ui| {
            // Name, share and clip side by side in the panel's width.
            ui.spacing_mut().slider_width = 70.0;
            for (m, name) in names.iter().enumerate() {
                ui.label(name.as_str())
                    .on_hover_text(format!("{} instances", crowd.model_instances(m)));
                let mut held = self.dragged_share.filter(|&(d, _)| d == m).map(|(_, s)| s);
                let (response, released) =
                    slider_acting_once(ui, &mut held, crowd.shares[m], |s| {
                        egui::Slider::new(s, 0.0..=MAX_SHARE).fixed_decimals(1)
                    });
                response.on_hover_text("share of the crowd (--mix)");
                match held {
                    Some(share) => self.dragged_share = Some((m, share)),
                    None if self.dragged_share.is_some_and(|(d, _)| d == m) => {
                        self.dragged_share = None
                    }
                    None => {}
                }
                if let Some(share) = released {
                    actions.push(Action::ModelShare {
                        model: m as u32,
                        share,
                    });
                }
                let playing = crowd.common_pick(Some(m));
                let selected = playing
                    .and_then(|pick| crowd.clip_names.get(pick as usize))
                    .map_or("mixed", String::as_str);
                egui::ComboBox::from_id_salt(("model clip", m))
                    .width(70.0)
                    .selected_text(selected)
                    .show_ui(ui, |ui| {
                        for pick in crowd.model_picks(m) {
                            let name = crowd.clip_names[pick as usize].as_str();
                            if ui.selectable_label(playing == Some(pick), name).clicked() {
                                actions.push(Action::ModelClip {
                                    model: m as u32,
                                    clip: pick,
                                });
                            }
                        }
                    });
                ui.end_row();
            }
        });
    }

    fn frame_time_graph(&self, ui: &mut egui::Ui) {
        let size = egui::vec2(ui.available_width(), GRAPH_HEIGHT);
        let (response, painter) = ui.allocate_painter(size, egui::Sense::hover());
        let rect = response.rect;
        painter.rect_filled(rect, 2.0, Color32::from_black_alpha(160));
        let y_of = |ms: f32| rect.bottom() - (ms / GRAPH_TOP_MS).min(1.0) * rect.height();
        let target = y_of(TARGET_FRAME_MS);
        painter.line_segment(
            [
                egui::pos2(rect.left(), target),
                egui::pos2(rect.right(), target),
            ],
            Stroke::new(1.0, Color32::from_gray(90)),
        );
        let points: Vec<egui::Pos2> = self
            .frame_times
            .iter()
            .map(|&(at, ms)| {
                let age = (self.clock - at) / GRAPH_SECONDS;
                egui::pos2(rect.right() - age as f32 * rect.width(), y_of(ms))
            })
            .collect();
        painter.add(egui::Shape::line(
            points,
            Stroke::new(1.5, Color32::from_rgb(120, 220, 120)),
        ));
        let latest = self.frame_times.back().map_or(0.0, |&(_, ms)| ms);
        ui.label(format!(
            "latest {latest:.1} ms; line at {TARGET_FRAME_MS:.1} ms, top {GRAPH_TOP_MS:.0} ms"
        ));
    }
}

/// A slider whose value rebuilds the crowd, so it acts once per change:
/// while it is dragged, `held` keeps the value it shows, and the value
/// comes back (the second of the pair) when it is released or clicked.
fn slider_acting_once<T: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    held: &mut Option<T>,
    current: T,
    slider: impl FnOnce(&mut T) -> egui::Slider<'_>,
) -> (egui::Response, Option<T>) {
    let mut value = held.unwrap_or(current);
    let response = ui.add(slider(&mut value));
    if response.dragged() {
        *held = Some(value);
        return (response, None);
    }
    // A press that egui took for the start of a drag ends with no change
    // reported: the held value is the one to act on.
    let released = held.take().is_some();
    let acted = value != current && (released || response.changed());
    (response, acted.then_some(value))
}

/// Every switch of the window, each sending the action its key sends.
fn controls(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    skinning_buttons(ui, view, actions);
    switches(ui, view, actions);
    sliders(ui, view, actions);
    clip_menu(ui, view, actions);
    shadow_buttons(ui, view, actions);
    camera_buttons(ui, view, actions);
}

/// How the crowd is skinned: the method, and the joints per vertex.
fn skinning_buttons(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let scene = view.scene;
    let options = &scene.view;
    ui.horizontal(|ui| {
        ui.label("skinning");
        for (method, name) in [
            (SkinningMethod::Linear, "LBS"),
            (SkinningMethod::DualQuaternion, "DQS"),
        ] {
            if ui
                .selectable_label(options.skinning == method, name)
                .clicked()
                && options.skinning != method
            {
                actions.push(Action::Skinning);
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label("influences");
        let loaded = scene.cast.models[0].influences();
        for limit in [InfluenceLimit::Four, InfluenceLimit::Eight] {
            let button = egui::Button::selectable(loaded == limit, limit.count().to_string());
            if ui
                .add(button)
                .on_hover_text("joints per vertex (I): the model's vertices are built again")
                .clicked()
                && loaded != limit
            {
                actions.push(Action::Influences);
            }
        }
    });
}

/// The on / off switches, a checkbox each.
fn switches(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let scene = view.scene;
    let options = &scene.view;
    let mut toggle = |ui: &mut egui::Ui, on: bool, text: &str, action: Action| {
        let mut value = on;
        if ui.checkbox(&mut value, text).changed() {
            actions.push(action);
        }
    };
    toggle(ui, options.show_skeleton, "skeleton (K)", Action::Skeleton);
    ui.add_enabled_ui(view.wireframe_available, |ui| {
        toggle(ui, options.wireframe, "wireframe (F)", Action::Wireframe);
    })
    .response
    .on_disabled_hover_text("the GPU lacks the fillModeNonSolid feature");
    toggle(ui, view.paused, "pause (Space)", Action::Pause);
    toggle(
        ui,
        options.lod_bias.is_some(),
        "level of detail (O)",
        Action::LevelOfDetail,
    );
    toggle(ui, options.show_lod, "tint by level (T)", Action::ShowLod);
    toggle(
        ui,
        options.lod_influences,
        "fewer influences when coarse",
        Action::LodInfluences,
    );
    toggle(
        ui,
        options.occlusion,
        "occlusion culling (C)",
        Action::Occlusion,
    );
    toggle(ui, options.impostors, "impostors (P)", Action::Impostors);
    let (drawn, chosen) = view.msaa;
    ui.add_enabled_ui(chosen > 1, |ui| {
        toggle(ui, drawn > 1, &format!("MSAA {chosen}x (M)"), Action::Msaa);
    })
    .response
    .on_disabled_hover_text("--msaa 1, or the device offers no more samples");
    toggle(
        ui,
        options.anim_lod,
        "animation level of detail",
        Action::AnimationLod,
    );
    ui.add_enabled_ui(scene.crowd.locomotion.is_some(), |ui| {
        toggle(
            ui,
            scene.crowd.spec.locomotion,
            "locomotion (G)",
            Action::Locomotion,
        );
    })
    .response
    .on_disabled_hover_text("no looping clip of the model moves over the ground");
    toggle(
        ui,
        scene.culling_frozen(),
        "freeze culling (V)",
        Action::FreezeCulling,
    );
}

/// Level of detail, time and clip blending, each a slider.
fn sliders(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let scene = view.scene;
    let float_slider = |ui: &mut egui::Ui, value: f32, range, text: &str| {
        let mut edited = value;
        let changed = ui
            .add(egui::Slider::new(&mut edited, range).text(text))
            .changed();
        changed.then_some(edited)
    };
    if let Some(bias) = float_slider(ui, view.lod_bias, 0.25..=8.0, "LOD bias") {
        actions.push(Action::LodBias(bias));
    }
    if let Some(scale) = float_slider(ui, view.time_scale, 0.0..=4.0, "time scale") {
        actions.push(Action::TimeScale(scale));
    }
    let blend_time = scene.crowd.spec.blend_time;
    if let Some(seconds) = float_slider(ui, blend_time, 0.0..=2.0, "blend time (s)") {
        actions.push(Action::BlendTime(seconds));
    }
}

/// The clip the whole crowd plays, or the seeded mix.
fn clip_menu(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let scene = view.scene;
    let clips = &scene.crowd.clip_names;
    let playing = scene.crowd.spec.clip;
    let selected = playing
        .and_then(|clip| clips.get(clip as usize))
        .map_or("seeded mix", String::as_str);
    egui::ComboBox::from_label("clip")
        .selected_text(selected)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(playing.is_none(), "seeded mix")
                .clicked()
                && playing.is_some()
            {
                actions.push(Action::MixClips);
            }
            for (index, clip) in clips.iter().enumerate() {
                let index = index as u32;
                if ui
                    .selectable_label(playing == Some(index), clip.as_str())
                    .clicked()
                {
                    actions.push(Action::Clip(index));
                }
            }
        });
}

/// The kind of shadows, and whether what each cascade covers is tinted.
fn shadow_buttons(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let options = &view.scene.view;
    ui.horizontal(|ui| {
        let shadows = match options.shadows {
            Shadows::Map => "shadow maps",
            Shadows::Blob => "blob shadows",
            Shadows::Off => "no shadows",
        };
        if ui.button(format!("{shadows} (H)")).clicked() {
            actions.push(Action::Shadows);
        }
        let mut colors = options.shadow_cascade_colors;
        let maps = options.shadows == Shadows::Map;
        if ui
            .add_enabled(maps, egui::Checkbox::new(&mut colors, "cascade colours"))
            .changed()
        {
            actions.push(Action::CascadeColors);
        }
    });
}

/// Framing the crowd and capturing a frame.
fn camera_buttons(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        if ui.button("frame the crowd (R)").clicked() {
            actions.push(Action::ResetCamera);
        }
        if ui
            .add_enabled(view.capture_available, egui::Button::new("capture (F12)"))
            .on_disabled_hover_text("start under RenderDoc to capture a frame")
            .clicked()
        {
            actions.push(Action::Capture);
        }
    });
}

fn statistics(ui: &mut egui::Ui, view: &OverlayView) {
    ui.label(format!("{} ({})", view.device, view.driver));
    for model in &view.scene.cast.models {
        ui.label(format!(
            "{}: {} joints, {} meshes, {} triangles, {} clips",
            model.mesh_file.file_name(),
            model.skeleton.joint_count(),
            model.meshes.len(),
            model.triangle_count(),
            model.clips.len()
        ));
    }
    let palette = view.palette_rows.map_or_else(
        || "a row per instance".to_owned(),
        |rows| format!("{rows} rows"),
    );
    ui.label(view.gpu_memory.to_string());
    ui.label(format!("skinning palette {palette}"));
    let (baked, slots) = view.impostor_clips;
    ui.label(format!(
        "impostor atlases: {baked} clip(s) baked, room for {slots}"
    ));
    let Some(stats) = view.stats else {
        ui.label("measuring...");
        return;
    };
    ui.label(format!(
        "{}/{} instances visible ({} impostors, {} fading in the band), {} triangles drawn",
        stats.visible_instances,
        stats.total_instances,
        stats.impostor_instances,
        stats.impostor_band_instances,
        stats.triangles
    ));
    if stats.models.len() > 1 {
        egui::Grid::new("models").striped(true).show(ui, |ui| {
            for heading in ["model", "instances", "visible", "impostors", "triangles"] {
                ui.label(heading);
            }
            ui.end_row();
            for model in &stats.models {
                ui.label(&model.name);
                ui.label(model.instances.to_string());
                ui.label(model.visible.to_string());
                ui.label(model.impostors.to_string());
                ui.label(model.triangles.to_string());
                ui.end_row();
            }
        });
    }
    ui.label(format!(
        "{:.1} fps, CPU {:.2} ms, {} ({})",
        stats.fps, stats.cpu_ms, stats.clip, stats.skinning
    ));
    match &stats.gpu {
        Some(timings) if !timings.passes.is_empty() => {
            ui.label(format!("GPU {:.2} ms per frame:", timings.gpu_ms()));
            egui::Grid::new("gpu passes").striped(true).show(ui, |ui| {
                for (name, ms) in &timings.passes {
                    ui.label(*name);
                    ui.label(format!("{ms:.3} ms"));
                    ui.end_row();
                }
            });
        }
        _ => {
            ui.label("GPU: no timestamps on this device");
        }
    }
}
