//! Which nodes are the skeleton's joints, in what order, and each joint's
//! bind pose: the rigid, model-space transforms md5crowd skins with.

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::scene::{decompose, is_uniform, scale_size, Nodes};
use super::warnings::Warnings;
use crate::anim::{JointPose, Skeleton};
use crate::gltf::{read_floats, AccessorRead, GltfError, GltfFile};

/// The joints and how each skin's joint numbers map to them.
pub struct Rig {
    /// Per joint, its node; parents before children.
    pub nodes: Vec<usize>,
    /// Per node, its joint, if it is one.
    pub joint_of_node: Vec<Option<u16>>,
    pub parents: Vec<Option<u16>>,
    /// The skins the drawn meshes use, in the order first met (none: the
    /// file has none, and every node that carries a mesh or holds one
    /// below it is a joint).
    pub skins: Vec<SkinSlots>,
}

/// One skin: its joint numbers (JOINTS_n values) in the merged skeleton.
pub struct SkinSlots {
    /// The skin's index in the file.
    pub skin: usize,
    /// Per joint number, its joint.
    pub joint_of_slot: Vec<u16>,
    /// Per joint number, its inverse bind matrix (the identity where the
    /// skin gives none).
    pub inverse_binds: Vec<Mat4>,
}

impl SkinSlots {
    fn read(file: &GltfFile, skin: &gltf::Skin) -> Result<(SkinSlots, Vec<usize>), GltfError> {
        let slots: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        if slots.is_empty() {
            return Err(GltfError::new(
                &file.name,
                format!("skins[{}].joints", skin.index()),
                "empty: a skin needs at least one joint",
            ));
        }
        let mut inverse_binds = vec![Mat4::IDENTITY; slots.len()];
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
                let problem = if !columns.iter().all(|v| v.is_finite()) {
                    "is not finite (NaN or infinity)"
                } else if matrix.determinant().abs() < 1e-12 {
                    "is singular"
                } else {
                    continue;
                };
                return Err(GltfError::new(
                    &file.name,
                    format!("{path} (accessors[{}])", accessor.index()),
                    format!("matrix {k} {problem}"),
                ));
            }
        }
        let slots_of = SkinSlots {
            skin: skin.index(),
            joint_of_slot: Vec::new(),
            inverse_binds,
        };
        Ok((slots_of, slots))
    }
}

impl Rig {
    /// The rig of `skins` (their joints merged: a node that two skins
    /// share is one joint), or of the nodes `meshes` hang from when there
    /// are none.
    pub fn read(
        file: &GltfFile,
        nodes: &Nodes,
        skins: &[gltf::Skin],
        mesh_nodes: &[usize],
    ) -> Result<Rig, GltfError> {
        let node_count = nodes.parents.len();
        let mut is_joint = vec![false; node_count];
        let mut read = Vec::with_capacity(skins.len());
        for skin in skins {
            let (slots_of, slots) = SkinSlots::read(file, skin)?;
            for &node in &slots {
                is_joint[node] = true;
            }
            read.push((slots_of, slots));
        }
        if skins.is_empty() {
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
        let skins = read
            .into_iter()
            .map(|(slots_of, slots)| SkinSlots {
                joint_of_slot: slots
                    .iter()
                    .map(|&node| joint_of_node[node].expect("every skin joint is a joint"))
                    .collect(),
                ..slots_of
            })
            .collect();
        Ok(Rig {
            nodes: joint_nodes,
            joint_of_node,
            parents,
            skins,
        })
    }

    /// The skeleton, and per skin the matrix from its meshes' space to the
    /// bind pose's. `rest` is every node's world matrix in the rest pose;
    /// `references` per skin the joint number whose inverse bind matrix
    /// (with its rest pose) places that skin's meshes: the one that moves
    /// the most weight. The bind poses follow from the inverse bind
    /// matrices, so that skinning with them and any pose equals glTF's
    /// skinning (the sum of joint world matrix x inverse bind matrix)
    /// exactly while every joint's scale is the uniform scale it has at
    /// rest. A skin that shares a joint with an earlier skin is placed by
    /// that joint's bind pose instead, so that one bind pose serves both;
    /// where the skins bind another shared joint in different places, the
    /// first skin's stands and a warning says so.
    pub fn skeleton(
        &self,
        nodes: &Nodes,
        rest: &[Mat4],
        references: &[usize],
        warnings: &mut Warnings,
    ) -> (Skeleton, Vec<Mat4>) {
        let rest_scale: Vec<Vec3> = self
            .nodes
            .iter()
            .map(|&n| decompose(rest[n]).scale)
            .collect();
        // Per joint, the first skin's bind matrix (scale kept), and the rigid pose.
        let mut bound: Vec<Option<(Mat4, JointPose)>> = vec![None; self.nodes.len()];
        let mut mesh_to_bind = Vec::with_capacity(self.skins.len());
        for (skin, &reference) in self.skins.iter().zip(references) {
            // A skin that shares a joint with an earlier one is placed by
            // it, so that the joint's bind pose serves both.
            let shared = skin
                .joint_of_slot
                .iter()
                .enumerate()
                .find_map(|(slot, &j)| Some((slot, bound[j as usize]?.0)));
            let to_bind = match shared {
                Some((slot, matrix)) => matrix * skin.inverse_binds[slot],
                None => {
                    rest[self.nodes[skin.joint_of_slot[reference] as usize]]
                        * skin.inverse_binds[reference]
                }
            };
            mesh_to_bind.push(to_bind);
            for (slot, &joint) in skin.joint_of_slot.iter().enumerate() {
                let joint = joint as usize;
                let name = &nodes.names[self.nodes[joint]];
                let matrix = to_bind * skin.inverse_binds[slot].inverse();
                let parts = decompose(
                    matrix * Mat4::from_scale(Vec3::splat(1.0 / scale_size(rest_scale[joint]))),
                );
                let pose = JointPose::new(parts.rotation, parts.translation);
                match bound[joint] {
                    None => {
                        let size = scale_size(parts.scale);
                        if (size - 1.0).abs() > 1e-3 {
                            warnings.bind_scale.add(
                                name,
                                "",
                                (size - 1.0).abs(),
                                format!("x{size:.4}"),
                            );
                        }
                        bound[joint] = Some((matrix, pose));
                    }
                    Some((_, first)) => {
                        let apart = first.translation.distance(pose.translation)
                            + first.rotation.angle_between(pose.rotation);
                        if apart > 1e-3 {
                            warnings.skins_disagree.add(
                                name,
                                "",
                                apart,
                                format!("{apart:.4} (skins[{}])", skin.skin),
                            );
                        }
                    }
                }
            }
        }
        let bind_pose: Vec<Option<JointPose>> =
            bound.iter().map(|b| b.map(|(_, pose)| pose)).collect();
        for (joint, &node) in self.nodes.iter().enumerate() {
            let scale = rest_scale[joint];
            if !is_uniform(scale) {
                let relative = scale / scale_size(scale);
                warnings.rest_scale.add(
                    &nodes.names[node],
                    "",
                    relative.max_element() / relative.min_element() - 1.0,
                    format!("({:.3}, {:.3}, {:.3})", relative.x, relative.y, relative.z),
                );
            }
        }
        let bind_pose: Vec<JointPose> = self
            .nodes
            .iter()
            .zip(bind_pose)
            .map(|(&node, pose)| {
                pose.unwrap_or_else(|| {
                    let at_rest = decompose(rest[node]);
                    JointPose::new(at_rest.rotation, at_rest.translation)
                })
            })
            .collect();
        let skeleton = Skeleton {
            names: self.nodes.iter().map(|&n| nodes.names[n].clone()).collect(),
            parents: self.parents.clone(),
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        };
        (skeleton, mesh_to_bind)
    }
}
