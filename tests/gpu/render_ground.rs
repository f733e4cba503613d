//! The ground the crowd stands on, walking or not: a plane under the whole
//! view that fades into the background at the horizon, where shadows fall
//! (blob or shadow maps). Headless renders under the validation layer.

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
fn the_crowd_stands_on_a_ground_and_its_shadows_fall_on_it() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("ground");
    let picture = |name: &str, locomotion: &str, shadows: &str| {
        render(
            &dir,
            name,
            &[
                "--instances",
                "16",
                "--time",
                "3",
                "--locomotion",
                locomotion,
                "--shadows",
                shadows,
            ],
        )
    };
    let walking = picture("walking", "on", "blob");
    let standing = picture("standing", "off", "blob");
    let mapped = picture("mapped", "off", "map");
    let bare = picture("bare", "off", "off");
    let (width, height) = walking.dimensions();
    let lower = height / 2..height;
    let lower_pixels = (width * height / 2) as usize;
    // The darkest ground against the typical ground (grid lines darken it
    // by a quarter; a shadow's centre by over half).
    let darkest_share = |image: &RgbaImage| {
        let ground = grey_luminances(image, lower.clone());
        // Walking or not, the ground covers the lower half of the picture.
        assert!(
            ground.len() > lower_pixels / 2,
            "{} grey pixels",
            ground.len()
        );
        // Skip a few pixels: a character's outline may blend into grey.
        ground[10] / ground[ground.len() / 2]
    };
    for (name, image) in [
        ("walking", &walking),
        ("standing", &standing),
        ("mapped", &mapped),
    ] {
        let share = darkest_share(image);
        assert!(
            share < 0.55,
            "{name}: the darkest ground is {share:.2} of the median: no shadows"
        );
    }
    let share = darkest_share(&bare);
    assert!(
        share > 0.55,
        "without shadows the darkest ground is {share:.2} of the median"
    );
}
