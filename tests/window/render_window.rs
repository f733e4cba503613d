//! A real window on a virtual X server (Xvfb): it opens, is resized twice
//! and minimised by the app's hidden `--exercise-window` driver, and exits
//! cleanly after `--frames`, with the validation layer silent throughout.

use crate::common;

use std::process::Command;

use common::{assert_validated, assets, window_or_skip, wireframe_or_skip};

#[test]
fn window_survives_resizes_and_minimising() {
    // Vulkan and Xvfb, or skip (CI: fail).
    let Some(x) = window_or_skip(false) else {
        return;
    };
    let mesh = assets().join("crowdling.md5mesh");
    let anim = assets().join("walk.md5anim");
    let output = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([mesh.to_str().unwrap(), anim.to_str().unwrap()])
        .args([
            "--validate",
            "--frames",
            "30",
            "--exercise-window",
            "--width",
            "800",
            "--height",
            "600",
        ])
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd");
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    for expected in [
        "swapchain: 800x600",
        "swapchain: 640x360",
        "swapchain: 1000x400",
        "exercise: minimise",
        "exercise: restore",
        "30 frames drawn",
    ] {
        assert!(log.contains(expected), "missing \"{expected}\" in:\n{log}");
    }
    // While minimised the loop sleeps until woken: a spinning loop would
    // wake thousands of times in the 300 ms the exercise stays minimised.
    let wakeups: u32 = log
        .lines()
        .find_map(|l| {
            l.split("exercise: ")
                .nth(1)?
                .split(" wakeup")
                .next()?
                .parse()
                .ok()
        })
        .expect("wakeup count logged");
    assert!(wakeups < 50, "{wakeups} wakeups while minimised");
}

#[test]
fn keys_switch_clips_resize_the_crowd_and_toggle_views() {
    // Vulkan, Xvfb and xdotool, or skip (CI: fail); F below expects a
    // wireframe, so the device must have fillModeNonSolid too.
    let Some(x) = window_or_skip(true) else {
        return;
    };
    if !wireframe_or_skip() {
        return;
    }
    let mut app = x.launch(&["--instances", "4", "--width", "480", "--height", "270"]);
    // No window manager: give the window the focus, then type (XTEST) once
    // it draws.
    x.xdotool(&["windowfocus", "--sync", &app.window]);
    app.wait_for_frame();
    let keys = [
        "bracketright", // next clip: run (the first character played idle)
        "4",            // wave
        "plus",         // 8 instances
        "minus",        // 4
        "minus",        // 2
        "k",
        "l",
        "i", // 8 influences: the model loaded again, the renderer rebuilt
        "f",
        "p", // impostors off
        "r",
        "space",
        "bracketleft", // previous clip: walk
        "Escape",
    ];
    for (handled, key) in keys.iter().enumerate() {
        x.xdotool(&["key", key]);
        if *key != "Escape" {
            app.wait_for_log_lines(handled + 1, |l| view(l).is_some());
        }
    }
    let output = app.wait_for_exit();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    let views: Vec<&str> = log.lines().filter_map(view).collect();
    assert_eq!(
        views.len(),
        keys.len() - 1,
        "one line per key but Esc:\n{log}"
    );
    let expected: [&[&str]; 13] = [
        &["clip run, 4 instances"],
        &["clip wave"],
        &[", 8 instances"],
        &[", 4 instances"],
        &[", 2 instances, LBS"],
        &[", skeleton"],
        &["DQS, 4 influences"],
        &["DQS, 8 influences"],
        &[", wireframe"],
        &[", wireframe, impostors off"],
        &["clip wave, "],
        &[", paused"],
        &["clip walk, 2 instances, DQS, 8 influences, paused, skeleton, wireframe"],
    ];
    for (line, parts) in views.iter().zip(expected) {
        for part in parts {
            assert!(line.contains(part), "\"{part}\" not in \"{line}\":\n{log}");
        }
    }
}

#[test]
fn the_m_key_switches_msaa_off_and_on_while_the_frames_go_on() {
    // Vulkan, Xvfb and xdotool, or skip (CI: fail).
    let Some(x) = window_or_skip(true) else {
        return;
    };
    let mut app = x.launch(&[
        "--instances",
        "4",
        "--width",
        "480",
        "--height",
        "270",
        "--msaa",
        "4",
    ]);
    let window = app.window.clone();
    x.xdotool(&["windowfocus", "--sync", &window]);
    app.wait_for_frame();
    x.wait_for_title(&window, "| MSAA 4x");
    for (presses, ending) in [(1, "| MSAA 1x"), (2, "| MSAA 4x")] {
        x.xdotool(&["key", "m"]);
        app.wait_for_log_lines(presses, |line| view(line).is_some());
        // New targets and pipelines, and the frames go on with them.
        app.wait_for_frame();
        x.wait_for_title(&window, ending);
    }
    x.xdotool(&["key", "Escape"]);
    let output = app.wait_for_exit();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    let views: Vec<&str> = log.lines().filter_map(view).collect();
    assert_eq!(views.len(), 2, "one line per key but Esc:\n{log}");
    assert!(views[0].contains(", MSAA off"), "{log}");
    assert!(!views[1].contains("MSAA"), "{log}");
}

/// H cycles shadow maps, blob shadows and none, with a resize between,
/// while the frames go on; validation (synchronization included) stays
/// silent.
#[test]
fn the_h_key_cycles_shadow_maps_blob_and_off_across_a_resize() {
    // Vulkan, Xvfb and xdotool, or skip (CI: fail).
    let Some(x) = window_or_skip(true) else {
        return;
    };
    let mut app = x.launch(&[
        "--instances",
        "16",
        "--width",
        "480",
        "--height",
        "270",
        "--shadow-resolution",
        "512",
        "--shadows",
        "map",
    ]);
    let window = app.window.clone();
    x.xdotool(&["windowfocus", "--sync", &window]);
    app.wait_for_frame();
    for presses in 1..=3 {
        if presses == 2 {
            x.xdotool(&["windowsize", &window, "400", "300"]);
            app.wait_for_frame();
        }
        x.xdotool(&["key", "h"]);
        app.wait_for_log_lines(presses, |line| view(line).is_some());
        app.wait_for_frame();
    }
    x.xdotool(&["key", "Escape"]);
    let output = app.wait_for_exit();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    let views: Vec<&str> = log.lines().filter_map(view).collect();
    assert_eq!(views.len(), 3, "one line per key but Esc:\n{log}");
    assert!(views[0].contains(", blob shadows"), "{log}");
    assert!(views[1].contains(", shadows off"), "{log}");
    assert!(!views[2].contains("shadows"), "back to shadow maps: {log}");
}

/// The line the window logs after each key, from its module's name on.
fn view(line: &str) -> Option<&str> {
    line.split("md5crowd::app::window] ").nth(1)
}
