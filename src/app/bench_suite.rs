//! `md5crowd bench --suite`: the figures docs/performance.md quotes, in one
//! command on any device. A fixed list of cases, each an ordinary bench
//! invocation; one crowd size at a time, so that a size the device cannot
//! hold is skipped (and said to be) while the rest still run. On a CPU
//! driver every crowd is 16 times smaller, so the suite ends in minutes.

use std::path::PathBuf;
use std::rc::Rc;

use ash::vk;
use serde::Serialize;

use super::bench::{self, BenchArgs, Mode, Run};
use super::load::load_cast;
use super::render_args::{AnimateKernel, CastArgs, DrawArgs, Influences, ShadowsArg, Switch, View};
use super::AppError;
use crate::gpu::GpuError;
use crate::synthetic;

/// One line of the suite: a bench invocation on some crowd sizes.
struct SuiteCase {
    name: &'static str,
    /// Crowd sizes, as a GPU runs them.
    instances: &'static [u32],
    /// The shipped character alone, or mixed with the two generated ones.
    mixed: bool,
    /// What the case sets beyond the suite's defaults.
    configure: fn(&mut BenchArgs),
}

const SUITE: [SuiteCase; 8] = [
    SuiteCase {
        name: "scale",
        instances: &[1024, 16_384, 65_536, 100_000, 250_000, 1_000_000],
        mixed: false,
        configure: |_| {},
    },
    SuiteCase {
        name: "skinning",
        instances: &[100_000],
        mixed: false,
        configure: |args| args.modes = vec![Mode::Gpu, Mode::Static],
    },
    SuiteCase {
        name: "lod",
        instances: &[16_384],
        mixed: false,
        configure: |args| args.lod = vec![Switch::On, Switch::Off],
    },
    SuiteCase {
        name: "occlusion",
        instances: &[100_000],
        mixed: false,
        configure: |args| {
            args.occlusion = vec![Switch::On, Switch::Off];
            args.view = vec![View::Street];
        },
    },
    SuiteCase {
        name: "animate",
        instances: &[16_384, 100_000],
        mixed: false,
        // Every instance posed, as the kernel comparison was measured.
        configure: |args| {
            args.compute_only = true;
            args.anim_lod = vec![Switch::Off];
            args.animate_kernel = vec![AnimateKernel::LanePerInstance, AnimateKernel::LanePerJoint];
        },
    },
    SuiteCase {
        name: "mixed",
        instances: &[65_536],
        mixed: true,
        configure: |_| {},
    },
    // What 4 samples a pixel cost against 1, the overview's.
    SuiteCase {
        name: "msaa",
        instances: &[4096, 65_536],
        mixed: false,
        configure: |args| args.msaa = vec![1, 4],
    },
    // What shadow maps cost against blob shadows and none, the overview's.
    SuiteCase {
        name: "shadows",
        instances: &[4096, 65_536],
        mixed: false,
        configure: |args| args.shadows = vec![ShadowsArg::Map, ShadowsArg::Blob, ShadowsArg::Off],
    },
];

/// On a CPU driver every crowd size is divided by this.
pub const CPU_DRIVER_DIVISOR: u32 = 16;
/// Timed frames per run: enough for a stable median on a GPU, few enough
/// for a CPU driver's second-long frames.
const GPU_FRAMES: u32 = 20;
const CPU_DRIVER_FRAMES: u32 = 3;

/// What `bench --suite --json` writes: the usual report's keys, each run
/// with its `"case"`, and what was scaled or skipped.
#[derive(Serialize)]
pub struct SuiteReport {
    pub device: String,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub rounds: u32,
    /// 16 on a CPU driver (every crowd that much smaller), else 1.
    pub instances_divided_by: u32,
    pub runs: Vec<Run>,
    /// Crowds the device could not hold, with why.
    pub skipped: Vec<Skipped>,
}

#[derive(Serialize)]
pub struct Skipped {
    pub case: &'static str,
    pub instances: u32,
    pub reason: String,
}

/// Runs the suite on `args.draw.gpu`'s device. `args` gives the device and
/// where the JSON goes; the cases set everything else.
pub fn run(args: &BenchArgs) -> Result<SuiteReport, AppError> {
    let ctx = bench::context(args.draw.gpu)?;
    let device_type = unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.physical_device)
            .device_type
    };
    let cpu_driver = device_type == vk::PhysicalDeviceType::CPU;
    let divisor = match args.suite_divisor {
        Some(divisor) => divisor,
        None if cpu_driver => CPU_DRIVER_DIVISOR,
        None => 1,
    };
    if cpu_driver {
        log::info!(
            "{} is a CPU driver: every crowd is {CPU_DRIVER_DIVISOR} times smaller",
            ctx.device_name
        );
    }
    let base = BenchArgs {
        draw: DrawArgs {
            width: 1920,
            height: 1080,
            ..args.draw.clone()
        },
        cast: CastArgs {
            influences: Influences::Eight,
            ..args.cast.clone()
        },
        frames: if cpu_driver {
            CPU_DRIVER_FRAMES
        } else {
            GPU_FRAMES
        },
        rounds: 1,
        modes: vec![Mode::Gpu],
        // One sample a pixel and blob shadows, as the figures before MSAA
        // and shadow maps were taken, so they stay comparable; the msaa
        // and shadows cases measure those.
        msaa: vec![1],
        shadows: vec![ShadowsArg::Blob],
        ..args.clone()
    };
    let shipped = Rc::new(load_cast(
        None,
        &[],
        None,
        &base.cast.load,
        base.cast.influences.into(),
    )?);
    let mut mixed = None;
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for case in &SUITE {
        let cast = if case.mixed {
            match &mixed {
                Some(cast) => Rc::clone(cast),
                None => Rc::clone(mixed.insert(mixed_cast(&base)?)),
            }
        } else {
            Rc::clone(&shipped)
        };
        for &instances in case.instances {
            let instances = (instances / divisor).max(1);
            let mut case_args = base.clone();
            (case.configure)(&mut case_args);
            case_args.instances = vec![instances];
            match bench::run(&ctx, &case_args, &cast) {
                Ok(report) => runs.extend(report.runs.into_iter().map(|run| Run {
                    suite_case: Some(case.name),
                    ..run
                })),
                Err(AppError::Gpu(error @ GpuError::CrowdTooLarge { .. })) => {
                    log::warn!("{}: {instances} instances skipped: {error}", case.name);
                    skipped.push(Skipped {
                        case: case.name,
                        instances,
                        reason: error.to_string(),
                    });
                }
                Err(error) => return Err(error),
            }
        }
    }
    ctx.wait_idle()?;
    Ok(SuiteReport {
        device: ctx.device_name.clone(),
        width: base.draw.width,
        height: base.draw.height,
        frames: base.frames,
        rounds: base.rounds,
        instances_divided_by: divisor,
        runs,
        skipped,
    })
}

/// The shipped character with the two generated ones the GPU figures
/// were taken with: 85 joints in 20 meshes, and 110 joints of up to 8
/// influences, written where temporary files go.
fn mixed_cast(args: &BenchArgs) -> Result<Rc<super::load::Cast>, AppError> {
    let dir = std::env::temp_dir().join(format!("md5crowd-suite-{}", std::process::id()));
    let written = |what: &str, result: std::io::Result<synthetic::WrittenSubject>| {
        result.map_err(|error| {
            AppError::Arguments(format!(
                "cannot write the {what} into {}: {error}",
                dir.display()
            ))
        })
    };
    let parts = written(
        "85-joint, 20-mesh character",
        synthetic::write_many_parts(&dir.join("P85"), 85, 20, 20.0),
    )?;
    let joints = written(
        "110-joint character",
        synthetic::write_many_joints(&dir.join("J110"), synthetic::DEFAULT_JOINTS),
    )?;
    let models: Vec<PathBuf> = [parts, joints]
        .into_iter()
        .flat_map(|subject| std::iter::once(subject.mesh).chain(subject.anims))
        .collect();
    let cast = load_cast(
        None,
        &models,
        None,
        &args.cast.load,
        args.cast.influences.into(),
    );
    // The files are read; the runtime model holds no file.
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Rc::new(cast?))
}

/// The suite as a markdown table: a row per run, then what was skipped.
pub fn markdown(report: &SuiteReport) -> String {
    let mut table = format!(
        "md5crowd bench --suite on {}, {}x{}, {} timed frames a run",
        report.device, report.width, report.height, report.frames
    );
    if report.instances_divided_by > 1 {
        table += &format!(
            " (every crowd {} times smaller than on a GPU)",
            report.instances_divided_by
        );
    }
    table += "\n\n| case | instances | models | what | frame ms | cpu ms | cull ms | animate ms | draw ms | triangles |\n";
    table += "|---|---|---|---|---|---|---|---|---|---|\n";
    for run in &report.runs {
        let pass = |prefix: &str| {
            let total: f64 = run
                .gpu_ms
                .iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, ms)| ms)
                .sum();
            if run.gpu_ms.keys().any(|name| name.starts_with(prefix)) {
                format!("{total:.3}")
            } else {
                "-".into()
            }
        };
        table += &format!(
            "| {} | {} | {} | {} | {:.2} | {:.3} | {} | {} | {} | {:.2} M |\n",
            run.suite_case.unwrap_or("-"),
            run.case.instances,
            run.models.join(" + "),
            describe(run),
            run.frame_ms,
            run.cpu_ms,
            pass("cull"),
            pass("animate"),
            pass("draw"),
            run.triangles / 1e6,
        );
    }
    for skipped in &report.skipped {
        table += &format!(
            "\nskipped: {} at {} instances: {}",
            skipped.case, skipped.instances, skipped.reason
        );
    }
    table + "\n"
}

/// The options that set a run apart, in words.
fn describe(run: &Run) -> String {
    let case = &run.case;
    let mut words = vec![case.mode.name().to_owned()];
    if let Some(kernel) = run.animate_kernel {
        words.push(kernel.to_owned());
    }
    if run.compute_only {
        words.push("compute only".into());
    }
    let off = |switch: Switch, what: &str| (switch == Switch::Off).then(|| format!("{what} off"));
    words.extend(off(case.lod, "LOD"));
    words.extend(off(case.occlusion, "occlusion"));
    words.extend(off(case.anim_lod, "anim LOD"));
    if case.view == View::Street {
        words.push("street".into());
    }
    if run.msaa > 1 {
        words.push(format!("MSAA {}x", run.msaa));
    }
    match case.shadows {
        ShadowsArg::Map => words.push("shadow maps".into()),
        ShadowsArg::Blob => {}
        ShadowsArg::Off => words.push("shadows off".into()),
    }
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_holds_the_cases_and_sizes_the_gpu_figures_were_taken_at() {
        let names: Vec<&str> = SUITE.iter().map(|case| case.name).collect();
        assert_eq!(
            names,
            [
                "scale",
                "skinning",
                "lod",
                "occlusion",
                "animate",
                "mixed",
                "msaa",
                "shadows"
            ]
        );
        assert_eq!(
            SUITE[0].instances,
            [1024, 16_384, 65_536, 100_000, 250_000, 1_000_000]
        );
        assert!(SUITE.iter().filter(|case| case.mixed).count() == 1);
    }
}
