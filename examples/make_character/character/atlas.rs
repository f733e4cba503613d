//! Where each body part's texture lives. The body texture is an atlas with
//! one rectangle per part; the head texture holds the head and the nose.

use glam::DVec2;

use super::skeleton::Side;
use super::tube::UvRect;

pub const SIZE: u32 = 256;
pub const BODY_SHADER: &str = "textures/crowdling_body";
pub const HEAD_SHADER: &str = "textures/crowdling_head";

/// Texels kept free around every rectangle so bilinear filtering at a seam
/// never reads a neighbouring part.
const INSET: f64 = 2.0;

/// A rectangle of the atlas in texels: `[left, top, right, bottom]`.
pub type Texels = [u32; 4];

pub const TORSO_TEXELS: Texels = [0, 0, 128, 128];
pub const NECK_TEXELS: Texels = [128, 192, 256, 256];
pub const HEAD_TEXELS: Texels = [0, 0, 256, 224];
pub const NOSE_TEXELS: Texels = [0, 224, 256, 256];

pub fn leg_texels(side: Side) -> Texels {
    pick(side, [128, 0, 192, 128], [192, 0, 256, 128])
}

pub fn arm_texels(side: Side) -> Texels {
    pick(side, [0, 128, 64, 192], [64, 128, 128, 192])
}

pub fn shoe_texels(side: Side) -> Texels {
    pick(side, [128, 128, 192, 192], [192, 128, 256, 192])
}

pub fn hand_texels(side: Side) -> Texels {
    pick(side, [0, 192, 64, 256], [64, 192, 128, 256])
}

fn pick(side: Side, left: Texels, right: Texels) -> Texels {
    match side {
        Side::Left => left,
        Side::Right => right,
    }
}

pub fn uv([left, top, right, bottom]: Texels) -> UvRect {
    let texel = |t: u32, inset: f64| (f64::from(t) + inset) / f64::from(SIZE);
    UvRect {
        min: DVec2::new(texel(left, INSET), texel(top, INSET)),
        max: DVec2::new(texel(right, -INSET), texel(bottom, -INSET)),
    }
}
