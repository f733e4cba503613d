//! The layering job: poses sampled from further clips laid over a base
//! pose, joint by joint, in the spirit of ozz-animation's BlendingJob with
//! per-joint weights and additive layers, and of Doom 3's animator, whose
//! channels (torso, legs, ...) each take their joints from their own clip.
//! The GPU `animate` pass will run the same arithmetic; this is its
//! reference.
//!
//! A layer reaches the joints of its mask, a bit per joint (a channel,
//! [`JointMask`]), and combines with the pose beneath it in one of two
//! ways ([`LayerMode`]). Layers apply in order, each over the result of
//! those before it.

use glam::Quat;

use super::{nlerp_shortest, JointPose};

/// How a layer's pose combines with the pose beneath it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerMode {
    /// The masked joints take the layer's parent-relative transforms,
    /// blended in by its weight, as Doom 3's channels do.
    Override,
    /// The layer's difference from its reference pose (its clip's first
    /// frame, [`additive_difference`]) is added on top, scaled by its
    /// weight: rotation `beneath * reference⁻¹ * pose`, translation
    /// `beneath + pose - reference`.
    Additive,
}

/// The joints a layer reaches: bit `j % 32` of word `j / 32` for joint
/// `j`, the layout the GPU reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JointMask {
    pub words: Vec<u32>,
}

impl JointMask {
    /// Every one of `joints` joints.
    pub fn all(joints: usize) -> JointMask {
        let mut mask = JointMask::none(joints);
        for joint in 0..joints {
            mask.insert(joint);
        }
        mask
    }

    /// None of `joints` joints.
    pub fn none(joints: usize) -> JointMask {
        JointMask {
            words: vec![0; joints.div_ceil(32)],
        }
    }

    pub fn insert(&mut self, joint: usize) {
        if let Some(word) = self.words.get_mut(joint / 32) {
            *word |= 1 << (joint % 32);
        }
    }

    pub fn contains(&self, joint: usize) -> bool {
        self.words
            .get(joint / 32)
            .is_some_and(|word| word & (1 << (joint % 32)) != 0)
    }
}

/// One layer as the job sees it: its clip sampled at the layer's own time
/// (crossfades already blended in), how much of it to apply and where.
#[derive(Clone, Copy, Debug)]
pub struct Layer<'a> {
    /// One per joint: local poses for an override layer; for an additive
    /// one, each its difference from the clip's first frame
    /// ([`additive_difference`]), so that a crossfade between two additive
    /// clips blends their differences.
    pub pose: &'a [JointPose],
    /// 0 leaves the pose beneath as it is, 1 applies the layer fully.
    pub weight: f32,
    pub mode: LayerMode,
    pub mask: &'a JointMask,
}

/// What an additive layer adds at one joint: `pose` relative to
/// `reference`, rotation `reference⁻¹ * pose` and translation `pose -
/// reference`.
pub fn additive_difference(pose: JointPose, reference: JointPose) -> JointPose {
    JointPose::new(
        (reference.rotation.inverse() * pose.rotation).normalize(),
        pose.translation - reference.translation,
    )
}

/// Lays `layers` over `pose` (local poses, one per joint), in order.
pub fn apply_layers(pose: &mut [JointPose], layers: &[Layer]) {
    for layer in layers {
        apply_layer(pose, layer);
    }
}

/// One layer over `pose`.
pub fn apply_layer(pose: &mut [JointPose], layer: &Layer) {
    assert_eq!(layer.pose.len(), pose.len(), "one layer pose per joint");
    let weight = layer.weight.clamp(0.0, 1.0);
    if weight <= 0.0 {
        return;
    }
    for (joint, beneath) in pose.iter_mut().enumerate() {
        if !layer.mask.contains(joint) {
            continue;
        }
        let over = layer.pose[joint];
        *beneath = match layer.mode {
            LayerMode::Override => JointPose::new(
                nlerp_shortest(beneath.rotation, over.rotation, weight),
                beneath.translation.lerp(over.translation, weight),
            ),
            LayerMode::Additive => {
                let scaled = nlerp_shortest(Quat::IDENTITY, over.rotation, weight);
                JointPose::new(
                    (beneath.rotation * scaled).normalize(),
                    beneath.translation + over.translation * weight,
                )
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn pose(angle: f32, x: f32) -> JointPose {
        JointPose::new(Quat::from_rotation_z(angle), Vec3::new(x, 0.0, 0.0))
    }

    fn close(a: JointPose, b: JointPose) -> bool {
        a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6
            && a.translation.distance(b.translation) < 1e-5
    }

    #[test]
    fn a_mask_holds_its_joints_across_words() {
        let mut mask = JointMask::none(70);
        assert_eq!(mask.words.len(), 3);
        for joint in [0, 31, 32, 69] {
            mask.insert(joint);
        }
        let held: Vec<usize> = (0..70).filter(|&j| mask.contains(j)).collect();
        assert_eq!(held, [0, 31, 32, 69]);
        assert!(!mask.contains(70), "past the skeleton");
        assert_eq!(JointMask::all(33).words, [u32::MAX, 1]);
    }

    #[test]
    fn an_override_layer_blends_its_joints_by_its_weight() {
        let mut base = vec![pose(0.0, 0.0), pose(0.0, 0.0), pose(0.0, 0.0)];
        let over = [pose(1.0, 4.0), pose(1.0, 4.0), pose(1.0, 4.0)];
        let mut mask = JointMask::none(3);
        mask.insert(1);
        mask.insert(2);
        let half = Layer {
            pose: &over,
            weight: 0.5,
            mode: LayerMode::Override,
            mask: &mask,
        };
        apply_layer(&mut base, &half);
        assert!(close(base[0], pose(0.0, 0.0)), "outside the mask");
        // Halfway on the short arc: nlerp of two rotations about Z.
        assert!(close(base[1], pose(0.5, 2.0)), "{:?}", base[1]);
        apply_layer(
            &mut base,
            &Layer {
                weight: 1.0,
                ..half
            },
        );
        assert!(close(base[2], over[2]), "fully over");
        let before = base.clone();
        apply_layer(
            &mut base,
            &Layer {
                weight: 0.0,
                ..half
            },
        );
        assert_eq!(base, before, "weight 0 leaves it");
    }

    #[test]
    fn an_additive_layer_adds_its_difference_from_its_first_frame() {
        let base = pose(0.3, 1.0);
        let reference = pose(0.2, 5.0);
        let clip = pose(0.7, 6.5);
        let mask = JointMask::all(1);
        let difference = [additive_difference(clip, reference)];
        let layer = |weight| Layer {
            pose: &difference,
            weight,
            mode: LayerMode::Additive,
            mask: &mask,
        };
        let mut full = [base];
        apply_layer(&mut full, &layer(1.0));
        // Rotation 0.3 + (0.7 - 0.2), translation 1 + (6.5 - 5).
        assert!(close(full[0], pose(0.8, 2.5)), "{:?}", full[0]);
        let mut half = [base];
        apply_layer(&mut half, &layer(0.5));
        assert!(close(half[0], pose(0.55, 1.75)), "{:?}", half[0]);
        // At its reference the layer adds nothing.
        let mut still = [base];
        let nothing = [additive_difference(reference, reference)];
        apply_layer(
            &mut still,
            &Layer {
                pose: &nothing,
                ..layer(1.0)
            },
        );
        assert!(close(still[0], base));
    }

    #[test]
    fn layers_apply_in_order() {
        let base = [pose(0.0, 0.0)];
        let mask = JointMask::all(1);
        let over = [pose(1.0, 2.0)];
        let add = [additive_difference(pose(0.25, 1.0), pose(0.0, 0.0))];
        let override_layer = Layer {
            pose: &over,
            weight: 1.0,
            mode: LayerMode::Override,
            mask: &mask,
        };
        let additive = Layer {
            pose: &add,
            weight: 1.0,
            mode: LayerMode::Additive,
            mask: &mask,
        };
        let mut added_last = base;
        apply_layers(&mut added_last, &[override_layer, additive]);
        assert!(close(added_last[0], pose(1.25, 3.0)));
        // An override after the additive replaces what it added.
        let mut overridden_last = base;
        apply_layers(&mut overridden_last, &[additive, override_layer]);
        assert!(close(overridden_last[0], over[0]));
    }
}
