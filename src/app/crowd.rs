//! The crowd on the CPU side: where each character stands, and each frame
//! its pose, through the reference animation jobs (sample, local to model,
//! skinning transforms) and, for the yardstick path, CPU skinning.

use glam::Vec3;

use crate::anim::{self, JointPose, SkinningTransform};
use crate::gpu::gpu_model::{self, SurfaceVertex};
use crate::gpu::renderer::CrowdInstance;
use crate::md5::Bounds;
use crate::model::Model;
use crate::skin;

/// Instance `i` plays its clip this many seconds ahead of instance 0, so a
/// crowd does not march in lockstep; instance 0 shows exactly `--time`.
const TIME_OFFSET_STEP: f32 = 0.37;

/// Tints cycled over instances 1.. (instance 0 keeps its texture's colours).
const TINTS: [[f32; 3]; 6] = [
    [1.0, 0.75, 0.7],
    [0.7, 0.85, 1.0],
    [0.75, 1.0, 0.75],
    [1.0, 0.95, 0.65],
    [0.9, 0.75, 1.0],
    [0.7, 1.0, 0.95],
];

pub struct Crowd {
    pub instances: Vec<CrowdInstance>,
    time_offsets: Vec<f32>,
    /// World-space box around every instance.
    pub world_bounds: Bounds,
    /// `instances.len() * joint_count`, instance-major: the GPU's input.
    pub skinning_transforms: Vec<SkinningTransform>,
    /// Skinned surface vertices of every instance (CPU skinning only).
    pub cpu_skinned: Option<Vec<SurfaceVertex>>,
    local_pose: Vec<JointPose>,
    model_pose: Vec<JointPose>,
    skinned_positions: Vec<Vec3>,
    skinned_normals: Vec<Vec3>,
}

impl Crowd {
    /// `count` characters on a square grid, facing +X (towards the default
    /// camera), spaced by their footprint.
    pub fn new(model: &Model, count: u32, cpu_skinning: bool) -> Crowd {
        let model_bounds = model_bounds(model);
        let size = model_bounds.max - model_bounds.min;
        let spacing = 1.5 * size.x.max(size.y);
        let columns = (count as f32).sqrt().ceil() as u32;
        let instances: Vec<CrowdInstance> = (0..count)
            .map(|i| {
                let (row, column) = (i / columns, i % columns);
                // Rows recede along -X, away from the camera; columns are centred on Y.
                let position = Vec3::new(
                    -(row as f32) * spacing,
                    (column as f32 - (columns - 1) as f32 / 2.0) * spacing,
                    0.0,
                );
                let tint = if i == 0 {
                    [1.0; 3]
                } else {
                    TINTS[(i as usize - 1) % TINTS.len()]
                };
                CrowdInstance {
                    placement: position.extend(0.0),
                    tint: Vec3::from(tint).extend(1.0),
                }
            })
            .collect();
        let world_bounds = instances.iter().fold(
            Bounds {
                min: Vec3::splat(f32::INFINITY),
                max: Vec3::splat(f32::NEG_INFINITY),
            },
            |acc, instance| Bounds {
                min: acc
                    .min
                    .min(instance.placement.truncate() + model_bounds.min),
                max: acc
                    .max
                    .max(instance.placement.truncate() + model_bounds.max),
            },
        );
        let joint_count = model.skeleton.joint_count();
        let vertex_count: usize = gpu_model::drawn_meshes(model)
            .map(|m| m.vertex_count())
            .sum();
        Crowd {
            time_offsets: (0..count).map(|i| i as f32 * TIME_OFFSET_STEP).collect(),
            instances,
            world_bounds,
            skinning_transforms: vec![SkinningTransform::default(); count as usize * joint_count],
            cpu_skinned: cpu_skinning
                .then(|| vec![SurfaceVertex::default(); count as usize * vertex_count]),
            local_pose: vec![JointPose::IDENTITY; joint_count],
            model_pose: vec![JointPose::IDENTITY; joint_count],
            skinned_positions: Vec::new(),
            skinned_normals: Vec::new(),
        }
    }

    /// Poses every instance at `time` (plus its offset) in the model's first
    /// clip, or in the bind pose when it has none.
    pub fn animate(&mut self, model: &Model, time: f32) {
        let joint_count = model.skeleton.joint_count();
        let clip = model.clips.first();
        for (instance, offset) in self.time_offsets.iter().enumerate() {
            match clip {
                Some(clip) => {
                    anim::sample_clip(clip, time + offset, &mut self.local_pose);
                    anim::local_to_model(
                        &model.skeleton.parents,
                        &self.local_pose,
                        &mut self.model_pose,
                    );
                }
                None => self.model_pose.copy_from_slice(&model.skeleton.bind_pose),
            }
            let transforms =
                &mut self.skinning_transforms[instance * joint_count..(instance + 1) * joint_count];
            anim::skinning_transforms(
                &self.model_pose,
                &model.skeleton.inverse_bind_pose,
                transforms,
            );
        }
        if self.cpu_skinned.is_some() {
            self.skin_on_cpu(model);
        }
    }

    fn skin_on_cpu(&mut self, model: &Model) {
        let Some(out) = self.cpu_skinned.as_mut() else {
            return;
        };
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
                for (vertex, (&position, &normal)) in out[next..next + count]
                    .iter_mut()
                    .zip(self.skinned_positions.iter().zip(&self.skinned_normals))
                {
                    *vertex = SurfaceVertex { position, normal };
                }
                next += count;
            }
        }
    }
}

/// The bind-pose vertices' box, grown by the first clip's per-frame bounds.
fn model_bounds(model: &Model) -> Bounds {
    let mut bounds = gpu_model::drawn_meshes(model)
        .flat_map(|m| &m.positions)
        .fold(
            Bounds {
                min: Vec3::splat(f32::INFINITY),
                max: Vec3::splat(f32::NEG_INFINITY),
            },
            |acc, &p| Bounds {
                min: acc.min.min(p),
                max: acc.max.max(p),
            },
        );
    if let Some(clip) = model.clips.first() {
        let animated = clip.bounds_union();
        bounds.min = bounds.min.min(animated.min);
        bounds.max = bounds.max.max(animated.max);
    }
    bounds
}
