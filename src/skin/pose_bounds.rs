//! Bounds computed from the poses themselves: culling must never trust an
//! exporter's md5anim `bounds` alone (zero or stale boxes make visible
//! characters vanish), so `Model::load` grows each frame's box to hold the
//! mesh skinned by that frame's pose.
//!
//! Positions only, by linear blend: the box is a culling bound, and the
//! normals and tangents `skin_vertices` also computes would be thrown away.
//! Dual quaternion skinning keeps volume where linear blending loses it, so
//! a DQS-skinned vertex can lie a little outside this box at a strongly
//! twisted joint; the sphere around the box leaves room for that.

use crate::anim::{
    local_to_model, skinning_transforms, Clip, JointPose, Skeleton, SkinningTransform,
};
use crate::bounds::Bounds;

use super::lod_influences::{skin_position_with, INFLUENCE_STEPS};
use super::SkinnedMesh;

/// The box around every vertex of `meshes` skinned by `transforms` (one per
/// joint) with linear blend skinning, with all its influences and with each
/// smaller count a coarse level may keep (`INFLUENCE_STEPS`): the box holds
/// every level of detail. [`Bounds::EMPTY`] without vertices.
pub fn skinned_bounds(meshes: &[SkinnedMesh], transforms: &[SkinningTransform]) -> Bounds {
    let mut bounds = Bounds::EMPTY;
    for mesh in meshes {
        let limit = mesh.limit.count();
        for ((&position, joints), weights) in
            mesh.positions.iter().zip(&mesh.joints).zip(&mesh.weights)
        {
            for influences in INFLUENCE_STEPS.into_iter().filter(|&k| k <= limit) {
                let skinned = skin_position_with(position, joints, weights, influences, transforms);
                bounds = bounds.union(Bounds::point(skinned));
            }
        }
    }
    bounds
}

/// Per frame of `clip`, the box around `meshes` skinned by that frame's
/// pose. Frames are independent, so they are split across every core.
pub fn clip_pose_bounds(skeleton: &Skeleton, clip: &Clip, meshes: &[SkinnedMesh]) -> Vec<Bounds> {
    let joints = skeleton.joint_count();
    let mut out = vec![Bounds::EMPTY; clip.frames.len()];
    if clip.frames.is_empty() || clip.joint_count() != joints {
        return out;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = clip.frames.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (frames, out) in clip
            .frames
            .chunks(per_thread)
            .zip(out.chunks_mut(per_thread))
        {
            scope.spawn(move || {
                let mut model = vec![JointPose::IDENTITY; joints];
                let mut transforms = vec![SkinningTransform::default(); joints];
                for (local, out) in frames.iter().zip(out) {
                    local_to_model(&skeleton.parents, local, &mut model);
                    skinning_transforms(&model, &skeleton.inverse_bind_pose, &mut transforms);
                    *out = skinned_bounds(meshes, &transforms);
                }
            });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::InfluenceLimit;
    use glam::{Mat4, Quat, Vec3};

    /// Two joints, the second 10 units up; four vertices shared between them.
    fn subject() -> (Skeleton, SkinnedMesh) {
        let bind_pose = vec![
            JointPose::IDENTITY,
            JointPose::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, 10.0)),
        ];
        let skeleton = Skeleton {
            names: vec!["root".into(), "arm".into()],
            parents: vec![None, Some(0)],
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        };
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        // Largest influence first, as `select_influences` orders them.
        let influences = |w: f32| {
            let (joints, weights) = if w >= 0.5 {
                ([0, 1], [w, 1.0 - w])
            } else {
                ([1, 0], [1.0 - w, w])
            };
            (
                [joints[0], joints[1], 0, 0, 0, 0, 0, 0],
                [weights[0], weights[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            )
        };
        for (position, w) in [
            (Vec3::new(1.0, 0.0, 0.0), 1.0),
            (Vec3::new(0.0, 1.0, 5.0), 0.6),
            (Vec3::new(1.0, 0.0, 12.0), 0.0),
            (Vec3::new(-2.0, 0.0, 15.0), 0.2),
        ] {
            mesh.positions.push(position);
            mesh.normals.push(Vec3::Z);
            let (joints, weights) = influences(w);
            mesh.joints.push(joints);
            mesh.weights.push(weights);
        }
        (skeleton, mesh)
    }

    #[test]
    fn each_frame_box_holds_the_skinned_mesh_exactly() {
        let (skeleton, mesh) = subject();
        let frames: Vec<Vec<JointPose>> = [0.0f32, 0.7, 1.6]
            .iter()
            .map(|&angle| {
                vec![
                    JointPose::new(Quat::from_rotation_z(angle), Vec3::new(angle, 0.0, 0.0)),
                    JointPose::new(Quat::from_rotation_x(angle), Vec3::new(0.0, 0.0, 10.0)),
                ]
            })
            .collect();
        let clip = Clip {
            name: "swing".into(),
            frame_rate: 24.0,
            bounds: vec![Bounds::point(Vec3::ZERO); frames.len()],
            frames,
            looping: false,
        };
        let meshes = [mesh];
        let boxes = clip_pose_bounds(&skeleton, &clip, &meshes);
        assert_eq!(boxes.len(), 3);
        for (frame, bounds) in clip.frames.iter().zip(&boxes) {
            // Reference: each vertex through 4x4 matrices, model pose times
            // inverse bind pose per joint, blended by weight; with both
            // joints, and with the larger alone (a coarse level's skinning).
            let matrix = |p: JointPose| Mat4::from_rotation_translation(p.rotation, p.translation);
            let root = matrix(frame[0]);
            let model = [root, root * matrix(frame[1])];
            let mesh = &meshes[0];
            let skin = |v: usize, slots: usize| -> Vec3 {
                let kept: f32 = mesh.weights[v][..slots].iter().sum();
                (0..slots)
                    .map(|slot| {
                        let joint = mesh.joints[v][slot] as usize;
                        let skin = model[joint] * matrix(skeleton.inverse_bind_pose[joint]);
                        mesh.weights[v][slot] / kept * skin.transform_point3(mesh.positions[v])
                    })
                    .sum()
            };
            let expected = (0..mesh.vertex_count()).fold(Bounds::EMPTY, |b, v| {
                b.union(Bounds::point(skin(v, 2)))
                    .union(Bounds::point(skin(v, 1)))
            });
            assert!(
                bounds.min.abs_diff_eq(expected.min, 1e-4),
                "{bounds:?} vs {expected:?}"
            );
            assert!(
                bounds.max.abs_diff_eq(expected.max, 1e-4),
                "{bounds:?} vs {expected:?}"
            );
        }
    }
}
