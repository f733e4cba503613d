use super::JointPose;

/// Joints in parent-before-child order (the md5 parser guarantees it), with the
/// bind pose the mesh was modelled in. Built from a file by
/// `crate::model::skeleton_from_md5`.
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

    pub fn joint_count(&self) -> usize {
        self.parents.len()
    }
}
