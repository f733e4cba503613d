//! What animate.comp and cull.comp read: every clip's frames as local joint
//! poses, a table of clips, the skeleton (parents and inverse bind pose), and
//! each instance's animation state. Uploaded once, except the instance state,
//! which the CPU rewrites only when it changes (a clip switch).

use ash::vk;
use bytemuck::{Pod, Zeroable};

use super::resources::{self, Buffer};
use super::{Context, GpuError};
use crate::anim::JointPose;
use crate::crowd::{self, BoundingSphere, Instance};
use crate::model::Model;

/// Twin of `JointPose` in shaders/animation.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuJointPose {
    pub rotation: [f32; 4],
    pub translation: [f32; 4],
}

impl From<JointPose> for GpuJointPose {
    fn from(pose: JointPose) -> Self {
        GpuJointPose {
            rotation: pose.rotation.to_array(),
            translation: pose.translation.extend(0.0).to_array(),
        }
    }
}

/// Twin of `ClipInfo` in shaders/animation.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ClipInfo {
    pub first_pose: u32,
    pub frame_count: u32,
    pub frame_rate: f32,
    pub looping: u32,
    /// xyz centre, w radius.
    pub bounding_sphere: [f32; 4],
}

/// Twin of `SkeletonJoint` in shaders/animation.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkeletonJoint {
    pub inverse_bind_pose: GpuJointPose,
    /// -1 for roots.
    pub parent: i32,
    pub padding: [u32; 3],
}

/// Twin of `InstanceAnimation` in shaders/animation.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct InstanceAnimation {
    pub clip: u32,
    pub previous_clip: u32,
    pub blend_start: f32,
    pub phase: f32,
    pub rate: f32,
    pub padding: [u32; 3],
}

impl From<&Instance> for InstanceAnimation {
    fn from(i: &Instance) -> Self {
        InstanceAnimation {
            clip: i.clip,
            previous_clip: i.previous_clip,
            blend_start: i.blend_start,
            phase: i.phase,
            rate: i.rate,
            padding: [0; 3],
        }
    }
}

pub struct AnimationData {
    pub clip_poses: Buffer,
    /// At least one entry: a model without clips gets one standing for its
    /// bind pose, so culling always finds a bounding sphere.
    pub clips: Buffer,
    pub skeleton: Buffer,
    /// Real clips (0 when the model has none).
    pub clip_count: u32,
}

/// The bounding sphere culling uses for an instance of `clip`; for a model
/// without clips (or a clip index past them), the bind pose's.
pub fn clip_spheres(model: &Model) -> (Vec<BoundingSphere>, BoundingSphere) {
    (
        crowd::clip_spheres(&model.clips),
        BoundingSphere::around(model.bind_pose_bounds()),
    )
}

pub fn upload_animation_data(ctx: &Context, model: &Model) -> Result<AnimationData, GpuError> {
    let joints = model.skeleton.joint_count();
    let (spheres, bind_sphere) = clip_spheres(model);
    let sphere = |s: BoundingSphere| s.centre.extend(s.radius).to_array();

    let mut poses: Vec<GpuJointPose> = Vec::new();
    let mut clips: Vec<ClipInfo> = Vec::with_capacity(model.clips.len().max(1));
    for (clip, clip_sphere) in model.clips.iter().zip(&spheres) {
        clips.push(ClipInfo {
            first_pose: poses.len() as u32,
            frame_count: clip.frames.len() as u32,
            frame_rate: clip.frame_rate,
            looping: clip.looping.into(),
            bounding_sphere: sphere(*clip_sphere),
        });
        poses.extend(clip.frames.iter().flatten().map(|&p| GpuJointPose::from(p)));
    }
    if clips.is_empty() {
        clips.push(ClipInfo {
            bounding_sphere: sphere(bind_sphere),
            ..ClipInfo::default()
        });
    }
    if poses.is_empty() {
        // Vulkan buffers cannot be empty; nothing reads this pose.
        poses.push(GpuJointPose::default());
    }
    let skeleton: Vec<SkeletonJoint> = (0..joints)
        .map(|j| SkeletonJoint {
            inverse_bind_pose: model.skeleton.inverse_bind_pose[j].into(),
            parent: model.skeleton.parents[j].map_or(-1, i32::from),
            padding: [0; 3],
        })
        .collect();

    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let upload = |name, bytes: &[u8]| resources::create_buffer_with_data(ctx, name, storage, bytes);
    let clip_poses = upload("clip frames", bytemuck::cast_slice(&poses))?;
    let clips = match upload("clips", bytemuck::cast_slice(&clips)) {
        Ok(buffer) => buffer,
        Err(error) => {
            resources::destroy_buffer(ctx, clip_poses);
            return Err(error);
        }
    };
    let skeleton = match upload("skeleton", bytemuck::cast_slice(&skeleton)) {
        Ok(buffer) => buffer,
        Err(error) => {
            resources::destroy_buffer(ctx, clip_poses);
            resources::destroy_buffer(ctx, clips);
            return Err(error);
        }
    };
    Ok(AnimationData {
        clip_poses,
        clips,
        skeleton,
        clip_count: model.clips.len() as u32,
    })
}

pub fn destroy_animation_data(ctx: &Context, data: AnimationData) {
    resources::destroy_buffer(ctx, data.clip_poses);
    resources::destroy_buffer(ctx, data.clips);
    resources::destroy_buffer(ctx, data.skeleton);
}
