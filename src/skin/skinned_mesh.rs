use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use crate::anim::Skeleton;
use crate::md5;

use super::influences::{select_influences, InfluenceLimit, TruncationReport, MAX_INFLUENCES};

/// One md5 mesh ready for skinning: bind-pose (model space) vertex data plus
/// the joints that move each vertex. This is what the GPU vertex buffers hold.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    /// The md5 `shader` string; the renderer resolves it to a texture.
    pub shader: String,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// xyz along +u, w = handedness of the (tangent, bitangent, normal) frame.
    pub tangents: Vec<Vec4>,
    pub uvs: Vec<Vec2>,
    /// Largest influence first; slots past `limit.count()` are unused.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Multiples of 1/255 summing to 1 (see `select_influences`).
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Three per triangle, in md5 order: clockwise seen from outside.
    pub indices: Vec<u32>,
    pub limit: InfluenceLimit,
    pub truncation: TruncationReport,
}

impl SkinnedMesh {
    /// The parser guarantees what is indexed here: weight ranges inside the
    /// mesh, joints inside the skeleton, triangle corners inside the vertices.
    pub fn from_md5(mesh: &md5::Mesh, skeleton: &Skeleton, limit: InfluenceLimit) -> SkinnedMesh {
        let mut truncation = TruncationReport::default();
        let mut positions = Vec::with_capacity(mesh.verts.len());
        let mut joints = Vec::with_capacity(mesh.verts.len());
        let mut weights = Vec::with_capacity(mesh.verts.len());
        let mut vertex_weights = Vec::new();

        for vert in &mesh.verts {
            let start = vert.start_weight as usize;
            let range = &mesh.weights[start..start + vert.weight_count as usize];
            positions.push(range.iter().fold(Vec3::ZERO, |sum, w| {
                sum + w.bias * skeleton.bind_pose[w.joint as usize].transform_point(w.position)
            }));

            vertex_weights.clear();
            vertex_weights.extend(range.iter().map(|w| (w.joint as u16, w.bias)));
            let selected = select_influences(&vertex_weights, limit);
            truncation.max_influences = truncation.max_influences.max(selected.distinct);
            if selected.distinct > limit.count() {
                truncation.truncated_vertices += 1;
                truncation.max_dropped_weight =
                    truncation.max_dropped_weight.max(selected.max_dropped);
            }
            joints.push(selected.joints);
            weights.push(selected.weights);
        }

        let indices: Vec<u32> = mesh.tris.iter().flatten().copied().collect();
        let uvs: Vec<Vec2> = mesh.verts.iter().map(|v| v.uv).collect();
        let normals = smooth_normals(&positions, &indices);
        let tangents = tangents(&positions, &normals, &uvs, &indices);
        SkinnedMesh {
            shader: mesh.shader.clone(),
            positions,
            normals,
            tangents,
            uvs,
            joints,
            weights,
            indices,
            limit,
            truncation,
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// Area-weighted face normals summed per position, not per vertex: md5 splits
/// vertices along uv seams, and averaging across the split keeps seams from
/// showing as creases in the lighting.
fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut group_of_position: HashMap<[u32; 3], usize> = HashMap::new();
    let groups: Vec<usize> = positions
        .iter()
        .map(|p| {
            let next = group_of_position.len();
            *group_of_position
                .entry(p.to_array().map(f32::to_bits))
                .or_insert(next)
        })
        .collect();
    let mut sums = vec![Vec3::ZERO; group_of_position.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|i| positions[tri[i] as usize]);
        // Clockwise from outside, so (c - a) x (b - a) points outwards; its
        // length (twice the area) weights big faces more.
        let face = (c - a).cross(b - a);
        for &i in tri {
            sums[groups[i as usize]] += face;
        }
    }
    groups
        .iter()
        .map(|&g| sums[g].try_normalize().unwrap_or(Vec3::Z))
        .collect()
}

/// Per-vertex tangents from the uv gradients of the surrounding triangles,
/// made orthogonal to the normal (Gram-Schmidt); w holds the handedness.
fn tangents(positions: &[Vec3], normals: &[Vec3], uvs: &[Vec2], indices: &[u32]) -> Vec<Vec4> {
    let mut tangent_sums = vec![Vec3::ZERO; positions.len()];
    let mut bitangent_sums = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|i| tri[i] as usize);
        let (e1, e2) = (positions[b] - positions[a], positions[c] - positions[a]);
        let (d1, d2) = (uvs[b] - uvs[a], uvs[c] - uvs[a]);
        let det = d1.x * d2.y - d2.x * d1.y;
        if det.abs() < f32::EPSILON {
            continue; // degenerate uv mapping: contributes no direction
        }
        let tangent = (e1 * d2.y - e2 * d1.y) / det;
        let bitangent = (e2 * d1.x - e1 * d2.x) / det;
        for i in [a, b, c] {
            tangent_sums[i] += tangent;
            bitangent_sums[i] += bitangent;
        }
    }
    normals
        .iter()
        .zip(tangent_sums.iter().zip(&bitangent_sums))
        .map(|(&n, (&t, &b))| {
            let t = (t - n * n.dot(t))
                .try_normalize()
                .unwrap_or_else(|| n.any_orthonormal_vector());
            let handedness = if n.cross(t).dot(b) < 0.0 { -1.0 } else { 1.0 };
            t.extend(handedness)
        })
        .collect()
}
