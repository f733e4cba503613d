//! Occlusion culling, CPU reference of the depth pyramid (`pyramid.comp`)
//! and of cull.comp's occlusion test.
//!
//! The pyramid holds, per texel, the farthest depth (reverse Z: the
//! smallest value) of the pixels under it. Level 0 is half the image,
//! rounded up, and each next level half the one below, rounded up, down to
//! 1x1; texels past an odd edge are absent rather than stretched, so texel
//! (x, y) of level L covers exactly the pixels `[x, x + 1) * 2^(L+1)` by
//! `[y, y + 1) * 2^(L+1)` clipped to the image, whatever the image size.
//!
//! An instance is occluded when, for every one of its boxes (per body part,
//! the part's boxes of the frames it is between, placed and turned:
//! [`super::instance_bounds`], [`super::instance_box`]), even the box's
//! nearest corner is farther than the farthest depth drawn anywhere in the
//! screen rectangle the box can cover. Conservative by construction: a box lies within the rectangle
//! its corners project to, and behind its nearest corner's depth; a box
//! reaching the near plane is never occluded.

use glam::{Mat4, Vec2, Vec3};

use super::CullView;

pub use crate::shared_constants::{MAX_PYRAMID_LEVELS, OCCLUSION_TEXELS_LOG2};

/// One level of the pyramid inside its buffer (`pyramid_levels` in
/// pyramid.glsl).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PyramidLevel {
    pub width: u32,
    pub height: u32,
    /// Index of its first texel among all levels' texels.
    pub offset: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DepthPyramid {
    pub levels: Vec<PyramidLevel>,
    /// Every level's texels, row by row, level 0 first.
    pub texels: Vec<f32>,
}

/// The levels of the pyramid of a `width` x `height` image: what the GPU
/// buffer is sized and laid out by.
pub fn pyramid_levels(width: u32, height: u32) -> Vec<PyramidLevel> {
    let mut levels = Vec::new();
    let (mut w, mut h, mut offset) = (width.max(1), height.max(1), 0);
    while levels.len() < MAX_PYRAMID_LEVELS {
        w = w.div_ceil(2);
        h = h.div_ceil(2);
        levels.push(PyramidLevel {
            width: w,
            height: h,
            offset,
        });
        offset += w * h;
        if w == 1 && h == 1 {
            break;
        }
    }
    levels
}

impl DepthPyramid {
    /// Reduces a `width` x `height` depth image (row by row) as pyramid.comp does.
    pub fn build(depth: &[f32], width: u32, height: u32) -> DepthPyramid {
        assert_eq!(
            depth.len(),
            (width * height) as usize,
            "one depth per pixel"
        );
        let levels = pyramid_levels(width, height);
        let total = levels.last().map_or(0, |l| l.offset + l.width * l.height);
        let mut texels = vec![1.0f32; total as usize];
        let (mut below, mut below_w, mut below_h) = (depth.to_vec(), width, height);
        for level in &levels {
            for y in 0..level.height {
                for x in 0..level.width {
                    let mut farthest = 1.0f32;
                    for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (bx, by) = (2 * x + cx, 2 * y + cy);
                        if bx < below_w && by < below_h {
                            farthest = farthest.min(below[(by * below_w + bx) as usize]);
                        }
                    }
                    texels[(level.offset + y * level.width + x) as usize] = farthest;
                }
            }
            let start = level.offset as usize;
            below = texels[start..start + (level.width * level.height) as usize].to_vec();
            (below_w, below_h) = (level.width, level.height);
        }
        DepthPyramid { levels, texels }
    }

    fn texel(&self, level: usize, x: u32, y: u32) -> f32 {
        let l = self.levels[level];
        self.texels[(l.offset + y * l.width + x) as usize]
    }

    /// Whether cull.comp's late phase hides an instance whose box has the
    /// world-space `corners` from `view`, an infinite reverse-Z perspective
    /// (the camera: the only view with a depth pyramid).
    pub fn is_occluded(&self, view: &CullView, corners: &[Vec3; 8]) -> bool {
        self.occlusion_margin(view, corners)
            .is_some_and(|margin| margin > 0.0)
    }

    /// How far, in depth, the box's nearest corner lies behind the farthest
    /// depth drawn over it (positive: occluded); `None` for a box reaching
    /// the near plane. Tests use it to skip the GPU's close calls.
    pub fn occlusion_margin(&self, view: &CullView, corners: &[Vec3; 8]) -> Option<f32> {
        let near = view.lod.near;
        match screen_rect(view.view_projection, corners, near) {
            None => None,
            Some((low, high, nearest_w)) => {
                let size = view.viewport;
                let (low, high) = (
                    ((low * 0.5 + 0.5) * size).max(Vec2::ZERO),
                    ((high * 0.5 + 0.5) * size).min(size),
                );
                // Its sphere met the frustum, but the box is off screen.
                if high.x <= low.x || high.y <= low.y {
                    return Some(f32::INFINITY);
                }
                let extent = (high - low).max_element().max(1.0);
                let level = (extent.log2().ceil() as i32 - OCCLUSION_TEXELS_LOG2)
                    .clamp(0, self.levels.len() as i32 - 1) as usize;
                let shift = level as u32 + 1;
                let l = self.levels[level];
                let texel = |p: f32, last: u32| ((p.max(0.0) as u32) >> shift).min(last - 1);
                let (x0, x1) = (texel(low.x, l.width), texel(high.x, l.width));
                let (y0, y1) = (texel(low.y, l.height), texel(high.y, l.height));
                let mut farthest = 1.0f32;
                for y in y0..=y1 {
                    for x in x0..=x1 {
                        farthest = farthest.min(self.texel(level, x, y));
                    }
                }
                // The depth of the box's nearest corner: near / w.
                Some(farthest - near / nearest_w)
            }
        }
    }
}

/// The normalised-device rectangle holding the projection of a box with
/// these `corners`, and its nearest corner's clip w; `None` when a corner
/// reaches the near plane (the instance is then never occluded).
pub fn screen_rect(
    view_projection: Mat4,
    corners: &[Vec3; 8],
    near: f32,
) -> Option<(Vec2, Vec2, f32)> {
    let (mut low, mut high) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    let mut nearest_w = f32::MAX;
    for corner in corners {
        let clip = view_projection * corner.extend(1.0);
        if clip.w <= near {
            return None;
        }
        let ndc = Vec2::new(clip.x, clip.y) / clip.w;
        low = low.min(ndc);
        high = high.max(ndc);
        nearest_w = nearest_w.min(clip.w);
    }
    Some((low, high, nearest_w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4;

    #[test]
    fn odd_sizes_cover_every_pixel_once() {
        for (width, height) in [(1, 1), (7, 3), (640, 360), (1280, 721), (33, 1)] {
            let levels = pyramid_levels(width, height);
            let last = levels.last().unwrap();
            assert_eq!((last.width, last.height), (1, 1), "{width}x{height}");
            for (level, l) in levels.iter().enumerate() {
                let texel_size = 1u32 << (level + 1);
                // The texels reach past the image by less than one texel.
                assert!(l.width * texel_size >= width && (l.width - 1) * texel_size < width);
                assert!(l.height * texel_size >= height && (l.height - 1) * texel_size < height);
            }
        }
    }

    #[test]
    fn each_texel_is_the_farthest_depth_beneath_it() {
        let (width, height) = (13u32, 7u32);
        let depth: Vec<f32> = (0..width * height)
            .map(|i| ((i * 7919) % 101) as f32 / 100.0)
            .collect();
        let pyramid = DepthPyramid::build(&depth, width, height);
        for (level, l) in pyramid.levels.iter().enumerate() {
            let size = 1u32 << (level + 1);
            for y in 0..l.height {
                for x in 0..l.width {
                    let expected = (y * size..((y + 1) * size).min(height))
                        .flat_map(|py| {
                            (x * size..((x + 1) * size).min(width)).map(move |px| (px, py))
                        })
                        .map(|(px, py)| depth[(py * width + px) as usize])
                        .fold(1.0f32, f32::min);
                    assert_eq!(
                        pyramid.texel(level, x, y),
                        expected,
                        "level {level} ({x}, {y})"
                    );
                }
            }
        }
    }

    /// From (-100, 0, 0) towards the origin, 64x64 pixels, its near plane
    /// at 1.
    fn camera() -> CullView {
        let view = Mat4::look_at_rh(Vec3::new(-100.0, 0.0, 0.0), Vec3::ZERO, Vec3::Z);
        let mut projection = Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 1.0);
        projection.y_axis.y = -projection.y_axis.y;
        let vp = projection * view;
        CullView::new(vp, vp.inverse() * Vec4::Z, (64, 64), None)
    }

    /// The corners of a cube of half-size `half` around `centre`.
    fn cube(centre: Vec3, half: f32) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            let sign = |bit: usize| if i & bit != 0 { 1.0 } else { -1.0 };
            centre + half * Vec3::new(sign(1), sign(2), sign(4))
        })
    }

    #[test]
    fn a_box_behind_a_wall_is_occluded_and_one_in_front_is_not() {
        // A wall filling the view at distance 50 (depth 1 / 50).
        let (width, height) = (64, 64);
        let pyramid = DepthPyramid::build(&vec![1.0 / 50.0; 64 * 64], width, height);
        let at = |x: f32| cube(Vec3::new(x, 0.0, 0.0), 5.0);
        let view = camera();
        assert!(pyramid.is_occluded(&view, &at(0.0)), "100 away, behind");
        assert!(!pyramid.is_occluded(&view, &at(-70.0)), "30 away, in front");
        // Straddling the wall: its near side is in front, so it is drawn.
        assert!(!pyramid.is_occluded(&view, &at(-52.0)));
        // Around the eye: never occluded.
        let around = cube(Vec3::new(-100.0, 0.0, 0.0), 2.0);
        assert!(!pyramid.is_occluded(&view, &around));
    }

    #[test]
    fn a_hole_in_the_wall_shows_what_is_behind_it() {
        let (width, height) = (64u32, 64u32);
        let mut depth = vec![1.0 / 50.0; 64 * 64];
        // Nothing drawn (depth 0, the far plane) in one 2x2-pixel hole
        // near the centre, where the sphere behind projects.
        for (x, y) in [(31, 31), (32, 31), (31, 32), (32, 32)] {
            depth[y * 64 + x] = 0.0;
        }
        let pyramid = DepthPyramid::build(&depth, width, height);
        let behind = cube(Vec3::ZERO, 5.0);
        assert!(!pyramid.is_occluded(&camera(), &behind));
    }
}
