//! The GPU profiler through `--print-timings`: every frame reports its CPU
//! time, a time for each pass and, where the device counts them, vertex
//! shader invocations and clipped primitives.

use crate::common;

use common::{assets, md5crowd_validated, scratch_dir, vulkan_or_skip};
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::{Context, ContextDesc};

const FRAMES: u64 = 4;
const INSTANCES: u64 = 3;

/// One `--print-timings` line: `frame 3: CPU 0.412 ms, GPU 2.345 ms (draw
/// 2.300 ms, overlay 0.045 ms); 10452 vertex invocations, 17826 clipping
/// primitives`.
#[derive(Debug)]
struct Line {
    frame: u64,
    cpu_ms: f64,
    gpu_ms: Option<f64>,
    passes: Vec<(String, f64)>,
    statistics: Option<(u64, u64)>,
}

fn parse(line: &str) -> Option<Line> {
    let rest = line.strip_prefix("frame ")?;
    let (frame, rest) = rest.split_once(": CPU ")?;
    let (cpu, rest) = rest.split_once(" ms, ")?;
    let (gpu, statistics) = rest.split_once("; ")?;
    let (gpu_ms, passes) = match gpu.strip_prefix("GPU ") {
        Some(gpu) => {
            let (total, passes) = gpu.split_once(" ms (")?;
            let passes = passes
                .strip_suffix(')')?
                .split(", ")
                .map(|pass| {
                    let (name, ms) = pass.strip_suffix(" ms")?.rsplit_once(' ')?;
                    Some((name.to_owned(), ms.parse().ok()?))
                })
                .collect::<Option<Vec<_>>>()?;
            (Some(total.parse().ok()?), passes)
        }
        None if gpu == "no GPU timestamps" => (None, Vec::new()),
        None => return None,
    };
    let statistics = match statistics.split_once(" vertex invocations, ") {
        Some((vertices, primitives)) => Some((
            vertices.parse().ok()?,
            primitives
                .strip_suffix(" clipping primitives")?
                .parse()
                .ok()?,
        )),
        None if statistics == "no pipeline statistics" => None,
        None => return None,
    };
    Some(Line {
        frame: frame.parse().ok()?,
        cpu_ms: cpu.parse().ok()?,
        gpu_ms,
        passes,
        statistics,
    })
}

#[test]
fn every_frame_reports_its_passes_and_statistics() {
    if !vulkan_or_skip() {
        return;
    }
    let ctx = Context::new(&ContextDesc {
        validation: Validation::Off,
        gpu_index: None,
        window: None,
    })
    .expect("a Vulkan device");
    let queries = ctx.queries;
    drop(ctx);

    let dir = scratch_dir("print_timings");
    let png = dir.join("frame.png");
    let mesh = assets().join("crowdling.md5mesh");
    let anim = assets().join("walk.md5anim");
    let (frames, instances) = (FRAMES.to_string(), INSTANCES.to_string());
    let output = md5crowd_validated(&[
        mesh.to_str().unwrap(),
        anim.to_str().unwrap(),
        "--headless",
        // The passes checked below: no agent pass, no ground.
        "--locomotion",
        "off",
        "--width",
        "160",
        "--height",
        "120",
        "--frames",
        &frames,
        "--instances",
        &instances,
        "--skeleton",
        // One culling phase (its passes are checked below) and the full
        // meshes (whose vertices are counted).
        "--occlusion",
        "off",
        "--lod",
        "off",
        // Shadow maps, which a CPU driver draws only when asked.
        "--shadows",
        "map",
        "--print-timings",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<Line> = stdout
        .lines()
        .map(|l| parse(l).unwrap_or_else(|| panic!("unexpected line: {l}")))
        .collect();
    assert_eq!(
        lines.iter().map(|l| l.frame).collect::<Vec<_>>(),
        (0..FRAMES).collect::<Vec<_>>(),
        "{stdout}"
    );
    // Every vertex of every instance is shaded at least once: the
    // crowdling has 3158 md5 vertices (more once split at uv seams).
    let fewest_invocations = 3158 * INSTANCES;
    for line in &lines {
        assert!(line.cpu_ms >= 0.0, "{line:?}");
        match (queries.timestamps, line.gpu_ms) {
            (Some(_), Some(gpu_ms)) => {
                let names: Vec<&str> = line.passes.iter().map(|(n, _)| n.as_str()).collect();
                // The default shadow maps' 3 cascades: a cull and the
                // casters' draws each.
                assert_eq!(
                    names,
                    [
                        "cull",
                        "animate",
                        "shadow cull 0",
                        "shadow cull 1",
                        "shadow cull 2",
                        "shadow cascade 0",
                        "shadow cascade 1",
                        "shadow cascade 2",
                        "ground",
                        "draw",
                        "skeleton"
                    ],
                    "{line:?}"
                );
                assert!(line.passes.iter().all(|&(_, ms)| ms >= 0.0), "{line:?}");
                let sum: f64 = line.passes.iter().map(|(_, ms)| ms).sum();
                // Printed to 3 decimals each, the total too: each off by
                // at most half of the last.
                let rounding = 0.0005 * (line.passes.len() + 1) as f64;
                assert!((sum - gpu_ms).abs() <= rounding + 1e-9, "{line:?}");
            }
            (None, None) => {}
            (expected, _) => panic!("timestamps {expected:?} but {line:?}"),
        }
        match (queries.pipeline_statistics, line.statistics) {
            (true, Some((vertices, primitives))) => {
                assert!(vertices >= fewest_invocations, "{line:?}");
                assert!(primitives > 0, "{line:?}");
            }
            (false, None) => {}
            (supported, _) => panic!("pipelineStatisticsQuery {supported} but {line:?}"),
        }
    }
}
