//! md5mesh / md5anim writers, laid out like the files Doom 3's exporter wrote.
//! `parse(write(x)) == x` for every `x` the parsers can produce: floats are
//! written with Rust's shortest round-trip formatting, and quaternions are
//! flipped to the `w <= 0` hemisphere the format reconstructs.

use std::fmt::Write as _;

use glam::{Quat, Vec3};

use super::{Md5Anim, Md5Mesh};

pub fn write_mesh(mesh: &Md5Mesh) -> String {
    let mut out = String::new();
    header(&mut out, &mesh.commandline);
    writeln!(out, "numJoints {}", mesh.joints.len()).unwrap();
    writeln!(out, "numMeshes {}\n", mesh.meshes.len()).unwrap();

    out.push_str("joints {\n");
    for joint in &mesh.joints {
        write!(
            out,
            "\t{}\t{} ",
            quoted(&joint.name),
            parent_index(joint.parent)
        )
        .unwrap();
        vec3(&mut out, joint.position);
        out.push(' ');
        quat_xyz(&mut out, joint.orientation);
        match joint.parent {
            Some(p) => writeln!(out, "\t\t// {}", mesh.joints[p as usize].name).unwrap(),
            None => out.push_str("\t\t//\n"),
        }
    }
    out.push_str("}\n");

    for m in &mesh.meshes {
        out.push_str("\nmesh {\n");
        writeln!(out, "\tshader {}\n", quoted(&m.shader)).unwrap();
        writeln!(out, "\tnumverts {}", m.verts.len()).unwrap();
        for (i, v) in m.verts.iter().enumerate() {
            writeln!(
                out,
                "\tvert {i} ( {} {} ) {} {}",
                v.uv.x, v.uv.y, v.start_weight, v.weight_count
            )
            .unwrap();
        }
        writeln!(out, "\n\tnumtris {}", m.tris.len()).unwrap();
        for (i, [a, b, c]) in m.tris.iter().enumerate() {
            writeln!(out, "\ttri {i} {a} {b} {c}").unwrap();
        }
        writeln!(out, "\n\tnumweights {}", m.weights.len()).unwrap();
        for (i, w) in m.weights.iter().enumerate() {
            write!(out, "\tweight {i} {} {} ", w.joint, w.bias).unwrap();
            vec3(&mut out, w.position);
            out.push('\n');
        }
        out.push_str("}\n");
    }
    out
}

pub fn write_anim(anim: &Md5Anim) -> String {
    let mut out = String::new();
    header(&mut out, &anim.commandline);
    writeln!(out, "numFrames {}", anim.frames.len()).unwrap();
    writeln!(out, "numJoints {}", anim.hierarchy.len()).unwrap();
    writeln!(out, "frameRate {}", anim.frame_rate).unwrap();
    writeln!(
        out,
        "numAnimatedComponents {}\n",
        anim.num_animated_components
    )
    .unwrap();

    out.push_str("hierarchy {\n");
    for joint in &anim.hierarchy {
        write!(
            out,
            "\t{}\t{} {} {}",
            quoted(&joint.name),
            parent_index(joint.parent),
            joint.flags,
            joint.start_index
        )
        .unwrap();
        match joint.parent {
            Some(p) => writeln!(out, "\t// {}", anim.hierarchy[p as usize].name).unwrap(),
            None => out.push('\n'),
        }
    }
    out.push_str("}\n\nbounds {\n");
    for b in &anim.bounds {
        out.push('\t');
        vec3(&mut out, b.min);
        out.push(' ');
        vec3(&mut out, b.max);
        out.push('\n');
    }
    out.push_str("}\n\nbaseframe {\n");
    for base in &anim.baseframe {
        out.push('\t');
        vec3(&mut out, base.position);
        out.push(' ');
        quat_xyz(&mut out, base.orientation);
        out.push('\n');
    }
    out.push_str("}\n");

    // One line per animated joint, as the original exporter does: easy to
    // diff. Lines break where a joint's components start, but every float is
    // written, so a frame keeps its length even where joints' ranges overlap
    // or leave components that no joint reads.
    let mut joint_starts: Vec<usize> = anim
        .hierarchy
        .iter()
        .filter(|joint| joint.animated_component_count() > 0)
        .map(|joint| joint.start_index as usize)
        .collect();
    joint_starts.sort_unstable();
    for (i, frame) in anim.frames.iter().enumerate() {
        writeln!(out, "\nframe {i} {{").unwrap();
        for (c, value) in frame.iter().enumerate() {
            if c == 0 {
                out.push('\t');
            } else if joint_starts.binary_search(&c).is_ok() {
                out.push_str("\n\t");
            }
            write!(out, " {value}").unwrap();
        }
        if !frame.is_empty() {
            out.push('\n');
        }
        out.push_str("}\n");
    }
    out
}

fn header(out: &mut String, commandline: &str) {
    out.push_str("MD5Version 10\n");
    writeln!(out, "commandline {}\n", quoted(commandline)).unwrap();
}

/// md5 strings have no escapes; a name holding `"` cannot be written faithfully.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'"))
}

fn parent_index(parent: Option<u32>) -> i64 {
    parent.map_or(-1, i64::from)
}

fn vec3(out: &mut String, v: Vec3) {
    write!(out, "( {} {} {} )", v.x, v.y, v.z).unwrap();
}

fn quat_xyz(out: &mut String, q: Quat) {
    // Adding +0 turns the -0 that flipping an identity rotation produces back
    // into 0: same value, tidier file.
    let q = if q.w > 0.0 { -q } else { q } + Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    write!(out, "( {} {} {} )", q.x, q.y, q.z).unwrap();
}
