use crate::anim::{
    additive_difference, apply_layer, blend_poses, local_to_model, sample_clip,
    skinning_transforms, Clip, JointMask, JointPose, Layer, LayerMode, Skeleton, SkinningTransform,
};

use super::{Instance, LayerTrack};

/// Per-thread working memory, so animating thousands of instances allocates
/// nothing per instance.
struct Scratch {
    current: Vec<JointPose>,
    previous: Vec<JointPose>,
    older: Vec<JointPose>,
    model: Vec<JointPose>,
    layer: Vec<JointPose>,
}

impl Scratch {
    fn new(joints: usize) -> Self {
        Scratch {
            current: vec![JointPose::IDENTITY; joints],
            previous: vec![JointPose::IDENTITY; joints],
            older: vec![JointPose::IDENTITY; joints],
            model: vec![JointPose::IDENTITY; joints],
            layer: vec![JointPose::IDENTITY; joints],
        }
    }
}

/// What animating an instance of a model reads of the model: its
/// skeleton, its clips and the joints each layer channel reaches
/// (`anim::Channels::layer_masks`; a layer whose channel is not among
/// them plays nowhere).
#[derive(Clone, Copy)]
pub struct Animated<'a> {
    pub skeleton: &'a Skeleton,
    pub clips: &'a [Clip],
    pub masks: &'a [JointMask],
}

impl<'a> Animated<'a> {
    /// A model whose instances play no layer (the poses of one moment of
    /// a clip: shared poses, impostor bakes).
    pub fn unlayered(skeleton: &'a Skeleton, clips: &'a [Clip]) -> Animated<'a> {
        Animated {
            skeleton,
            clips,
            masks: &[],
        }
    }
}

/// One instance's skinning transforms at global `time`: sample its clip
/// and, while it fades in, the fade's starting pose (the previous clip, or
/// the older clip blended towards it), blend, lay its layers over that in
/// order, run the hierarchy, apply the inverse bind pose. The same steps
/// as the GPU `animate` pass, in the same order.
pub fn animate_instance(
    model: Animated,
    instance: &Instance,
    time: f32,
    blend_time: f32,
    out: &mut [SkinningTransform],
) {
    let mut scratch = Scratch::new(model.skeleton.joint_count());
    animate_with(&mut scratch, model, instance, (time, blend_time), out);
}

fn animate_with(
    scratch: &mut Scratch,
    Animated {
        skeleton,
        clips,
        masks,
    }: Animated,
    instance: &Instance,
    (time, blend_time): (f32, f32),
    out: &mut [SkinningTransform],
) {
    let weight = instance.blend_weight(time, blend_time);
    match clips.get(instance.clip as usize) {
        Some(clip) => {
            sample_clip(clip, instance.local_time(time), &mut scratch.current);
            if weight < 1.0 {
                if let Some(previous) = clips.get(instance.previous_clip as usize) {
                    let from = &mut scratch.previous;
                    sample_clip(
                        previous,
                        instance.clip_time(time, instance.previous_phase),
                        from,
                    );
                    if instance.from_weight < 1.0 {
                        if let Some(older) = clips.get(instance.older_clip as usize) {
                            let older_time = instance.clip_time(time, instance.older_phase);
                            sample_clip(older, older_time, &mut scratch.older);
                            blend_poses(
                                &scratch.older,
                                from,
                                instance.from_weight,
                                &mut scratch.model,
                            );
                            from.copy_from_slice(&scratch.model);
                        }
                    }
                    blend_poses(from, &scratch.current, weight, &mut scratch.model);
                    scratch.current.copy_from_slice(&scratch.model);
                }
            }
            for layer in instance.layers.as_slice() {
                let (Some(mask), Some(_)) = (
                    masks.get(usize::from(layer.channel)),
                    clips.get(layer.clip as usize),
                ) else {
                    continue;
                };
                sample_layer(scratch, clips, layer, (time, blend_time));
                let over = Layer {
                    pose: &scratch.layer,
                    weight: layer.weight,
                    mode: layer.mode,
                    mask,
                };
                apply_layer(&mut scratch.current, &over);
            }
        }
        // A model without clips stands in its bind pose.
        None => bind_pose_local(skeleton, &mut scratch.current),
    }
    local_to_model(&skeleton.parents, &scratch.current, &mut scratch.model);
    skinning_transforms(&scratch.model, &skeleton.inverse_bind_pose, out);
}

/// `layer`'s pose at `time` into `scratch.layer`: its clip (for an
/// additive layer, each joint's difference from the clip's first frame)
/// and, while it fades in, blended from its previous clip's likewise.
/// Uses `scratch.previous`.
fn sample_layer(
    scratch: &mut Scratch,
    clips: &[Clip],
    layer: &LayerTrack,
    (time, blend_time): (f32, f32),
) {
    let sample = |clip: &Clip, phase: f32, out: &mut [JointPose]| {
        sample_clip(clip, layer.clip_time(time, phase), out);
        if layer.mode == LayerMode::Additive {
            let reference = clip.frames.first().map_or(&[][..], Vec::as_slice);
            for (pose, &first) in out.iter_mut().zip(reference) {
                *pose = additive_difference(*pose, first);
            }
        }
    };
    sample(&clips[layer.clip as usize], layer.phase, &mut scratch.layer);
    let weight = layer.blend_weight(time, blend_time);
    if let (true, Some(previous)) = (weight < 1.0, clips.get(layer.previous_clip as usize)) {
        sample(previous, layer.previous_phase, &mut scratch.previous);
        blend_poses(
            &scratch.previous,
            &scratch.layer,
            weight,
            &mut scratch.older,
        );
        scratch.layer.copy_from_slice(&scratch.older);
    }
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
    model: Animated,
    instances: &[Instance],
    time: f32,
    blend_time: f32,
    out: &mut [SkinningTransform],
) {
    let joints = model.skeleton.joint_count();
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
                    animate_with(&mut scratch, model, instance, (time, blend_time), out);
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
            morphs: Default::default(),
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
        let mut crowd = spawn_crowd(&layout, &clips);
        let fading = 1 - crowd[5].clip;
        crowd[5].switch_clip(fading, true, 0.9, 0.25);
        let mut all = vec![SkinningTransform::default(); crowd.len() * 3];
        animate_crowd(
            Animated::unlayered(&skeleton, &clips),
            &crowd,
            1.0,
            0.25,
            &mut all,
        );
        for (instance, transforms) in crowd.iter().zip(all.chunks(3)) {
            let mut one = [SkinningTransform::default(); 3];
            animate_instance(
                Animated::unlayered(&skeleton, &clips),
                instance,
                1.0,
                0.25,
                &mut one,
            );
            assert_eq!(transforms, one);
        }
        // Mid-crossfade instance differs from both of its clips alone.
        let mut alone = [SkinningTransform::default(); 3];
        let settled = Instance {
            position: crowd[5].position,
            yaw: crowd[5].yaw,
            rate: crowd[5].rate,
            ..Instance::settled(crowd[5].clip, crowd[5].phase)
        };
        animate_instance(
            Animated::unlayered(&skeleton, &clips),
            &settled,
            1.0,
            0.25,
            &mut alone,
        );
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
            &[],
        );
        let mut out = vec![SkinningTransform::default(); 6];
        animate_crowd(
            Animated::unlayered(&skeleton, &[]),
            &crowd,
            3.0,
            0.25,
            &mut out,
        );
        for t in out {
            let pose = JointPose::from(t);
            assert!(pose.rotation.abs_diff_eq(Quat::IDENTITY, 1e-5), "{pose:?}");
            assert!(pose.translation.abs_diff_eq(Vec3::ZERO, 1e-4), "{pose:?}");
        }
    }

    /// The largest difference between two sets of skinning transforms:
    /// quaternion components (q and -q alike) and translations.
    fn difference(a: &[SkinningTransform], b: &[SkinningTransform]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(a, b)| {
                let (a, b) = (JointPose::from(*a), JointPose::from(*b));
                let rotation = (a.rotation - b.rotation)
                    .length()
                    .min((a.rotation + b.rotation).length());
                rotation.max(a.translation.distance(b.translation))
            })
            .fold(0.0, f32::max)
    }

    fn pose(
        skeleton: &Skeleton,
        clips: &[Clip],
        instance: &Instance,
        time: f32,
    ) -> Vec<SkinningTransform> {
        let mut out = vec![SkinningTransform::default(); skeleton.joint_count()];
        animate_instance(
            Animated::unlayered(skeleton, clips),
            instance,
            time,
            0.25,
            &mut out,
        );
        out
    }

    #[test]
    fn a_switch_during_a_fade_continues_from_the_pose_shown() {
        let skeleton = skeleton();
        let clips = vec![clip(0.1), clip(-0.2), clip(0.35)];
        let mut instance = Instance {
            rate: 1.1,
            ..Instance::settled(0, 0.05)
        };
        instance.switch_clip(1, true, 1.0, 0.25);
        for at in [1.0, 1.05, 1.2, 1.3] {
            // The pose at the switch, with the old state and the new.
            let before = pose(&skeleton, &clips, &instance, at);
            let mut switched = instance;
            switched.switch_clip(2, false, at, 0.25);
            let after = pose(&skeleton, &clips, &switched, at);
            let jump = difference(&before, &after);
            assert!(jump < 1e-5, "switch at {at}: {jump}");
            // A millisecond later it has moved about as far as it would have
            // without the switch: no jump spread over a few frames either.
            let later = pose(&skeleton, &clips, &switched, at + 1e-3);
            let unswitched = pose(&skeleton, &clips, &instance, at + 1e-3);
            let (moved, would_have) =
                (difference(&after, &later), difference(&before, &unswitched));
            assert!(
                moved < 2.0 * would_have + 1e-4,
                "switch at {at}: {moved} vs {would_have}"
            );
        }
        // Mid-fade the starting pose blends two clips: it differs from both.
        let mut nested = instance;
        nested.switch_clip(2, false, 1.1, 0.25);
        let blended = pose(&skeleton, &clips, &nested, 1.15);
        for alone in [0, 1] {
            let settled = Instance {
                rate: 1.1,
                ..Instance::settled(alone, 0.05)
            };
            assert!(difference(&blended, &pose(&skeleton, &clips, &settled, 1.15)) > 1e-3);
        }
    }

    #[test]
    fn a_switch_in_a_nested_fade_jumps_by_at_most_the_dropped_share() {
        let skeleton = skeleton();
        let clips = vec![clip(0.1), clip(-0.2), clip(0.35), clip(-0.4)];
        let mut instance = Instance::settled(0, 0.0);
        instance.switch_clip(1, true, 1.0, 0.25);
        instance.switch_clip(2, true, 1.1, 0.25);
        let at = 1.2;
        let before = pose(&skeleton, &clips, &instance, at);
        let mut switched = instance;
        switched.switch_clip(3, true, at, 0.25);
        let jump = difference(&before, &pose(&skeleton, &clips, &switched, at));
        // Clip 1, the least weighted, is dropped: 0.4 * (1 - 0.4) = 0.24 of
        // the pose shown, so the jump is about that share of the distance
        // from clip 1's pose to the others'.
        let alone =
            |clip: u32, phase: f32| pose(&skeleton, &clips, &Instance::settled(clip, phase), at);
        let dropped = alone(1, instance.previous_phase);
        let spread = difference(&dropped, &alone(0, instance.older_phase))
            .max(difference(&dropped, &alone(2, instance.phase)));
        assert!(
            jump > 1e-4 && jump < 0.24 * spread * 1.5,
            "{jump} vs {spread}"
        );
    }

    #[test]
    fn a_one_shot_holds_its_last_pose_and_a_loop_moves_on() {
        let skeleton = skeleton();
        let mut once = clip(0.3);
        once.looping = false;
        let clips = vec![clip(0.1), once];
        let mut dying = Instance::settled(0, 0.0);
        dying.switch_clip(1, false, 2.0, 0.25);
        let (late, later) = (
            pose(&skeleton, &clips, &dying, 9.0),
            pose(&skeleton, &clips, &dying, 60.0),
        );
        assert_eq!(late, later, "frames long after the end are identical");
        let mut last = Instance::settled(1, 0.0);
        last.phase = 10.0;
        assert_eq!(late, pose(&skeleton, &clips, &last, 0.0), "the last frame");
        let walking = Instance::settled(0, 0.0);
        assert_ne!(
            pose(&skeleton, &clips, &walking, 9.0),
            pose(&skeleton, &clips, &walking, 9.05)
        );
    }
}
