//! The promises the shipped files make, checked on the generator's own data
//! before anything is written: a change to a shape or a clip that breaks one
//! stops the generator instead of shipping a broken character.

use std::collections::BTreeMap;

use glam::Quat;
use md5crowd::md5::{Md5Anim, Md5Mesh};

use super::anim_export::decode_frame;
use super::body::{Part, Surface};
use super::mesh_export::bind_positions;
use super::pose::{bind_transforms, skin};

const TRIANGLE_RANGE: std::ops::RangeInclusive<usize> = 2_000..=10_000;
const MAX_INFLUENCES: usize = 8;

pub fn check_mesh(surfaces: &[Surface], mesh: &Md5Mesh) {
    assert!(mesh.joints.len() >= 20, "only {} joints", mesh.joints.len());
    for (index, joint) in mesh.joints.iter().enumerate() {
        assert_w_recoverable(joint.orientation, &joint.name);
        assert!(
            joint.parent.is_none_or(|p| (p as usize) < index),
            "{} comes before its parent",
            joint.name
        );
    }
    check_parts(surfaces);

    let triangles: usize = mesh.meshes.iter().map(|m| m.tris.len()).sum();
    assert!(TRIANGLE_RANGE.contains(&triangles), "{triangles} triangles");
    let mut most_influences = 0;
    for m in &mesh.meshes {
        for (index, vert) in m.verts.iter().enumerate() {
            let count = vert.weight_count as usize;
            assert!(
                (1..=MAX_INFLUENCES).contains(&count),
                "{}: vert {index} has {count} weights",
                m.shader
            );
            let weights = &m.weights[vert.start_weight as usize..][..count];
            let sum: f32 = weights.iter().map(|w| w.bias).sum();
            assert!(
                (sum - 1.0).abs() < 1e-5,
                "{}: vert {index} weights sum to {sum}",
                m.shader
            );
            most_influences = most_influences.max(count);
        }
    }
    assert!(most_influences > 4, "no vertex has more than 4 influences");

    let expected = bind_positions(surfaces);
    let skinned = skin(mesh, &bind_transforms(mesh));
    for (index, (a, b)) in expected.iter().zip(&skinned).enumerate() {
        assert!(
            a.distance(*b) < 1e-3,
            "vertex {index}: shaped at {a}, skinned to {b} in the bind pose"
        );
    }
}

/// Every part closed, wound outwards and unmirrored in the texture.
pub fn check_parts(surfaces: &[Surface]) {
    for part in surfaces.iter().flat_map(|s| &s.parts) {
        check_closed(part);
        check_outward(part);
        check_unmirrored(part);
    }
}

pub fn check_anim(name: &str, mesh: &Md5Mesh, anim: &Md5Anim) {
    assert_eq!(
        anim.hierarchy.len(),
        mesh.joints.len(),
        "{name}: joint count"
    );
    for (joint, bind) in anim.hierarchy.iter().zip(&mesh.joints) {
        assert!(
            joint.name == bind.name && joint.parent == bind.parent,
            "{name}: hierarchy differs at {}",
            bind.name
        );
    }
    assert!(
        anim.hierarchy.iter().any(|j| j.flags != 0 && j.flags != 63),
        "{name}: every joint animates none or all of its components"
    );
    let last = anim.frames.len() - 1;
    assert_eq!(
        anim.frames[0], anim.frames[last],
        "{name}: the last frame does not repeat the first"
    );

    // A quaternion whose w crosses zero flips the sign of its stored x, y, z
    // between two frames; interpolating those would spin the joint around.
    let poses: Vec<_> = (0..anim.frames.len())
        .map(|f| decode_frame(anim, f))
        .collect();
    for (pose, frame) in poses.iter().zip(0..) {
        for (joint, transform) in pose.iter().enumerate() {
            assert_w_recoverable(
                transform.orientation.as_quat(),
                &format!("{name} frame {frame} joint {joint}"),
            );
        }
    }
    for (f, pair) in poses.windows(2).enumerate() {
        for (joint, (a, b)) in pair[0].iter().zip(&pair[1]).enumerate() {
            let dot = a.orientation.dot(b.orientation);
            assert!(
                dot > 0.95,
                "{name}: joint {joint} jumps between frames {f} and {} (dot {dot})",
                f + 1
            );
        }
    }
}

/// md5 rebuilds w from x, y and z; near w = 0 (a half turn) that loses
/// the orientation's precision.
fn assert_w_recoverable(orientation: Quat, what: &str) {
    assert!(
        orientation.w.abs() > 0.02,
        "{what}: orientation {orientation} is too close to a half turn"
    );
}

/// Welded by position, every edge of a closed shell is used exactly twice,
/// once in each direction.
fn check_closed(part: &Part) {
    let mut ids = BTreeMap::new();
    let welded: Vec<usize> = part
        .shell
        .vertices
        .iter()
        .map(|v| {
            let key = v.position.to_array().map(f64::to_bits);
            let next = ids.len();
            *ids.entry(key).or_insert(next)
        })
        .collect();
    let mut edges = BTreeMap::new();
    for tri in &part.shell.triangles {
        for k in 0..3 {
            let edge = (welded[tri[k] as usize], welded[tri[(k + 1) % 3] as usize]);
            *edges.entry(edge).or_insert(0) += 1;
        }
    }
    for (&(a, b), &count) in &edges {
        let reverse = edges.get(&(b, a)).copied().unwrap_or(0);
        assert!(
            count == 1 && reverse == 1,
            "{}: edge {a}-{b} used {count} times, reversed {reverse}",
            part.name
        );
    }
}

/// A closed shell wound clockwise seen from outside has a negative signed
/// volume by the counter-clockwise formula.
fn check_outward(part: &Part) {
    let position = |i: u32| part.shell.vertices[i as usize].position;
    let volume: f64 = part
        .shell
        .triangles
        .iter()
        .map(|&[a, b, c]| position(a).dot(position(b).cross(position(c))) / 6.0)
        .sum();
    assert!(
        volume < 0.0,
        "{}: wound inside out (signed volume {volume})",
        part.name
    );
}

/// Seen from outside, clockwise triangles must be clockwise in the texture
/// too (v grows downwards there), or the texture shows mirrored.
fn check_unmirrored(part: &Part) {
    let uv = |i: u32| part.shell.vertices[i as usize].uv;
    for &[a, b, c] in &part.shell.triangles {
        let (ab, ac) = (uv(b) - uv(a), uv(c) - uv(a));
        let area = ab.perp_dot(ac);
        assert!(
            area > 0.0,
            "{}: triangle {a} {b} {c} is mirrored in uv",
            part.name
        );
    }
}
