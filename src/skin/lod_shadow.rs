//! What the simplifier sees of a mesh (`super::lod`): the surface as it is
//! drawn, not as the file splits it. Exporters write a vertex per triangle
//! corner where the source's normals differ (a flat-shaded mesh shares no
//! vertex at all), per uv island, or simply twice; to meshoptimizer those are
//! separate vertices, and a surface whose triangles share no vertex has
//! nothing it may collapse. The shadow index buffer names every vertex by
//! the first one equal to it in position, uv, colour and influences, for the
//! simplifier only: the vertex buffer stays as it is, LOD 0 draws the file's
//! triangles, and the levels, made of those first vertices, draw the same
//! surface (normals are one per position already, `super::smooth_normals`;
//! only the tangents, each copy's from its own triangles, differ).

use std::collections::HashMap;

use glam::{Vec2, Vec3};
use meshopt::SimplifyVertex;

use super::influences::MAX_INFLUENCES;
use super::vertex_color::VertexColor;

/// One entry per vertex each: what [`super::lod_chain`] reads of a mesh.
#[derive(Clone, Copy, Debug)]
pub struct LodSurface<'a> {
    pub positions: &'a [Vec3],
    /// One per position (smooth across uv seams).
    pub normals: &'a [Vec3],
    pub uvs: &'a [Vec2],
    /// A colour seam, as a uv seam, keeps its two sides apart.
    pub colors: &'a [VertexColor],
    pub joints: &'a [[u16; MAX_INFLUENCES]],
    pub weights: &'a [[f32; MAX_INFLUENCES]],
}

/// A mesh's triangles as the simplifier is given them.
pub struct ShadowMesh {
    /// The triangles over each vertex's representative (the first vertex
    /// equal to it), without those that have two corners on one
    /// representative: they cover nothing, and meshoptimizer would lock
    /// their vertices.
    pub indices: Vec<u32>,
    /// Per vertex: `Protect` where the vertices at its position differ in
    /// influences (see [`ShadowMesh::new`]).
    pub locks: Vec<SimplifyVertex>,
    /// Distinct positions the triangles use.
    pub positions: usize,
    /// Of those, the positions on an open border (an edge only one
    /// triangle uses, seen by position): a border vertex may only slide
    /// along its border.
    pub border_positions: usize,
    /// Of those, the positions where vertices differ in influences.
    pub split_positions: usize,
}

type PositionKey = [u32; 3];

/// What makes vertices one for the simplifier: position, uv, colour,
/// joints and weights, bit for bit.
type VertexKey = (
    PositionKey,
    [u32; 2],
    VertexColor,
    [u16; MAX_INFLUENCES],
    [u32; MAX_INFLUENCES],
);

/// Per vertex, the first vertex equal to it in position, uv, colour,
/// joints and weights, bit for bit (itself, where it is the first).
pub fn first_equal_vertices(surface: &LodSurface) -> Vec<u32> {
    let mut first_of: HashMap<VertexKey, u32> = HashMap::new();
    (0..surface.positions.len())
        .map(|v| {
            let key = (
                position_key(surface.positions[v]),
                surface.uvs[v].to_array().map(f32::to_bits),
                surface.colors[v],
                surface.joints[v],
                surface.weights[v].map(f32::to_bits),
            );
            *first_of.entry(key).or_insert(v as u32)
        })
        .collect()
}

fn position_key(p: Vec3) -> PositionKey {
    p.to_array().map(f32::to_bits)
}

impl ShadowMesh {
    /// Meshoptimizer treats the vertices at one position as one vertex with
    /// several attribute sets (wedges), and in permissive mode moves them
    /// together. Where they differ in influences they are separate surfaces
    /// that only touch in the bind pose (a sleeve's cuff on a wrist): those
    /// are protected, so that they collapse only along the seam they form,
    /// as in meshoptimizer's default mode.
    pub fn new(surface: &LodSurface, indices: &[u32]) -> ShadowMesh {
        let vertex_count = surface.positions.len();
        let representative = first_equal_vertices(surface);
        let mut shadow = Vec::with_capacity(indices.len());
        for t in indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|i| representative[t[i] as usize]);
            if a != b && b != c && c != a {
                shadow.extend([a, b, c]);
            }
        }

        // Positions as the simplifier groups them, the first vertex met at
        // each, and whether the vertices there differ in influences.
        let mut position_ids: HashMap<PositionKey, usize> = HashMap::new();
        let mut first_at: Vec<usize> = Vec::new();
        let mut split: Vec<bool> = Vec::new();
        let mut position_of = vec![usize::MAX; vertex_count];
        for &v in &shadow {
            let v = v as usize;
            if position_of[v] != usize::MAX {
                continue;
            }
            let id = *position_ids
                .entry(position_key(surface.positions[v]))
                .or_insert_with(|| {
                    first_at.push(v);
                    split.push(false);
                    first_at.len() - 1
                });
            position_of[v] = id;
            let first = first_at[id];
            split[id] |= surface.joints[first] != surface.joints[v]
                || surface.weights[first] != surface.weights[v];
        }
        let locks = (position_of.iter())
            .map(|&id| match split.get(id) {
                Some(true) => SimplifyVertex::Protect,
                _ => SimplifyVertex::None,
            })
            .collect();

        // Open edges by position: an edge whose reverse no triangle has.
        let mut edges: HashMap<(usize, usize), i32> = HashMap::new();
        for t in shadow.chunks_exact(3) {
            for k in 0..3 {
                let (a, b) = (
                    position_of[t[k] as usize],
                    position_of[t[(k + 1) % 3] as usize],
                );
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += if a < b { 1 } else { -1 };
            }
        }
        let mut border = vec![false; first_at.len()];
        for (&(a, b), &balance) in &edges {
            if balance != 0 {
                border[a] = true;
                border[b] = true;
            }
        }
        ShadowMesh {
            indices: shadow,
            locks,
            positions: first_at.len(),
            border_positions: border.iter().filter(|&&b| b).count(),
            split_positions: split.iter().filter(|&&s| s).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All of a vertex's weight on its first joint.
    const ONE_JOINT: [f32; MAX_INFLUENCES] = {
        let mut w = [0.0; MAX_INFLUENCES];
        w[0] = 1.0;
        w
    };

    fn surface<'a>(
        positions: &'a [Vec3],
        uvs: &'a [Vec2],
        joints: &'a [[u16; MAX_INFLUENCES]],
        weights: &'a [[f32; MAX_INFLUENCES]],
    ) -> LodSurface<'a> {
        LodSurface {
            positions,
            normals: positions,
            uvs,
            colors: &WHITE[..positions.len()],
            joints,
            weights,
        }
    }

    static WHITE: [VertexColor; 8] = [VertexColor::WHITE; 8];

    #[test]
    fn unwelded_quad_is_two_triangles_over_four_vertices() {
        // Two triangles, each with its own three vertices, as a flat-shaded
        // export writes a quad; the last vertex is a copy nothing uses.
        let p = [
            Vec3::ZERO,
            Vec3::Y,
            Vec3::X,
            Vec3::Y,
            Vec3::ONE.with_z(0.0),
            Vec3::X,
            Vec3::Z,
        ];
        let uvs: Vec<Vec2> = p.iter().map(|p| p.truncate()).collect();
        let joints = [[0; MAX_INFLUENCES]; 7];
        let weights = [ONE_JOINT; 7];
        let shadow = ShadowMesh::new(&surface(&p, &uvs, &joints, &weights), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(shadow.indices, vec![0, 1, 2, 1, 4, 2]);
        assert_eq!(shadow.positions, 4);
        assert_eq!(shadow.border_positions, 4);
        assert_eq!(shadow.split_positions, 0);
        assert!(shadow.locks.iter().all(|&l| l == SimplifyVertex::None));
    }

    #[test]
    fn copies_with_other_uvs_stay_apart_and_degenerate_triangles_go() {
        let p = [Vec3::ZERO, Vec3::Y, Vec3::X, Vec3::ZERO];
        let uvs = [Vec2::ZERO, Vec2::Y, Vec2::X, Vec2::ONE];
        let joints = [[0; MAX_INFLUENCES]; 4];
        let weights = [ONE_JOINT; 4];
        let s = surface(&p, &uvs, &joints, &weights);
        // Vertex 3 is at vertex 0's position with another uv: a seam, kept.
        let shadow = ShadowMesh::new(&s, &[3, 1, 2, 0, 0, 1]);
        assert_eq!(shadow.indices, vec![3, 1, 2]);
    }

    #[test]
    fn copies_with_other_colours_stay_apart() {
        let p = [Vec3::ZERO, Vec3::Y, Vec3::X, Vec3::ZERO];
        let uvs = [Vec2::ZERO; 4];
        let joints = [[0; MAX_INFLUENCES]; 4];
        let weights = [ONE_JOINT; 4];
        let red = VertexColor([u16::MAX, 0, 0, u16::MAX]);
        let colors = [
            VertexColor::WHITE,
            VertexColor::WHITE,
            VertexColor::WHITE,
            red,
        ];
        let s = LodSurface {
            colors: &colors,
            ..surface(&p, &uvs, &joints, &weights)
        };
        assert_eq!(first_equal_vertices(&s), vec![0, 1, 2, 3]);
        let white = surface(&p, &uvs, &joints, &weights);
        assert_eq!(first_equal_vertices(&white), vec![0, 1, 2, 0]);
    }

    #[test]
    fn copies_with_other_influences_are_protected() {
        let p = [Vec3::ZERO, Vec3::Y, Vec3::X, Vec3::ZERO, Vec3::NEG_X];
        let uvs = [Vec2::ZERO; 5];
        let mut joints = [[0; MAX_INFLUENCES]; 5];
        joints[3][0] = 1;
        joints[4][0] = 1;
        let weights = [ONE_JOINT; 5];
        let shadow = ShadowMesh::new(&surface(&p, &uvs, &joints, &weights), &[0, 1, 2, 3, 4, 1]);
        assert_eq!(shadow.split_positions, 1);
        let protected: Vec<usize> = (0..5)
            .filter(|&v| shadow.locks[v] == SimplifyVertex::Protect)
            .collect();
        assert_eq!(protected, vec![0, 3]);
    }
}
