//! What animate.comp and cull.comp read: every clip's frames as local joint
//! poses, a table of clips, the skeleton (parents and inverse bind pose), and
//! each instance's animation state. Uploaded once, except the instance state,
//! which the CPU rewrites only when it changes (a clip switch).

use super::guard::{guard, Destroy};
use super::resources::{self, Buffer, TexelBuffer};
use super::shader_types::{ClipInfo, FrameBounds, GpuJointPose, SkeletonJoint, SkinningTransform};
use super::{Context, GpuError};
use crate::anim::JointPose;
use crate::crowd::{self, BoundingSphere, SharedPoses};
use crate::model::Model;
use ash::vk;

pub struct AnimationData {
    /// Every clip's frames, [`GpuJointPose`]s.
    pub clip_poses: TexelBuffer,
    /// At least one entry: a model without clips gets one standing for its
    /// bind pose, so culling always finds a bounding sphere.
    pub clips: Buffer,
    /// [`SkeletonJoint`]s.
    pub skeleton: TexelBuffer,
    /// Animation LOD: every clip's shared poses ([`SharedPoses`]); for a
    /// model without clips, its bind pose.
    pub shared_poses: Buffer,
    /// Every clip's per-frame body part boxes (`Model::part_bounds`: each
    /// part between that frame and the next) as min, max pairs, part p of
    /// frame f of a clip at `(first_pose / joint_count + f) * part_count + p`
    /// (a model without clips: its bind pose's box): cull.comp's occlusion
    /// bounds.
    pub frame_bounds: Buffer,
    /// Boxes per clip frame in `frame_bounds`: `Model::body_part_count`.
    pub part_count: u32,
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
    let corner = |p: glam::Vec3| p.extend(0.0).to_array();

    let shared = SharedPoses::sample(&model.skeleton, &model.clips);
    let mut poses: Vec<GpuJointPose> = Vec::new();
    let mut frame_bounds: Vec<FrameBounds> = Vec::new();
    let mut clips: Vec<ClipInfo> = Vec::with_capacity(model.clips.len().max(1));
    let part_count = model.body_part_count();
    for (c, ((clip, clip_sphere), &(shared_first, shared_count))) in model
        .clips
        .iter()
        .zip(&spheres)
        .zip(&shared.clips)
        .enumerate()
    {
        clips.push(ClipInfo {
            shared_first,
            shared_count,
            padding: [0; 2],
            first_pose: poses.len() as u32,
            frame_count: clip.frames.len() as u32,
            frame_rate: clip.frame_rate,
            looping: clip.looping.into(),
            bounding_sphere: sphere(*clip_sphere),
            bounds_min: corner(clip.bounds_union().min),
            bounds_max: corner(clip.bounds_union().max),
        });
        poses.extend(clip.frames.iter().flatten().map(|&p| GpuJointPose::from(p)));
        // Every frame gets part_count boxes, the frame's whole box standing
        // in for parts a model does not have (or a clip it lacks boxes for).
        let parts = model.part_bounds.get(c);
        for f in 0..clip.frames.len() {
            let whole = clip.bounds.get(f).copied().unwrap_or(clip.bounds_union());
            frame_bounds.extend((0..part_count).map(|p| {
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
    if frame_bounds.is_empty() {
        let b = model.bind_pose_bounds();
        frame_bounds.push(FrameBounds {
            min: corner(b.min),
            max: corner(b.max),
        });
    }
    if clips.is_empty() {
        clips.push(ClipInfo {
            bounding_sphere: sphere(bind_sphere),
            bounds_min: corner(model.bind_pose_bounds().min),
            bounds_max: corner(model.bind_pose_bounds().max),
            // Never read: without clips cull.comp points everyone at the
            // bind pose, the shared poses' first.
            shared_count: 1,
            ..ClipInfo::default()
        });
    }
    if poses.is_empty() {
        // Vulkan buffers cannot be empty; nothing reads this pose.
        poses.push(GpuJointPose::default());
    }
    let mut skeleton: Vec<SkeletonJoint> = Vec::with_capacity(joints);
    for (inverse_bind, parent) in model
        .skeleton
        .inverse_bind_pose
        .iter()
        .zip(&model.skeleton.parents)
    {
        // Parents come first.
        let depth = parent.map_or(0.0, |p| skeleton[usize::from(p)].depth + 1.0);
        skeleton.push(SkeletonJoint {
            inverse_bind_rotation: inverse_bind.rotation.to_array(),
            inverse_bind_translation: inverse_bind.translation.to_array(),
            parent: parent.map_or(-1.0, f32::from),
            depth,
            padding: [0.0; 3],
        });
    }

    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let upload = |name, bytes: &[u8]| {
        resources::create_buffer_with_data(ctx, name, storage, bytes).map(|b| guard(ctx, b))
    };
    let texels = |name, texels: &[[f32; 4]]| {
        resources::create_texel_buffer_with_data(ctx, name, texels).map(|b| guard(ctx, b))
    };
    let clip_poses = texels("clip frames", bytemuck::cast_slice(&poses))?;
    let clips = upload("clips", bytemuck::cast_slice(&clips))?;
    let skeleton = texels("skeleton", bytemuck::cast_slice(&skeleton))?;
    let mut shared_transforms = shared.transforms;
    if shared_transforms.is_empty() {
        // A model without clips stands in its bind pose, whose skinning
        // transforms are identities: the one pose every instance shares.
        shared_transforms = vec![SkinningTransform::from(JointPose::IDENTITY); joints.max(1)];
    }
    let shared_poses = upload("shared poses", bytemuck::cast_slice(&shared_transforms))?;
    let frame_bounds = upload("clip frame bounds", bytemuck::cast_slice(&frame_bounds))?;
    Ok(AnimationData {
        shared_poses: shared_poses.keep(),
        frame_bounds: frame_bounds.keep(),
        clip_poses: clip_poses.keep(),
        clips: clips.keep(),
        skeleton: skeleton.keep(),
        clip_count: model.clips.len() as u32,
        part_count: part_count as u32,
    })
}

impl Destroy for AnimationData {
    fn destroy(self, ctx: &Context) {
        self.clip_poses.destroy(ctx);
        self.clips.destroy(ctx);
        self.skeleton.destroy(ctx);
        self.shared_poses.destroy(ctx);
        self.frame_bounds.destroy(ctx);
    }
}
