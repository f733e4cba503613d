//! How far from its origin a model's mesh can reach in any pose its
//! layers mix: cull.comp's sphere for an instance that plays layers, whose
//! pose (one channel from one clip, another from another, additive clips on
//! top) no clip's bounds hold.

use crate::anim::{Clip, Skeleton};
use crate::shared_constants::MAX_LAYERS;

use super::{morph_reach, SkinnedMesh};

/// The radius round the model's origin that every vertex stays within
/// whatever its layers mix. A joint's position is its parent's plus its
/// local translation turned, so it lies within the sum of its chain's
/// longest translations: each joint's longest in any frame of any clip
/// (a blend of translations is no longer than the longest), plus, for
/// each of [`MAX_LAYERS`] additive layers, its largest difference from a
/// clip's first frame. A vertex lies within its joints' reach plus its
/// distance from them in the bind pose, and its morph targets' reach
/// ([`morph_reach`]) as layers can mix their weights. Without clips: the
/// bind pose's translations.
pub fn layered_radius(skeleton: &Skeleton, clips: &[Clip], meshes: &[SkinnedMesh]) -> f32 {
    let joints = skeleton.joint_count();
    let mut longest = vec![0.0f32; joints];
    let mut added = vec![0.0f32; joints];
    for clip in clips {
        let Some(first) = clip.frames.first() else {
            continue;
        };
        for frame in &clip.frames {
            for (joint, (pose, reference)) in frame.iter().zip(first).enumerate().take(joints) {
                longest[joint] = longest[joint].max(pose.translation.length());
                added[joint] =
                    added[joint].max((pose.translation - reference.translation).length());
            }
        }
    }
    if clips.is_empty() {
        for (joint, parent) in skeleton.parents.iter().enumerate() {
            let local = match parent {
                Some(p) => {
                    skeleton.inverse_bind_pose[usize::from(*p)].then(skeleton.bind_pose[joint])
                }
                None => skeleton.bind_pose[joint],
            };
            longest[joint] = local.translation.length();
        }
    }
    // Parents come first.
    let mut reach = vec![0.0f32; joints];
    for joint in 0..joints {
        let own = longest[joint] + MAX_LAYERS as f32 * added[joint];
        reach[joint] = own + skeleton.parents[joint].map_or(0.0, |p| reach[usize::from(p)]);
    }
    let mut radius = reach.iter().copied().fold(0.0, f32::max);
    for mesh in meshes {
        for ((position, vertex_joints), weights) in
            mesh.positions.iter().zip(&mesh.joints).zip(&mesh.weights)
        {
            for (&joint, &weight) in vertex_joints.iter().zip(weights) {
                let joint = usize::from(joint);
                if weight <= 0.0 || joint >= joints {
                    continue;
                }
                let offset = skeleton.inverse_bind_pose[joint].transform_point(*position);
                radius = radius.max(reach[joint] + offset.length());
            }
        }
    }
    // Morph weights under layers: an override mixes towards another
    // clip's (no larger), an additive layer adds at most twice the largest.
    radius + morph_reach(meshes, clips, &[]) * (1 + 2 * MAX_LAYERS) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{local_to_model, JointPose};
    use crate::bounds::Bounds;
    use glam::{Quat, Vec3};

    /// A chain of three joints, each 10 units up from its parent.
    fn chain() -> Skeleton {
        let bind_pose: Vec<JointPose> = (0..3)
            .map(|j| JointPose::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, 10.0 * j as f32)))
            .collect();
        Skeleton {
            names: vec!["a".into(), "b".into(), "c".into()],
            parents: vec![None, Some(0), Some(1)],
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        }
    }

    fn clip(frames: Vec<Vec<JointPose>>) -> Clip {
        let count = frames.len();
        Clip {
            morphs: Default::default(),
            name: "c".into(),
            frame_rate: 10.0,
            looping: true,
            frames,
            bounds: vec![Bounds::point(Vec3::ZERO); count],
        }
    }

    #[test]
    fn every_mix_of_the_clips_stays_inside() {
        let skeleton = chain();
        let up = |z: f32, angle: f32| {
            JointPose::new(Quat::from_rotation_x(angle), Vec3::new(0.0, 0.0, z))
        };
        let clips = [
            clip(vec![vec![up(0.0, 0.0), up(10.0, 0.3), up(10.0, -0.2)]; 2]),
            clip(vec![
                vec![up(1.0, 0.0), up(10.0, 0.0), up(10.0, 0.0)],
                vec![up(3.0, 0.5), up(12.0, 0.4), up(10.0, 1.0)],
            ]),
        ];
        // No vertex: the joints' reach. Root 3 + additive 3 x 2, then
        // 12 + 3 x 2 and 10 + 0.
        let radius = layered_radius(&skeleton, &clips, &[]);
        assert!((radius - (9.0 + 18.0 + 10.0)).abs() < 1e-4, "{radius}");
        // Any mix of frames, joint by joint, is inside.
        for a in 0..2 {
            for b in 0..2 {
                let local: Vec<JointPose> =
                    (0..3).map(|j| clips[(a + j) % 2].frames[b][j]).collect();
                let mut model = vec![JointPose::IDENTITY; 3];
                local_to_model(&skeleton.parents, &local, &mut model);
                for pose in &model {
                    assert!(pose.translation.length() <= radius + 1e-4);
                }
            }
        }
    }
}
