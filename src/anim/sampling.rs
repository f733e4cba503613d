//! Sampling and blending jobs. Rotations interpolate by normalized lerp on the
//! shorter arc: between adjacent frames (a few degrees apart at 24-30 fps) it
//! is indistinguishable from slerp, costs no trigonometry, and the GPU
//! `animate` pass computes exactly the same thing.

use glam::Quat;

use super::{Clip, JointPose};

/// Where `time` falls in the clip: the two frames around it and how far
/// between them. Looping clips wrap at `duration()`; others hold the ends.
pub fn frame_position(clip: &Clip, time: f32) -> (usize, usize, f32) {
    let last = clip.frames.len().saturating_sub(1);
    let duration = clip.duration();
    if last == 0 || duration <= 0.0 {
        return (0, 0, 0.0);
    }
    let time = if clip.looping {
        time.rem_euclid(duration)
    } else {
        time.clamp(0.0, duration)
    };
    let position = time * clip.frame_rate;
    let frame = (position.floor() as usize).min(last);
    let next = (frame + 1).min(last);
    (frame, next, (position - frame as f32).clamp(0.0, 1.0))
}

/// Local joint poses of `clip` at `time` seconds.
pub fn sample_clip(clip: &Clip, time: f32, out_local: &mut [JointPose]) {
    assert_eq!(
        out_local.len(),
        clip.joint_count(),
        "one output pose per joint"
    );
    let (frame, next, alpha) = frame_position(clip, time);
    blend_poses(&clip.frames[frame], &clip.frames[next], alpha, out_local);
}

/// `out = a` at weight 0, `b` at weight 1: the crossfade between two clips and
/// the interpolation between two frames are the same operation.
pub fn blend_poses(a: &[JointPose], b: &[JointPose], weight: f32, out: &mut [JointPose]) {
    assert!(
        a.len() == out.len() && b.len() == out.len(),
        "pose lengths differ"
    );
    for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
        *out = JointPose::new(
            nlerp_shortest(a.rotation, b.rotation, weight),
            a.translation.lerp(b.translation, weight),
        );
    }
}

/// `q` and `-q` are the same rotation; blending towards the nearer of the two
/// keeps the interpolation on the short way round.
pub fn nlerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (a * (1.0 - t) + b * t).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::Bounds;
    use glam::Vec3;

    fn clip(angles: &[f32]) -> Clip {
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: 10.0,
            frames: angles
                .iter()
                .map(|&a| {
                    vec![JointPose::new(
                        Quat::from_rotation_z(a),
                        Vec3::new(a, 0.0, 0.0),
                    )]
                })
                .collect(),
            bounds: vec![
                Bounds {
                    min: Vec3::ZERO,
                    max: Vec3::ONE
                };
                angles.len()
            ],
            looping: true,
        }
    }

    fn sample(clip: &Clip, time: f32) -> JointPose {
        let mut out = [JointPose::IDENTITY];
        sample_clip(clip, time, &mut out);
        out[0]
    }

    #[test]
    fn exactly_on_frames_returns_the_frame() {
        let c = clip(&[0.0, 0.4, 0.8, 0.0]);
        for (f, frame) in c.frames.iter().enumerate() {
            let p = sample(&c, f as f32 / 10.0);
            let expected = if f == 3 { c.frames[0][0] } else { frame[0] };
            assert!(p.rotation.abs_diff_eq(expected.rotation, 1e-6), "frame {f}");
            assert!(
                p.translation.abs_diff_eq(expected.translation, 1e-6),
                "frame {f}"
            );
        }
    }

    #[test]
    fn between_frames_interpolates() {
        let c = clip(&[0.0, 0.4, 0.8, 0.0]);
        let p = sample(&c, 0.15);
        assert!(p.translation.abs_diff_eq(Vec3::new(0.6, 0.0, 0.0), 1e-5));
        // nlerp between rotations 0.2 rad apart halves the angle within 1e-4.
        assert!((p.rotation.angle_between(Quat::from_rotation_z(0.6))) < 1e-4);
    }

    #[test]
    fn wraps_at_the_loop_seam() {
        let c = clip(&[0.0, 0.4, 0.8, 0.0]);
        assert!((c.duration() - 0.3).abs() < 1e-6);
        let before = sample(&c, 0.3 - 1e-4);
        let after = sample(&c, 0.3 + 1e-4);
        assert!(before.rotation.angle_between(after.rotation) < 1e-2);
        let wrapped = sample(&c, 0.35 + 0.3 * 4.0);
        let direct = sample(&c, 0.05);
        assert!(wrapped.rotation.abs_diff_eq(direct.rotation, 1e-4));
        let negative = sample(&c, -0.25);
        assert!(negative.translation.abs_diff_eq(direct.translation, 1e-4));
    }

    #[test]
    fn single_frame_clips_hold_still() {
        let c = clip(&[0.5]);
        assert_eq!(c.duration(), 0.0);
        assert!(sample(&c, 12.3)
            .translation
            .abs_diff_eq(Vec3::new(0.5, 0.0, 0.0), 1e-6));
    }

    #[test]
    fn nlerp_takes_the_short_way() {
        let a = Quat::from_rotation_z(0.1);
        let b = -Quat::from_rotation_z(0.3);
        let mid = nlerp_shortest(a, b, 0.5);
        assert!(mid.angle_between(Quat::from_rotation_z(0.2)) < 1e-4);
    }

    #[test]
    fn crossfade_weights_select_each_side() {
        let a = [JointPose::new(Quat::from_rotation_x(1.0), Vec3::X)];
        let b = [JointPose::new(Quat::from_rotation_y(1.0), Vec3::Y)];
        let mut out = [JointPose::IDENTITY];
        blend_poses(&a, &b, 0.0, &mut out);
        assert!(out[0].rotation.abs_diff_eq(a[0].rotation, 1e-6));
        blend_poses(&a, &b, 1.0, &mut out);
        assert!(out[0].rotation.abs_diff_eq(b[0].rotation, 1e-6));
        blend_poses(&a, &b, 0.25, &mut out);
        assert!(out[0]
            .translation
            .abs_diff_eq(Vec3::new(0.75, 0.25, 0.0), 1e-6));
    }
}
