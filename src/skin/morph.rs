//! Morph targets (blend shapes): per vertex offsets that a weight scales
//! and adds to the bind pose before skinning, as glTF defines them. Kept
//! dense, one offset per vertex of the mesh, so that welding, the levels
//! of detail and the GPU order move them with the other vertex streams
//! (`SkinnedMesh::reorder_vertices`); the GPU gets only the offsets that
//! move a vertex ([`MorphEntry`] lists, `gpu::gpu_model`).

use glam::{Vec3, Vec4};

use super::{SkinnedMesh, SurfaceVertex};
use crate::anim::Clip;

/// An offset shorter than this moves nothing that a picture shows: the
/// vertex is left out of the target's list.
pub const MORPH_EPSILON: f32 = 1e-6;

/// One blend shape of a mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// The target's name (glTF's `extras.targetNames`, else the mesh's name
    /// and the target's number).
    pub name: String,
    /// Which of its model's morph weights drives it (`anim::Morphs`):
    /// every primitive of one glTF mesh shares the mesh's weights.
    pub weight: u16,
    /// Per vertex, the offset at weight 1.
    pub positions: Vec<Vec3>,
    /// Per vertex, the normal's offset; empty when the file has none.
    pub normals: Vec<Vec3>,
    /// Per vertex, the tangent's offset (xyz); empty when the file has none.
    pub tangents: Vec<Vec3>,
}

impl MorphTarget {
    /// The offsets of vertex `v`: position, normal, tangent.
    pub fn offsets(&self, v: usize) -> (Vec3, Vec3, Vec3) {
        let at = |values: &[Vec3]| values.get(v).copied().unwrap_or(Vec3::ZERO);
        (at(&self.positions), at(&self.normals), at(&self.tangents))
    }

    /// Whether the target moves vertex `v` at all (its point or its
    /// directions).
    pub fn moves(&self, v: usize) -> bool {
        let (p, n, t) = self.offsets(v);
        p.length() > MORPH_EPSILON || n.length() > MORPH_EPSILON || t.length() > MORPH_EPSILON
    }

    /// How many vertices it moves.
    pub fn moved_vertices(&self) -> usize {
        (0..self.positions.len()).filter(|&v| self.moves(v)).count()
    }

    /// Its longest position offset: how far it can move a vertex at
    /// weight 1 (bounds grow by it times the largest weight).
    pub fn largest_offset(&self) -> f32 {
        self.positions
            .iter()
            .map(|p| p.length())
            .fold(0.0, f32::max)
    }

    /// The target with its vertices in `order` (new vertex `i` is old
    /// vertex `order[i]`).
    pub(crate) fn reordered(&self, order: &[u32]) -> MorphTarget {
        let pick = |values: &[Vec3]| -> Vec<Vec3> {
            if values.is_empty() {
                return Vec::new();
            }
            order.iter().map(|&old| values[old as usize]).collect()
        };
        MorphTarget {
            name: self.name.clone(),
            weight: self.weight,
            positions: pick(&self.positions),
            normals: pick(&self.normals),
            tangents: pick(&self.tangents),
        }
    }
}

/// Vertex `v` of `mesh` in its bind pose, morphed by `weights` (its model's
/// morph weights, `anim::Morphs` order; a missing weight is 0): each
/// target's offsets times its weight, added. The directions are left
/// unnormalised, as skinning normalises after. crowd.vert's `morphed`
/// does the same.
pub fn morphed_vertex(mesh: &SkinnedMesh, v: usize, weights: &[f32]) -> SurfaceVertex {
    let mut position = mesh.positions[v];
    let mut normal = mesh.normals[v];
    let tangent = mesh.tangents[v];
    let mut direction = tangent.truncate();
    for target in &mesh.morph_targets {
        let w = weights
            .get(usize::from(target.weight))
            .copied()
            .unwrap_or(0.0);
        if w == 0.0 {
            continue;
        }
        let (p, n, t) = target.offsets(v);
        position += p * w;
        normal += n * w;
        direction += t * w;
    }
    SurfaceVertex {
        position,
        normal,
        tangent: Vec4::from((direction, tangent.w)).to_array(),
    }
}

/// How far morph targets can carry a vertex of `meshes` from where
/// skinning alone puts it, in model units: per mesh, each target's longest
/// offset times the largest weight any frame of `clips` gives it (or its
/// default), summed; the largest mesh's sum. Skinning turns an offset
/// rigidly or blends turned copies of it, which is never longer, so bounds
/// of the skinned shape grown by this hold the morphed shape.
pub fn morph_reach(meshes: &[SkinnedMesh], clips: &[Clip], defaults: &[f32]) -> f32 {
    let largest_weight = |w: usize| {
        clips
            .iter()
            .flat_map(|c| &c.morphs.frames)
            .filter_map(|frame| frame.get(w))
            .chain(defaults.get(w))
            .fold(0.0f32, |most, weight| most.max(weight.abs()))
    };
    meshes
        .iter()
        .map(|mesh| {
            mesh.morph_targets
                .iter()
                .map(|t| t.largest_offset() * largest_weight(usize::from(t.weight)))
                .sum::<f32>()
        })
        .fold(0.0, f32::max)
}

/// Whether vertices `a` and `b` are moved alike by every target (welding
/// may merge them only then).
pub fn same_offsets(targets: &[MorphTarget], a: usize, b: usize) -> bool {
    targets.iter().all(|t| t.offsets(a) == t.offsets(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::InfluenceLimit;

    fn two_vertex_mesh() -> SkinnedMesh {
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        mesh.positions = vec![Vec3::ZERO, Vec3::X];
        mesh.normals = vec![Vec3::Z; 2];
        mesh.tangents = vec![Vec4::new(1.0, 0.0, 0.0, -1.0); 2];
        mesh.morph_targets = vec![
            MorphTarget {
                name: "up".into(),
                weight: 1,
                positions: vec![Vec3::ZERO, Vec3::Y],
                normals: vec![Vec3::ZERO, Vec3::X],
                tangents: Vec::new(),
            },
            MorphTarget {
                name: "out".into(),
                weight: 0,
                positions: vec![Vec3::Z * 2.0, Vec3::ZERO],
                ..MorphTarget::default()
            },
        ];
        mesh
    }

    #[test]
    fn weighted_offsets_add_to_the_bind_pose() {
        let mesh = two_vertex_mesh();
        let v = morphed_vertex(&mesh, 1, &[0.25, 0.5]);
        assert_eq!(v.position, Vec3::new(1.0, 0.5, 0.0));
        assert_eq!(v.normal, Vec3::new(0.5, 0.0, 1.0));
        assert_eq!(v.tangent, [1.0, 0.0, 0.0, -1.0]);
        let v = morphed_vertex(&mesh, 0, &[0.25]);
        assert_eq!(v.position, Vec3::new(0.0, 0.0, 0.5));
    }

    #[test]
    fn the_reach_is_each_offset_times_its_largest_weight() {
        let mesh = two_vertex_mesh();
        let mut clip = Clip {
            name: "talk".into(),
            frame_rate: 1.0,
            frames: vec![Vec::new(); 2],
            bounds: Vec::new(),
            looping: true,
            morphs: Default::default(),
        };
        clip.morphs.frames = vec![vec![0.5, 0.25], vec![-0.75, 0.5]];
        // "out" (2 long) at most 0.75, "up" (1 long) at most 0.5.
        assert_eq!(
            morph_reach(std::slice::from_ref(&mesh), &[clip], &[0.0, 0.0]),
            2.0
        );
        assert_eq!(morph_reach(&[mesh], &[], &[0.0, 2.0]), 2.0);
    }

    #[test]
    fn a_target_moves_the_vertices_with_an_offset() {
        let mesh = two_vertex_mesh();
        assert_eq!(mesh.morph_targets[0].moved_vertices(), 1);
        assert!(mesh.morph_targets[0].moves(1) && !mesh.morph_targets[0].moves(0));
        assert_eq!(mesh.morph_targets[1].largest_offset(), 2.0);
        assert!(!same_offsets(&mesh.morph_targets, 0, 1));
        let swapped = mesh.morph_targets[0].reordered(&[1, 0]);
        assert_eq!(swapped.positions, vec![Vec3::Y, Vec3::ZERO]);
        assert!(swapped.tangents.is_empty());
    }
}
