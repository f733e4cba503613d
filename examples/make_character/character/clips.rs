//! The four clips and the vocabulary they are written in. Every clip is a
//! function of the cycle phase in [0, 1); each is a closed loop, sampled at
//! `cycle_frames` points and closed by repeating its first frame.
//!
//! Walk and run are in place: the body stays over the origin (no root
//! motion), the feet slide back under it as on a treadmill, and a game moves
//! the character itself.

use glam::DQuat;

use super::gait;
use super::idle;
use super::pose::Pose;
use super::skeleton::{Side, Skeleton};

pub struct Clip {
    pub name: &'static str,
    pub frame_rate: f32,
    /// Distinct frames in one loop; the file holds one more.
    pub cycle_frames: usize,
    pub pose: fn(&Skeleton, f64) -> Pose,
}

pub const CLIPS: [Clip; 4] = [
    Clip {
        name: "idle",
        frame_rate: 24.0,
        cycle_frames: 120,
        pose: idle::idle,
    },
    Clip {
        name: "walk",
        frame_rate: 30.0,
        cycle_frames: 32,
        pose: gait::walk,
    },
    Clip {
        name: "run",
        frame_rate: 30.0,
        cycle_frames: 20,
        pose: gait::run,
    },
    Clip {
        name: "wave",
        frame_rate: 30.0,
        cycle_frames: 90,
        pose: idle::wave,
    },
];

/// Rotation about the lateral (Y) axis: tips +Z towards +X, so a positive
/// angle leans the trunk forward, bends the knee and points the toes down,
/// and a negative one swings a hanging arm or leg forward.
pub fn pitch(degrees: f64) -> DQuat {
    DQuat::from_rotation_y(degrees.to_radians())
}

/// Rotation about the forward (X) axis: tips +Y towards +Z, raising the left
/// side.
pub fn roll(degrees: f64) -> DQuat {
    DQuat::from_rotation_x(degrees.to_radians())
}

/// Rotation about the vertical (Z) axis: turns +X towards +Y, to the left.
pub fn yaw(degrees: f64) -> DQuat {
    DQuat::from_rotation_z(degrees.to_radians())
}

/// Swings a hanging limb out to its side, or raises a bone that points to it.
pub fn outward(side: Side, degrees: f64) -> DQuat {
    roll(side.sign() * degrees)
}
