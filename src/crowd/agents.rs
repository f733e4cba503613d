//! Agents walking the ground: the CPU reference of agents.comp.
//!
//! Every agent follows a circular lane around the crowd's centre: lanes are
//! concentric rings, a ring's agents evenly spaced and sharing its speed
//! profile, neighbouring rings turning opposite ways. Agents on one ring
//! keep their spacing and rings never meet, so nobody overlaps by
//! construction, and no neighbour search is needed. Speed follows a profile
//! (stand, walk, run, walk, stand) with constant accelerations, so the
//! distance walked is a closed form of time: the state at any time is
//! computed directly (a headless `--time T` needs no simulation from 0,
//! and the GPU and the CPU compute the same thing).
//!
//! The clip follows the speed (the one whose ground speed is nearest) and
//! crossfades at the analytic moment the speed crosses the midpoint between
//! two clips. A moving clip's local time follows the distance walked through
//! the clip's distance curve (`anim::distance_curve`): whatever the speed at
//! which the clip slides its planted foot back, the foot covers exactly the
//! ground the agent does, so it stays put.

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Vec2, Vec3};

use super::{Instance, SplitMix64};
use crate::anim::{Clip, DistanceCurve, GroundMotion};

pub use crate::shared_constants::{MAX_GAITS, MAX_GAIT_SWITCHES, PROFILE_PERIOD, PROFILE_SEGMENTS};

/// The speed profile, as (seconds, speed level at the start, at the end):
/// stand, speed up to a walk, walk, to a run, run, back to a walk, walk,
/// slow down to a stand. About half a minute, so a few seconds of a
/// window show every gait somewhere in a crowd.
const PROFILE_PLAN: [(f32, Level, Level); PROFILE_SEGMENTS] = [
    (4.0, Level::Stand, Level::Stand),
    (1.5, Level::Stand, Level::Walk),
    (8.0, Level::Walk, Level::Walk),
    (1.5, Level::Walk, Level::Run),
    (5.0, Level::Run, Level::Run),
    (1.5, Level::Run, Level::Walk),
    (6.0, Level::Walk, Level::Walk),
    (1.5, Level::Walk, Level::Stand),
];

/// Distance between neighbours on a ring and between rings, in footprints
/// (the widest box of the model's poses): they never touch.
pub const LANE_SPACING: f32 = 1.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Stand,
    Walk,
    Run,
}

/// A clip locomotion plays, and how it moves its character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gait {
    pub clip: u32,
    /// Ground speed, model units per second; 0: the idle clip.
    pub speed: f32,
    /// Direction of travel in model space: radians about +Z from +X.
    pub heading: f32,
    /// Which clip time has the feet cover a distance
    /// (`anim::distance_curve`); the idle clip's is never read.
    pub curve: DistanceCurve,
}

/// A piece of the speed profile: constant acceleration from `start_time`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpeedSegment {
    /// Seconds into the period.
    pub start_time: f32,
    /// Distance walked from the period's start to `start_time`.
    pub start_distance: f32,
    pub start_speed: f32,
    pub acceleration: f32,
}

/// The moment in the profile's period when the speed crosses the midpoint
/// between two gaits' speeds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GaitSwitch {
    /// Seconds into the period.
    pub time: f32,
    pub from_gait: u32,
    pub to_gait: u32,
}

/// What every agent shares: the gaits, slowest first, and the speed
/// profile with its gait switches in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct LocomotionTable {
    pub gaits: Vec<Gait>,
    pub segments: [SpeedSegment; PROFILE_SEGMENTS],
    pub switches: Vec<GaitSwitch>,
    /// Distance walked in one period.
    pub period_distance: f32,
}

impl LocomotionTable {
    /// The gaits of a model: its looping clips that move (by their ground
    /// speed), and a looping clip that stays on the spot as the idle one.
    /// `ground_motion` and `distance_curves` hold one per clip.
    /// `None` when no looping clip moves: locomotion has nothing to play.
    pub fn new(
        clips: &[Clip],
        ground_motion: &[GroundMotion],
        distance_curves: &[DistanceCurve],
    ) -> Option<LocomotionTable> {
        let looping = |c: usize| clips.get(c).is_some_and(|clip| clip.looping);
        let mut moving: Vec<Gait> = ground_motion
            .iter()
            .zip(distance_curves)
            .enumerate()
            .filter(|&(c, (motion, _))| looping(c) && motion.speed > 0.0)
            .map(|(c, (motion, &curve))| Gait {
                clip: c as u32,
                speed: motion.speed,
                heading: motion.velocity.y.atan2(motion.velocity.x),
                curve,
            })
            .collect();
        moving.sort_by(|a, b| a.speed.total_cmp(&b.speed));
        let slowest = *moving.first()?;
        let idle = ground_motion
            .iter()
            .enumerate()
            .find(|&(c, motion)| looping(c) && motion.speed == 0.0)
            .map(|(c, _)| Gait {
                clip: c as u32,
                speed: 0.0,
                heading: slowest.heading,
                curve: DistanceCurve::uniform(clips[c].duration(), 0.0),
            });
        // The slowest and the fastest stay (the profile walks and runs at
        // them); those between fill what room is left.
        let room = MAX_GAITS - usize::from(idle.is_some());
        if moving.len() > room {
            let fastest = moving[moving.len() - 1];
            moving.truncate(room - 1);
            moving.push(fastest);
        }
        let gaits: Vec<Gait> = idle.into_iter().chain(moving).collect();
        let fastest = gaits[gaits.len() - 1];
        // Without an idle clip agents never stop: the slowest clip frozen
        // in mid-stride would be no stand.
        let speed_of = |level| match level {
            Level::Stand if idle.is_some() => 0.0,
            Level::Stand | Level::Walk => slowest.speed,
            Level::Run => fastest.speed,
        };
        let mut segments = [SpeedSegment::default(); PROFILE_SEGMENTS];
        let mut switches = Vec::new();
        let (mut time, mut distance) = (0.0f32, 0.0f32);
        for (segment, &(duration, from, to)) in segments.iter_mut().zip(&PROFILE_PLAN) {
            let (v0, v1) = (speed_of(from), speed_of(to));
            let acceleration = (v1 - v0) / duration;
            *segment = SpeedSegment {
                start_time: time,
                start_distance: distance,
                start_speed: v0,
                acceleration,
            };
            // Midpoints crossed, in the order the speed meets them.
            let mut crossings: Vec<(f32, u32, u32)> = (1..gaits.len())
                .filter_map(|g| {
                    let midpoint = 0.5 * (gaits[g - 1].speed + gaits[g].speed);
                    let (low, high) = (v0.min(v1), v0.max(v1));
                    (low < midpoint && midpoint < high).then(|| {
                        let at = time + (midpoint - v0) / acceleration;
                        let (from, to) = if v1 > v0 { (g - 1, g) } else { (g, g - 1) };
                        (at, from as u32, to as u32)
                    })
                })
                .collect();
            crossings.sort_by(|a, b| a.0.total_cmp(&b.0));
            switches.extend(
                crossings
                    .into_iter()
                    .map(|(time, from_gait, to_gait)| GaitSwitch {
                        time,
                        from_gait,
                        to_gait,
                    }),
            );
            distance += duration * (v0 + 0.5 * acceleration * duration);
            time += duration;
        }
        debug_assert!(switches.len() <= MAX_GAIT_SWITCHES);
        Some(LocomotionTable {
            gaits,
            segments,
            switches,
            period_distance: distance,
        })
    }

    /// Distance walked and speed at `local_time` of a lane's clock.
    /// agents.comp's `walked`.
    pub fn walked(&self, local_time: f32) -> (f32, f32) {
        let cycles = (local_time / PROFILE_PERIOD).floor();
        let in_period = local_time - cycles * PROFILE_PERIOD;
        let segment = self
            .segments
            .iter()
            .rev()
            .find(|s| s.start_time <= in_period)
            .unwrap_or(&self.segments[0]);
        let since = in_period - segment.start_time;
        let speed = segment.start_speed + segment.acceleration * since;
        let distance = cycles * self.period_distance
            + segment.start_distance
            + since * (segment.start_speed + 0.5 * segment.acceleration * since);
        (distance, speed)
    }

    /// The gait playing at `local_time` of a lane's clock, the one before
    /// it and when it began (on the lane's clock): agents.comp's
    /// `last_switch`. One gait never switches: (gait 0, gait 0, 0).
    fn last_switch(&self, local_time: f32) -> (u32, u32, f32) {
        let Some(last) = self.switches.last() else {
            return (0, 0, 0.0);
        };
        let cycles = (local_time / PROFILE_PERIOD).floor();
        let in_period = local_time - cycles * PROFILE_PERIOD;
        let (switch, period_start) = match self.switches.iter().rev().find(|s| s.time <= in_period)
        {
            Some(s) => (s, cycles * PROFILE_PERIOD),
            None => (last, (cycles - 1.0) * PROFILE_PERIOD),
        };
        (switch.to_gait, switch.from_gait, period_start + switch.time)
    }
}

/// One agent's lane: fixed for the crowd's life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentLane {
    pub centre: Vec2,
    pub radius: f32,
    /// Angle about +Z where the agent is at its clock's 0.
    pub start_angle: f32,
    /// +1: counter-clockwise (seen from above), -1: clockwise.
    pub direction: f32,
    /// Where in the speed profile the lane's clock starts, seconds; one per ring.
    pub time_offset: f32,
    /// Seeded clip phase, seconds, so neighbours are out of step.
    pub phase: f32,
}

/// Lanes for `count` agents whose poses fit a `footprint` wide square,
/// around the origin: ring r at radius `(r + 1) * LANE_SPACING * footprint`,
/// its agents `LANE_SPACING` footprints apart along it (or more), rings
/// filled inside out. Seeded: each ring's start angle and clock, each
/// agent's clip phase.
pub fn lay_out_lanes(count: usize, footprint: f32, seed: u64) -> Vec<AgentLane> {
    // Its own stream, so lanes leave the grid's seeded crowd as it was.
    let mut random = SplitMix64(seed ^ 0x6c61_6e65_7321);
    let spacing = LANE_SPACING * footprint.max(f32::MIN_POSITIVE);
    let mut lanes = Vec::with_capacity(count);
    let mut ring = 0u32;
    while lanes.len() < count {
        let radius = (ring + 1) as f32 * spacing;
        // The chord between neighbours, not the arc, is their distance.
        let half_angle = (0.5 * spacing / radius).min(1.0).asin();
        let slots = ((std::f32::consts::PI / half_angle).floor() as usize).max(1);
        let start = random.unit() * TAU;
        let time_offset = random.unit() * PROFILE_PERIOD;
        let direction = if ring.is_multiple_of(2) { 1.0 } else { -1.0 };
        for slot in 0..slots.min(count - lanes.len()) {
            lanes.push(AgentLane {
                centre: Vec2::ZERO,
                radius,
                start_angle: start + slot as f32 * (TAU / slots as f32),
                direction,
                time_offset,
                phase: random.unit() * PROFILE_PERIOD,
            });
        }
        ring += 1;
    }
    lanes
}

/// The farthest any agent of `lanes` stands from the centre.
pub fn lanes_radius(lanes: &[AgentLane]) -> f32 {
    lanes
        .iter()
        .map(|l| l.centre.length() + l.radius)
        .fold(0.0, f32::max)
}

/// An agent at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    pub position: Vec3,
    /// Direction of travel, radians about +Z from +X.
    pub heading: f32,
    /// Ground speed, model units per second.
    pub speed: f32,
    /// The waypoint it walks towards: a footprint's worth of lane ahead.
    pub goal: Vec3,
    /// The instance as agents.comp writes it: placed on the lane, facing
    /// its way, playing the gait its speed calls for.
    pub instance: Instance,
}

/// Agent `lane` at global `time`, starting from `base` (whose tint and
/// looping phase it keeps): agents.comp's `main`.
pub fn agent_state(lane: &AgentLane, table: &LocomotionTable, time: f32, base: &Instance) -> Agent {
    let local_time = time + lane.time_offset;
    let (distance, speed) = table.walked(local_time);
    let circumference = TAU * lane.radius;
    // Wrapped before it becomes an angle: sin and cos stay precise.
    let around = distance - circumference * (distance / circumference).floor();
    let angle = lane.start_angle + lane.direction * (around / lane.radius);
    let on_lane = |angle: f32| {
        let (sin, cos) = angle.sin_cos();
        (lane.centre + lane.radius * Vec2::new(cos, sin)).extend(0.0)
    };
    let heading = angle + lane.direction * FRAC_PI_2;
    let (gait, previous_gait, switched_at) = table.last_switch(local_time);
    // The seeded phase is a head start on the lane, in the clip's seconds
    // at its ground speed, so neighbours stay out of step.
    let clip_time = |g: u32| {
        let gait = table.gaits[g as usize];
        if gait.speed > 0.0 {
            gait.curve.clip_time(distance + lane.phase * gait.speed)
        } else {
            time + lane.phase
        }
    };
    let playing = table.gaits[gait as usize];
    let previous = table.gaits[previous_gait as usize];
    let phase = clip_time(gait);
    let previous_phase = clip_time(previous_gait);
    let instance = Instance {
        position: on_lane(angle),
        yaw: heading - playing.heading,
        clip: playing.clip,
        phase,
        previous_clip: previous.clip,
        previous_phase,
        older_clip: previous.clip,
        older_phase: previous_phase,
        from_weight: 1.0,
        blend_start: switched_at - lane.time_offset,
        rate: 0.0,
        ..*base
    };
    Agent {
        position: instance.position,
        heading,
        speed,
        goal: on_lane(angle + lane.direction * (LANE_SPACING / lane.radius.max(1e-6))),
        instance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{GroundMotionSource, JointPose};
    use crate::bounds::Bounds;

    fn clip(looping: bool) -> Clip {
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: 10.0,
            frames: vec![vec![JointPose::IDENTITY]; 11],
            bounds: vec![Bounds::point(Vec3::ZERO); 11],
            looping,
        }
    }

    fn motion(speed: f32) -> GroundMotion {
        GroundMotion {
            speed,
            velocity: Vec3::X * speed,
            source: GroundMotionSource::Feet,
        }
    }

    /// Constant playback at each clip's ground speed.
    fn uniform_curves(clips: &[Clip], motions: &[GroundMotion]) -> Vec<DistanceCurve> {
        clips
            .iter()
            .zip(motions)
            .map(|(c, m)| DistanceCurve::uniform(c.duration(), m.speed * c.duration()))
            .collect()
    }

    fn table() -> LocomotionTable {
        let clips = [clip(true), clip(true), clip(false), clip(true)];
        let motions = [motion(100.0), motion(0.0), motion(50.0), motion(250.0)];
        LocomotionTable::new(&clips, &motions, &uniform_curves(&clips, &motions)).unwrap()
    }

    #[test]
    fn gaits_are_the_looping_clips_by_speed() {
        let table = table();
        let clips: Vec<u32> = table.gaits.iter().map(|g| g.clip).collect();
        assert_eq!(
            clips,
            [1, 0, 3],
            "idle, walk, run; the one-shot is left out"
        );
        // Stand to walk, walk to run, run to walk, walk to stand.
        let pairs: Vec<(u32, u32)> = table
            .switches
            .iter()
            .map(|s| (s.from_gait, s.to_gait))
            .collect();
        assert_eq!(pairs, [(0, 1), (1, 2), (2, 1), (1, 0)]);
        // Half the walk speed is crossed halfway through the first speed-up.
        assert!((table.switches[0].time - 4.75).abs() < 1e-5);
        let still = [motion(0.0), motion(0.0)];
        let clips = [clip(true), clip(true)];
        assert_eq!(
            LocomotionTable::new(&clips, &still, &uniform_curves(&clips, &still)),
            None
        );
    }

    #[test]
    fn distance_is_the_integral_of_speed() {
        let table = table();
        let step = 1e-3;
        let mut integral = 0.0f64;
        let mut t = 0.0f32;
        while t < 2.0 * PROFILE_PERIOD {
            integral += f64::from(table.walked(t + 0.5 * step).1 * step);
            t += step;
        }
        let (distance, _) = table.walked(t);
        assert!(
            (integral - f64::from(distance)).abs() < 1e-3 * f64::from(distance),
            "{integral} vs {distance}"
        );
        assert!((table.walked(PROFILE_PERIOD).0 - table.period_distance).abs() < 1e-2);
    }

    #[test]
    fn the_clip_follows_the_speed() {
        let table = table();
        let lane = lay_out_lanes(1, 50.0, 1)[0];
        let base = Instance::settled(0, 0.0);
        for step in 0..600 {
            let time = step as f32 * 0.1;
            let agent = agent_state(&lane, &table, time, &base);
            let nearest = table
                .gaits
                .iter()
                .min_by(|a, b| {
                    (a.speed - agent.speed)
                        .abs()
                        .total_cmp(&(b.speed - agent.speed).abs())
                })
                .unwrap();
            // Away from a midpoint the nearest clip plays.
            let margin = table
                .gaits
                .windows(2)
                .all(|w| (agent.speed - 0.5 * (w[0].speed + w[1].speed)).abs() > 1.0);
            if margin {
                assert_eq!(agent.instance.clip, nearest.clip, "at {time} s");
            }
            assert!(agent.instance.blend_start <= time);
            assert!((agent.position.truncate().length() - lane.radius).abs() < 1e-2);
        }
    }

    #[test]
    fn a_constant_curve_plays_at_the_ground_speed() {
        // Uniform curves: the clip time is the distance walked over the
        // ground speed plus the seeded phase, as a constant rate gives.
        let table = table();
        let lane = lay_out_lanes(1, 50.0, 1)[0];
        let base = Instance::settled(0, 0.0);
        let mut moving = 0;
        for step in 0..600 {
            let time = step as f32 * 0.1;
            let agent = agent_state(&lane, &table, time, &base);
            let gait = table
                .gaits
                .iter()
                .find(|g| g.clip == agent.instance.clip)
                .unwrap();
            if gait.speed > 0.0 {
                let (distance, _) = table.walked(time + lane.time_offset);
                let expected = distance / gait.speed + lane.phase;
                let phase = agent.instance.phase;
                assert!(
                    (phase - expected).abs() < 1e-4 * expected,
                    "{phase} vs {expected}"
                );
                moving += 1;
            }
        }
        assert!(moving > 300, "{moving}");
    }

    #[test]
    fn rings_keep_neighbours_apart() {
        let lanes = lay_out_lanes(500, 10.0, 3);
        assert_eq!(lanes.len(), 500);
        let table = table();
        let base = Instance::settled(0, 0.0);
        let positions: Vec<Vec3> = lanes
            .iter()
            .map(|l| agent_state(l, &table, 7.0, &base).position)
            .collect();
        let closest = positions
            .iter()
            .enumerate()
            .flat_map(|(i, a)| positions[i + 1..].iter().map(move |b| a.distance(*b)))
            .fold(f32::MAX, f32::min);
        assert!(closest >= 14.9, "{closest}");
    }
}
