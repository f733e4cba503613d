//! The ground the walking crowd stands on: a plane under the whole view
//! that fades into the background at the horizon, and a contact shadow
//! under each character. Headless renders under the validation layer.

use crate::common;

use common::{render, scratch_dir, vulkan_or_skip};
use image::{Rgba, RgbaImage};

/// Pixels the ground shows: grey, as its albedo is (characters are
/// coloured: shirts, trousers, skin, shoes).
fn is_grey(p: &Rgba<u8>) -> bool {
    let [r, g, b, _] = p.0;
    r.abs_diff(g) <= 6 && g.abs_diff(b) <= 6 && r.abs_diff(b) <= 8
}

fn luminance(p: &Rgba<u8>) -> f32 {
    let [r, g, b, _] = p.0;
    0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)
}

/// The grey pixels' luminance in rows `rows` of `image`, sorted.
fn grey_luminances(image: &RgbaImage, rows: std::ops::Range<u32>) -> Vec<f32> {
    let mut values: Vec<f32> = rows
        .flat_map(|y| (0..image.width()).map(move |x| (x, y)))
        .map(|(x, y)| image.get_pixel(x, y))
        .filter(|p| is_grey(p))
        .map(luminance)
        .collect();
    values.sort_by(f32::total_cmp);
    values
}

#[test]
fn the_crowd_stands_on_a_ground_with_contact_shadows() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("ground");
    let walking = render(
        &dir,
        "walking",
        &["--instances", "16", "--time", "3", "--locomotion", "on"],
    );
    let void = render(
        &dir,
        "void",
        &["--instances", "16", "--time", "3", "--locomotion", "off"],
    );
    let (width, height) = walking.dimensions();
    let clear = *void.get_pixel(0, 0);
    // Without locomotion the characters stand in the void; with it, the
    // ground covers the lower half of the picture.
    let lower = height / 2..height;
    let ground_pixels = lower
        .clone()
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| *walking.get_pixel(x, y) != clear)
        .count();
    let lower_pixels = (width * height / 2) as usize;
    assert!(
        ground_pixels * 10 > lower_pixels * 9,
        "the ground covers {ground_pixels} of {lower_pixels} pixels of the lower half"
    );
    assert!(
        grey_luminances(&void, lower.clone()).len() < lower_pixels / 2,
        "the void is not grey ground"
    );

    // Contact shadows: the darkest ground is far darker than the typical
    // ground (grid lines darken it by a quarter; a shadow's centre by 70%).
    let ground = grey_luminances(&walking, lower);
    assert!(
        ground.len() > lower_pixels / 2,
        "{} grey pixels",
        ground.len()
    );
    let median = ground[ground.len() / 2];
    // Skip a few pixels: a character's outline may blend into grey.
    let darkest = ground[10];
    assert!(
        darkest < 0.55 * median,
        "the darkest ground ({darkest:.1}, 11th darkest pixel) against the median ({median:.1}): no shadows"
    );
}
