//! Scalar shaping functions shared by the shapes, the clips and the textures.

use std::f64::consts::TAU;

pub fn smoothstep(edge0: f64, edge1: f64, x: f64) -> f64 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A smooth periodic bump at `center` (radians), 1 there and near 0 half a
/// cycle away; `sharpness` narrows it (a von Mises window).
pub fn bump(angle: f64, center: f64, sharpness: f64) -> f64 {
    (sharpness * ((angle - center).cos() - 1.0)).exp()
}

/// Phase in [0, 1) to an angle.
pub fn angle(phase: f64) -> f64 {
    TAU * phase
}

/// Catmull-Rom interpolation between `p1` (t = 0) and `p2` (t = 1), every
/// component on its own.
pub fn catmull_rom<const N: usize>(
    p0: [f64; N],
    p1: [f64; N],
    p2: [f64; N],
    p3: [f64; N],
    t: f64,
) -> [f64; N] {
    let (t2, t3) = (t * t, t * t * t);
    std::array::from_fn(|c| {
        0.5 * (2.0 * p1[c]
            + (p2[c] - p0[c]) * t
            + (2.0 * p0[c] - 5.0 * p1[c] + 4.0 * p2[c] - p3[c]) * t2
            + (3.0 * p1[c] - p0[c] - 3.0 * p2[c] + p3[c]) * t3)
    })
}
