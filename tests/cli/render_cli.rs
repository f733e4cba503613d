//! How rendering fails: clear messages and the documented exit codes
//! (1: the machine cannot do it, 2: bad input).

use crate::common;

use std::process::Output;

use common::{arg, md5crowd_as_typed_with_env, shipped_mesh, vulkan_or_skip};

fn assert_fails(output: &Output, code: i32, message: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{stderr}");
    assert!(
        stderr.contains(message),
        "expected \"{message}\" in:\n{stderr}"
    );
}

#[test]
fn validate_without_the_layer_is_an_error() {
    if !vulkan_or_skip() {
        return;
    }
    // The loader's switch to hide layers (loader 1.3.234 and later).
    let output = md5crowd_as_typed_with_env(
        &[arg(&shipped_mesh()), "--headless", "--validate"],
        &[("VK_LOADER_LAYERS_DISABLE", "~all~")],
    );
    assert_fails(
        &output,
        1,
        "VK_LAYER_KHRONOS_validation layer is not installed",
    );
}

#[test]
fn no_driver_is_a_clear_error() {
    let nowhere = "/nonexistent/md5crowd-test-icd.json";
    let output = md5crowd_as_typed_with_env(
        &[arg(&shipped_mesh()), "--headless"],
        &[("VK_DRIVER_FILES", nowhere), ("VK_ICD_FILENAMES", nowhere)],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Without a loader at all, the message names the loader instead.
    let explained = stderr.contains("no Vulkan driver found")
        || stderr.contains("cannot load the Vulkan loader");
    assert!(explained && output.status.code() == Some(1), "{stderr}");
}

#[test]
fn a_gpu_index_out_of_range_is_bad_input() {
    if !vulkan_or_skip() {
        return;
    }
    assert_fails(
        &md5crowd_as_typed_with_env(&[arg(&shipped_mesh()), "--headless", "--gpu", "99"], &[]),
        2,
        "--gpu 99: only",
    );
}

#[test]
fn a_window_screenshot_needs_a_frame_count() {
    assert_fails(
        &md5crowd_as_typed_with_env(&[arg(&shipped_mesh()), "--screenshot", "never.png"], &[]),
        2,
        "--screenshot with a window needs --frames",
    );
}

#[test]
fn a_crowd_too_large_for_the_gpu_says_how_many_fit() {
    if !vulkan_or_skip() {
        return;
    }
    // Its skinning transforms alone exceed any device's largest storage
    // buffer binding (at most 4 GiB), so every device refuses it, before
    // allocating anything.
    let output = md5crowd_as_typed_with_env(
        &[
            arg(&shipped_mesh()),
            "--headless",
            "--quiet",
            "--instances",
            "200000000",
        ],
        &[],
    );
    assert_fails(
        &output,
        1,
        "a crowd of 200000000 instances does not fit this GPU: its ",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let fit: u64 = stderr
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no count to try in:\n{stderr}"));
    assert!((1..200_000_000).contains(&fit), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
}

/// `--impostor-memory-mib`: the one budget of the impostor atlases. With
/// 6 MiB the shipped character's atlas has one slot (6.0 MiB a clip), so of
/// the clips its 4096 characters want far away one is baked, the others
/// stay meshes, and a clip in use is never evicted for another (the slots
/// would be baked in circles). The default budget bakes them all.
#[test]
fn the_impostor_budget_buys_the_slots_and_a_clip_in_use_keeps_its_own() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("impostor_budget");
    let run = |budget: &[&str]| {
        let picture = dir.join("budget.png");
        let mut args = vec![
            common::assets().to_str().unwrap().to_owned(),
            "--headless".into(),
            "--instances".into(),
            "4096".into(),
            "--frames".into(),
            "60".into(),
            // About slots, not edges: one sample a pixel keeps 60 frames of
            // 4096 meshes quick on a CPU driver.
            "--msaa".into(),
            "1".into(),
            "--screenshot".into(),
            picture.to_str().unwrap().to_owned(),
        ];
        args.extend(budget.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = common::md5crowd(&args);
        common::assert_validated(&output);
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let baked = |log: &str| {
        log.lines()
            .filter(|l| l.contains("\" baked into slot"))
            .count()
    };
    let small = run(&["--impostor-memory-mib", "6"]);
    assert!(
        small.contains("crowdling: 1 slot(s) of 12 frames x 48 views for 4 clip(s), 6.0 MiB"),
        "{small}"
    );
    assert_eq!(baked(&small), 1, "{small}");
    assert!(!small.contains("takes slot"), "{small}");
    let whole = run(&[]);
    assert!(
        whole.contains("crowdling: 4 slot(s) of 12 frames x 48 views for 4 clip(s), 24.0 MiB"),
        "{whole}"
    );
    assert!(baked(&whole) >= 3, "{whole}");
}
