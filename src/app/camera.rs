//! An orbit camera in the Z-up world, the shot that sets it from the
//! command line, and the frame's lighting.

use std::fmt;
use std::str::FromStr;

use glam::{Mat4, Vec3, Vec4};

use crate::crowd::Frustum;
use crate::gpu::frame_loop::SceneUniforms;
use crate::shared_constants::NEAR_PLANE_SHARE;

/// How much of the view's limiting dimension a framed scene fills.
const FRAME_FILL: f32 = 0.94;

pub struct OrbitCamera {
    pub target: Vec3,
    /// Radians about +Z; 0 puts the eye on +X, facing the characters' front.
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    pub distance: f32,
    /// Vertical field of view, degrees: what a shot prints and reads back
    /// exactly.
    pub fov_y_degrees: f32,
    /// The eye a shot put exactly, until the camera moves; the angles and
    /// distance above give it back only to a rounding.
    shot_eye: Option<Vec3>,
}

/// The field of view the start views have, degrees.
const DEFAULT_FOV_DEGREES: f32 = 40.0;

/// A camera as `--camera EYE_X,EYE_Y,EZ:TARGET_X,TARGET_Y,TARGET_Z[:FOV]`
/// gives it, in the crowd's units: the eye, the point it looks at (the
/// world's +Z up) and the vertical field of view in degrees. The log prints
/// the camera a run used in that form, and given back it makes the same
/// picture: every number is written as the shortest text that reads back
/// to the same `f32`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shot {
    pub eye: Vec3,
    pub target: Vec3,
    pub fov_y_degrees: f32,
}

impl fmt::Display for Shot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, t) = (self.eye, self.target);
        write!(
            f,
            "{},{},{}:{},{},{}:{}",
            e.x, e.y, e.z, t.x, t.y, t.z, self.fov_y_degrees
        )
    }
}

impl FromStr for Shot {
    type Err = String;

    fn from_str(text: &str) -> Result<Shot, String> {
        const FORM: &str = "EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV_DEGREES]";
        let parts: Vec<&str> = text.split(':').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(format!("expected {FORM}, got {text:?}"));
        }
        let number = |what: &str, word: &str| -> Result<f32, String> {
            match word.trim().parse::<f32>() {
                Ok(value) if value.is_finite() => Ok(value),
                _ => Err(format!(
                    "{what}: expected a finite number, got {word:?} ({FORM})"
                )),
            }
        };
        let point = |what: &str, part: &str| -> Result<Vec3, String> {
            let words: Vec<&str> = part.split(',').collect();
            let [x, y, z] = words[..] else {
                return Err(format!(
                    "{what}: expected three numbers X,Y,Z, got {part:?} ({FORM})"
                ));
            };
            Ok(Vec3::new(
                number(what, x)?,
                number(what, y)?,
                number(what, z)?,
            ))
        };
        let shot = Shot {
            eye: point("the eye", parts[0])?,
            target: point("the target", parts[1])?,
            fov_y_degrees: match parts.get(2) {
                Some(fov) => number("the field of view", fov)?,
                None => DEFAULT_FOV_DEGREES,
            },
        };
        if !(shot.fov_y_degrees > 0.0 && shot.fov_y_degrees < 180.0) {
            return Err(format!(
                "the field of view: expected degrees between 0 and 180, got {}",
                shot.fov_y_degrees
            ));
        }
        let offset = shot.eye - shot.target;
        if offset.truncate().length() <= 1e-6 * offset.length().max(f32::MIN_POSITIVE) {
            return Err(format!(
                "the eye {} must not be the target {} nor straight above or below it (+Z is up)",
                shot.eye, shot.target
            ));
        }
        Ok(shot)
    }
}

impl OrbitCamera {
    /// The start view: the characters' front (they face +X) from slightly
    /// above, or for a crowd from high enough that its rows separate, with
    /// `points` fitted to a view of `aspect` (width / height).
    pub fn framing(
        points: impl IntoIterator<Item = Vec3>,
        aspect: f32,
        crowd: bool,
    ) -> OrbitCamera {
        let mut camera = OrbitCamera {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: if crowd { 28f32 } else { 8f32 }.to_radians(),
            distance: 1.0,
            fov_y_degrees: DEFAULT_FOV_DEGREES,
            shot_eye: None,
        };
        camera.fit(points, aspect);
        camera
    }

    /// The street view: the eye at a character's eye height just in front
    /// of the crowd (the characters face +X), looking across it at a slant
    /// to its far side, so that the grid's rows and columns overlap and
    /// most characters hide behind the ones in front.
    pub fn street(points: impl IntoIterator<Item = Vec3>) -> OrbitCamera {
        let (min, max) = points
            .into_iter()
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)));
        if min.x > max.x {
            return OrbitCamera::framing([], 1.0, false);
        }
        let height = (max.z - min.z).max(1e-2);
        let across = max.y - min.y;
        let eye = Vec3::new(
            max.x + 0.5 * height,
            min.y + 0.3 * across,
            min.z + 0.9 * height,
        );
        let target = Vec3::new(min.x, max.y - 0.2 * across, min.z + 0.5 * height);
        OrbitCamera::from_shot(Shot {
            eye,
            target,
            fov_y_degrees: DEFAULT_FOV_DEGREES,
        })
    }

    /// The camera at `shot`'s eye, orbiting its target.
    pub fn from_shot(shot: Shot) -> OrbitCamera {
        let offset = shot.eye - shot.target;
        let distance = offset.length().max(1e-6);
        OrbitCamera {
            target: shot.target,
            yaw: offset.y.atan2(offset.x),
            pitch: (offset.z / distance).clamp(-1.0, 1.0).asin(),
            distance,
            fov_y_degrees: shot.fov_y_degrees,
            shot_eye: Some(shot.eye),
        }
    }

    /// Where the camera is, as `--camera` takes it.
    pub fn shot(&self) -> Shot {
        Shot {
            eye: self.eye(),
            target: self.target,
            fov_y_degrees: self.fov_y_degrees,
        }
    }

    fn fov_y(&self) -> f32 {
        self.fov_y_degrees.to_radians()
    }

    /// Keeps the view direction and moves the eye to where `points` just
    /// fit the view (to [`FRAME_FILL`]), centred. Without points the camera
    /// stays as it is.
    ///
    /// In view axes (right, up, forward) a point at lateral offset `x` and
    /// depth `z` is inside the horizontal half-angle `h` when
    /// `|x - eye_x| <= tan(h) * (z - eye_z)`. Each point bounds `eye_x -
    /// tan(h) * eye_z` from below and `eye_x + tan(h) * eye_z` from above,
    /// and the two bounds meet at the deepest eye that sees every point
    /// across that axis. The axis that needs the eye further back decides;
    /// then each axis is centred on the points' projections.
    pub fn fit(&mut self, points: impl IntoIterator<Item = Vec3>, aspect: f32) {
        self.shot_eye = None;
        let (right, up, forward) = self.axes();
        let view: Vec<Vec3> = points
            .into_iter()
            .map(|p| Vec3::new(right.dot(p), up.dot(p), forward.dot(p)))
            .collect();
        let tan_y = (self.fov_y() / 2.0).tan() * FRAME_FILL;
        let deepest_eye = |axis: fn(Vec3) -> f32, tan: f32| {
            let low = view
                .iter()
                .map(|&p| axis(p) - tan * p.z)
                .fold(f32::MIN, f32::max);
            let high = view
                .iter()
                .map(|&p| axis(p) + tan * p.z)
                .fold(f32::MAX, f32::min);
            (high - low) / (2.0 * tan)
        };
        let eye_z = deepest_eye(|p| p.x, tan_y * aspect).min(deepest_eye(|p| p.y, tan_y));
        if view.is_empty() || !eye_z.is_finite() {
            return;
        }
        let eye_x = centre_of_projection(view.iter().map(|p| (p.x, p.z - eye_z)));
        let eye_y = centre_of_projection(view.iter().map(|p| (p.y, p.z - eye_z)));
        // Orbit about the point on the view axis halfway through the scene.
        let near = view.iter().map(|p| p.z).fold(f32::MAX, f32::min);
        let far = view.iter().map(|p| p.z).fold(f32::MIN, f32::max);
        self.distance = ((near + far) / 2.0 - eye_z).max(1e-2);
        self.target = right * eye_x + up * eye_y + forward * (eye_z + self.distance);
    }

    /// Right, up and forward unit vectors of the view.
    fn axes(&self) -> (Vec3, Vec3, Vec3) {
        let forward = (self.target - self.eye()).normalize();
        let right = forward.cross(Vec3::Z).normalize();
        (right, right.cross(forward), forward)
    }

    pub fn eye(&self) -> Vec3 {
        if let Some(eye) = self.shot_eye {
            return eye;
        }
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cos_pitch * cos_yaw, cos_pitch * sin_yaw, sin_pitch)
    }

    pub fn orbit(&mut self, yaw: f32, pitch: f32) {
        self.shot_eye = None;
        self.yaw += yaw;
        // Short of the poles, where "up" and the view direction would meet.
        self.pitch = (self.pitch + pitch).clamp(-1.5, 1.5);
    }

    pub fn zoom(&mut self, factor: f32) {
        self.shot_eye = None;
        self.distance = (self.distance * factor).max(1e-2);
    }

    /// Drags the scene by a screen offset in pixels: what is under the
    /// cursor at the target's depth stays under it.
    pub fn pan(&mut self, dx: f32, dy: f32, viewport_height: f32) {
        let (right, up, _) = self.axes();
        let units_per_pixel = 2.0 * self.distance * (self.fov_y() / 2.0).tan() / viewport_height;
        self.shot_eye = None;
        self.target += (up * dy - right * dx) * units_per_pixel;
    }

    /// Moves eye and target together; `direction` is (right, up, forward)
    /// in view axes, in multiples of the orbit distance.
    pub fn fly(&mut self, direction: Vec3) {
        let (right, up, forward) = self.axes();
        self.shot_eye = None;
        self.target +=
            (right * direction.x + up * direction.y + forward * direction.z) * self.distance;
    }

    /// World to Vulkan clip space: right-handed view with +Z up, reverse-Z
    /// infinite perspective (depth 1 at the near plane, 0 at infinity).
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        let eye = self.eye();
        let view = Mat4::look_at_rh(eye, self.target, Vec3::Z);
        // From the eye and target alone, as a shot gives them back.
        let near = eye.distance(self.target) * NEAR_PLANE_SHARE;
        let mut projection = Mat4::perspective_infinite_reverse_rh(self.fov_y(), aspect, near);
        // glam follows the GL convention of +Y up in clip space; Vulkan's
        // clip space has +Y down. Flipping here (rather than with a negative
        // viewport height) keeps the viewport plain. The picture stays
        // upright, so md5's clockwise-from-outside triangles are clockwise on
        // screen: hence FrontFace::CLOCKWISE in the crowd pass.
        projection.y_axis.y = -projection.y_axis.y;
        projection * view
    }
}

/// The lateral eye offset `c` that centres points given as (lateral offset,
/// depth in front of the eye): the largest `(x - c) / depth` is minus the
/// smallest. Both fall as `c` grows, so bisection finds it between the
/// smallest and largest offset.
fn centre_of_projection(points: impl Iterator<Item = (f32, f32)> + Clone) -> f32 {
    let imbalance = |c: f32| {
        let ratios = points
            .clone()
            .map(|(x, depth)| (x - c) / depth.max(f32::EPSILON));
        let (low, high) = ratios.fold((f32::MAX, f32::MIN), |(l, h), r| (l.min(r), h.max(r)));
        low + high
    };
    let offsets = points.clone().map(|(x, _)| x);
    let (mut low, mut high) = offsets.fold((f32::MAX, f32::MIN), |(l, h), x| (l.min(x), h.max(x)));
    for _ in 0..40 {
        let middle = (low + high) / 2.0;
        if imbalance(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

/// The key light's default direction (towards it): from the front-left
/// above, 37 degrees round from +X and 41 up.
pub const DEFAULT_SUN: Vec3 = Vec3::new(0.604_551_3, 0.453_413_45, 0.654_930_5);

/// The camera's view and frustum, one white-ish key light (the sun, in
/// direction `towards_sun`), plus a dim ambient. The crowd fills in the
/// clock.
pub fn scene_uniforms(camera: &OrbitCamera, aspect: f32, towards_sun: Vec3) -> SceneUniforms {
    let view_projection = camera.view_projection(aspect);
    SceneUniforms {
        view_projection,
        light_direction: towards_sun.extend(0.0),
        light_color: Vec4::new(0.95, 0.92, 0.85, 0.0),
        ambient_color: Vec4::new(0.22, 0.24, 0.28, 0.0),
        camera_position: camera.eye().extend(1.0),
        frustum_planes: Frustum::from_view_projection(view_projection).planes,
        ..SceneUniforms::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corners(min: Vec3, max: Vec3) -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect()
    }

    /// The points' (min, max) in normalised device coordinates, x and y.
    fn ndc_range(camera: &OrbitCamera, points: &[Vec3], aspect: f32) -> ((f32, f32), (f32, f32)) {
        let m = camera.view_projection(aspect);
        let (mut x, mut y) = ((f32::MAX, f32::MIN), (f32::MAX, f32::MIN));
        for &point in points {
            let clip = m * point.extend(1.0);
            assert!(clip.w > 0.0, "{point} behind the eye");
            let (px, py) = (clip.x / clip.w, clip.y / clip.w);
            x = (x.0.min(px), x.1.max(px));
            y = (y.0.min(py), y.1.max(py));
        }
        (x, y)
    }

    /// The points' extent in normalised device coordinates: (max |x|, max |y|).
    fn ndc_extent(camera: &OrbitCamera, points: &[Vec3], aspect: f32) -> (f32, f32) {
        let (x, y) = ndc_range(camera, points, aspect);
        (x.0.abs().max(x.1.abs()), y.0.abs().max(y.1.abs()))
    }

    #[test]
    fn framing_fits_the_points_tightly() {
        let character = corners(Vec3::new(-10.0, -15.0, 0.0), Vec3::new(10.0, 15.0, 72.0));
        let mut crowd = corners(
            Vec3::new(-400.0, -300.0, -2.0),
            Vec3::new(380.0, 310.0, 74.0),
        );
        crowd.push(Vec3::new(10.0, 20.0, 300.0));
        for (points, is_crowd) in [(character, false), (crowd, true)] {
            for aspect in [16.0 / 9.0, 1.0, 0.5] {
                let camera = OrbitCamera::framing(points.iter().copied(), aspect, is_crowd);
                let (x, y) = ndc_extent(&camera, &points, aspect);
                // Inside, touching the fill line on one axis.
                assert!(x <= FRAME_FILL + 1e-4 && y <= FRAME_FILL + 1e-4, "{x} {y}");
                assert!(x.max(y) > FRAME_FILL - 1e-3, "loose: {x} {y} at {aspect}");
                let (x_range, y_range) = ndc_range(&camera, &points, aspect);
                for (low, high) in [x_range, y_range] {
                    assert!((low + high).abs() < 1e-3, "off centre: {low}..{high}");
                }
            }
        }
    }

    #[test]
    fn refitting_keeps_the_view_direction() {
        let cube = corners(Vec3::splat(-1.0), Vec3::splat(1.0));
        let mut camera = OrbitCamera::framing(cube.iter().copied(), 1.0, true);
        camera.orbit(0.7, -0.2);
        let (yaw, pitch) = (camera.yaw, camera.pitch);
        camera.fit(cube.iter().copied(), 1.0);
        assert_eq!((camera.yaw, camera.pitch), (yaw, pitch));
        let (x, y) = ndc_extent(&camera, &cube, 1.0);
        assert!(x.max(y) > FRAME_FILL - 1e-3 && x.max(y) <= FRAME_FILL + 1e-4);
    }

    #[test]
    fn a_shot_reads_back_to_the_same_camera() {
        let shot: Shot = "120.5,-3e2,64:0,0,36.25:55".parse().unwrap();
        assert_eq!(shot.eye, Vec3::new(120.5, -300.0, 64.0));
        assert_eq!(shot.target, Vec3::new(0.0, 0.0, 36.25));
        assert_eq!(shot.fov_y_degrees, 55.0);
        let default_fov: Shot = "1,2,3:4,5,6".parse().unwrap();
        assert_eq!(default_fov.fov_y_degrees, DEFAULT_FOV_DEGREES);
        // The street view's eye is computed, not typed: printed and read
        // back it is the very camera, matrix for matrix.
        let points = corners(
            Vec3::new(-731.3, -402.7, 0.0),
            Vec3::new(655.1, 380.9, 71.3),
        );
        let street = OrbitCamera::street(points.iter().copied());
        let mut orbited = OrbitCamera::framing(points, 1.7, true);
        orbited.orbit(0.31, -0.07);
        orbited.zoom(0.83);
        for camera in [street, orbited] {
            let printed = camera.shot().to_string();
            let again = OrbitCamera::from_shot(printed.parse().unwrap());
            assert_eq!(again.shot(), camera.shot(), "{printed}");
            assert_eq!(
                again.view_projection(1.7),
                camera.view_projection(1.7),
                "{printed}"
            );
        }
    }

    #[test]
    fn a_bad_shot_says_what_was_expected() {
        for (text, expected) in [
            ("1,2,3", "expected EYE_X"),
            ("1,2:4,5,6", "the eye: expected three numbers"),
            ("1,2,3:4,x,6", "the target: expected a finite number"),
            ("1,2,3:4,5,6:0", "between 0 and 180"),
            (
                "1,2,3:4,5,6:inf",
                "the field of view: expected a finite number",
            ),
            ("1,2,3:1,2,3", "must not be the target"),
            ("0,0,10:0,0,0", "straight above or below"),
        ] {
            let error = text.parse::<Shot>().unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn panning_keeps_the_point_under_the_cursor() {
        let points = corners(Vec3::new(-5.0, -5.0, 0.0), Vec3::new(5.0, 5.0, 10.0));
        let mut camera = OrbitCamera::framing(points, 1.0, false);
        let height = 500.0;
        let before = camera.view_projection(1.0).project_point3(camera.target);
        let point = camera.target;
        camera.pan(50.0, -20.0, height);
        let after = camera.view_projection(1.0).project_point3(point);
        // 50 pixels right and 20 up, in NDC (+Y down): 2 / height per pixel.
        let moved = (after - before) * height / 2.0;
        assert!(
            (moved.x - 50.0).abs() < 1e-2 && (moved.y + 20.0).abs() < 1e-2,
            "{moved}"
        );
    }
}
