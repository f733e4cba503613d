//! Distance matching: which clip time shows the feet having covered a given
//! distance, so a planted foot stays put in the world.
//!
//! Playing a clip at a constant rate for a constant agent speed keeps the
//! feet in step on average only: a procedural or captured gait swings the
//! hips, and its planted foot slides back at a speed that varies over the
//! stance (the shipped walk's, from about 15 to 62 units/s). Against the
//! agent's steady progress the foot then skates back and forth. Instead the
//! clip's time follows the distance walked through the clip's distance
//! curve D(t): the ground its planted foot has covered by clip time t, so
//! that while it bears weight the foot moves back in the clip exactly as
//! far as the agent moves forward.
//!
//! D grows at the backward horizontal speed (against the clip's direction
//! of travel) of the joints on the ground, by the contact rule of
//! `ground_speed` (the median when several are, as both feet are between
//! steps). Where none is (a run's flight), it grows at the clip's ground
//! speed. One cycle covers D(duration), the stride. It is not scaled to the
//! ground speed times the duration: the ground speed is a median, and a
//! stride it made up would slide the planted foot by the difference (the
//! shipped walk's feet cover 6% less than its median says). The inverse of
//! D, sampled at [`DISTANCE_CURVE_SAMPLES`] even shares of the stride, is
//! what locomotion reads (agents.comp too).

use super::ground_speed::{contact_velocities, median, model_positions, skeleton_size};
use super::{Clip, GroundMotion};

pub use crate::shared_constants::DISTANCE_CURVE_SAMPLES;

/// Of the ground speed: the slowest a frame interval may cover ground.
/// A planted foot that barely moves (or moves forward) cannot be matched:
/// the clip would have to race through it, or never leave it. This keeps
/// the curve strictly increasing and the playback rate under ten times the
/// clip's own at its ground speed.
pub const MIN_SPEED_FRACTION: f32 = 0.1;

/// A clip's distance curve, inverted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceCurve {
    /// Ground the feet cover in one cycle, model units; 0 for a clip that
    /// does not move (never timed by distance).
    pub stride: f32,
    /// `times[i]`: the clip time by which the feet have covered
    /// `i / DISTANCE_CURVE_SAMPLES` of the stride. The first is 0, the last
    /// the clip's duration.
    pub times: [f32; DISTANCE_CURVE_SAMPLES + 1],
}

impl DistanceCurve {
    /// Constant playback: the curve of a clip whose planted foot slides
    /// back at a steady speed, and what a clip that cannot be measured gets.
    pub fn uniform(duration: f32, stride: f32) -> DistanceCurve {
        DistanceCurve {
            stride,
            times: std::array::from_fn(|i| duration * i as f32 / DISTANCE_CURVE_SAMPLES as f32),
        }
    }

    pub fn duration(&self) -> f32 {
        self.times[DISTANCE_CURVE_SAMPLES]
    }

    /// The clip time by which the feet have covered `distance` from the
    /// clip's start (any real number: whole strides are whole cycles),
    /// interpolating the table linearly. agents.comp's `matched_time`.
    pub fn clip_time(&self, distance: f32) -> f32 {
        let strides = distance / self.stride;
        let cycles = strides.floor();
        let at = (strides - cycles) * DISTANCE_CURVE_SAMPLES as f32;
        // `at` can round up to the last sample: the table's last piece.
        let i = (at as usize).min(DISTANCE_CURVE_SAMPLES - 1);
        let (t0, t1) = (self.times[i], self.times[i + 1]);
        cycles * self.duration() + t0 + (t1 - t0) * (at - i as f32)
    }
}

/// The distance curve of `clip` as it plays (in place: any root motion
/// already taken out), whose joints have these `parents` and which moves by
/// `motion` (its [`ground_motion`](super::ground_motion)). Uniform, over
/// the ground speed times the duration, for a clip that does not move or
/// cannot be measured.
pub fn distance_curve(
    parents: &[Option<u16>],
    clip: &Clip,
    motion: &GroundMotion,
) -> DistanceCurve {
    let duration = clip.duration();
    let uniform = DistanceCurve::uniform(duration, motion.speed * duration);
    if !(motion.speed > 0.0 && duration.is_finite() && duration > 0.0) {
        return uniform;
    }
    let Some(positions) = model_positions(parents, clip) else {
        return uniform;
    };
    let size = skeleton_size(&positions);
    let forward = motion.velocity.truncate() / motion.speed;
    let floor = MIN_SPEED_FRACTION * motion.speed;
    // Ground covered by the end of each frame interval, from frame 0.
    let mut covered = vec![0.0f32];
    for velocities in contact_velocities(parents, &positions, clip.frame_rate, size) {
        let mut backward: Vec<f32> = velocities.iter().map(|v| -v.dot(forward)).collect();
        let speed = median(&mut backward).unwrap_or(motion.speed).max(floor);
        covered.push(covered[covered.len() - 1] + speed / clip.frame_rate);
    }
    let stride = covered[covered.len() - 1];
    if !(stride.is_finite() && stride > 0.0) {
        return uniform;
    }
    // Invert the piecewise linear D(t) at even shares of the stride.
    let mut times = [0.0f32; DISTANCE_CURVE_SAMPLES + 1];
    let mut interval = 0;
    for (i, time) in times.iter_mut().enumerate() {
        let target = stride * i as f32 / DISTANCE_CURVE_SAMPLES as f32;
        while interval + 2 < covered.len() && covered[interval + 1] < target {
            interval += 1;
        }
        let (d0, d1) = (covered[interval], covered[interval + 1]);
        let within = ((target - d0) / (d1 - d0)).clamp(0.0, 1.0);
        *time = (interval as f32 + within) / clip.frame_rate;
    }
    // Exact ends, whatever the rounding: whole strides stay whole cycles.
    times[0] = 0.0;
    times[DISTANCE_CURVE_SAMPLES] = duration;
    DistanceCurve { stride, times }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{PI, TAU};

    use glam::{Quat, Vec3};

    use super::*;
    use crate::anim::{ground_motion, local_to_model, sample_clip, GroundMotionSource, JointPose};
    use crate::bounds::Bounds;

    const FRAME_RATE: f32 = 30.0;
    /// Distinct frames in one cycle; the clip repeats the first at the end.
    const CYCLE_FRAMES: usize = 32;
    /// root, hip, left foot, right foot.
    const BODY: [Option<u16>; 4] = [None, Some(0), Some(1), Some(1)];
    const FEET: [usize; 2] = [2, 3];
    const HIP: Vec3 = Vec3::new(0.0, 0.0, 40.0);
    /// Feet joints stand this high above the ground, as ankles do.
    const FOOT_HEIGHT: f32 = 2.0;
    const SIDE: Vec3 = Vec3::new(0.0, 4.0, 0.0);
    const STRIDE: f32 = 30.0;
    const SWING_HEIGHT: f32 = 8.0;

    /// Where a treadmill foot is at `phase` of its cycle (travel along +X).
    /// For the first half it is planted and slides back by `STRIDE`, at a
    /// speed that swings by `unevenness` either side of its mean (fastest
    /// at touch-down, slowest mid-stance, as a swinging hip makes it); for
    /// the second it lifts and swings forward.
    fn foot(unevenness: f32, phase: f32) -> Vec3 {
        let phase = phase.rem_euclid(1.0);
        if phase < 0.5 {
            let stance = 2.0 * phase;
            let slid = stance + unevenness * (TAU * stance).sin() / TAU;
            Vec3::new(STRIDE * (0.5 - slid), 0.0, FOOT_HEIGHT)
        } else {
            let swing = 2.0 * phase - 1.0;
            let along = -0.5 * STRIDE * (PI * swing).cos();
            Vec3::new(along, 0.0, FOOT_HEIGHT + SWING_HEIGHT * (PI * swing).sin())
        }
    }

    /// Two such legs half a cycle apart; `lift` raises the whole body over
    /// these frames (a leap: nothing on the ground).
    fn treadmill(unevenness: f32, lift: std::ops::Range<usize>) -> Clip {
        let at = |translation| JointPose::new(Quat::IDENTITY, translation);
        let frames: Vec<Vec<JointPose>> = (0..=CYCLE_FRAMES)
            .map(|f| {
                let phase = f as f32 / CYCLE_FRAMES as f32;
                let root = if lift.contains(&f) { 15.0 } else { 0.0 };
                vec![
                    at(Vec3::Z * root),
                    at(HIP),
                    at(foot(unevenness, phase) + SIDE - HIP),
                    at(foot(unevenness, phase + 0.5) - SIDE - HIP),
                ]
            })
            .collect();
        Clip {
            morphs: Default::default(),
            name: "treadmill".into(),
            frame_rate: FRAME_RATE,
            bounds: vec![Bounds::point(Vec3::ZERO); frames.len()],
            frames,
            looping: true,
        }
    }

    /// The planted foot's average speed in the world over a cycle, over the
    /// agent's, for a character walking along +X and playing `clip` by
    /// `curve`. Planted: the lower foot, while it stands at ground height.
    fn planted_foot_slide(clip: &Clip, curve: &DistanceCurve) -> f32 {
        let samples = 600;
        let step = curve.stride / samples as f32;
        let mut local = vec![JointPose::IDENTITY; BODY.len()];
        let mut model = local.clone();
        let mut feet_at = |distance: f32| -> [Vec3; 2] {
            sample_clip(clip, curve.clip_time(distance), &mut local);
            local_to_model(&BODY, &local, &mut model);
            FEET.map(|j| model[j].translation + Vec3::X * distance)
        };
        let (mut slid, mut walked) = (0.0, 0.0);
        for i in 0..samples {
            let (a, b) = (feet_at(i as f32 * step), feet_at((i + 1) as f32 * step));
            let lower = if a[0].z <= a[1].z { 0 } else { 1 };
            let planted = |p: Vec3| p.z < FOOT_HEIGHT + 0.01;
            if planted(a[lower]) && planted(b[lower]) {
                slid += (b[lower] - a[lower]).length();
                walked += step;
            }
        }
        assert!(
            walked > 0.5 * curve.stride,
            "a foot is down most of the time"
        );
        slid / walked
    }

    #[test]
    fn an_uneven_stance_is_matched_and_the_foot_stays_put() {
        let clip = treadmill(0.5, 0..0);
        let motion = ground_motion(&BODY, &clip);
        assert_eq!(motion.source, GroundMotionSource::Feet);
        let matched = planted_foot_slide(&clip, &distance_curve(&BODY, &clip, &motion));
        // What a constant rate at the ground speed does.
        let duration = clip.duration();
        let constant = DistanceCurve::uniform(duration, motion.speed * duration);
        let uniform = planted_foot_slide(&clip, &constant);
        println!("planted foot slide: {matched} matched, {uniform} at a constant rate");
        // The foot's speed swings from half the ground speed to one and a
        // half: played at a constant rate it skates by about a third of it
        // (measured: 32%). Matched, what is left comes from interpolating
        // the table between its samples (measured: 2.2%; 0.4% with 255).
        assert!(uniform > 0.2, "{uniform}");
        assert!(matched < 0.04, "{matched}");
    }

    #[test]
    fn an_even_stance_plays_at_a_constant_rate() {
        let clip = treadmill(0.0, 0..0);
        let motion = ground_motion(&BODY, &clip);
        let curve = distance_curve(&BODY, &clip, &motion);
        // Two stances a cycle: the stride is twice the foot's slide.
        assert!(
            (curve.stride - 2.0 * STRIDE).abs() < 0.02 * STRIDE,
            "{curve:?}"
        );
        let uniform = DistanceCurve::uniform(clip.duration(), curve.stride);
        for (t, u) in curve.times.iter().zip(uniform.times) {
            assert!((t - u).abs() < 0.02 * clip.duration(), "{t} vs {u}");
        }
    }

    #[test]
    fn a_leap_covers_ground_at_the_ground_speed_and_the_curve_rises() {
        // Frames 6 to 10 in the air: nothing on the ground to follow.
        let clip = treadmill(0.5, 6..11);
        let motion = ground_motion(&BODY, &clip);
        let curve = distance_curve(&BODY, &clip, &motion);
        assert_eq!(curve.times[0], 0.0);
        assert_eq!(curve.duration(), clip.duration());
        assert!(curve.times.windows(2).all(|w| w[1] > w[0]), "{curve:?}");
        // In the air the clip plays at about its own rate: a share of the
        // stride takes about as long as it would at a constant rate.
        let air = (6.5 / FRAME_RATE / clip.duration() * DISTANCE_CURVE_SAMPLES as f32) as usize;
        let seconds = curve.times[air + 1] - curve.times[air];
        let even = clip.duration() / DISTANCE_CURVE_SAMPLES as f32;
        assert!((seconds - even).abs() < 0.2 * even, "{seconds} vs {even}");
    }

    #[test]
    fn still_and_unmeasurable_clips_play_at_a_constant_rate() {
        let clip = treadmill(0.5, 0..0);
        let duration = clip.duration();
        let still = distance_curve(&BODY, &clip, &GroundMotion::STILL);
        assert_eq!(still, DistanceCurve::uniform(duration, 0.0));
        let motion = ground_motion(&BODY, &clip);
        let mut single = clip.clone();
        single.frames.truncate(1);
        assert_eq!(
            distance_curve(&BODY, &single, &motion),
            DistanceCurve::uniform(0.0, 0.0)
        );
        assert_eq!(
            distance_curve(&BODY[..3], &clip, &motion),
            DistanceCurve::uniform(duration, motion.speed * duration)
        );
    }

    #[test]
    fn clip_time_counts_whole_strides_as_whole_cycles() {
        let clip = treadmill(0.5, 0..0);
        let curve = distance_curve(&BODY, &clip, &ground_motion(&BODY, &clip));
        let duration = clip.duration();
        for cycles in [-3.0, 0.0, 1.0, 7.0] {
            let at = curve.clip_time(cycles * curve.stride);
            assert!((at - cycles * duration).abs() < 1e-5, "{cycles}: {at}");
            // The curve joins up across the cycle's ends.
            let before = curve.clip_time((cycles - 1e-4) * curve.stride);
            assert!(
                before < at && at - before < 1e-2 * duration,
                "{before} {at}"
            );
        }
        let half = DistanceCurve::uniform(duration, 10.0).clip_time(25.0);
        assert!((half - 2.5 * duration).abs() < 1e-5, "{half}");
    }
}
