//! Morph targets on the GPU: what the animate pass samples (each clip's
//! weight rows) and what crowd.vert reads (each vertex's list of the
//! targets that move it).
//!
//! Offsets are stored as a list per vertex ([`MorphEntry`]s, a range per
//! vertex in `morph_ranges`), not as a dense offset per target and vertex
//! nor per target by vertex range: a vertex reads exactly the targets that
//! move it, and a vertex no target moves reads one range and nothing else.
//! docs/architecture.md, "Morph targets", gives the measurements behind
//! the choice.

use bytemuck::{Pod, Zeroable};

use super::GpuError;
use crate::model::Model;
use crate::shared_constants::MORPH_NONE;
use crate::skin::SkinnedMesh;

/// Twin of `MorphEntry` in shaders/morph.glsl: one target's offsets of one
/// vertex, at weight 1.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MorphEntry {
    /// xyz the position's offset; w the target's weight index among its
    /// model's (`anim::Morphs`), its bits a `u32`.
    pub position: [f32; 4],
    /// xyz the normal's offset.
    pub normal: [f32; 4],
    /// xyz the tangent's offset.
    pub tangent: [f32; 4],
}

/// The most morph weights a model of `models` has: the stride of each
/// instance's weights in the crowd's `MorphWeights` and of every clip's
/// weight rows; 0 when no model has morph targets.
pub fn morph_stride(models: &[Model]) -> u32 {
    models.iter().map(|m| m.morphs.count()).max().unwrap_or(0) as u32
}

/// Appends `model`'s clip weight rows to `rows` (each `stride` wide,
/// weights past the model's zero): per clip, a row with 1 for each weight
/// the clip animates (what a layer playing it takes over), then a row per
/// frame; a clip that animates none repeats the model's defaults. Returns
/// each clip's first row (its mask row), or [`MORPH_NONE`] for every clip
/// of a model without morph targets.
pub fn append_clip_rows(model: &Model, stride: usize, rows: &mut Vec<f32>) -> Vec<u32> {
    let morphs = &model.morphs;
    if morphs.is_empty() {
        return vec![MORPH_NONE; model.clips.len()];
    }
    fn push_row(rows: &mut Vec<f32>, stride: usize, values: impl Iterator<Item = f32>) {
        let start = rows.len();
        rows.extend(values.take(stride));
        rows.resize(start + stride, 0.0);
    }
    model
        .clips
        .iter()
        .map(|clip| {
            let first = (rows.len() / stride) as u32;
            let mut mask = vec![0.0; morphs.count()];
            for &w in &clip.morphs.animated {
                if let Some(m) = mask.get_mut(usize::from(w)) {
                    *m = 1.0;
                }
            }
            push_row(rows, stride, mask.into_iter());
            for f in 0..clip.frames.len() {
                let frame = clip.morphs.frames.get(f).unwrap_or(&morphs.defaults);
                push_row(rows, stride, frame.iter().copied());
            }
            first
        })
        .collect()
}

/// Refuses offsets that one storage buffer of the device cannot hold
/// (`limit`: maxStorageBufferRange), naming the models (`models`).
pub fn check_fits(streams: &MorphStreams, limit: u64, models: &str) -> Result<(), GpuError> {
    let bytes = (streams.entries.len() * size_of::<MorphEntry>()) as u64;
    match bytes > limit {
        true => Err(GpuError::MorphTargetsTooLarge {
            models: models.to_owned(),
            bytes,
            limit,
        }),
        false => Ok(()),
    }
}

/// Every drawn mesh's per-vertex target lists, in the order of the shared
/// vertex streams: `ranges[v]` is (first entry, entry count) of vertex `v`.
#[derive(Default)]
pub struct MorphStreams {
    pub ranges: Vec<[u32; 2]>,
    pub entries: Vec<MorphEntry>,
}

impl MorphStreams {
    /// Appends `mesh`'s vertices' lists (empty ones for a mesh without
    /// targets).
    pub fn add_mesh(&mut self, mesh: &SkinnedMesh) {
        for v in 0..mesh.vertex_count() {
            let first = self.entries.len() as u32;
            for target in mesh.morph_targets.iter().filter(|t| t.moves(v)) {
                let (p, n, t) = target.offsets(v);
                self.entries.push(MorphEntry {
                    position: p
                        .extend(f32::from_bits(u32::from(target.weight)))
                        .to_array(),
                    normal: n.extend(0.0).to_array(),
                    tangent: t.extend(0.0).to_array(),
                });
            }
            self.ranges.push([first, self.entries.len() as u32 - first]);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4};

    use super::*;
    use crate::skin::{InfluenceLimit, MorphTarget};

    #[test]
    fn a_vertex_lists_only_the_targets_that_move_it() {
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        mesh.positions = vec![Vec3::ZERO; 3];
        mesh.normals = vec![Vec3::Z; 3];
        mesh.tangents = vec![Vec4::X; 3];
        mesh.morph_targets = vec![
            MorphTarget {
                weight: 2,
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                ..MorphTarget::default()
            },
            MorphTarget {
                weight: 0,
                positions: vec![Vec3::ZERO, Vec3::ZERO, Vec3::Z],
                normals: vec![Vec3::ZERO, Vec3::ZERO, Vec3::X],
                ..MorphTarget::default()
            },
        ];
        let mut streams = MorphStreams::default();
        streams.add_mesh(&mesh);
        assert_eq!(streams.ranges, vec![[0, 0], [0, 1], [1, 2]]);
        assert_eq!(streams.entries[0].position[3].to_bits(), 2);
        assert_eq!(
            streams.entries[2].position,
            [0.0, 0.0, 1.0, f32::from_bits(0)]
        );
        assert_eq!(streams.entries[2].normal, [1.0, 0.0, 0.0, 0.0]);
        assert!(check_fits(&streams, 3 * 48, "m.glb").is_ok());
        let refused = check_fits(&streams, 3 * 48 - 1, "m.glb").unwrap_err();
        assert!(matches!(
            refused,
            GpuError::MorphTargetsTooLarge { bytes: 144, .. }
        ));
        assert!(refused.to_string().starts_with("m.glb: the morph targets"));
    }
}
