use crate::anim::{
    blend_poses, local_to_model, sample_clip, skinning_transforms, Clip, JointPose, Skeleton,
    SkinningTransform,
};

use super::Instance;

/// Per-thread working memory, so animating thousands of instances allocates
/// nothing per instance.
struct Scratch {
    current: Vec<JointPose>,
    previous: Vec<JointPose>,
    model: Vec<JointPose>,
}

impl Scratch {
    fn new(joints: usize) -> Self {
        Scratch {
            current: vec![JointPose::IDENTITY; joints],
            previous: vec![JointPose::IDENTITY; joints],
            model: vec![JointPose::IDENTITY; joints],
        }
    }
}

/// One instance's skinning transforms at global `time`: sample its clip (and
/// the clip it is fading from), blend, run the hierarchy, apply the inverse
/// bind pose. The same steps as the GPU `animate` pass, in the same order.
pub fn animate_instance(
    skeleton: &Skeleton,
    clips: &[Clip],
    instance: &Instance,
    time: f32,
    blend_time: f32,
    out: &mut [SkinningTransform],
) {
    animate_with(
        &mut Scratch::new(skeleton.joint_count()),
        skeleton,
        clips,
        instance,
        time,
        blend_time,
        out,
    );
}

fn animate_with(
    scratch: &mut Scratch,
    skeleton: &Skeleton,
    clips: &[Clip],
    instance: &Instance,
    time: f32,
    blend_time: f32,
    out: &mut [SkinningTransform],
) {
    let local_time = instance.local_time(time);
    let weight = instance.blend_weight(time, blend_time);
    let local = match clips.get(instance.clip as usize) {
        Some(clip) => {
            sample_clip(clip, local_time, &mut scratch.current);
            if weight < 1.0 {
                if let Some(previous) = clips.get(instance.previous_clip as usize) {
                    sample_clip(previous, local_time, &mut scratch.previous);
                    blend_poses(
                        &scratch.previous,
                        &scratch.current,
                        weight,
                        &mut scratch.model,
                    );
                    scratch.current.copy_from_slice(&scratch.model);
                }
            }
            &scratch.current[..]
        }
        // A model without clips stands in its bind pose.
        None => {
            bind_pose_local(skeleton, &mut scratch.current);
            &scratch.current[..]
        }
    };
    local_to_model(&skeleton.parents, local, &mut scratch.model);
    skinning_transforms(&scratch.model, &skeleton.inverse_bind_pose, out);
}

/// The bind pose expressed as local poses, for models with no clips.
fn bind_pose_local(skeleton: &Skeleton, out_local: &mut [JointPose]) {
    for (joint, parent) in skeleton.parents.iter().enumerate() {
        out_local[joint] = match parent {
            Some(p) => skeleton.inverse_bind_pose[*p as usize].then(skeleton.bind_pose[joint]),
            None => skeleton.bind_pose[joint],
        };
    }
}

/// Every instance's skinning transforms, `joint_count` per instance in
/// instance order, split across all cores.
pub fn animate_crowd(
    skeleton: &Skeleton,
    clips: &[Clip],
    instances: &[Instance],
    time: f32,
    blend_time: f32,
    out: &mut [SkinningTransform],
) {
    let joints = skeleton.joint_count();
    assert_eq!(
        out.len(),
        instances.len() * joints,
        "one transform per instance and joint"
    );
    if instances.is_empty() || joints == 0 {
        return;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = instances.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (instances, out) in instances
            .chunks(per_thread)
            .zip(out.chunks_mut(per_thread * joints))
        {
            scope.spawn(move || {
                let mut scratch = Scratch::new(joints);
                for (instance, out) in instances.iter().zip(out.chunks_mut(joints)) {
                    animate_with(
                        &mut scratch,
                        skeleton,
                        clips,
                        instance,
                        time,
                        blend_time,
                        out,
                    );
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::Bounds;
    use crate::crowd::{spawn_crowd, CrowdLayout};
    use glam::{Quat, Vec3};

    fn skeleton() -> Skeleton {
        let bind_pose = vec![
            JointPose::new(Quat::IDENTITY, Vec3::ZERO),
            JointPose::new(Quat::from_rotation_y(0.5), Vec3::new(0.0, 0.0, 10.0)),
            JointPose::new(Quat::from_rotation_x(0.3), Vec3::new(2.0, 0.0, 12.0)),
        ];
        Skeleton {
            names: vec!["a".into(), "b".into(), "c".into()],
            parents: vec![None, Some(0), Some(1)],
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        }
    }

    fn clip(speed: f32) -> Clip {
        let frames = (0..5)
            .map(|f| {
                (0..3)
                    .map(|j| {
                        let angle = speed * (f as f32 + j as f32);
                        JointPose::new(Quat::from_rotation_z(angle), Vec3::new(j as f32, 0.0, 5.0))
                    })
                    .collect()
            })
            .collect();
        Clip {
            name: format!("speed {speed}"),
            frame_rate: 24.0,
            frames,
            bounds: vec![
                Bounds {
                    min: Vec3::splat(-1.0),
                    max: Vec3::splat(1.0)
                };
                5
            ],
            looping: true,
        }
    }

    #[test]
    fn parallel_crowd_matches_one_by_one() {
        let (skeleton, clips) = (skeleton(), vec![clip(0.1), clip(-0.2)]);
        let layout = CrowdLayout {
            instances: 37,
            spacing: 3.0,
            seed: 42,
        };
        let mut crowd = spawn_crowd(&layout, clips.len(), &[0.2, 0.2]);
        let fading = 1 - crowd[5].clip;
        crowd[5].switch_clip(fading, 0.9);
        let mut all = vec![SkinningTransform::default(); crowd.len() * 3];
        animate_crowd(&skeleton, &clips, &crowd, 1.0, 0.25, &mut all);
        for (instance, transforms) in crowd.iter().zip(all.chunks(3)) {
            let mut one = [SkinningTransform::default(); 3];
            animate_instance(&skeleton, &clips, instance, 1.0, 0.25, &mut one);
            assert_eq!(transforms, one);
        }
        // Mid-crossfade instance differs from both of its clips alone.
        let mut alone = [SkinningTransform::default(); 3];
        let mut settled = crowd[5];
        settled.previous_clip = settled.clip;
        animate_instance(&skeleton, &clips, &settled, 1.0, 0.25, &mut alone);
        assert_ne!(&all[15..18], &alone[..]);
    }

    #[test]
    fn no_clips_means_bind_pose() {
        let skeleton = skeleton();
        let crowd = spawn_crowd(
            &CrowdLayout {
                instances: 2,
                spacing: 1.0,
                seed: 1,
            },
            0,
            &[],
        );
        let mut out = vec![SkinningTransform::default(); 6];
        animate_crowd(&skeleton, &[], &crowd, 3.0, 0.25, &mut out);
        for t in out {
            let pose = JointPose::from(t);
            assert!(pose.rotation.abs_diff_eq(Quat::IDENTITY, 1e-5), "{pose:?}");
            assert!(pose.translation.abs_diff_eq(Vec3::ZERO, 1e-4), "{pose:?}");
        }
    }
}
