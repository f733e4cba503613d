//! CPU animation of a crowd of several models: each model's instances
//! posed by [`super::animate_crowd`], and for the CPU skinning yardstick
//! skinned too. The reference for the GPU's animate pass, and
//! `--animate cpu`.

use super::{animate_crowd, Instance};
use crate::gpu::gpu_model;
use crate::gpu::shader_types::{SkinningTransform, SurfaceVertex};
use crate::model::Model;
use crate::skin::{self, SkinningMethod};

/// Poses `instances`, sorted by model, `counts[m]` of them model `m`'s, at
/// global `time`: `transforms` gets every instance's joints,
/// instance-major (an instance takes as many as its model has joints);
/// `vertices`, when given, every instance's drawn meshes skinned with
/// `skinning`, in the same order.
#[allow(clippy::too_many_arguments)]
pub fn pose_mixed_crowd(
    models: &[Model],
    counts: &[usize],
    instances: &[Instance],
    time: f32,
    blend_time: f32,
    skinning: SkinningMethod,
    mut transforms: &mut [SkinningTransform],
    mut vertices: Option<&mut [SurfaceVertex]>,
) {
    let mut first = 0;
    for (model, &count) in models.iter().zip(counts) {
        let own = &instances[first..first + count];
        first += count;
        let joint_count = model.skeleton.joint_count();
        let (mine, rest) = std::mem::take(&mut transforms).split_at_mut(own.len() * joint_count);
        transforms = rest;
        animate_crowd(&model.skeleton, &model.clips, own, time, blend_time, mine);
        let Some(out) = vertices.take() else {
            continue;
        };
        let mut next = 0;
        for instance_transforms in mine.chunks_exact(joint_count.max(1)) {
            for mesh in gpu_model::drawn_meshes(model) {
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
