//! The crowd as the renderer needs it each frame: placements and animation
//! state for the GPU, and, with CPU animation, every instance's skinning
//! transforms from the reference jobs ([`crate::crowd::pose_mixed_crowd`])
//! and for the yardstick path the vertices skinned on the CPU too. Clips
//! are picked by name ([`super::clip_picks`]). With
//! locomotion, the agents' lanes for the agent pass, and for CPU animation
//! the agents as the CPU reference moves them ([`crate::crowd::agent_state`]).

use glam::Vec3;

use super::clip_picks::{clip_names, ModelClips};
use crate::anim::JointMask;
use crate::bounds::Bounds;
use crate::crowd::{self, AgentLane, CrowdLayout, Instance, LayerRecipe, LocomotionTable};
use crate::gpu::crowd_buffers::Animation;
use crate::gpu::crowd_resources::CrowdAgents;
use crate::gpu::morph_data;
use crate::gpu::passes::animate::Kernel;
use crate::gpu::shader_types::{
    CrowdInstance, GpuAgentLane, GpuInstanceLayer, GpuLocomotionTable, InstanceAnimation,
    SkinningTransform, SurfaceVertex,
};
use crate::gpu::{animation_data, gpu_model};
use crate::model::Model;

mod frame;

/// What the crowd is made from; the window rebuilds it with another count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdSpec {
    /// Every model's instances together.
    pub instances: u32,
    pub seed: u64,
    /// Grid spacing; `None`: 1.5 times the widest model's footprint.
    pub spacing: Option<f32>,
    /// Everyone plays this clip, by its index in
    /// [`CrowdState::clip_names`] (each model its clip of that name);
    /// `None`: a seeded mix.
    pub clip: Option<u32>,
    /// Seconds a clip switch crossfades over.
    pub blend_time: f32,
    pub animation: Animation,
    /// The GPU animation kernel; `None`: the device's.
    pub animate_kernel: Option<Kernel>,
    /// Agents walk their lanes (the window's G toggles it); off: the grid.
    pub locomotion: bool,
    /// How many of the cast's layers (`--layer`, `--additive`) the crowd
    /// plays, the first ones: bench's `--layers`; all of them elsewhere.
    pub layers: usize,
}

/// Where locomotion takes the crowd: per model the gaits and speed profile
/// its agents share (`None`: none of its looping clips moves, so its
/// instances stand where they are), and each agent's lane.
pub struct Locomotion {
    pub tables: Vec<Option<LocomotionTable>>,
    pub lanes: Vec<AgentLane>,
}

/// What the crowd keeps of one of its models.
struct ModelInCrowd {
    /// Its instances: `instances[first..first + count]`.
    first: usize,
    count: usize,
    joint_count: usize,
    /// Per clip, the box its poses stay in (md5anim `bounds` grown to the
    /// skinned poses'), and the bind pose's for a model without clips.
    clip_bounds: Vec<Bounds>,
    bind_pose_bounds: Bounds,
    clips: ModelClips,
    /// The joints each of its layer channels reaches.
    layer_masks: Vec<JointMask>,
}

impl ModelInCrowd {
    /// Every model's, in order, with `counts[m]` instances of model m.
    fn of_models(models: &[Model], counts: &[usize], clip_names: &[String]) -> Vec<ModelInCrowd> {
        let mut first = 0;
        models
            .iter()
            .zip(counts)
            .map(|(model, &count)| {
                let crowd_model = ModelInCrowd {
                    first,
                    count,
                    joint_count: model.skeleton.joint_count(),
                    layer_masks: model.channels.layer_masks(),
                    clip_bounds: model.clips.iter().map(|c| c.bounds_union()).collect(),
                    bind_pose_bounds: model.bind_pose_bounds(),
                    clips: ModelClips::of(model, clip_names),
                };
                first += count;
                crowd_model
            })
            .collect()
    }
}

pub struct CrowdState {
    pub spec: CrowdSpec,
    /// The share of the crowd each model gets (`--mix`), kept to build the
    /// crowd again with another count.
    pub shares: Vec<f32>,
    /// Where everyone stands and what they play without locomotion,
    /// sorted by model.
    pub instances: Vec<Instance>,
    /// `None`: no model has a looping clip that moves, so nobody walks.
    pub locomotion: Option<Locomotion>,
    /// With locomotion on and CPU animation: `instances` as the agents
    /// move them at `time` (the GPU's agent pass does the same).
    walking: Vec<Instance>,
    /// Every pose of every model fits this box (model space).
    footprint: Bounds,
    /// A sphere (centre, radius) round everything the crowd may cover,
    /// standing and walking its lanes: how far shadows must reach.
    reach: [(Vec3, f32); 2],
    models: Vec<ModelInCrowd>,
    /// Every model's clip names, each once, in the order the models and
    /// their clips come: what a clip picked for everyone is one of.
    pub clip_names: Vec<String>,
    /// Per model, its first clip in the GPU's clip table.
    first_clips: Vec<u32>,
    /// `instances` as animate.comp and cull.comp read them; re-uploaded
    /// when `instances_version` changes.
    instance_animation: Vec<InstanceAnimation>,
    /// `instances`' layers as animate.comp and cull.comp read them,
    /// [`crate::crowd::MAX_LAYERS`] each; re-uploaded with them.
    instance_layers: Vec<GpuInstanceLayer>,
    instances_version: u64,
    /// The global time of the last `animate` call.
    pub time: f32,
    /// CPU animation only: every instance's transforms, instance-major (an
    /// instance takes as many as its model has joints).
    skinning_transforms: Vec<SkinningTransform>,
    /// CPU animation only: every instance's morph weights, `morph_stride`
    /// apart (the most weights a model has).
    morph_weights: Vec<f32>,
    morph_stride: usize,
    /// Skinned surface vertices of every instance (CPU skinning only).
    pub cpu_skinned: Option<Vec<SurfaceVertex>>,
    /// Per instance, the looping clip it fades back to once the one-shot
    /// it plays is over (a one-shot picked in the window); `None`: it
    /// carries on, or holds a one-shot's last pose.
    return_clips: Vec<Option<u32>>,
}

impl CrowdState {
    /// A seeded crowd on a grid, `shares` of it (one weight per model)
    /// each model's. Instance 0 is the one a single-character view shows:
    /// it faces the camera (+X), plays the first clip (or `spec.clip`) from
    /// its start at normal speed, and keeps its texture's colours, so
    /// `--time T` shows frame T of it.
    ///
    /// With locomotion, everyone gets a lane (see `crowd::agents`), spaced
    /// for the widest model; a clip picked for everyone (`spec.clip`)
    /// switches locomotion off.
    pub fn new(
        models: &[Model],
        (shares, layers): (&[f32], &[Vec<LayerRecipe>]),
        mut spec: CrowdSpec,
    ) -> CrowdState {
        let clip_names = clip_names(models);
        let counts = crowd::mix_counts(shares, spec.instances as usize);
        let crowd_models = ModelInCrowd::of_models(models, &counts, &clip_names);
        // Spaced so that no two neighbours touch, whatever they play.
        let footprint = crowd_models
            .iter()
            .flat_map(|m| m.clip_bounds.iter().chain([&m.bind_pose_bounds]))
            .fold(Bounds::EMPTY, |a, &b| a.union(b));
        let size = footprint.max - footprint.min;
        let width = size.x.max(size.y);
        spec.locomotion &= spec.clip.is_none();
        let tables = locomotion_tables(models, spec.locomotion);
        let layout = CrowdLayout {
            instances: spec.instances as usize,
            spacing: spec.spacing.unwrap_or(1.5 * width),
            seed: spec.seed,
        };
        let model_clips: Vec<&[crate::anim::Clip]> = models.iter().map(|m| &m.clips[..]).collect();
        let (mut instances, cells) = crowd::spawn_mixed_crowd(&layout, &model_clips, &counts);
        let locomotion = tables.iter().any(Option::is_some).then(|| {
            // A lane per grid cell, so the models mingle on the lanes too.
            let lanes = crowd::lay_out_lanes(spec.instances as usize, width, spec.seed);
            Locomotion {
                tables,
                lanes: cells.iter().map(|&cell| lanes[cell]).collect(),
            }
        });
        assign_skins_layers_and_clips(&mut instances, (models, &crowd_models), layers, &spec);
        let transform_count: usize = match spec.animation {
            Animation::Cpu | Animation::CpuSkinned => {
                crowd_models.iter().map(|m| m.count * m.joint_count).sum()
            }
            Animation::Gpu | Animation::BindPose => 0,
        };
        let morph_stride = morph_data::morph_stride(models) as usize;
        let morph_count = match transform_count {
            0 => 0,
            _ => instances.len() * morph_stride,
        };
        let vertex_count: usize = models
            .iter()
            .zip(&counts)
            .map(|(model, count)| {
                count
                    * gpu_model::drawn_meshes(model)
                        .map(|m| m.vertex_count())
                        .sum::<usize>()
            })
            .sum();
        let first_clips = animation_data::first_clips(models);
        let mut state = CrowdState {
            spec,
            shares: shares.to_vec(),
            instance_animation: instances
                .iter()
                .map(|i| InstanceAnimation::new(i, &first_clips))
                .collect(),
            instance_layers: instances
                .iter()
                .flat_map(|i| GpuInstanceLayer::of(i, &first_clips))
                .collect(),
            instances_version: 0,
            time: 0.0,
            skinning_transforms: vec![SkinningTransform::default(); transform_count],
            morph_weights: vec![0.0; morph_count],
            morph_stride,
            cpu_skinned: (spec.animation == Animation::CpuSkinned)
                .then(|| vec![SurfaceVertex::default(); vertex_count]),
            return_clips: vec![None; instances.len()],
            walking: Vec::new(),
            locomotion,
            footprint,
            reach: [(Vec3::ZERO, 0.0); 2],
            instances,
            models: crowd_models,
            clip_names,
            first_clips,
        };
        let walking = state.spec.locomotion;
        for locomotion in [false, true] {
            state.spec.locomotion = locomotion;
            state.reach[usize::from(locomotion)] = state.reach_sphere();
        }
        state.spec.locomotion = walking;
        state
    }

    /// The sphere round [`CrowdState::outline`], with the tallest model's
    /// height to spare for the clips' other poses (its bind pose's: the
    /// same whichever clips are loaded).
    fn reach_sphere(&self) -> (Vec3, f32) {
        let bounds = self.outline().fold(Bounds::EMPTY, |bounds, point| {
            bounds.union(Bounds::point(point))
        });
        let centre = (bounds.min + bounds.max) * 0.5;
        let height = |m: &ModelInCrowd| m.bind_pose_bounds.max.z - m.bind_pose_bounds.min.z;
        let spare = self.models.iter().map(height).fold(0.0, f32::max);
        (centre, (bounds.max - centre).length() + spare)
    }

    /// The name of the clip everyone plays, when they all play the same one.
    pub fn clip_name(&self) -> Option<&str> {
        Some(self.clip_names.get(self.spec.clip? as usize)?)
    }

    /// Where everyone stands without locomotion, as the vertex shader reads
    /// it: what the renderer's crowd is built from.
    pub fn placements(&self) -> Vec<CrowdInstance> {
        self.instances.iter().map(CrowdInstance::from).collect()
    }

    /// Instances of model `model`.
    pub fn model_instances(&self, model: usize) -> usize {
        self.models.get(model).map_or(0, |m| m.count)
    }

    /// The instances of `model` (every model's for `None`) crossfade to
    /// their model's clip named `clip_names[pick]` (a model without one
    /// carries on) from global `time` on; instances already playing it
    /// carry on undisturbed. A one-shot plays once, then each instance
    /// fades back to the looping clip it played before (see
    /// [`CrowdState::animate`]). Locomotion stops: everyone is back on the
    /// grid.
    pub fn play(&mut self, pick: u32, model: Option<usize>, time: f32) {
        self.spec.locomotion = false;
        for (instance, back) in self.instances.iter_mut().zip(&mut self.return_clips) {
            if model.is_some_and(|m| m != instance.model as usize) {
                continue;
            }
            let model = &self.models[instance.model as usize];
            let Some(clip) = model.clips.clip(pick) else {
                continue;
            };
            if instance.clip == clip {
                continue;
            }
            let looping = model.clips.loops[clip as usize];
            if looping {
                *back = None;
            } else if model.clips.loops.get(instance.clip as usize) == Some(&true) {
                *back = Some(instance.clip);
            }
            instance.switch_clip(clip, looping, time, self.spec.blend_time);
        }
        // Picked for everyone, it stays the pick while a model lacking it
        // carries on; picked for one model, the crowd's pick is what all
        // play, if anything.
        self.spec.clip = match model {
            None => Some(pick),
            Some(_) => self.common_pick(None),
        };
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
            let model = &self.models[instance.model as usize];
            let duration = model.clips.durations.get(instance.clip as usize);
            if duration.is_none_or(|&d| instance.local_time(time) >= d) {
                instance.switch_clip(clip, true, time, self.spec.blend_time);
                *back = None;
                switched = true;
            }
        }
        if switched {
            self.spec.clip = self.common_pick(None);
            self.instances_changed();
        }
    }

    /// The clip name every instance of `model` (of every model for
    /// `None`) plays, if they all play one: the clip the overlay shows.
    pub fn common_pick(&self, model: Option<usize>) -> Option<u32> {
        let name_of = |i: &Instance| self.models[i.model as usize].clips.pick_of(i.clip);
        let instances = match model {
            Some(m) => {
                let m = self.models.get(m)?;
                &self.instances[m.first..m.first + m.count]
            }
            None => &self.instances[..],
        };
        let first = name_of(instances.first()?)?;
        instances
            .iter()
            .all(|i| name_of(i) == Some(first))
            .then_some(first)
    }

    /// The clip names model `model` has, by their index in
    /// [`CrowdState::clip_names`].
    pub fn model_picks(&self, model: usize) -> impl Iterator<Item = u32> + '_ {
        self.models
            .get(model)
            .into_iter()
            .flat_map(|m| m.clips.picks())
    }

    /// Changes every instance's layers with `change`, given its model's
    /// clips; the GPU's copy follows.
    pub fn change_layers(&mut self, mut change: impl FnMut(&mut Instance, &ModelClips)) {
        for instance in &mut self.instances {
            change(instance, &self.models[instance.model as usize].clips);
        }
        self.instances_changed();
    }

    /// The GPU's copy of the instances' animation state follows them.
    fn instances_changed(&mut self) {
        self.instance_animation = self
            .instances
            .iter()
            .map(|i| InstanceAnimation::new(i, &self.first_clips))
            .collect();
        self.instance_layers = self
            .instances
            .iter()
            .flat_map(|i| GpuInstanceLayer::of(i, &self.first_clips))
            .collect();
        self.instances_version += 1;
    }

    /// The clip name `step` places after the one everyone (or else the
    /// first character) plays, wrapping around; `None` without clips.
    pub fn stepped_clip(&self, step: i32) -> Option<u32> {
        let count = i64::try_from(self.clip_names.len())
            .ok()
            .filter(|&n| n > 0)?;
        let current = self
            .spec
            .clip
            .or_else(|| self.common_pick(None))
            .or_else(|| {
                let first = self.instances.first()?;
                self.models[first.model as usize].clips.pick_of(first.clip)
            });
        let current = current.unwrap_or(0);
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
        // Walking, those of a model without a walk cycle still stand.
        let walking = lanes.is_some();
        let walks = move |instance: &&Instance| {
            let tables = self.locomotion.as_ref().map(|l| &l.tables);
            walking && tables.is_some_and(|t| t[instance.model as usize].is_some())
        };
        let standing = self.instances.iter().filter(move |i| !walks(i));
        let grid = standing.flat_map(|instance| {
            let model = &self.models[instance.model as usize];
            let bounds = model
                .clip_bounds
                .get(instance.clip as usize)
                .unwrap_or(&model.bind_pose_bounds);
            let (sin, cos) = instance.yaw.sin_cos();
            corners(bounds).map(move |c| {
                instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z)
            })
        });
        grid.chain(lanes.into_iter().flatten())
    }

    /// Whether the agents walk: locomotion is on and some model has gaits
    /// (those of a model without a walk cycle stand while the others walk).
    pub fn walks(&self) -> bool {
        self.spec.locomotion && self.locomotion.is_some()
    }

    /// What the agent pass reads: the tables and a lane per instance, each
    /// with the grid place it returns to when locomotion goes off.
    pub fn gpu_agents(&self) -> Option<CrowdAgents> {
        let locomotion = self.locomotion.as_ref()?;
        Some(CrowdAgents {
            tables: locomotion
                .tables
                .iter()
                .zip(&self.first_clips)
                .map(|(table, &first_clip)| GpuLocomotionTable::new(table.as_ref(), first_clip))
                .collect(),
            lanes: locomotion
                .lanes
                .iter()
                .zip(&self.instances)
                .map(|(lane, home)| GpuAgentLane::new(lane, &CrowdInstance::from(home)))
                .collect(),
        })
    }
}

/// Per model, the gaits and speed profile its agents share, if any of its
/// looping clips moves; with `locomotion` asked for, a warning for each
/// model that will stand.
fn locomotion_tables(models: &[Model], locomotion: bool) -> Vec<Option<LocomotionTable>> {
    models
        .iter()
        .map(|model| {
            let table =
                LocomotionTable::new(&model.clips, &model.ground_motion, &model.distance_curves);
            if table.is_none() && locomotion {
                log::warn!(
                    "locomotion: no looping clip of {} moves over the ground; it stands",
                    model.mesh_file
                );
            }
            table
        })
        .collect()
}

/// Gives the spawned crowd its seeded skins and layers (the first `spec.layers`
/// of each model's `layers`), settles instance 0 as [`CrowdState::new`] says,
/// and starts everyone on `spec.clip` when one is picked.
fn assign_skins_layers_and_clips(
    instances: &mut [Instance],
    (models, crowd_models): (&[Model], &[ModelInCrowd]),
    layers: &[Vec<LayerRecipe>],
    spec: &CrowdSpec,
) {
    for (model, crowd_model) in models.iter().zip(crowd_models) {
        let own = &mut instances[crowd_model.first..crowd_model.first + crowd_model.count];
        crowd::assign_skins(own, model.skins.len() as u32, spec.seed);
    }
    // The first keeps the first skin too.
    if let Some(first) = instances.first_mut() {
        *first = Instance {
            position: first.position,
            model: first.model,
            ..Instance::settled(0, 0.0)
        };
    }
    for ((model, crowd_model), recipes) in models.iter().zip(crowd_models).zip(layers) {
        let own = &mut instances[crowd_model.first..crowd_model.first + crowd_model.count];
        let played = &recipes[..spec.layers.min(recipes.len())];
        crowd::assign_layers(own, &model.clips, played, spec.seed);
    }
    if let Some(pick) = spec.clip {
        // A one-shot starts from its first frame at time 0 everywhere
        // (and holds its last pose); a loop keeps the seeded phases.
        for instance in instances {
            let crowd_model = &crowd_models[instance.model as usize];
            let Some(clip) = crowd_model.clips.clip(pick) else {
                continue;
            };
            let looping = crowd_model.clips.loops[clip as usize];
            let phase = if looping { instance.loop_phase } else { 0.0 };
            instance.settle(clip, phase);
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
    use crate::skin::SkinningMethod;

    /// One joint, no mesh; clips of `seconds` at 10 fps, looping or not.
    fn model(clips: &[(&str, f32, bool)]) -> Model {
        Model {
            mesh_file: crate::vfs::GameFile::loose("test.md5mesh").name(),
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
                        morphs: Default::default(),
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
            skins: vec![crate::model::SkinChoice::default_skin()],
            materials: crate::model::ModelMaterials::default(),
            morphs: Default::default(),
            channels: crate::anim::Channels::whole_body(1),
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
            layers: 0,
        }
    }

    #[test]
    fn a_one_shot_picked_plays_once_then_everyone_returns_to_their_loop() {
        let model = model(&[
            ("idle", 2.0, true),
            ("walk", 1.0, true),
            ("wave", 1.0, false),
        ]);
        let mut crowd = CrowdState::new(std::slice::from_ref(&model), (&[1.0], &[]), spec(None));
        let before: Vec<u32> = crowd.instances.iter().map(|i| i.clip).collect();
        assert!(before.iter().all(|&c| c < 2), "the mix loops: {before:?}");
        crowd.play(2, None, 3.0);
        let version = crowd.instances_version;
        assert!(crowd
            .instances
            .iter()
            .all(|i| i.clip == 2 && i.local_time(3.0) == 0.0));
        // Rates are 0.8 to 1.2: by 3.8 s nobody is done, by 4.3 s everyone.
        crowd.animate(std::slice::from_ref(&model), 3.8, SkinningMethod::Linear);
        assert_eq!(crowd.instances_version, version, "nobody is done yet");
        crowd.animate(std::slice::from_ref(&model), 4.3, SkinningMethod::Linear);
        let after: Vec<u32> = crowd.instances.iter().map(|i| i.clip).collect();
        assert_eq!(after, before, "back to the loop each played");
        assert!(crowd.instances_version > version, "the GPU hears of it");
        assert!(crowd.instances.iter().all(|i| i.phase == i.loop_phase));
        assert_eq!(crowd.spec.clip, None, "a mix again");
        // Settled: nothing more happens.
        let version = crowd.instances_version;
        crowd.animate(std::slice::from_ref(&model), 9.0, SkinningMethod::Linear);
        assert_eq!(crowd.instances_version, version);
    }

    #[test]
    fn a_one_shot_everyone_starts_with_holds() {
        let model = model(&[("idle", 2.0, true), ("die", 1.0, false)]);
        let mut crowd = CrowdState::new(std::slice::from_ref(&model), (&[1.0], &[]), spec(Some(1)));
        assert!(crowd
            .instances
            .iter()
            .all(|i| i.clip == 1 && i.local_time(0.0) == 0.0));
        let version = crowd.instances_version;
        crowd.animate(std::slice::from_ref(&model), 30.0, SkinningMethod::Linear);
        assert!(crowd.instances.iter().all(|i| i.clip == 1));
        assert_eq!(crowd.instances_version, version);
        // A loop picked now and a one-shot after it: back to that loop.
        crowd.play(0, None, 31.0);
        crowd.play(1, None, 32.0);
        crowd.animate(std::slice::from_ref(&model), 34.0, SkinningMethod::Linear);
        assert!(crowd.instances.iter().all(|i| i.clip == 0));
        assert_eq!(crowd.spec.clip, Some(0));
    }

    #[test]
    fn a_clip_picked_for_one_model_switches_only_its_instances() {
        let walker = model(&[("idle", 2.0, true), ("walk", 1.0, true)]);
        let waver = model(&[("wave", 1.0, false), ("idle", 3.0, true)]);
        let models = [walker, waver];
        let mut crowd = CrowdState::new(&models, (&[1.0, 1.0], &[]), spec(None));
        assert_eq!(crowd.clip_names, ["idle", "walk", "wave"]);
        assert_eq!(crowd.model_picks(0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(crowd.model_picks(1).collect::<Vec<_>>(), [0, 2]);
        let before: Vec<Instance> = crowd.instances.clone();
        // The waver's idle is its clip 1; the walkers carry on.
        crowd.play(0, Some(1), 2.0);
        for (now, was) in crowd.instances.iter().zip(&before) {
            match now.model {
                0 => assert_eq!(now, was),
                _ => assert_eq!(now.clip, 1),
            }
        }
        assert_eq!(crowd.common_pick(Some(1)), Some(0));
        // The walkers play idle or walk, seeded: not all the same.
        assert_eq!(crowd.common_pick(Some(0)), None);
        assert_eq!(crowd.spec.clip, None, "the crowd as a whole plays a mix");
        // The walkers' idle too: now the whole crowd plays idle.
        crowd.play(0, Some(0), 3.0);
        assert_eq!(crowd.spec.clip, Some(0));
        // A name a model lacks leaves it be.
        crowd.play(1, None, 4.0);
        assert_eq!(crowd.common_pick(Some(0)), Some(1));
        assert_eq!(crowd.common_pick(Some(1)), Some(0));
    }
}
