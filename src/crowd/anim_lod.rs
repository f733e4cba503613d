//! Animation level of detail, CPU reference of cull.comp's choice: a
//! distant instance (its bounding sphere projects to at most a few pixels of
//! radius, the measure the mesh levels use) that is not crossfading shows a
//! pose shared by every such instance of its clip at the same moment,
//! instead of its own. Each clip's shared poses are sampled at load, one per
//! 1 / [`SHARED_POSE_RATE`] s of clip time: a distant character moves at
//! 30 poses a second and costs nothing to animate. Near instances stay exact.

use crate::anim::{Clip, Skeleton, SkinningTransform};
use crate::shared_constants::IMPOSTOR_BAND;

use super::{animate_instance, Animated, BoundingSphere, CullView, Instance};

pub use crate::shared_constants::SHARED_POSE_RATE;

/// Every clip's shared poses, as the GPU holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedPoses {
    /// `count` poses of `joint_count` transforms per clip, clip after clip.
    pub transforms: Vec<SkinningTransform>,
    /// Per clip: the index of its first transform and how many poses.
    pub clips: Vec<(u32, u32)>,
}

/// Poses for `clip` at clip times 0, 1 / rate, 2 / rate, ... its duration.
pub fn shared_pose_count(clip: &Clip) -> u32 {
    (clip.duration() * SHARED_POSE_RATE).floor() as u32 + 1
}

impl SharedPoses {
    pub fn sample(skeleton: &Skeleton, clips: &[Clip]) -> SharedPoses {
        let joints = skeleton.joint_count();
        let mut transforms = Vec::new();
        let mut table = Vec::with_capacity(clips.len());
        for (index, clip) in clips.iter().enumerate() {
            let count = shared_pose_count(clip);
            table.push((transforms.len() as u32, count));
            let mut pose = vec![SkinningTransform::default(); joints];
            for k in 0..count {
                let moment = Instance::settled(index as u32, k as f32 / SHARED_POSE_RATE);
                animate_instance(
                    Animated::unlayered(skeleton, clips),
                    &moment,
                    0.0,
                    0.0,
                    &mut pose,
                );
                transforms.extend_from_slice(&pose);
            }
        }
        SharedPoses {
            transforms,
            clips: table,
        }
    }
}

/// Which of `clip`'s shared poses shows clip time `time`, wrapped or
/// clamped as the clip plays it.
pub fn shared_pose_index(clip: &Clip, time: f32) -> u32 {
    let duration = clip.duration();
    let time = match (duration > 0.0, clip.looping) {
        (false, _) => 0.0,
        (true, true) => time.rem_euclid(duration),
        (true, false) => time.clamp(0.0, duration),
    };
    ((time * SHARED_POSE_RATE).floor() as u32).min(shared_pose_count(clip) - 1)
}

/// cull.comp's choice for an instance whose world-space sphere is `sphere`:
/// `Some(pose)`, the index of the shared pose of its clip it shows, or
/// `None` when it is posed on its own (near, crossfading, playing layers, or
/// animation LOD off: `max_radius` 0). `max_radius` is the largest projected radius, in
/// pixels, that shares.
#[allow(clippy::too_many_arguments)]
pub fn shared_pose(
    instance: &Instance,
    clips: &[Clip],
    time: f32,
    blend_time: f32,
    view: &CullView,
    sphere: BoundingSphere,
    max_radius: f32,
) -> Option<u32> {
    let clip = clips.get(instance.clip as usize)?;
    // No shared pose has an instance's layers or morph weights (a clip of a
    // model with morph targets carries weight frames).
    if instance.blend_weight(time, blend_time) < 1.0
        || instance.plays_layers()
        || !clip.morphs.frames.is_empty()
    {
        return None;
    }
    view.nearest(sphere)?;
    let w = view.clip_w(sphere.centre);
    if sphere.radius * view.lod.pixels_per_unit > max_radius * w {
        return None;
    }
    Some(shared_pose_index(clip, instance.local_time(time)))
}

/// Where a shadow caster's skinning transforms are. cull.comp's camera
/// phase that runs first poses every mesh caster of the frame's cascades,
/// drawn or not, and the cascades read its pose sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CasterPose {
    /// Drawn by the camera: its pose source there, without the impostor
    /// band's bit.
    Camera(u32),
    /// Not drawn: the index among its clip's shared poses
    /// ([`shared_pose_index`]) where the camera's animation level of detail
    /// would have shared it (a model without clips: its bind pose, 0).
    Shared(u32),
    /// Not drawn: palette rows of its own, animated with the camera's.
    Own,
}

/// The pose a shadow caster is drawn in: the camera's (`camera_drew`, its
/// pose source when the camera drew its mesh this frame); else the one the
/// camera would have drawn it in (out of view, hidden by occlusion, or
/// waiting in the late phase): [`shared_pose`] through `camera` with
/// `max_radius`, or rows of its own. Either way its shadow has its
/// picture's pose, and occlusion culling changes no shadow.
pub fn caster_pose(
    camera_drew: Option<u32>,
    instance: &Instance,
    clips: &[Clip],
    (time, blend_time): (f32, f32),
    camera: &CullView,
    sphere: BoundingSphere,
    max_radius: f32,
) -> CasterPose {
    if let Some(source) = camera_drew {
        return CasterPose::Camera(source & !IMPOSTOR_BAND);
    }
    if clips.is_empty() {
        return CasterPose::Shared(0);
    }
    match shared_pose(
        instance, clips, time, blend_time, camera, sphere, max_radius,
    ) {
        Some(pose) => CasterPose::Shared(pose),
        None => CasterPose::Own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::JointPose;
    use crate::bounds::Bounds;
    use glam::Vec3;
    use glam::{Mat4, Vec4};

    /// A one-joint clip of `frames` frames at 24 fps.
    fn clip(frames: usize, looping: bool) -> Clip {
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: 24.0,
            looping,
            frames: vec![vec![JointPose::IDENTITY]; frames],
            bounds: vec![Bounds::point(Vec3::ZERO); frames],
        }
    }

    #[test]
    fn shared_poses_cover_the_clip_at_the_rate() {
        // 25 frames at 24 fps: one second, 31 poses (0 to 30 / 30 s).
        let second = clip(25, true);
        assert_eq!(shared_pose_count(&second), 31);
        assert_eq!(shared_pose_index(&second, 0.0), 0);
        assert_eq!(shared_pose_index(&second, 0.51), 15);
        // Looping wraps; a one-off clip holds its last pose.
        assert_eq!(shared_pose_index(&second, 1.51), 15);
        assert_eq!(shared_pose_index(&clip(25, false), 7.0), 30);
        assert_eq!(shared_pose_index(&clip(1, true), 3.0), 0);
    }

    /// A camera 10 units behind the origin on -X, looking along +X, 720
    /// pixels square.
    fn camera() -> CullView {
        let view = Mat4::look_at_rh(Vec3::new(-10.0, 0.0, 0.0), Vec3::ZERO, Vec3::Z);
        let mut projection = Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 0.1);
        projection.y_axis.y = -projection.y_axis.y;
        let vp = projection * view;
        CullView::new(vp, vp.inverse() * Vec4::Z, (720, 720), Some(1.0))
    }

    /// A unit sphere at `x` on the X axis.
    fn at(x: f32) -> BoundingSphere {
        BoundingSphere {
            centre: Vec3::new(x, 0.0, 0.0),
            radius: 1.0,
        }
    }

    #[test]
    fn only_small_settled_instances_share() {
        let clips = [clip(25, true), clip(25, true)];
        let view = camera();
        let instance = Instance::settled(1, 0.25);
        let choose = |instance: &Instance, sphere| {
            shared_pose(instance, &clips, 1.0, 0.25, &view, sphere, 16.0)
        };
        assert_eq!(choose(&instance, at(0.0)), None, "near: its own pose");
        assert_eq!(
            choose(&instance, at(1000.0)),
            Some(7),
            "far: 1.25 s wraps to 0.25 s"
        );
        let mut fading = instance;
        fading.switch_clip(0, true, 0.9, 0.25);
        assert_eq!(
            choose(&fading, at(1000.0)),
            None,
            "crossfading: its own pose"
        );
        let off = shared_pose(&instance, &clips, 1.0, 0.25, &view, at(1000.0), 0.0);
        assert_eq!(off, None, "animation LOD off");
    }

    #[test]
    fn a_caster_takes_the_cameras_pose_or_the_one_it_would_have_drawn() {
        let clips = [clip(25, true), clip(25, true)];
        let camera = camera();
        let instance = Instance::settled(1, 0.25);
        let pose = |drawn, clips: &[Clip], x| {
            caster_pose(drawn, &instance, clips, (1.0, 0.25), &camera, at(x), 16.0)
        };
        assert_eq!(
            pose(Some(40 | IMPOSTOR_BAND), &clips, 1000.0),
            CasterPose::Camera(40),
            "drawn: the camera's source, whatever the distance"
        );
        assert_eq!(pose(None, &clips, 0.0), CasterPose::Own, "near");
        assert_eq!(
            pose(None, &clips, -30.0),
            CasterPose::Own,
            "behind the camera"
        );
        assert_eq!(pose(None, &clips, 1000.0), CasterPose::Shared(7), "far");
        assert_eq!(pose(None, &[], 0.0), CasterPose::Shared(0), "no clips");
    }

    #[test]
    fn a_shared_pose_is_the_reference_pose_of_its_moment() {
        let skeleton = Skeleton {
            names: vec!["root".into()],
            parents: vec![None],
            bind_pose: vec![JointPose::IDENTITY],
            inverse_bind_pose: vec![JointPose::IDENTITY],
        };
        let mut moving = clip(25, true);
        for (i, frame) in moving.frames.iter_mut().enumerate() {
            frame[0] = JointPose::new(glam::Quat::IDENTITY, Vec3::new(i as f32, 0.0, 0.0));
        }
        let shared = SharedPoses::sample(&skeleton, &[moving]);
        assert_eq!(shared.clips, [(0, 31)]);
        // Pose 15 is clip time 0.5 s: frame 12 of 24 fps.
        assert!((shared.transforms[15].translation[0] - 12.0).abs() < 1e-4);
    }
}
