//! Parse throughput on a synthetic ~10 MB md5mesh and md5anim written by the
//! writer: `cargo run --release --example md5_parse_speed`.

use std::time::{Duration, Instant};

use glam::{Vec2, Vec3};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{
    parse_anim, parse_mesh, quat_from_xyz, write_anim, write_mesh, BaseJoint, HierarchyJoint,
    Md5Anim, Md5Mesh, Mesh, MeshJoint, Vert, Weight,
};

const TARGET_BYTES: usize = 10 << 20;
const JOINTS: u32 = 64;

fn main() {
    let mesh = write_mesh(&big_mesh());
    report("md5mesh", &mesh, |text| {
        parse_mesh(text, "big.md5mesh").map(drop)
    });
    let anim = write_anim(&big_anim());
    report("md5anim", &anim, |text| {
        parse_anim(text, "big.md5anim").map(drop)
    });
}

/// Best of five runs, so a cold cache or a busy core does not set the figure.
fn report(what: &str, text: &str, parse: impl Fn(&str) -> Result<(), md5crowd::md5::Md5Error>) {
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        if let Err(e) = parse(text) {
            panic!("generated {what} does not parse: {e}");
        }
        best = best.min(start.elapsed());
    }
    let megabytes = text.len() as f64 / (1024.0 * 1024.0);
    println!(
        "{what}: {megabytes:.1} MiB in {:.1} ms = {:.0} MiB/s",
        best.as_secs_f64() * 1e3,
        megabytes / best.as_secs_f64()
    );
}

/// Fractional values with many digits, like real exporter output.
fn value(i: u32) -> f32 {
    (i.wrapping_mul(2_654_435_761) % 100_000) as f32 / 1024.0 - 40.0
}

fn skeleton() -> Vec<MeshJoint> {
    (0..JOINTS)
        .map(|j| MeshJoint {
            name: format!("joint{j}"),
            parent: j.checked_sub(1),
            position: Vec3::new(value(j), value(j + 1), value(j + 2)),
            orientation: quat_from_xyz(0.1, -0.2, value(j) / 100.0),
        })
        .collect()
}

fn big_mesh() -> Md5Mesh {
    // About 40 bytes per vert line, 20 per tri and 60 per weight.
    let verts = (TARGET_BYTES / 180) as u32;
    Md5Mesh {
        commandline: "synthetic".into(),
        joints: skeleton(),
        meshes: vec![Mesh {
            shader: "models/big".into(),
            verts: (0..verts)
                .map(|i| Vert {
                    uv: Vec2::new(value(i) / 100.0, value(i + 7) / 100.0),
                    start_weight: 2 * i,
                    weight_count: 2,
                })
                .collect(),
            tris: (0..verts - 2).map(|i| [i, i + 2, i + 1]).collect(),
            weights: (0..2 * verts)
                .map(|i| Weight {
                    joint: i % JOINTS,
                    bias: 0.5,
                    position: Vec3::new(value(i), value(i + 3), value(i + 5)),
                })
                .collect(),
        }],
    }
}

fn big_anim() -> Md5Anim {
    let components = 6 * JOINTS;
    // About 10 bytes per frame float.
    let frames = (TARGET_BYTES / (10 * components as usize)) as u32;
    Md5Anim {
        commandline: "synthetic".into(),
        frame_rate: 24.0,
        num_animated_components: components,
        hierarchy: skeleton()
            .into_iter()
            .enumerate()
            .map(|(j, joint)| HierarchyJoint {
                name: joint.name,
                parent: joint.parent,
                flags: 0x3f,
                start_index: 6 * j as u32,
            })
            .collect(),
        bounds: (0..frames)
            .map(|_| Bounds {
                min: Vec3::splat(-40.0),
                max: Vec3::splat(40.0),
            })
            .collect(),
        baseframe: skeleton()
            .into_iter()
            .map(|joint| BaseJoint {
                position: joint.position,
                orientation: joint.orientation,
            })
            .collect(),
        frames: (0..frames)
            .map(|f| {
                (0..components)
                    .map(|c| value(f * components + c) / 64.0)
                    .collect()
            })
            .collect(),
    }
}
