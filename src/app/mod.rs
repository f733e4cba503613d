//! Rendering a model: loading, the CPU-side crowd and camera, and the two
//! ways frames leave the GPU (a window, or PNG files when headless).

mod camera;
pub mod controls;
mod crowd_state;
mod headless;
pub mod memory;
pub mod model_args;
pub mod render_args;
mod window;

use std::sync::Arc;

use ash::vk;

use crate::gpu::context::Validation;
use crate::gpu::debug::MessageCounts;
use crate::gpu::renderer::{Renderer, RendererDesc};
use crate::gpu::{Context, GpuError};
use crate::md5::Md5Error;
use crate::model::Model;
use crowd_state::{CrowdSpec, CrowdState};
use memory::DeviceLimits;
pub use render_args::RenderArgs;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Load(#[from] Md5Error),
    #[error("{0}")]
    Arguments(String),
    #[error(transparent)]
    Gpu(GpuError),
    #[error("{}", crowd_too_large(*.instances, *.fit, .limit))]
    CrowdTooLarge {
        instances: u32,
        fit: u64,
        /// The device limit that decides, in words.
        limit: String,
    },
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

fn crowd_too_large(instances: u32, fit: u64, limit: &str) -> String {
    match fit {
        0 => format!("not even one instance fits this GPU: {limit}"),
        _ => format!("{instances} instances do not fit this GPU: {limit}; try --instances {fit}"),
    }
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
            AppError::Load(_) | AppError::Arguments(_) => 2,
            AppError::Gpu(
                GpuError::Texture { .. } | GpuError::EmptyModel(_) | GpuError::GpuIndex { .. },
            ) => 2,
            AppError::Gpu(_)
            | AppError::CrowdTooLarge { .. }
            | AppError::DeviceLost { .. }
            | AppError::Unsupported(_)
            | AppError::Screenshot { .. }
            | AppError::Window(_)
            | AppError::Validation { .. } => 1,
        }
    }
}

/// Loads the model, renders as `args` say, and with validation on, fails
/// if the layer reported anything, so a clean run is a checked property.
pub fn run(args: &RenderArgs) -> Result<(), AppError> {
    let files = model_args::resolve(args.model.as_deref(), &args.anims, args.mesh.as_deref())?;
    let model = Model::load(&files.mesh, &files.anims, args.influences.into())?;
    let spec = CrowdSpec {
        instances: args.instances(),
        seed: args.seed,
        spacing: args.spacing,
        clip: starting_clip(&model, args.clip.as_deref())?,
        blend_time: args.blend_time,
        animation: args.animation(),
        cpu_skinning: args.cpu_skinning,
    };
    let counts = if args.headless {
        headless::run(args, &model, spec)?
    } else {
        window::run(args, &model, spec)?
    };
    report_validation(counts.as_deref())
}

/// `--clip NAME` as an index into the model's clips.
fn starting_clip(model: &Model, name: Option<&str>) -> Result<Option<u32>, AppError> {
    let Some(name) = name else {
        return Ok(None);
    };
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    match names.iter().position(|&n| n == name) {
        Some(index) => Ok(Some(index as u32)),
        None if names.is_empty() => Err(AppError::Arguments(format!(
            "--clip {name}: the model has no clips (name .md5anim files after the mesh)"
        ))),
        None => Err(AppError::Arguments(format!(
            "--clip {name}: no such clip; the clips are: {}",
            names.join(", ")
        ))),
    }
}

/// The one start-up line: what runs where.
fn log_summary(ctx: &Context, model: &Model, instances: u32) {
    let clips: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    log::info!(
        "{}: {}, {} joints, {} meshes, {} triangles, {} clip(s) ({}), {} instance(s)",
        ctx.device_name,
        model.mesh_path.display(),
        model.skeleton.joint_count(),
        model.meshes.len(),
        model.triangle_count(),
        clips.len(),
        clips.join(", "),
        instances
    );
}

/// The crowd and a renderer for it, once the device is known to hold its
/// per-instance buffers (checked before the CPU side is built, whose
/// memory grows with the crowd too).
fn build_crowd(
    ctx: &Context,
    model: &Model,
    spec: CrowdSpec,
    extent: vk::Extent2D,
) -> Result<(CrowdState, Renderer), AppError> {
    let buffers = memory::per_instance_buffers(model, spec.animation, spec.cpu_skinning);
    let fit = memory::instances_that_fit(&buffers, &DeviceLimits::of(ctx));
    let too_large = |fit: u64, limit: String| AppError::CrowdTooLarge {
        instances: spec.instances,
        fit,
        limit,
    };
    if u64::from(spec.instances) > fit.instances {
        return Err(too_large(fit.instances, fit.limit));
    }
    let crowd = CrowdState::new(model, spec);
    let desc = RendererDesc {
        extent,
        animation: spec.animation,
        cpu_skinning: spec.cpu_skinning,
    };
    match Renderer::new(ctx, model, &crowd.placements, &desc) {
        Ok(renderer) => Ok((crowd, renderer)),
        // The limits allowed it, but the heap is shared (the model, other
        // programs): half as many is the next thing to try.
        Err(error) if is_out_of_memory(&error) => Err(too_large(
            u64::from(spec.instances / 2),
            format!("{error}, as its memory heap is shared with the model and other programs"),
        )),
        Err(error) => Err(error.into()),
    }
}

fn is_out_of_memory(error: &GpuError) -> bool {
    match error {
        GpuError::Allocation { source, .. } => {
            matches!(source, gpu_allocator::AllocationError::OutOfMemory)
        }
        GpuError::Vulkan { result, .. } => matches!(
            *result,
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY
        ),
        _ => false,
    }
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
    fn out_of_memory_is_told_apart() {
        let oom = GpuError::Vulkan {
            call: "vkAllocateMemory",
            result: vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        };
        assert!(is_out_of_memory(&oom));
        assert!(is_out_of_memory(&GpuError::Allocation {
            name: "frame 0 skinning transforms".into(),
            source: gpu_allocator::AllocationError::OutOfMemory,
        }));
        assert!(!is_out_of_memory(&GpuError::NoDriver));
        let too_large = AppError::CrowdTooLarge {
            instances: 4096,
            fit: 2048,
            limit: "a reason".into(),
        };
        assert_eq!(too_large.exit_code(), 1);
        assert_eq!(
            too_large.to_string(),
            "4096 instances do not fit this GPU: a reason; try --instances 2048"
        );
    }
}
