//! An axis-aligned box, shared by the file format (md5anim stores one per
//! frame), the runtime clips and culling; it belongs to none of them.

use glam::Vec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: Vec3,
    pub max: Vec3,
}

impl Bounds {
    /// Holds nothing: the starting point for growing a box by `union`.
    pub const EMPTY: Bounds = Bounds {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// Holds no point ([`Bounds::EMPTY`], or a min past its max).
    pub fn is_empty(self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    pub fn point(p: Vec3) -> Bounds {
        Bounds { min: p, max: p }
    }

    pub fn union(self, other: Bounds) -> Bounds {
        Bounds {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Larger by `margin` on every side ([`Bounds::EMPTY`] stays empty).
    pub fn grown(self, margin: f32) -> Bounds {
        Bounds {
            min: self.min - Vec3::splat(margin),
            max: self.max + Vec3::splat(margin),
        }
    }
}
