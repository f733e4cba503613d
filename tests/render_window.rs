//! A real window on a virtual X server (Xvfb): it opens, is resized twice
//! and minimised by the app's hidden `--exercise-window` driver, and exits
//! cleanly after `--frames`, with the validation layer silent throughout.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::{assert_validated, assets, vulkan_or_skip};

/// An Xvfb server on a display of its own, stopped when dropped.
struct VirtualDisplay {
    server: Child,
    display: String,
}

impl VirtualDisplay {
    /// `None` when Xvfb is not installed.
    fn start() -> Option<VirtualDisplay> {
        // Display numbers whose lock file is absent are free; start high to
        // stay clear of real sessions, and offset by pid and by a counter so
        // parallel test runs, and parallel tests in one run, pick different
        // ones (a lock file only appears once the server is up).
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let first = 90 + std::process::id() % 100 + 100 * STARTED.fetch_add(1, Ordering::Relaxed);
        let number =
            (first..first + 100).find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())?;
        let display = format!(":{number}");
        let server = Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let socket = format!("/tmp/.X11-unix/X{number}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !Path::new(&socket).exists() {
            assert!(Instant::now() < deadline, "Xvfb did not start on {display}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(VirtualDisplay { server, display })
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

#[test]
fn window_survives_resizes_and_minimising() {
    if !vulkan_or_skip() {
        return;
    }
    let Some(x) = VirtualDisplay::start() else {
        if std::env::var("MD5CROWD_REQUIRE_VULKAN").as_deref() == Ok("1") {
            panic!("MD5CROWD_REQUIRE_VULKAN=1 but Xvfb is not installed");
        }
        println!("skipped: no Xvfb");
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

/// Runs `xdotool ARGS` against the virtual display.
fn xdotool(x: &VirtualDisplay, args: &[&str]) -> std::process::Output {
    Command::new("xdotool")
        .args(args)
        .env("DISPLAY", &x.display)
        .output()
        .expect("run xdotool")
}

#[test]
fn keys_switch_clips_resize_the_crowd_and_toggle_views() {
    if !vulkan_or_skip() {
        return;
    }
    let Some(x) = VirtualDisplay::start() else {
        println!("skipped: no Xvfb");
        return;
    };
    if Command::new("xdotool").arg("version").output().is_err() {
        if std::env::var("MD5CROWD_REQUIRE_VULKAN").as_deref() == Ok("1") {
            panic!("MD5CROWD_REQUIRE_VULKAN=1 but xdotool is not installed");
        }
        println!("skipped: no xdotool");
        return;
    }
    let mut app = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([
            "--validate",
            "--instances",
            "4",
            "--width",
            "480",
            "--height",
            "270",
        ])
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .expect("run md5crowd");
    let found = xdotool(&x, &["search", "--sync", "--name", "md5crowd"]);
    let window = String::from_utf8_lossy(&found.stdout)
        .lines()
        .next()
        .expect("the window appears")
        .to_owned();
    // No window manager: give the window the focus, then type (XTEST).
    xdotool(&x, &["windowfocus", "--sync", &window]);
    let keys = [
        "bracketright", // next clip: run (the first character played idle)
        "4",            // wave
        "plus",         // 8 instances
        "minus",        // 4
        "minus",        // 2
        "k",
        "l",
        "f",
        "r",
        "space",
        "bracketleft", // previous clip: walk
        "Escape",
    ];
    for key in keys {
        xdotool(&x, &["key", "--delay", "150", key]);
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while app.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = app.kill();
            panic!("md5crowd did not quit on Escape");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = app.wait_with_output().unwrap();
    assert_validated(&output);
    let log = String::from_utf8_lossy(&output.stderr);
    let views: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split("md5crowd::app::window] ").nth(1))
        .collect();
    assert_eq!(
        views.len(),
        keys.len() - 1,
        "one line per key but Esc:\n{log}"
    );
    let expected: [&[&str]; 11] = [
        &["clip run, 4 instances"],
        &["clip wave"],
        &[", 8 instances"],
        &[", 4 instances"],
        &[", 2 instances, LBS"],
        &[", skeleton"],
        &["DQS"],
        &[", wireframe"],
        &["clip wave, "],
        &[", paused"],
        &["clip walk, 2 instances, DQS, paused, skeleton, wireframe"],
    ];
    for (line, parts) in views.iter().zip(expected) {
        for part in parts {
            assert!(line.contains(part), "\"{part}\" not in \"{line}\":\n{log}");
        }
    }
}
