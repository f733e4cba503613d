//! The many-joint character's two clips, `sway` and `curl`, as md5anim
//! files hold them, with bounds from the skinned mesh at every frame.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use super::skeleton::{md5_quat, Joint};
use crate::anim::{local_to_model, JointPose};
use crate::bounds::Bounds;
use crate::md5::{BaseJoint, HierarchyJoint, Md5Anim, Md5Mesh};
use crate::model::clip_from_md5;

/// A clip's local pose of one joint at `phase` in [0, 1): `None` keeps the
/// bind pose (the joint is not animated).
pub(super) type PoseFn = fn(&Joint, f32) -> Option<JointPose>;

pub(super) fn sway(joint: &Joint, phase: f32) -> Option<JointPose> {
    let bind = joint.bind_local;
    let wave = TAU * phase;
    match joint.chain {
        None => Some(JointPose::new(
            Quat::from_rotation_z(0.25 * wave.sin()) * bind.rotation,
            bind.translation + Vec3::new(0.0, 0.0, 0.06 * wave.sin()),
        )),
        Some(3) => None,
        Some(chain) => {
            let angle = 0.12 * (wave + chain as f32 + 0.35 * joint.index as f32).sin();
            Some(JointPose::new(
                bind.rotation * Quat::from_rotation_y(angle),
                bind.translation,
            ))
        }
    }
}

pub(super) fn curl(joint: &Joint, phase: f32) -> Option<JointPose> {
    let bind = joint.bind_local;
    let amount = 0.5 - 0.5 * (TAU * phase).cos();
    let chain = joint.chain?;
    let along = (joint.index + 1) as f32 / joint.chain_len as f32;
    let rotation = bind.rotation
        * Quat::from_rotation_z(0.25 * amount * along)
        * Quat::from_rotation_x(0.3 * amount);
    let translation = if chain == 0 && joint.index > 0 {
        bind.translation * (1.0 + 0.1 * amount)
    } else {
        bind.translation
    };
    Some(JointPose::new(rotation, translation))
}

pub(super) fn anim(
    skeleton: &[Joint],
    parents: &[Option<u16>],
    mesh: &Md5Mesh,
    name: &str,
    frame_rate: f32,
    frame_count: usize,
    pose: PoseFn,
) -> Md5Anim {
    // Poses of the distinct frames; the last frame repeats the first.
    let cycle = frame_count - 1;
    let poses: Vec<Vec<Option<JointPose>>> = (0..frame_count)
        .map(|f| {
            let phase = (f % cycle) as f32 / cycle as f32;
            skeleton.iter().map(|j| pose(j, phase)).collect()
        })
        .collect();
    let mut hierarchy = Vec::with_capacity(skeleton.len());
    let mut start_index = 0;
    for (index, joint) in skeleton.iter().enumerate() {
        let flags = match poses[0][index] {
            None => 0,
            Some(_) if joint.chain.is_none() || (name == "curl" && joint.chain == Some(0)) => 0x3f,
            Some(_) => 0x38,
        };
        hierarchy.push(HierarchyJoint {
            name: joint.name.clone(),
            parent: joint.parent.map(|p| p as u32),
            flags,
            start_index,
        });
        start_index += u32::from(flags).count_ones();
    }
    let frames = poses
        .iter()
        .map(|frame| {
            let mut values = Vec::with_capacity(start_index as usize);
            for (joint, pose) in hierarchy.iter().zip(frame) {
                let Some(pose) = pose else { continue };
                let q = md5_quat(pose.rotation);
                let components = [
                    pose.translation.x,
                    pose.translation.y,
                    pose.translation.z,
                    q.x,
                    q.y,
                    q.z,
                ];
                for (bit, value) in components.into_iter().enumerate() {
                    if joint.flags & (1 << bit) != 0 {
                        values.push(value);
                    }
                }
            }
            values
        })
        .collect();
    let mut anim = Md5Anim {
        commandline: format!("md5crowd synthetic::many_joints: {name}"),
        frame_rate,
        num_animated_components: start_index,
        hierarchy,
        bounds: Vec::new(),
        baseframe: skeleton
            .iter()
            .map(|j| BaseJoint {
                position: j.bind_local.translation,
                orientation: md5_quat(j.bind_local.rotation),
            })
            .collect(),
        frames,
    };
    // Bounds from the frames as a reader decodes them, skinned on the CPU.
    let clip = clip_from_md5(name, &anim);
    let mut model = vec![JointPose::IDENTITY; skeleton.len()];
    anim.bounds = clip
        .frames
        .iter()
        .map(|locals| {
            local_to_model(parents, locals, &mut model);
            // The joints too, so that a mesh without vertices (1 joint)
            // still has a box.
            let mut bounds = model.iter().fold(Bounds::EMPTY, |b, pose| {
                b.union(Bounds::point(pose.translation))
            });
            for m in &mesh.meshes {
                for vert in &m.verts {
                    let first = vert.start_weight as usize;
                    let position: Vec3 = m.weights[first..first + vert.weight_count as usize]
                        .iter()
                        .map(|w| w.bias * model[w.joint as usize].transform_point(w.position))
                        .sum();
                    bounds = bounds.union(Bounds::point(position));
                }
            }
            // A little slack for rounding on the way through the files.
            Bounds {
                min: bounds.min - Vec3::splat(1e-3),
                max: bounds.max + Vec3::splat(1e-3),
            }
        })
        .collect();
    anim
}
