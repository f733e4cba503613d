//! Helpers shared by the render tests: whether Vulkan is there, running the
//! binary with validation, and comparing PNGs.
// Each test crate uses its own subset of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use image::RgbaImage;
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::{Context, ContextDesc};

/// False (after printing why) when the test should skip: no Vulkan loader
/// or no usable device. With `MD5CROWD_REQUIRE_VULKAN=1` (CI) a missing
/// device fails the test instead.
pub fn vulkan_or_skip() -> bool {
    let probe = Context::new(&ContextDesc {
        validation: Validation::Off,
        gpu_index: None,
        window: None,
    });
    match probe {
        Ok(_) => true,
        Err(error) if std::env::var("MD5CROWD_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("MD5CROWD_REQUIRE_VULKAN=1 but no Vulkan device: {error}")
        }
        Err(error) => {
            println!("skipped: no Vulkan device ({error})");
            false
        }
    }
}

pub fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// A fresh directory for one test's files.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("render_tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `md5crowd --validate ARGS` and returns its output, failing the test
/// unless it exited 0 with the layer silent.
pub fn md5crowd_validated(args: &[&str]) -> Output {
    let output = md5crowd(args);
    assert_validated(&output);
    output
}

pub fn md5crowd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg("--validate")
        .args(args)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd")
}

pub fn assert_validated(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "md5crowd failed ({}):\n{stderr}",
        output.status
    );
    assert!(
        stderr.contains("validation: no warnings, no errors"),
        "validation did not run clean:\n{stderr}"
    );
    assert!(
        !stderr.contains("[ERROR vulkan]") && !stderr.contains("[WARN  vulkan]"),
        "{stderr}"
    );
}

/// Renders the shipped character headless at 320x240 and returns the image.
pub fn render(dir: &Path, name: &str, args: &[&str]) -> RgbaImage {
    let png = dir.join(format!("{name}.png"));
    let png_arg = png.to_str().unwrap();
    let mut all = vec![
        "--headless",
        "--width",
        "320",
        "--height",
        "240",
        "--screenshot",
        png_arg,
    ];
    all.extend_from_slice(args);
    md5crowd_validated(&all);
    image::open(&png)
        .unwrap_or_else(|e| panic!("{}: {e}", png.display()))
        .to_rgba8()
}

/// Pixels where any channel differs by more than `levels`.
pub fn differing_pixels(a: &RgbaImage, b: &RgbaImage, levels: u8) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > levels))
        .count()
}

/// Pixels that differ from the top-left one (the clear colour).
pub fn covered_pixels(image: &RgbaImage) -> usize {
    let background = *image.get_pixel(0, 0);
    image.pixels().filter(|&&p| p != background).count()
}
