//! CPU twin of shaders/weighted_blend.glsl: how BLEND surfaces are
//! composited over the opaque picture, and the exact back-to-front
//! compositing it approximates (what the tests and docs/materials.md
//! measure it against).
//!
//! Weighted blended order-independent transparency (McGuire and Bavoil,
//! "Weighted Blended Order-Independent Transparency", JCGT 2013): each
//! fragment adds its premultiplied colour times a weight, and its alpha
//! times the weight, to two sums, and multiplies what shows through by
//! `1 - alpha`. The composite is the weighted average colour over the
//! coverage `1 - product`. Sums and products do not depend on the order the
//! fragments arrive in, so the picture cannot flicker with the order the
//! cull appends instances in. One layer over the opaque picture (an eye
//! decal over skin) comes out exactly as `over` would give it; where
//! layers overlap, the nearer dominates by its weight instead of covering
//! the farther.

use glam::Vec3;

use crate::shared_constants::{BLEND_WEIGHT_MAX, BLEND_WEIGHT_MIN, NEAR_PLANE_SHARE};

/// One BLEND fragment over a pixel: its linear colour, alpha, and
/// reverse-Z depth (1 at the near plane, 0 at infinity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendLayer {
    pub color: Vec3,
    pub alpha: f32,
    pub depth: f32,
}

/// The weight of a fragment of `alpha` at reverse-Z `depth`: its alpha
/// times (camera target distance / its distance) squared, within
/// [`BLEND_WEIGHT_MIN`, `BLEND_WEIGHT_MAX`].
pub fn blend_weight(alpha: f32, depth: f32) -> f32 {
    let nearness = depth / NEAR_PLANE_SHARE;
    alpha * (nearness * nearness).clamp(BLEND_WEIGHT_MIN, BLEND_WEIGHT_MAX)
}

/// `layers`, in any order, composited over `background` by weighted
/// blending.
pub fn weighted_blend(layers: &[BlendLayer], background: Vec3) -> Vec3 {
    let mut colors = Vec3::ZERO;
    let mut weights = 0.0;
    let mut shows_through = 1.0;
    for layer in layers {
        let weight = blend_weight(layer.alpha, layer.depth);
        colors += layer.color * layer.alpha * weight;
        weights += layer.alpha * weight;
        shows_through *= 1.0 - layer.alpha;
    }
    if weights <= 0.0 {
        return background;
    }
    let coverage = 1.0 - shows_through;
    colors / weights * coverage + background * shows_through
}

/// `layers` composited over `background` exactly: farthest first, each
/// over what is behind it.
pub fn ordered_blend(layers: &[BlendLayer], background: Vec3) -> Vec3 {
    let mut sorted = layers.to_vec();
    sorted.sort_by(|a, b| a.depth.total_cmp(&b.depth));
    sorted.iter().fold(background, |behind, layer| {
        layer.color * layer.alpha + behind * (1.0 - layer.alpha)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKIN: Vec3 = Vec3::new(0.8, 0.5, 0.4);

    fn layer(color: Vec3, alpha: f32, depth: f32) -> BlendLayer {
        BlendLayer {
            color,
            alpha,
            depth,
        }
    }

    #[test]
    fn one_layer_is_exactly_over() {
        let decal = layer(Vec3::new(0.1, 0.2, 0.9), 0.5, 0.004);
        let weighted = weighted_blend(&[decal], SKIN);
        let exact = ordered_blend(&[decal], SKIN);
        assert!(weighted.abs_diff_eq(exact, 1e-6), "{weighted} vs {exact}");
        assert!(weighted.abs_diff_eq((decal.color + SKIN) / 2.0, 1e-6));
    }

    #[test]
    fn the_order_of_layers_does_not_matter() {
        let red = layer(Vec3::X, 0.5, 0.02);
        let blue = layer(Vec3::Z, 0.6, 0.01);
        let one_way = weighted_blend(&[red, blue], SKIN);
        let other_way = weighted_blend(&[blue, red], SKIN);
        assert!(one_way.abs_diff_eq(other_way, 1e-6));
    }

    #[test]
    fn the_nearer_layer_dominates_by_its_weight() {
        let near = layer(Vec3::X, 0.5, 0.02);
        let far = layer(Vec3::Z, 0.5, 0.01);
        let weighted = weighted_blend(&[near, far], Vec3::ZERO);
        // Twice as near: four times the weight.
        assert!((blend_weight(0.5, 0.02) / blend_weight(0.5, 0.01) - 4.0).abs() < 1e-5);
        assert!((weighted.x / weighted.z - 4.0).abs() < 1e-4, "{weighted}");
        // Coverage is exact: 1 - (1 - 0.5)^2 of the two.
        assert!((weighted.x + weighted.z - 0.75).abs() < 1e-6);
        // Over, exactly: 0.5 of red, 0.25 of blue.
        let exact = ordered_blend(&[far, near], Vec3::ZERO);
        assert!(exact.abs_diff_eq(Vec3::new(0.5, 0.0, 0.25), 1e-6));
    }

    #[test]
    fn weights_stay_inside_half_float_sums() {
        assert_eq!(blend_weight(1.0, 1.0), BLEND_WEIGHT_MAX);
        assert_eq!(blend_weight(1.0, 1e-6), BLEND_WEIGHT_MIN);
        assert_eq!(blend_weight(0.0, 0.5), 0.0);
    }
}
