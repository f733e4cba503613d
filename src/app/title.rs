//! The window title as a live profile: frame rate, CPU and GPU time per
//! frame (GPU per pass too), what was drawn and how, averaged over half a
//! second so the numbers can be read.

use std::time::{Duration, Instant};

use super::scene::Scene;
use crate::gpu::crowd_buffers::Animation;
use crate::gpu::frame_loop::{MeasuredFrame, VisibleCounts};
use crate::gpu::profiler::FrameTimings;
use crate::gpu::renderer::Renderer;
use crate::skin::SkinningMethod;

/// How often the title changes.
pub const REFRESH: Duration = Duration::from_millis(500);

/// What the title shows.
#[derive(Clone, Debug, PartialEq)]
pub struct TitleStats {
    pub fps: f64,
    /// Recording and submitting a frame's commands.
    pub cpu_ms: f64,
    /// Per pass; `None` when the device writes no timestamps.
    pub gpu: Option<FrameTimings>,
    pub visible_instances: u32,
    /// Of the visible instances, those drawn as impostors.
    pub impostor_instances: u32,
    /// Of those, the ones drawn as meshes too: the band around the switch.
    pub impostor_band_instances: u32,
    pub total_instances: u32,
    pub triangles: u64,
    pub clip: String,
    pub skinning: &'static str,
    /// Joints per vertex.
    pub influences: usize,
    /// Samples per pixel drawn.
    pub msaa: u32,
    /// A row per model: the overlay's table of a mixed crowd.
    pub models: Vec<ModelStats>,
}

/// One model's part of the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelStats {
    pub name: String,
    pub instances: u32,
    pub visible: u32,
    /// Of its visible instances, those drawn as impostors.
    pub impostors: u32,
    pub triangles: u64,
}

/// `md5crowd | 60.0 fps | CPU 0.41 ms | GPU 2.35 ms (draw 2.30, skeleton 0.05) |
/// 25/25 instances, 3 impostors | 148.0k triangles | walk | LBS, 4 influences | MSAA 4x`
pub fn window_title(stats: &TitleStats) -> String {
    let gpu = match &stats.gpu {
        Some(timings) if !timings.passes.is_empty() => {
            let passes: Vec<String> = timings
                .passes
                .iter()
                .map(|(name, ms)| format!("{name} {ms:.2}"))
                .collect();
            format!("GPU {:.2} ms ({})", timings.gpu_ms(), passes.join(", "))
        }
        _ => "GPU n/a".to_owned(),
    };
    format!(
        "md5crowd | {:.1} fps | CPU {:.2} ms | {gpu} | {}/{} instances, {} impostors | {} triangles | {} | {}, {} influences | MSAA {}x",
        stats.fps,
        stats.cpu_ms,
        stats.visible_instances,
        stats.total_instances,
        stats.impostor_instances,
        thousands(stats.triangles),
        stats.clip,
        stats.skinning,
        stats.influences,
        stats.msaa,
    )
}

/// The title's numbers for `scene`, given a refresh interval's averages
/// and the instances the cull pass kept (the overlay shows them too), as
/// `renderer` drew them.
pub fn title_stats(
    averages: &Averages,
    scene: &Scene,
    visible: VisibleCounts,
    renderer: &Renderer,
) -> TitleStats {
    let parts = &renderer.model.model.parts;
    let models = &scene.cast.models;
    let crowd = &scene.crowd;
    let clip = match crowd.instances.first() {
        _ if crowd.walks() => "walking",
        focus => focus
            .and_then(|focus| models[focus.model as usize].clips.get(focus.clip as usize))
            .map_or("bind pose", |clip| clip.name.as_str()),
    };
    TitleStats {
        fps: averages.fps,
        cpu_ms: averages.cpu_ms,
        gpu: averages.gpu.clone(),
        visible_instances: visible.total(),
        impostor_instances: visible.impostor_total(),
        impostor_band_instances: visible.band_total(),
        total_instances: crowd.instances.len() as u32,
        triangles: visible.triangles(parts),
        models: parts
            .iter()
            .enumerate()
            .map(|(model, part)| ModelStats {
                name: part.name.clone(),
                instances: crowd.model_instances(model) as u32,
                visible: visible.model_total(model),
                impostors: visible.impostors[model],
                triangles: visible.model_triangles(model, part),
            })
            .collect(),
        clip: clip.to_owned(),
        skinning: skinning_label(scene.view.skinning, crowd.spec.animation),
        influences: models[0].influences().count(),
        msaa: renderer.samples(),
    }
}

/// How vertices are skinned: with linear blending or dual quaternions, on
/// the GPU or by the CPU reference, or not at all.
pub fn skinning_label(method: SkinningMethod, animation: Animation) -> &'static str {
    match (animation, method) {
        (Animation::BindPose, _) => "unskinned",
        (Animation::CpuSkinned, SkinningMethod::Linear) => "CPU LBS",
        (Animation::CpuSkinned, SkinningMethod::DualQuaternion) => "CPU DQS",
        (_, SkinningMethod::Linear) => "LBS",
        (_, SkinningMethod::DualQuaternion) => "DQS",
    }
}

/// `950`, `148.0k`, `12.35M`: short enough for a title bar.
fn thousands(count: u64) -> String {
    match count {
        0..=9_999 => count.to_string(),
        10_000..=9_999_999 => format!("{:.1}k", count as f64 / 1e3),
        _ => format!("{:.2}M", count as f64 / 1e6),
    }
}

/// The averages of one refresh interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Averages {
    pub fps: f64,
    pub cpu_ms: f64,
    pub gpu: Option<FrameTimings>,
}

/// Sums measured frames until [`REFRESH`] has passed.
pub struct FrameMeter {
    since: Instant,
    frames: u32,
    cpu: Duration,
    /// Per pass name, milliseconds summed over the interval.
    passes: Vec<(&'static str, f64)>,
    timed_frames: u32,
}

impl FrameMeter {
    pub fn new(now: Instant) -> FrameMeter {
        FrameMeter {
            since: now,
            frames: 0,
            cpu: Duration::ZERO,
            passes: Vec::new(),
            timed_frames: 0,
        }
    }

    pub fn add(&mut self, frame: &MeasuredFrame) {
        self.frames += 1;
        self.cpu += frame.cpu;
        if frame.gpu.passes.is_empty() {
            return;
        }
        self.timed_frames += 1;
        for &(name, ms) in &frame.gpu.passes {
            match self.passes.iter_mut().find(|(known, _)| *known == name) {
                Some((_, sum)) => *sum += ms,
                None => self.passes.push((name, ms)),
            }
        }
    }

    /// The interval's averages once [`REFRESH`] has passed (and restarts),
    /// else `None`. A pass missing from some frames (the skeleton, toggled)
    /// counts as zero there, so the passes still add up to the frame.
    pub fn report(&mut self, now: Instant) -> Option<Averages> {
        let elapsed = now.duration_since(self.since);
        if elapsed < REFRESH {
            return None;
        }
        let interval = std::mem::replace(self, FrameMeter::new(now));
        if interval.frames == 0 {
            return None;
        }
        let timed = f64::from(interval.timed_frames);
        Some(Averages {
            fps: f64::from(interval.frames) / elapsed.as_secs_f64(),
            cpu_ms: interval.cpu.as_secs_f64() * 1e3 / f64::from(interval.frames),
            gpu: (interval.timed_frames > 0).then(|| FrameTimings {
                passes: interval
                    .passes
                    .iter()
                    .map(|&(n, ms)| (n, ms / timed))
                    .collect(),
                vertex_invocations: None,
                clipping_primitives: None,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(index: u64, cpu_ms: u64, passes: Vec<(&'static str, f64)>) -> MeasuredFrame {
        MeasuredFrame {
            index,
            cpu: Duration::from_millis(cpu_ms),
            gpu: FrameTimings {
                passes,
                vertex_invocations: Some(100),
                clipping_primitives: Some(30),
            },
        }
    }

    #[test]
    fn the_title_lists_every_number() {
        let title = window_title(&TitleStats {
            fps: 59.94,
            cpu_ms: 0.414,
            gpu: Some(FrameTimings {
                passes: vec![("draw", 2.3), ("skeleton", 0.05)],
                vertex_invocations: None,
                clipping_primitives: None,
            }),
            visible_instances: 20,
            impostor_instances: 3,
            impostor_band_instances: 1,
            total_instances: 25,
            triangles: 148_000,
            clip: "walk".into(),
            skinning: "LBS",
            influences: 4,
            msaa: 4,
            models: Vec::new(),
        });
        assert_eq!(
            title,
            "md5crowd | 59.9 fps | CPU 0.41 ms | GPU 2.35 ms (draw 2.30, skeleton 0.05) | \
             20/25 instances, 3 impostors | 148.0k triangles | walk | LBS, 4 influences | MSAA 4x"
        );
    }

    #[test]
    fn without_timestamps_the_gpu_time_says_so() {
        let title = window_title(&TitleStats {
            fps: 30.0,
            cpu_ms: 1.0,
            gpu: None,
            visible_instances: 1,
            impostor_instances: 0,
            impostor_band_instances: 0,
            total_instances: 1,
            triangles: 5920,
            clip: "bind pose".into(),
            skinning: "DQS",
            influences: 8,
            msaa: 1,
            models: Vec::new(),
        });
        assert!(title.contains("| GPU n/a |"), "{title}");
        assert!(title.contains("| 5920 triangles |"), "{title}");
    }

    #[test]
    fn the_meter_averages_over_the_refresh_interval() {
        let start = Instant::now();
        let mut meter = FrameMeter::new(start);
        meter.add(&measured(0, 2, vec![("draw", 3.0), ("skeleton", 1.0)]));
        meter.add(&measured(1, 4, vec![("draw", 5.0)]));
        assert_eq!(meter.report(start + REFRESH / 2), None);
        let averages = meter.report(start + REFRESH).unwrap();
        assert!((averages.fps - 4.0).abs() < 1e-9, "{averages:?}");
        assert!((averages.cpu_ms - 3.0).abs() < 1e-9);
        let gpu = averages.gpu.unwrap();
        assert_eq!(gpu.passes, vec![("draw", 4.0), ("skeleton", 0.5)]);
        // The next interval starts empty.
        assert_eq!(meter.report(start + 3 * REFRESH), None);
    }

    #[test]
    fn large_counts_are_abbreviated() {
        assert_eq!(thousands(950), "950");
        assert_eq!(thousands(148_000), "148.0k");
        assert_eq!(thousands(12_345_678), "12.35M");
    }
}
