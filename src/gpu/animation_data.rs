//! What animate.comp and cull.comp read: every clip's frames as local joint
//! poses, a table of clips, the skeleton (parents and inverse bind pose), and
//! each instance's animation state. Uploaded once, except the instance state,
//! which the CPU rewrites only when it changes (a clip switch).

use super::guard::{guard, Destroy};
use super::memory::{DeviceMemory, MemoryReport};
use super::morph_data;
use super::resources::{self, Buffer, TexelBuffer};
use super::shader_types::{ClipInfo, FrameBounds, GpuJointPose, SkeletonJoint, SkinningTransform};
use super::{Context, GpuError};
use crate::anim::JointPose;
use crate::crowd::{self, BoundingSphere, SharedPoses};
use crate::model::Model;
use crate::shared_constants::MORPH_NONE;
use crate::skin;
use ash::vk;

pub struct AnimationData {
    /// Every clip's frames, [`GpuJointPose`]s.
    pub clip_poses: TexelBuffer,
    /// Every model's clips, model after model ([`ModelClips::first_clip`]);
    /// a model without clips gets one entry standing for its bind pose, so
    /// culling always finds a bounding sphere.
    pub clips: Buffer,
    /// [`SkeletonJoint`]s, model after model.
    pub skeleton: TexelBuffer,
    /// Animation LOD: every clip's shared poses ([`SharedPoses`]); for a
    /// model without clips, its bind pose.
    pub shared_poses: Buffer,
    /// Every clip's per-frame body part boxes (`Model::part_bounds`: each
    /// part between that frame and the next) as min, max pairs, part p of
    /// frame f of a clip at `first_bounds + f * part_count + p` (a model
    /// without clips: its bind pose's box): cull.comp's occlusion bounds.
    pub frame_bounds: Buffer,
    /// Every model's layer channels' joints, a bit per joint
    /// (`anim::Channels::layer_masks`, the whole body first), model after
    /// model ([`ModelClips::first_layer_mask`]).
    pub layer_masks: Buffer,
    /// Every clip's morph weight rows (`morph_data::append_clip_rows`),
    /// [`morph_data::morph_stride`] weights a row.
    pub clip_morph_rows: Buffer,
    /// Per model, where its clips are.
    pub models: Vec<ModelClips>,
}

/// One model's part of the clip table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelClips {
    /// Its first entry in the clip table: what its instances' clip
    /// indices are counted from.
    pub first_clip: u32,
    /// Real clips (0 when the model has none; it still has an entry).
    pub clip_count: u32,
    /// Boxes per clip frame in `frame_bounds`: `Model::body_part_count`.
    pub part_count: u32,
    /// Its first layer mask's first word in `layer_masks`.
    pub first_layer_mask: u32,
    /// Its layer masks: the whole body and each of its channels.
    pub layer_mask_count: u32,
    /// [`crate::skin::layered_radius`].
    pub layered_radius: f32,
}

/// The bounding sphere culling uses for an instance of `clip`; for a model
/// without clips (or a clip index past them), the bind pose's.
pub fn clip_spheres(model: &Model) -> (Vec<BoundingSphere>, BoundingSphere) {
    (
        crowd::clip_spheres(&model.clips),
        BoundingSphere::around(model.bind_pose_bounds()),
    )
}

/// Everything `upload_animation_data` uploads, for every model in turn.
#[derive(Default)]
struct AnimationTables {
    poses: Vec<GpuJointPose>,
    frame_bounds: Vec<FrameBounds>,
    clips: Vec<ClipInfo>,
    skeleton: Vec<SkeletonJoint>,
    shared_transforms: Vec<SkinningTransform>,
    layer_masks: Vec<u32>,
    morph_rows: Vec<f32>,
    morph_stride: usize,
    models: Vec<ModelClips>,
}

impl AnimationTables {
    /// Appends `model`'s tables, its clips from `first_clip` on in the
    /// clip table ([`first_clips`]).
    fn add(&mut self, model: &Model, first_clip: u32) {
        let (spheres, bind_sphere) = clip_spheres(model);
        let sphere = |s: BoundingSphere| s.centre.extend(s.radius).to_array();
        let corner = |p: glam::Vec3| p.extend(0.0).to_array();
        let shared = SharedPoses::sample(&model.skeleton, &model.clips);
        let shared_base = self.shared_transforms.len() as u32;
        let part_count = model.body_part_count();
        let morph_rows =
            morph_data::append_clip_rows(model, self.morph_stride, &mut self.morph_rows);
        for (c, (((clip, clip_sphere), &(shared_first, shared_count)), first_morph_row)) in model
            .clips
            .iter()
            .zip(&spheres)
            .zip(&shared.clips)
            .zip(morph_rows)
            .enumerate()
        {
            self.clips.push(ClipInfo {
                shared_first: shared_base + shared_first,
                shared_count,
                first_bounds: self.frame_bounds.len() as u32,
                first_morph_row,
                first_pose: self.poses.len() as u32,
                frame_count: clip.frames.len() as u32,
                frame_rate: clip.frame_rate,
                looping: clip.looping.into(),
                bounding_sphere: sphere(*clip_sphere),
                bounds_min: corner(clip.bounds_union().min),
                bounds_max: corner(clip.bounds_union().max),
            });
            self.poses
                .extend(clip.frames.iter().flatten().map(|&p| GpuJointPose::from(p)));
            // Every frame gets part_count boxes, the frame's whole box
            // standing in for parts a model does not have (or a clip it
            // lacks boxes for).
            let parts = model.part_bounds.get(c);
            for f in 0..clip.frames.len() {
                let whole = clip.bounds.get(f).copied().unwrap_or(clip.bounds_union());
                self.frame_bounds.extend((0..part_count).map(|p| {
                    let b = parts
                        .and_then(|parts| parts.frame(f).get(p))
                        .copied()
                        .unwrap_or(whole);
                    FrameBounds {
                        min: corner(b.min),
                        max: corner(b.max),
                    }
                }));
            }
        }
        self.shared_transforms.extend(shared.transforms);
        if model.clips.is_empty() {
            let b = model.bind_pose_bounds();
            self.clips.push(ClipInfo {
                bounding_sphere: sphere(bind_sphere),
                bounds_min: corner(b.min),
                bounds_max: corner(b.max),
                first_bounds: self.frame_bounds.len() as u32,
                // A model without clips stands in its bind pose, whose
                // skinning transforms are identities: the one pose its
                // instances share (cull.comp points them here).
                shared_first: self.shared_transforms.len() as u32,
                shared_count: 1,
                first_morph_row: MORPH_NONE,
                ..ClipInfo::default()
            });
            self.frame_bounds.push(FrameBounds {
                min: corner(b.min),
                max: corner(b.max),
            });
            self.shared_transforms.extend(std::iter::repeat_n(
                SkinningTransform::from(JointPose::IDENTITY),
                model.skeleton.joint_count().max(1),
            ));
        }
        let first_joint = self.skeleton.len();
        for (inverse_bind, parent) in model
            .skeleton
            .inverse_bind_pose
            .iter()
            .zip(&model.skeleton.parents)
        {
            // Parents come first.
            let depth = parent.map_or(0.0, |p| {
                self.skeleton[first_joint + usize::from(p)].depth + 1.0
            });
            self.skeleton.push(SkeletonJoint {
                inverse_bind_rotation: inverse_bind.rotation.to_array(),
                inverse_bind_translation: inverse_bind.translation.to_array(),
                parent: parent.map_or(-1.0, f32::from),
                depth,
                padding: [0.0; 3],
            });
        }
        let first_layer_mask = self.layer_masks.len() as u32;
        let masks = model.channels.layer_masks();
        let layer_mask_count = masks.len() as u32;
        for mask in masks {
            self.layer_masks.extend(mask.words);
        }
        self.models.push(ModelClips {
            first_clip,
            clip_count: model.clips.len() as u32,
            part_count: part_count as u32,
            first_layer_mask,
            layer_mask_count,
            layered_radius: skin::layered_radius(&model.skeleton, &model.clips, &model.meshes),
        });
    }
}

pub fn upload_animation_data(ctx: &Context, models: &[Model]) -> Result<AnimationData, GpuError> {
    let mut tables = AnimationTables {
        morph_stride: morph_data::morph_stride(models) as usize,
        ..AnimationTables::default()
    };
    for (model, first_clip) in models.iter().zip(first_clips(models)) {
        tables.add(model, first_clip);
    }
    if tables.poses.is_empty() {
        // Vulkan buffers cannot be empty; nothing reads this pose.
        tables.poses.push(GpuJointPose::default());
    }
    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let upload = |name, bytes: &[u8]| {
        resources::create_buffer_with_data(ctx, name, storage, bytes).map(|b| guard(ctx, b))
    };
    let texels = |name, texels: &[[f32; 4]]| {
        resources::create_texel_buffer_with_data(ctx, name, texels).map(|b| guard(ctx, b))
    };
    let clip_poses = texels("clip frames", bytemuck::cast_slice(&tables.poses))?;
    let clips = upload("clips", bytemuck::cast_slice(&tables.clips))?;
    let skeleton = texels("skeleton", bytemuck::cast_slice(&tables.skeleton))?;
    let shared_poses = upload(
        "shared poses",
        bytemuck::cast_slice(&tables.shared_transforms),
    )?;
    let frame_bounds = upload(
        "clip frame bounds",
        bytemuck::cast_slice(&tables.frame_bounds),
    )?;
    if tables.layer_masks.is_empty() {
        // Models without joints; nothing reads this word.
        tables.layer_masks.push(0);
    }
    let layer_masks = upload("layer masks", bytemuck::cast_slice(&tables.layer_masks))?;
    if tables.morph_rows.is_empty() {
        // No model has morph targets; nothing reads this weight.
        tables.morph_rows.push(0.0);
    }
    let clip_morph_rows = upload(
        "clip morph weights",
        bytemuck::cast_slice(&tables.morph_rows),
    )?;
    Ok(AnimationData {
        shared_poses: shared_poses.keep(),
        frame_bounds: frame_bounds.keep(),
        layer_masks: layer_masks.keep(),
        clip_morph_rows: clip_morph_rows.keep(),
        clip_poses: clip_poses.keep(),
        clips: clips.keep(),
        skeleton: skeleton.keep(),
        models: tables.models,
    })
}

/// Per model, its first clip in the clip table that
/// [`upload_animation_data`] writes for `models`: model after model, a
/// model without clips taking one entry for its bind pose. The one place
/// the table's layout is counted: the uploaded table
/// ([`AnimationData::models`]) and the crowd's instance states
/// ([`crate::gpu::shader_types::InstanceAnimation::new`]) both take it from here.
pub fn first_clips(models: &[Model]) -> Vec<u32> {
    models
        .iter()
        .scan(0u32, |next, model| {
            let first = *next;
            *next += model.clips.len().max(1) as u32;
            Some(first)
        })
        .collect()
}

impl AnimationData {
    /// Per model, its first clip in the clip table
    /// ([`crate::gpu::shader_types::InstanceAnimation::new`]).
    pub fn first_clips(&self) -> Vec<u32> {
        self.models.iter().map(|m| m.first_clip).collect()
    }
}

impl DeviceMemory for AnimationData {
    fn memory(&self) -> MemoryReport {
        MemoryReport::buffers([
            &self.clip_poses.buffer,
            &self.clips,
            &self.skeleton.buffer,
            &self.shared_poses,
            &self.frame_bounds,
            &self.layer_masks,
            &self.clip_morph_rows,
        ])
    }
}

impl Destroy for AnimationData {
    fn destroy(self, ctx: &Context) {
        self.clip_poses.destroy(ctx);
        self.clips.destroy(ctx);
        self.skeleton.destroy(ctx);
        self.shared_poses.destroy(ctx);
        self.frame_bounds.destroy(ctx);
        self.layer_masks.destroy(ctx);
        self.clip_morph_rows.destroy(ctx);
    }
}
