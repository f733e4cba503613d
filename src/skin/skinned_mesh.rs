use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use super::influences::{InfluenceLimit, TruncationReport, MAX_INFLUENCES};
use super::lod::{LodLevel, ShortChain};
use super::lod_shadow::LodSurface;
use super::morph::{same_offsets, MorphTarget};
use super::vertex_color::VertexColor;

/// One mesh ready for skinning: bind-pose (model space) vertex data plus the
/// joints that move each vertex. This is what the GPU vertex buffers hold.
/// `crate::model::skinned_mesh_from_md5` builds it from an md5 mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    /// The md5 `shader` string; the renderer resolves it to a texture.
    pub shader: String,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// xyz along +u, w = handedness of the (tangent, bitangent, normal) frame.
    pub tangents: Vec<Vec4>,
    pub uvs: Vec<Vec2>,
    /// Multiplied into the material's base colour (glTF's `COLOR_0`);
    /// white where the file has none, as every md5 mesh.
    pub colors: Vec<VertexColor>,
    /// Largest influence first; slots past `limit.count()` are unused.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Multiples of 1/255 summing to 1 (see `select_influences`).
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Its blend shapes, each with an offset per vertex (none for md5).
    pub morph_targets: Vec<MorphTarget>,
    /// Three per triangle, clockwise seen from outside as in md5; in the
    /// file's order from the plain conversion, in vertex cache order after
    /// `optimize_for_gpu` (as `Model::load` gives it).
    pub indices: Vec<u32>,
    /// Levels of detail, finest first, all indexing the vertices above:
    /// `lods[0].indices == indices` (see `skin::lod`). The plain conversion
    /// gives this one level; `Model::load` builds the chain.
    pub lods: Vec<LodLevel>,
    /// Why the chain stops short of its coarsest target, if it does.
    pub short_chain: Option<ShortChain>,
    pub limit: InfluenceLimit,
    pub truncation: TruncationReport,
}

impl SkinnedMesh {
    /// No vertices, for tests that build a mesh by hand.
    #[cfg(test)]
    pub(crate) fn empty_for_tests(limit: InfluenceLimit) -> SkinnedMesh {
        SkinnedMesh {
            morph_targets: Vec::new(),
            shader: String::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            tangents: Vec::new(),
            uvs: Vec::new(),
            colors: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            indices: Vec::new(),
            lods: vec![LodLevel::default()],
            short_chain: None,
            limit,
            truncation: TruncationReport::default(),
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Keeps every per-vertex stream in step: new vertex `i` is old
    /// vertex `order[i]` (a permutation, or the vertices a weld keeps).
    /// Indices are the caller's to remap. Every stream a vertex has is
    /// listed here and nowhere else.
    pub(crate) fn reorder_vertices(&mut self, order: &[u32]) {
        fn pick<T: Copy>(values: &[T], order: &[u32]) -> Vec<T> {
            order.iter().map(|&old| values[old as usize]).collect()
        }
        self.positions = pick(&self.positions, order);
        self.normals = pick(&self.normals, order);
        self.tangents = pick(&self.tangents, order);
        self.uvs = pick(&self.uvs, order);
        self.colors = pick(&self.colors, order);
        self.joints = pick(&self.joints, order);
        self.weights = pick(&self.weights, order);
        for target in &mut self.morph_targets {
            *target = target.reordered(order);
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// What the simplifier and the weld read of the vertices.
    pub(crate) fn lod_surface(&self) -> LodSurface<'_> {
        LodSurface {
            positions: &self.positions,
            normals: &self.normals,
            uvs: &self.uvs,
            colors: &self.colors,
            joints: &self.joints,
            weights: &self.weights,
        }
    }

    /// Makes the copies an exporter wrote of a vertex one vertex: those
    /// equal in position, uv, colour, joints and weights (normals are one per
    /// position already, [`smooth_normals`], so the copies differ only in
    /// their tangents, which are derived again here over the welded
    /// triangles). A flat-shaded mesh, whose triangles share no vertex,
    /// then shades each vertex once instead of once per triangle around it
    /// (on lavapipe, 4096 flat-shaded characters drawn in full: 354 ms a
    /// frame welded against 862-917 ms). Triangles stay as they are. Call
    /// before the chain is built: LOD 0 is all it keeps.
    pub fn weld(&mut self) {
        let mut first = super::lod_shadow::first_equal_vertices(&self.lod_surface());
        // Copies that blend shapes move apart stay apart.
        for (v, first) in first.iter_mut().enumerate() {
            if !same_offsets(&self.morph_targets, v, *first as usize) {
                *first = v as u32;
            }
        }
        let mut new_index = vec![u32::MAX; first.len()];
        let mut kept = Vec::new();
        for (v, &f) in first.iter().enumerate() {
            if f as usize == v {
                new_index[v] = kept.len() as u32;
                kept.push(v as u32);
            }
        }
        if kept.len() == first.len() {
            return;
        }
        for index in &mut self.indices {
            *index = new_index[first[*index as usize] as usize];
        }
        self.reorder_vertices(&kept);
        self.tangents = tangents(&self.positions, &self.normals, &self.uvs, &self.indices);
        self.lods = vec![LodLevel {
            indices: self.indices.clone(),
            error: 0.0,
            influences: MAX_INFLUENCES,
        }];
        self.short_chain = None;
    }
}

/// Area-weighted face normals summed per position, not per vertex: md5 splits
/// vertices along uv seams, and averaging across the split keeps seams from
/// showing as creases in the lighting. `indices`: three per triangle,
/// clockwise seen from outside.
pub fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
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
pub fn tangents(positions: &[Vec3], normals: &[Vec3], uvs: &[Vec2], indices: &[u32]) -> Vec<Vec4> {
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
