use glam::{Vec3, Vec4};

/// How a crowd is laid out and varied. Everything random derives from `seed`,
/// so a crowd is reproducible across runs, machines and the CPU/GPU paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdLayout {
    pub instances: usize,
    /// Distance between neighbours on the grid, in model units.
    pub spacing: f32,
    pub seed: u64,
}

/// One character of the crowd. Its local animation time is
/// `time * rate + phase`; while `blend_weight(time) < 1` it crossfades from
/// `previous_clip` to `clip` at that same local time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    pub position: Vec3,
    /// Rotation about +Z, radians.
    pub yaw: f32,
    pub clip: u32,
    pub previous_clip: u32,
    /// Global time at which the switch to `clip` began.
    pub blend_start: f32,
    pub phase: f32,
    pub rate: f32,
    pub tint: Vec4,
}

impl Instance {
    pub fn local_time(&self, time: f32) -> f32 {
        time * self.rate + self.phase
    }

    /// 0 at the start of a crossfade, 1 once it is over (or when there is none).
    pub fn blend_weight(&self, time: f32, blend_time: f32) -> f32 {
        if self.clip == self.previous_clip || blend_time <= 0.0 {
            1.0
        } else {
            ((time - self.blend_start) / blend_time).clamp(0.0, 1.0)
        }
    }

    /// Starts a crossfade to `clip` at `time` from whatever is showing now.
    pub fn switch_clip(&mut self, clip: u32, time: f32) {
        self.previous_clip = self.clip;
        self.clip = clip;
        self.blend_start = time;
    }
}

/// A square grid centred on the origin, each instance with a seeded yaw,
/// clip, start phase, playback rate (within +-20%) and tint.
pub fn spawn_crowd(
    layout: &CrowdLayout,
    clip_count: usize,
    clip_durations: &[f32],
) -> Vec<Instance> {
    let columns = (layout.instances as f64).sqrt().ceil().max(1.0) as usize;
    let rows = layout.instances.div_ceil(columns);
    let centre = Vec3::new((columns - 1) as f32, (rows.max(1) - 1) as f32, 0.0) * 0.5;
    let mut random = SplitMix64(layout.seed);
    (0..layout.instances)
        .map(|i| {
            let cell = Vec3::new((i % columns) as f32, (i / columns) as f32, 0.0);
            let clip = if clip_count == 0 {
                0
            } else {
                random.below(clip_count as u32)
            };
            let duration = clip_durations.get(clip as usize).copied().unwrap_or(0.0);
            Instance {
                position: (cell - centre) * layout.spacing,
                yaw: random.unit() * std::f32::consts::TAU,
                clip,
                previous_clip: clip,
                blend_start: 0.0,
                phase: random.unit() * duration,
                rate: 0.8 + 0.4 * random.unit(),
                tint: Vec4::new(
                    0.6 + 0.4 * random.unit(),
                    0.6 + 0.4 * random.unit(),
                    0.6 + 0.4 * random.unit(),
                    1.0,
                ),
            }
        })
        .collect()
}

/// SplitMix64: a tiny, well-known generator; its exact sequence is part of
/// what makes `--seed` reproducible, so it is spelled out here rather than
/// borrowed from a crate whose algorithm may change between versions.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [0, n) for n > 0.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_is_centred_and_seeded() {
        let layout = CrowdLayout {
            instances: 10,
            spacing: 2.0,
            seed: 7,
        };
        let crowd = spawn_crowd(&layout, 3, &[1.0, 2.0, 3.0]);
        assert_eq!(crowd.len(), 10);
        assert_eq!(
            crowd,
            spawn_crowd(&layout, 3, &[1.0, 2.0, 3.0]),
            "same seed, same crowd"
        );
        let other = spawn_crowd(&CrowdLayout { seed: 8, ..layout }, 3, &[1.0, 2.0, 3.0]);
        assert_ne!(crowd, other);
        // 4 columns x 3 rows, centred: x in -3..3, y in -2..2.
        assert_eq!(crowd[0].position, Vec3::new(-3.0, -2.0, 0.0));
        assert_eq!(crowd[9].position, Vec3::new(-1.0, 2.0, 0.0));
        for i in &crowd {
            assert!(i.clip < 3 && (0.8..1.2).contains(&i.rate));
            assert!(i.phase >= 0.0 && i.phase < 3.0);
        }
        let clips: std::collections::BTreeSet<u32> = crowd.iter().map(|i| i.clip).collect();
        assert!(clips.len() > 1, "clips vary");
    }

    #[test]
    fn crossfade_weight_ramps() {
        let layout = CrowdLayout {
            instances: 1,
            spacing: 1.0,
            seed: 1,
        };
        let mut i = spawn_crowd(&layout, 2, &[1.0, 1.0])[0];
        assert_eq!(i.blend_weight(5.0, 0.25), 1.0);
        let next = 1 - i.clip;
        i.switch_clip(next, 5.0);
        assert_eq!(i.blend_weight(5.0, 0.25), 0.0);
        assert!((i.blend_weight(5.125, 0.25) - 0.5).abs() < 1e-5);
        assert_eq!(i.blend_weight(6.0, 0.25), 1.0);
    }
}
