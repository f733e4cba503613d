//! The crowd as the renderer needs it each frame: placements and animation
//! state for the GPU, and, with CPU animation, every instance's skinning
//! transforms from the reference jobs ([`crate::crowd::animate_crowd`]) and
//! for the yardstick path the vertices skinned on the CPU too.

use glam::{Vec3, Vec4};

use crate::anim::SkinningTransform;
use crate::crowd::{self, CrowdLayout, Instance};
use crate::gpu::animation_data::InstanceAnimation;
use crate::gpu::gpu_model::{self, SurfaceVertex};
use crate::gpu::passes::crowd_draw::SkinningMode;
use crate::gpu::renderer::{Animation, CrowdInstance, FrameInput, FrameUniforms};
use crate::md5::Bounds;
use crate::model::Model;
use crate::skin;

pub struct CrowdState {
    pub instances: Vec<Instance>,
    /// `instances` as the vertex shader reads them.
    pub placements: Vec<CrowdInstance>,
    /// World-space box around every instance, for framing the camera.
    pub world_bounds: Bounds,
    pub animation: Animation,
    /// `instances` as animate.comp and cull.comp read them; re-uploaded
    /// when `instances_version` changes.
    instance_animation: Vec<InstanceAnimation>,
    instances_version: u64,
    /// Seconds a crossfade between clips lasts.
    pub blend_time: f32,
    /// The global time of the last `animate` call.
    pub time: f32,
    /// CPU animation only: `instances.len() * joint_count`, instance-major.
    skinning_transforms: Vec<SkinningTransform>,
    /// Skinned surface vertices of every instance (CPU skinning only).
    pub cpu_skinned: Option<Vec<SurfaceVertex>>,
    skinned_positions: Vec<Vec3>,
    skinned_normals: Vec<Vec3>,
}

impl CrowdState {
    /// A seeded crowd of `count` on a grid spaced by the model's footprint.
    /// Instance 0 is the one a single-character view shows: it faces the
    /// camera (+X), plays the first clip from its start at normal speed,
    /// and keeps its texture's colours, so `--time T` shows frame T of it.
    pub fn new(
        model: &Model,
        count: u32,
        seed: u64,
        animation: Animation,
        cpu_skinning: bool,
    ) -> CrowdState {
        let model_bounds = model_bounds(model);
        let size = model_bounds.max - model_bounds.min;
        let layout = CrowdLayout {
            instances: count as usize,
            spacing: 1.5 * size.x.max(size.y),
            seed,
        };
        let durations: Vec<f32> = model.clips.iter().map(|c| c.duration()).collect();
        let mut instances = crowd::spawn_crowd(&layout, model.clips.len(), &durations);
        if let Some(first) = instances.first_mut() {
            *first = Instance {
                yaw: 0.0,
                clip: 0,
                previous_clip: 0,
                phase: 0.0,
                rate: 1.0,
                tint: Vec4::ONE,
                ..*first
            };
        }
        let placements = instances
            .iter()
            .map(|i| CrowdInstance {
                placement: i.position.extend(i.yaw),
                tint: i.tint,
            })
            .collect();
        // Whatever its yaw, a character stays inside the upright cylinder
        // around its footprint.
        let reach = model_bounds
            .min
            .truncate()
            .abs()
            .max(model_bounds.max.truncate().abs())
            .length();
        let (low, high) = (
            Vec3::new(-reach, -reach, model_bounds.min.z),
            Vec3::new(reach, reach, model_bounds.max.z),
        );
        let world_bounds = instances.iter().fold(
            Bounds {
                min: Vec3::splat(f32::INFINITY),
                max: Vec3::splat(f32::NEG_INFINITY),
            },
            |acc, instance| Bounds {
                min: acc.min.min(instance.position + low),
                max: acc.max.max(instance.position + high),
            },
        );
        let joint_count = model.skeleton.joint_count();
        let vertex_count: usize = gpu_model::drawn_meshes(model)
            .map(|m| m.vertex_count())
            .sum();
        let transform_count = match animation {
            Animation::Cpu => instances.len() * joint_count,
            Animation::Gpu | Animation::Off => 0,
        };
        CrowdState {
            placements,
            world_bounds,
            animation,
            instance_animation: instances.iter().map(InstanceAnimation::from).collect(),
            instances_version: 0,
            blend_time: 0.25,
            time: 0.0,
            skinning_transforms: vec![SkinningTransform::default(); transform_count],
            cpu_skinned: cpu_skinning
                .then(|| vec![SurfaceVertex::default(); instances.len() * vertex_count]),
            instances,
            skinned_positions: Vec::new(),
            skinned_normals: Vec::new(),
        }
    }

    /// Moves the crowd to global `time`; with CPU animation, poses every
    /// instance (GPU animation does that in animate.comp).
    pub fn animate(&mut self, model: &Model, time: f32) {
        self.time = time;
        if self.animation != Animation::Cpu {
            return;
        }
        crowd::animate_crowd(
            &model.skeleton,
            &model.clips,
            &self.instances,
            time,
            self.blend_time,
            &mut self.skinning_transforms,
        );
        if let Some(out) = self.cpu_skinned.as_mut() {
            let joint_count = model.skeleton.joint_count();
            let mut next = 0;
            for transforms in self.skinning_transforms.chunks_exact(joint_count) {
                for mesh in gpu_model::drawn_meshes(model) {
                    let count = mesh.vertex_count();
                    self.skinned_positions.resize(count, Vec3::ZERO);
                    self.skinned_normals.resize(count, Vec3::ZERO);
                    skin::skin_vertices(
                        mesh,
                        transforms,
                        &mut self.skinned_positions,
                        &mut self.skinned_normals,
                    );
                    let skinned = self.skinned_positions.iter().zip(&self.skinned_normals);
                    for (vertex, (&position, &normal)) in
                        out[next..next + count].iter_mut().zip(skinned)
                    {
                        *vertex = SurfaceVertex { position, normal };
                    }
                    next += count;
                }
            }
        }
    }
}

impl CrowdState {
    /// What the renderer needs for this frame, with `uniforms` completed by
    /// the crowd's clock.
    pub fn frame_input(
        &self,
        mut uniforms: FrameUniforms,
        skinning_mode: SkinningMode,
        show_skeleton: bool,
    ) -> FrameInput<'_> {
        uniforms.time = self.time;
        uniforms.blend_time = self.blend_time;
        FrameInput {
            uniforms,
            instances: &self.instance_animation,
            instances_version: self.instances_version,
            skinning_transforms: (self.animation == Animation::Cpu)
                .then_some(&self.skinning_transforms[..]),
            cpu_skinned: self.cpu_skinned.as_deref(),
            skinning_mode,
            show_skeleton,
        }
    }
}

/// The bind-pose vertices' box, grown by every clip's per-frame bounds.
fn model_bounds(model: &Model) -> Bounds {
    model.clips.iter().fold(model.bind_pose_bounds(), |acc, c| {
        acc.union(c.bounds_union())
    })
}
