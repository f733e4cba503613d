//! Animation channels of morph target weights, sampled at a clip's frame
//! times into its [`ClipMorphs`].

use gltf::animation::Interpolation;

use super::clips::{hermite, Channel, Span};
use super::morph_targets::MorphSlots;
use crate::anim::ClipMorphs;

/// What a clip sampled at `times` plays of the model's weights:
/// `channels` (its weights channels of drawn nodes, among others) sampled
/// as glTF interpolates them, every other weight at its default.
/// `file_channels` counts the animation's weights channels, drawn or not.
pub fn clip_morphs(
    channels: &[Channel],
    slots: &MorphSlots,
    times: &[f32],
    file_channels: usize,
) -> ClipMorphs {
    let weights: Vec<_> = channels
        .iter()
        .filter(|c| c.is_weights())
        .filter_map(|c| Some((c, slots.of_node(c.node)?)))
        .collect();
    if weights.is_empty() {
        return ClipMorphs {
            channels: file_channels,
            ..ClipMorphs::default()
        };
    }
    let mut animated: Vec<u16> = weights
        .iter()
        .flat_map(|(_, range)| range.clone())
        .map(|w| w as u16)
        .collect();
    animated.sort_unstable();
    animated.dedup();
    let frames = times
        .iter()
        .map(|&time| {
            let mut frame = slots.morphs.defaults.clone();
            for (channel, range) in &weights {
                sample(channel, time, &mut frame[range.clone()]);
            }
            frame
        })
        .collect();
    ClipMorphs {
        frames,
        animated,
        channels: file_channels,
    }
}

/// Weights channel `channel` at `time`, one weight per target into `out`.
fn sample(channel: &Channel, time: f32, out: &mut [f32]) {
    let (key, s, dt) = match channel.locate(time) {
        Span::Held(key) => {
            out.copy_from_slice(channel.key_values(key, channel.value_part()));
            return;
        }
        Span::Between { key, s, dt } => (key, s, dt),
    };
    let next = key + 1;
    match channel.interpolation {
        Interpolation::Step => out.copy_from_slice(channel.key_values(key, 0)),
        Interpolation::Linear => {
            let (a, b) = (channel.key_values(key, 0), channel.key_values(next, 0));
            for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
                *out = a + (b - a) * s;
            }
        }
        Interpolation::CubicSpline => {
            let [h0, h1, h2, h3] = hermite(s);
            let value = channel.key_values(key, 1);
            let out_tangent = channel.key_values(key, 2);
            let next_value = channel.key_values(next, 1);
            let in_tangent = channel.key_values(next, 0);
            for (w, out) in out.iter_mut().enumerate() {
                *out = value[w] * h0
                    + out_tangent[w] * dt * h1
                    + next_value[w] * h2
                    + in_tangent[w] * dt * h3;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gltf::animation::Property;

    /// Two targets, keys at 0 and 2 s.
    fn channel(interpolation: Interpolation, values: Vec<f32>) -> Channel {
        Channel {
            node: 0,
            property: Property::MorphTargetWeights,
            interpolation,
            times: vec![0.0, 2.0],
            values,
            width: 2,
        }
    }

    fn at(channel: &Channel, time: f32) -> [f32; 2] {
        let mut out = [0.0; 2];
        sample(channel, time, &mut out);
        out
    }

    #[test]
    fn step_and_linear_weights_between_keys() {
        let values = vec![0.0, 1.0, 1.0, 0.5];
        let step = channel(Interpolation::Step, values.clone());
        assert_eq!(at(&step, 1.5), [0.0, 1.0]);
        assert_eq!(at(&step, 2.0), [1.0, 0.5]);
        let linear = channel(Interpolation::Linear, values);
        assert_eq!(at(&linear, 0.5), [0.25, 0.875]);
        assert_eq!(at(&linear, -1.0), [0.0, 1.0]);
        assert_eq!(at(&linear, 3.0), [1.0, 0.5]);
    }

    /// Per key: in-tangents, values, out-tangents, each two weights.
    #[test]
    fn cubic_spline_weights_follow_the_hermite_curve() {
        let values = vec![
            9.0, 9.0, 0.0, 1.0, 0.5, 0.0, // key 0
            -0.25, 0.0, 1.0, 1.0, 9.0, 9.0, // key 1
        ];
        let cubic = channel(Interpolation::CubicSpline, values);
        // Half way (s = 0.5, gap 2 s): the basis is 0.5, 0.125, 0.5,
        // -0.125; the tangents scale by the gap.
        let [a, b] = at(&cubic, 1.0);
        let want_a = 0.0 * 0.5 + 0.5 * 2.0 * 0.125 + 1.0 * 0.5 + -0.25 * 2.0 * -0.125;
        assert!((a - want_a).abs() < 1e-6, "{a} != {want_a}");
        assert!((b - 1.0).abs() < 1e-6, "{b}");
        assert_eq!(at(&cubic, 0.0), [0.0, 1.0]);
        assert_eq!(at(&cubic, 5.0), [1.0, 1.0]);
    }
}
