//! An orbit camera in the Z-up world, and the frame's lighting.

use glam::{Mat4, Vec3, Vec4};

use crate::crowd::Frustum;
use crate::gpu::renderer::FrameUniforms;
use crate::md5::Bounds;

pub struct OrbitCamera {
    pub target: Vec3,
    /// Radians about +Z; 0 puts the eye on +X, facing the characters' front.
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    pub distance: f32,
    pub fov_y: f32,
}

impl OrbitCamera {
    /// Looks at the front of `bounds` (characters face +X), slightly from
    /// above, from far enough that its bounding sphere fits the view height.
    pub fn framing(bounds: &Bounds) -> OrbitCamera {
        let fov_y = 40f32.to_radians();
        let radius = ((bounds.max - bounds.min).length() / 2.0).max(1e-3);
        OrbitCamera {
            target: (bounds.min + bounds.max) / 2.0,
            yaw: 0.0,
            pitch: 8f32.to_radians(),
            distance: radius / (fov_y / 2.0).sin(),
            fov_y,
        }
    }

    pub fn eye(&self) -> Vec3 {
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cos_pitch * cos_yaw, cos_pitch * sin_yaw, sin_pitch)
    }

    pub fn orbit(&mut self, yaw: f32, pitch: f32) {
        self.yaw += yaw;
        // Short of the poles, where "up" and the view direction would meet.
        self.pitch = (self.pitch + pitch).clamp(-1.5, 1.5);
    }

    pub fn zoom(&mut self, factor: f32) {
        self.distance = (self.distance * factor).max(1e-2);
    }

    /// World to Vulkan clip space: right-handed view with +Z up, reverse-Z
    /// infinite perspective (depth 1 at the near plane, 0 at infinity).
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        let view = Mat4::look_at_rh(self.eye(), self.target, Vec3::Z);
        let near = self.distance * 0.01;
        let mut projection = Mat4::perspective_infinite_reverse_rh(self.fov_y, aspect, near);
        // glam follows the GL convention of +Y up in clip space; Vulkan's
        // clip space has +Y down. Flipping here (rather than with a negative
        // viewport height) keeps the viewport plain. The picture stays
        // upright, so md5's clockwise-from-outside triangles are clockwise on
        // screen: hence FrontFace::CLOCKWISE in the crowd pass.
        projection.y_axis.y = -projection.y_axis.y;
        projection * view
    }
}

/// The camera's view and frustum, one white-ish key light from the
/// front-left above, plus a dim ambient. The crowd fills in the clock.
pub fn frame_uniforms(camera: &OrbitCamera, aspect: f32) -> FrameUniforms {
    let view_projection = camera.view_projection(aspect);
    FrameUniforms {
        view_projection,
        light_direction: Vec3::new(0.6, 0.45, 0.65).normalize().extend(0.0),
        light_color: Vec4::new(0.95, 0.92, 0.85, 0.0),
        ambient_color: Vec4::new(0.22, 0.24, 0.28, 0.0),
        frustum_planes: Frustum::from_view_projection(view_projection).planes,
        ..FrameUniforms::default()
    }
}
