//! Clips as they are loaded and played: which loop and which play once
//! (the rule, `--loop`, `--once`), one-shots holding their last pose in a
//! rendered image, and clip bounds that hold every skinned vertex whatever
//! the md5anim says. The GPU side of each is in tests/gpu/gpu_crowd.rs.

use crate::common;

use common::{md5crowd_as_typed, shipped_mesh};

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Quat, Vec3, Vec4};
use md5crowd::anim::{Clip, SkinningTransform};
use md5crowd::bounds::Bounds;
use md5crowd::crowd::{animate_instance, Animated, Instance};
use md5crowd::md5::{read_anim_file, write_anim};
use md5crowd::model::Model;
use md5crowd::skin::{clip_pose_bounds, BodyParts, InfluenceLimit, SkinnedMesh};

fn shipped_anims() -> Vec<PathBuf> {
    ["idle", "run", "walk", "wave"]
        .iter()
        .map(|name| common::assets().join(format!("{name}.md5anim")))
        .collect()
}

/// `death.md5anim` in `dir`: the first 40 frames of the shipped wave, so it
/// ends with the hand up, not where it began.
fn write_death(dir: &Path) -> PathBuf {
    let mut anim = read_anim_file(&common::assets().join("wave.md5anim")).unwrap();
    anim.frames.truncate(40);
    anim.bounds.truncate(40);
    let path = dir.join("death.md5anim");
    std::fs::write(&path, write_anim(&anim)).unwrap();
    path
}

/// The shipped walk with every frame's md5anim bounds replaced by `bounds`.
fn write_walk_with_bounds(dir: &Path, bounds: Bounds) -> PathBuf {
    let mut anim = read_anim_file(&common::assets().join("walk.md5anim")).unwrap();
    anim.bounds = vec![bounds; anim.frames.len()];
    let path = dir.join("walk.md5anim");
    std::fs::write(&path, write_anim(&anim)).unwrap();
    path
}

#[test]
fn the_shipped_gesture_plays_once_and_the_locomotion_loops() {
    let model = Model::load(&shipped_mesh(), &shipped_anims(), InfluenceLimit::Four).unwrap();
    let loops: Vec<(&str, bool)> = model
        .clips
        .iter()
        .map(|c| (c.name.as_str(), c.looping))
        .collect();
    assert_eq!(
        loops,
        [
            ("idle", true),
            ("run", true),
            ("walk", true),
            ("wave", false)
        ]
    );
}

#[test]
fn a_clip_that_ends_elsewhere_plays_once_by_its_poses() {
    let dir = common::scratch_dir("clip_playback_pose_rule");
    // Named for nothing the name rule knows: the poses decide.
    let ending = dir.join("stretch.md5anim");
    std::fs::rename(write_death(&dir), &ending).unwrap();
    let model = Model::load(&shipped_mesh(), &[ending], InfluenceLimit::Four).unwrap();
    assert!(!model.clips[0].looping);
}

#[test]
fn a_cycle_written_without_its_closing_frame_loops_and_plays_as_the_original() {
    let dir = common::scratch_dir("clip_playback_open_cycle");
    // The shipped walk as most exporters write cycles: without its last
    // frame (a repeat of its first). Named for nothing the name rule
    // knows: the poses decide.
    let walk = common::assets().join("walk.md5anim");
    let mut anim = read_anim_file(&walk).unwrap();
    anim.frames.pop();
    anim.bounds.pop();
    let stride = dir.join("stride.md5anim");
    std::fs::write(&stride, write_anim(&anim)).unwrap();
    let original = Model::load(&shipped_mesh(), &[walk], InfluenceLimit::Four).unwrap();
    let open = Model::load(&shipped_mesh(), &[stride], InfluenceLimit::Four).unwrap();
    let (closed, reopened) = (&original.clips[0], &open.clips[0]);
    assert!(reopened.looping);
    // The closing frame is back: same length, same poses.
    assert_eq!(reopened.frames.len(), closed.frames.len());
    assert_eq!(reopened.duration(), closed.duration());
    for (a, b) in closed
        .frames
        .iter()
        .flatten()
        .zip(reopened.frames.iter().flatten())
    {
        assert!(a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6);
        assert!(a.translation.distance(b.translation) < 1e-3);
    }
    // Locomotion finds the same gait in it.
    let (speed, open_speed) = (original.ground_motion[0].speed, open.ground_motion[0].speed);
    assert!(speed > 0.0);
    assert!(
        (open_speed - speed).abs() <= 0.01 * speed,
        "{open_speed} vs {speed}"
    );
}

/// Every vertex of `meshes` skinned by `transforms` with linear blend
/// skinning, written out here as the reference.
fn skinned_positions(meshes: &[SkinnedMesh], transforms: &[SkinningTransform]) -> Vec<Vec3> {
    let mut out = Vec::new();
    for mesh in meshes {
        for v in 0..mesh.vertex_count() {
            let mut position = Vec3::ZERO;
            for slot in 0..mesh.limit.count() {
                let t = transforms[mesh.joints[v][slot] as usize];
                let rotation = Quat::from_array(t.rotation);
                let translation = Vec4::from_array(t.translation).truncate();
                position += mesh.weights[v][slot] * (rotation * mesh.positions[v] + translation);
            }
            out.push(position);
        }
    }
    out
}

/// Whether every vertex, posed at each frame of `clip`, is inside that
/// frame's box.
fn assert_frames_hold_the_mesh(model: &Model, clip: &Clip, what: &str) {
    let mut transforms = vec![SkinningTransform::default(); model.skeleton.joint_count()];
    for (frame, bounds) in clip.bounds.iter().enumerate() {
        // Exactly on frame `frame` (the clip holds there if it plays once).
        let on_frame = Instance::settled(0, frame as f32 / clip.frame_rate);
        animate_instance(
            Animated::unlayered(&model.skeleton, std::slice::from_ref(clip)),
            &on_frame,
            0.0,
            0.0,
            &mut transforms,
        );
        for p in skinned_positions(&model.meshes, &transforms) {
            let slack = Vec3::splat(1e-3);
            assert!(
                p.cmpge(bounds.min - slack).all() && p.cmple(bounds.max + slack).all(),
                "{what}: frame {frame}: vertex at {p} outside {bounds:?}"
            );
        }
    }
}

#[test]
fn wrong_md5anim_bounds_grow_to_hold_every_skinned_vertex() {
    let dir = common::scratch_dir("clip_playback_bounds");
    let zero = Bounds::point(Vec3::ZERO);
    let garbage = Bounds {
        min: Vec3::new(500.0, -3.0, 2.0),
        max: Vec3::new(500.5, -2.9, 2.1),
    };
    for (what, bounds) in [("zero", zero), ("garbage", garbage)] {
        let walk = write_walk_with_bounds(&dir, bounds);
        let model = Model::load(&shipped_mesh(), &[walk], InfluenceLimit::Four).unwrap();
        let clip = &model.clips[0];
        assert_frames_hold_the_mesh(&model, clip, what);
        // Never smaller than the file said, either.
        let union = clip.bounds_union();
        assert!(union.min.cmple(bounds.min).all() && union.max.cmpge(bounds.max).all());
        // The box is the mesh's, not a point: about the character's height.
        let height = union.max.z - union.min.z;
        let bind = model.bind_pose_bounds();
        assert!(
            height >= 0.9 * (bind.max.z - bind.min.z),
            "{what}: {union:?}"
        );
    }
    // The shipped clips' own bounds pass the same check.
    let model = Model::load(&shipped_mesh(), &shipped_anims(), InfluenceLimit::Four).unwrap();
    for clip in &model.clips {
        assert_frames_hold_the_mesh(&model, clip, &clip.name);
    }
}

/// Occlusion culling hides an instance only when every body part box is
/// hidden, so every triangle it draws must lie whole in one of them: a
/// triangle between two boxes would cross the gap between them.
#[test]
fn every_triangle_of_every_level_lies_in_one_body_part_box() {
    let model = Model::load(&shipped_mesh(), &shipped_anims(), InfluenceLimit::Four).unwrap();
    let parts = BodyParts::of(&model.skeleton, &model.meshes);
    // Trunk, head, two arms, two legs.
    assert_eq!(parts.count, 6);
    let mut transforms = vec![SkinningTransform::default(); model.skeleton.joint_count()];
    let slack = Vec3::splat(1e-3);
    for (clip, part_bounds) in model.clips.iter().zip(&model.part_bounds) {
        assert_eq!(part_bounds.part_count, parts.count);
        assert_eq!(part_bounds.frame_count(), clip.frames.len());
        // On each frame and halfway to the next, which the frame's boxes
        // also hold.
        for step in 0..2 * clip.frames.len() - 1 {
            let frame = step / 2;
            let at = Instance::settled(0, step as f32 * 0.5 / clip.frame_rate);
            animate_instance(
                Animated::unlayered(&model.skeleton, std::slice::from_ref(clip)),
                &at,
                0.0,
                0.0,
                &mut transforms,
            );
            let posed = skinned_positions(&model.meshes, &transforms);
            let boxes = part_bounds.frame(frame);
            let mut first_vertex = 0;
            for mesh in &model.meshes {
                let vertex = |i: u32| posed[first_vertex + i as usize];
                for (level, lod) in mesh.lods.iter().enumerate() {
                    for triangle in lod.indices.chunks_exact(3) {
                        let inside = |b: &Bounds| {
                            triangle.iter().all(|&i| {
                                let p = vertex(i);
                                p.cmpge(b.min - slack).all() && p.cmple(b.max + slack).all()
                            })
                        };
                        assert!(
                            boxes.iter().any(inside),
                            "{} at {step}/2 frames, level {level}: triangle {triangle:?} \
                             in no part box",
                            clip.name
                        );
                    }
                }
                first_vertex += mesh.vertex_count();
            }
            // Together no larger than the frame's box.
            let whole = boxes.iter().fold(Bounds::EMPTY, |a, b| a.union(*b));
            let frame_box = clip.bounds[frame];
            assert!(whole.min.cmpge(frame_box.min).all() && whole.max.cmple(frame_box.max).all());
        }
    }
}

#[test]
fn load_time_with_the_pose_bounds() {
    // Reported, not asserted: what growing the bounds to the poses costs.
    let anims = shipped_anims();
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let load = median(
        (0..7)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(
                    Model::load(&shipped_mesh(), &anims, InfluenceLimit::Four).unwrap(),
                );
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let model = Model::load(&shipped_mesh(), &anims, InfluenceLimit::Four).unwrap();
    let frames: usize = model.clips.iter().map(|c| c.frames.len()).sum();
    let parts = BodyParts::of(&model.skeleton, &model.meshes);
    let bounds = median(
        (0..7)
            .map(|_| {
                let start = Instant::now();
                for clip in &model.clips {
                    std::hint::black_box(clip_pose_bounds(
                        &model.skeleton,
                        clip,
                        &model.meshes,
                        &parts,
                    ));
                }
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    println!(
        "Model::load (crowdling, 4 clips): median {load:.2} ms, of which pose bounds \
         ({frames} frames x {} vertices) {bounds:.2} ms",
        model.vertex_count()
    );
}

#[test]
fn loop_and_once_name_known_clips_or_exit_2() {
    let mesh = shipped_mesh();
    let mesh = mesh.to_str().unwrap();
    let anims = shipped_anims();
    let walk = anims[2].to_str().unwrap();
    let wave = anims[3].to_str().unwrap();
    for (args, expected) in [
        (
            vec!["--once", "walk,jog"],
            "--once jog: no such clip; the clips are: walk, wave",
        ),
        (
            vec!["--loop", "wave", "--once", "wave"],
            "--loop wave and --once wave: a clip either loops or plays once",
        ),
    ] {
        let mut all = vec![mesh, walk, wave, "--headless"];
        all.extend(args);
        let out = md5crowd_as_typed(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(expected), "{all:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // The benchmark takes them too.
    let out = md5crowd_as_typed(&["bench", mesh, walk, "--loop", "run"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--loop run: no such clip"));
}

#[test]
fn a_missing_texture_folder_exits_2() {
    let missing = "/nonexistent/base";
    for command in [vec!["--headless"], vec!["bench"]] {
        let mut args = command.clone();
        args.extend(["--textures", missing]);
        let out = md5crowd_as_typed(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("--textures /nonexistent/base: no such directory"),
            "{stderr}"
        );
    }
}

#[test]
fn a_death_clip_holds_its_last_pose_while_walk_moves_on() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("clip_playback_death");
    let death = write_death(&dir);
    let walk = common::assets().join("walk.md5anim");
    let (mesh, death, walk) = (
        shipped_mesh(),
        death.to_str().unwrap().to_owned(),
        walk.to_str().unwrap().to_owned(),
    );
    let mesh = mesh.to_str().unwrap();
    let render = |name: &str, extra: &[&str]| {
        let mut args = vec![mesh, &death, &walk, "--instances", "4"];
        args.extend_from_slice(extra);
        common::render(&dir, name, &args)
    };
    let moved = |a, b| common::differing_pixels(a, b, 8);

    let dead_at_10 = render("death_10", &["--clip", "death", "--time", "10"]);
    let dead_at_30 = render("death_30", &["--clip", "death", "--time", "30"]);
    assert_eq!(
        moved(&dead_at_10, &dead_at_30),
        0,
        "death holds its last pose"
    );
    let dying = render("death_0.5", &["--clip", "death", "--time", "0.5"]);
    assert!(
        moved(&dying, &dead_at_10) > 100,
        "and it played to get there"
    );

    let walk_at_10 = render("walk_10", &["--clip", "walk", "--time", "10"]);
    let walk_later = render("walk_10.2", &["--clip", "walk", "--time", "10.2"]);
    assert!(moved(&walk_at_10, &walk_later) > 100, "walk keeps moving");

    // The overrides turn both around.
    let held_walk = ["--clip", "walk", "--once", "walk", "--time"];
    let a = render("walk_once_10", &[&held_walk[..], &["10"]].concat());
    let b = render("walk_once_30", &[&held_walk[..], &["30"]].concat());
    assert_eq!(moved(&a, &b), 0, "--once walk holds");
    let looped = ["--clip", "death", "--loop", "death", "--time"];
    let a = render("death_loop_10", &[&looped[..], &["10"]].concat());
    let b = render("death_loop_10.2", &[&looped[..], &["10.2"]].concat());
    assert!(moved(&a, &b) > 100, "--loop death moves on");
}
