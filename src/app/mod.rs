//! Rendering a model: loading, the CPU-side crowd and camera, and the two
//! ways frames leave the GPU (a window, or PNG files when headless).

mod arg_values;
pub mod bench;
mod bench_cases;
mod bench_plot;
mod bench_suite;
mod camera;
mod clip_picks;
pub mod controls;
mod crowd_layers;
mod crowd_state;
mod headless;
mod layer_args;
mod load;
pub mod model_args;
mod overlay;
mod overlay_layers;
pub mod render_args;
mod scene;
mod title;
mod window;

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use ash::vk;

use crate::gltf::GltfError;
use crate::gpu::context::Validation;
use crate::gpu::crowd_buffers::PALETTE_START_BYTES;
use crate::gpu::debug::MessageCounts;
use crate::gpu::guard::guard;
use crate::gpu::memory::MemoryReport;
use crate::gpu::renderer::{Renderer, RendererDesc};
use crate::gpu::{Context, GpuError};
use crate::md5::Md5Error;
use crate::model::Model;
use crate::skin::InfluenceLimit;
use crowd_state::{CrowdSpec, CrowdState};
use load::{load_cast, Cast, GameFolders};
pub use render_args::{LoadArgs, RenderArgs};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Load(#[from] Md5Error),
    #[error(transparent)]
    Gltf(#[from] GltfError),
    #[error("{0}")]
    Arguments(String),
    #[error(transparent)]
    Gpu(GpuError),
    #[error(
        "the GPU was lost during {call} (a driver crash, a GPU reset or a hang); nothing more \
         can be drawn. The system log (dmesg, Event Viewer) may say why; a driver update often helps"
    )]
    DeviceLost { call: &'static str },
    #[error("writing {path}: {source}")]
    Screenshot {
        path: String,
        source: image::ImageError,
    },
    /// The device lacks an optional feature that was asked for.
    #[error("{0}")]
    Unsupported(String),
    #[error("window: {0} (no display? --headless renders without one)")]
    Window(String),
    #[error("the validation layer reported {errors} error(s) and {warnings} warning(s) (see the log above)")]
    Validation { warnings: u32, errors: u32 },
}

impl From<GpuError> for AppError {
    fn from(error: GpuError) -> AppError {
        match error {
            GpuError::Vulkan {
                call,
                result: vk::Result::ERROR_DEVICE_LOST,
            } => AppError::DeviceLost { call },
            error => AppError::Gpu(error),
        }
    }
}

impl AppError {
    /// The `md5crowd` convention: 1 when the machine cannot do it (no
    /// Vulkan, no window system, too little GPU memory, a GPU failure),
    /// 2 for bad input.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Load(_) | AppError::Gltf(_) | AppError::Arguments(_) => 2,
            AppError::Gpu(
                GpuError::EmptyModel(_)
                | GpuError::GpuIndex { .. }
                | GpuError::MorphTargetsTooLarge { .. },
            ) => 2,
            AppError::Gpu(_)
            | AppError::DeviceLost { .. }
            | AppError::Unsupported(_)
            | AppError::Screenshot { .. }
            | AppError::Window(_)
            | AppError::Validation { .. } => 1,
        }
    }

    /// A crowd the device cannot hold: by its buffer limits, by its memory
    /// heap, or, the heap being shared with other programs, as it turned
    /// out when allocating.
    pub fn is_crowd_too_large(&self) -> bool {
        match self {
            AppError::Gpu(GpuError::CrowdTooLarge { .. }) => true,
            AppError::Gpu(GpuError::Allocation { source, .. }) => {
                matches!(source, gpu_allocator::AllocationError::OutOfMemory)
            }
            AppError::Gpu(GpuError::Vulkan { result, .. }) => matches!(
                *result,
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY
            ),
            _ => false,
        }
    }
}

/// Loads the model, renders as `args` say, and with validation on, fails
/// if the layer reported anything, so a clean run is a checked property.
pub fn run(args: &RenderArgs) -> Result<(), AppError> {
    // Checked before the no-display fallback, so a window's arguments mean
    // the same with a display or without.
    if !args.headless && args.screenshot.is_some() && args.frames.is_none() {
        return Err(AppError::Arguments(
            "--screenshot with a window needs --frames (the frame to save is the last one)".into(),
        ));
    }
    if let Some(headless) = args.without_display(has_display()) {
        log::warn!(
            "no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering {} instances \
             headless into {}",
            headless.instances(),
            headless.screenshot.clone().unwrap_or_default().display()
        );
        return run(&headless);
    }
    let frames = if args.headless {
        Some(args.frames.unwrap_or(1))
    } else {
        args.frames
    };
    if let (Some(capture), Some(frames)) = (args.capture_frame, frames) {
        if capture >= frames {
            return Err(AppError::Arguments(format!(
                "--capture-frame {capture}: only frames 0 to {} are drawn",
                frames - 1
            )));
        }
    }
    // Switching influences loads the cast again, not the game folders.
    let folders = GameFolders::default();
    let load = |limit: InfluenceLimit| {
        folders.load_cast(
            args.cast.model.as_deref(),
            &args.cast.anims,
            args.cast.mesh.as_deref(),
            &args.cast.load,
            limit,
        )
    };
    let cast = Rc::new(load(args.cast.influences.into())?);
    let spec = CrowdSpec {
        instances: args.instances(),
        seed: args.draw.seed,
        spacing: args.spacing,
        clip: starting_clip(&cast.models, args.clip.as_deref())?,
        blend_time: args.blend_time,
        animation: args.animation(),
        animate_kernel: args.animate_kernel.kernel(),
        locomotion: args.locomotion == render_args::Switch::On,
        layers: crate::crowd::MAX_LAYERS,
    };
    folders.log_loaded(&cast);
    let counts = if args.headless {
        // Nothing loads again: the folders' indexes and declarations go
        // before the upload.
        drop(folders);
        headless::run(args, cast, spec)?
    } else {
        window::run(args, cast, spec, &load)?
    };
    report_validation(counts.as_deref())
}

/// The line once the first frame is done: how long after the files were
/// loaded (the upload, the pipelines and the frame itself). It shows no
/// impostor, as nothing is baked before the crowd asks: the far
/// characters are meshes at their coarsest level. Call after every frame.
fn log_first_frame(cast: &Cast, renderer: &mut crate::gpu::renderer::Renderer) {
    if let Some(done) = renderer.take_first_frame_done() {
        log::info!(
            "first frame: done {:.2} s after the files were loaded (loading took {:.2} s)",
            (done - cast.loaded_at).as_secs_f64(),
            cast.load_seconds.iter().sum::<f64>(),
        );
    }
}

/// Whether winit has a display to open a window on (X11 or Wayland).
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()))
}

/// `md5crowd bench`: measures, prints a table, writes the JSON and the plot.
pub fn run_bench(args: &bench::BenchArgs) -> Result<(), AppError> {
    if args.suite {
        let report = bench_suite::run(args)?;
        print!("{}", bench_suite::markdown(&report));
        if let Some(path) = &args.json {
            write_file(
                path,
                serde_json::to_string_pretty(&report).expect("report serializes") + "\n",
            )?;
        }
        return Ok(());
    }
    bench::check_layer_counts(args)?;
    let cast = load_cast(
        args.cast.model.as_deref(),
        &args.cast.anims,
        args.cast.mesh.as_deref(),
        &args.cast.load,
        args.cast.influences.into(),
    )?;
    let ctx = bench::context(args.draw.gpu)?;
    let report = bench::run(&ctx, args, &Rc::new(cast))?;
    if let Some(path) = &args.json {
        write_file(
            path,
            serde_json::to_string_pretty(&report).expect("report serializes") + "\n",
        )?;
    }
    if let Some(path) = &args.plot {
        write_file(path, bench_plot::svg_plot(&report))?;
    }
    Ok(())
}

/// Writes a report the user asked for, and says so.
fn write_file(path: &Path, text: String) -> Result<(), AppError> {
    std::fs::write(path, text)
        .map_err(|e| AppError::Arguments(format!("cannot write {}: {e}", path.display())))?;
    log::info!("wrote {}", path.display());
    Ok(())
}

/// `--clip NAME` as an index into the crowd's clip names (each model
/// plays its clip of that name; see [`crowd_state::clip_names`]).
fn starting_clip(models: &[Model], name: Option<&str>) -> Result<Option<u32>, AppError> {
    let Some(name) = name else {
        return Ok(None);
    };
    let names = clip_picks::clip_names(models);
    match names.iter().position(|n| n == name) {
        Some(index) => Ok(Some(index as u32)),
        None if names.is_empty() && models.len() == 1 => Err(AppError::Arguments(format!(
            "--clip {name}: the model has no clips (name .md5anim files after the mesh)"
        ))),
        None if names.is_empty() => Err(AppError::Arguments(format!(
            "--clip {name}: no model has clips (name .md5anim files after each mesh)"
        ))),
        None => Err(AppError::Arguments(format!(
            "--clip {name}: no such clip; the clips are: {}",
            names.join(", ")
        ))),
    }
}

/// The start-up lines: what runs where and the device memory it took,
/// then a line per model with its share of the crowd.
fn log_summary(ctx: &Context, crowd: &CrowdState, cast: &Cast, memory: MemoryReport) {
    let models = &cast.models;
    log::info!(
        "{}: {} model(s), {} instance(s), {memory}",
        ctx.device_name,
        models.len(),
        crowd.instances.len(),
    );
    for (index, model) in models.iter().enumerate() {
        let clips: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
        let skins: Vec<&str> = model.skins.iter().map(|s| s.name.as_str()).collect();
        log::info!(
            "model {}: {}, {} joints, {} meshes, {} triangles, {} clip(s) ({}), skins: {}, {} \
             instance(s), loaded in {:.3} s",
            index + 1,
            model.mesh_file,
            model.skeleton.joint_count(),
            model.meshes.len(),
            model.triangle_count(),
            clips.len(),
            clips.join(", "),
            skins.join(", "),
            crowd.model_instances(index),
            cast.load_seconds[index],
        );
        let channels = &model.channels;
        let channel_joints: Vec<String> = (1..channels.names().len())
            .map(|c| {
                let joints = channels.mask(c as u8).iter().filter(|&&j| j).count();
                format!("{} ({joints} joints)", channels.names()[c])
            })
            .collect();
        if !channel_joints.is_empty() {
            log::info!(
                "model {}: channels {}",
                index + 1,
                channel_joints.join(", ")
            );
        }
    }
}

/// A renderer and the crowd it draws. A crowd the device cannot hold is
/// refused before anything is built for it, CPU side included (it grows
/// with the crowd too). `draw` says the budgets: the impostor atlases', and
/// the memory budget that plays a smaller GPU (a test hook).
fn build_crowd(
    ctx: &Context,
    cast: &Cast,
    spec: CrowdSpec,
    (extent, samples): (vk::Extent2D, u32),
    (draw, shadow_maps): (&render_args::DrawArgs, bool),
) -> Result<(CrowdState, Renderer), AppError> {
    let desc = RendererDesc {
        extent,
        samples,
        animation: spec.animation,
        memory_budget: draw.memory_budget(),
        animate_kernel: spec.animate_kernel,
        impostor_budget: draw.impostor_budget(),
        // A shadow map costs memory only where one may be drawn.
        shadow_cascades: if shadow_maps { draw.shadow_cascades } else { 0 },
        shadow_resolution: draw.shadow_resolution,
        palette_start_bytes: PALETTE_START_BYTES,
    };
    let mut renderer = guard(ctx, Renderer::new(ctx, &cast.models, &desc)?);
    renderer.check_crowd_fits(spec.instances)?;
    let crowd = CrowdState::new(&cast.models, (&cast.shares, &cast.layers), spec);
    renderer.set_crowd_with_agents(ctx, &crowd.placements(), crowd.gpu_agents().as_ref())?;
    Ok((crowd, renderer.keep()))
}

/// `--validate` insists on the layer; debug builds use it when present.
fn validation(args: &RenderArgs) -> Validation {
    if args.validate {
        Validation::Required
    } else if cfg!(debug_assertions) {
        Validation::IfInstalled
    } else {
        Validation::Off
    }
}

/// `counts` is `None` when validation was off.
fn report_validation(counts: Option<&MessageCounts>) -> Result<(), AppError> {
    match counts {
        Some(counts) if counts.warnings() + counts.errors() > 0 => Err(AppError::Validation {
            warnings: counts.warnings(),
            errors: counts.errors(),
        }),
        Some(_) => {
            log::info!("validation: no warnings, no errors");
            Ok(())
        }
        None => Ok(()),
    }
}

/// The validation counters to report at exit, when validation is on.
fn validation_counts(ctx: &crate::gpu::Context) -> Option<Arc<MessageCounts>> {
    ctx.validation_enabled.then(|| ctx.message_counts.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_device_is_the_machine_with_advice() {
        let lost = AppError::from(GpuError::Vulkan {
            call: "vkQueueSubmit2",
            result: vk::Result::ERROR_DEVICE_LOST,
        });
        assert!(matches!(lost, AppError::DeviceLost { .. }));
        assert_eq!(lost.exit_code(), 1);
        let message = lost.to_string();
        assert!(
            message.starts_with("the GPU was lost during vkQueueSubmit2"),
            "{message}"
        );
        assert!(message.contains("driver"), "{message}");
        let other = AppError::from(GpuError::Vulkan {
            call: "vkCreateBuffer",
            result: vk::Result::ERROR_INITIALIZATION_FAILED,
        });
        assert!(matches!(other, AppError::Gpu(_)));
    }

    #[test]
    fn a_crowd_too_large_is_the_machine() {
        let oom = AppError::from(GpuError::Vulkan {
            call: "vkAllocateMemory",
            result: vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        });
        assert!(oom.is_crowd_too_large());
        let allocation = AppError::from(GpuError::Allocation {
            name: "frame 0 skinning transforms".into(),
            source: gpu_allocator::AllocationError::OutOfMemory,
        });
        assert!(allocation.is_crowd_too_large());
        assert!(!AppError::from(GpuError::NoDriver).is_crowd_too_large());
        let too_large = AppError::from(GpuError::CrowdTooLarge {
            requested: 4096,
            fits: 2048,
            reason: "a reason".into(),
        });
        assert!(too_large.is_crowd_too_large());
        assert_eq!(too_large.exit_code(), 1);
        assert_eq!(
            too_large.to_string(),
            "a crowd of 4096 instances does not fit this GPU: a reason; at most 2048 instances fit"
        );
    }
}
