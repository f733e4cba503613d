//! Cascaded shadow maps for the sun: the camera frustum is cut into slices
//! and each slice gets an orthographic sun view fitted to its bounding sphere
//! and snapped to whole shadow-map texels.
//!
//! The fitting runs in f64 and rounds to f32 once, at the end: the far slices
//! sit at NDC depths of near/6000 and lose too much in an f32 inverse, and the
//! snapped translation has to survive the rounding to keep the texel grid
//! still.

use glam::{DMat4, DVec3, DVec4, Mat4, Vec3, Vec4};

/// The most cascades [`fit_cascades`] makes.
pub const MAX_CASCADES: u32 = 4;

/// A sun grazing the horizon would stretch the caster range towards it
/// without bound, so the sine of its elevation is held at least this large.
const MIN_SUN_SINE: f64 = 0.05;

/// Radii are rounded up to 2^-RADIUS_STEP_BITS of their power of two: the
/// corners carry rounding noise that would otherwise change the texel size,
/// and with it the grid, by a hair from frame to frame.
const RADIUS_STEP_BITS: f64 = 7.0;

/// Texels round a receiver that its shadow lookup reads (a normal offset of
/// 1.5 texels, 3x3 comparisons, half a texel of rounding), each far enough
/// from the slice to be missed by a caster volume without this margin.
const LOOKUP_REACH_TEXELS: f64 = 3.0;

/// The direction towards the sun (unit) from azimuth (degrees,
/// counter-clockwise from +X seen from above) and elevation (degrees above
/// the horizon).
pub fn sun_direction(azimuth_degrees: f32, elevation_degrees: f32) -> Vec3 {
    let (azimuth, elevation) = (azimuth_degrees.to_radians(), elevation_degrees.to_radians());
    let horizontal = elevation.cos();
    Vec3::new(
        horizontal * azimuth.cos(),
        horizontal * azimuth.sin(),
        elevation.sin(),
    )
}

/// The inverse of [`sun_direction`]: (azimuth in [0, 360), elevation in
/// [-90, 90]) in degrees of a direction towards the sun, which need not be
/// unit. A zero direction gives (0, 0); straight up or down gives azimuth 0.
pub fn sun_angles(towards_sun: Vec3) -> (f32, f32) {
    let direction = towards_sun.normalize_or_zero();
    let azimuth = direction.y.atan2(direction.x).to_degrees();
    let azimuth = azimuth.rem_euclid(360.0);
    // A tiny negative angle comes out of rem_euclid as exactly 360.
    let azimuth = if azimuth >= 360.0 { 0.0 } else { azimuth };
    let elevation = direction.z.clamp(-1.0, 1.0).asin().to_degrees();
    (azimuth, elevation)
}

/// How the camera frustum is split into cascades and how large their maps are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CascadeDesc {
    /// Number of cascades, 1..=[`MAX_CASCADES`]; others are clamped into it.
    pub count: u32,
    /// Texels along a side of each cascade's shadow map.
    pub resolution: u32,
    /// Distance in front of the eye where shadows begin (the near plane
    /// when nearer): nothing nearer casts or receives, so the cascades'
    /// texels go where the casters are.
    pub start_distance: f32,
    /// Distance in front of the eye where shadows end.
    pub max_distance: f32,
    /// 0 splits uniformly, 1 logarithmically (the practical split scheme).
    pub split_lambda: f32,
}

/// One cascade: the sun view that shadows one slice of the camera frustum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    /// Orthographic `O * L`: Vulkan clip space with +Y down, reverse Z (depth
    /// 1 on the sun's side), w row exactly (0, 0, 0, 1).
    pub view_projection: Mat4,
    /// Distance in front of the eye where the covered slice starts.
    pub near_distance: f32,
    /// Distance in front of the eye where the covered slice ends.
    pub far_distance: f32,
    /// World units a shadow-map texel spans.
    pub texel_size: f32,
    /// Six planes (inward unit normal, distance) round every point from
    /// which a caster can shadow the slice: the slice's own planes, those
    /// facing away from the sun pushed out by the farthest a shadow
    /// reaches, all grown by the texels a receiver's lookup spans. Culling
    /// a cascade's casters by them rather than by its box keeps each caster
    /// out of the cascades its shadow cannot land in: the boxes round
    /// neighbouring slices overlap, and by them every caster in the
    /// overview was drawn into all three.
    pub caster_volume: [Vec4; 6],
}

/// Fits `desc.count` cascades to the camera frustum (`camera_view_projection`,
/// near plane at clip w = `near`; the aspect is already inside the matrix)
/// from `near` to `desc.max_distance`, split by the practical split scheme,
/// for a sun in direction `towards_sun`. `scene_height` is the lowest and
/// highest z of anything that casts a shadow; every caster in that band that
/// can shadow a slice lies inside its cascade's depth range.
///
/// Returns no cascades when the inputs cannot describe a frustum: non-finite
/// values, `near <= 0`, `max_distance <= near`, a zero sun direction or a
/// singular camera matrix.
pub fn fit_cascades(
    camera_view_projection: Mat4,
    near: f32,
    towards_sun: Vec3,
    scene_height: (f32, f32),
    desc: &CascadeDesc,
) -> Vec<Cascade> {
    let (near, max_distance) = (f64::from(near), f64::from(desc.max_distance));
    let split_lambda = f64::from(desc.split_lambda);
    let (low, high) = (f64::from(scene_height.0), f64::from(scene_height.1));
    let camera = camera_view_projection.as_dmat4();
    let determinant = camera.determinant();
    let start = f64::from(desc.start_distance);
    let finite = [
        near,
        start,
        max_distance,
        split_lambda,
        low,
        high,
        determinant,
    ];
    if !finite.iter().all(|value| value.is_finite())
        || near <= 0.0
        || max_distance <= near
        || determinant == 0.0
    {
        return Vec::new();
    }
    let Some(towards_sun) = towards_sun.as_dvec3().try_normalize() else {
        return Vec::new();
    };
    // Only the sun picks the light's roll, so the texel grid keeps its
    // orientation in the world however the camera turns.
    let up_hint = if towards_sun.y.abs() < 0.9 {
        DVec3::Y
    } else {
        DVec3::X
    };
    // The axes DMat4::look_to_rh derives, so that snapping along them is
    // snapping in the matrix's light space.
    let right = (-towards_sun).cross(up_hint).normalize();
    let fitting = Fitting {
        camera,
        inverse_camera: camera.inverse(),
        near,
        towards_sun,
        up_hint,
        right,
        up: right.cross(-towards_sun),
        scene_height: (low.min(high), low.max(high)),
        // Snapping needs at least one texel of slack inside the map.
        resolution: desc.resolution.max(2).into(),
    };
    let count = desc.count.clamp(1, MAX_CASCADES);
    // From the near plane at the nearest, and short of the end.
    let start = start.max(near).min(max_distance * 0.999);
    split_distances(start, max_distance, count, split_lambda)
        .windows(2)
        .map(|slice| fitting.cascade(slice[0], slice[1]))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// The practical split scheme: `count + 1` distances from `near` to `far`,
/// each a `lambda` blend of the logarithmic and the uniform split.
fn split_distances(near: f64, far: f64, count: u32, lambda: f64) -> Vec<f64> {
    let lambda = lambda.clamp(0.0, 1.0);
    (0..=count)
        .map(|index| match index {
            0 => near,
            _ if index == count => far,
            _ => {
                let fraction = f64::from(index) / f64::from(count);
                let logarithmic = near * (far / near).powf(fraction);
                let uniform = near + (far - near) * fraction;
                lambda * logarithmic + (1.0 - lambda) * uniform
            }
        })
        .collect()
}

/// The 8 world-space corners of the camera frustum between two distances in
/// front of the eye; the first 4 are on the nearer plane.
fn slice_corners(inverse_camera: &DMat4, near: f64, from: f64, to: f64) -> [DVec3; 8] {
    std::array::from_fn(|index| {
        let x = if index & 1 == 0 { -1.0 } else { 1.0 };
        let y = if index & 2 == 0 { -1.0 } else { 1.0 };
        let distance = if index & 4 == 0 { from } else { to };
        let world = *inverse_camera * DVec4::new(x, y, near / distance, 1.0);
        world.truncate() / world.w
    })
}

/// A sphere around the 8 corners of a frustum slice. For a symmetric frustum
/// it is the tightest one: centred on the slice's axis where the near and far
/// corners are equally far, or on the far face when that lies beyond it.
/// Its radius depends only on the projection and the distances, not on where
/// the camera points, so cascades keep their size as the camera turns.
fn bounding_sphere(corners: &[DVec3; 8]) -> (DVec3, f64) {
    let farthest_squared = |points: &[DVec3], from: DVec3| {
        let squares = points.iter().map(|point| point.distance_squared(from));
        squares.fold(0.0, f64::max)
    };
    let near_centre = corners[..4].iter().sum::<DVec3>() / 4.0;
    let far_centre = corners[4..].iter().sum::<DVec3>() / 4.0;
    let near_squared = farthest_squared(&corners[..4], near_centre);
    let far_squared = farthest_squared(&corners[4..], far_centre);
    let axis = far_centre - near_centre;
    let length = axis.length();
    let centre = if length > 0.0 {
        let along = (length * length + far_squared - near_squared) / (2.0 * length);
        near_centre + axis * (along.clamp(0.0, length) / length)
    } else {
        near_centre
    };
    (centre, farthest_squared(corners, centre).sqrt())
}

/// What every cascade of one call is fitted with.
struct Fitting {
    camera: DMat4,
    inverse_camera: DMat4,
    near: f64,
    towards_sun: DVec3,
    up_hint: DVec3,
    /// The light view's x and y axes in the world.
    right: DVec3,
    up: DVec3,
    scene_height: (f64, f64),
    resolution: f64,
}

impl Fitting {
    fn cascade(&self, from: f64, to: f64) -> Option<Cascade> {
        let corners = slice_corners(&self.inverse_camera, self.near, from, to);
        let (centre, sphere_radius) = bounding_sphere(&corners);
        if !(centre.is_finite() && sphere_radius.is_finite() && sphere_radius > 0.0) {
            return None;
        }
        // Snapping moves the box up to half a texel per axis off the sphere's
        // centre; growing it by that keeps the whole sphere inside.
        let grown = sphere_radius * self.resolution / (self.resolution - 1.0);
        let step = (grown.log2().floor() - RADIUS_STEP_BITS).exp2();
        let radius = (grown / step).ceil() * step;
        let texel_size = 2.0 * radius / self.resolution;
        // Whole texels in light space keep the grid fixed in the world while
        // the camera moves, so shadow edges do not crawl.
        let snap = |axis: DVec3| {
            let coordinate = axis.dot(centre);
            axis * ((coordinate / texel_size).round() * texel_size - coordinate)
        };
        let snapped_centre = centre + snap(self.right) + snap(self.up);

        // A caster shadows a receiver from as far as (highest caster - lowest
        // receiver) / sin(elevation) along the sun, and must be in the depth
        // range though it may be outside the slice.
        let (lowest, highest) = self.scene_height;
        let sun_sine = self.towards_sun.z.max(MIN_SUN_SINE);
        let lowest_receiver = (centre.z - sphere_radius).max(lowest);
        let caster_reach = ((highest - lowest_receiver) / sun_sine).max(0.0);
        let towards_sun_extent = radius + caster_reach;

        let eye = snapped_centre + self.towards_sun * towards_sun_extent;
        let view = DMat4::look_to_rh(eye, -self.towards_sun, self.up_hint);
        // Near and far swapped for reverse Z: depth 1 at the eye.
        let depth_span = towards_sun_extent + radius;
        let mut projection =
            DMat4::orthographic_rh(-radius, radius, -radius, radius, depth_span, 0.0);
        projection.y_axis.y = -projection.y_axis.y;
        let margin = LOOKUP_REACH_TEXELS * texel_size;
        Some(Cascade {
            view_projection: (projection * view).as_mat4(),
            near_distance: from as f32,
            far_distance: to as f32,
            texel_size: texel_size as f32,
            caster_volume: self.caster_volume(from, to, caster_reach, margin),
        })
    }

    /// Where a caster must be to shadow a point of the slice `from..to`: a
    /// point q of the slice is shadowed from q + t * towards_sun, t from 0
    /// to `reach`. A slice plane n.x + d >= 0 whose normal faces the sun
    /// (n.s >= 0) bounds those points as it bounds q; one facing away lets
    /// them go `reach * -n.s` past it. The volume is convex (the slice swept
    /// along the sun), and its six planes hold it, with room to spare along
    /// the sweep's silhouette edges: conservative.
    fn caster_volume(&self, from: f64, to: f64, reach: f64, margin: f64) -> [Vec4; 6] {
        let row = |i| self.camera.row(i);
        // Clip w is the distance in front of the eye.
        let planes = [
            row(3) + row(0),
            row(3) - row(0),
            row(3) + row(1),
            row(3) - row(1),
            row(3) - DVec4::new(0.0, 0.0, 0.0, from),
            DVec4::new(0.0, 0.0, 0.0, to) - row(3),
        ];
        planes.map(|plane| {
            let plane = plane / plane.truncate().length();
            let facing = plane.truncate().dot(self.towards_sun);
            let slack = margin + reach * (-facing).max(0.0);
            (plane + DVec4::new(0.0, 0.0, 0.0, slack)).as_vec4()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat3, Vec4};

    const RESOLUTION: u32 = 2048;

    /// A camera's view-projection as the renderer builds it, and its near plane.
    type Camera = (Mat4, f32);

    fn camera(eye: Vec3, yaw_degrees: f32, pitch_degrees: f32, near: f32) -> Camera {
        let (yaw, pitch) = (yaw_degrees.to_radians(), pitch_degrees.to_radians());
        let forward = Vec3::new(yaw.cos(), yaw.sin(), 0.0) * pitch.cos() + Vec3::Z * pitch.sin();
        let view = Mat4::look_at_rh(eye, eye + forward, Vec3::Z);
        let mut projection =
            Mat4::perspective_infinite_reverse_rh(40f32.to_radians(), 16.0 / 9.0, near);
        projection.y_axis.y = -projection.y_axis.y;
        (projection * view, near)
    }

    fn fit(camera: Camera, sun: Vec3, max_distance: f32, lambda: f32) -> Vec<Cascade> {
        fit_counted(4, camera, sun, max_distance, lambda)
    }

    fn fit_counted(count: u32, camera: Camera, sun: Vec3, far: f32, lambda: f32) -> Vec<Cascade> {
        let (resolution, max_distance, split_lambda) = (RESOLUTION, far, lambda);
        let desc = CascadeDesc {
            count,
            resolution,
            start_distance: 0.0,
            max_distance,
            split_lambda,
        };
        fit_cascades(camera.0, camera.1, sun, (0.0, 90.0), &desc)
    }

    /// NDC of a world point, evaluated in f64 so the test adds no rounding.
    fn project(view_projection: Mat4, point: DVec3) -> DVec3 {
        let clip = view_projection.as_dmat4() * point.extend(1.0);
        clip.truncate() / clip.w
    }

    fn inside(ndc: DVec3) -> bool {
        let slack = 1e-6;
        let depth = -slack..=1.0 + slack;
        ndc.x.abs() <= 1.0 + slack && ndc.y.abs() <= 1.0 + slack && depth.contains(&ndc.z)
    }

    fn cameras() -> [Camera; 3] {
        [
            camera(Vec3::new(0.0, 0.0, 300.0), 0.0, -30.0, 1.0),
            camera(Vec3::new(1234.5, -678.9, 310.0), 37.0, -45.0, 5.0),
            camera(Vec3::new(-500.0, 2000.0, 280.0), 200.0, -60.0, 10.0),
        ]
    }

    /// The zenith, a low sun, and one near +Y where the up hint switches.
    fn suns() -> [Vec3; 5] {
        let azimuths = [30.0, 90.0, 200.0, 0.0, 135.0];
        let elevations = [40.0, 25.0, 70.0, 90.0, 10.0];
        std::array::from_fn(|index| sun_direction(azimuths[index], elevations[index]))
    }

    #[test]
    fn sun_angles_round_trip_and_axes() {
        assert!(sun_direction(0.0, 90.0).abs_diff_eq(Vec3::Z, 1e-6));
        assert!(sun_direction(90.0, 0.0).abs_diff_eq(Vec3::Y, 1e-6));
        let elevations = [45.0, 10.0, 60.0, 5.0, -20.0];
        for (azimuth, elevation) in [0.0, 30.0, 135.0, 359.0, 270.0].into_iter().zip(elevations) {
            let direction = sun_direction(azimuth, elevation);
            assert!((direction.length() - 1.0).abs() < 1e-6);
            let (back_azimuth, back_elevation) = sun_angles(direction);
            assert!((back_azimuth - azimuth).abs() < 1e-3);
            assert!((back_elevation - elevation).abs() < 1e-3);
        }
        assert_eq!(sun_angles(Vec3::ZERO), (0.0, 0.0));
    }

    #[test]
    fn slices_project_inside_their_cascades() {
        for (camera, sun) in cameras()
            .into_iter()
            .flat_map(|camera| suns().map(|sun| (camera, sun)))
        {
            let inverse = camera.0.as_dmat4().inverse();
            for (max_distance, lambda) in [(4000.0, 0.5), (6000.0, 0.85)] {
                let cascades = fit(camera, sun, max_distance, lambda);
                assert_eq!(cascades.len(), 4);
                for cascade in cascades {
                    let (from, to) = (cascade.near_distance.into(), cascade.far_distance.into());
                    let corners = slice_corners(&inverse, camera.1.into(), from, to);
                    for corner in corners {
                        let ndc = project(cascade.view_projection, corner);
                        assert!(inside(ndc), "corner {corner} at {ndc} for sun {sun}");
                    }
                    // The whole sphere, not only its corners, despite the snapping.
                    let (centre, radius) = bounding_sphere(&corners);
                    let matrix = cascade.view_projection.as_dmat4();
                    for row in [matrix.row(0), matrix.row(1)] {
                        let side = row.truncate().normalize() * radius;
                        assert!(inside(project(cascade.view_projection, centre + side)));
                        assert!(inside(project(cascade.view_projection, centre - side)));
                    }
                }
            }
        }
    }

    #[test]
    fn cascades_are_orthographic_with_reverse_depth() {
        let ground = DVec3::new(100.0, 50.0, 0.0);
        for camera in cameras() {
            for sun in suns() {
                for cascade in fit(camera, sun, 4000.0, 0.7) {
                    assert_eq!(cascade.view_projection.row(3), Vec4::W);
                    // Reverse Z keeps the light view's handedness, so only
                    // the camera-like +Y flip makes this mirror image.
                    assert!(Mat3::from_mat4(cascade.view_projection).determinant() < 0.0);
                    let depth = |point| project(cascade.view_projection, point).z;
                    assert!(depth(ground + sun.as_dvec3() * 10.0) > depth(ground));
                }
            }
        }
    }

    #[test]
    fn texel_grid_stays_fixed_in_the_world() {
        let (eye, yaw) = (Vec3::new(200.0, -150.0, 300.0), 25.0f32);
        let sideways = Vec3::new(-yaw.to_radians().sin(), yaw.to_radians().cos(), 0.0);
        let fixed_point = DVec3::new(431.7, -58.3, 0.0);
        let texel = |cascade: &Cascade| {
            let ndc = project(cascade.view_projection, fixed_point).truncate();
            (ndc * 0.5 + 0.5) * f64::from(RESOLUTION)
        };
        for sun in suns() {
            let before = fit(camera(eye, yaw, -40.0, 2.0), sun, 4000.0, 0.6);
            // Not whole texels of any cascade, yet enough to move every box.
            let moved = eye + sideways * before[3].texel_size * 5.37;
            let after = fit(camera(moved, yaw, -40.0, 2.0), sun, 4000.0, 0.6);
            for (old, new) in before.iter().zip(&after) {
                assert_eq!(old.texel_size, new.texel_size);
                assert_ne!(old.view_projection, new.view_projection);
                let shift = texel(old) - texel(new);
                let off_grid = (shift - shift.round()).abs().max_element();
                assert!(off_grid < 1e-3, "the grid moved by {shift} texels");
            }
        }
    }

    #[test]
    fn turning_the_camera_keeps_texel_sizes() {
        let eye = Vec3::new(-320.0, 75.0, 300.0);
        for sun in suns() {
            let reference = fit(camera(eye, 10.0, -45.0, 1.0), sun, 5000.0, 0.75);
            for yaw in [33.0, 97.5, 181.0, 299.0] {
                let turned = fit(camera(eye, yaw, -45.0, 1.0), sun, 5000.0, 0.75);
                for (before, after) in reference.iter().zip(&turned) {
                    let change = (before.texel_size - after.texel_size).abs();
                    assert!(change <= 1e-4 * before.texel_size);
                }
            }
        }
    }

    #[test]
    fn a_later_start_gives_the_first_cascade_finer_texels() {
        for camera in cameras() {
            let from_near = fit_counted(3, camera, sun_direction(30.0, 45.0), 4000.0, 0.75);
            let desc = CascadeDesc {
                count: 3,
                resolution: RESOLUTION,
                start_distance: 2000.0,
                max_distance: 4000.0,
                split_lambda: 0.75,
            };
            let from_far = fit_cascades(
                camera.0,
                camera.1,
                sun_direction(30.0, 45.0),
                (0.0, 90.0),
                &desc,
            );
            assert_eq!(from_far[0].near_distance, 2000.0);
            assert_eq!(from_far[2].far_distance, 4000.0);
            // The whole range is in the last cascade of the fit from near;
            // three cascades share it now.
            assert!(from_far[0].texel_size < 0.7 * from_near[2].texel_size);
        }
    }

    #[test]
    fn splits_run_from_near_to_max_distance() {
        let camera = cameras()[1];
        for lambda in [0.0, 0.5, 1.0] {
            let cascades = fit(camera, suns()[0], 6000.0, lambda);
            assert_eq!(cascades[0].near_distance, camera.1);
            assert_eq!(cascades[3].far_distance, 6000.0);
            for (index, cascade) in cascades.iter().enumerate() {
                assert!(cascade.far_distance > cascade.near_distance);
                if let Some(next) = cascades.get(index + 1) {
                    assert_eq!(cascade.far_distance, next.near_distance);
                }
                let uniform = camera.1 + (6000.0 - camera.1) * (index as f32 + 1.0) / 4.0;
                assert!(lambda != 0.0 || (cascade.far_distance - uniform).abs() < 1e-3);
            }
        }
        let logarithmic = split_distances(2.0, 2000.0, 3, 1.0);
        assert!((logarithmic[1] - 20.0).abs() < 1e-9 && (logarithmic[2] - 200.0).abs() < 1e-9);
    }

    #[test]
    fn tall_casters_over_the_first_slice_are_in_depth_range() {
        let camera = camera(Vec3::new(0.0, 0.0, 300.0), 0.0, -45.0, 1.0);
        // Where the view's centre ray meets the ground: 300 / sin 45 ahead.
        let ground_distance = 300.0 * 2f32.sqrt();
        let ground = DVec3::new(300.0, 0.0, 0.0);
        for sun in suns() {
            let first = fit(camera, sun, 4000.0, 0.5)[0];
            assert!(first.near_distance < ground_distance && ground_distance < first.far_distance);
            let overhead = project(first.view_projection, ground + DVec3::Z * 90.0);
            assert!((0.0..=1.0).contains(&overhead.z), "{overhead}");
            let on_sun_ray = ground + sun.as_dvec3() * (90.0 / f64::from(sun.z));
            assert!(inside(project(first.view_projection, on_sun_ray)));
        }
    }

    /// How far inside every plane of `planes` `point` is (negative: out).
    fn depth_inside(planes: &[Vec4; 6], point: DVec3) -> f64 {
        let point = point.as_vec3();
        let each = planes
            .iter()
            .map(|p| f64::from(p.truncate().dot(point) + p.w));
        each.fold(f64::INFINITY, f64::min)
    }

    /// Points of the slice `from..to` (distances in front of the eye) on a
    /// grid over its screen and depth, each with its distance.
    fn slice_points(camera: Camera, from: f64, to: f64) -> Vec<(DVec3, f64)> {
        let inverse = camera.0.as_dmat4().inverse();
        let near = f64::from(camera.1);
        let steps = 24;
        let grid = (0..=steps).map(move |i| f64::from(i) / f64::from(steps) * 2.0 - 1.0);
        let mut points = Vec::new();
        for x in grid.clone() {
            for y in grid.clone() {
                for k in 0..=8 {
                    let distance = from + (to - from) * f64::from(k) / 8.0;
                    let world = inverse * DVec4::new(x, y, near / distance, 1.0);
                    points.push((world.truncate() / world.w, distance));
                }
            }
        }
        points
    }

    #[test]
    fn caster_volumes_hold_every_caster_that_shadows_their_slice() {
        let (lowest, highest) = (0.0, 90.0);
        let mut checked = 0;
        for (camera, sun) in cameras()
            .into_iter()
            .flat_map(|camera| suns().map(|sun| (camera, sun)))
        {
            let sun = sun.as_dvec3();
            let sine = sun.z.max(MIN_SUN_SINE);
            for cascade in fit(camera, sun.as_vec3(), 4000.0, 0.85) {
                let (from, to) = (cascade.near_distance.into(), cascade.far_distance.into());
                let receivers = slice_points(camera, from, to);
                let receivers = receivers
                    .iter()
                    .filter(|(q, _)| (lowest..=highest).contains(&q.z));
                for (receiver, _) in receivers {
                    // Every point from the receiver towards the sun up to
                    // the highest caster.
                    let reach = (highest - receiver.z) / sine;
                    for step in 0..=6 {
                        let caster = *receiver + sun * reach * f64::from(step) / 6.0;
                        let inside = depth_inside(&cascade.caster_volume, caster);
                        assert!(
                            inside >= -1e-3 * to,
                            "{caster} shadows {receiver} in {from}..{to} (sun {sun}) but is \
                             {inside} outside"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn a_caster_goes_to_the_cascades_its_shadow_reaches_not_to_every_box() {
        // The overview's shape: a camera high above the crowd, looking down
        // across it, the shadows starting where the crowd does.
        let camera = camera(Vec3::new(0.0, 0.0, 2000.0), 0.0, -35.0, 1.0);
        let desc = CascadeDesc {
            count: 3,
            resolution: RESOLUTION,
            start_distance: 2200.0,
            max_distance: 9000.0,
            split_lambda: 0.75,
        };
        let sun = sun_direction(30.0, 40.0);
        let cascades = fit_cascades(camera.0, camera.1, sun, (0.0, 90.0), &desc);
        // Casters 90 tall standing on the ground across the shadow range:
        // spheres of radius 45 round their middles.
        let view = camera.0.as_dmat4();
        let (mut in_volumes, mut in_boxes, mut casters) = (0, 0, 0);
        for (x, y) in (-80..=80).flat_map(|x| (-80..=80).map(move |y| (x, y))) {
            let centre = DVec3::new(f64::from(x) * 100.0, f64::from(y) * 100.0, 45.0);
            let clip = view * centre.extend(1.0);
            let on_screen = clip.x.abs() <= clip.w && clip.y.abs() <= clip.w;
            if !(on_screen && (2200.0..=9000.0).contains(&clip.w)) {
                continue;
            }
            casters += 1;
            for cascade in &cascades {
                in_volumes += usize::from(depth_inside(&cascade.caster_volume, centre) >= -45.0);
                in_boxes += usize::from(inside(project(cascade.view_projection, centre)));
            }
        }
        let (per_volume, per_box) = (
            in_volumes as f64 / f64::from(casters),
            in_boxes as f64 / f64::from(casters),
        );
        println!("{casters} casters: {per_volume:.2} caster volumes, {per_box:.2} boxes each");
        assert!(casters > 500);
        assert!((1.0..1.3).contains(&per_volume), "{per_volume}");
        assert!(per_box > 2.0, "{per_box}");
    }

    #[test]
    fn unusable_inputs_give_no_cascades() {
        let (camera, sun) = (cameras()[0], suns()[0]);
        assert!(fit(camera, Vec3::ZERO, 4000.0, 0.5).is_empty());
        assert!(fit((camera.0, 0.0), sun, 4000.0, 0.5).is_empty());
        assert!(fit(camera, sun, 0.5, 0.5).is_empty());
        assert!(fit((Mat4::ZERO, 1.0), sun, 4000.0, 0.5).is_empty());
        assert!(fit(camera, sun, 4000.0, f32::NAN).is_empty());
        // Along +Y is the one sun the +Y up hint would be parallel to.
        let along_y = fit(camera, Vec3::Y, 4000.0, 0.5);
        assert!(
            along_y.len() == 4
                && along_y
                    .iter()
                    .all(|cascade| cascade.view_projection.is_finite())
        );
        assert_eq!(fit_counted(9, camera, sun, 3000.0, 0.8).len(), 4);
        assert_eq!(fit_counted(0, camera, sun, 3000.0, 0.8).len(), 1);
    }
}
