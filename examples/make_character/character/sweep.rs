//! Tubes described the way a modeller thinks of limbs: a path through the
//! joints and a table of cross-sections along it.

use glam::{DVec2, DVec3};

use super::curves::{catmull_rom, smoothstep};
use super::tube::{Pole, Ring, Shell, Tube, UvRect};

/// Knot rows are `[along, front radius, side radius, lift]`: the ring at
/// `along` is an ellipse with those half-extents, its center shifted by `lift`
/// towards the part's front. The first and last rows are the poles; rings are
/// interpolated between the others with Catmull-Rom splines.
pub type Knots = [[f64; 4]];

/// A tube whose rings follow a path, shaped by a knot table.
pub struct Sweep<'a> {
    pub path: Path,
    /// Where the part faces (texture u = 0.5); the seam is opposite.
    pub front: DVec3,
    pub knots: &'a Knots,
    /// Rings per knot interval.
    pub subdivisions: usize,
    pub segments: usize,
    pub roundness: f64,
    pub uv: UvRect,
}

/// `Sweep::roundness` of an elliptic cross-section.
pub const ELLIPTIC: f64 = 2.0;

impl Sweep<'_> {
    pub fn build(&self) -> Shell {
        let knots = self.knots;
        let last = knots.len() - 1;
        let row = |k: usize| knots[k.min(last)];
        let mut rings = Vec::new();
        for i in 1..last {
            let steps = if i + 1 == last { 1 } else { self.subdivisions };
            for step in 0..steps {
                let t = step as f64 / self.subdivisions as f64;
                let [along, front_radius, side_radius, lift] =
                    catmull_rom(row(i - 1), row(i), row(i + 1), row(i + 2), t);
                let (center, axis, front) = self.frame(along, lift);
                rings.push(Ring {
                    center,
                    axis,
                    front,
                    radii: DVec2::new(front_radius, side_radius),
                    along,
                });
            }
        }
        let pole = |[along, _, _, lift]: [f64; 4]| Pole {
            position: self.frame(along, lift).0,
            along,
        };
        Tube {
            start: pole(knots[0]),
            rings,
            end: pole(knots[last]),
            segments: self.segments,
            roundness: self.roundness,
            uv: self.uv,
        }
        .build()
    }

    /// Center, axis and front of the cross-section at `along`.
    fn frame(&self, along: f64, lift: f64) -> (DVec3, DVec3, DVec3) {
        let axis = self.path.direction(along);
        let front = (self.front - axis * self.front.dot(axis)).normalize();
        (self.path.point(along) + front * lift, axis, front)
    }
}

/// A polyline walked by arc length, continued straight past both ends.
pub struct Path {
    points: Vec<DVec3>,
}

impl Path {
    /// How far ring directions blend around an interior point, so that the
    /// rings of a bent limb do not cut through each other at the joint.
    const BEND: f64 = 1.5;

    pub fn new(points: Vec<DVec3>) -> Path {
        assert!(points.len() >= 2, "a path needs two points");
        Path { points }
    }

    /// Arc length from the first point to point `index`.
    pub fn joint_along(&self, index: usize) -> f64 {
        (0..index).map(|i| self.segment(i).1).sum()
    }

    fn segment(&self, i: usize) -> (DVec3, f64) {
        let delta = self.points[i + 1] - self.points[i];
        (delta.normalize(), delta.length())
    }

    fn point(&self, along: f64) -> DVec3 {
        let last = self.points.len() - 2;
        let mut start = 0.0;
        for i in 0..last {
            let (direction, length) = self.segment(i);
            if along < start + length {
                return self.points[i] + direction * (along - start);
            }
            start += length;
        }
        self.points[last] + self.segment(last).0 * (along - start)
    }

    fn direction(&self, along: f64) -> DVec3 {
        let mut direction = self.segment(0).0;
        for i in 1..self.points.len() - 1 {
            let blend = smoothstep(-Self::BEND, Self::BEND, along - self.joint_along(i));
            direction = direction.lerp(self.segment(i).0, blend);
        }
        direction.normalize()
    }
}
