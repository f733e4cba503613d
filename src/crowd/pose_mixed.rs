//! CPU animation of a crowd of several models: each model's instances
//! posed by [`super::animate_crowd`], and for the CPU skinning yardstick
//! skinned too. The reference for the GPU's animate pass, and
//! `--animate cpu`.

use super::{animate_crowd, Animated, Instance};
use crate::anim::{Clip, JointMask, Skeleton, SkinningTransform};
use crate::skin::{self, SkinnedMesh, SkinningMethod, SurfaceVertex};

/// One model's part of a mixed crowd, as the CPU poses it.
pub struct ModelToPose<'a> {
    pub skeleton: &'a Skeleton,
    pub clips: &'a [Clip],
    /// The joints each layer channel reaches (`anim::Channels::layer_masks`).
    pub masks: &'a [JointMask],
    /// Its morph weights where a clip has none (`anim::Morphs::defaults`).
    pub morph_defaults: &'a [f32],
    /// The meshes it draws, skinned in this order.
    pub meshes: Vec<&'a SkinnedMesh>,
    /// Its instances: the next `count` of the crowd's.
    pub count: usize,
}

/// What posing a crowd writes.
pub struct CrowdPoses<'a> {
    /// Every instance's joints, instance-major (an instance takes as many
    /// as its model has joints).
    pub transforms: &'a mut [SkinningTransform],
    /// Every instance's morph weights, `morph_stride` apart.
    pub morph_weights: &'a mut [f32],
    pub morph_stride: usize,
    /// When given, every instance's meshes skinned (and morphed), in the
    /// same order.
    pub vertices: Option<&'a mut [SurfaceVertex]>,
}

/// Poses `instances`, sorted by model as `models` say, at global `time`
/// into `out`, skinning with `skinning` where it wants vertices.
pub fn pose_mixed_crowd(
    models: &[ModelToPose],
    instances: &[Instance],
    (time, blend_time): (f32, f32),
    skinning: SkinningMethod,
    out: CrowdPoses,
) {
    let CrowdPoses {
        mut transforms,
        morph_weights,
        morph_stride,
        mut vertices,
    } = out;
    let mut first = 0;
    for model in models {
        let own = &instances[first..first + model.count];
        let weights = super::crowd_morph_weights(
            model.clips,
            model.morph_defaults,
            own,
            (time, blend_time),
            morph_stride,
        );
        morph_weights[first * morph_stride..][..weights.len()].copy_from_slice(&weights);
        first += model.count;
        let joint_count = model.skeleton.joint_count();
        let (mine, rest) = std::mem::take(&mut transforms).split_at_mut(own.len() * joint_count);
        transforms = rest;
        let animated = Animated {
            skeleton: model.skeleton,
            clips: model.clips,
            masks: model.masks,
        };
        animate_crowd(animated, own, time, blend_time, mine);
        let Some(out) = vertices.take() else {
            continue;
        };
        let mut next = 0;
        for (i, instance_transforms) in mine.chunks_exact(joint_count.max(1)).enumerate() {
            let instance_weights = &weights[i * morph_stride..(i + 1) * morph_stride];
            for mesh in &model.meshes {
                let count = mesh.vertex_count();
                skin::skin_vertices(
                    mesh,
                    instance_transforms,
                    instance_weights,
                    skinning,
                    &mut out[next..next + count],
                );
                next += count;
            }
        }
        vertices = Some(&mut out[next..]);
    }
}
