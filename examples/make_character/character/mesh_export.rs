//! Surfaces and skeleton to an md5mesh: bind joints in model space, and per
//! vertex its own run of weights, each a position in its joint's frame.

use std::collections::BTreeMap;

use glam::DVec3;
use md5crowd::md5::{Md5Mesh, Mesh, MeshJoint, Vert, Weight};

use super::body::Surface;
use super::skeleton::Skeleton;

/// Influences lighter than this share of the total are dropped.
const MIN_SHARE: f64 = 0.01;

pub fn md5_mesh(skeleton: &Skeleton, surfaces: &[Surface]) -> Md5Mesh {
    Md5Mesh {
        commandline: super::COMMANDLINE.to_owned(),
        joints: skeleton
            .joints
            .iter()
            .map(|joint| MeshJoint {
                name: joint.name.clone(),
                parent: joint.parent.map(|p| p as u32),
                position: joint.position.as_vec3(),
                orientation: joint.orientation.as_quat(),
            })
            .collect(),
        meshes: surfaces
            .iter()
            .map(|surface| md5_mesh_block(skeleton, surface))
            .collect(),
    }
}

fn md5_mesh_block(skeleton: &Skeleton, surface: &Surface) -> Mesh {
    let mut mesh = Mesh {
        shader: surface.shader.to_owned(),
        verts: Vec::new(),
        tris: Vec::new(),
        weights: Vec::new(),
    };
    for part in &surface.parts {
        let first_vertex = mesh.verts.len() as u32;
        for (vertex, influences) in part.shell.vertices.iter().zip(&part.influences) {
            let influences = normalized(influences);
            mesh.verts.push(Vert {
                uv: vertex.uv.as_vec2(),
                start_weight: mesh.weights.len() as u32,
                weight_count: influences.len() as u32,
            });
            for (joint, bias) in influences {
                let bind = &skeleton.joints[joint];
                let local = bind.orientation.inverse() * (vertex.position - bind.position);
                mesh.weights.push(Weight {
                    joint: joint as u32,
                    bias: bias as f32,
                    position: local.as_vec3(),
                });
            }
        }
        mesh.tris.extend(
            part.shell
                .triangles
                .iter()
                .map(|tri| tri.map(|i| first_vertex + i)),
        );
    }
    mesh
}

/// Merges repeated joints, drops negligible influences, orders the rest by
/// weight (heaviest first, then by joint) and scales them to sum to 1.
fn normalized(influences: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut merged = BTreeMap::new();
    for &(joint, weight) in influences {
        *merged.entry(joint).or_insert(0.0) += weight;
    }
    let total: f64 = merged.values().sum();
    let mut kept: Vec<(usize, f64)> = merged
        .into_iter()
        .filter(|&(_, w)| w >= MIN_SHARE * total)
        .collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let kept_total: f64 = kept.iter().map(|&(_, w)| w).sum();
    kept.iter()
        .map(|&(joint, weight)| (joint, weight / kept_total))
        .collect()
}

/// Where the bind pose puts every vertex, for checking the weights against.
pub fn bind_positions(surfaces: &[Surface]) -> Vec<DVec3> {
    surfaces
        .iter()
        .flat_map(|s| &s.parts)
        .flat_map(|p| p.shell.vertices.iter().map(|v| v.position))
        .collect()
}
