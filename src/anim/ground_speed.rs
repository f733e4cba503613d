//! How fast, and which way, a clip carries its character over the ground, so
//! a crowd can move each agent at the speed its legs show (no foot skating).
//!
//! Joint positions come from the clip's local poses by `local_to_model`, one
//! set per frame. Two cases:
//!
//! 1. Root motion: the root joints (no parent) travel horizontally (X and Y;
//!    Z is up) from the first frame to the last by more than
//!    [`ROOT_MOTION_FRACTION`] of the skeleton's size. The ground velocity is
//!    that travel over the clip's duration, and [`remove_root_motion`] takes
//!    it out of the clip so that it plays in place and whoever places the
//!    character moves it instead.
//! 2. Otherwise the feet, for clips on the spot like a treadmill walk: a joint
//!    touching the ground slides backwards at the ground speed. The
//!    candidates are the end joints (leaves and their parents: toes and feet,
//!    also hands and heads, which stay off the ground unless the character
//!    crawls). One touches the ground at a frame when it is within
//!    [`CONTACT_TOLERANCE`] of the lowest any of them gets in the clip (so a
//!    run's flight frames give nothing) and within [`SUPPORT_TOLERANCE`] of
//!    the lowest at that frame (so a foot swinging low past the standing one
//!    does not count). A joint touching at two frames in a row gives a
//!    horizontal velocity (the finite difference times the frame rate); the
//!    ground velocity is minus their per-axis median, which ignores the few
//!    frames of lift-off and touch-down where a foot rolls rather than slides.
//!
//! A speed under [`STILL_FRACTION`] of the skeleton's size per second is a
//! clip on the spot (idle, gestures): speed 0. So is anything that cannot be
//! measured: fewer than two frames, a frame rate that is not positive, poses
//! that do not match the hierarchy, or no finite joint position.
//!
//! The skeleton's size is the longest side of the box around its joints,
//! the largest over the clip's frames (so travel does not count).

use glam::{Vec2, Vec3};

use super::{local_to_model, Clip, JointPose};

/// Of the skeleton's size: roots that travel less than this from the first
/// frame to the last are on the spot (a sway, a shuffle), and the feet decide.
pub const ROOT_MOTION_FRACTION: f32 = 0.05;

/// Of the skeleton's size: how far above the lowest end joint of the clip a
/// joint may be and still be on the ground. Wide enough for a foot that rolls
/// from heel to toe (the crowdling's toe joint rises about 1 unit in 66),
/// narrow enough to leave out frames with every foot in the air.
pub const CONTACT_TOLERANCE: f32 = 0.03;

/// Of the skeleton's size: how far above the lowest end joint of a frame
/// another may be and also bear weight (both feet down between steps). A
/// walk's swinging foot passes barely higher than this above the standing one.
pub const SUPPORT_TOLERANCE: f32 = 0.01;

/// Of the skeleton's size, per second: slower is standing still. An idle's
/// weight shift moves a foot at less than that.
pub const STILL_FRACTION: f32 = 0.02;

/// How a clip carries a character over the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundMotion {
    /// Model units per second; 0 for a clip that stays on the spot.
    pub speed: f32,
    /// Direction of travel times speed, in the md5's model space (Z up).
    pub velocity: Vec3,
    pub source: GroundMotionSource,
}

/// Where a [`GroundMotion`] was measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroundMotionSource {
    /// The root joints travel; `Model::load` removes that travel from the
    /// clip ([`remove_root_motion`]), so it plays in place.
    RootMotion,
    /// The clip is on the spot and its feet slide back under it.
    Feet,
    /// Neither: the character stands (or the clip cannot be measured).
    Still,
}

impl GroundMotion {
    /// A clip on the spot, or one that cannot be measured.
    pub const STILL: GroundMotion = GroundMotion {
        speed: 0.0,
        velocity: Vec3::ZERO,
        source: GroundMotionSource::Still,
    };

    fn moving(velocity: Vec2, source: GroundMotionSource) -> GroundMotion {
        // Adding zero turns a median's -0.0 into 0.0 for the reports.
        let velocity = velocity.extend(0.0) + Vec3::ZERO;
        GroundMotion {
            speed: velocity.length(),
            velocity,
            source,
        }
    }
}

/// How `clip`, whose joints have these `parents`, carries the character over
/// the ground, by root motion or by its feet (the method is in the module
/// doc). Never panics; garbage in gives [`GroundMotion::STILL`].
pub fn ground_motion(parents: &[Option<u16>], clip: &Clip) -> GroundMotion {
    let Some(positions) = model_positions(parents, clip) else {
        return GroundMotion::STILL;
    };
    let size = skeleton_size(&positions);
    if !(size.is_finite() && size > 0.0) {
        return GroundMotion::STILL;
    }
    let root_travel = root_travel(parents, &positions);
    if root_travel.length() > ROOT_MOTION_FRACTION * size {
        let velocity = root_travel / clip.duration();
        if velocity.is_finite() {
            return GroundMotion::moving(velocity, GroundMotionSource::RootMotion);
        }
        return GroundMotion::STILL;
    }
    let velocity = -median_contact_velocity(parents, &positions, clip.frame_rate, size);
    if velocity.is_finite() && velocity.length() >= STILL_FRACTION * size {
        GroundMotion::moving(velocity, GroundMotionSource::Feet)
    } else {
        GroundMotion::STILL
    }
}

/// Plays a root-motion clip in place: moves every root joint back by
/// `velocity` times the frame's time, and each frame's bounds with it. The
/// loop stays seamless when `velocity` is [`ground_motion`]'s, since the
/// roots then end where they start. Does nothing to a clip whose frame rate
/// is not positive.
pub fn remove_root_motion(parents: &[Option<u16>], clip: &mut Clip, velocity: Vec3) {
    if !(clip.frame_rate.is_finite() && clip.frame_rate > 0.0) {
        return;
    }
    let frame_rate = clip.frame_rate;
    for (f, frame) in clip.frames.iter_mut().enumerate() {
        let offset = velocity * (f as f32 / frame_rate);
        for (pose, parent) in frame.iter_mut().zip(parents) {
            if parent.is_none() {
                pose.translation -= offset;
            }
        }
        if let Some(bounds) = clip.bounds.get_mut(f) {
            bounds.min -= offset;
            bounds.max -= offset;
        }
    }
}

/// `positions[f][j]`: joint `j`'s model-space position at frame `f`; `None`
/// when the clip cannot be measured (see the module doc).
pub(super) fn model_positions(parents: &[Option<u16>], clip: &Clip) -> Option<Vec<Vec<Vec3>>> {
    let parents_precede = parents
        .iter()
        .enumerate()
        .all(|(joint, parent)| parent.is_none_or(|p| usize::from(p) < joint));
    let measurable = clip.frames.len() >= 2
        && clip.frame_rate.is_finite()
        && clip.frame_rate > 0.0
        && !parents.is_empty()
        && parents_precede
        && clip.frames.iter().all(|frame| frame.len() == parents.len());
    if !measurable {
        return None;
    }
    let mut model = vec![JointPose::IDENTITY; parents.len()];
    let positions = clip
        .frames
        .iter()
        .map(|local| {
            local_to_model(parents, local, &mut model);
            model.iter().map(|pose| pose.translation).collect()
        })
        .collect();
    Some(positions)
}

/// The skeleton's size (see the module doc).
pub(super) fn skeleton_size(positions: &[Vec<Vec3>]) -> f32 {
    positions
        .iter()
        .map(|frame| {
            let min = frame.iter().copied().fold(Vec3::INFINITY, Vec3::min);
            let max = frame.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
            (max - min).max_element()
        })
        .fold(0.0, f32::max)
}

/// The roots' mean horizontal travel from the first frame to the last.
fn root_travel(parents: &[Option<u16>], positions: &[Vec<Vec3>]) -> Vec2 {
    let (Some(first), Some(last)) = (positions.first(), positions.last()) else {
        return Vec2::ZERO;
    };
    let roots: Vec<usize> = (0..parents.len())
        .filter(|&j| parents[j].is_none())
        .collect();
    let travel: Vec2 = roots.iter().map(|&j| (last[j] - first[j]).truncate()).sum();
    travel / roots.len().max(1) as f32
}

/// Leaves and their parents, roots excepted: the joints that can touch the
/// ground (a Doom 3 `origin` sits on it but is no foot).
fn end_joints(parents: &[Option<u16>]) -> Vec<bool> {
    let mut has_child = vec![false; parents.len()];
    for parent in parents.iter().flatten() {
        has_child[usize::from(*parent)] = true;
    }
    let mut end = vec![false; parents.len()];
    for (joint, parent) in parents.iter().enumerate() {
        let Some(parent) = parent.map(usize::from) else {
            continue;
        };
        if !has_child[joint] {
            end[joint] = true;
            end[parent] |= parents[parent].is_some();
        }
    }
    end
}

/// The per-axis median of the horizontal velocities of joints on the ground
/// at two frames in a row (see the module doc); zero when there are none.
fn median_contact_velocity(
    parents: &[Option<u16>],
    positions: &[Vec<Vec3>],
    frame_rate: f32,
    size: f32,
) -> Vec2 {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for velocity in contact_velocities(parents, positions, frame_rate, size)
        .into_iter()
        .flatten()
    {
        xs.push(velocity.x);
        ys.push(velocity.y);
    }
    match (median(&mut xs), median(&mut ys)) {
        (Some(x), Some(y)) => Vec2::new(x, y),
        _ => Vec2::ZERO,
    }
}

/// Per frame interval (frame `f` to `f + 1`): the horizontal velocities of
/// the joints on the ground at both of its frames (finite ones only).
pub(super) fn contact_velocities(
    parents: &[Option<u16>],
    positions: &[Vec<Vec3>],
    frame_rate: f32,
    size: f32,
) -> Vec<Vec<Vec2>> {
    let contacts = contacts(&end_joints(parents), positions, size);
    positions
        .windows(2)
        .zip(contacts.windows(2))
        .map(|(frames, touching)| {
            (0..touching[0].len())
                .filter(|&joint| touching[0][joint] && touching[1][joint])
                .map(|joint| (frames[1][joint] - frames[0][joint]).truncate() * frame_rate)
                .filter(|velocity| velocity.is_finite())
                .collect()
        })
        .collect()
}

/// `contacts[f][j]`: whether end joint `j` touches the ground at frame `f`:
/// it is within [`CONTACT_TOLERANCE`] of the lowest any end joint gets in
/// the clip (not in a run's flight) and within [`SUPPORT_TOLERANCE`] of the
/// lowest at that frame (bearing weight, not swinging low past the foot
/// that does).
fn contacts(end: &[bool], positions: &[Vec<Vec3>], size: f32) -> Vec<Vec<bool>> {
    let lowest = |frame: &[Vec3]| {
        frame
            .iter()
            .zip(end)
            .filter(|(p, &is_end)| is_end && p.z.is_finite())
            .fold(f32::INFINITY, |low, (p, _)| low.min(p.z))
    };
    let frame_lowest: Vec<f32> = positions.iter().map(|frame| lowest(frame)).collect();
    let ground = frame_lowest.iter().copied().fold(f32::INFINITY, f32::min);
    positions
        .iter()
        .zip(&frame_lowest)
        .map(|(frame, &low)| {
            let top = (ground + CONTACT_TOLERANCE * size).min(low + SUPPORT_TOLERANCE * size);
            frame
                .iter()
                .zip(end)
                .map(|(p, &is_end)| is_end && p.z <= top)
                .collect()
        })
        .collect()
}

pub(super) fn median(values: &mut [f32]) -> Option<f32> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f32::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid]
    } else {
        0.5 * (values[mid - 1] + values[mid])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::Bounds;
    use glam::Quat;
    use std::f32::consts::PI;

    const FRAME_RATE: f32 = 30.0;
    /// Distinct frames in one cycle; the clip repeats the first at the end.
    const CYCLE_FRAMES: usize = 32;

    /// root (on the ground, never moving), hip, left foot, right foot, and a
    /// hand off the hip: an end joint that never nears the ground.
    const BODY: [Option<u16>; 5] = [None, Some(0), Some(1), Some(1), Some(1)];
    const LEFT_FOOT: usize = 2;
    const HIP: Vec3 = Vec3::new(0.0, 0.0, 40.0);
    const HAND: Vec3 = Vec3::new(0.0, 10.0, 0.0);
    /// Feet joints stand this high above the ground, as ankles do.
    const FOOT_HEIGHT: f32 = 2.0;
    const SIDE: Vec3 = Vec3::new(0.0, 4.0, 0.0);

    fn clip(frames: Vec<Vec<JointPose>>) -> Clip {
        let count = frames.len();
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: FRAME_RATE,
            frames,
            bounds: vec![Bounds::point(Vec3::ZERO); count],
            looping: true,
        }
    }

    fn at(translation: Vec3) -> JointPose {
        JointPose::new(Quat::IDENTITY, translation)
    }

    /// A body's local poses with its feet at these model-space positions.
    fn body(root: Vec3, left: Vec3, right: Vec3) -> Vec<JointPose> {
        vec![
            at(root),
            at(HIP),
            at(left - root - HIP),
            at(right - root - HIP),
            at(HAND),
        ]
    }

    /// Where a treadmill foot is at `phase` of its cycle, travelling along
    /// `direction`: for the first half it is planted, sliding back by
    /// `stride` at constant speed; for the second it lifts by up to
    /// `swing_height` and swings forward.
    fn treadmill_foot(direction: Vec2, stride: f32, swing_height: f32, phase: f32) -> Vec3 {
        let phase = phase.rem_euclid(1.0);
        let (along, lift) = if phase < 0.5 {
            (stride * (0.5 - 2.0 * phase), 0.0)
        } else {
            let swing = 2.0 * phase - 1.0;
            let along = -0.5 * stride * (PI * swing).cos();
            (along, swing_height * (PI * swing).sin())
        };
        (direction * along).extend(FOOT_HEIGHT + lift)
    }

    /// Two treadmill legs half a cycle apart. Ground speed: the stride over
    /// half the cycle's duration.
    fn treadmill(direction: Vec2, stride: f32, swing_height: f32) -> Clip {
        let frames = (0..=CYCLE_FRAMES)
            .map(|f| {
                let phase = f as f32 / CYCLE_FRAMES as f32;
                let foot = |phase| treadmill_foot(direction, stride, swing_height, phase);
                body(Vec3::ZERO, foot(phase) + SIDE, foot(phase + 0.5) - SIDE)
            })
            .collect();
        clip(frames)
    }

    fn stride_speed(stride: f32) -> f32 {
        stride / (0.5 * CYCLE_FRAMES as f32 / FRAME_RATE)
    }

    fn assert_near(actual: f32, expected: f32, relative: f32) {
        assert!(
            (actual - expected).abs() <= relative * expected.abs(),
            "{actual} vs {expected}"
        );
    }

    #[test]
    fn a_treadmill_walk_travels_at_its_stride_over_its_stance() {
        let direction = Vec2::new(0.6, 0.8);
        let motion = ground_motion(&BODY, &treadmill(direction, 30.0, 8.0));
        assert_eq!(motion.source, GroundMotionSource::Feet);
        let expected = stride_speed(30.0);
        assert_near(motion.speed, expected, 0.02);
        assert_near(motion.velocity.x, direction.x * expected, 0.02);
        assert_near(motion.velocity.y, direction.y * expected, 0.02);
        assert_eq!(motion.velocity.z, 0.0);
        assert_near(motion.velocity.length(), motion.speed, 1e-6);
    }

    #[test]
    fn a_longer_stride_is_faster() {
        let slow = ground_motion(&BODY, &treadmill(Vec2::X, 20.0, 8.0));
        let fast = ground_motion(&BODY, &treadmill(Vec2::X, 45.0, 8.0));
        assert_near(slow.speed, stride_speed(20.0), 0.02);
        assert_near(fast.speed, stride_speed(45.0), 0.02);
    }

    #[test]
    fn a_foot_swinging_low_past_the_standing_one_does_not_count() {
        // Lifted by 1 unit (2.5% of the size): near the ground for the whole
        // swing, moving forward, but above the foot that bears the weight.
        let motion = ground_motion(&BODY, &treadmill(-Vec2::Y, 30.0, 1.0));
        assert_near(motion.speed, stride_speed(30.0), 0.02);
        assert!(motion.velocity.y < 0.0, "{motion:?}");
    }

    #[test]
    fn a_leap_counts_only_its_frames_on_the_ground() {
        // The whole body is off the ground for frames 1 to 24, its feet
        // holding still up there: most of the clip, none of it counting.
        let mut clip = treadmill(Vec2::X, 30.0, 8.0);
        let takeoff = clip.frames[1].clone();
        for frame in &mut clip.frames[1..25] {
            frame[0].translation = Vec3::new(0.0, 0.0, 15.0);
            for foot in [LEFT_FOOT, LEFT_FOOT + 1] {
                frame[foot].translation.x = takeoff[foot].translation.x;
            }
        }
        let motion = ground_motion(&BODY, &clip);
        assert_near(motion.speed, stride_speed(30.0), 0.02);
    }

    /// The root carries the whole body at `velocity` (horizontal), bobbing
    /// up and down twice a cycle, as a looping clip with root motion does.
    fn root_motion_clip(velocity: Vec3) -> Clip {
        let frames = (0..=CYCLE_FRAMES)
            .map(|f| {
                let bob = (4.0 * PI * f as f32 / CYCLE_FRAMES as f32).sin();
                let root = velocity * (f as f32 / FRAME_RATE) + Vec3::Z * bob;
                let foot = root + Vec3::new(5.0, 0.0, FOOT_HEIGHT);
                body(root, foot + SIDE, foot - SIDE)
            })
            .collect();
        clip(frames)
    }

    #[test]
    fn a_travelling_root_is_root_motion_at_its_speed() {
        let velocity = Vec3::new(-40.0, 30.0, 0.0);
        let motion = ground_motion(&BODY, &root_motion_clip(velocity));
        assert_eq!(motion.source, GroundMotionSource::RootMotion);
        assert_near(motion.speed, 50.0, 0.02);
        assert!(
            (motion.velocity - velocity).length() < 0.02 * 50.0,
            "{motion:?}"
        );
    }

    #[test]
    fn removing_root_motion_plays_the_clip_in_place_and_keeps_it_seamless() {
        let original = root_motion_clip(Vec3::new(-40.0, 30.0, 0.0));
        let mut clip = original.clone();
        let motion = ground_motion(&BODY, &clip);
        remove_root_motion(&BODY, &mut clip, motion.velocity);

        let first = clip.frames[0][0].translation;
        let last = clip.frames[CYCLE_FRAMES][0].translation;
        assert!((last - first).length() < 1e-3, "{first} vs {last}");
        for (f, (frame, before)) in clip.frames.iter().zip(&original.frames).enumerate() {
            // Only the horizontal travel goes: the bob stays.
            let root = frame[0].translation;
            assert!(root.truncate().length() < 1e-3, "frame {f}: {root}");
            assert_eq!(root.z, before[0].translation.z);
            assert_eq!(frame[1..], before[1..], "frame {f}: non-roots change");
            // The bounds follow the root back.
            let offset = clip.bounds[f].min - original.bounds[f].min;
            assert!((offset - (root - before[0].translation)).length() < 1e-3);
        }
        // In place, with its feet carried along, the clip stands still.
        assert_eq!(ground_motion(&BODY, &clip), GroundMotion::STILL);
    }

    #[test]
    fn root_travel_below_the_threshold_leaves_it_to_the_feet() {
        // Half a unit over the cycle against a size of 40: a shuffle, not
        // travel (and the feet, carried along, are too slow to count).
        let creep = Vec3::new(0.5 / (CYCLE_FRAMES as f32 / FRAME_RATE), 0.0, 0.0);
        let motion = ground_motion(&BODY, &root_motion_clip(creep));
        assert_eq!(motion, GroundMotion::STILL);
    }

    #[test]
    fn a_clip_that_only_breathes_is_still() {
        let frames = (0..=CYCLE_FRAMES)
            .map(|f| {
                let breath = 0.3 * (2.0 * PI * f as f32 / CYCLE_FRAMES as f32).sin();
                let foot = Vec3::new(breath, 0.0, FOOT_HEIGHT);
                body(Vec3::Z * breath, foot + SIDE, foot - SIDE)
            })
            .collect();
        assert_eq!(ground_motion(&BODY, &clip(frames)), GroundMotion::STILL);
    }

    #[test]
    fn unmeasurable_clips_are_still_and_do_not_panic() {
        let walk = treadmill(Vec2::X, 30.0, 8.0);
        let single = clip(vec![walk.frames[0].clone()]);
        let empty = clip(Vec::new());
        let mut zero_rate = walk.clone();
        zero_rate.frame_rate = 0.0;
        let mut nan_rate = walk.clone();
        nan_rate.frame_rate = f32::NAN;
        let mut ragged = walk.clone();
        ragged.frames[3].pop();
        for (what, clip) in [
            ("one frame", &single),
            ("no frame", &empty),
            ("zero frame rate", &zero_rate),
            ("NaN frame rate", &nan_rate),
            ("a frame short of a joint", &ragged),
        ] {
            assert_eq!(ground_motion(&BODY, clip), GroundMotion::STILL, "{what}");
        }
        assert_eq!(ground_motion(&BODY[..4], &walk), GroundMotion::STILL);
        let child_first = [Some(1), None, Some(1), Some(1), Some(1)];
        assert_eq!(ground_motion(&child_first, &walk), GroundMotion::STILL);
        assert_eq!(ground_motion(&[], &empty), GroundMotion::STILL);
    }

    #[test]
    fn non_finite_poses_give_a_finite_answer() {
        let mut walk = treadmill(Vec2::X, 30.0, 8.0);
        walk.frames[4][LEFT_FOOT].translation = Vec3::NAN;
        walk.frames[9][1].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        let motion = ground_motion(&BODY, &walk);
        assert!(
            motion.speed.is_finite() && motion.velocity.is_finite(),
            "{motion:?}"
        );
        assert_near(motion.speed, stride_speed(30.0), 0.02);

        let mut all_nan = walk.clone();
        for frame in &mut all_nan.frames {
            frame[0].translation = Vec3::NAN;
        }
        assert_eq!(ground_motion(&BODY, &all_nan), GroundMotion::STILL);
    }
}
