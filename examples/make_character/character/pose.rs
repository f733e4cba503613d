//! Poses and the little forward kinematics and skinning the generator needs
//! for grounding the feet and for the per-frame bounds. Math runs in f64 so
//! that the f32 values written out do not depend on the platform's rounding.

use glam::{DQuat, DVec3, Quat};
use md5crowd::md5::{quat_from_xyz, Md5Mesh};

use super::skeleton::Skeleton;

/// A pose as the clips author it: per joint, a rotation in the bind pose's
/// model axes (a "swing this bone forward" rotation reads the same on every
/// joint, whatever its own frame), applied on top of the parent's motion.
pub struct Pose {
    pub rotations: Vec<DQuat>,
    /// Moves the pelvis, in model axes. `z` is the height above the ground:
    /// the exporter lowers or raises the body until the lowest vertex is where
    /// it is in the bind pose, then adds `z`.
    pub pelvis_offset: DVec3,
}

impl Pose {
    pub fn rest(skeleton: &Skeleton) -> Pose {
        Pose {
            rotations: vec![DQuat::IDENTITY; skeleton.joints.len()],
            pelvis_offset: DVec3::ZERO,
        }
    }

    /// Applies `rotation` to `joint` after the rotations already there.
    pub fn rotate(&mut self, joint: usize, rotation: DQuat) {
        self.rotations[joint] = rotation * self.rotations[joint];
    }

    /// The rotation the joints above `joint` (and `joint` itself) have added,
    /// in model axes: undoing it keeps a bone level while its parents move.
    pub fn accumulated(&self, skeleton: &Skeleton, joint: usize) -> DQuat {
        let mut rotation = self.rotations[joint];
        let mut next = skeleton.joints[joint].parent;
        while let Some(parent) = next {
            rotation = self.rotations[parent] * rotation;
            next = skeleton.joints[parent].parent;
        }
        rotation
    }
}

#[derive(Clone, Copy)]
pub struct Transform {
    pub position: DVec3,
    pub orientation: DQuat,
}

/// Parent-relative transforms, the form md5anim frames store.
///
/// The bind pose is `B` per joint (model space). A joint with authored
/// rotation `R` gets local orientation `B_parent^-1 * R * B`, so that its
/// model orientation is `R_ancestors * R * B`: the authored rotations compose
/// in model axes.
pub fn local_transforms(skeleton: &Skeleton, pose: &Pose) -> Vec<Transform> {
    let pelvis = skeleton.find("pelvis");
    skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(index, joint)| {
            let (parent_position, parent_orientation) =
                joint.parent.map_or((DVec3::ZERO, DQuat::IDENTITY), |p| {
                    let parent = &skeleton.joints[p];
                    (parent.position, parent.orientation)
                });
            let mut position = parent_orientation.inverse() * (joint.position - parent_position);
            if index == pelvis {
                position += parent_orientation.inverse() * pose.pelvis_offset;
            }
            let orientation =
                (parent_orientation.inverse() * pose.rotations[index] * joint.orientation)
                    .normalize();
            Transform {
                position,
                orientation,
            }
        })
        .collect()
}

/// Local to model space; `parents[i]` comes before `i`.
pub fn model_transforms(parents: &[Option<usize>], locals: &[Transform]) -> Vec<Transform> {
    let mut model: Vec<Transform> = Vec::with_capacity(locals.len());
    for (local, parent) in locals.iter().zip(parents) {
        model.push(match parent {
            Some(p) => {
                let parent = model[*p];
                Transform {
                    position: parent.position + parent.orientation * local.position,
                    orientation: (parent.orientation * local.orientation).normalize(),
                }
            }
            None => *local,
        });
    }
    model
}

/// Every vertex of every mesh, placed by its weights the way a reader of the
/// md5mesh places it.
pub fn skin(mesh: &Md5Mesh, model: &[Transform]) -> Vec<DVec3> {
    mesh.meshes
        .iter()
        .flat_map(|m| {
            m.verts.iter().map(|vert| {
                let start = vert.start_weight as usize;
                m.weights[start..start + vert.weight_count as usize]
                    .iter()
                    .map(|w| {
                        let joint = model[w.joint as usize];
                        (joint.position + joint.orientation * w.position.as_dvec3())
                            * f64::from(w.bias)
                    })
                    .sum::<DVec3>()
            })
        })
        .collect()
}

/// The md5mesh's own bind pose, as a reader sees it.
pub fn bind_transforms(mesh: &Md5Mesh) -> Vec<Transform> {
    mesh.joints
        .iter()
        .map(|joint| Transform {
            position: joint.position.as_dvec3(),
            orientation: as_read(joint.orientation),
        })
        .collect()
}

/// What a reader makes of a written quaternion: only x, y and z are stored,
/// and w is rebuilt non-positive.
pub fn as_read(orientation: Quat) -> DQuat {
    let q = if orientation.w > 0.0 {
        -orientation
    } else {
        orientation
    };
    quat_from_xyz(q.x, q.y, q.z).as_dquat()
}
