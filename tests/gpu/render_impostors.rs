//! Impostors as a user sees them: 4096 shipped characters at 1920x1080,
//! drawn with impostors and without, at the default 4 samples a pixel.
//! From above, where nearly every character is past the switch, at most
//! 1.5% of the pixels differ by more than 10%, as issue 48 asks (1.455% on
//! lavapipe, whose materials are filtered without anisotropy); in the
//! street, where most are near and drawn as meshes, at most 0.5%. The
//! pictures stay in the test's folder (target/tmp/render_tests/impostors_on_off)
//! to be looked at.

use crate::common;

use common::{differing_pixels, render_sized, scratch_dir, vulkan_or_skip};

fn crowd(dir: &std::path::Path, view: &str, impostors: &str) -> image::RgbaImage {
    let name = format!("{view}_impostors_{impostors}");
    let args = [
        "--instances",
        "4096",
        "--time",
        "2",
        "--view",
        view,
        "--impostors",
        impostors,
        // The grid, as render_culling's pictures.
        "--locomotion",
        "off",
    ];
    render_sized(dir, &name, (1920, 1080), &args).0
}

#[test]
fn impostors_look_like_the_meshes_from_above_and_in_the_street() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("impostors_on_off");
    for (view, limit) in [("overview", 0.015), ("street", 0.005)] {
        let on = crowd(&dir, view, "on");
        let off = crowd(&dir, view, "off");
        let pixels = f64::from(on.width() * on.height());
        let changed = differing_pixels(&on, &off, 0);
        let differing = differing_pixels(&on, &off, 25);
        let fraction = differing as f64 / pixels;
        println!(
            "{view}: {changed} pixels changed, {differing} ({:.3}%) by more than 10%",
            fraction * 100.0
        );
        assert!(fraction <= limit, "{view}: {:.3}%", fraction * 100.0);
        if view == "overview" {
            // Nearly everyone is an impostor from up there.
            assert!(
                changed as f64 > pixels * 0.02,
                "{view}: impostors were drawn"
            );
        }
    }
    println!("pictures in {}", dir.display());
}
