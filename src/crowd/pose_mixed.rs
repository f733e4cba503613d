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
    /// The meshes it draws, skinned in this order.
    pub meshes: Vec<&'a SkinnedMesh>,
    /// Its instances: the next `count` of the crowd's.
    pub count: usize,
}

/// Poses `instances`, sorted by model as `models` say, at global `time`:
/// `transforms` gets every instance's joints, instance-major (an instance
/// takes as many as its model has joints); `vertices`, when given, every
/// instance's meshes skinned with `skinning`, in the same order.
pub fn pose_mixed_crowd(
    models: &[ModelToPose],
    instances: &[Instance],
    time: f32,
    blend_time: f32,
    skinning: SkinningMethod,
    mut transforms: &mut [SkinningTransform],
    mut vertices: Option<&mut [SurfaceVertex]>,
) {
    let mut first = 0;
    for model in models {
        let own = &instances[first..first + model.count];
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
        for instance_transforms in mine.chunks_exact(joint_count.max(1)) {
            for mesh in &model.meshes {
                let count = mesh.vertex_count();
                skin::skin_vertices(
                    mesh,
                    instance_transforms,
                    skinning,
                    &mut out[next..next + count],
                );
                next += count;
            }
        }
        vertices = Some(&mut out[next..]);
    }
}
