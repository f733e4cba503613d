//! Animations to clips: every channel sampled at one rate into full local
//! poses of every joint, the way an md5anim stores them.

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation, Property};

use super::morph_targets::{target_count, MorphSlots};
use super::morph_weights::clip_morphs;
use super::rig::Rig;
use super::scene::{decompose, is_uniform, scale_size, Nodes, Trs};
use super::warnings::Warnings;
use crate::anim::{local_to_model, loops_by_rule, Clip, JointPose, Skeleton};
use crate::gltf::{read_floats, AccessorRead, GltfError, GltfFile};

/// Clips whose keys are not a regular grid (or are cubic splines) are
/// sampled this often: a 60 Hz display shows nothing finer.
pub const MAX_SAMPLE_RATE: f32 = 60.0;
/// Keys further apart than this are resampled at [`MAX_SAMPLE_RATE`]:
/// between frames md5crowd blends by normalized lerp, which strays from
/// glTF's spherical interpolation over wide turns, and STEP keys must stay
/// steps.
pub const MIN_KEY_RATE: f32 = 24.0;
/// The rate of a clip whose keys give none (one key per channel).
pub const DEFAULT_SAMPLE_RATE: f32 = 30.0;
/// A clip's frames times joints, at most: 128 MiB of poses, over 11
/// minutes of a 100-joint character at 60 frames a second. Key times are
/// the file's word, so they size nothing larger.
pub const MAX_CLIP_POSES: usize = 1 << 22;

/// One animated property of one node, its keys read.
pub(super) struct Channel {
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    pub times: Vec<f32>,
    /// Per key (three per key for CUBICSPLINE: in-tangent, value,
    /// out-tangent), `width` floats: 3 or 4 for a transform, one per morph
    /// target for weights.
    pub values: Vec<f32>,
    pub width: usize,
}

/// Where a time falls among a channel's keys.
pub(super) enum Span {
    /// Key `key`'s value: the time is on it, or before the first key or
    /// after the last (held, not extrapolated).
    Held(usize),
    /// Between keys `key` and `key + 1`, `s` of the way, `dt` seconds
    /// apart.
    Between { key: usize, s: f32, dt: f32 },
}

/// Rotations and weights may be stored as normalized integers.
const NORMALIZED_TYPES: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];

/// The cubic Hermite basis at `s`: the factors of the first key's value,
/// its out-tangent (times the keys' gap), the second key's value and its
/// in-tangent (times the gap), as glTF's CUBICSPLINE defines them.
pub(super) fn hermite(s: f32) -> [f32; 4] {
    let (s2, s3) = (s * s, s * s * s);
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    ]
}

impl Channel {
    /// The channel's value at `time` written into the node's transform
    /// (weights move none: `morph_weights` samples them).
    fn apply(&self, time: f32, trs: &mut Trs) {
        match self.property {
            Property::Translation => trs.translation = self.sample(time).truncate(),
            Property::Rotation => {
                let q = Quat::from_vec4(self.sample(time));
                trs.rotation = if q.length_squared() > 1e-12 {
                    q.normalize()
                } else {
                    Quat::IDENTITY
                }
            }
            Property::Scale => trs.scale = self.sample(time).truncate(),
            Property::MorphTargetWeights => {}
        }
    }

    /// Key `key`'s `part` (for CUBICSPLINE: 0 in-tangent, 1 value, 2
    /// out-tangent; else 0), `width` floats.
    pub(super) fn key_values(&self, key: usize, part: usize) -> &[f32] {
        let stride = if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let at = (key * stride + part) * self.width;
        &self.values[at..at + self.width]
    }

    /// Whether it animates morph target weights (not a transform).
    pub(super) fn is_weights(&self) -> bool {
        self.property == Property::MorphTargetWeights
    }

    /// Which part of a key is its value.
    pub(super) fn value_part(&self) -> usize {
        usize::from(self.interpolation == Interpolation::CubicSpline)
    }

    fn value(&self, key: usize, part: usize) -> Vec4 {
        let v = self.key_values(key, part);
        Vec4::new(v[0], v[1], v[2], v.get(3).copied().unwrap_or(0.0))
    }

    /// Where `time` falls among the keys.
    pub(super) fn locate(&self, time: f32) -> Span {
        let last = self.times.len() - 1;
        // Sampling times land on key times up to rounding: such a time is
        // that key, not a hair before it (STEP would hold the one before).
        let slack = 1e-5 * time.abs().max(1.0);
        let next = self.times.partition_point(|&t| t <= time + slack);
        if next == 0 {
            return Span::Held(0);
        }
        if next > last {
            return Span::Held(last);
        }
        let key = next - 1;
        let (t0, t1) = (self.times[key], self.times[next]);
        Span::Between {
            key,
            s: ((time - t0) / (t1 - t0)).clamp(0.0, 1.0),
            dt: t1 - t0,
        }
    }

    /// The channel at `time` as the glTF specification interpolates it
    /// (rotations by spherical interpolation).
    fn sample(&self, time: f32) -> Vec4 {
        let (key, s, dt) = match self.locate(time) {
            Span::Held(key) => return self.value(key, self.value_part()),
            Span::Between { key, s, dt } => (key, s, dt),
        };
        let next = key + 1;
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Step => self.value(key, 0),
            Interpolation::Linear if rotation => {
                let a = Quat::from_vec4(self.value(key, 0)).normalize();
                let b = Quat::from_vec4(self.value(next, 0)).normalize();
                Vec4::from(a.slerp(b, s))
            }
            Interpolation::Linear => self.value(key, 0).lerp(self.value(next, 0), s),
            Interpolation::CubicSpline => {
                let [a, b, c, d] = hermite(s);
                let p = self.value(key, 1) * a
                    + self.value(key, 2) * dt * b
                    + self.value(next, 1) * c
                    + self.value(next, 0) * dt * d;
                if rotation {
                    Vec4::from(Quat::from_vec4(p).normalize())
                } else {
                    p
                }
            }
        }
    }
}

/// Every animation of the file as a clip named after it (`animation{i}`
/// when it has no name), spanning its first key to its last: an
/// animation whose keys start after t = 0 starts there. `rest` is every
/// node's world matrix at rest. Joints a clip does not animate keep their
/// nodes' own transforms, and morph weights their defaults; weights of
/// nodes that are not drawn are left out.
pub fn read_clips(
    file: &GltfFile,
    nodes: &Nodes,
    rig: &Rig,
    rest: &[Mat4],
    slots: &MorphSlots,
    warnings: &mut Warnings,
) -> Result<Vec<Clip>, GltfError> {
    let mut clips = Vec::new();
    let roots: Vec<bool> = rig.parents.iter().map(Option::is_none).collect();
    let rest_scales: Vec<Vec3> = rig
        .nodes
        .iter()
        .map(|&n| decompose(rest[n]).scale)
        .collect();
    for animation in file.document.animations() {
        let name = animation
            .name()
            .map_or_else(|| format!("animation{}", animation.index()), str::to_owned);
        let path = format!("animations[{}]", animation.index());
        let mut channels = read_channels(file, &animation, &path)?;
        let weight_channels = channels.iter().filter(|c| c.is_weights()).count();
        channels.retain(|c| !c.is_weights() || slots.of_node(c.node).is_some());
        if channels.is_empty() {
            warnings.empty_clips.push(format!("{path} (\"{name}\")"));
            continue;
        }
        let start = channels
            .iter()
            .map(|c| c.times[0])
            .fold(f32::INFINITY, f32::min);
        let end = channels
            .iter()
            .map(|c| c.times[c.times.len() - 1])
            .fold(f32::NEG_INFINITY, f32::max);
        let (frame_count, frame_rate) = frame_times(&channels, start, end - start);
        // A frame's weights count as poses: the file's targets, not its
        // word, sized them.
        let weights = if channels.iter().any(Channel::is_weights) {
            slots.morphs.count()
        } else {
            0
        };
        if frame_count.saturating_mul(rig.nodes.len() + weights) > MAX_CLIP_POSES {
            return Err(GltfError::new(
                &file.name,
                &path,
                format!(
                    "\"{name}\": {:.1} s at {frame_rate:.1} frames a second of {} joints and {weights} \
                     morph weights is more than {MAX_CLIP_POSES} poses",
                    end - start,
                    rig.nodes.len()
                ),
            ));
        }
        // Per joint, the scale relative to rest furthest from 1.
        let mut worst_scale = vec![Vec3::ONE; rig.nodes.len()];
        let mut locals = nodes.rest.clone();
        let times: Vec<f32> = (0..frame_count)
            .map(|f| {
                if f + 1 == frame_count {
                    end
                } else {
                    start + f as f32 / frame_rate
                }
            })
            .collect();
        let frames = times
            .iter()
            .map(|&time| {
                locals.copy_from_slice(&nodes.rest);
                for channel in &channels {
                    channel.apply(time, &mut locals[channel.node]);
                }
                local_poses(rig, &nodes.world(&locals), &rest_scales, &mut worst_scale)
            })
            .collect::<Vec<_>>();
        for (joint, relative) in worst_scale.iter().enumerate() {
            let joint_name = &nodes.names[rig.nodes[joint]];
            if !is_uniform(*relative) {
                warnings.clip_stretch.add(
                    joint_name,
                    &name,
                    deviation(*relative),
                    format!("({:.3}, {:.3}, {:.3})", relative.x, relative.y, relative.z),
                );
            } else if deviation(*relative) > 1e-3 {
                warnings.clip_scale.add(
                    joint_name,
                    &name,
                    deviation(*relative),
                    format!("x{:.3}", scale_size(*relative)),
                );
            }
        }
        clips.push(Clip {
            morphs: clip_morphs(&channels, slots, &times, weight_channels),
            looping: loops_by_rule(&name, &frames, &roots),
            name,
            frame_rate,
            frames,
            bounds: Vec::new(),
        });
    }
    Ok(clips)
}

/// The one-frame clip `rest`: every joint in its node's own transform,
/// as glTF draws a skin that no animation moves. `None` where that is the
/// bind pose already.
pub fn rest_clip(rig: &Rig, rest: &[Mat4], skeleton: &Skeleton) -> Option<Clip> {
    let rest_scales: Vec<Vec3> = rig
        .nodes
        .iter()
        .map(|&n| decompose(rest[n]).scale)
        .collect();
    let mut worst_scale = vec![Vec3::ONE; rig.nodes.len()];
    let frame = local_poses(rig, rest, &rest_scales, &mut worst_scale);
    let mut model = frame.clone();
    local_to_model(&skeleton.parents, &frame, &mut model);
    let bound = model.iter().zip(&skeleton.bind_pose).all(|(posed, bind)| {
        posed.translation.distance(bind.translation) < 1e-3
            && posed.rotation.angle_between(bind.rotation) < 1e-4
    });
    if bound {
        return None;
    }
    Some(Clip {
        morphs: Default::default(),
        name: "rest".into(),
        looping: true,
        frame_rate: DEFAULT_SAMPLE_RATE,
        frames: vec![frame],
        bounds: Vec::new(),
    })
}

/// The channels of `animation`, their keys read and checked.
fn read_channels(
    file: &GltfFile,
    animation: &gltf::Animation,
    path: &str,
) -> Result<Vec<Channel>, GltfError> {
    let mut channels = Vec::new();
    for channel in animation.channels() {
        let property = channel.target().property();
        let node = channel.target().node();
        let sampler = channel.sampler();
        let sampler_path = format!("{path}.samplers[{}]", sampler.index());
        let input = read_floats(
            file,
            &sampler.input(),
            &AccessorRead {
                what: &format!("{sampler_path}.input"),
                dimensions: &[Dimensions::Scalar],
                types: &[DataType::F32],
            },
        )?;
        // Weights: one scalar output per target of the node's mesh, per key.
        let (width, elements, dimensions, types): (usize, usize, _, &[DataType]) = match property {
            Property::Rotation => (4, 1, Dimensions::Vec4, NORMALIZED_TYPES),
            Property::Translation | Property::Scale => (3, 1, Dimensions::Vec3, &[DataType::F32]),
            Property::MorphTargetWeights => {
                let targets = match node.mesh() {
                    Some(mesh) => target_count(file, &mesh)?,
                    None => 0,
                };
                if targets == 0 {
                    return Err(GltfError::new(
                        &file.name,
                        format!("{path}.channels[{}].target", channel.index()),
                        format!(
                            "animates the morph weights of nodes[{}], whose mesh has no morph \
                             targets",
                            node.index()
                        ),
                    ));
                }
                (targets, targets, Dimensions::Scalar, NORMALIZED_TYPES)
            }
        };
        let values = read_floats(
            file,
            &sampler.output(),
            &AccessorRead {
                what: &format!("{sampler_path}.output"),
                dimensions: &[dimensions],
                types,
            },
        )?;
        let interpolation = sampler.interpolation();
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let error = |message: String| GltfError::new(&file.name, &sampler_path, message);
        if input.is_empty() {
            return Err(error("no keys".into()));
        }
        if let Some(k) =
            (0..input.len()).find(|&k| !input[k].is_finite() || (k > 0 && input[k] <= input[k - 1]))
        {
            return Err(error(format!(
                "key times must be finite and increase; key {k} is {}",
                input[k]
            )));
        }
        if values.len() != input.len() * per_key * width {
            let targets = if property == Property::MorphTargetWeights {
                format!(" for each of {width} morph targets")
            } else {
                String::new()
            };
            return Err(GltfError::new(
                &file.name,
                format!("{sampler_path}.output"),
                format!(
                    "{} keys need {} output elements ({per_key} per key{targets}); it has {}",
                    input.len(),
                    input.len() * per_key * elements,
                    values.len() * elements / width
                ),
            ));
        }
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(error(format!("an output value is {bad}")));
        }
        channels.push(Channel {
            node: node.index(),
            property,
            interpolation,
            times: input,
            values,
            width,
        });
    }
    Ok(channels)
}

/// How many frames, at what rate, sample a clip spanning `start` to
/// `start + duration`: the keys' own rate when every key of every channel
/// falls on it, none is a cubic spline and the rate is from
/// [`MIN_KEY_RATE`] to [`MAX_SAMPLE_RATE`] (an exporter's baked keys, at
/// 24 or 30 a second, come back exactly), else [`MAX_SAMPLE_RATE`];
/// either stretched so that the last frame lands on the last key.
fn frame_times(channels: &[Channel], start: f32, duration: f32) -> (usize, f32) {
    let shortest_gap = channels
        .iter()
        .flat_map(|c| c.times.windows(2).map(|w| w[1] - w[0]))
        .fold(f32::INFINITY, f32::min);
    let key_rate = 1.0 / shortest_gap;
    let on_grid = channels.iter().all(|c| {
        c.interpolation != Interpolation::CubicSpline
            && c.times.iter().all(|&t| {
                let frame = (t - start) * key_rate;
                (frame - frame.round()).abs() < 1e-2
            })
    });
    let rate = match (shortest_gap.is_finite(), on_grid) {
        (false, _) => DEFAULT_SAMPLE_RATE,
        (true, true) if (MIN_KEY_RATE..=MAX_SAMPLE_RATE).contains(&key_rate) => key_rate,
        (true, _) => MAX_SAMPLE_RATE,
    };
    if duration <= 0.0 {
        return (1, rate);
    }
    let gaps = (duration * rate - 1e-2).ceil().max(1.0);
    // f32 keeps integers exact far past any clip MAX_CLIP_POSES allows.
    let gaps = gaps.min(MAX_CLIP_POSES as f32 + 1.0) as usize;
    let stretched = gaps as f32 / duration;
    // Keys baked at a whole rate (24, 30 a second) whose times carry float
    // noise keep that rate, as an md5anim states it: frames then start
    // where the GPU and the CPU agree they do.
    let whole = stretched.round();
    let rate = if (stretched - whole).abs() < 1e-3 * whole {
        whole
    } else {
        stretched
    };
    (gaps + 1, rate)
}

/// How far a relative scale is from none.
fn deviation(relative: Vec3) -> f32 {
    (relative - Vec3::ONE).abs().max_element()
}

/// Each joint's pose relative to its parent joint (a root's: in model
/// space), from the nodes' world matrices: only the rigid part of each is
/// kept. `worst_scale` keeps, per joint, the scale relative to its rest
/// scale furthest from 1, for the warning.
fn local_poses(
    rig: &Rig,
    world: &[Mat4],
    rest_scales: &[Vec3],
    worst_scale: &mut [Vec3],
) -> Vec<JointPose> {
    let model: Vec<JointPose> = rig
        .nodes
        .iter()
        .enumerate()
        .map(|(joint, &n)| {
            let parts = decompose(world[n]);
            let relative = parts.scale / rest_scales[joint];
            if deviation(relative) > deviation(worst_scale[joint]) {
                worst_scale[joint] = relative;
            }
            JointPose::new(parts.rotation, parts.translation)
        })
        .collect();
    model
        .iter()
        .zip(&rig.parents)
        .map(|(&pose, parent)| match parent {
            Some(p) => model[*p as usize].inverse().then(pose),
            None => pose,
        })
        .collect()
}
