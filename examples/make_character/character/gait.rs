//! Walk and run: one parametric gait, two sets of numbers.
//!
//! Phase 0 has the left leg passing under the body on its way forward; the
//! left heel strikes at a quarter cycle, the right at three quarters. Arms
//! swing against the legs, the pelvis turns with the leading leg and the chest
//! turns against it, and the head stays level and looks ahead.

use std::f64::consts::{FRAC_PI_2, PI};

use glam::DVec3;

use super::clips::{outward, pitch, roll, yaw};
use super::curves::{angle, bump};
use super::pose::Pose;
use super::skeleton::{Side, Skeleton};

struct Gait {
    /// Hip flexion (degrees) is `hip_mid + hip_swing * sin(leg angle)`.
    hip_mid: f64,
    hip_swing: f64,
    /// Knee flexion: always, at mid-swing, and under load after heel strike.
    knee_min: f64,
    knee_swing: f64,
    knee_load: f64,
    /// Toes-down foot pitch at push-off, toes-up at heel strike.
    push_off: f64,
    heel_strike: f64,
    shoulder_swing: f64,
    arm_out: f64,
    elbow_min: f64,
    elbow_swing: f64,
    lean: f64,
    pelvis_yaw: f64,
    pelvis_roll: f64,
    chest_yaw: f64,
    /// Side-to-side pelvis travel over the standing foot.
    sway: f64,
    /// Height gained in the flight phases (running only).
    flight: f64,
}

const WALK: Gait = Gait {
    hip_mid: 4.0,
    hip_swing: 21.0,
    knee_min: 4.0,
    knee_swing: 55.0,
    knee_load: 12.0,
    push_off: 22.0,
    heel_strike: 8.0,
    shoulder_swing: 16.0,
    arm_out: 4.0,
    elbow_min: 12.0,
    elbow_swing: 14.0,
    lean: 3.0,
    pelvis_yaw: 5.0,
    pelvis_roll: 3.0,
    chest_yaw: 4.0,
    sway: 0.8,
    flight: 0.0,
};

const RUN: Gait = Gait {
    hip_mid: 12.0,
    hip_swing: 33.0,
    knee_min: 12.0,
    knee_swing: 95.0,
    knee_load: 28.0,
    push_off: 30.0,
    heel_strike: 4.0,
    shoulder_swing: 30.0,
    arm_out: 8.0,
    elbow_min: 75.0,
    elbow_swing: 20.0,
    lean: 10.0,
    pelvis_yaw: 8.0,
    pelvis_roll: 4.0,
    chest_yaw: 8.0,
    sway: 0.5,
    flight: 3.5,
};

pub fn walk(skeleton: &Skeleton, phase: f64) -> Pose {
    gait_pose(skeleton, &WALK, angle(phase))
}

pub fn run(skeleton: &Skeleton, phase: f64) -> Pose {
    gait_pose(skeleton, &RUN, angle(phase))
}

fn gait_pose(skeleton: &Skeleton, gait: &Gait, angle: f64) -> Pose {
    let j = |name: &str| skeleton.find(name);
    let mut pose = Pose::rest(skeleton);

    let pelvis = yaw(-gait.pelvis_yaw * angle.sin()) * roll(-gait.pelvis_roll * angle.cos());
    pose.rotate(j("pelvis"), pelvis);
    // Straighten the roll back up the spine, lean forward and turn the chest
    // against the pelvis.
    let spine_yaw = (gait.chest_yaw + gait.pelvis_yaw) * angle.sin() / 3.0;
    let spine_roll = gait.pelvis_roll * angle.cos() / 3.0;
    for (name, lean) in [("spine_1", 0.5), ("spine_2", 0.3), ("chest", 0.2)] {
        pose.rotate(
            j(name),
            yaw(spine_yaw) * roll(spine_roll) * pitch(gait.lean * lean),
        );
    }
    // The head undoes what the trunk did, so the eyes stay on the horizon.
    pose.rotate(j("neck"), pitch(-gait.lean * 0.3));
    let trunk = pose.accumulated(skeleton, j("neck"));
    pose.rotate(j("head"), trunk.inverse());

    for side in Side::BOTH {
        let limb = |name: &str| j(&side.joint(name));
        let leg_angle = if side == Side::Left {
            angle
        } else {
            angle + PI
        };

        let hip = gait.hip_mid + gait.hip_swing * leg_angle.sin();
        let knee = gait.knee_min
            + gait.knee_swing * bump(leg_angle, -0.1, 2.2)
            + gait.knee_load * bump(leg_angle, FRAC_PI_2 + 0.8, 3.0);
        let push_off = gait.push_off * bump(leg_angle, -FRAC_PI_2 + 0.1, 2.5);
        let foot_pitch = push_off - gait.heel_strike * bump(leg_angle, FRAC_PI_2, 6.0);
        // Legs swing in the body's travel plane whatever the pelvis does.
        pose.rotate(limb("thigh"), pelvis.inverse() * pitch(-hip));
        pose.rotate(limb("calf"), pitch(knee));
        // Cancel the leg's pitch so the foot's own pitch is `foot_pitch`.
        pose.rotate(limb("foot"), pitch(foot_pitch + hip - knee));
        // Toes stay on the ground while the heel rises.
        pose.rotate(limb("toe"), pitch(-push_off));

        let arm_angle = leg_angle + PI;
        let shoulder = gait.shoulder_swing * arm_angle.sin();
        let elbow = gait.elbow_min + gait.elbow_swing * (0.5 + 0.5 * arm_angle.sin());
        pose.rotate(
            limb("upper_arm"),
            outward(side, gait.arm_out) * pitch(-shoulder),
        );
        pose.rotate(limb("forearm"), pitch(-elbow));
        pose.rotate(limb("hand"), pitch(-0.3 * elbow));
    }

    // Over the standing foot: left at half a cycle, right at zero.
    pose.pelvis_offset = DVec3::new(0.0, -gait.sway * angle.cos(), flight_height(gait, angle));
    pose
}

/// Running leaves the ground after each push-off, twice a cycle.
fn flight_height(gait: &Gait, angle: f64) -> f64 {
    gait.flight * bump(2.0 * angle, PI - 0.75, 3.0)
}
