//! Which nodes are the skeleton's joints, in what order, and each joint's
//! bind pose: the rigid, model-space transforms md5crowd skins with.

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::scene::{decompose, is_uniform, scale_size, Nodes};
use crate::anim::{JointPose, Skeleton};
use crate::gltf::{read_floats, AccessorRead, GltfError, GltfFile};

/// The joints and how the file's joint numbers map to them.
pub struct Rig {
    /// Per joint, its node; parents before children.
    pub nodes: Vec<usize>,
    /// Per node, its joint, if it is one.
    pub joint_of_node: Vec<Option<u16>>,
    pub parents: Vec<Option<u16>>,
    /// The skin the model is drawn with (`None`: the file has none, and
    /// every node that carries a mesh or holds one below it is a joint).
    pub skin: Option<usize>,
    /// Per joint number of the skin (JOINTS_n values), its joint.
    pub joint_of_slot: Vec<u16>,
    /// Per joint number of the skin, its inverse bind matrix (the
    /// identity where the skin gives none).
    pub inverse_binds: Vec<Mat4>,
}

impl Rig {
    /// The rig of `skin`, or of the nodes `meshes` hang from when there is
    /// none.
    pub fn read(
        file: &GltfFile,
        nodes: &Nodes,
        skin: Option<gltf::Skin>,
        mesh_nodes: &[usize],
    ) -> Result<Rig, GltfError> {
        let node_count = nodes.parents.len();
        let mut is_joint = vec![false; node_count];
        let mut slots = Vec::new();
        let mut inverse_binds = Vec::new();
        if let Some(skin) = &skin {
            slots = skin.joints().map(|j| j.index()).collect();
            for &node in &slots {
                is_joint[node] = true;
            }
            inverse_binds = vec![Mat4::IDENTITY; slots.len()];
            if let Some(accessor) = skin.inverse_bind_matrices() {
                let path = format!("skins[{}].inverseBindMatrices", skin.index());
                let values = read_floats(
                    file,
                    &accessor,
                    &AccessorRead {
                        what: &path,
                        dimensions: &[Dimensions::Mat4],
                        types: &[DataType::F32],
                    },
                )?;
                if values.len() < slots.len() * 16 {
                    return Err(GltfError::new(
                        &file.name,
                        path,
                        format!("{} matrices for {} joints", values.len() / 16, slots.len()),
                    ));
                }
                for (k, matrix) in inverse_binds.iter_mut().enumerate() {
                    let columns = &values[k * 16..k * 16 + 16];
                    *matrix = Mat4::from_cols_slice(columns);
                    if !columns.iter().all(|v| v.is_finite()) {
                        return Err(GltfError::new(
                            &file.name,
                            format!("{path} (accessors[{}])", accessor.index()),
                            format!("matrix {k} is not finite (NaN or infinity)"),
                        ));
                    }
                    if matrix.determinant().abs() < 1e-12 {
                        return Err(GltfError::new(
                            &file.name,
                            format!("{path} (accessors[{}])", accessor.index()),
                            format!("matrix {k} is singular"),
                        ));
                    }
                }
            }
        } else {
            for &mesh_node in mesh_nodes {
                for node in std::iter::successors(Some(mesh_node), |&n| nodes.parents[n]) {
                    is_joint[node] = true;
                }
            }
        }
        let joint_nodes: Vec<usize> = nodes
            .order
            .iter()
            .copied()
            .filter(|&n| is_joint[n])
            .collect();
        if let (Some(skin), []) = (&skin, joint_nodes.as_slice()) {
            return Err(GltfError::new(
                &file.name,
                format!("skins[{}].joints", skin.index()),
                "empty: a skin needs at least one joint",
            ));
        }
        if joint_nodes.len() > Skeleton::MAX_JOINTS {
            return Err(GltfError::new(
                &file.name,
                "nodes",
                format!(
                    "{} joints, but joint indices are 16-bit vertex attributes (at most {})",
                    joint_nodes.len(),
                    Skeleton::MAX_JOINTS
                ),
            ));
        }
        let mut joint_of_node = vec![None; node_count];
        for (joint, &node) in joint_nodes.iter().enumerate() {
            joint_of_node[node] = Some(joint as u16);
        }
        let parents = joint_nodes
            .iter()
            .map(|&node| {
                std::iter::successors(nodes.parents[node], |&n| nodes.parents[n])
                    .find_map(|n| joint_of_node[n])
            })
            .collect();
        let joint_of_slot = slots
            .iter()
            .map(|&node| joint_of_node[node].expect("every skin joint is a joint"))
            .collect();
        Ok(Rig {
            nodes: joint_nodes,
            joint_of_node,
            parents,
            skin: skin.map(|s| s.index()),
            joint_of_slot,
            inverse_binds,
        })
    }

    /// The skeleton, and the matrix from the skinned meshes' space to the
    /// bind pose's. `rest` is every node's world matrix in the rest pose;
    /// `reference` the skin's joint number whose inverse bind matrix (with
    /// its rest pose) places the skinned meshes: the one that moves the
    /// most weight. The bind poses follow from the inverse bind matrices,
    /// so that skinning with them and any pose equals glTF's skinning (the
    /// sum of joint world matrix x inverse bind matrix) exactly while every
    /// joint's scale is the uniform scale it has at rest.
    pub fn skeleton(
        &self,
        nodes: &Nodes,
        rest: &[Mat4],
        reference: usize,
        warnings: &mut Vec<String>,
    ) -> (Skeleton, Mat4) {
        let mesh_to_bind = match self.skin {
            Some(_) => {
                rest[self.nodes[self.joint_of_slot[reference] as usize]]
                    * self.inverse_binds[reference]
            }
            None => Mat4::IDENTITY,
        };
        // Per joint, its first joint number in the skin.
        let mut slot_of_joint = vec![None; self.nodes.len()];
        for (slot, &joint) in self.joint_of_slot.iter().enumerate().rev() {
            slot_of_joint[joint as usize] = Some(slot);
        }
        let mut bind_pose = Vec::with_capacity(self.nodes.len());
        for (joint, &node) in self.nodes.iter().enumerate() {
            let at_rest = decompose(rest[node]);
            if !is_uniform(at_rest.scale) {
                let relative = at_rest.scale / scale_size(at_rest.scale);
                warnings.push(format!(
                    "joint {}: non-uniform scale (in proportion {:.3}, {:.3}, {:.3}) in the rest \
                     pose; drawn without it",
                    nodes.names[node], relative.x, relative.y, relative.z
                ));
            }
            let pose = match slot_of_joint[joint] {
                Some(slot) => {
                    let bind = mesh_to_bind
                        * self.inverse_binds[slot].inverse()
                        * Mat4::from_scale(Vec3::splat(1.0 / scale_size(at_rest.scale)));
                    let parts = decompose(bind);
                    let size = scale_size(parts.scale);
                    if (size - 1.0).abs() > 1e-3 {
                        warnings.push(format!(
                            "joint {}: its inverse bind matrix and its rest pose differ in scale \
                             (x{size:.4}); skinned as if they agreed",
                            nodes.names[node]
                        ));
                    }
                    JointPose::new(parts.rotation, parts.translation)
                }
                None => JointPose::new(at_rest.rotation, at_rest.translation),
            };
            bind_pose.push(pose);
        }
        let skeleton = Skeleton {
            names: self.nodes.iter().map(|&n| nodes.names[n].clone()).collect(),
            parents: self.parents.clone(),
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        };
        (skeleton, mesh_to_bind)
    }
}
