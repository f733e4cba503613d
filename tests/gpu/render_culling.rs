//! Levels of detail and occlusion culling as a user sees them: drawn with
//! LOD on, a crowd looks like the full meshes (at most 1% of the pixels
//! differ by more than 10%) and draws far fewer triangles (the benchmark's
//! figure); `--show-lod` tints instances by level; occlusion culling leaves
//! every pixel as it was; all with validation silent.

use crate::common;

use common::{
    differing_pixels, md5crowd_validated, multi_draw_or_skip, render_sized, scratch_dir,
    vulkan_or_skip,
};

/// The shipped character, 256 instances at 1280x720: the picture.
fn crowd(dir: &std::path::Path, name: &str, extra: &[&str]) -> image::RgbaImage {
    let mut args = extra.to_vec();
    // The grid: its pictures are the ones these tests compare.
    args.extend(["--locomotion", "off"]);
    if !extra.contains(&"--instances") {
        args.extend(["--instances", "256"]);
    }
    if !extra.contains(&"--time") {
        args.extend(["--time", "1.5"]);
    }
    render_sized(dir, name, (1280, 720), &args).0
}

#[test]
fn lod_on_looks_like_lod_off() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("lod_on_off");
    for view in ["overview", "street"] {
        let on = crowd(
            &dir,
            &format!("{view}_on"),
            &["--view", view, "--lod", "on"],
        );
        let off = crowd(
            &dir,
            &format!("{view}_off"),
            &["--view", view, "--lod", "off"],
        );
        let differing = differing_pixels(&on, &off, 25);
        let fraction = differing as f64 / (on.width() * on.height()) as f64;
        println!(
            "{view}: {differing} pixels ({:.3}%) differ by more than 10%",
            fraction * 100.0
        );
        assert!(fraction <= 0.01, "{view}: {fraction}");
    }
}

#[test]
fn coarse_levels_skinned_with_fewer_influences_look_the_same() {
    if !vulkan_or_skip() {
        return;
    }
    // 4096 in the overview: most characters at the coarse levels, which
    // keep one or two joints per vertex (moving it by at most a quarter of
    // the level's error, a quarter of a pixel). As meshes: past the chain
    // they would be impostors, skinned with none.
    let dir = scratch_dir("lod_influences");
    let crowd_with = |switch| {
        let args = [
            "--instances",
            "4096",
            "--impostors",
            "off",
            "--lod-influences",
            switch,
        ];
        crowd(&dir, &format!("influences_{switch}"), &args)
    };
    let (fewer, all) = (crowd_with("on"), crowd_with("off"));
    let changed = differing_pixels(&fewer, &all, 0);
    let differing = differing_pixels(&fewer, &all, 25);
    let fraction = differing as f64 / (fewer.width() * fewer.height()) as f64;
    println!(
        "{changed} pixels changed, {differing} ({:.3}%) by more than 10%",
        fraction * 100.0
    );
    assert!(changed > 0, "the coarse levels drew with all influences");
    assert!(fraction <= 0.002, "{fraction}");
}

#[test]
fn occlusion_culling_changes_no_pixel() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("occlusion_on_off");
    // Several frames: the early phase then draws what the frames before
    // found visible, and the late phase what newly shows.
    for (view, frames) in [("street", "3"), ("overview", "2")] {
        // Shadow maps: a caster the camera hides casts in the pose it
        // would have been drawn in, so its shadow does not move either.
        let common = [
            "--view",
            view,
            "--frames",
            frames,
            "--instances",
            "1024",
            "--shadows",
            "map",
        ];
        let args = |occlusion| [&common[..], &["--occlusion", occlusion]].concat();
        let on = crowd(&dir, &format!("{view}_on"), &args("on"));
        let off = crowd(&dir, &format!("{view}_off"), &args("off"));
        assert_eq!(differing_pixels(&on, &off, 0), 0, "{view}");
    }
}

#[test]
fn one_call_per_run_of_levels_changes_no_pixel() {
    if !multi_draw_or_skip() {
        return;
    }
    // A mixed crowd: the shipped character and one of six meshes, whose
    // levels' pipelines alternate direction from mesh to mesh. 4096 in the
    // overview put most characters at coarse levels (as meshes, not past
    // the chain as impostors); tinted by level, a level drawn by the wrong
    // command shows in its colour.
    let dir = scratch_dir("multi_draw");
    let parts = dir.join("parts");
    common::many_joints::write_many_parts(&parts, 47, 6, 20.0).unwrap();
    let assets = common::assets();
    let cast = [common::arg(&assets), common::arg(&parts)];
    let render = |name: &str, switches: &[&str]| {
        let args = [
            &cast[..],
            &["--instances", "4096", "--impostors", "off"],
            switches,
        ]
        .concat();
        crowd(&dir, name, &args)
    };
    for influences in ["on", "off"] {
        let pictures = ["on", "off"].map(|multi_draw| {
            let switches = [
                "--show-lod",
                "--lod-influences",
                influences,
                "--multi-draw",
                multi_draw,
            ];
            render(&format!("influences_{influences}_{multi_draw}"), &switches)
        });
        let differing = differing_pixels(&pictures[0], &pictures[1], 0);
        assert_eq!(differing, 0, "--lod-influences {influences}");
        if influences == "on" {
            let plain = render("plain", &[]);
            let tinted = differing_pixels(&plain, &pictures[0], 25);
            assert!(tinted > 10_000, "coarse levels drawn: {tinted} pixels");
        }
    }
}

#[test]
fn show_lod_tints_the_crowd() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("show_lod");
    let plain = crowd(&dir, "plain", &["--view", "street"]);
    let tinted = crowd(&dir, "tinted", &["--view", "street", "--show-lod"]);
    // The full-detail characters up front keep their colours; the rest change.
    let differing = differing_pixels(&plain, &tinted, 25);
    assert!(differing > 10_000, "{differing}");
}

#[test]
fn the_bench_reports_fewer_triangles_with_lod() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("bench_lod");
    let json = dir.join("bench.json");
    let report = common::bench_report(
        &[
            "--instances",
            "64",
            "--frames",
            "3",
            "--width",
            "320",
            "--height",
            "180",
            "--modes",
            "static",
            "--lod",
            "on,off",
            "--view",
            "overview,street",
        ],
        &json,
    );
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4, "every combination runs once");
    let triangles = |lod: &str, view: &str| {
        runs.iter()
            .find(|r| r["lod"] == lod && r["view"] == view)
            .and_then(|r| r["triangles"].as_f64())
            .unwrap_or_else(|| panic!("no {lod} {view} run in {report}"))
    };
    for view in ["overview", "street"] {
        let (on, off) = (triangles("on", view), triangles("off", view));
        println!("{view}: {on} triangles with LOD, {off} without");
        assert!(on > 0.0 && on < off * 0.5, "{view}: {on} vs {off}");
    }
    assert!(runs
        .iter()
        .all(|r| r["mode"] == "static" && r["visible"].as_u64().is_some()));
}

#[test]
fn occlusion_culling_times_both_phases_and_the_pyramid() {
    if !vulkan_or_skip() {
        return;
    }
    let output = md5crowd_validated(&[
        "--headless",
        "--locomotion",
        "off",
        "--instances",
        "16",
        "--width",
        "160",
        "--height",
        "90",
        "--frames",
        "3",
        "--skeleton",
        "--print-timings",
        // A CPU driver draws blob shadows unless asked.
        "--shadows",
        "map",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().expect("a timings line");
    if last.contains("no GPU timestamps") {
        return;
    }
    let passes: Vec<&str> = last
        .split_once(" ms (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(passes, _)| {
            passes
                .split(", ")
                .filter_map(|p| p.rsplitn(3, ' ').nth(2))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        passes,
        [
            "cull early",
            "animate early",
            "shadow cull 0",
            "shadow cull 1",
            "shadow cull 2",
            "shadow cascade 0",
            "shadow cascade 1",
            "shadow cascade 2",
            "ground",
            "draw early",
            "impostors early",
            "depth pyramid",
            "cull late",
            "animate late",
            "draw late",
            "impostors late",
            "skeleton"
        ],
        "{last}"
    );
}

#[test]
fn animation_lod_looks_like_each_pose_animated() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("anim_lod_on_off");
    // The picture (256 instances) and a crowd where most share.
    for instances in ["256", "4096"] {
        let args = |anim_lod| {
            [
                "--time",
                "3",
                "--instances",
                instances,
                "--anim-lod",
                anim_lod,
            ]
        };
        let on = crowd(&dir, &format!("{instances}_on"), &args("on"));
        let off = crowd(&dir, &format!("{instances}_off"), &args("off"));
        let differing = differing_pixels(&on, &off, 25);
        let fraction = differing as f64 / (on.width() * on.height()) as f64;
        println!(
            "{instances} instances: {:.3}% of pixels differ by more than 10%",
            fraction * 100.0
        );
        assert!(fraction <= 0.02, "{instances}: {fraction}");
    }
}
