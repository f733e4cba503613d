//! The CPU side of a frame, as the frame loop asks for it: the crowd, the
//! camera and the view switches. Callers advance `time` their own way (a
//! fixed step headless and in the benchmark, the wall clock in the window).

use super::camera::{self, OrbitCamera};
use super::crowd_state::CrowdState;
use crate::gpu::frame_loop::{FrameInput, FrameSource, ViewOptions};
use crate::model::Model;

pub struct Scene<'m> {
    pub model: &'m Model,
    pub crowd: CrowdState,
    pub camera: OrbitCamera,
    pub view: ViewOptions,
    /// Width over height of the image drawn.
    pub aspect: f32,
    /// The global time the next frame shows.
    pub time: f32,
}

impl FrameSource for Scene<'_> {
    fn frame_input(&mut self, _index: u64) -> FrameInput<'_> {
        self.crowd
            .animate(self.model, self.time, self.view.skinning);
        let uniforms = camera::frame_uniforms(&self.camera, self.aspect);
        self.crowd.frame_input(uniforms, self.view)
    }
}
