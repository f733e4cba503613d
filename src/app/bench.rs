//! `md5crowd bench`: the same headless frame loop as the demo, timed, for
//! each crowd size and each way of animating it. Ratios between runs of one
//! invocation are the figures docs/performance.md quotes; absolute numbers depend on
//! the driver (a CPU Vulkan driver shares the cores with the CPU path).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use ash::vk;
use serde::Serialize;

use super::bench_cases::cases;
use super::crowd_state::CrowdSpec;
use super::headless::FIXED_STEP;
use super::load::Cast;
use super::render_args::{
    msaa_samples, AnimateKernel, CastArgs, DrawArgs, ShadowsArg, Switch, View,
};
use super::scene::Scene;
use super::AppError;
use crate::gpu::capture::FrameCapture;
use crate::gpu::context::Validation;
use crate::gpu::crowd_buffers::Animation;
use crate::gpu::frame_loop::{Destination, ViewOptions};
use crate::gpu::guard::guard;
use crate::gpu::passes::crowd_draw::multi_draw_runs;
use crate::gpu::{Context, ContextDesc};

#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Run the fixed set of cases docs/performance.md quotes (scale,
    /// skinning, lod, occlusion, animate, mixed) at 1920x1080, sized for
    /// the device (a CPU driver's crowds 16 times smaller), and print them
    /// as a markdown table; --json writes the runs, each with its "case".
    #[arg(long, conflicts_with_all = [
        "model", "anims", "mesh", "instances", "frames", "rounds", "plot", "width", "height", "influences",
        "modes", "lod", "lod_influences", "compute_only", "anim_lod", "animate_kernel",
        "occlusion", "impostors", "locomotion", "multi_draw", "view", "msaa", "shadows",
    ])]
    pub suite: bool,
    /// Test hook: the suite divides every crowd size by this, whatever the
    /// device.
    #[arg(long, hide = true, requires = "suite", value_parser = clap::value_parser!(u32).range(1..))]
    pub suite_divisor: Option<u32>,
    /// The models, as the render command takes them.
    #[command(flatten)]
    pub cast: CastArgs,
    /// The device, the size and the seed, as the render command takes them.
    #[command(flatten)]
    pub draw: DrawArgs,
    /// Crowd sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16,256,4096",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub instances: Vec<u32>,
    /// Timed frames per run (after a few untimed ones).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Measure every combination this many times, the combinations taking
    /// turns (in the listed order, then backwards, and so on), and report
    /// each over the frames of all its rounds: where the machine's speed
    /// drifts (a shared host, a CPU driver), every combination then meets
    /// the same drift and their ratios hold. An even number lets every pair
    /// be measured in both orders.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Write the results as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write an SVG plot of frame time against crowd size here.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Who animates, comma-separated: gpu (animate.comp), cpu (the CPU
    /// reference, uploaded), static (bind pose, unskinned: the ideal).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "gpu,cpu,static"
    )]
    pub modes: Vec<Mode>,
    /// Level of detail, comma-separated: on, off or both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub lod: Vec<Switch>,
    /// Fewer joint influences for coarse levels, comma-separated: on, off
    /// or both (the same levels either way).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub lod_influences: Vec<Switch>,
    /// Record and submit only the per-frame compute work and uploads (gpu:
    /// cull + animate; cpu: the CPU reference animation, its upload, cull):
    /// the frame time is then the cost of animating the crowd.
    #[arg(long)]
    pub compute_only: bool,
    /// Animation level of detail (gpu mode), comma-separated: on, off or both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub anim_lod: Vec<Switch>,
    /// The GPU animation kernel (gpu mode), comma-separated: device,
    /// lane-per-instance, lane-per-joint (see the render command's
    /// --animate-kernel).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "device")]
    pub animate_kernel: Vec<AnimateKernel>,
    /// Occlusion culling, comma-separated: on, off or both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub occlusion: Vec<Switch>,
    /// Impostors (far instances drawn as one quad showing a baked image,
    /// level of detail on), comma-separated: on, off or both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub impostors: Vec<Switch>,
    /// Locomotion (the agent pass moves everyone each frame),
    /// comma-separated: on, off or both. Off by default, so figures stay
    /// comparable with those taken before it existed.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "off")]
    pub locomotion: Vec<Switch>,
    /// One indirect call for each run of a mesh's levels of detail that
    /// share a pipeline (multiDrawIndirect), comma-separated: on, off (a
    /// call per level) or both. A device without the feature runs off, and
    /// its rows say so.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "on")]
    pub multi_draw: Vec<Switch>,
    /// Camera, comma-separated: overview (framing the crowd from above),
    /// street (eye height at its front edge, looking across it).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "overview")]
    pub view: Vec<View>,
    /// Samples per pixel (multisample antialiasing), comma-separated: 1, 2,
    /// 4 or 8, each clamped to what the device offers (the run's "msaa"
    /// says what was drawn).
    #[arg(long, value_delimiter = ',', default_value = "4", value_parser = msaa_samples)]
    pub msaa: Vec<u32>,
    /// Sun shadows, comma-separated: map (cascaded shadow maps), blob, off.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "map")]
    pub shadows: Vec<ShadowsArg>,
    /// Layers played over each instance's clip, comma-separated counts:
    /// the first N of --layer and --additive (default: all of them).
    #[arg(long = "layers", value_delimiter = ',', value_name = "N,...")]
    pub layer_counts: Vec<u32>,
    /// Morph targets (glTF blend shapes) played, comma-separated: on, off
    /// (every character in its base shape) or both.
    #[arg(
        long = "morphs",
        value_enum,
        value_delimiter = ',',
        default_value = "on"
    )]
    pub morph_switches: Vec<Switch>,
}

/// Who animates the crowd in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// animate.comp poses the visible instances.
    Gpu,
    /// Every core runs the CPU reference; the transforms are uploaded.
    Cpu,
    /// Bind pose, no animation, no skinning: the ideal.
    Static,
}

impl Mode {
    fn animation(self) -> Animation {
        match self {
            Mode::Gpu => Animation::Gpu,
            Mode::Cpu => Animation::Cpu,
            Mode::Static => Animation::BindPose,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Gpu => "gpu",
            Mode::Cpu => "cpu",
            Mode::Static => "static",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// What was measured: its keys sit in the run's JSON object itself.
    #[serde(flatten)]
    pub case: Case,
    /// The models the crowd mixes (their mesh files' stems), in order.
    pub models: Vec<String>,
    /// The animate kernel that posed the crowd (gpu mode; `None` otherwise).
    pub animate_kernel: Option<&'static str>,
    pub compute_only: bool,
    /// Median CPU time per frame spent animating (CPU mode), recording and
    /// submitting: not waiting for the GPU.
    pub cpu_ms: f64,
    /// Median time between consecutive frames completing.
    pub frame_ms: f64,
    /// Median GPU time per pass (timestamp queries); empty when the device
    /// has no timestamps.
    pub gpu_ms: BTreeMap<&'static str, f64>,
    pub visible: u32,
    /// Of the visible instances, those drawn as impostors.
    pub impostor_instances: u32,
    /// Of those, the ones drawn as meshes too: the band around the switch,
    /// where a character fades from one to the other.
    pub impostor_band_instances: u32,
    /// Samples per pixel drawn: the case's, clamped to the device's.
    pub msaa: u32,
    /// `bench --suite`: the suite's case this run belongs to.
    #[serde(rename = "case", skip_serializing_if = "Option::is_none")]
    pub suite_case: Option<&'static str>,
    /// Median triangles drawn per frame, after culling and level of detail.
    pub triangles: f64,
    /// Visible instances times their model's full vertices, per second.
    pub vertices_per_s: f64,
}

/// One combination of the options a run measures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Case {
    pub instances: u32,
    pub mode: Mode,
    pub lod: Switch,
    pub lod_influences: Switch,
    pub occlusion: Switch,
    /// A bool in the JSON, as issue 39 asked for, where the older switches
    /// say "on" / "off".
    pub impostors: bool,
    pub anim_lod: Switch,
    pub locomotion: Switch,
    pub multi_draw: Switch,
    pub view: View,
    pub shadows: ShadowsArg,
    /// Layers each instance plays over its clip.
    pub layers: u32,
    /// Morph targets played, or every character in its base shape.
    pub morphs: Switch,
    /// Samples per pixel asked for; the run reports what was drawn.
    #[serde(skip)]
    pub msaa: u32,
    /// What was asked; the row reports the kernel that ran.
    #[serde(skip)]
    pub animate_kernel: AnimateKernel,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub device: String,
    pub width: u32,
    pub height: u32,
    /// Timed frames per round of each run.
    pub frames: u32,
    pub rounds: u32,
    pub runs: Vec<Run>,
}

/// Untimed frames first: pipelines warm, caches fill, both frame slots used.
const WARMUP_FRAMES: u32 = 4;
/// Untimed frames at most, past [`WARMUP_FRAMES`], for the impostor
/// atlases to bake what the crowd wants: start-up work, not a frame's.
const IMPOSTOR_WARMUP_FRAMES: u32 = 600;

/// The context a benchmark runs on: `--gpu`'s device, unvalidated.
pub fn context(gpu: Option<usize>) -> Result<Context, AppError> {
    let ctx = Context::new(&ContextDesc {
        validation: Validation::Off,
        gpu_index: gpu,
        window: None,
    })?;
    log::info!("GPU: {}", ctx.device_name);
    Ok(ctx)
}

/// Measures every case `args` lists on `ctx`'s device, drawing `model`.
pub fn run(ctx: &Context, args: &BenchArgs, model: &Rc<Cast>) -> Result<Report, AppError> {
    // A benchmark captures nothing; RenderDoc, when it is there, was
    // attached before the context was made.
    let mut capture = FrameCapture::new(None);
    let given = check_layer_counts(args)?;
    let cases = cases(args, given);
    let mut samples: Vec<Samples> = cases.iter().map(|_| Samples::default()).collect();
    for round in 0..args.rounds {
        for index in round_order(cases.len(), round) {
            measure(
                ctx,
                args,
                model,
                cases[index],
                &mut capture,
                &mut samples[index],
            )?;
        }
    }
    let runs = cases
        .iter()
        .zip(&mut samples)
        .map(|(&case, samples)| {
            // A row says what ran.
            let case = Case {
                multi_draw: match multi_draw_runs(ctx, case.multi_draw == Switch::On) {
                    true => Switch::On,
                    false => Switch::Off,
                },
                ..case
            };
            let run = summarize(args, model, case, samples);
            log_run(&run);
            run
        })
        .collect();
    ctx.wait_idle()?;
    Ok(Report {
        device: ctx.device_name.clone(),
        width: args.draw.width,
        height: args.draw.height,
        frames: args.frames,
        rounds: args.rounds,
        runs,
    })
}

/// The order round `round` (from 0) measures `count` combinations in:
/// forwards, then backwards, and so on. What a run measures can depend on
/// what ran just before it (memory the driver and the allocator freed, the
/// cores' idle state), so no combination always follows the same one;
/// over an even number of rounds every pair meets in both orders.
fn round_order(count: usize, round: u32) -> impl Iterator<Item = usize> {
    let backwards = round % 2 == 1;
    (0..count).map(move |i| if backwards { count - 1 - i } else { i })
}

/// The layers given (`--layer`, `--additive`), refusing a `--layers`
/// count past them: checked before anything loads.
pub fn check_layer_counts(args: &BenchArgs) -> Result<u32, AppError> {
    let given = args.cast.load.layers.len() + args.cast.load.additive.len();
    match args.layer_counts.iter().find(|&&n| n as usize > given) {
        Some(wanted) => Err(AppError::Arguments(format!(
            "--layers {wanted}: {given} layer(s) given (--layer CHANNEL:CLIP, --additive CLIP)"
        ))),
        None => Ok(given as u32),
    }
}

/// What the timed frames of one run recorded, over its rounds so far.
#[derive(Default)]
struct Samples {
    cpu_ms: Vec<f64>,
    frame_ms: Vec<f64>,
    gpu_ms: BTreeMap<&'static str, Vec<f64>>,
    visible: u32,
    impostor_instances: u32,
    impostor_band_instances: u32,
    /// Visible instances times their model's vertices, the last frame.
    vertices_drawn: u64,
    triangles: Vec<f64>,
    animate_kernel: Option<&'static str>,
    /// Samples per pixel the renderer drew.
    msaa: u32,
}

fn log_run(run: &Run) {
    let passes: Vec<String> = run
        .gpu_ms
        .iter()
        .map(|(p, ms)| format!("{p} {ms:.3}"))
        .collect();
    log::info!(
        "{:>6} instances, {:<6} {}LOD {:<3} LOD influences {:<3} occlusion {:<3} impostors {:<3} anim LOD {:<3} locomotion {:<3} multi-draw {:<3} {:<8} shadows {:<4} MSAA {}x{}: cpu {:7.3} ms, frame {:8.3} ms, gpu [{}] ms, {} visible ({} impostors, {} both ways in the band), {:.0} triangles",
        run.case.instances,
        run.case.mode.name(),
        run.animate_kernel.map(|k| format!("({k}) ")).unwrap_or_default(),
        if run.case.lod == Switch::On { "on" } else { "off" },
        if run.case.lod_influences == Switch::On { "on" } else { "off" },
        if run.case.occlusion == Switch::On { "on" } else { "off" },
        if run.case.impostors { "on" } else { "off" },
        if run.case.anim_lod == Switch::On { "on" } else { "off" },
        if run.case.locomotion == Switch::On { "on" } else { "off" },
        if run.case.multi_draw == Switch::On { "on" } else { "off" },
        if run.case.view == View::Street { "street" } else { "overview" },
        match run.case.shadows {
            ShadowsArg::Map => "map",
            ShadowsArg::Blob => "blob",
            ShadowsArg::Off => "off",
        },
        run.msaa,
        match (run.case.layers, run.case.morphs) {
            (0, Switch::On) => String::new(),
            (0, Switch::Off) => ", morphs off".into(),
            (layers, Switch::On) => format!(", {layers} layer(s)"),
            (layers, Switch::Off) => format!(", {layers} layer(s), morphs off"),
        },
        run.cpu_ms,
        run.frame_ms,
        passes.join(", "),
        run.visible,
        run.impostor_instances,
        run.impostor_band_instances,
        run.triangles
    );
}

/// One round of `case`: a crowd built, warmed up and timed for
/// `args.frames` frames, its samples added to `samples`.
fn measure(
    ctx: &Context,
    args: &BenchArgs,
    model: &Rc<Cast>,
    case: Case,
    capture: &mut FrameCapture,
    samples: &mut Samples,
) -> Result<(), AppError> {
    let extent = vk::Extent2D {
        width: args.draw.width,
        height: args.draw.height,
    };
    let spec = CrowdSpec {
        instances: case.instances,
        seed: args.draw.seed,
        spacing: None,
        clip: None,
        blend_time: 0.25,
        animation: case.mode.animation(),
        animate_kernel: case.animate_kernel.kernel(),
        locomotion: case.locomotion == Switch::On,
        layers: case.layers as usize,
    };
    let (crowd, renderer) = super::build_crowd(
        ctx,
        model,
        spec,
        (extent, case.msaa),
        (&args.draw, case.shadows == ShadowsArg::Map),
    )?;
    let mut renderer = guard(ctx, renderer);
    let aspect = args.draw.aspect();
    let camera = case.view.camera(args.draw.camera, &crowd, aspect);
    let view = ViewOptions {
        lod_bias: (case.lod == Switch::On).then_some(args.draw.lod_bias),
        lod_influences: case.lod_influences == Switch::On,
        occlusion: case.occlusion == Switch::On,
        impostors: case.impostors,
        compute_only: args.compute_only,
        anim_lod: case.anim_lod == Switch::On,
        multi_draw: case.multi_draw == Switch::On,
        shadows: case.shadows.into(),
        ground: true,
        morphs: case.morphs == Switch::On,
        ..ViewOptions::default()
    };
    let mut scene = Scene::new(Rc::clone(model), crowd, camera, view, aspect);
    scene.sun = args.draw.towards_sun();
    samples.msaa = renderer.samples();
    samples.animate_kernel = (case.mode == Mode::Gpu).then(|| {
        renderer
            .crowd()
            .map_or("none", |crowd| crowd.animate_kernel.name())
    });

    let mut last_done: Option<Instant> = None;
    let mut warmup = WARMUP_FRAMES;
    let mut index = 0;
    while index < warmup + args.frames {
        scene.time = index as f32 * FIXED_STEP;
        let report = renderer.draw_frame(ctx, Destination::Offscreen, None, capture, &mut scene)?;
        // The slot's fence was waited for inside: the frame it held is done.
        let done = Instant::now();
        let timed = index >= warmup;
        // Until a frame is exact: impostors baked, the palette grown.
        let unsettled = !renderer.settled();
        if !timed
            && index + 1 == warmup
            && unsettled
            && warmup < WARMUP_FRAMES + IMPOSTOR_WARMUP_FRAMES
        {
            warmup += 1;
        }
        index += 1;
        // Reports arrive FRAMES_IN_FLIGHT frames late: from the first timed
        // frame on they describe warm frames of this run.
        if timed {
            if let Some(counts) = report.visible {
                samples.visible = counts.total();
                samples.impostor_instances = counts.impostor_total();
                samples.impostor_band_instances = counts.band_total();
                samples.vertices_drawn = renderer
                    .model
                    .model
                    .parts
                    .iter()
                    .enumerate()
                    .map(|(m, part)| {
                        let meshes: u32 = counts.of_model(m).iter().sum();
                        u64::from(meshes) * u64::from(part.vertex_count)
                    })
                    .sum();
                let triangles = counts.triangles(&renderer.model.model.parts);
                samples.triangles.push(triangles as f64);
            }
            let finished = report.finished.into_iter();
            for measured in finished {
                samples.cpu_ms.push(measured.cpu.as_secs_f64() * 1e3);
                for (pass, ms) in measured.gpu.passes {
                    samples.gpu_ms.entry(pass).or_default().push(ms);
                }
            }
        }
        if let (true, Some(last)) = (timed, last_done) {
            samples.frame_ms.push((done - last).as_secs_f64() * 1e3);
        }
        last_done = Some(done);
    }
    renderer.finish(ctx)?;
    Ok(())
}

/// A run's figures: medians over every round's frames.
fn summarize(args: &BenchArgs, cast: &Cast, case: Case, samples: &mut Samples) -> Run {
    let frame_ms = median(&mut samples.frame_ms);
    Run {
        case,
        models: cast.names(),
        animate_kernel: samples.animate_kernel,
        compute_only: args.compute_only,
        cpu_ms: median(&mut samples.cpu_ms),
        frame_ms,
        gpu_ms: samples
            .gpu_ms
            .iter_mut()
            .map(|(&pass, ms)| (pass, median(ms)))
            .collect(),
        visible: samples.visible,
        impostor_instances: samples.impostor_instances,
        impostor_band_instances: samples.impostor_band_instances,
        msaa: samples.msaa,
        suite_case: None,
        triangles: median(&mut samples.triangles),
        vertices_per_s: samples.vertices_drawn as f64 / (frame_ms / 1e3),
    }
}

fn median(samples: &mut [f64]) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(f64::total_cmp);
    let middle = samples.len() / 2;
    if samples.len().is_multiple_of(2) {
        (samples[middle - 1] + samples[middle]) / 2.0
    } else {
        samples[middle]
    }
}

#[cfg(test)]
mod tests {
    use super::round_order;

    #[test]
    fn rounds_alternate_forwards_and_backwards() {
        let order = |round| round_order(3, round).collect::<Vec<_>>();
        assert_eq!(order(0), [0, 1, 2]);
        assert_eq!(order(1), [2, 1, 0]);
        assert_eq!(order(2), [0, 1, 2]);
        assert_eq!(round_order(0, 1).count(), 0);
    }
}
