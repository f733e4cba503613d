//! Morph target weights: what a model has of them ([`Morphs`]), what a clip
//! plays of them ([`ClipMorphs`]), and the sampling job that gives an
//! instance its weights at a time. The GPU `animate` pass samples them next
//! to the joints, in the same steps; these are its reference.

use super::{frame_position, Clip};

/// A model's morph weights: one per target of each of its glTF meshes
/// (every primitive of a mesh shares the mesh's), in the order the meshes
/// are met. `skin::MorphTarget::weight` indexes them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Morphs {
    /// Each weight's target name (a mesh's targets may share names with
    /// another's: `--morph` sets every weight of the name).
    pub names: Vec<String>,
    /// The weights where no clip says otherwise: the mesh's (or its
    /// node's) `weights`, else 0.
    pub defaults: Vec<f32>,
}

impl Morphs {
    pub fn count(&self) -> usize {
        self.defaults.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty()
    }

    /// The weights named `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.names
            .iter()
            .enumerate()
            .filter(move |(_, n)| *n == name)
            .map(|(i, _)| i)
    }
}

/// What a clip plays of its model's morph weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipMorphs {
    /// Per frame of the clip (in step with `Clip::frames`), every weight of
    /// the model: the ones the clip animates sampled at that frame, the
    /// others at their defaults. Empty: the clip animates none, and the
    /// model's defaults hold throughout.
    pub frames: Vec<Vec<f32>>,
    /// The weights the clip animates, ascending: a layer playing the clip
    /// takes these over and leaves the others to the clips beneath.
    pub animated: Vec<u16>,
    /// The file's animation channels that target weights.
    pub channels: usize,
}

/// `clip`'s morph weights at `time` (seconds, as `sample_clip` takes it):
/// between its two frames around the time, linearly, or the model's
/// `defaults` where the clip animates none.
pub fn sample_morph_weights(clip: &Clip, defaults: &[f32], time: f32, out: &mut [f32]) {
    let frames = &clip.morphs.frames;
    if frames.is_empty() {
        out.copy_from_slice(defaults);
        return;
    }
    let (frame, next, alpha) = frame_position(clip, time);
    for ((out, a), b) in out.iter_mut().zip(&frames[frame]).zip(&frames[next]) {
        *out = a + (b - a) * alpha;
    }
}

/// `out = a` at weight 0, `b` at weight 1: a crossfade of weights.
pub fn blend_weights(a: &[f32], b: &[f32], weight: f32, out: &mut [f32]) {
    for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
        *out = a + (b - a) * weight;
    }
}

/// A weight held by `--morph` for the whole crowd, over what clips play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldMorph {
    /// Which of the model's weights.
    pub index: u16,
    pub weight: f32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::JointPose;

    fn clip(frames: Vec<Vec<f32>>) -> Clip {
        Clip {
            name: "talk".into(),
            frame_rate: 2.0,
            frames: vec![vec![JointPose::IDENTITY]; frames.len().max(1)],
            bounds: Vec::new(),
            looping: true,
            morphs: ClipMorphs {
                animated: vec![0],
                channels: 1,
                frames,
            },
        }
    }

    #[test]
    fn weights_interpolate_between_frames_and_wrap() {
        let clip = clip(vec![vec![0.0, 0.5], vec![1.0, 0.5], vec![0.0, 0.5]]);
        let mut out = [0.0; 2];
        sample_morph_weights(&clip, &[0.0, 0.5], 0.25, &mut out);
        assert_eq!(out, [0.5, 0.5]);
        sample_morph_weights(&clip, &[0.0, 0.5], 1.25, &mut out);
        assert_eq!(out, [0.5, 0.5]);
        sample_morph_weights(&clip, &[0.0, 0.5], 0.5, &mut out);
        assert_eq!(out, [1.0, 0.5]);
    }

    #[test]
    fn a_clip_without_weights_plays_the_defaults() {
        let clip = clip(Vec::new());
        let mut out = [9.0; 2];
        sample_morph_weights(&clip, &[0.25, 0.75], 0.3, &mut out);
        assert_eq!(out, [0.25, 0.75]);
        let mut blended = [0.0; 2];
        blend_weights(&[0.0, 1.0], &[1.0, 1.0], 0.25, &mut blended);
        assert_eq!(blended, [0.25, 1.0]);
    }

    #[test]
    fn names_find_every_weight_of_the_name() {
        let morphs = Morphs {
            names: vec!["Blink".into(), "Smile".into(), "Blink".into()],
            defaults: vec![0.0; 3],
        };
        assert_eq!(morphs.named("Blink").collect::<Vec<_>>(), vec![0, 2]);
        assert_eq!(morphs.count(), 3);
    }
}
