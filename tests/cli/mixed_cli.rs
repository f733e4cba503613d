//! Mixed crowds from the command line: model arguments grouped into
//! models, `--mix` shares, the start-up log's line per model, `--clip` by
//! name across models, the bench's `"models"` key, and the mistakes users
//! make, each exit status 2 with one line.

use crate::common;

use std::path::{Path, PathBuf};

use common::{
    arg, assert_bad_input, assets, md5crowd_as_typed, render_with_log, scratch_dir, vulkan_or_skip,
};

/// The many-joints subject, as tall as the shipped character, at 47
/// joints in 3 meshes; its mesh file and clips.
fn many_parts(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let written = common::many_joints::write_many_parts(dir, 47, 3, 20.0).unwrap();
    (written.mesh, written.anims)
}

#[test]
fn each_mesh_starts_a_model_and_its_clips_follow_it() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("mixed_cli_models");
    let (mesh, anims) = many_parts(&dir.join("parts"));
    let assets = assets();
    let shipped = assets.join("crowdling.md5mesh");
    let walk = assets.join("walk.md5anim");
    let idle = assets.join("idle.md5anim");
    let args = [
        arg(&shipped),
        arg(&walk),
        arg(&idle),
        arg(&mesh),
        arg(&anims[0]),
        "--instances",
        "40",
        "--mix",
        "many_parts_47:3",
        "--influences",
        "8",
    ];
    let (image, log) = render_with_log(&dir, "mixed", &args);
    assert!(common::covered_pixels(&image) > 500, "something is drawn");
    assert!(log.contains("2 model(s), 40 instance(s)"), "{log}");
    assert!(
        log.contains("model 1: ")
            && log.contains("23 joints, 2 meshes")
            && log.contains("2 clip(s) (walk, idle)")
            && log.contains("10 instance(s)"),
        "the first model, its clips and its quarter: {log}"
    );
    assert!(
        log.contains("model 2: ")
            && log.contains("47 joints, 3 meshes")
            && log.contains("1 clip(s)")
            && log.contains("30 instance(s)"),
        "the second model, its clip and three quarters: {log}"
    );
    // A clip picked by name: the models that have it play it.
    let mut picked = args.to_vec();
    picked.extend(["--clip", "walk"]);
    let (_, log) = render_with_log(&dir, "picked", &picked);
    assert!(log.contains("validation: no warnings, no errors"), "{log}");
}

#[test]
fn mix_names_models_by_their_mesh_files() {
    let dir = scratch_dir("mixed_cli_errors");
    let (mesh, _) = many_parts(&dir.join("parts"));
    let shipped = assets().join("crowdling.md5mesh");
    let output = md5crowd_as_typed(&[
        arg(&shipped),
        arg(&mesh),
        "--headless",
        "--mix",
        "crowdlin:2",
    ]);
    assert_bad_input(
        &output,
        &[
            "--mix crowdlin",
            "no model is named",
            "crowdling, many_parts_47",
        ],
    );
    let output = md5crowd_as_typed(&[
        arg(&shipped),
        arg(&mesh),
        "--headless",
        "--mix",
        "crowdling:0,many_parts_47:0",
    ]);
    assert_bad_input(&output, &["weight of 0"]);
    let output = md5crowd_as_typed(&[arg(&shipped), "--headless", "--mix", "crowdling"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("NAME:WEIGHT"));
    let output = md5crowd_as_typed(&[arg(&shipped), arg(&mesh), "--headless", "--clip", "jog"]);
    assert_bad_input(&output, &["--clip jog", "no model has clips"]);
    let output = md5crowd_as_typed(&[arg(&assets()), arg(&mesh), "--headless", "--clip", "jog"]);
    assert_bad_input(
        &output,
        &["--clip jog", "no such clip", "idle, run, walk, wave"],
    );
}

#[test]
fn bench_rows_name_their_models() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("mixed_cli_bench");
    let (mesh, anims) = many_parts(&dir.join("parts"));
    let json = dir.join("bench.json");
    let shipped = assets();
    let report = common::bench_report(
        &[
            arg(&shipped),
            arg(&mesh),
            arg(&anims[0]),
            arg(&anims[1]),
            "--instances",
            "64",
            "--modes",
            "gpu",
            "--frames",
            "1",
            "--rounds",
            "1",
            "--width",
            "160",
            "--height",
            "90",
        ],
        &json,
    );
    let run = &report["runs"][0];
    assert_eq!(
        run["models"],
        serde_json::json!(["crowdling", "many_parts_47"])
    );
    assert_eq!(
        run["visible"], 64,
        "the overview sees both models' instances"
    );
}
