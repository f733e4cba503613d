use glam::{Vec3, Vec4};

use crate::anim::Clip;

use super::InstanceLayers;

/// How a crowd is laid out and varied. Everything random derives from `seed`,
/// so a crowd is reproducible across runs, machines and the CPU/GPU paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdLayout {
    pub instances: usize,
    /// Distance between neighbours on the grid, in model units.
    pub spacing: f32,
    pub seed: u64,
}

/// One character of the crowd, and the crossfade it is in. Each clip slot
/// has its own phase: the clip's local time is `time * rate + phase`, so a
/// one-shot starts at its first frame and a clip being faded out carries on
/// where it was.
///
/// What shows at global `time`, with `w = blend_weight(time)`:
/// `blend(from, sample(clip), w)` where the fade's starting pose is itself a
/// blend, `from = blend(sample(older_clip), sample(previous_clip),
/// from_weight)`: a switch during a fade starts from what is on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    pub position: Vec3,
    /// Rotation about +Z, radians.
    pub yaw: f32,
    /// The clip fading in, or playing alone once the fade is over.
    pub clip: u32,
    pub phase: f32,
    /// The fade's starting pose: `older_clip` blended towards
    /// `previous_clip` by `from_weight` (1: `previous_clip` alone). All
    /// three clips equal: no fade since the crowd was made.
    pub previous_clip: u32,
    pub previous_phase: f32,
    pub older_clip: u32,
    pub older_phase: f32,
    pub from_weight: f32,
    /// Global time at which the switch to `clip` began.
    pub blend_start: f32,
    pub rate: f32,
    /// The seeded phase looping clips play at (CPU side only): kept while a
    /// one-shot plays, so the crowd is out of step again after it.
    pub loop_phase: f32,
    pub tint: Vec4,
    /// Which of the model's skins draws it (`Model::skins`; 0: the first).
    pub skin: u32,
    /// Which of the crowd's models it is (0: the first); its clips are
    /// that model's.
    pub model: u32,
    /// Clips laid over this one on channels of its model, in order.
    pub layers: InstanceLayers,
}

impl Instance {
    /// At the origin, facing +X, untinted, at normal speed, playing `clip`
    /// alone at phase `phase` (also its looping phase).
    pub fn settled(clip: u32, phase: f32) -> Instance {
        Instance {
            position: Vec3::ZERO,
            yaw: 0.0,
            clip,
            phase,
            previous_clip: clip,
            previous_phase: phase,
            older_clip: clip,
            older_phase: phase,
            from_weight: 1.0,
            blend_start: 0.0,
            rate: 1.0,
            loop_phase: phase,
            tint: Vec4::ONE,
            skin: 0,
            model: 0,
            layers: InstanceLayers::NONE,
        }
    }

    /// Plays `clip` alone at `phase` from now on, with no fade behind it;
    /// placement, rate, tint and looping phase stay.
    pub fn settle(&mut self, clip: u32, phase: f32) {
        (self.clip, self.previous_clip, self.older_clip) = (clip, clip, clip);
        (self.phase, self.previous_phase, self.older_phase) = (phase, phase, phase);
        self.from_weight = 1.0;
    }

    /// Whether a layer plays over its clip (cull.comp's `plays_layers`):
    /// its pose is then its own, within its model's layered radius.
    pub fn plays_layers(&self) -> bool {
        self.layers
            .as_slice()
            .iter()
            .any(|layer| layer.weight > 0.0)
    }

    /// `clip`'s local time.
    pub fn local_time(&self, time: f32) -> f32 {
        self.clip_time(time, self.phase)
    }

    /// The local time of a clip slot with `phase`.
    pub fn clip_time(&self, time: f32, phase: f32) -> f32 {
        time * self.rate + phase
    }

    /// 0 at the start of a crossfade, 1 once it is over (or when there is none).
    pub fn blend_weight(&self, time: f32, blend_time: f32) -> f32 {
        crossfade_weight(
            self.clip != self.previous_clip,
            self.blend_start,
            (time, blend_time),
        )
    }

    /// Starts a crossfade to `clip` at `time` from what shows now: a
    /// one-shot (`looping` false) from its first frame, a looping clip at
    /// the seeded `loop_phase`. Nothing happens when `clip` already fades
    /// in.
    ///
    /// A switch during a fade whose starting pose is a single clip keeps
    /// every contributor: the old fade becomes the new starting pose, and
    /// the pose at `time` is the same before and after. A switch during a
    /// fade that itself started during a fade would need four clips; the
    /// least weighted of the three showing is dropped instead (the others'
    /// weights renormalized), a jump of at most that weight's share.
    pub fn switch_clip(&mut self, clip: u32, looping: bool, time: f32, blend_time: f32) {
        if clip == self.clip {
            return;
        }
        let weight = self.blend_weight(time, blend_time);
        let current = (self.clip, self.phase);
        let previous = (self.previous_clip, self.previous_phase);
        let older = (self.older_clip, self.older_phase);
        let (older, previous, from_weight) = if weight >= 1.0 {
            (current, current, 1.0)
        } else if self.from_weight >= 1.0 {
            (previous, current, weight)
        } else {
            let older_share = (1.0 - self.from_weight) * (1.0 - weight);
            let previous_share = self.from_weight * (1.0 - weight);
            // Dropping the clip fading in keeps the starting pose as it is,
            // unless the new clip is the one that pose fades towards (then
            // the fade would have no start: `clip == previous_clip`).
            if weight <= older_share.min(previous_share) && clip != self.previous_clip {
                (older, previous, self.from_weight)
            } else if older_share <= previous_share {
                (previous, current, weight / (previous_share + weight))
            } else {
                (older, current, weight / (older_share + weight))
            }
        };
        (self.older_clip, self.older_phase) = older;
        (self.previous_clip, self.previous_phase) = previous;
        self.from_weight = from_weight;
        self.clip = clip;
        self.phase = if looping {
            self.loop_phase
        } else {
            -time * self.rate
        };
        self.blend_start = time;
    }
}

/// How far a crossfade that began at `blend_start` is at `time`: 0 at its
/// start, 1 once over, and 1 when nothing `fades` (animate.glsl's
/// `crossfade_weight`).
pub(super) fn crossfade_weight(
    fades: bool,
    blend_start: f32,
    (time, blend_time): (f32, f32),
) -> f32 {
    if !fades || blend_time <= 0.0 {
        1.0
    } else {
        ((time - blend_start) / blend_time).clamp(0.0, 1.0)
    }
}

/// A square grid centred on the origin, each instance with a seeded yaw,
/// clip, start phase, playback rate (within +-20%) and tint. The clips are
/// drawn from the looping ones (a one-shot in a background crowd would
/// freeze after a few seconds), or from all when none loops.
pub fn spawn_crowd(layout: &CrowdLayout, clips: &[Clip]) -> Vec<Instance> {
    let (instances, _) = spawn_mixed_crowd(layout, &[clips], &[layout.instances]);
    instances
}

/// [`spawn_crowd`] for a crowd mixing models: `model_clips` holds each
/// model's clips, `counts` how many instances each gets (they sum to
/// `layout.instances`). Which grid cell holds which model is seeded, from a
/// generator of its own, so the models mingle; each instance draws its
/// clip from its model's. Returns the instances sorted by model (the order
/// the GPU keeps them in, see `gpu::shader_types::CrowdInstance`) and, per
/// instance, the grid cell it stands in.
pub fn spawn_mixed_crowd(
    layout: &CrowdLayout,
    model_clips: &[&[Clip]],
    counts: &[usize],
) -> (Vec<Instance>, Vec<usize>) {
    let mut cell_models: Vec<u32> = counts
        .iter()
        .enumerate()
        .flat_map(|(model, &count)| std::iter::repeat_n(model as u32, count))
        .collect();
    cell_models.resize(layout.instances, 0);
    // Fisher-Yates; a crowd of one model keeps its cells in order.
    let mut shuffle = SplitMix64(layout.seed ^ 0x6d6f_6465_6c73); // "models"
    if counts.len() > 1 {
        for i in (1..cell_models.len()).rev() {
            let j = shuffle.below(i as u32 + 1) as usize;
            cell_models.swap(i, j);
        }
    }
    let candidates: Vec<Vec<u32>> = model_clips
        .iter()
        .map(|clips| {
            let looping: Vec<u32> = (0..clips.len() as u32)
                .filter(|&c| clips[c as usize].looping)
                .collect();
            if looping.is_empty() {
                (0..clips.len() as u32).collect()
            } else {
                looping
            }
        })
        .collect();
    let columns = (layout.instances as f64).sqrt().ceil().max(1.0) as usize;
    let rows = layout.instances.div_ceil(columns);
    let centre = Vec3::new((columns - 1) as f32, (rows.max(1) - 1) as f32, 0.0) * 0.5;
    let mut random = SplitMix64(layout.seed);
    let mut instances: Vec<(Instance, usize)> = (0..layout.instances)
        .map(|i| {
            let cell = Vec3::new((i % columns) as f32, (i / columns) as f32, 0.0);
            let model = cell_models[i];
            let clips = model_clips.get(model as usize).copied().unwrap_or(&[]);
            let candidates = candidates.get(model as usize).map_or(&[][..], |c| &c[..]);
            let clip = if candidates.is_empty() {
                0
            } else {
                candidates[random.below(candidates.len() as u32) as usize]
            };
            let duration = clips.get(clip as usize).map_or(0.0, Clip::duration);
            let yaw = random.unit() * std::f32::consts::TAU;
            let phase = random.unit() * duration;
            let instance = Instance {
                position: (cell - centre) * layout.spacing,
                yaw,
                rate: 0.8 + 0.4 * random.unit(),
                tint: Vec4::new(
                    0.6 + 0.4 * random.unit(),
                    0.6 + 0.4 * random.unit(),
                    0.6 + 0.4 * random.unit(),
                    1.0,
                ),
                model,
                ..Instance::settled(clip, phase)
            };
            (instance, i)
        })
        .collect();
    instances.sort_by_key(|(instance, _)| instance.model);
    instances.into_iter().unzip()
}

/// Splits `instances` among models by their `weights` (largest remainder:
/// the counts sum to `instances` and each is within one of its share).
pub fn mix_counts(weights: &[f32], instances: usize) -> Vec<usize> {
    let total: f64 = weights.iter().map(|&w| f64::from(w.max(0.0))).sum();
    if total <= 0.0 {
        return vec![0; weights.len()];
    }
    let shares: Vec<f64> = weights
        .iter()
        .map(|&w| f64::from(w.max(0.0)) / total * instances as f64)
        .collect();
    let mut counts: Vec<usize> = shares.iter().map(|s| s.floor() as usize).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let remainder = |i: usize| shares[i] - shares[i].floor();
        remainder(b).total_cmp(&remainder(a)).then(a.cmp(&b))
    });
    let missing = instances - counts.iter().sum::<usize>();
    for &model in order.iter().take(missing) {
        counts[model] += 1;
    }
    counts
}

/// Gives each instance one of `skins` skins, seeded: drawn from a
/// generator of its own, so that the rest of the crowd is laid out the
/// same with one skin or several.
pub fn assign_skins(instances: &mut [Instance], skins: u32, seed: u64) {
    let mut random = SplitMix64(seed ^ 0x736b_696e_7321); // "skins!"
    for instance in instances {
        instance.skin = if skins > 1 { random.below(skins) } else { 0 };
    }
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
    use crate::anim::JointPose;
    use crate::bounds::Bounds;

    /// A one-joint clip lasting `duration` seconds at 10 fps.
    fn clip(duration: f32, looping: bool) -> Clip {
        let frames = (duration * 10.0) as usize + 1;
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: 10.0,
            frames: vec![vec![JointPose::IDENTITY]; frames],
            bounds: vec![Bounds::point(Vec3::ZERO); frames],
            looping,
        }
    }

    #[test]
    fn grid_is_centred_and_seeded() {
        let layout = CrowdLayout {
            instances: 10,
            spacing: 2.0,
            seed: 7,
        };
        let clips = [clip(1.0, true), clip(2.0, true), clip(3.0, true)];
        let crowd = spawn_crowd(&layout, &clips);
        assert_eq!(crowd.len(), 10);
        assert_eq!(crowd, spawn_crowd(&layout, &clips), "same seed, same crowd");
        let other = spawn_crowd(&CrowdLayout { seed: 8, ..layout }, &clips);
        assert_ne!(crowd, other);
        // 4 columns x 3 rows, centred: x in -3..3, y in -2..2.
        assert_eq!(crowd[0].position, Vec3::new(-3.0, -2.0, 0.0));
        assert_eq!(crowd[9].position, Vec3::new(-1.0, 2.0, 0.0));
        for i in &crowd {
            assert!(i.clip < 3 && (0.8..1.2).contains(&i.rate));
            assert!(i.phase >= 0.0 && i.phase < 3.0);
            assert_eq!(i.loop_phase, i.phase);
        }
        let clips: std::collections::BTreeSet<u32> = crowd.iter().map(|i| i.clip).collect();
        assert!(clips.len() > 1, "clips vary");
    }

    #[test]
    fn the_seeded_mix_draws_looping_clips_only() {
        let layout = CrowdLayout {
            instances: 50,
            spacing: 1.0,
            seed: 3,
        };
        let clips = [
            clip(1.0, false),
            clip(1.0, true),
            clip(1.0, false),
            clip(1.0, true),
        ];
        let drawn: std::collections::BTreeSet<u32> = spawn_crowd(&layout, &clips)
            .iter()
            .map(|i| i.clip)
            .collect();
        assert_eq!(drawn, [1, 3].into());
        // Nothing loops: everything may be drawn.
        let once = [clip(1.0, false), clip(1.0, false)];
        let drawn: std::collections::BTreeSet<u32> =
            spawn_crowd(&layout, &once).iter().map(|i| i.clip).collect();
        assert_eq!(drawn, [0, 1].into());
    }

    #[test]
    fn crossfade_weight_ramps() {
        let mut i = Instance::settled(0, 0.3);
        assert_eq!(i.blend_weight(5.0, 0.25), 1.0);
        i.switch_clip(1, true, 5.0, 0.25);
        assert_eq!(i.blend_weight(5.0, 0.25), 0.0);
        assert!((i.blend_weight(5.125, 0.25) - 0.5).abs() < 1e-5);
        assert_eq!(i.blend_weight(6.0, 0.25), 1.0);
        // Switching to the clip already fading in changes nothing.
        let before = i;
        i.switch_clip(1, true, 5.1, 0.25);
        assert_eq!(i, before);
    }

    #[test]
    fn each_clip_slot_keeps_its_own_time() {
        let mut i = Instance {
            rate: 1.5,
            ..Instance::settled(0, 0.4)
        };
        // A one-shot starts at its first frame.
        i.switch_clip(2, false, 10.0, 0.25);
        assert_eq!(i.local_time(10.0), 0.0);
        // The clip fading out carries on where it was.
        assert_eq!((i.previous_clip, i.previous_phase), (0, 0.4));
        assert_eq!(i.from_weight, 1.0);
        // Back to a loop, long after: the seeded phase again.
        i.switch_clip(1, true, 20.0, 0.25);
        assert_eq!(i.phase, 0.4);
        assert_eq!((i.previous_clip, i.previous_phase), (2, -15.0));
    }

    #[test]
    fn a_switch_during_a_fade_starts_from_the_blend_shown() {
        let mut i = Instance::settled(0, 0.0);
        i.switch_clip(1, true, 1.0, 1.0);
        // Halfway from 0 to 1: the new fade starts from that blend.
        i.switch_clip(2, true, 1.5, 1.0);
        assert_eq!((i.older_clip, i.previous_clip, i.clip), (0, 1, 2));
        assert_eq!(i.from_weight, 0.5);
        assert_eq!(i.blend_weight(1.5, 1.0), 0.0);
        // Again, while that fade runs: the least weighted clip goes. Shares
        // at 1.75 s: clip 0 (1 - 0.5) * 0.75, clip 1 0.5 * 0.75, clip 2 0.25.
        let mut dropping_the_newest = i;
        dropping_the_newest.switch_clip(3, true, 1.75, 1.0);
        assert_eq!(
            (
                dropping_the_newest.older_clip,
                dropping_the_newest.previous_clip,
                dropping_the_newest.clip
            ),
            (0, 1, 3)
        );
        assert_eq!(dropping_the_newest.from_weight, 0.5);
        // At 2.2 s clip 2 weighs 0.7, clips 0 and 1 0.15 each: 0 goes.
        let mut dropping_the_oldest = i;
        dropping_the_oldest.switch_clip(3, true, 2.2, 1.0);
        assert_eq!(
            (
                dropping_the_oldest.older_clip,
                dropping_the_oldest.previous_clip,
                dropping_the_oldest.clip
            ),
            (1, 2, 3)
        );
        assert!((dropping_the_oldest.from_weight - 0.7 / 0.85).abs() < 1e-6);
        // Back to the clip the starting pose fades towards: it cannot be
        // both, so the starting pose gives up a clip instead.
        let mut back = i;
        back.switch_clip(1, true, 1.75, 1.0);
        assert_ne!(back.previous_clip, back.clip);
        // After the fade, a switch starts from the clip alone.
        let mut settled = i;
        settled.switch_clip(0, true, 5.0, 1.0);
        assert_eq!(
            (
                settled.older_clip,
                settled.previous_clip,
                settled.from_weight
            ),
            (2, 2, 1.0)
        );
    }
}
