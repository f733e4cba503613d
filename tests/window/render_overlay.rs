//! The overlay (F1, `--overlay`): drawn headless in screenshots, only in
//! its panel, validation-clean; in a window, a click on one of its controls
//! does what the control says (switching the influences rebuilds the
//! model's resources under a live window).

use crate::common;

use common::{assert_validated, render_sized, scratch_dir, vulkan_or_skip, window_or_skip};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;
/// `PANEL_WIDTH` in src/app/overlay.rs, at one pixel per point.
const PANEL_WIDTH: u32 = 300;
const CROWD: &[&str] = &["--instances", "9", "--time", "1"];

#[test]
fn the_overlay_draws_its_panel_and_nothing_else() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("render_overlay");
    let plain = render_sized(&dir, "plain", (WIDTH, HEIGHT), CROWD).0;
    let overlay_args = [CROWD, &["--overlay"]].concat();
    let overlay = render_sized(&dir, "overlay", (WIDTH, HEIGHT), &overlay_args).0;
    let (mut inside, mut outside) = (0, 0);
    for (x, y, p) in plain.enumerate_pixels() {
        let q = overlay.get_pixel(x, y);
        if p.0.iter().zip(q.0).any(|(a, b)| a.abs_diff(b) > 2) {
            if x < PANEL_WIDTH {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    let panel = (PANEL_WIDTH * HEIGHT) as usize;
    // The panel's dark fill covers the scene: most of it differs.
    assert!(
        inside > panel / 2,
        "{inside} of {panel} panel pixels differ"
    );
    // The panel's edge may be antialiased; the scene is the same image.
    assert!(
        outside <= HEIGHT as usize * 2,
        "{outside} pixels differ outside the panel"
    );
}

#[test]
fn clicks_on_the_overlay_switch_the_skinning_and_the_influences() {
    // Vulkan, Xvfb and xdotool, or skip (CI: fail).
    let Some(x) = window_or_skip(true) else {
        return;
    };
    let mut app = x.launch(&[
        "--overlay",
        "--instances",
        "4",
        "--width",
        "640",
        "--height",
        "480",
    ]);
    let window = app.window.clone();
    let wait_for = |ending: &str| x.wait_for_title(&window, ending);
    wait_for("| LBS, 4 influences | MSAA 4x");
    // The "DQS" switch, second on the skinning row at the panel's top: the
    // panel's layout is fixed (controls first) and one pixel is one point
    // under Xvfb.
    x.xdotool(&["windowfocus", "--sync", &window]);
    x.xdotool(&["mousemove", "--window", &window, "118", "62"]);
    app.wait_for_frame();
    x.xdotool(&["click", "1"]);
    wait_for("| DQS, 4 influences | MSAA 4x");
    // "8" on the influences row below: the model is loaded again and the
    // renderer rebuilt around the same crowd, validation-clean.
    x.xdotool(&["mousemove", "--window", &window, "106", "83"]);
    app.wait_for_frame();
    x.xdotool(&["click", "1"]);
    wait_for("| DQS, 8 influences | MSAA 4x");
    // The "fewer influences when coarse" checkbox: every level then skins
    // with all 8, which the line logged after each control says.
    x.xdotool(&["mousemove", "--window", &window, "15", "209"]);
    app.wait_for_frame();
    x.xdotool(&["click", "1"]);
    app.wait_for_log_lines(1, |l| {
        l.contains("DQS, 8 influences, all influences at every level")
    });
    // The "impostors (P)" checkbox, two rows below.
    x.xdotool(&["mousemove", "--window", &window, "15", "251"]);
    app.wait_for_frame();
    x.xdotool(&["click", "1"]);
    app.wait_for_log_lines(1, |l| {
        l.contains("all influences at every level, impostors off")
    });
    x.xdotool(&["key", "Escape"]);
    let output = app.wait_for_exit();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.lines()
            .any(|l| l.contains("DQS, 8 influences, all influences at every level")),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("all influences at every level, impostors off")),
        "{log}"
    );
}

/// The log line the window writes after each control, with a mixed crowd's
/// per-model part: `NAME COUNT (CLIP)` per model.
fn model_part<'a>(line: &'a str, name: &str) -> Option<(usize, &'a str)> {
    let (_, models) = line.split_once("; ")?;
    models.split(", ").find_map(|part| {
        let rest = part.strip_prefix(name)?.strip_prefix(' ')?;
        let (count, clip) = rest.split_once(' ')?;
        let clip = clip.strip_prefix('(')?.strip_suffix(')')?;
        Some((count.parse().ok()?, clip))
    })
}

#[test]
fn clicks_on_a_models_row_set_its_share_and_its_clip() {
    let Some(x) = window_or_skip(true) else {
        return;
    };
    let dir = scratch_dir("overlay_models");
    let parts = common::many_joints::write_many_parts(&dir, 47, 6, 20.0).unwrap();
    let assets = common::assets();
    let mut args = vec![assets.to_str().unwrap(), parts.mesh.to_str().unwrap()];
    args.extend(parts.anims.iter().map(|a| a.to_str().unwrap()));
    args.extend([
        "--influences",
        "8",
        "--mix",
        "many_parts_47:3",
        "--overlay",
        "--instances",
        "40",
        "--width",
        "640",
        "--height",
        "640",
    ]);
    let mut app = x.launch(&args);
    let window = app.window.clone();
    x.xdotool(&["windowfocus", "--sync", &window]);
    // The first frames come after the impostor bake, however long it takes.
    app.wait_for_frame();
    // The line logged after each control that acts names every model.
    let model_lines = |l: &str| model_part(l, "many_parts_47").is_some();
    // Pressed, moved to `to` and released, each in a frame of its own as a
    // hand would (a slider sets its value while the button is down).
    let mut drag = |from: [&str; 2], to: [&str; 2]| {
        x.xdotool(&["mousemove", "--window", &window, from[0], from[1]]);
        app.wait_for_frame();
        x.xdotool(&["mousedown", "1"]);
        for at in [from, to] {
            app.wait_for_frame();
            x.xdotool(&["mousemove", "--window", &window, at[0], at[1]]);
        }
        app.wait_for_frame();
        x.xdotool(&["mouseup", "1"]);
        app.wait_for_log_lines(1, model_lines);
    };
    // The rows of the models sit below the crowd-size slider, a row each:
    // name, share slider (0 to 10, 6 pixels apiece), clip list.
    // many_parts_47's share dragged from 3 to about 2: the crowd is laid
    // out once, on release.
    drag(["127", "533"], ["121", "533"]);
    // crowdling's clip list, then its first entry: idle.
    let mut click = |at: [&str; 2]| {
        x.xdotool(&["mousemove", "--window", &window, at[0], at[1]]);
        app.wait_for_frame();
        x.xdotool(&["click", "1"]);
        app.wait_for_frame();
    };
    click(["260", "512"]);
    click(["260", "537"]);
    app.wait_for_log_lines(2, model_lines);
    x.xdotool(&["key", "Escape"]);
    let output = app.wait_for_exit();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<(usize, &str, usize, &str)> = log
        .lines()
        .filter_map(|l| {
            let (crowdling, clip) = model_part(l, "crowdling")?;
            let (parts, parts_clip) = model_part(l, "many_parts_47")?;
            Some((crowdling, clip, parts, parts_clip))
        })
        .collect();
    println!("{lines:?}");
    let [(crowdling, _, parts, _), (_, clip, _, parts_clip)] = lines[..] else {
        panic!("a line after each of the two controls that act: {log}");
    };
    assert_eq!(crowdling + parts, 40, "{log}");
    assert!(
        parts > 20 && parts < 30,
        "many_parts_47's share went down: {log}"
    );
    assert_eq!(clip, "idle", "{log}");
    assert_eq!(parts_clip, "mixed", "the other model plays on: {log}");
}
