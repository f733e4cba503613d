//! Standing still: breathing, shifting the weight from foot to foot and
//! glancing around; and a wave of the right hand on top of it.

use glam::DVec3;

use super::clips::{outward, pitch, roll, yaw};
use super::curves::{angle, smoothstep};
use super::pose::Pose;
use super::skeleton::{landmarks, Side, Skeleton};

pub fn idle(skeleton: &Skeleton, phase: f64) -> Pose {
    let mut pose = standing(skeleton, phase, 1.0);
    let j = |name: &str| skeleton.find(name);
    let glance = angle(phase).sin();
    pose.rotate(j("neck"), yaw(8.0 * glance));
    pose.rotate(j("head"), yaw(10.0 * glance) * roll(-3.0 * glance));
    pose
}

/// Raises the right hand, waves three times and lowers it again.
pub fn wave(skeleton: &Skeleton, phase: f64) -> Pose {
    let mut pose = standing(skeleton, phase, 0.4);
    let j = |name: &str| skeleton.find(name);
    let right = |name: &str| j(&Side::Right.joint(name));
    let raised = smoothstep(0.03, 0.28, phase) * (1.0 - smoothstep(0.75, 0.97, phase));
    let waving = angle((phase - 0.28) / 0.47 * 3.0).sin()
        * smoothstep(0.2, 0.35, phase)
        * (1.0 - smoothstep(0.7, 0.8, phase));
    pose.rotate(right("clavicle"), outward(Side::Right, 12.0 * raised));
    // Out to the side, then a little forward.
    pose.rotate(
        right("upper_arm"),
        yaw(25.0 * raised) * outward(Side::Right, 80.0 * raised),
    );
    pose.rotate(
        right("forearm"),
        outward(Side::Right, (100.0 + 25.0 * waving) * raised),
    );
    pose.rotate(right("hand"), outward(Side::Right, 10.0 * waving * raised));
    // Look at the person being greeted, a little to the right.
    pose.rotate(j("head"), yaw(-12.0 * raised) * roll(-4.0 * raised));
    pose.rotate(j("chest"), roll(3.0 * raised));
    pose
}

/// A relaxed stance breathing once per cycle, the weight moving to the left
/// foot and back to the right by `shift` (at most 1).
fn standing(skeleton: &Skeleton, phase: f64, shift: f64) -> Pose {
    let j = |name: &str| skeleton.find(name);
    let mut pose = Pose::rest(skeleton);
    let cycle = angle(phase);
    let breath = (cycle + 1.0).sin();
    let weight = shift * cycle.sin();

    let sway = 1.8 * weight;
    pose.pelvis_offset = DVec3::new(0.0, sway, 0.0);
    let pelvis = roll(3.5 * weight);
    pose.rotate(j("pelvis"), pelvis);
    pose.rotate(j("spine_1"), roll(-1.5 * weight));
    pose.rotate(j("spine_2"), pitch(-0.8 * breath) * roll(-weight));
    pose.rotate(j("chest"), pitch(-1.5 * breath));
    pose.rotate(j("neck"), pitch(1.0 * breath));

    // The hips moved sideways over planted feet: tilt each leg back under
    // its hip, and unbend the ankle so the sole stays flat.
    let leg_length = (landmarks::HIP - landmarks::ANKLE).length();
    let tilt = (sway / leg_length).atan().to_degrees();
    for side in Side::BOTH {
        let limb = |name: &str| j(&side.joint(name));
        // The leg without the weight relaxes: knee forward, heel up.
        let relaxed = (-side.sign() * weight).max(0.0);
        let hip = 3.0 * relaxed;
        let knee = 12.0 * relaxed;
        pose.rotate(limb("thigh"), pelvis.inverse() * roll(-tilt) * pitch(-hip));
        pose.rotate(limb("calf"), pitch(knee));
        pose.rotate(limb("foot"), roll(tilt) * pitch(hip - knee + 5.0 * relaxed));
        pose.rotate(limb("toe"), pitch(-5.0 * relaxed));

        pose.rotate(limb("clavicle"), outward(side, 1.5 * breath));
        pose.rotate(
            limb("upper_arm"),
            outward(side, 2.0) * pitch(-3.0 * (cycle + side.sign()).sin()),
        );
        pose.rotate(limb("forearm"), pitch(-(10.0 + 2.0 * breath)));
    }
    pose
}
