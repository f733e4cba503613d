//! The crowd as the renderer needs it each frame: placements and animation
//! state for the GPU, and, with CPU animation, every instance's skinning
//! transforms from the reference jobs ([`crate::crowd::animate_crowd`]) and
//! for the yardstick path the vertices skinned on the CPU too. With
//! locomotion, the agents' lanes for the agent pass, and for CPU animation
//! the agents as the CPU reference moves them ([`crate::crowd::agent_state`]).

use glam::Vec3;

use crate::bounds::Bounds;
use crate::crowd::{self, AgentLane, CrowdLayout, Instance, LocomotionTable};
use crate::gpu::crowd_resources::{Animation, CrowdAgents};
use crate::gpu::frame_loop::{FrameInput, Posed, ViewOptions};
use crate::gpu::gpu_model;
use crate::gpu::passes::animate::Kernel;
use crate::gpu::shader_types::{
    CrowdInstance, FrameUniforms, GpuAgentLane, GpuLocomotionTable, InstanceAnimation,
    SkinningTransform, SurfaceVertex,
};
use crate::model::Model;
use crate::skin::{self, SkinningMethod};

/// What the crowd is made from; the window rebuilds it with another count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdSpec {
    pub instances: u32,
    pub seed: u64,
    /// Grid spacing; `None`: 1.5 times the model's footprint.
    pub spacing: Option<f32>,
    /// Everyone plays this clip; `None`: a seeded mix.
    pub clip: Option<u32>,
    /// Seconds a clip switch crossfades over.
    pub blend_time: f32,
    pub animation: Animation,
    /// The GPU animation kernel; `None`: the device's.
    pub animate_kernel: Option<Kernel>,
    /// Agents walk their lanes (the window's G toggles it); off: the grid.
    pub locomotion: bool,
}

/// Where locomotion takes the crowd: the gaits and speed profile every
/// agent shares, and each one's lane.
pub struct Locomotion {
    pub table: LocomotionTable,
    pub lanes: Vec<AgentLane>,
}

pub struct CrowdState {
    pub spec: CrowdSpec,
    /// Where everyone stands and what they play without locomotion.
    pub instances: Vec<Instance>,
    /// `instances` as the vertex shader reads them.
    pub placements: Vec<CrowdInstance>,
    /// `None`: no looping clip of the model moves, so nobody walks.
    pub locomotion: Option<Locomotion>,
    /// With locomotion on and CPU animation: `instances` as the agents
    /// move them at `time` (the GPU's agent pass does the same).
    walking: Vec<Instance>,
    /// Every pose of the model fits this box (model space).
    footprint: Bounds,
    /// `instances` as animate.comp and cull.comp read them; re-uploaded
    /// when `instances_version` changes.
    instance_animation: Vec<InstanceAnimation>,
    instances_version: u64,
    /// The global time of the last `animate` call.
    pub time: f32,
    /// CPU animation only: `instances.len() * joint_count`, instance-major.
    skinning_transforms: Vec<SkinningTransform>,
    /// Skinned surface vertices of every instance (CPU skinning only).
    pub cpu_skinned: Option<Vec<SurfaceVertex>>,
    /// Per clip, the box its poses stay in (md5anim `bounds` grown to the
    /// skinned poses'), and the bind pose's for a model without clips.
    clip_bounds: Vec<Bounds>,
    bind_pose_bounds: Bounds,
    /// Per clip: whether it loops, and its duration.
    clip_loops: Vec<bool>,
    clip_durations: Vec<f32>,
    /// Per instance, the looping clip it fades back to once the one-shot
    /// it plays is over (a one-shot picked in the window); `None`: it
    /// carries on, or holds a one-shot's last pose.
    return_clips: Vec<Option<u32>>,
}

impl CrowdState {
    /// A seeded crowd on a grid. Instance 0 is the one a single-character
    /// view shows: it faces the camera (+X), plays the first clip (or
    /// `spec.clip`) from its start at normal speed, and keeps its texture's
    /// colours, so `--time T` shows frame T of it.
    ///
    /// With locomotion, everyone gets a lane (see `crowd::agents`); a
    /// clip picked for everyone (`spec.clip`) switches locomotion off.
    pub fn new(model: &Model, mut spec: CrowdSpec) -> CrowdState {
        let bind_pose_bounds = model.bind_pose_bounds();
        let clip_bounds: Vec<Bounds> = model.clips.iter().map(|c| c.bounds_union()).collect();
        // Spaced so that no two neighbours touch, whatever they play.
        let footprint = clip_bounds
            .iter()
            .fold(bind_pose_bounds, |a, &b| a.union(b));
        let size = footprint.max - footprint.min;
        let width = size.x.max(size.y);
        spec.locomotion &= spec.clip.is_none();
        let table =
            LocomotionTable::new(&model.clips, &model.ground_motion, &model.distance_curves);
        if table.is_none() && spec.locomotion {
            log::warn!(
                "locomotion: no looping clip of {} moves over the ground; the crowd stands",
                model.mesh_file
            );
        }
        let locomotion = table.map(|table| Locomotion {
            table,
            lanes: crowd::lay_out_lanes(spec.instances as usize, width, spec.seed),
        });
        let layout = CrowdLayout {
            instances: spec.instances as usize,
            spacing: spec.spacing.unwrap_or(1.5 * width),
            seed: spec.seed,
        };
        let mut instances = crowd::spawn_crowd(&layout, &model.clips);
        crowd::assign_skins(&mut instances, model.skins.len() as u32, spec.seed);
        // The first keeps the first skin too.
        if let Some(first) = instances.first_mut() {
            *first = Instance {
                position: first.position,
                ..Instance::settled(0, 0.0)
            };
        }
        if let Some(clip) = spec.clip {
            // A one-shot starts from its first frame at time 0 everywhere
            // (and holds its last pose); a loop keeps the seeded phases.
            let looping = model.clips.get(clip as usize).is_some_and(|c| c.looping);
            for instance in &mut instances {
                let phase = if looping { instance.loop_phase } else { 0.0 };
                instance.settle(clip, phase);
            }
        }
        let placements = instances.iter().map(CrowdInstance::from).collect();
        let joint_count = model.skeleton.joint_count();
        let vertex_count: usize = gpu_model::drawn_meshes(model)
            .map(|m| m.vertex_count())
            .sum();
        let transform_count = match spec.animation {
            Animation::Cpu | Animation::CpuSkinned => instances.len() * joint_count,
            Animation::Gpu | Animation::BindPose => 0,
        };
        CrowdState {
            spec,
            placements,
            instance_animation: instances.iter().map(InstanceAnimation::from).collect(),
            instances_version: 0,
            time: 0.0,
            skinning_transforms: vec![SkinningTransform::default(); transform_count],
            cpu_skinned: (spec.animation == Animation::CpuSkinned)
                .then(|| vec![SurfaceVertex::default(); instances.len() * vertex_count]),
            return_clips: vec![None; instances.len()],
            walking: Vec::new(),
            locomotion,
            footprint,
            instances,
            clip_bounds,
            bind_pose_bounds,
            clip_loops: model.clips.iter().map(|c| c.looping).collect(),
            clip_durations: model.clips.iter().map(|c| c.duration()).collect(),
        }
    }

    /// The name of the clip everyone plays, when they all play the same one.
    pub fn clip_name<'m>(&self, model: &'m Model) -> Option<&'m str> {
        let clip = model.clips.get(self.spec.clip? as usize)?;
        Some(&clip.name)
    }

    /// Everyone crossfades to `clip` from global `time` on (instances
    /// already playing it carry on undisturbed). A one-shot plays once, then
    /// each instance fades back to the looping clip it played before (see
    /// [`CrowdState::animate`]).
    /// Locomotion stops: everyone is back on the grid.
    pub fn play_everywhere(&mut self, clip: u32, time: f32) {
        let looping = self.clip_loops.get(clip as usize).copied().unwrap_or(true);
        self.spec.clip = Some(clip);
        self.spec.locomotion = false;
        for (instance, back) in self.instances.iter_mut().zip(&mut self.return_clips) {
            if instance.clip == clip {
                continue;
            }
            if looping {
                *back = None;
            } else if self.clip_loops.get(instance.clip as usize) == Some(&true) {
                *back = Some(instance.clip);
            }
            instance.switch_clip(clip, looping, time, self.spec.blend_time);
        }
        self.instances_changed();
    }

    /// Instances whose one-shot is over at `time` fade back to the looping
    /// clip they played before it.
    fn return_from_one_shots(&mut self, time: f32) {
        let mut switched = false;
        for (instance, back) in self.instances.iter_mut().zip(&mut self.return_clips) {
            let Some(clip) = *back else {
                continue;
            };
            let duration = self.clip_durations.get(instance.clip as usize);
            if duration.is_none_or(|&d| instance.local_time(time) >= d) {
                instance.switch_clip(clip, true, time, self.spec.blend_time);
                *back = None;
                switched = true;
            }
        }
        if switched {
            let first = self.instances.first().map(|i| i.clip);
            self.spec.clip = first.filter(|&c| self.instances.iter().all(|i| i.clip == c));
            self.instances_changed();
        }
    }

    /// The GPU's copy of the instances' animation state follows them.
    fn instances_changed(&mut self) {
        self.instance_animation = self.instances.iter().map(InstanceAnimation::from).collect();
        self.instances_version += 1;
    }

    /// The clip `step` places after the one everyone (or else the first
    /// character) plays, wrapping around; `None` without clips.
    pub fn stepped_clip(&self, step: i32, clip_count: usize) -> Option<u32> {
        let count = i64::try_from(clip_count).ok().filter(|&n| n > 0)?;
        let current = self
            .spec
            .clip
            .or_else(|| self.instances.first().map(|i| i.clip))
            .unwrap_or(0);
        Some((i64::from(current) + i64::from(step)).rem_euclid(count) as u32)
    }

    /// The corners of every instance's box, turned and placed as the
    /// instance is: what the camera frames. Each box holds every pose of
    /// the instance's clip, so the crowd stays in view while it plays.
    /// Walking, the box around every lane instead.
    pub fn outline(&self) -> impl Iterator<Item = Vec3> + '_ {
        let lanes = self.walks().then(|| {
            let lanes = &self.locomotion.as_ref().expect("walks").lanes;
            let size = self.footprint.max - self.footprint.min;
            let reach = crowd::lanes_radius(lanes) + 0.5 * size.x.max(size.y);
            corners(&Bounds {
                min: Vec3::new(-reach, -reach, self.footprint.min.z),
                max: Vec3::new(reach, reach, self.footprint.max.z),
            })
        });
        let standing = if lanes.is_some() {
            &self.instances[..0]
        } else {
            &self.instances[..]
        };
        let grid = standing.iter().flat_map(|instance| {
            let bounds = self
                .clip_bounds
                .get(instance.clip as usize)
                .unwrap_or(&self.bind_pose_bounds);
            let (sin, cos) = instance.yaw.sin_cos();
            corners(bounds).map(move |c| {
                instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z)
            })
        });
        grid.chain(lanes.into_iter().flatten())
    }

    /// Whether the agents walk: locomotion is on and the model has gaits.
    pub fn walks(&self) -> bool {
        self.spec.locomotion && self.locomotion.is_some()
    }

    /// What the agent pass reads: the table and a lane per instance, each
    /// with the grid place it returns to when locomotion goes off.
    pub fn gpu_agents(&self) -> Option<CrowdAgents> {
        let locomotion = self.locomotion.as_ref()?;
        Some(CrowdAgents {
            table: GpuLocomotionTable::from(&locomotion.table),
            lanes: locomotion
                .lanes
                .iter()
                .zip(&self.placements)
                .map(|(lane, home)| GpuAgentLane::new(lane, home))
                .collect(),
        })
    }

    /// Moves the crowd to global `time` (instances whose one-shot is over
    /// fade back to their loop); with CPU animation, poses every instance
    /// (GPU animation does that in animate.comp), and with CPU skinning
    /// skins every instance with `skinning`.
    pub fn animate(&mut self, model: &Model, time: f32, skinning: SkinningMethod) {
        self.time = time;
        self.return_from_one_shots(time);
        if !matches!(self.spec.animation, Animation::Cpu | Animation::CpuSkinned) {
            return;
        }
        self.walking.clear();
        if let (true, Some(locomotion)) = (self.spec.locomotion, &self.locomotion) {
            self.walking
                .extend(
                    locomotion
                        .lanes
                        .iter()
                        .zip(&self.instances)
                        .map(|(lane, base)| {
                            crowd::agent_state(lane, &locomotion.table, time, base).instance
                        }),
                );
        }
        let shown = if self.walking.is_empty() {
            &self.instances
        } else {
            &self.walking
        };
        crowd::animate_crowd(
            &model.skeleton,
            &model.clips,
            shown,
            time,
            self.spec.blend_time,
            &mut self.skinning_transforms,
        );
        if let Some(out) = self.cpu_skinned.as_mut() {
            let joint_count = model.skeleton.joint_count();
            let mut next = 0;
            for transforms in self.skinning_transforms.chunks_exact(joint_count) {
                for mesh in gpu_model::drawn_meshes(model) {
                    let count = mesh.vertex_count();
                    skin::skin_vertices(mesh, transforms, skinning, &mut out[next..next + count]);
                    next += count;
                }
            }
        }
    }
}

impl CrowdState {
    /// What the renderer needs for this frame, with `uniforms` completed by
    /// the crowd's clock; whether it walks is the crowd's to say.
    pub fn frame_input(
        &self,
        mut uniforms: FrameUniforms,
        mut view: ViewOptions,
    ) -> FrameInput<'_> {
        view.locomotion = self.spec.locomotion;
        uniforms.time = self.time;
        uniforms.blend_time = self.spec.blend_time;
        let skinning_transforms = &self.skinning_transforms[..];
        let posed = match (self.spec.animation, &self.cpu_skinned) {
            (Animation::Gpu, _) => Posed::OnGpu,
            (Animation::BindPose, _) => Posed::BindPose,
            (Animation::CpuSkinned, Some(vertices)) => Posed::CpuSkinned {
                skinning_transforms,
                vertices,
            },
            (Animation::Cpu | Animation::CpuSkinned, _) => Posed::Cpu {
                skinning_transforms,
            },
        };
        FrameInput {
            uniforms,
            instances: &self.instance_animation,
            instances_version: self.instances_version,
            posed,
            view,
        }
    }
}

fn corners(bounds: &Bounds) -> [Vec3; 8] {
    let (low, high) = (bounds.min, bounds.max);
    std::array::from_fn(|i| {
        Vec3::new(
            if i & 1 == 0 { low.x } else { high.x },
            if i & 2 == 0 { low.y } else { high.y },
            if i & 4 == 0 { low.z } else { high.z },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{Clip, JointPose, Skeleton};

    /// One joint, no mesh; clips of `seconds` at 10 fps, looping or not.
    fn model(clips: &[(&str, f32, bool)]) -> Model {
        Model {
            mesh_file: crate::vfs::GameFile::loose("test.md5mesh"),
            skeleton: Skeleton {
                names: vec!["root".into()],
                parents: vec![None],
                bind_pose: vec![JointPose::IDENTITY],
                inverse_bind_pose: vec![JointPose::IDENTITY],
            },
            meshes: Vec::new(),
            clips: clips
                .iter()
                .map(|&(name, seconds, looping)| {
                    let frames = (seconds * 10.0) as usize + 1;
                    Clip {
                        name: name.into(),
                        frame_rate: 10.0,
                        frames: vec![vec![JointPose::IDENTITY]; frames],
                        bounds: vec![Bounds::point(Vec3::ZERO); frames],
                        looping,
                    }
                })
                .collect(),
            ground_motion: vec![crate::anim::GroundMotion::STILL; clips.len()],
            distance_curves: clips
                .iter()
                .map(|&(_, seconds, _)| crate::anim::DistanceCurve::uniform(seconds, 0.0))
                .collect(),
            // Occlusion falls back to each frame's whole box.
            part_bounds: Vec::new(),
            game: None,
            skins: vec![crate::game::SkinChoice::default_skin()],
        }
    }

    fn spec(clip: Option<u32>) -> CrowdSpec {
        CrowdSpec {
            instances: 20,
            seed: 5,
            spacing: None,
            clip,
            blend_time: 0.25,
            animation: Animation::Gpu,
            animate_kernel: None,
            locomotion: false,
        }
    }

    #[test]
    fn a_one_shot_picked_plays_once_then_everyone_returns_to_their_loop() {
        let model = model(&[
            ("idle", 2.0, true),
            ("walk", 1.0, true),
            ("wave", 1.0, false),
        ]);
        let mut crowd = CrowdState::new(&model, spec(None));
        let before: Vec<u32> = crowd.instances.iter().map(|i| i.clip).collect();
        assert!(before.iter().all(|&c| c < 2), "the mix loops: {before:?}");
        crowd.play_everywhere(2, 3.0);
        let version = crowd.instances_version;
        assert!(crowd
            .instances
            .iter()
            .all(|i| i.clip == 2 && i.local_time(3.0) == 0.0));
        // Rates are 0.8 to 1.2: by 3.8 s nobody is done, by 4.3 s everyone.
        crowd.animate(&model, 3.8, SkinningMethod::Linear);
        assert_eq!(crowd.instances_version, version, "nobody is done yet");
        crowd.animate(&model, 4.3, SkinningMethod::Linear);
        let after: Vec<u32> = crowd.instances.iter().map(|i| i.clip).collect();
        assert_eq!(after, before, "back to the loop each played");
        assert!(crowd.instances_version > version, "the GPU hears of it");
        assert!(crowd.instances.iter().all(|i| i.phase == i.loop_phase));
        assert_eq!(crowd.spec.clip, None, "a mix again");
        // Settled: nothing more happens.
        let version = crowd.instances_version;
        crowd.animate(&model, 9.0, SkinningMethod::Linear);
        assert_eq!(crowd.instances_version, version);
    }

    #[test]
    fn a_one_shot_everyone_starts_with_holds() {
        let model = model(&[("idle", 2.0, true), ("die", 1.0, false)]);
        let mut crowd = CrowdState::new(&model, spec(Some(1)));
        assert!(crowd
            .instances
            .iter()
            .all(|i| i.clip == 1 && i.local_time(0.0) == 0.0));
        let version = crowd.instances_version;
        crowd.animate(&model, 30.0, SkinningMethod::Linear);
        assert!(crowd.instances.iter().all(|i| i.clip == 1));
        assert_eq!(crowd.instances_version, version);
        // A loop picked now and a one-shot after it: back to that loop.
        crowd.play_everywhere(0, 31.0);
        crowd.play_everywhere(1, 32.0);
        crowd.animate(&model, 34.0, SkinningMethod::Linear);
        assert!(crowd.instances.iter().all(|i| i.clip == 0));
        assert_eq!(crowd.spec.clip, Some(0));
    }
}
