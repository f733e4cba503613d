//! The same command, the same picture (issue 56): headless runs of the
//! shipped crowd compared byte for byte across runs, across warm-up frames,
//! and across the options that change nothing visible. Each run is under
//! the validation layer with synchronization validation.
//!
//! Before a skinning palette held every instance's rows from the first
//! frame, the instances past its first 1,024 showed their clip's shared
//! pose, and which ones did was the order of cull.comp's atomics: these
//! runs differed from each other, and from the same frame drawn again.

use crate::common;

use std::path::Path;

use common::{differing_pixels, render_sized, scratch_dir, vulkan_or_skip};
use image::RgbaImage;

/// A headless run's picture: the PNG file's bytes, the image, the log.
struct Shot {
    png: Vec<u8>,
    image: RgbaImage,
    log: String,
}

/// The street view of the crowd standing on the grid at time 2, `extra`
/// options after.
fn street(dir: &Path, name: &str, size: (u32, u32), extra: &[&str]) -> Shot {
    let args = [
        &["--view", "street", "--locomotion", "off", "--time", "2"][..],
        extra,
    ]
    .concat();
    let (image, log) = render_sized(dir, name, size, &args);
    let png = std::fs::read(common::screenshot_path(dir, name)).unwrap();
    Shot { png, image, log }
}

/// Three runs of the same command write the same PNG, byte for byte: the
/// issue's street view of 4,096 characters without impostors (whose
/// warm-up frames once hid the first frame's shortage), and with every
/// instance in view posed on its own (animation level of detail off), the
/// most palette rows a view can want.
#[test]
fn the_same_command_writes_the_same_png() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("determinism_runs");
    for (case, options) in [
        ("street", &["--instances", "4096", "--impostors", "off"][..]),
        (
            "every_pose_own",
            &[
                "--instances",
                "3000",
                "--impostors",
                "off",
                "--anim-lod",
                "off",
            ][..],
        ),
    ] {
        let runs: Vec<Vec<u8>> = (0..3)
            .map(|run| street(&dir, &format!("{case}_{run}"), (960, 540), options).png)
            .collect();
        for (run, png) in runs.iter().enumerate().skip(1) {
            assert!(*png == runs[0], "{case}: run {run} differs from run 0");
        }
    }
}

/// The frame kept is the same whether it is the first drawn or comes after
/// warm-up frames: `--frames 1` and `--frames 6` end at the same time with
/// the same PNG, impostors, occlusion culling and shadow maps on.
#[test]
fn warm_up_frames_change_no_byte() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("determinism_warm_up");
    let options = ["--instances", "2048", "--shadows", "map"];
    let frames = |n: &str| {
        let extra = [&options[..], &["--frames", n]].concat();
        street(&dir, &format!("frames_{n}"), (640, 360), &extra).png
    };
    assert!(
        frames("1") == frames("6"),
        "the sixth frame differs from a first"
    );
}

/// Options that change how the picture is made, not what it shows, leave
/// it as it is (within 0.05% of its pixels, by any level): occlusion
/// culling, multi-draw, the animate kernel, and impostors for a crowd all
/// inside the impostor switch. Shadow maps on, so that the casters' poses
/// are compared too.
#[test]
fn invisible_options_change_at_most_five_pixels_in_ten_thousand() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("determinism_options");
    let size = (640, 360);
    let base = ["--instances", "100", "--shadows", "map"];
    let picture =
        |name: &str, extra: &[&str]| street(&dir, name, size, &[&base[..], extra].concat());
    let reference = picture("reference", &["--animate-kernel", "lane-per-instance"]);
    assert!(
        reference.log.contains("animate kernel: lane-per-instance"),
        "the reference's kernel:\n{}",
        reference.log
    );
    let pixels = (size.0 * size.1) as usize;
    for (name, extra) in [
        ("occlusion_off", &["--occlusion", "off"][..]),
        ("multi_draw_off", &["--multi-draw", "off"][..]),
        (
            "lane_per_joint",
            &["--animate-kernel", "lane-per-joint"][..],
        ),
        ("impostors_off", &["--impostors", "off"][..]),
    ] {
        let shot = picture(name, extra);
        let differing = differing_pixels(&reference.image, &shot.image, 0);
        println!("{name}: {differing} of {pixels} pixels differ");
        assert!(
            differing as f64 <= 0.0005 * pixels as f64,
            "{name}: {differing} of {pixels} pixels differ"
        );
    }
}

/// `--camera` round-trips: the camera a run logs (here the street view's),
/// given back, makes the same PNG; and it is the camera that run prints.
#[test]
fn the_camera_a_run_logs_makes_the_same_picture() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("determinism_camera");
    let options = ["--instances", "256"];
    let street_view = street(&dir, "street", (480, 270), &options);
    let logged = |log: &str| -> String {
        let line = log
            .lines()
            .find(|line| line.contains("camera: --camera "))
            .unwrap_or_else(|| panic!("no camera line in\n{log}"));
        let after = line.split("camera: --camera ").nth(1).unwrap();
        after.split_whitespace().next().unwrap().to_owned()
    };
    let camera = logged(&street_view.log);
    let given = street(
        &dir,
        "given",
        (480, 270),
        &[&options[..], &["--camera", &camera]].concat(),
    );
    assert_eq!(
        logged(&given.log),
        camera,
        "the camera given is the camera logged"
    );
    assert!(
        given.png == street_view.png,
        "--camera {camera} draws another picture"
    );
    assert!(
        street_view.log.contains("(the crowd spans "),
        "the crowd's extent beside it:\n{}",
        street_view.log
    );
}
