//! Closed tubes: elliptical rings swept along a path and capped with a pole at
//! each end. Every body part is one such shell, so each is closed and wound
//! the same way by construction (checked again in `checks`).

use std::f64::consts::TAU;

use glam::{DVec2, DVec3};

/// A rectangle of texture space, `min` at the top-left (md5 uv (0, 0) is the
/// image's first texel).
#[derive(Clone, Copy)]
pub struct UvRect {
    pub min: DVec2,
    pub max: DVec2,
}

impl UvRect {
    fn at(&self, unit: DVec2) -> DVec2 {
        self.min + (self.max - self.min) * unit
    }
}

/// One ring: an ellipse around `center` in the plane perpendicular to `axis`.
pub struct Ring {
    pub center: DVec3,
    /// Unit direction of travel along the tube.
    pub axis: DVec3,
    /// Unit direction, perpendicular to `axis`, where the texture's u = 0.5
    /// lands: the part's "front". The seam (u = 0 and 1) is opposite.
    pub front: DVec3,
    /// Half-extent along `front`, and along `axis x front`.
    pub radii: DVec2,
    /// Path parameter of the ring, the same units as `Tube::start`/`end`.
    pub along: f64,
}

pub struct Tube {
    pub start: Pole,
    pub rings: Vec<Ring>,
    pub end: Pole,
    /// Around-the-tube vertex count per ring (plus one seam duplicate).
    pub segments: usize,
    /// Superellipse exponent of the rings: 2 is an ellipse, larger is boxier.
    pub roundness: f64,
    pub uv: UvRect,
}

pub struct Pole {
    pub position: DVec3,
    pub along: f64,
}

pub struct ShellVertex {
    pub position: DVec3,
    pub uv: DVec2,
    /// Where along its tube's path the vertex was made; skinning weights are
    /// functions of it.
    pub along: f64,
}

pub struct Shell {
    pub vertices: Vec<ShellVertex>,
    /// Clockwise seen from outside, as Doom 3 winds them.
    pub triangles: Vec<[u32; 3]>,
}

impl Tube {
    /// Texture u runs around the tube and v along it (v = 0 at `start`), laid
    /// out so that the texture reads unmirrored from outside: u increases to
    /// the right and v downwards when the tube's axis points down the screen.
    pub fn build(&self) -> Shell {
        let span = self.end.along - self.start.along;
        let v_at = |along: f64| (along - self.start.along) / span;
        let columns = self.segments + 1;
        let mut vertices = vec![ShellVertex {
            position: self.start.position,
            uv: self.uv.at(DVec2::new(0.5, 0.0)),
            along: self.start.along,
        }];
        for ring in &self.rings {
            let front = (ring.front - ring.axis * ring.front.dot(ring.axis)).normalize();
            let side = ring.axis.cross(front);
            let ring_positions: Vec<DVec3> = (0..self.segments)
                .map(|k| {
                    let (sin, cos) = (TAU * k as f64 / self.segments as f64).sin_cos();
                    ring.center
                        + front * (superellipse(-cos, self.roundness) * ring.radii.x)
                        + side * (superellipse(sin, self.roundness) * ring.radii.y)
                })
                .collect();
            // The seam column repeats the first position bit for bit, so the
            // shell stays closed when vertices are welded by position.
            for k in 0..columns {
                let u = k as f64 / self.segments as f64;
                vertices.push(ShellVertex {
                    position: ring_positions[k % self.segments],
                    uv: self.uv.at(DVec2::new(u, v_at(ring.along))),
                    along: ring.along,
                });
            }
        }
        let end_pole = vertices.len() as u32;
        vertices.push(ShellVertex {
            position: self.end.position,
            uv: self.uv.at(DVec2::new(0.5, 1.0)),
            along: self.end.along,
        });

        let ring_vertex = |ring: usize, column: usize| (1 + ring * columns + column) as u32;
        let last_ring = self.rings.len() - 1;
        let mut triangles = Vec::new();
        for k in 0..self.segments {
            triangles.push([0, ring_vertex(0, k + 1), ring_vertex(0, k)]);
        }
        for ring in 0..last_ring {
            for k in 0..self.segments {
                let top_left = ring_vertex(ring, k);
                let top_right = ring_vertex(ring, k + 1);
                let bottom_left = ring_vertex(ring + 1, k);
                let bottom_right = ring_vertex(ring + 1, k + 1);
                triangles.push([top_left, top_right, bottom_right]);
                triangles.push([top_left, bottom_right, bottom_left]);
            }
        }
        for k in 0..self.segments {
            triangles.push([
                ring_vertex(last_ring, k),
                ring_vertex(last_ring, k + 1),
                end_pole,
            ]);
        }
        Shell {
            vertices,
            triangles,
        }
    }
}

/// Maps a unit-circle coordinate onto a superellipse of exponent `roundness`.
fn superellipse(coordinate: f64, roundness: f64) -> f64 {
    coordinate.signum() * coordinate.abs().powf(2.0 / roundness)
}
