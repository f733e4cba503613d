//! An instance's morph target weights: the CPU reference of animate.glsl's
//! `morph_weight`. They follow the instance's clip, phase and crossfade as
//! its joints do, and a layer whose clip animates a weight takes it over
//! (or adds its difference from the clip's first frame), whatever the
//! layer's channel: weights belong to no joint.

use crate::anim::{sample_morph_weights, Clip, LayerMode};

use super::{Instance, LayerTrack};

/// `instance`'s weights at global `time` into `out` (one per weight of its
/// model, whose `defaults` a clip without weight frames plays).
pub fn morph_weights(
    clips: &[Clip],
    defaults: &[f32],
    instance: &Instance,
    (time, blend_time): (f32, f32),
    out: &mut [f32],
) {
    let count = out.len();
    let sample = |clip: u32, phase: f32, out: &mut [f32]| match clips.get(clip as usize) {
        Some(clip) => sample_morph_weights(clip, defaults, instance.clip_time(time, phase), out),
        None => out.copy_from_slice(defaults),
    };
    sample(instance.clip, instance.phase, out);
    let fade = instance.blend_weight(time, blend_time);
    if fade < 1.0 {
        let mut from = vec![0.0; count];
        sample(instance.previous_clip, instance.previous_phase, &mut from);
        if instance.from_weight < 1.0 {
            let mut older = vec![0.0; count];
            sample(instance.older_clip, instance.older_phase, &mut older);
            for (from, older) in from.iter_mut().zip(&older) {
                *from = older + (*from - older) * instance.from_weight;
            }
        }
        for (out, from) in out.iter_mut().zip(&from) {
            *out = from + (*out - from) * fade;
        }
    }
    for layer in instance.layers.as_slice() {
        let Some(clip) = clips.get(layer.clip as usize) else {
            continue;
        };
        if layer.weight <= 0.0 || clip.morphs.animated.is_empty() {
            continue;
        }
        let over = layer_weights(clips, defaults, layer, (time, blend_time), count);
        for &w in &clip.morphs.animated {
            let (Some(out), Some(&over)) = (out.get_mut(usize::from(w)), over.get(usize::from(w)))
            else {
                continue;
            };
            *out = match layer.mode {
                LayerMode::Additive => *out + over * layer.weight,
                LayerMode::Override => *out + (over - *out) * layer.weight,
            };
        }
    }
}

/// A layer's weights at `time`: its clip's (for an additive layer, their
/// difference from the clip's first frame), blended from its previous
/// clip's while it fades in.
fn layer_weights(
    clips: &[Clip],
    defaults: &[f32],
    layer: &LayerTrack,
    (time, blend_time): (f32, f32),
    count: usize,
) -> Vec<f32> {
    let sample = |clip: u32, phase: f32| {
        let mut out = vec![0.0; count];
        let Some(clip) = clips.get(clip as usize) else {
            out.copy_from_slice(defaults);
            return out;
        };
        sample_morph_weights(clip, defaults, layer.clip_time(time, phase), &mut out);
        if layer.mode == LayerMode::Additive {
            // A clip without weight frames holds the defaults: no difference.
            let first = clip.morphs.frames.first().unwrap_or(&out);
            let difference: Vec<f32> = out.iter().zip(first).map(|(w, f)| w - f).collect();
            out = difference;
        }
        out
    };
    let mut over = sample(layer.clip, layer.phase);
    let fade = layer.blend_weight(time, blend_time);
    if fade < 1.0 {
        let from = sample(layer.previous_clip, layer.previous_phase);
        for (over, from) in over.iter_mut().zip(&from) {
            *over = from + (*over - from) * fade;
        }
    }
    over
}

/// Every instance's weights at `time`, `stride` per instance in instance
/// order (those past its model's count 0): what the crowd's `MorphWeights`
/// holds, for instances of one model.
pub fn crowd_morph_weights(
    clips: &[Clip],
    defaults: &[f32],
    instances: &[Instance],
    (time, blend_time): (f32, f32),
    stride: usize,
) -> Vec<f32> {
    let mut weights = vec![0.0; instances.len() * stride];
    if defaults.is_empty() {
        return weights;
    }
    for (instance, out) in instances.iter().zip(weights.chunks_exact_mut(stride)) {
        morph_weights(
            clips,
            defaults,
            instance,
            (time, blend_time),
            &mut out[..defaults.len()],
        );
    }
    weights
}
