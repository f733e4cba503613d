//! Ground speed per clip (`anim::ground_motion`) and distance curves
//! (`anim::distance_curve`) on the shipped character, loaded as the
//! renderer loads it, and root motion taken out at load.

use crate::common;

use common::assets;

use std::path::{Path, PathBuf};

use glam::Vec3;
use md5crowd::anim::{DistanceCurve, GroundMotion, GroundMotionSource};
use md5crowd::md5::{self, Md5Anim};
use md5crowd::model::Model;
use md5crowd::skin::InfluenceLimit;

/// The speeds at which the generator's walk and run slide a planted foot
/// back (examples/make_character/character/gait.rs poses them; the figures
/// are in assets/README.md, "Conventions").
const WALK_SPEED: f32 = 50.0;
const RUN_SPEED: f32 = 120.0;
/// How close the estimate must come to those figures.
const TOLERANCE: f32 = 0.10;

fn load(anim_paths: &[PathBuf]) -> Model {
    Model::load(
        &assets().join("crowdling.md5mesh"),
        anim_paths,
        InfluenceLimit::Four,
    )
    .unwrap()
}

fn shipped_motions() -> Vec<(String, GroundMotion)> {
    let names = ["idle", "walk", "run", "wave"];
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| assets().join(format!("{n}.md5anim")))
        .collect();
    let model = load(&paths);
    assert_eq!(model.ground_motion.len(), model.clips.len());
    model
        .clips
        .iter()
        .map(|c| c.name.clone())
        .zip(model.ground_motion)
        .collect()
}

fn motion_of(motions: &[(String, GroundMotion)], name: &str) -> GroundMotion {
    motions.iter().find(|(n, _)| n == name).unwrap().1
}

/// The crowdling faces +X: locomotion goes that way, straight.
fn assert_forward_at(motion: GroundMotion, expected: f32) {
    assert_eq!(motion.source, GroundMotionSource::Feet, "{motion:?}");
    assert!(
        (motion.speed - expected).abs() <= TOLERANCE * expected,
        "{} vs {expected}: {motion:?}",
        motion.speed
    );
    assert!(motion.velocity.x > 0.98 * motion.speed, "{motion:?}");
    assert_eq!(motion.velocity.z, 0.0);
}

#[test]
fn shipped_walk_and_run_move_at_the_generators_speeds() {
    let motions = shipped_motions();
    assert_forward_at(motion_of(&motions, "walk"), WALK_SPEED);
    assert_forward_at(motion_of(&motions, "run"), RUN_SPEED);
}

#[test]
fn shipped_walk_and_run_have_rising_distance_curves_over_their_stride() {
    let names = ["idle", "walk", "run", "wave"];
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| assets().join(format!("{n}.md5anim")))
        .collect();
    let model = load(&paths);
    assert_eq!(model.distance_curves.len(), model.clips.len());
    for ((clip, motion), curve) in model
        .clips
        .iter()
        .zip(&model.ground_motion)
        .zip(&model.distance_curves)
    {
        let duration = clip.duration();
        let ground_stride = motion.speed * duration;
        println!(
            "{}: stride {:.1} units a cycle, {:.1} at its ground speed",
            clip.name, curve.stride, ground_stride
        );
        if motion.speed == 0.0 {
            assert_eq!(
                *curve,
                DistanceCurve::uniform(duration, 0.0),
                "{}",
                clip.name
            );
            continue;
        }
        // The feet cover about what the ground speed says (the median of
        // their speeds, not the mean), and time only moves on.
        assert!(
            (curve.stride - ground_stride).abs() <= TOLERANCE * ground_stride,
            "{}: {curve:?}",
            clip.name
        );
        assert_eq!(curve.times[0], 0.0);
        assert_eq!(curve.duration(), duration);
        assert!(curve.times.windows(2).all(|w| w[1] > w[0]), "{curve:?}");
    }
}

#[test]
fn shipped_idle_and_wave_stay_on_the_spot() {
    let motions = shipped_motions();
    for name in ["idle", "wave"] {
        assert_eq!(motion_of(&motions, name), GroundMotion::STILL, "{name}");
    }
}

/// `anim` with its `origin` (joint 0, a root) carried along at `velocity`:
/// a walk with root motion, as motion capture exports it.
fn with_root_motion(anim: &Md5Anim, velocity: Vec3) -> Md5Anim {
    let mut moving = anim.clone();
    let origin = &mut moving.hierarchy[0];
    assert_eq!(origin.flags, 0, "the shipped origin does not move");
    // Tx Ty: the first two components of every frame, ahead of the others.
    origin.flags = 0b11;
    origin.start_index = 0;
    for joint in &mut moving.hierarchy[1..] {
        joint.start_index += 2;
    }
    moving.num_animated_components += 2;
    let base = anim.baseframe[0].position;
    for (f, frame) in moving.frames.iter_mut().enumerate() {
        let at = base + velocity * (f as f32 / anim.frame_rate);
        frame.splice(0..0, [at.x, at.y]);
    }
    for (f, bounds) in moving.bounds.iter_mut().enumerate() {
        let offset = velocity * (f as f32 / anim.frame_rate);
        bounds.min += offset;
        bounds.max += offset;
    }
    moving
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    // Cargo's scratch space for this crate's tests: rewritten each run, not
    // piling up in the system's temporary folder.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ground_speed");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn read_anim(path: &Path) -> Md5Anim {
    md5::read_anim_file(path).unwrap()
}

#[test]
fn root_motion_is_measured_and_taken_out_at_load() {
    let walk_path = assets().join("walk.md5anim");
    let velocity = Vec3::new(50.0, -12.0, 0.0);
    let moving = with_root_motion(&read_anim(&walk_path), velocity);
    let moving_path = write_temp("walk_forward.md5anim", &md5::write_anim(&moving));
    let model = load(&[walk_path, moving_path]);
    let (in_place, carried) = (&model.clips[0], &model.clips[1]);

    // The curve reads the clip in place: the shipped walk's. Its feet slide
    // along X while the root travelled 13 degrees off it: only their slide
    // along that travel counts (and a little of their sideways sway).
    let (walk_curve, carried_curve) = (&model.distance_curves[0], &model.distance_curves[1]);
    let along = walk_curve.stride * velocity.x / velocity.length();
    assert!(
        (carried_curve.stride - along).abs() < 0.01 * along,
        "{} vs {along}",
        carried_curve.stride
    );
    for (a, b) in walk_curve.times.iter().zip(carried_curve.times) {
        assert!((a - b).abs() < 0.03 * in_place.duration(), "{a} vs {b}");
    }

    let motion = model.ground_motion[1];
    assert_eq!(motion.source, GroundMotionSource::RootMotion);
    assert!(
        (motion.velocity - velocity).length() < 0.01 * velocity.length(),
        "{motion:?}"
    );
    assert!((motion.speed - velocity.length()).abs() < 0.01 * velocity.length());

    // Played in place, it is the shipped walk again, bounds included.
    assert_eq!(carried.frames.len(), in_place.frames.len());
    for (f, (a, b)) in carried.frames.iter().zip(&in_place.frames).enumerate() {
        for (j, (a, b)) in a.iter().zip(b).enumerate() {
            let moved = (a.translation - b.translation).length();
            assert!(moved < 1e-3, "frame {f} joint {j}: {moved}");
        }
    }
    for (f, (a, b)) in carried.bounds.iter().zip(&in_place.bounds).enumerate() {
        let moved = (a.min - b.min).abs().max(a.max - b.max).max_element();
        assert!(moved < 1e-2, "frame {f} bounds: {a:?} vs {b:?}");
    }
}
