//! Locomotion: agents walking their lanes (`crowd::agents`). Nobody overlaps
//! over a seeded minute, planted feet stay planted, the agent pass
//! (agents.comp) writes what the CPU reference computes, for one model and
//! for a crowd mixing models of different gaits, and headless
//! renders with agents moving are deterministic.

use crate::common;

use common::many_joints::write_many_parts;
use common::{shipped_model, write_scaled_copy};

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use md5crowd::anim::Clip;
use md5crowd::anim::{local_to_model, sample_clip, JointPose};
use md5crowd::crowd::{
    agent_state, lay_out_lanes, spawn_mixed_crowd, AgentLane, CrowdLayout, Instance,
    LocomotionTable,
};
use md5crowd::gpu::animation_data::first_clips;
use md5crowd::gpu::capture::FrameCapture;
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::crowd_buffers::{Animation, PALETTE_START_BYTES};
use md5crowd::gpu::crowd_resources::CrowdAgents;
use md5crowd::gpu::frame_loop::{
    Destination, FrameInput, FrameSource, Posed, SceneUniforms, ViewOptions,
};
use md5crowd::gpu::guard::Destroy;
use md5crowd::gpu::renderer::{Renderer, RendererDesc};
use md5crowd::gpu::shader_types::{
    CrowdInstance, GpuAgentLane, GpuInstanceLayer, GpuLocomotionTable, InstanceAnimation,
};
use md5crowd::gpu::{Context, ContextDesc};
use md5crowd::model::Model;
use md5crowd::skin::InfluenceLimit;

/// The widest box of every pose, as the app measures it for lanes.
fn footprint(model: &Model) -> f32 {
    let bounds = model
        .clips
        .iter()
        .fold(model.bind_pose_bounds(), |a, c| a.union(c.bounds_union()));
    let size = bounds.max - bounds.min;
    size.x.max(size.y)
}

fn table(model: &Model) -> LocomotionTable {
    LocomotionTable::new(&model.clips, &model.ground_motion, &model.distance_curves)
        .expect("the shipped walk and run move over the ground")
}

#[test]
fn the_shipped_gaits_are_idle_walk_and_run() {
    let model = shipped_model();
    let table = table(&model);
    let names: Vec<&str> = table
        .gaits
        .iter()
        .map(|g| model.clips[g.clip as usize].name.as_str())
        .collect();
    let speeds: Vec<f32> = table.gaits.iter().map(|g| g.speed).collect();
    println!("gaits {names:?} at {speeds:?} units/s");
    assert_eq!(names, ["idle", "walk", "run"]);
}

#[test]
fn agents_never_overlap_over_a_seeded_minute() {
    let model = shipped_model();
    let table = table(&model);
    let width = footprint(&model);
    let lanes = lay_out_lanes(400, width, 11);
    let base = Instance::settled(0, 0.0);
    let mut closest = f32::MAX;
    for step in 0..=60 * 30 {
        let time = step as f32 / 30.0;
        let positions: Vec<Vec3> = lanes
            .iter()
            .map(|lane| agent_state(lane, &table, time, &base).position)
            .collect();
        for (i, a) in positions.iter().enumerate() {
            for b in &positions[i + 1..] {
                closest = closest.min(a.distance(*b));
            }
        }
    }
    println!(
        "closest two agents over a minute: {closest:.2} units, footprint {width:.2} ({:.2} footprints)",
        closest / width
    );
    assert!(closest >= width, "{closest} < footprint {width}");
}

/// Where joint `joint` of `instance` is in the world at `time`.
fn joint_in_world(model: &Model, instance: &Instance, time: f32, joint: usize) -> Vec3 {
    let clip = &model.clips[instance.clip as usize];
    let mut local = vec![JointPose::IDENTITY; clip.joint_count()];
    sample_clip(clip, instance.local_time(time), &mut local);
    let mut posed = vec![JointPose::IDENTITY; local.len()];
    local_to_model(&model.skeleton.parents, &local, &mut posed);
    Quat::from_rotation_z(instance.yaw) * posed[joint].translation + instance.position
}

/// How the planted foot moves over one cycle of the gait the lane plays at
/// `start` (held steady for the cycle), over the ground the agent covers
/// meanwhile: its average world-space velocity (the drift that reads as
/// skating), and the average of its speed (every back and forth and
/// sideways slide counts). The planted foot: of the feet's joints (ankles
/// and toes), the lowest, while it is within half a unit (the character is
/// 65 tall) of the lowest it gets in the cycle.
fn planted_foot_motion(
    model: &Model,
    table: &LocomotionTable,
    lane: &AgentLane,
    start: f32,
) -> (f32, f32) {
    let base = Instance::settled(0, 0.0);
    let first = agent_state(lane, table, start, &base);
    let clip = &model.clips[first.instance.clip as usize];
    let feet: Vec<usize> = ["l_foot", "l_toe", "r_foot", "r_toe"]
        .iter()
        .map(|name| model.skeleton.names.iter().position(|n| n == name).unwrap())
        .collect();
    let samples = 240;
    let step = clip.duration() / samples as f32;
    let frames: Vec<(Vec<Vec3>, f32)> = (0..=samples)
        .map(|i| {
            let time = start + i as f32 * step;
            let agent = agent_state(lane, table, time, &base);
            assert_eq!(agent.instance.clip, first.instance.clip, "one gait");
            let joints = feet
                .iter()
                .map(|&joint| joint_in_world(model, &agent.instance, time, joint))
                .collect();
            (joints, agent.speed)
        })
        .collect();
    let lowest: Vec<f32> = (0..feet.len())
        .map(|f| frames.iter().map(|(j, _)| j[f].z).fold(f32::MAX, f32::min))
        .collect();
    let (mut drift, mut travelled, mut ground, mut planted) = (Vec3::ZERO, 0.0, 0.0, 0);
    for pair in frames.windows(2) {
        let ((a, speed), (b, _)) = (&pair[0], &pair[1]);
        let foot = (0..feet.len())
            .min_by(|&x, &y| a[x].z.total_cmp(&a[y].z))
            .unwrap();
        if a[foot].z - lowest[foot] < 0.5 && b[foot].z - lowest[foot] < 0.5 {
            let moved = (b[foot] - a[foot]).with_z(0.0);
            drift += moved;
            travelled += moved.length();
            ground += speed * step;
            planted += 1;
        }
    }
    assert!(planted > samples / 4, "a foot is on the ground: {planted}");
    (drift.length() / ground, travelled / ground)
}

#[test]
fn planted_feet_stay_planted() {
    let model = shipped_model();
    let table = table(&model);
    // A lane in the middle of a 1000-agent crowd: turning, as lanes do.
    let lanes = lay_out_lanes(1000, footprint(&model), 5);
    let lane = lanes[500];
    // The profile walks steadily from 5.5 s to 13.5 s, runs from 15 s to
    // 20 s of the lane's clock.
    for (gait, at) in [("walk", 6.0), ("run", 15.2)] {
        let start = at - lane.time_offset + 29.0;
        let (drift, slide) = planted_foot_motion(&model, &table, &lane, start);
        println!(
            "{gait}: the planted foot's average speed is {:.1}% of the ground speed \
             (its average velocity: {:.1}%)",
            100.0 * slide,
            100.0 * drift
        );
        assert!(slide <= 0.1, "{gait}: {slide}");
    }
}

/// One frame with the agent pass walking everyone to `time`.
struct AgentFrame<'a> {
    animation: &'a [InstanceAnimation],
    layers: &'a [GpuInstanceLayer],
    time: f32,
    locomotion: bool,
}

impl FrameSource for AgentFrame<'_> {
    fn frame_input(&mut self, _index: u64) -> FrameInput<'_> {
        let view_projection = Mat4::perspective_rh(1.0, 1.0, 1.0, 5000.0)
            * Mat4::look_at_rh(Vec3::new(0.0, -800.0, 600.0), Vec3::ZERO, Vec3::Z);
        FrameInput {
            uniforms: SceneUniforms {
                view_projection,
                time: self.time,
                blend_time: 0.25,
                ..SceneUniforms::default()
            },
            instances: self.animation,
            layers: self.layers,
            instances_version: 0,
            posed: Posed::OnGpu,
            view: ViewOptions {
                locomotion: self.locomotion,
                ..ViewOptions::default()
            },
        }
    }
}

/// Turn difference in (-pi, pi].
fn angle_between(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(std::f32::consts::TAU);
    if d > std::f32::consts::PI {
        d - std::f32::consts::TAU
    } else {
        d
    }
}

/// The figures the agent pass is held to: how far its instances are from
/// the CPU reference's at worst.
#[derive(Debug, Default)]
struct AgentErrors {
    /// World units.
    position: f32,
    /// Radians.
    yaw: f32,
    /// Clip times, relative.
    phase: f32,
}

/// Lays `counts[m]` instances of each of `models` on their lanes as the app
/// does (one lane per grid cell, spaced for the widest footprint), runs the
/// agent pass at several times and compares every instance with the CPU
/// reference: `crowd::agent_state` with its own model's table, or where it
/// stood for a model without gaits. Switched off, everyone is back home.
/// Validation must stay silent.
fn assert_the_agent_pass_matches_the_cpu(
    models: &[Model],
    counts: &[usize],
    seed: u64,
) -> AgentErrors {
    let tables: Vec<Option<LocomotionTable>> = models
        .iter()
        .map(|m| LocomotionTable::new(&m.clips, &m.ground_motion, &m.distance_curves))
        .collect();
    let width = models.iter().map(footprint).fold(0.0, f32::max);
    let count = counts.iter().sum();
    let layout = CrowdLayout {
        instances: count,
        spacing: 1.5 * width,
        seed,
    };
    let model_clips: Vec<&[Clip]> = models.iter().map(|m| &m.clips[..]).collect();
    let (crowd, cells) = spawn_mixed_crowd(&layout, &model_clips, counts);
    let all_lanes = lay_out_lanes(count, width, seed);
    let lanes: Vec<AgentLane> = cells.iter().map(|&cell| all_lanes[cell]).collect();
    let placements: Vec<CrowdInstance> = crowd.iter().map(CrowdInstance::from).collect();
    let first_clips = first_clips(models);
    let agents = CrowdAgents {
        tables: tables
            .iter()
            .zip(&first_clips)
            .map(|(table, &first)| GpuLocomotionTable::new(table.as_ref(), first))
            .collect(),
        lanes: lanes
            .iter()
            .zip(&placements)
            .map(|(lane, home)| GpuAgentLane::new(lane, home))
            .collect(),
    };
    let animation: Vec<InstanceAnimation> = crowd
        .iter()
        .map(|i| InstanceAnimation::new(i, &first_clips))
        .collect();
    let layers: Vec<GpuInstanceLayer> = crowd
        .iter()
        .flat_map(|i| GpuInstanceLayer::of(i, &first_clips))
        .collect();
    let ctx = Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .unwrap();
    let mut renderer = Renderer::new(
        &ctx,
        models,
        &RendererDesc {
            extent: ash::vk::Extent2D {
                width: 160,
                height: 120,
            },
            animation: Animation::Gpu,
            memory_budget: None,
            animate_kernel: None,
            impostor_budget: md5crowd::crowd::IMPOSTOR_MEMORY_BUDGET,
            samples: 1,
            shadow_cascades: 0,
            shadow_resolution: 1,
            palette_start_bytes: PALETTE_START_BYTES,
        },
    )
    .unwrap();
    assert_eq!(renderer.model.animation.first_clips(), first_clips);
    renderer
        .set_crowd_with_agents(&ctx, &placements, Some(&agents))
        .unwrap();
    let mut capture = FrameCapture::new(None);
    let mut render = |renderer: &mut Renderer, time: f32, locomotion: bool| {
        let mut frame = AgentFrame {
            animation: &animation,
            layers: &layers,
            time,
            locomotion,
        };
        renderer
            .draw_frame(&ctx, Destination::Offscreen, None, &mut capture, &mut frame)
            .unwrap();
        renderer.finish(&ctx).unwrap();
    };
    let mut worst = AgentErrors::default();
    // How far from the origin anyone gets: positions carry float error in
    // proportion (a crowd of 40-metre foxes walks kilometres).
    let mut extent = 0f32;
    for time in [0.0, 3.3, 4.77, 11.0, 17.25, 29.9, 61.4] {
        render(&mut renderer, time, true);
        let slot = renderer.last_slot();
        let gpu_placements = renderer.read_placements(&ctx).unwrap();
        let gpu_animation = renderer.read_instance_animation(&ctx, slot).unwrap();
        for (id, (lane, base)) in lanes.iter().zip(&crowd).enumerate() {
            let Some(table) = &tables[base.model as usize] else {
                assert_eq!(
                    (gpu_placements[id], gpu_animation[id]),
                    (placements[id], animation[id]),
                    "instance {id} of model {} (no gaits) stands at {time} s",
                    base.model
                );
                continue;
            };
            let cpu = agent_state(lane, table, time, base).instance;
            let placed = gpu_placements[id].placement;
            let gpu = gpu_animation[id];
            worst.position = worst.position.max(placed.truncate().distance(cpu.position));
            extent = extent.max(cpu.position.length());
            worst.yaw = worst.yaw.max(angle_between(placed.w, cpu.yaw).abs());
            assert_eq!(
                gpu_placements[id].tint, placements[id].tint,
                "the tint stays"
            );
            let expected = InstanceAnimation::new(&cpu, &first_clips);
            assert_eq!(
                (
                    gpu.clip,
                    gpu.previous_clip,
                    gpu.older_clip,
                    gpu.rate,
                    gpu.from_weight
                ),
                (
                    expected.clip,
                    expected.previous_clip,
                    expected.older_clip,
                    expected.rate,
                    expected.from_weight
                ),
                "instance {id} (model {}) at {time} s",
                base.model
            );
            for (g, c) in [
                (gpu.phase, expected.phase),
                (gpu.previous_phase, expected.previous_phase),
                (gpu.blend_start, expected.blend_start),
            ] {
                worst.phase = worst.phase.max((g - c).abs() / c.abs().max(1.0));
            }
        }
    }
    println!(
        "GPU vs CPU: position {:.2e} units, yaw {:.2e} rad, clip times {:.2e} (relative)",
        worst.position, worst.yaw, worst.phase
    );
    // 1e-2 units, or 5e-7 of the extent, whichever is larger (f32 keeps 6e-8).
    assert!(
        worst.position < 1e-2f32.max(5e-7 * extent),
        "{worst:?}, extent {extent}"
    );
    assert!(worst.yaw < 1e-3, "{worst:?}");
    assert!(worst.phase < 1e-4, "{worst:?}");

    // Switched off, everyone is back where they stood, playing what they
    // played there (the walkers' states are written again).
    render(&mut renderer, 62.0, false);
    assert_eq!(renderer.read_placements(&ctx).unwrap(), placements);
    let slot = renderer.last_slot();
    assert_eq!(
        renderer.read_instance_animation(&ctx, slot).unwrap(),
        animation
    );
    renderer.destroy(&ctx);
    let counts = ctx.message_counts.clone();
    drop(ctx);
    assert_eq!(
        (counts.warnings(), counts.errors()),
        (0, 0),
        "validation stayed silent"
    );
    worst
}

#[test]
fn the_agent_pass_matches_the_cpu_reference() {
    if !common::vulkan_or_skip() {
        return;
    }
    let _ = env_logger::builder().is_test(true).try_init();
    assert_the_agent_pass_matches_the_cpu(&[shipped_model()], &[300], 21);
}

/// The Khronos fox (glTF, STEP keys at 24 a second, Walk and Run its
/// gaits) beside the shipped character.
#[test]
fn the_agent_pass_walks_a_gltf_character_as_the_cpu_does() {
    if !common::vulkan_or_skip() {
        return;
    }
    let _ = env_logger::builder().is_test(true).try_init();
    let fox = md5crowd::model::Model::load_gltf(
        &md5crowd::vfs::GameFile::loose(common::assets().join("gltf/Fox.glb")),
        &md5crowd::model::LoadOptions::default(),
    )
    .unwrap();
    assert_the_agent_pass_matches_the_cpu(&[shipped_model(), fox], &[150, 150], 23);
}

/// A crowd of four models: the shipped character (it walks and runs), a
/// copy 1.6 times its size (the same cycles, so its gaits are 1.6 times as
/// fast), a many-part character whose `sway` slides its feet (its one
/// gait, slower and at a heading of its own) and the same character with
/// only `curl`, on the spot (no gaits: it stands). Each walker must follow
/// its own model's table, and the one without gaits must not move.
#[test]
fn the_agent_pass_walks_each_model_of_a_mixed_crowd_as_the_cpu_does() {
    if !common::vulkan_or_skip() {
        return;
    }
    let _ = env_logger::builder().is_test(true).try_init();
    let dir = common::scratch_dir("mixed_agents");
    let assets = common::assets();
    let anims: Vec<PathBuf> = ["idle", "run", "walk", "wave"]
        .iter()
        .map(|name| assets.join(format!("{name}.md5anim")))
        .collect();
    let giant = write_scaled_copy(
        &dir.join("giant"),
        &assets.join("crowdling.md5mesh"),
        &anims,
        1.6,
        "giant.md5mesh",
    )
    .unwrap();
    let parts = write_many_parts(&dir.join("parts"), 47, 6, 20.0).unwrap();
    let load = |mesh: &Path, anims: &[PathBuf], limit| Model::load(mesh, anims, limit).unwrap();
    let curl: Vec<PathBuf> = parts
        .anims
        .iter()
        .filter(|path| path.ends_with("curl.md5anim"))
        .cloned()
        .collect();
    let models = [
        shipped_model(),
        load(&giant.mesh, &giant.anims, InfluenceLimit::Four),
        load(&parts.mesh, &parts.anims, InfluenceLimit::Eight),
        load(&parts.mesh, &curl, InfluenceLimit::Eight),
    ];
    let speeds = |model: &Model| -> Vec<(String, f32)> {
        table(model)
            .gaits
            .iter()
            .filter(|g| g.speed > 0.0)
            .map(|g| (model.clips[g.clip as usize].name.clone(), g.speed))
            .collect()
    };
    let walk = |model: &Model| {
        let speeds = speeds(model);
        speeds.iter().find(|(name, _)| name == "walk").unwrap().1
    };
    let ratio = walk(&models[1]) / walk(&models[0]);
    assert!(
        (ratio - 1.6).abs() < 0.05,
        "the copy walks {ratio} times as fast"
    );
    let sway = speeds(&models[2]);
    assert!(
        matches!(&sway[..], [(name, speed)] if name == "sway" && *speed < 0.8 * walk(&models[0])),
        "the many-part character's one gait is its sway, slower than the walk: {sway:?}"
    );
    assert!(
        LocomotionTable::new(
            &models[3].clips,
            &models[3].ground_motion,
            &models[3].distance_curves
        )
        .is_none(),
        "curling on the spot is no gait"
    );
    assert_the_agent_pass_matches_the_cpu(&models, &[120, 80, 60, 40], 5);
}

fn headless(dir: &std::path::Path, name: &str, time: &str) -> (Vec<u8>, image::RgbaImage) {
    let image = common::render(
        dir,
        name,
        &[
            common::assets().join("crowdling.md5mesh").to_str().unwrap(),
            common::assets().join("walk.md5anim").to_str().unwrap(),
            common::assets().join("run.md5anim").to_str().unwrap(),
            common::assets().join("idle.md5anim").to_str().unwrap(),
            "--instances",
            "12",
            "--seed",
            "4",
            "--frames",
            "3",
            "--time",
            time,
            "--locomotion",
            "on",
        ],
    );
    let bytes = std::fs::read(common::screenshot_path(dir, name)).unwrap();
    (bytes, image)
}

#[test]
fn walking_renders_are_deterministic_and_move() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("locomotion");
    let (first, image) = headless(&dir, "first", "5");
    let (again, _) = headless(&dir, "again", "5");
    assert!(first == again, "same seed and time, same PNG");
    let (_, later) = headless(&dir, "later", "6");
    let moved = common::differing_pixels(&image, &later, 8);
    println!("{moved} pixels changed between 5 s and 6 s");
    assert!(moved > 500, "the agents moved: {moved} pixels changed");
}
