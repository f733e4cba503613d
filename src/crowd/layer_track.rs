//! A layer an instance plays over its base clip: which clip, on which
//! channel, how much of it and how (override or additive), each with its
//! own time and rate, and its own crossfade when its clip changes. The
//! base clip's state is [`super::Instance`]'s own; a layer fades between
//! two clips only (a switch mid-fade starts from the clip fading in).
//! What it draws: [`super::animate_instance`], and on the GPU animate.glsl's
//! `layered_pose`.

use crate::anim::{Clip, LayerMode};

use super::spawn::crossfade_weight;
use super::{Instance, SplitMix64};

pub use crate::shared_constants::MAX_LAYERS;

/// A layer a crowd asks of one model, resolved on it: the channel (index
/// among the model's layer channels, 0 the whole body), the clips each
/// instance picks one of (the model's clip indices), the weight and how
/// it combines.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerRecipe {
    pub channel: u8,
    pub clips: Vec<u32>,
    pub weight: f32,
    pub mode: LayerMode,
}

/// Lays `recipes` over each of `instances` (a model's, whose clips are
/// `clips`), in order, up to [`MAX_LAYERS`]: each instance picks one of a
/// recipe's clips, seeded, and plays it at its own rate, a looping clip at
/// a seeded phase, a one-shot from its start at time 0 (then holding its
/// last pose). The draws come from a generator of their own, so the rest
/// of the crowd is laid out the same with layers or without.
pub fn assign_layers(
    instances: &mut [Instance],
    clips: &[Clip],
    recipes: &[LayerRecipe],
    seed: u64,
) {
    let mut random = SplitMix64(seed ^ 0x6c61_7965_7273); // "layers"
    for instance in instances {
        instance.layers = InstanceLayers::NONE;
        for recipe in recipes.iter().filter(|r| !r.clips.is_empty()) {
            let pick = recipe.clips[random.below(recipe.clips.len() as u32) as usize];
            let phase_draw = random.unit();
            let Some(clip) = clips.get(pick as usize) else {
                continue;
            };
            let phase = if clip.looping {
                phase_draw * clip.duration()
            } else {
                0.0
            };
            let layer = LayerTrack::new(
                pick,
                recipe.channel,
                recipe.mode,
                recipe.weight,
                phase,
                instance.rate,
            );
            instance.layers.push(layer);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerTrack {
    /// The clip playing (fading in), among the instance's model's clips.
    pub clip: u32,
    pub phase: f32,
    /// The clip fading out; `clip` when no fade has begun.
    pub previous_clip: u32,
    pub previous_phase: f32,
    /// Global time the switch to `clip` began.
    pub blend_start: f32,
    /// Clip seconds per second.
    pub rate: f32,
    /// 0 leaves the pose beneath, 1 plays the layer fully.
    pub weight: f32,
    pub mode: LayerMode,
    /// The joints it plays on: 0 the whole body, else the model's channel
    /// of that index (`anim::Channels::layer_masks`).
    pub channel: u8,
    /// The seeded phase a looping clip plays at (CPU side only).
    pub loop_phase: f32,
}

/// The layers an instance plays, in order, up to [`MAX_LAYERS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstanceLayers {
    tracks: [LayerTrack; MAX_LAYERS],
    count: u8,
}

impl InstanceLayers {
    /// The base clip alone.
    pub const NONE: InstanceLayers = InstanceLayers {
        tracks: [LayerTrack::new(0, 0, LayerMode::Override, 0.0, 0.0, 1.0); MAX_LAYERS],
        count: 0,
    };

    /// Adds `layer` on top; false when [`MAX_LAYERS`] play already.
    pub fn push(&mut self, layer: LayerTrack) -> bool {
        let Some(slot) = self.tracks.get_mut(usize::from(self.count)) else {
            return false;
        };
        *slot = layer;
        self.count += 1;
        true
    }

    pub fn as_slice(&self) -> &[LayerTrack] {
        &self.tracks[..usize::from(self.count)]
    }

    pub fn as_mut_slice(&mut self) -> &mut [LayerTrack] {
        &mut self.tracks[..usize::from(self.count)]
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl LayerTrack {
    /// `clip` on `channel` at `weight`, alone, at `phase` (also its looping
    /// phase) and `rate`.
    pub const fn new(
        clip: u32,
        channel: u8,
        mode: LayerMode,
        weight: f32,
        phase: f32,
        rate: f32,
    ) -> Self {
        LayerTrack {
            clip,
            phase,
            previous_clip: clip,
            previous_phase: phase,
            blend_start: 0.0,
            rate,
            weight,
            mode,
            channel,
            loop_phase: phase,
        }
    }

    /// The local time of a clip of the layer played at `phase`.
    pub fn clip_time(&self, time: f32, phase: f32) -> f32 {
        time * self.rate + phase
    }

    /// 0 at the start of a crossfade, 1 once it is over (or when there is
    /// none), as [`super::Instance::blend_weight`].
    pub fn blend_weight(&self, time: f32, blend_time: f32) -> f32 {
        crossfade_weight(
            self.clip != self.previous_clip,
            self.blend_start,
            (time, blend_time),
        )
    }

    /// Crossfades to `clip` from `time`: a one-shot (`looping` false) from
    /// its first frame, a looping clip at the seeded `loop_phase`. The
    /// clip fading out is the one showing most: mid-fade, the one fading
    /// in (a jump of at most the other's share). Nothing happens when
    /// `clip` already plays.
    pub fn switch_clip(&mut self, clip: u32, looping: bool, time: f32, blend_time: f32) {
        if clip == self.clip {
            return;
        }
        let weight = self.blend_weight(time, blend_time);
        if weight >= 0.5 {
            (self.previous_clip, self.previous_phase) = (self.clip, self.phase);
        }
        self.clip = clip;
        self.phase = if looping {
            self.loop_phase
        } else {
            -time * self.rate
        };
        self.blend_start = time;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::JointPose;
    use crate::bounds::Bounds;
    use glam::Vec3;

    fn clip(looping: bool) -> Clip {
        Clip {
            morphs: Default::default(),
            name: "c".into(),
            frame_rate: 10.0,
            looping,
            frames: vec![vec![JointPose::IDENTITY]; 11],
            bounds: vec![Bounds::point(Vec3::ZERO); 11],
        }
    }

    #[test]
    fn each_instance_picks_a_clip_of_each_recipe_with_its_own_phase() {
        let clips = [clip(true), clip(true), clip(false)];
        let recipes = [
            LayerRecipe {
                channel: 1,
                clips: vec![0, 1],
                weight: 0.7,
                mode: LayerMode::Override,
            },
            LayerRecipe {
                channel: 0,
                clips: vec![2],
                weight: 0.4,
                mode: LayerMode::Additive,
            },
        ];
        let mut crowd = vec![Instance::settled(0, 0.0); 64];
        for (i, instance) in crowd.iter_mut().enumerate() {
            instance.rate = 1.0 + i as f32 / 100.0;
        }
        assign_layers(&mut crowd, &clips, &recipes, 7);
        let first_clips: Vec<u32> = crowd.iter().map(|i| i.layers.as_slice()[0].clip).collect();
        assert!(
            first_clips.contains(&0) && first_clips.contains(&1),
            "the crowd varies"
        );
        let phases: std::collections::BTreeSet<u32> = crowd
            .iter()
            .map(|i| i.layers.as_slice()[0].phase.to_bits())
            .collect();
        assert!(phases.len() > 32, "each its own phase");
        for instance in &crowd {
            let [over, added] = instance.layers.as_slice() else {
                panic!("two layers");
            };
            assert_eq!(
                (over.channel, over.weight, over.mode),
                (1, 0.7, LayerMode::Override)
            );
            assert!(over.phase >= 0.0 && over.phase < 1.0);
            assert_eq!(over.rate, instance.rate);
            assert_eq!(
                (added.clip, added.phase),
                (2, 0.0),
                "a one-shot from its start"
            );
            assert_eq!(added.mode, LayerMode::Additive);
        }
        let mut again = vec![Instance::settled(0, 0.0); 64];
        for (i, instance) in again.iter_mut().enumerate() {
            instance.rate = 1.0 + i as f32 / 100.0;
        }
        assign_layers(&mut again, &clips, &recipes, 7);
        assert_eq!(again, crowd, "seeded");
    }

    #[test]
    fn a_switch_fades_from_the_clip_showing_most() {
        let mut layer = LayerTrack::new(2, 1, LayerMode::Override, 0.8, 0.3, 1.0);
        assert_eq!(layer.blend_weight(5.0, 0.25), 1.0, "settled");
        layer.switch_clip(3, true, 10.0, 0.25);
        assert_eq!((layer.previous_clip, layer.clip), (2, 3));
        assert_eq!(layer.phase, 0.3, "a looping clip at its seeded phase");
        assert_eq!(layer.blend_weight(10.125, 0.25), 0.5);
        // A quarter in: the clip fading out still shows most.
        layer.switch_clip(0, false, 10.0625, 0.25);
        assert_eq!((layer.previous_clip, layer.clip), (2, 0));
        assert_eq!(
            layer.clip_time(10.0625, layer.phase),
            0.0,
            "a one-shot from its start"
        );
        layer.switch_clip(0, false, 11.0, 0.25);
        assert_eq!(layer.blend_start, 10.0625, "the same clip: nothing");
    }
}
