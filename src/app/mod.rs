//! Rendering a model: loading, the CPU-side crowd and camera, and the two
//! ways frames leave the GPU (a window, or PNG files when headless).

pub mod bench;
mod camera;
mod capture;
mod crowd_state;
mod frame_stats;
mod headless;
pub mod render_args;
mod title;
mod window;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gpu::context::Validation;
use crate::gpu::debug::MessageCounts;
use crate::gpu::GpuError;
use crate::md5::Md5Error;
use crate::model::Model;
use crate::skin::InfluenceLimit;
pub use render_args::RenderArgs;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Load(#[from] Md5Error),
    #[error("{0}")]
    Arguments(String),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("writing {path}: {source}")]
    Screenshot {
        path: String,
        source: image::ImageError,
    },
    #[error("window: {0}")]
    Window(String),
    #[error("the validation layer reported {errors} error(s) and {warnings} warning(s) (see the log above)")]
    Validation { warnings: u32, errors: u32 },
}

impl AppError {
    /// The `md5crowd` convention: 1 when the machine cannot do it (no
    /// Vulkan, no window system, a GPU failure), 2 for bad input.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Load(_) | AppError::Arguments(_) => 2,
            AppError::Gpu(
                GpuError::Texture { .. } | GpuError::EmptyModel(_) | GpuError::GpuIndex { .. },
            ) => 2,
            AppError::Gpu(_)
            | AppError::Screenshot { .. }
            | AppError::Window(_)
            | AppError::Validation { .. } => 1,
        }
    }
}

/// Loads the model, renders as `args` say, and with validation on, fails
/// if the layer reported anything, so a clean run is a checked property.
pub fn run(args: &RenderArgs) -> Result<(), AppError> {
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
    let model = load_model(args.mesh.as_deref(), &args.anims, args.influences.into())?;
    let counts = if args.headless {
        headless::run(args, &model)?
    } else {
        window::run(args, &model)?
    };
    report_validation(counts.as_deref())
}

/// `md5crowd bench`: measures, prints a table, writes the JSON and the plot.
pub fn run_bench(args: &bench::BenchArgs) -> Result<(), AppError> {
    let model = load_model(args.mesh.as_deref(), &args.anims, InfluenceLimit::Four)?;
    let report = bench::run(args, &model)?;
    let write = |path: &Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| AppError::Arguments(format!("cannot write {}: {e}", path.display())))
    };
    if let Some(path) = &args.json {
        write(
            path,
            serde_json::to_string_pretty(&report).expect("report serializes") + "\n",
        )?;
        log::info!("wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        write(path, bench::svg_plot(&report))?;
        log::info!("wrote {}", path.display());
    }
    Ok(())
}

fn load_model(
    mesh: Option<&Path>,
    anims: &[PathBuf],
    limit: InfluenceLimit,
) -> Result<Model, AppError> {
    let (mesh, anims) = model_paths(mesh, anims)?;
    let model = Model::load(&mesh, &anims, limit)?;
    log::info!(
        "{}: {} joints, {} meshes, {} triangles, {} clip(s)",
        mesh.display(),
        model.skeleton.joint_count(),
        model.meshes.len(),
        model.triangle_count(),
        model.clips.len()
    );
    Ok(model)
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

/// The mesh and clips to load: as given, or the shipped character with
/// every clip beside it.
fn model_paths(
    mesh: Option<&Path>,
    anims: &[PathBuf],
) -> Result<(PathBuf, Vec<PathBuf>), AppError> {
    if let Some(mesh) = mesh {
        return Ok((mesh.to_owned(), anims.to_vec()));
    }
    let mesh = PathBuf::from(render_args::DEFAULT_MESH);
    if !mesh.is_file() {
        return Err(AppError::Arguments(format!(
            "no MESH given and the shipped character {} is not here (run from the repository root)",
            mesh.display()
        )));
    }
    let folder = mesh.parent().unwrap_or(Path::new("."));
    let mut anims: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| AppError::Arguments(format!("{}: {e}", folder.display())))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md5anim"))
        .collect();
    anims.sort();
    Ok((mesh, anims))
}
