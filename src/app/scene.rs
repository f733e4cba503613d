//! The CPU side of a frame, as the frame loop asks for it: the crowd, the
//! camera, the view switches and the overlay's triangles. Callers advance
//! `time` their own way (a fixed step headless and in the benchmark, the
//! wall clock in the window).

use std::rc::Rc;

use glam::{Mat4, Vec3};

use super::camera::{self, OrbitCamera};
use super::crowd_state::CrowdState;
use super::load::Cast;
use crate::gpu::frame_loop::{FrameInput, FrameSource, ViewOptions};
use crate::gpu::passes::overlay::OverlayFrame;

pub struct Scene {
    /// The models the crowd mixes; shared with whoever may load them
    /// again (the window, to switch the influences per vertex).
    pub cast: Rc<Cast>,
    pub crowd: CrowdState,
    pub camera: OrbitCamera,
    pub view: ViewOptions,
    /// Width over height of the image drawn.
    pub aspect: f32,
    /// The global time the next frame shows.
    pub time: f32,
    /// The overlay to draw over the next frame, if shown.
    pub overlay: Option<OverlayFrame>,
    /// Frozen culling: the camera the cull pass keeps judging by (see
    /// `ViewOptions::frozen_cull`).
    frozen_cull: Option<Mat4>,
    /// The direction towards the sun, the key light.
    pub sun: Vec3,
}

impl Scene {
    pub fn new(
        cast: Rc<Cast>,
        crowd: CrowdState,
        camera: OrbitCamera,
        view: ViewOptions,
        aspect: f32,
    ) -> Scene {
        Scene {
            cast,
            crowd,
            camera,
            view,
            aspect,
            time: 0.0,
            overlay: None,
            frozen_cull: None,
            sun: camera::DEFAULT_SUN,
        }
    }

    pub fn culling_frozen(&self) -> bool {
        self.frozen_cull.is_some()
    }

    /// Freezes culling at the current view, or thaws it.
    pub fn toggle_frozen_culling(&mut self) {
        self.frozen_cull = match self.frozen_cull {
            Some(_) => None,
            None => Some(self.camera.view_projection(self.aspect)),
        };
    }
}

impl FrameSource for Scene {
    fn frame_input(&mut self, _index: u64) -> FrameInput<'_> {
        self.crowd
            .animate(&self.cast.models, self.time, self.view.skinning);
        let uniforms = camera::scene_uniforms(&self.camera, self.aspect, self.sun);
        let view = ViewOptions {
            frozen_cull: self.frozen_cull,
            ..self.view
        };
        self.crowd.frame_input(uniforms, view)
    }

    fn take_overlay(&mut self) -> Option<OverlayFrame> {
        self.overlay.take()
    }
}
