//! A model's morph weights as it plays them: every clip of a model with
//! morph targets carries a weight row per frame, `--morph` holds named
//! weights over what clips play, and the clips' bounds grow to hold the
//! morphed shape.

use crate::anim::{Clip, Morphs};

/// `--morph NAME=WEIGHT`: the weights of the morph targets named `name`
/// held at `weight` for the whole crowd, whatever the clips play.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldMorph {
    pub name: String,
    pub weight: f32,
}

impl HeldMorph {
    /// `--morph`'s value: NAME=WEIGHT, a finite weight.
    pub fn from_command_line(text: &str) -> Result<HeldMorph, String> {
        let expected = "expected NAME=WEIGHT, a morph target's name and a number, e.g. Smile=0.8";
        let (name, weight) = text.rsplit_once('=').ok_or(expected)?;
        let weight = weight.trim().parse::<f32>().map_err(|_| expected)?;
        if name.trim().is_empty() || !weight.is_finite() {
            return Err(expected.into());
        }
        Ok(HeldMorph {
            name: name.trim().to_owned(),
            weight,
        })
    }
}

/// Gives every clip of a model with morph targets a weight row per frame
/// (the defaults where it animates none: cull.comp and the animate pass
/// read rows for every clip of such a model), then holds each of `held`
/// (names without a target here are the caller's to report) over them:
/// every frame and the defaults take the held weight, and no layer takes
/// it over.
pub fn settle_clip_morphs(morphs: &mut Morphs, clips: &mut [Clip], held: &[HeldMorph]) {
    if morphs.is_empty() {
        return;
    }
    let mut held_weights = Vec::new();
    for hold in held {
        held_weights.extend(morphs.named(&hold.name).map(|w| (w, hold.weight)));
    }
    for &(w, weight) in &held_weights {
        morphs.defaults[w] = weight;
    }
    for clip in clips {
        let morph_frames = &mut clip.morphs.frames;
        if morph_frames.is_empty() {
            *morph_frames = vec![morphs.defaults.clone(); clip.frames.len()];
        }
        for frame in morph_frames.iter_mut() {
            for &(w, weight) in &held_weights {
                frame[w] = weight;
            }
        }
        clip.morphs
            .animated
            .retain(|&w| !held_weights.iter().any(|&(h, _)| h == usize::from(w)));
    }
}
