//! The crowd as the renderer needs it each frame: placements and animation
//! state for the GPU, and, with CPU animation, every instance's skinning
//! transforms from the reference jobs ([`crate::crowd::animate_crowd`]) and
//! for the yardstick path the vertices skinned on the CPU too.

use glam::{Vec3, Vec4};

use crate::bounds::Bounds;
use crate::crowd::{self, CrowdLayout, Instance};
use crate::gpu::crowd_resources::Animation;
use crate::gpu::frame_loop::{FrameInput, Posed, ViewOptions};
use crate::gpu::gpu_model;
use crate::gpu::shader_types::{
    CrowdInstance, FrameUniforms, InstanceAnimation, SkinningTransform, SurfaceVertex,
};
use crate::model::Model;
use crate::skin::{self, SkinningMethod};

/// What the crowd is made from; the window rebuilds it with another count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdSpec {
    pub instances: u32,
    pub seed: u64,
    /// Grid spacing; `None`: 1.5 times the model's footprint.
    pub spacing: Option<f32>,
    /// Everyone plays this clip; `None`: a seeded mix.
    pub clip: Option<u32>,
    /// Seconds a clip switch crossfades over.
    pub blend_time: f32,
    pub animation: Animation,
}

pub struct CrowdState {
    pub spec: CrowdSpec,
    pub instances: Vec<Instance>,
    /// `instances` as the vertex shader reads them.
    pub placements: Vec<CrowdInstance>,
    /// `instances` as animate.comp and cull.comp read them; re-uploaded
    /// when `instances_version` changes.
    instance_animation: Vec<InstanceAnimation>,
    instances_version: u64,
    /// The global time of the last `animate` call.
    pub time: f32,
    /// CPU animation only: `instances.len() * joint_count`, instance-major.
    skinning_transforms: Vec<SkinningTransform>,
    /// Skinned surface vertices of every instance (CPU skinning only).
    pub cpu_skinned: Option<Vec<SurfaceVertex>>,
    /// Per clip, the box its poses stay in (md5anim `bounds`), and the
    /// bind pose's for a model without clips.
    clip_bounds: Vec<Bounds>,
    bind_pose_bounds: Bounds,
    skinned_positions: Vec<Vec3>,
    skinned_normals: Vec<Vec3>,
}

impl CrowdState {
    /// A seeded crowd on a grid. Instance 0 is the one a single-character
    /// view shows: it faces the camera (+X), plays the first clip (or
    /// `spec.clip`) from its start at normal speed, and keeps its texture's
    /// colours, so `--time T` shows frame T of it.
    pub fn new(model: &Model, spec: CrowdSpec) -> CrowdState {
        let bind_pose_bounds = model.bind_pose_bounds();
        let clip_bounds: Vec<Bounds> = model.clips.iter().map(|c| c.bounds_union()).collect();
        // Spaced so that no two neighbours touch, whatever they play.
        let footprint = clip_bounds
            .iter()
            .fold(bind_pose_bounds, |a, &b| a.union(b));
        let size = footprint.max - footprint.min;
        let layout = CrowdLayout {
            instances: spec.instances as usize,
            spacing: spec.spacing.unwrap_or(1.5 * size.x.max(size.y)),
            seed: spec.seed,
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
        if let Some(clip) = spec.clip {
            for instance in &mut instances {
                instance.clip = clip;
                instance.previous_clip = clip;
            }
        }
        let placements = instances.iter().map(CrowdInstance::from).collect();
        let joint_count = model.skeleton.joint_count();
        let vertex_count: usize = gpu_model::drawn_meshes(model)
            .map(|m| m.vertex_count())
            .sum();
        let transform_count = match spec.animation {
            Animation::Cpu | Animation::CpuSkinned => instances.len() * joint_count,
            Animation::Gpu | Animation::BindPose => 0,
        };
        CrowdState {
            spec,
            placements,
            instance_animation: instances.iter().map(InstanceAnimation::from).collect(),
            instances_version: 0,
            time: 0.0,
            skinning_transforms: vec![SkinningTransform::default(); transform_count],
            cpu_skinned: (spec.animation == Animation::CpuSkinned)
                .then(|| vec![SurfaceVertex::default(); instances.len() * vertex_count]),
            instances,
            clip_bounds,
            bind_pose_bounds,
            skinned_positions: Vec::new(),
            skinned_normals: Vec::new(),
        }
    }

    /// The name of the clip everyone plays, when they all play the same one.
    pub fn clip_name<'m>(&self, model: &'m Model) -> Option<&'m str> {
        let clip = model.clips.get(self.spec.clip? as usize)?;
        Some(&clip.name)
    }

    /// Everyone crossfades to `clip` from global `time` on (instances
    /// already playing it carry on undisturbed).
    pub fn play_everywhere(&mut self, clip: u32, time: f32) {
        self.spec.clip = Some(clip);
        for instance in self.instances.iter_mut().filter(|i| i.clip != clip) {
            instance.switch_clip(clip, time);
        }
        self.instance_animation = self.instances.iter().map(InstanceAnimation::from).collect();
        self.instances_version += 1;
    }

    /// The clip `step` places after the one everyone (or else the first
    /// character) plays, wrapping around; `None` without clips.
    pub fn stepped_clip(&self, step: i32, clip_count: usize) -> Option<u32> {
        let count = i64::try_from(clip_count).ok().filter(|&n| n > 0)?;
        let current = self
            .spec
            .clip
            .or_else(|| self.instances.first().map(|i| i.clip))
            .unwrap_or(0);
        Some((i64::from(current) + i64::from(step)).rem_euclid(count) as u32)
    }

    /// The corners of every instance's box, turned and placed as the
    /// instance is: what the camera frames. Each box holds every pose of
    /// the instance's clip, so the crowd stays in view while it plays.
    pub fn outline(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.instances.iter().flat_map(|instance| {
            let bounds = self
                .clip_bounds
                .get(instance.clip as usize)
                .unwrap_or(&self.bind_pose_bounds);
            let (sin, cos) = instance.yaw.sin_cos();
            corners(bounds).map(move |c| {
                instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z)
            })
        })
    }

    /// Moves the crowd to global `time`; with CPU animation, poses every
    /// instance (GPU animation does that in animate.comp), and with CPU
    /// skinning skins every instance with `skinning`.
    pub fn animate(&mut self, model: &Model, time: f32, skinning: SkinningMethod) {
        self.time = time;
        if !matches!(self.spec.animation, Animation::Cpu | Animation::CpuSkinned) {
            return;
        }
        crowd::animate_crowd(
            &model.skeleton,
            &model.clips,
            &self.instances,
            time,
            self.spec.blend_time,
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
                        skinning,
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
    pub fn frame_input(&self, mut uniforms: FrameUniforms, view: ViewOptions) -> FrameInput<'_> {
        uniforms.time = self.time;
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
            },
        };
        FrameInput {
            uniforms,
            instances: &self.instance_animation,
            instances_version: self.instances_version,
            posed,
            view,
        }
    }
}

fn corners(bounds: &Bounds) -> [Vec3; 8] {
    let (low, high) = (bounds.min, bounds.max);
    std::array::from_fn(|i| {
        Vec3::new(
            if i & 1 == 0 { low.x } else { high.x },
            if i & 2 == 0 { low.y } else { high.y },
            if i & 4 == 0 { low.z } else { high.z },
        )
    })
}
