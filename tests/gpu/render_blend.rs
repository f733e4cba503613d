//! BLEND surfaces by weighted blended transparency, against its CPU twin
//! (`material::weighted_blend`): overlapping layers composite the same
//! whichever order they are drawn in.

use crate::common;

use common::material_fixtures::{self, OVERLAPPING_DECALS, SKIN_COLOR};
use glam::{Mat4, Vec3};
use md5crowd::material::weighted_blend::{self, BlendLayer};
use md5crowd::model::Model;

use super::gpu_crowd::view_projection;
use super::render_pbr::{distance, one_instance, pixel_of, rgb, stored, texel};

/// The centre of the mesh drawn with material `name`.
fn centre_of(model: &Model, name: &str) -> Vec3 {
    let mesh = model.meshes.iter().find(|m| m.shader == name).unwrap();
    mesh.positions.iter().sum::<Vec3>() / mesh.positions.len() as f32
}

/// A colour factor as its 1x1 sRGB texel holds it, in linear values.
fn linear(color: [f32; 4]) -> Vec3 {
    Vec3::new(color[0], color[1], color[2]).map(|v| texel(v, true))
}

/// Reverse-Z depth of `point` through `view`.
fn depth(view: Mat4, point: Vec3) -> f32 {
    let clip = view * point.extend(1.0);
    clip.z / clip.w
}

/// Two BLEND decals overlapping over skin, written in either order, at 1
/// and 4 samples: the two orders give the same picture (within the level
/// half-float rounding may move), and where both
/// decals cover the skin the pixel is the weighted composite of the CPU
/// twin within 3/255 (which also says how far that lies from the exact
/// back-to-front composite).
#[test]
fn overlapping_blend_layers_draw_alike_in_either_order_as_weighed_on_the_cpu() {
    if !common::vulkan_or_skip() {
        return;
    }
    let mut pictures = Vec::new();
    for reversed in [false, true] {
        let test = format!(
            "blend_layers_{}",
            if reversed { "reversed" } else { "in_order" }
        );
        let glb = material_fixtures::overlapping_decals(reversed);
        let (model, mut harness) = one_instance(&test, &glb);
        let skin = centre_of(&model, "skin");
        let view = view_projection(skin + Vec3::new(60.0, 0.0, 0.0), skin, 0.5);
        let layers: Vec<(BlendLayer, Vec3)> = OVERLAPPING_DECALS
            .iter()
            .map(|&(name, color, ..)| {
                let centre = centre_of(&model, name);
                let layer = BlendLayer {
                    color: linear(color),
                    alpha: texel(color[3], false),
                    depth: depth(view, centre),
                };
                (layer, centre)
            })
            .collect();
        let both = (layers[0].1 + layers[1].1) / 2.0;
        let blend: Vec<BlendLayer> = layers.iter().map(|(layer, _)| *layer).collect();
        let expected = weighted_blend::weighted_blend(&blend, linear(SKIN_COLOR));
        let exact = weighted_blend::ordered_blend(&blend, linear(SKIN_COLOR));
        for samples in [1, 4] {
            harness.set_samples(samples);
            let picture = harness.render_picture(view, 0.0);
            let seen = rgb(&picture, pixel_of(view, both));
            let off_exact = distance(
                stored(expected).map(|level| level.round() as u8),
                stored(exact),
            );
            println!(
                "{test} {samples}x: overlap {seen:?}, weighted {:?}, exact {:?} \
                 ({off_exact:.1} levels from the weighted)",
                stored(expected),
                stored(exact),
            );
            assert!(
                distance(seen, stored(expected)) <= 3.0,
                "{test} {samples}x: {seen:?}"
            );
            // Each decal alone over the skin is exactly `over`.
            for (layer, centre) in &layers {
                let outside = *centre + (*centre - both);
                let alone = layer.color * layer.alpha + linear(SKIN_COLOR) * (1.0 - layer.alpha);
                let seen = rgb(&picture, pixel_of(view, outside));
                assert!(
                    distance(seen, stored(alone)) <= 3.0,
                    "{test} {samples}x: {seen:?}"
                );
            }
            pictures.push((samples, picture));
        }
        harness.finish();
    }
    // Sums are the same in any order, but each is stored in half floats
    // after each layer, so the orders may round a level apart.
    let (in_order, reversed) = pictures.split_at(2);
    for ((samples, first), (_, second)) in in_order.iter().zip(reversed) {
        let differing = |levels: u8| {
            first
                .chunks_exact(4)
                .zip(second.chunks_exact(4))
                .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > levels))
                .count()
        };
        println!(
            "{samples}x: {} pixels differ between the two orders, {} by more than a level",
            differing(0),
            differing(1)
        );
        assert_eq!(differing(1), 0, "{samples}x");
    }
}
