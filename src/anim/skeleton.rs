use crate::md5::Md5Mesh;

use super::JointPose;

/// Joints in parent-before-child order (the md5 parser guarantees it), with the
/// bind pose the mesh was modelled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    pub names: Vec<String>,
    pub parents: Vec<Option<u16>>,
    /// Model-space pose of each joint when the mesh is undeformed.
    pub bind_pose: Vec<JointPose>,
    /// Precomputed: skinning needs it every frame for every joint.
    pub inverse_bind_pose: Vec<JointPose>,
}

impl Skeleton {
    pub const MAX_JOINTS: usize = u16::MAX as usize + 1;

    /// Joint indices are 16-bit vertex attributes on the GPU, so callers
    /// refuse meshes with more than [`Skeleton::MAX_JOINTS`] joints first.
    pub fn from_md5(mesh: &Md5Mesh) -> Skeleton {
        debug_assert!(mesh.joints.len() <= Self::MAX_JOINTS);
        let bind_pose: Vec<JointPose> = mesh
            .joints
            .iter()
            .map(|j| JointPose::new(j.orientation.normalize(), j.position))
            .collect();
        Skeleton {
            names: mesh.joints.iter().map(|j| j.name.clone()).collect(),
            parents: mesh
                .joints
                .iter()
                .map(|j| j.parent.map(|p| p as u16))
                .collect(),
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        }
    }

    pub fn joint_count(&self) -> usize {
        self.parents.len()
    }
}
