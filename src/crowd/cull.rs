//! Frustum culling and level-of-detail choice, CPU reference of `cull.comp`:
//! an instance is kept when its bounding sphere is not entirely outside any
//! of the six frustum planes (conservative by construction: it can keep an
//! invisible instance near a frustum corner, never drop a visible one), and
//! drawn at the coarsest level whose error projects to at most a threshold
//! of pixels at the sphere's nearest point.

use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};

use crate::anim::{frame_position, Clip};
use crate::bounds::Bounds;
use crate::skin::ClipPartBounds;

use super::anim_lod::{shared_pose_index, SHARED_POSE_RATE};
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

/// The projected error, in pixels, a level of detail may show at
/// `--lod-bias 1`. Level errors are measured distances to LOD 0
/// (`skin::ReferenceSurface`), and a silhouette that moves by a fraction of a
/// pixel already changes the pixels along it: on the shipped character's
/// 256-instance overview (1280x720), LOD on against off, 0.50% of the pixels
/// differ by more than 10% at half a pixel, 0.86% at three quarters and
/// 1.30% at one (the limit is 1%).
pub const LOD_PIXEL_ERROR: f32 = 0.5;

/// What turns a level's error into pixels: `CullView::lod_params` in cull.comp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodParams {
    /// Pixels one model unit covers at clip w = 1: `P[1][1] * height / 2`.
    /// An orthographic view has w = 1 everywhere.
    pub pixels_per_unit: f32,
    /// The projected error a level may have, in pixels; 0 keeps level 0.
    pub threshold: f32,
    /// The near plane's distance (clip w at depth 1); 0 for an
    /// orthographic view, which has none in w.
    pub near: f32,
}

impl LodParams {
    /// For `view_projection`, drawn `height` pixels high: an infinite
    /// reverse-Z perspective as the camera builds it (row 1 is `P[1][1]`
    /// times the view's unit up row, row 2 is (0, 0, 0, near)), or an
    /// orthographic projection (row 1 is the pixels' unit up row scaled to
    /// clip space). `bias` scales `LOD_PIXEL_ERROR`; `None` turns level of
    /// detail off.
    pub fn new(view_projection: Mat4, height: u32, bias: Option<f32>) -> LodParams {
        let near = match Projection::of(view_projection) {
            Projection::Perspective => view_projection.row(2).w,
            Projection::Orthographic => 0.0,
        };
        LodParams {
            pixels_per_unit: view_projection.row(1).xyz().length() * height as f32 / 2.0,
            threshold: bias.map_or(0.0, |bias| bias.max(0.0) * LOD_PIXEL_ERROR),
            near,
        }
    }

    pub fn to_vec4(self) -> Vec4 {
        Vec4::new(self.pixels_per_unit, self.threshold, self.near, 0.0)
    }
}

/// How a view maps depth to size: a perspective divides by the distance
/// in front of the eye (clip w), an orthographic view (a sun's shadow
/// cascade) does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Projection {
    Perspective,
    Orthographic,
}

impl Projection {
    /// An orthographic projection's w row is (0, 0, 0, 1): clip w is 1
    /// wherever the point is.
    pub fn of(view_projection: Mat4) -> Projection {
        match view_projection.row(3) == Vec4::W {
            true => Projection::Orthographic,
            false => Projection::Perspective,
        }
    }
}

/// What one cull dispatch judges instances by, the CPU twin of
/// cull.comp's `CullView` (niagara's `CullData`): the frustum it keeps
/// what meets, how it turns errors into pixels and where impostors are
/// seen from. The camera is one view; a shadow cascade would be another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullView {
    pub view_projection: Mat4,
    pub projection: Projection,
    pub frustum: Frustum,
    pub lod: LodParams,
    /// Homogeneous: the eye (w 1), or the direction towards the viewer of
    /// an orthographic view (w 0); impostors show the atlas view nearest
    /// the direction to it.
    pub eye: Vec4,
    /// Pixels: where the occlusion test's screen rectangles land.
    pub viewport: Vec2,
}

impl CullView {
    /// The view through `view_projection`, drawn `width` x `height`, with
    /// its impostors seen from `eye` and level of detail at `lod_bias`
    /// (`None`: off).
    pub fn new(
        view_projection: Mat4,
        eye: Vec4,
        (width, height): (u32, u32),
        lod_bias: Option<f32>,
    ) -> CullView {
        CullView {
            view_projection,
            projection: Projection::of(view_projection),
            frustum: Frustum::from_view_projection(view_projection),
            lod: LodParams::new(view_projection, height, lod_bias),
            eye,
            viewport: Vec2::new(width as f32, height as f32),
        }
    }

    /// Clip w of a world-space point: its distance in front of a
    /// perspective's eye, 1 in an orthographic view.
    pub fn clip_w(&self, point: Vec3) -> f32 {
        self.view_projection.row(3).dot(point.extend(1.0))
    }

    /// What a level's error is divided by to be seen at `sphere`'s nearest
    /// point: its clip w; `None` when it reaches a perspective's near plane.
    pub fn nearest(&self, sphere: BoundingSphere) -> Option<f32> {
        match self.projection {
            Projection::Orthographic => Some(1.0),
            Projection::Perspective => {
                let nearest = self.clip_w(sphere.centre) - sphere.radius;
                (nearest > self.lod.near).then_some(nearest)
            }
        }
    }

    /// The direction from `point` towards the viewer, not normalised.
    pub fn to_eye(&self, point: Vec3) -> Vec3 {
        self.eye.xyz() - point * self.eye.w
    }
}

/// The level cull.comp draws an instance whose sphere is `sphere` at:
/// the coarsest whose error (`errors[l]`, model units, level 0's 0) seen at
/// the sphere's nearest point projects to at most the view's threshold of
/// pixels. A sphere reaching the near plane gets level 0.
pub fn select_lod(view: &CullView, sphere: BoundingSphere, errors: &[f32]) -> u32 {
    let Some(nearest) = view.nearest(sphere) else {
        return 0;
    };
    let params = view.lod;
    let mut lod = 0;
    for (level, error) in errors.iter().enumerate().skip(1) {
        if error * params.pixels_per_unit > params.threshold * nearest {
            break;
        }
        lod = level as u32;
    }
    lod
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

/// Per clip, the sphere around the union of its per-frame bounds (the
/// md5anim's grown to the skinned poses'): animated limbs stay inside it,
/// unlike the bind pose's box.
pub fn clip_spheres(clips: &[Clip]) -> Vec<BoundingSphere> {
    clips
        .iter()
        .map(|c| BoundingSphere::around(c.bounds_union()))
        .collect()
}

/// The clips whose poses an instance can show: its clip and, once it has
/// switched, the fade's starting clips (whether or not the fade is over, so
/// the bound needs no clock).
fn contributing_clips(instance: &Instance) -> impl Iterator<Item = u32> {
    let fading = instance.previous_clip != instance.clip;
    [instance.clip].into_iter().chain(
        fading
            .then_some([instance.previous_clip, instance.older_clip])
            .into_iter()
            .flatten(),
    )
}

/// An instance's sphere in the world: the union of its contributing clips'
/// spheres (clip, then previous and older once it has switched), or when
/// it plays layers the sphere of `layered_radius` round its origin
/// ([`crate::skin::layered_radius`]), turned by its yaw and moved to its
/// position.
pub fn instance_sphere(
    instance: &Instance,
    clip_spheres: &[BoundingSphere],
    fallback: BoundingSphere,
    layered_radius: f32,
) -> BoundingSphere {
    let sphere_of = |clip: u32| clip_spheres.get(clip as usize).copied().unwrap_or(fallback);
    let local = match instance.plays_layers() {
        true => BoundingSphere {
            centre: Vec3::ZERO,
            radius: layered_radius,
        },
        false => contributing_clips(instance)
            .map(sphere_of)
            .reduce(BoundingSphere::union)
            .unwrap_or(fallback),
    };
    let (sin, cos) = instance.yaw.sin_cos();
    let c = local.centre;
    BoundingSphere {
        centre: instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z),
        radius: local.radius,
    }
}

/// The boxes, in model space, around what an instance can show at `time`:
/// the occlusion test's bounds, tighter than the sphere; it is hidden when
/// every one is. One settled on its clip shows a pose between two frames, at
/// its own time or (animation level of detail) the shared pose's, so per
/// body part the part boxes of those frames hold it (`part_bounds`, one
/// [`ClipPartBounds`] per clip; a clip without them is one part, its frame
/// boxes, `Clip::bounds`). One that has switched shows any blend of its
/// contributing clips (as for [`instance_sphere`]): one box, their whole
/// swings. `fallback` stands for clips past `clips` (a model without any:
/// its bind pose). One playing layers: the box round its layered radius.
pub fn instance_bounds(
    instance: &Instance,
    clips: &[Clip],
    part_bounds: &[ClipPartBounds],
    time: f32,
    (fallback, layered_radius): (Bounds, f32),
) -> Vec<Bounds> {
    if instance.plays_layers() {
        return vec![Bounds {
            min: Vec3::splat(-layered_radius),
            max: Vec3::splat(layered_radius),
        }];
    }
    let clip_box = |clip: u32| {
        clips
            .get(clip as usize)
            .map_or(fallback, Clip::bounds_union)
    };
    let Some(clip) = clips.get(instance.clip as usize) else {
        return vec![fallback];
    };
    if instance.previous_clip != instance.clip || clip.bounds.is_empty() {
        return vec![contributing_clips(instance)
            .map(clip_box)
            .fold(Bounds::EMPTY, Bounds::union)];
    }
    let parts = part_bounds.get(instance.clip as usize);
    let part_count = parts.map_or(1, |p| p.part_count.max(1));
    let frame_boxes = |clip_time: f32| {
        let (frame, _, _) = frame_position(clip, clip_time);
        let whole = clip.bounds.get(frame).copied().unwrap_or(fallback);
        (0..part_count).map(move |p| {
            parts
                .and_then(|parts| parts.frame(frame).get(p))
                .copied()
                .unwrap_or(whole)
        })
    };
    let own = instance.local_time(time);
    let shared = shared_pose_index(clip, own) as f32 / SHARED_POSE_RATE;
    frame_boxes(own)
        .zip(frame_boxes(shared))
        .map(|(a, b)| a.union(b))
        .collect()
}

/// The corners, in the world, of `local` (one of an instance's
/// [`instance_bounds`]) as the instance is placed and turned.
pub fn instance_box(instance: &Instance, local: Bounds) -> [Vec3; 8] {
    let (sin, cos) = instance.yaw.sin_cos();
    std::array::from_fn(|i| {
        let pick = |bit: usize, low: f32, high: f32| if i & bit != 0 { high } else { low };
        let c = Vec3::new(
            pick(1, local.min.x, local.max.x),
            pick(2, local.min.y, local.max.y),
            pick(4, local.min.z, local.max.z),
        );
        instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z)
    })
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

    #[test]
    fn an_instance_bound_covers_every_clip_it_can_show() {
        let at = |x: f32, radius: f32| BoundingSphere {
            centre: Vec3::new(x, 0.0, 0.0),
            radius,
        };
        let spheres = [at(0.0, 1.0), at(10.0, 1.0), at(-10.0, 2.0)];
        let boxes = spheres.map(|s| Bounds {
            min: s.centre - Vec3::splat(s.radius),
            max: s.centre + Vec3::splat(s.radius),
        });
        let mut instance = Instance::settled(0, 0.0);
        let alone = instance_sphere(&instance, &spheres, spheres[0], 0.0);
        assert_eq!(alone, spheres[0]);
        // 0, then 1 during the fade to 1: the fade to 2 starts from a blend.
        instance.switch_clip(1, true, 1.0, 1.0);
        instance.switch_clip(2, true, 1.5, 1.0);
        let sphere = instance_sphere(&instance, &spheres, spheres[0], 0.0);
        for s in spheres {
            assert!(sphere.centre.distance(s.centre) + s.radius <= sphere.radius + 1e-5);
        }
        let clips = boxes.map(|b| Clip {
            morphs: Default::default(),
            name: String::new(),
            frame_rate: 24.0,
            frames: vec![Vec::new(); 2],
            bounds: vec![b; 2],
            looping: true,
        });
        let local = instance_bounds(&instance, &clips, &[], 1.5, (boxes[0], 0.0));
        assert_eq!(local.len(), 1, "a switched instance has one box");
        let corners = instance_box(&instance, local[0]);
        let low = corners.iter().fold(Vec3::MAX, |a, &c| a.min(c));
        let high = corners.iter().fold(Vec3::MIN, |a, &c| a.max(c));
        assert!(low.abs_diff_eq(Vec3::new(-12.0, -2.0, -2.0), 1e-5), "{low}");
        assert!(high.abs_diff_eq(Vec3::new(11.0, 2.0, 2.0), 1e-5), "{high}");
    }

    #[test]
    fn a_settled_instance_is_bound_by_the_frames_it_shows() {
        let cube = |x: f32| Bounds {
            min: Vec3::new(x, 0.0, 0.0),
            max: Vec3::new(x + 1.0, 1.0, 1.0),
        };
        let clip = Clip {
            morphs: Default::default(),
            name: String::new(),
            frame_rate: 24.0,
            frames: vec![Vec::new(); 3],
            bounds: vec![cube(0.0), cube(10.0), cube(20.0)],
            looping: false,
        };
        let fallback = cube(-50.0);
        let bounds = |time: f32, parts: &[ClipPartBounds]| {
            instance_bounds(
                &Instance::settled(0, time),
                std::slice::from_ref(&clip),
                parts,
                0.0,
                (fallback, 0.0),
            )
        };
        // Between frames 1 and 2; the shared pose animation level of detail
        // would show, sampled at 1/30 s, is between frames 0 and 1.
        assert_eq!(bounds(1.5 / 24.0, &[]), [cube(0.0).union(cube(10.0))]);
        // Both in frame 1's span.
        assert_eq!(bounds(1.9 / 24.0, &[]), [cube(10.0)]);
        // Two body parts per frame: each part's boxes of both frames.
        let up = |b: Bounds| Bounds {
            min: b.min + Vec3::Z,
            max: b.max + Vec3::Z,
        };
        let parts = ClipPartBounds {
            part_count: 2,
            boxes: [0.0, 10.0, 20.0]
                .into_iter()
                .flat_map(|x| [cube(x), up(cube(x))])
                .collect(),
        };
        assert_eq!(
            bounds(1.5 / 24.0, std::slice::from_ref(&parts)),
            [
                cube(0.0).union(cube(10.0)),
                up(cube(0.0)).union(up(cube(10.0)))
            ]
        );
        // Past a clip it has no frames of: the fallback.
        let elsewhere = instance_bounds(
            &Instance::settled(3, 0.0),
            &[clip],
            &[],
            0.0,
            (fallback, 0.0),
        );
        assert_eq!(elsewhere, [fallback]);
    }

    fn camera(eye: Vec3, fov_y: f32, near: f32) -> Mat4 {
        let view = Mat4::look_at_rh(eye, Vec3::ZERO, Vec3::Z);
        let mut projection = Mat4::perspective_infinite_reverse_rh(fov_y, 16.0 / 9.0, near);
        projection.y_axis.y = -projection.y_axis.y;
        projection * view
    }

    #[test]
    fn lod_params_come_from_the_view_projection() {
        let vp = camera(Vec3::new(-300.0, 40.0, 90.0), 1.0, 2.5);
        let params = LodParams::new(vp, 720, Some(1.5));
        let focal = 1.0 / (0.5f32).tan();
        assert!(
            (params.pixels_per_unit - focal * 360.0).abs() < 1e-2,
            "{params:?}"
        );
        assert!((params.near - 2.5).abs() < 1e-6);
        assert_eq!(params.threshold, 1.5 * LOD_PIXEL_ERROR);
        assert_eq!(LodParams::new(vp, 720, None).threshold, 0.0);
    }

    /// The camera's view of `vp`, 1280x720, its eye where `vp`'s w is 0.
    fn view(vp: Mat4, bias: Option<f32>) -> CullView {
        let eye = vp.inverse() * Vec4::Z;
        CullView::new(vp, eye, (1280, 720), bias)
    }

    #[test]
    fn farther_spheres_get_coarser_levels() {
        let errors = [0.0, 0.5, 2.0, 8.0];
        let vp = camera(Vec3::new(-10.0, 0.0, 0.0), 1.0, 0.1);
        let view = view(vp, Some(1.0));
        let params = view.lod;
        let at = |x: f32| BoundingSphere {
            centre: Vec3::new(x, 0.0, 0.0),
            radius: 1.0,
        };
        let levels: Vec<u32> = [0.0, 500.0, 2000.0, 8000.0, 1e6]
            .iter()
            .map(|&x| select_lod(&view, at(x), &errors))
            .collect();
        assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
        assert_eq!(levels[0], 0);
        assert_eq!(*levels.last().unwrap(), 3);
        // Exactly where level 1's error projects to the threshold.
        let nearest = 0.5 * params.pixels_per_unit / params.threshold;
        let boundary = |offset: f32| at(-10.0 + nearest + 1.0 + offset);
        assert_eq!(select_lod(&view, boundary(-1.0), &errors), 0);
        assert_eq!(select_lod(&view, boundary(1.0), &errors), 1);
    }

    #[test]
    fn level_of_detail_off_and_the_near_plane_keep_level_0() {
        let errors = [0.0, 0.5, 2.0];
        let vp = camera(Vec3::new(-10.0, 0.0, 0.0), 1.0, 0.1);
        let far = BoundingSphere {
            centre: Vec3::new(1e5, 0.0, 0.0),
            radius: 1.0,
        };
        assert_eq!(select_lod(&view(vp, None), far, &errors), 0);
        // A huge sphere around the camera crosses the near plane.
        let around = BoundingSphere {
            centre: Vec3::new(1e4, 0.0, 0.0),
            radius: 2e4,
        };
        assert_eq!(select_lod(&view(vp, Some(1.0)), around, &errors), 0);
    }

    /// A sun's view: orthographic, 200 units across, looking down the
    /// direction `towards_sun` points away from.
    fn sun(towards_sun: Vec3) -> Mat4 {
        let view = Mat4::look_at_rh(towards_sun * 500.0, Vec3::ZERO, Vec3::Y);
        Mat4::orthographic_rh(-100.0, 100.0, -100.0, 100.0, 1000.0, 0.0) * view
    }

    #[test]
    fn an_orthographic_view_grades_by_texel_size_wherever_the_sphere_is() {
        let vp = sun(Vec3::new(0.3, -0.2, 1.0).normalize());
        assert_eq!(Projection::of(vp), Projection::Orthographic);
        let eye = vp.inverse() * Vec4::Z;
        assert_eq!(eye.w, 0.0, "an orthographic eye is a direction");
        assert!(
            eye.xyz()
                .normalize()
                .dot(Vec3::new(0.3, -0.2, 1.0).normalize())
                > 0.9999
        );
        // 1024 texels over 200 units: 5.12 texels a unit, anywhere.
        let view = CullView::new(vp, eye, (1024, 1024), Some(1.0));
        assert!((view.lod.pixels_per_unit - 5.12).abs() < 1e-4, "{view:?}");
        assert_eq!(view.lod.near, 0.0);
        // Level 1's error is 0.05 units (0.256 texels, under the half
        // texel allowed), level 2's 0.2 (1.02 texels): level 1, near the
        // light or far from it, and a sphere as big as the view is no
        // exception (no near plane in w).
        let errors = [0.0, 0.05, 0.2];
        for (centre, radius) in [
            (Vec3::ZERO, 1.0),
            (Vec3::new(0.0, 0.0, 400.0), 1.0),
            (Vec3::ZERO, 150.0),
        ] {
            let sphere = BoundingSphere { centre, radius };
            assert_eq!(view.nearest(sphere), Some(1.0));
            assert_eq!(select_lod(&view, sphere, &errors), 1, "{sphere:?}");
        }
        // Beside the view's 200 units: culled by the frustum.
        let beside = BoundingSphere {
            centre: Vec3::new(0.0, 150.0, 0.0),
            radius: 10.0,
        };
        assert!(!view.frustum.intersects_sphere(beside));
        assert!(view.frustum.intersects_sphere(BoundingSphere {
            centre: Vec3::ZERO,
            radius: 1.0
        }));
    }
}
