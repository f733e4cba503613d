//! The demo as users run it: what the model arguments load, and how each
//! mistake a user can make ends: exit status 2 and one line naming the
//! culprit. (What the machine causes is exit status 1; render_cli.rs.)

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    arg, assert_bad_input, assets, differing_pixels, md5crowd_as_typed, render, scratch_dir,
    vulkan_or_skip,
};

/// A copy of a shipped file with `from` replaced by `to`.
fn edited_copy(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(assets().join(name)).unwrap();
    assert!(text.contains(from), "{name} has no {from:?}");
    let copy = dir.join(name);
    std::fs::write(&copy, text.replacen(from, to, 1)).unwrap();
    copy
}

/// The shipped mesh, its textures, and these clips, in a fresh directory.
fn model_dir(test: &str, clips: &[&str]) -> PathBuf {
    let dir = scratch_dir(test);
    let names = clips.iter().map(|c| format!("{c}.md5anim"));
    for name in names.chain(["crowdling.md5mesh".to_owned()]) {
        std::fs::copy(assets().join(&name), dir.join(&name)).unwrap();
    }
    std::fs::create_dir(dir.join("textures")).unwrap();
    for texture in std::fs::read_dir(assets().join("textures")).unwrap() {
        let texture = texture.unwrap().path();
        std::fs::copy(
            &texture,
            dir.join("textures").join(texture.file_name().unwrap()),
        )
        .unwrap();
    }
    dir
}

#[test]
fn missing_and_unreadable_files_are_named() {
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", "no/such/hero.md5mesh"]),
        &["no/such/hero.md5mesh: cannot read"],
    );
    let mesh = assets().join("crowdling.md5mesh");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&mesh), "no/such/run.md5anim"]),
        &["no/such/run.md5anim: cannot read"],
    );
}

#[test]
fn files_that_are_not_md5_version_10_are_refused() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&readme)]),
        &["README.md:1:1: not an md5 file: expected 'MD5Version'"],
    );
    let dir = scratch_dir("version_11");
    let mesh = edited_copy(&dir, "crowdling.md5mesh", "MD5Version 10", "MD5Version 11");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&mesh)]),
        &["crowdling.md5mesh:1:12: unsupported MD5Version 11, expected 10"],
    );
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&assets().join("walk.md5anim"))]),
        &["walk.md5anim is an animation; the first argument is the .md5mesh"],
    );
}

#[test]
fn malformed_content_is_pointed_at() {
    let dir = scratch_dir("malformed");
    let anim = edited_copy(&dir, "walk.md5anim", "numFrames 33", "numFrames many");
    let mesh = assets().join("crowdling.md5mesh");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&mesh), arg(&anim)]),
        &["walk.md5anim:4:11: "],
    );
}

#[test]
fn an_anim_for_another_skeleton_names_both_files() {
    let dir = scratch_dir("misfit");
    let anim = edited_copy(&dir, "walk.md5anim", "\"neck\"\t4 ", "\"neck\"\t2 ");
    let mesh = assets().join("crowdling.md5mesh");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&mesh), arg(&anim)]),
        &[
            "walk.md5anim: skeleton does not fit ",
            "crowdling.md5mesh",
            "joint 5 'neck' has parent 2 here but 4 in the mesh",
        ],
    );
}

#[test]
fn instance_counts_are_whole_and_positive() {
    for count in ["0", "lots", "-3", "2.5"] {
        let output = md5crowd_as_typed(&["--headless", "--instances", count]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: invalid value '{count}' for '--instances <N>': expected a whole number from 1")),
            "{stderr}"
        );
    }
}

#[test]
fn a_camera_is_an_eye_a_target_and_a_field_of_view() {
    for (camera, expected) in [
        (
            "1,2,3",
            "expected EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV_DEGREES]",
        ),
        ("1,2:0,0,0", "the eye: expected three numbers"),
        (
            "1,2,3:0,0,0:190",
            "the field of view: expected degrees between 0 and 180",
        ),
        ("0,0,9:0,0,0", "straight above or below"),
    ] {
        let output = md5crowd_as_typed(&["--headless", "--camera", camera]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{camera}' for '--camera <"))
                && stderr.contains(expected),
            "{stderr}"
        );
    }
}

#[test]
fn a_channel_is_a_name_and_joints() {
    for (channel, expected) in [
        ("torso", "expected"),
        ("=*spine_1", "expected"),
        (
            "legs=*origin -",
            "expected a joint name after the last '-' or '*'",
        ),
        ("all=*origin", "all"),
    ] {
        let output = md5crowd_as_typed(&["--headless", "--channel", channel]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "invalid value '{channel}' for '--channel <NAME=JOINTS>'"
            )) && stderr.contains(expected),
            "{stderr}"
        );
    }
}

#[test]
fn the_sun_is_two_angles_above_the_horizon_and_shadows_a_known_kind() {
    for sun in ["40", "a,b", "30,0", "30,-10", "30,95", "30,NaN"] {
        let output = md5crowd_as_typed(&["--headless", "--sun", sun]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{sun}' for '--sun <AZIMUTH,ELEVATION>': expected AZIMUTH,ELEVATION in degrees")),
            "{stderr}"
        );
    }
    for (flag, value) in [
        ("--shadows", "maps"),
        ("--shadow-cascades", "5"),
        ("--shadow-resolution", "16"),
    ] {
        let output = md5crowd_as_typed(&["--headless", flag, value]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{value}' for '{flag}")),
            "{stderr}"
        );
    }
}

#[test]
fn an_unknown_clip_lists_the_clips() {
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", "--clip", "dance"]),
        &["--clip dance: no such clip; the clips are: idle, run, walk, wave"],
    );
    let mesh = assets().join("crowdling.md5mesh");
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&mesh), "--clip", "walk"]),
        &["--clip walk: the model has no clips"],
    );
}

#[test]
fn a_directory_needs_exactly_one_mesh_or_a_name() {
    let empty = scratch_dir("no_mesh");
    std::fs::copy(assets().join("walk.md5anim"), empty.join("walk.md5anim")).unwrap();
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&empty)]),
        &["no_mesh: no .md5mesh, .glb or .gltf in this directory"],
    );
    let two = model_dir("two_meshes", &["walk"]);
    std::fs::copy(assets().join("crowdling.md5mesh"), two.join("twin.md5mesh")).unwrap();
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&two)]),
        &["holds several meshes: crowdling.md5mesh, twin.md5mesh; pick one with --mesh NAME"],
    );
    assert_bad_input(
        &md5crowd_as_typed(&["--headless", arg(&two), "--mesh", "triplet"]),
        &[
            "--mesh triplet: ",
            "holds no such md5mesh (it holds: crowdling.md5mesh, twin.md5mesh)",
        ],
    );
}

#[test]
fn help_lists_the_options_and_the_window_controls() {
    let output = md5crowd_as_typed(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "[MESH.md5mesh | DIR | DECLARATION] [ANIM.md5anim | MODEL]...",
        "--mesh <NAME>",
        "--game <DIR>",
        "--mod <DIR>",
        "--skin <NAME>",
        "--skins <NAME,...>",
        "--clip <NAME>",
        "--blend-time <SECONDS>",
        "--instances <N>",
        "--spacing <UNITS>",
        "--seed <SEED>",
        "--quiet",
        "inspect",
        "Window controls:",
        "right or middle drag  pan",
        "W A S D  Q E",
        "[  ]",
        "+  -",
        "Esc                   quit",
    ] {
        assert!(help.contains(expected), "\"{expected}\" not in:\n{help}");
    }
}

#[test]
fn a_directory_loads_its_mesh_and_every_clip_by_name() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = model_dir("directory", &["wave", "run", "walk"]);
    let out = scratch_dir("directory_out");
    let png = out.join("crowd.png");
    let output = common::md5crowd_validated(&[
        arg(&dir),
        "--headless",
        "--instances",
        "9",
        "--width",
        "320",
        "--height",
        "180",
        "--screenshot",
        arg(&png),
    ]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("crowdling.md5mesh, 23 joints, 2 meshes, 5920 triangles, 3 clip(s) (run, walk, wave), skins: default, 9 instance(s)"),
        "{log}"
    );
    let image = image::open(&png).unwrap().to_rgba8();
    assert!(common::covered_pixels(&image) > 2000, "a crowd is drawn");
}

#[test]
fn clip_picks_what_everyone_plays() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("clip");
    let at = ["--time", "0.5"];
    let walk = render(&dir, "walk", &[&at[..], &["--clip", "walk"]].concat());
    let wave = render(&dir, "wave", &[&at[..], &["--clip", "wave"]].concat());
    assert!(differing_pixels(&walk, &wave, 8) > 500, "the clips differ");
    // The same pose as loading the walk alone (on the spot: --clip
    // switches locomotion off).
    let mesh = assets().join("crowdling.md5mesh");
    let anim = assets().join("walk.md5anim");
    let alone = render(
        &dir,
        "alone",
        &[&at[..], &[arg(&mesh), arg(&anim), "--locomotion", "off"]].concat(),
    );
    assert_eq!(differing_pixels(&walk, &alone, 0), 0);
}

#[test]
fn no_model_is_the_shipped_character_from_any_directory() {
    if !vulkan_or_skip() {
        return;
    }
    let elsewhere = scratch_dir("elsewhere");
    let output = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([
            "--headless",
            "--validate",
            "--width",
            "64",
            "--height",
            "64",
        ])
        .current_dir(&elsewhere)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd");
    common::assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("assets/crowdling.md5mesh, 23 joints")
            && log.contains("(idle, run, walk, wave)"),
        "{log}"
    );
}
