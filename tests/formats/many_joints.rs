//! The many-joint test subject (`md5crowd::synthetic`): what it is
//! made of, that the parsers and `md5crowd inspect` read it, and that it
//! renders with 8 influences and dual quaternion skinning, validation
//! silent.

use crate::common;

use std::process::Command;

use common::many_joints::{self, depth, ManyJoints, DEFAULT_JOINTS, MAX_INFLUENCES};
use common::{covered_pixels, md5crowd_validated, scratch_dir, vulkan_or_skip};
use md5crowd::md5::{check_anim_fits_mesh, parse_anim, parse_mesh, write_anim, write_mesh};

#[test]
fn the_subject_has_110_joints_deep_chains_and_up_to_8_weights() {
    let ManyJoints { mesh, clips } = many_joints::many_joints(DEFAULT_JOINTS);
    assert_eq!(mesh.joints.len(), 110);
    let deepest = depth(&mesh);
    assert!(deepest >= 20, "deepest chain {deepest} joints");
    let branches = (0..mesh.joints.len() as u32)
        .filter(|&j| mesh.joints.iter().filter(|c| c.parent == Some(j)).count() > 1)
        .count();
    assert!(branches >= 2, "{branches} joints branch");

    let part = &mesh.meshes[0];
    let mut by_count = [0usize; MAX_INFLUENCES + 1];
    for (i, vert) in part.verts.iter().enumerate() {
        let weights = &part.weights
            [vert.start_weight as usize..(vert.start_weight + vert.weight_count) as usize];
        by_count[weights.len()] += 1;
        let sum: f32 = weights.iter().map(|w| w.bias).sum();
        assert!((sum - 1.0).abs() < 1e-5, "vert {i}: weights sum to {sum}");
        assert!(weights.iter().all(|w| w.bias > 0.0), "vert {i}");
        let mut joints: Vec<u32> = weights.iter().map(|w| w.joint).collect();
        joints.sort_unstable();
        joints.dedup();
        assert_eq!(joints.len(), weights.len(), "vert {i}: a joint twice");
    }
    let heavy: usize = by_count[5..].iter().sum();
    assert!(
        by_count[8] > 0 && heavy * 3 > part.verts.len(),
        "vertices by weight count: {by_count:?}"
    );
    let used = part
        .weights
        .iter()
        .map(|w| w.joint)
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(used.len(), mesh.joints.len(), "every joint moves vertices");

    assert_eq!(clips.len(), 2);
    for (name, anim) in &clips {
        assert!(anim.frames.len() >= 5, "{name}");
        assert!(anim.num_animated_components > 100, "{name}");
        assert_eq!(anim.bounds.len(), anim.frames.len());
        for b in &anim.bounds {
            let size = b.max - b.min;
            assert!(
                size.min_element() > 0.1 && size.max_element() < 10.0,
                "{name}: {b:?}"
            );
        }
        // The joints bend: components differ between frames, and the last
        // frame repeats the first (a seamless loop).
        let middle = &anim.frames[anim.frames.len() / 2];
        let moved = anim.frames[0]
            .iter()
            .zip(middle)
            .filter(|(a, b)| (*a - *b).abs() > 0.01)
            .count();
        assert!(moved > 50, "{name}: {moved} components move");
        assert_eq!(anim.frames.first(), anim.frames.last(), "{name}");
    }
}

#[test]
fn the_subject_goes_through_the_writer_and_parsers_at_any_joint_count() {
    for joints in [1, 2, 7, DEFAULT_JOINTS, 300] {
        let ManyJoints { mesh, clips } = many_joints::many_joints(joints);
        assert_eq!(mesh.joints.len(), joints);
        let text = write_mesh(&mesh);
        let parsed = parse_mesh(&text, "many_joints.md5mesh")
            .unwrap_or_else(|e| panic!("{joints} joints: {e}"));
        assert_eq!(parsed.joints.len(), joints);
        assert_eq!(parsed.meshes[0].verts, mesh.meshes[0].verts);
        assert_eq!(parsed.meshes[0].tris, mesh.meshes[0].tris);
        assert_eq!(write_mesh(&parsed), text, "{joints} joints: stable text");
        for (name, anim) in &clips {
            let text = write_anim(anim);
            let anim = parse_anim(&text, name).unwrap_or_else(|e| panic!("{joints}: {e}"));
            let warnings = check_anim_fits_mesh(&parsed, "mesh", &anim, name)
                .unwrap_or_else(|e| panic!("{joints} joints: {e}"));
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }
}

#[test]
fn inspect_reads_the_written_files() {
    let dir = scratch_dir("many_joints_inspect");
    let written = many_joints::write_many_joints(&dir, DEFAULT_JOINTS).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg("inspect")
        .arg("--json")
        .arg(&written.mesh)
        .args(&written.anims)
        .output()
        .expect("run md5crowd inspect");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}\n{stderr}", output.status);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let mesh = &json[0];
    assert_eq!(mesh["joints"], 110, "{json}");
    assert_eq!(mesh["max_influences"], 8, "{json}");
    assert_eq!(mesh["over8"], 0, "{json}");
    assert!(mesh["over4"].as_u64().unwrap() > 0, "{json}");
    for anim in &json.as_array().unwrap()[1..] {
        assert_eq!(anim["joints"], 110, "{json}");
        if let Some(mismatches) = anim.get("name_mismatches") {
            assert_eq!(mismatches, &serde_json::json!([]), "{json}");
        }
    }
}

#[test]
fn the_subject_renders_with_8_influences_and_dual_quaternions() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("many_joints_render");
    many_joints::write_many_joints(&dir, DEFAULT_JOINTS).unwrap();
    let png = dir.join("crowd.png");
    let output = md5crowd_validated(&[
        dir.to_str().unwrap(),
        "--headless",
        // The grid in the void: covered pixels count the characters, not
        // a ground.
        "--locomotion",
        "off",
        "--ground",
        "off",
        "--instances",
        "16",
        "--influences",
        "8",
        "--skinning",
        "dqs",
        "--time",
        "0.4",
        "--width",
        "320",
        "--height",
        "240",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let image = image::open(&png).unwrap().to_rgba8();
    let covered = covered_pixels(&image);
    assert!(covered > 2000, "{covered} pixels drawn:\n{stderr}");
}
