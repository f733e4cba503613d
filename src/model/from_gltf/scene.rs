//! The node tree: who is whose parent, each node's rest transform, and
//! world matrices in md5crowd's space for any set of local transforms.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

use crate::gltf::{GltfError, GltfFile, UNITS_PER_METRE};

/// A node's local transform as glTF composes it: scale, then rotation,
/// then translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Trs {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// glTF's space (Y up, a character facing +Z, metres) to md5crowd's
/// (Z up, facing +X, inches; `assets/README.md`): glTF (x, y, z) is md5
/// (z, x, y), a rotation, so handedness and winding sense are kept.
pub fn gltf_to_md5() -> Mat4 {
    let s = UNITS_PER_METRE;
    Mat4::from_cols(
        Vec4::new(0.0, s, 0.0, 0.0),
        Vec4::new(0.0, 0.0, s, 0.0),
        Vec4::new(s, 0.0, 0.0, 0.0),
        Vec4::W,
    )
}

pub struct Nodes {
    pub parents: Vec<Option<usize>>,
    /// Every node, each after its parent.
    pub order: Vec<usize>,
    pub rest: Vec<Trs>,
    pub names: Vec<String>,
}

impl Nodes {
    /// The document's nodes. A node that is two nodes' child, or its own
    /// ancestor, or whose transform is not finite, is an error.
    pub fn read(file: &GltfFile) -> Result<Nodes, GltfError> {
        let count = file.document.nodes().len();
        let mut parents: Vec<Option<usize>> = vec![None; count];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
        let mut rest = Vec::with_capacity(count);
        let mut names = Vec::with_capacity(count);
        for node in file.document.nodes() {
            for child in node.children() {
                if let Some(first) = parents[child.index()] {
                    return Err(GltfError::new(
                        &file.name,
                        format!("nodes[{}]", child.index()),
                        format!("a child of both nodes[{first}] and nodes[{}]", node.index()),
                    ));
                }
                parents[child.index()] = Some(node.index());
                children[node.index()].push(child.index());
            }
            let (t, r, s) = node.transform().decomposed();
            let trs = Trs {
                translation: Vec3::from(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from(s),
            };
            let finite = trs.translation.is_finite()
                && trs.rotation.is_finite()
                && trs.scale.is_finite()
                && match node.transform() {
                    gltf::scene::Transform::Matrix { matrix } => {
                        matrix.iter().flatten().all(|v| v.is_finite())
                    }
                    gltf::scene::Transform::Decomposed { .. } => true,
                };
            if !finite {
                return Err(GltfError::new(
                    &file.name,
                    format!("nodes[{}]", node.index()),
                    "its transform is not finite (NaN or infinity)",
                ));
            }
            rest.push(Trs {
                rotation: trs.rotation.normalize(),
                ..trs
            });
            names.push(
                node.name()
                    .map_or_else(|| format!("node{}", node.index()), str::to_owned),
            );
        }
        let mut order = Vec::with_capacity(count);
        let mut stack: Vec<usize> = (0..count).rev().filter(|&n| parents[n].is_none()).collect();
        while let Some(node) = stack.pop() {
            order.push(node);
            stack.extend(children[node].iter().rev());
        }
        if order.len() < count {
            let stuck = (0..count).find(|n| !order.contains(n)).unwrap_or(0);
            return Err(GltfError::new(
                &file.name,
                format!("nodes[{stuck}]"),
                "its children lead back to itself (a cycle)",
            ));
        }
        Ok(Nodes {
            parents,
            order,
            rest,
            names,
        })
    }

    /// Every node's world matrix in md5crowd's space, the nodes posed by
    /// `locals`.
    pub fn world(&self, locals: &[Trs]) -> Vec<Mat4> {
        let mut world = vec![Mat4::IDENTITY; locals.len()];
        let root = gltf_to_md5();
        for &node in &self.order {
            let parent = self.parents[node].map_or(root, |p| world[p]);
            world[node] = parent * locals[node].matrix();
        }
        world
    }
}

/// A similarity's parts: the rigid transform and the scale along each axis.
pub struct Decomposed {
    pub rotation: Quat,
    pub translation: Vec3,
    pub scale: Vec3,
}

pub fn decompose(matrix: Mat4) -> Decomposed {
    let (scale, rotation, translation) = matrix.to_scale_rotation_translation();
    Decomposed {
        rotation: rotation.normalize(),
        translation,
        scale,
    }
}

/// The transform of normals under `matrix`: its inverse transpose.
pub fn normal_matrix(matrix: Mat4) -> Mat3 {
    Mat3::from_mat4(matrix).inverse().transpose()
}

/// Whether a scale is the same along every axis, within float noise.
pub fn is_uniform(scale: Vec3) -> bool {
    let (lo, hi) = (scale.abs().min_element(), scale.abs().max_element());
    hi - lo <= 1e-3 * hi
}

/// A scale's size: the geometric mean of its axes.
pub fn scale_size(scale: Vec3) -> f32 {
    (scale.x * scale.y * scale.z).abs().cbrt()
}
