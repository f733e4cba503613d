//! Frustum culling, CPU reference of `cull.comp`: an instance is kept when its
//! bounding sphere is not entirely outside any of the six frustum planes.
//! Conservative by construction: it can keep an invisible instance near a
//! frustum corner, never drop a visible one.

use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};

use crate::anim::Clip;
use crate::bounds::Bounds;

use super::Instance;

/// Six planes `(normal, distance)` with normals pointing into the frustum,
/// extracted from a view-projection matrix with Vulkan's 0..1 depth range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    pub planes: [Vec4; 6],
}

impl Frustum {
    pub fn from_view_projection(m: Mat4) -> Frustum {
        let row = |i| m.row(i);
        let planes = [
            row(3) + row(0), // -w <= x
            row(3) - row(0), // x <= w
            row(3) + row(1), // -w <= y
            row(3) - row(1), // y <= w
            row(2),          // 0 <= z (the far plane with reverse Z)
            row(3) - row(2), // z <= w (the near plane with reverse Z)
        ];
        Frustum {
            planes: planes.map(|p| {
                let length = p.xyz().length();
                // An infinite projection's far plane has no normal: nothing is
                // beyond it, so it becomes a plane everything is inside of.
                if length > 1e-12 {
                    p / length
                } else {
                    Vec4::W
                }
            }),
        }
    }

    pub fn intersects_sphere(&self, sphere: BoundingSphere) -> bool {
        self.planes
            .iter()
            .all(|p| p.xyz().dot(sphere.centre) + p.w >= -sphere.radius)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundingSphere {
    pub centre: Vec3,
    pub radius: f32,
}

impl BoundingSphere {
    /// The sphere around a box: a yaw-invariant bound, so instances can rotate
    /// their clip's bounds without recomputing a box.
    pub fn around(bounds: Bounds) -> BoundingSphere {
        BoundingSphere {
            centre: (bounds.min + bounds.max) * 0.5,
            radius: (bounds.max - bounds.min).length() * 0.5,
        }
    }

    /// The smallest sphere holding both, for instances mid-crossfade.
    pub fn union(self, other: BoundingSphere) -> BoundingSphere {
        let offset = other.centre - self.centre;
        let distance = offset.length();
        if distance + other.radius <= self.radius {
            return self;
        }
        if distance + self.radius <= other.radius {
            return other;
        }
        let radius = (distance + self.radius + other.radius) * 0.5;
        BoundingSphere {
            centre: self.centre + offset * ((radius - self.radius) / distance),
            radius,
        }
    }
}

/// Per clip, the sphere around the union of its per-frame bounds (md5anim
/// `bounds`): animated limbs stay inside it, unlike the bind pose's box.
pub fn clip_spheres(clips: &[Clip]) -> Vec<BoundingSphere> {
    clips
        .iter()
        .map(|c| BoundingSphere::around(c.bounds_union()))
        .collect()
}

/// An instance's sphere in the world: its clip's (and, while fading, the
/// previous clip's) sphere turned by its yaw and moved to its position.
pub fn instance_sphere(
    instance: &Instance,
    clip_spheres: &[BoundingSphere],
    fallback: BoundingSphere,
) -> BoundingSphere {
    let sphere_of = |clip: u32| clip_spheres.get(clip as usize).copied().unwrap_or(fallback);
    let mut local = sphere_of(instance.clip);
    if instance.previous_clip != instance.clip {
        local = local.union(sphere_of(instance.previous_clip));
    }
    let (sin, cos) = instance.yaw.sin_cos();
    let c = local.centre;
    BoundingSphere {
        centre: instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z),
        radius: local.radius,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frustum() -> Frustum {
        let view = Mat4::look_at_rh(Vec3::new(-10.0, 0.0, 0.0), Vec3::ZERO, Vec3::Z);
        let mut projection = Mat4::perspective_rh(60f32.to_radians(), 1.0, 0.1, 100.0);
        projection.y_axis.y *= -1.0;
        Frustum::from_view_projection(projection * view)
    }

    #[test]
    fn infinite_reverse_z_has_no_far_plane() {
        let view = Mat4::look_at_rh(Vec3::new(-10.0, 0.0, 0.0), Vec3::ZERO, Vec3::Z);
        let projection = Mat4::perspective_infinite_reverse_rh(60f32.to_radians(), 1.0, 0.1);
        let f = Frustum::from_view_projection(projection * view);
        assert!(f.planes.iter().all(|p| p.is_finite()));
        let at = |x: f32| BoundingSphere {
            centre: Vec3::new(x, 0.0, 0.0),
            radius: 1.0,
        };
        assert!(
            f.intersects_sphere(at(1.0e6)),
            "infinitely far is still visible"
        );
        assert!(!f.intersects_sphere(at(-20.0)), "behind the camera");
        let tiny = BoundingSphere {
            centre: Vec3::new(-9.95, 0.0, 0.0),
            radius: 0.01,
        };
        assert!(!f.intersects_sphere(tiny), "closer than the near plane");
    }

    #[test]
    fn spheres_inside_crossing_and_outside() {
        let f = frustum();
        let at = |x, y, z, r| BoundingSphere {
            centre: Vec3::new(x, y, z),
            radius: r,
        };
        assert!(f.intersects_sphere(at(0.0, 0.0, 0.0, 1.0)), "in front");
        assert!(
            !f.intersects_sphere(at(-20.0, 0.0, 0.0, 1.0)),
            "behind the camera"
        );
        assert!(
            !f.intersects_sphere(at(0.0, 30.0, 0.0, 1.0)),
            "far to the side"
        );
        assert!(
            f.intersects_sphere(at(0.0, 30.0, 0.0, 25.0)),
            "big enough to reach in"
        );
        assert!(
            !f.intersects_sphere(at(200.0, 0.0, 0.0, 1.0)),
            "beyond the far plane"
        );
        assert!(!f.intersects_sphere(at(0.0, 0.0, 40.0, 1.0)), "above");
    }

    #[test]
    fn union_holds_both() {
        let a = BoundingSphere {
            centre: Vec3::ZERO,
            radius: 1.0,
        };
        let b = BoundingSphere {
            centre: Vec3::new(4.0, 0.0, 0.0),
            radius: 2.0,
        };
        let u = a.union(b);
        assert!((u.radius - 3.5).abs() < 1e-6);
        assert!(u.centre.abs_diff_eq(Vec3::new(2.5, 0.0, 0.0), 1e-6));
        assert_eq!(
            a.union(BoundingSphere {
                centre: Vec3::X * 0.1,
                radius: 0.5
            }),
            a
        );
    }
}
