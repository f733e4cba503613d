//! A model with morph targets made in memory: the shipped character given
//! synthetic blend shapes and weight frames on every clip, for tests that
//! need many targets over a known share of the vertices without a file.

use glam::Vec3;
use md5crowd::anim::Morphs;
use md5crowd::model::Model;
use md5crowd::skin::MorphTarget;

/// Whether target `target` moves vertex `vertex`: a hash under `share`.
fn moves(vertex: usize, target: usize, share: f32) -> bool {
    let mut x = (vertex as u64) << 8 | target as u64;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    ((x >> 40) as f32 / (1u64 << 24) as f32) < share
}

/// `model` with `targets` morph targets, each moving `share` of every
/// mesh's vertices along their normals (target `t` by `1 + t / 2` units,
/// its normals bent towards +Z), and every clip playing weight `t` as
/// `0.5 + 0.5 * sin(0.4 * frame + t)` (an additive layer's difference
/// from the first frame is then never zero).
pub fn with_morph_targets(mut model: Model, targets: usize, share: f32) -> Model {
    for mesh in &mut model.meshes {
        let vertices = mesh.vertex_count();
        mesh.morph_targets = (0..targets)
            .map(|t| {
                let length = 1.0 + t as f32 / 2.0;
                let moved = |v: usize| moves(v, t, share);
                MorphTarget {
                    name: format!("shape{t}"),
                    weight: t as u16,
                    positions: (0..vertices)
                        .map(|v| match moved(v) {
                            true => mesh.normals[v] * length,
                            false => Vec3::ZERO,
                        })
                        .collect(),
                    normals: (0..vertices)
                        .map(|v| match moved(v) {
                            true => Vec3::Z * 0.3,
                            false => Vec3::ZERO,
                        })
                        .collect(),
                    tangents: Vec::new(),
                }
            })
            .collect();
    }
    model.morphs = Morphs {
        names: (0..targets).map(|t| format!("shape{t}")).collect(),
        defaults: vec![0.0; targets],
    };
    for clip in &mut model.clips {
        clip.morphs.frames = (0..clip.frames.len())
            .map(|f| {
                (0..targets)
                    .map(|t| 0.5 + 0.5 * (0.4 * f as f32 + t as f32).sin())
                    .collect()
            })
            .collect();
        clip.morphs.animated = (0..targets as u16).collect();
        clip.morphs.channels = 1;
    }
    model
}

/// The share of `model`'s vertices some morph target moves.
pub fn moved_share(model: &Model) -> f32 {
    let (mut moved, mut all) = (0, 0);
    for mesh in &model.meshes {
        all += mesh.vertex_count();
        moved += (0..mesh.vertex_count())
            .filter(|&v| mesh.morph_targets.iter().any(|t| t.moves(v)))
            .count();
    }
    moved as f32 / all.max(1) as f32
}
