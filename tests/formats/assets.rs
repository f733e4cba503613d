//! The shipped character in assets/: exactly what the generator writes, and
//! what the renderer and the tests elsewhere rely on it to be.

use crate::common;
use crate::common::character;

use common::assets;

use std::fs;
use std::path::{Path, PathBuf};

use md5crowd::md5::{parse_anim, parse_mesh, Md5Anim, Md5Mesh};
use md5crowd::model::clip_from_md5;

const CLIPS: [&str; 4] = ["idle", "walk", "run", "wave"];

fn read(relative: &str) -> String {
    let path = assets().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mesh() -> Md5Mesh {
    parse_mesh(&read(character::MESH_FILE), character::MESH_FILE).unwrap_or_else(|e| panic!("{e}"))
}

fn anims() -> Vec<(&'static str, Md5Anim)> {
    CLIPS
        .iter()
        .map(|&clip| {
            let file = format!("{clip}.md5anim");
            (
                clip,
                parse_anim(&read(&file), &file).unwrap_or_else(|e| panic!("{e}")),
            )
        })
        .collect()
}

#[test]
fn shipped_assets_are_exactly_what_the_generator_writes() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("make_character");
    let _ = fs::remove_dir_all(&out);
    let written = character::write_all(&out).expect("the generator writes into a temp dir");

    let mut stale = Vec::new();
    for file in &written {
        let fresh = fs::read(out.join(file)).unwrap();
        let shipped = fs::read(assets().join(file)).unwrap_or_default();
        if fresh != shipped {
            stale.push(file.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "assets/ differs from the generator's output in {stale:?}; \
         regenerate with `cargo run --release --example make_character`"
    );

    let mut shipped = Vec::new();
    list_files(&assets(), Path::new(""), &mut shipped);
    // Written by hand, by the renderer (`assets/screenshots/`, the README's
    // pictures), and a third-party glTF sample with its credits
    // (`assets/gltf/`).
    shipped.retain(|f| {
        f != Path::new("README.md") && !f.starts_with("screenshots") && !f.starts_with("gltf")
    });
    shipped.sort();
    let mut expected = written;
    expected.sort();
    assert_eq!(
        shipped, expected,
        "assets/ holds files the generator does not write"
    );
}

fn list_files(root: &Path, relative: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(root.join(relative)).unwrap() {
        let entry = entry.unwrap();
        let path = relative.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            list_files(root, &path, files);
        } else {
            files.push(path);
        }
    }
}

#[test]
fn mesh_has_a_full_skeleton_and_textured_meshes() {
    let mesh = mesh();
    assert!(mesh.joints.len() >= 20, "{} joints", mesh.joints.len());
    for name in [
        "origin", "pelvis", "chest", "neck", "head", "l_hand", "r_hand", "l_toe", "r_toe",
    ] {
        assert!(
            mesh.joints.iter().any(|j| j.name == name),
            "no joint {name}"
        );
    }
    assert!(mesh.meshes.len() >= 2);
    let mut shaders: Vec<&str> = mesh.meshes.iter().map(|m| m.shader.as_str()).collect();
    shaders.dedup();
    assert_eq!(shaders.len(), mesh.meshes.len(), "meshes share a shader");
    for shader in shaders {
        assert!(
            assets().join(format!("{shader}.png")).is_file(),
            "no texture for {shader}"
        );
    }
    let triangles: usize = mesh.meshes.iter().map(|m| m.tris.len()).sum();
    assert!(
        (2_000..=10_000).contains(&triangles),
        "{triangles} triangles"
    );
}

#[test]
fn every_vertex_weights_sum_to_one_and_some_need_truncating() {
    let mesh = mesh();
    let mut most = 0;
    for m in &mesh.meshes {
        for (index, vert) in m.verts.iter().enumerate() {
            let weights = &m.weights[vert.start_weight as usize..][..vert.weight_count as usize];
            let sum: f32 = weights.iter().map(|w| w.bias).sum();
            assert!(
                (sum - 1.0).abs() < 1e-5,
                "{} vert {index}: biases sum to {sum}",
                m.shader
            );
            most = most.max(weights.len());
        }
    }
    assert!(
        most > 4,
        "no vertex has more than 4 influences (most: {most})"
    );
}

#[test]
fn clips_share_the_mesh_skeleton_and_use_partial_flags() {
    let mesh = mesh();
    for (clip, anim) in anims() {
        assert!(
            anim.frame_rate == 24.0 || anim.frame_rate == 30.0,
            "{clip}: {} fps",
            anim.frame_rate
        );
        assert_eq!(anim.bounds.len(), anim.frames.len(), "{clip}");
        let names: Vec<_> = anim.hierarchy.iter().map(|j| (&j.name, j.parent)).collect();
        let bind: Vec<_> = mesh.joints.iter().map(|j| (&j.name, j.parent)).collect();
        assert_eq!(names, bind, "{clip}: hierarchy differs from the mesh's");
        assert!(
            anim.hierarchy.iter().any(|j| j.flags == 0b111000),
            "{clip}: no rotation-only joint (flags 56)"
        );
        assert!(
            anim.hierarchy
                .iter()
                .any(|j| j.flags != 0 && j.flags != 0b111000 && j.flags != 0b111111),
            "{clip}: no joint animates a partial set of components"
        );
    }
}

#[test]
fn clips_loop_back_to_their_first_frame() {
    for (clip, anim) in anims() {
        // Decoded by the library: the baseframe with each frame's flagged components.
        let decoded = clip_from_md5(clip, &anim);
        let (first, last) = (&decoded.frames[0], decoded.frames.last().unwrap());
        for (joint, (a, b)) in first.iter().zip(last).enumerate() {
            let (p0, q0, p1, q1) = (a.translation, a.rotation, b.translation, b.rotation);
            assert!(
                p0.distance(p1) < 1e-4,
                "{clip}: joint {joint} moves from {p0} to {p1}"
            );
            assert!(
                q0.dot(q1).abs() > 1.0 - 1e-6,
                "{clip}: joint {joint} turns from {q0} to {q1}"
            );
        }
    }
}
