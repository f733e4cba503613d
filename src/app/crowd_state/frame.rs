//! The crowd frame by frame: moved to the frame's time and, with CPU
//! animation, posed (and skinned) on the CPU; then what the renderer reads.

use super::CrowdState;
use crate::crowd;
use crate::gpu::crowd_buffers::Animation;
use crate::gpu::frame_loop::{FrameInput, Posed, SceneUniforms, ViewOptions};
use crate::gpu::gpu_model;
use crate::model::Model;
use crate::skin::SkinningMethod;

impl CrowdState {
    /// Moves the crowd to global `time` (instances whose one-shot is over
    /// fade back to their loop); with CPU animation, poses every instance
    /// (GPU animation does that in animate.comp), and with CPU skinning
    /// skins every instance with `skinning`.
    pub fn animate(&mut self, models: &[Model], time: f32, skinning: SkinningMethod) {
        self.time = time;
        self.return_from_one_shots(time);
        if !matches!(self.spec.animation, Animation::Cpu | Animation::CpuSkinned) {
            return;
        }
        self.walking.clear();
        if let (true, Some(locomotion)) = (self.spec.locomotion, &self.locomotion) {
            self.walking
                .extend(
                    locomotion
                        .lanes
                        .iter()
                        .zip(&self.instances)
                        .map(
                            |(lane, base)| match &locomotion.tables[base.model as usize] {
                                Some(table) => crowd::agent_state(lane, table, time, base).instance,
                                None => *base,
                            },
                        ),
                );
        }
        let shown = if self.walking.is_empty() {
            &self.instances
        } else {
            &self.walking
        };
        let posed: Vec<crowd::ModelToPose> = models
            .iter()
            .zip(&self.models)
            .map(|(model, crowd_model)| crowd::ModelToPose {
                skeleton: &model.skeleton,
                clips: &model.clips,
                masks: &crowd_model.layer_masks,
                morph_defaults: &model.morphs.defaults,
                meshes: gpu_model::drawn_meshes(model).collect(),
                count: crowd_model.count,
            })
            .collect();
        crowd::pose_mixed_crowd(
            &posed,
            shown,
            (time, self.spec.blend_time),
            skinning,
            crowd::CrowdPoses {
                transforms: &mut self.skinning_transforms,
                morph_weights: &mut self.morph_weights,
                morph_stride: self.morph_stride,
                vertices: self.cpu_skinned.as_deref_mut(),
            },
        );
    }

    /// What the renderer needs for this frame, with `uniforms` completed by
    /// the crowd's clock; whether it walks is the crowd's to say.
    pub fn frame_input(
        &self,
        mut uniforms: SceneUniforms,
        mut view: ViewOptions,
    ) -> FrameInput<'_> {
        view.locomotion = self.spec.locomotion;
        uniforms.time = self.time;
        let (centre, radius) = self.reach[usize::from(self.walks())];
        let from_eye = uniforms.camera_position.truncate().distance(centre);
        uniforms.shadow_start = from_eye - radius;
        uniforms.shadow_distance = from_eye + radius;
        uniforms.blend_time = self.spec.blend_time;
        let skinning_transforms = &self.skinning_transforms[..];
        let posed = match (self.spec.animation, &self.cpu_skinned) {
            (Animation::Gpu, _) => Posed::OnGpu,
            (Animation::BindPose, _) => Posed::BindPose,
            (Animation::CpuSkinned, Some(vertices)) => Posed::CpuSkinned {
                skinning_transforms,
                vertices,
            },
            (Animation::Cpu | Animation::CpuSkinned, _) => Posed::Cpu {
                skinning_transforms,
                morph_weights: &self.morph_weights,
            },
        };
        FrameInput {
            uniforms,
            instances: &self.instance_animation,
            layers: &self.instance_layers,
            instances_version: self.instances_version,
            posed,
            view,
        }
    }
}
