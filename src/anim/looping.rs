//! Whether a clip loops. md5anim files carry no loop flag (Doom 3's game
//! code decides which animations cycle), so a documented rule decides, and
//! `--loop` / `--once` (or a declaration) override it:
//!
//! 1. The name: split into words at `_`, `-`, spaces, dots, digits and
//!    lower-to-upper case changes (`meleeAttack2` is "melee", "attack"; a
//!    lone `2` between letters reads "to": `stand2crouch` is "stand", "to",
//!    "crouch"). In this order, the first that applies decides:
//!    - a word in [`LOOPING_WORDS`] ("loop", "cycle"): the clip loops
//!      (`fire_loop` loops although "fire" alone plays once);
//!    - a word in [`ONE_SHOT_WORDS`] (dying, being hurt, attacking,
//!      jumping, handling a weapon, gestures) or a transition (a word in
//!      [`TRANSITION_WORDS`] such as "to", "start", "stop", "getup", or a
//!      word in [`POSTURE_WORDS`] followed by "up" or "down": `crouch_down`,
//!      `stand_up`, `sit_down`): it plays once, whatever motion words it
//!      also has (`walk_death`, `run_start`, `walk_to_run`);
//!    - a word in [`MOTION_WORDS`] (moving or resting: walk, run, idle,
//!      stand, breathe, ...): it loops, whatever its poses (a walk whose
//!      root motion rides on the hips rather than the root joint still
//!      loops).
//! 2. Otherwise the poses: the clip loops when the step from its last frame
//!    back to its first is no larger than its own frame-to-frame steps, for
//!    every joint: the turn, and for joints with a parent the move, from the
//!    last frame to the first is at most [`CLOSING_STEP_MARGIN`] times the
//!    joint's largest step between consecutive frames (see
//!    [`closing_step_ratio`]). Steps within file precision count as none:
//!    turns under [`ROTATION_TOLERANCE`], moves under
//!    [`TRANSLATION_TOLERANCE`] of the skeleton's longest bone. That
//!    accepts both ways cycles are written: Doom 3's, whose last frame
//!    repeats the first (the closing step is nothing), and most other
//!    exporters', whose last frame is one step before the first (the
//!    closing step is one more ordinary step). A clip that ends elsewhere (a
//!    death, a crouch-down) closes with a jump many steps long. Root joints'
//!    translations are left out: locomotion clips carry the character
//!    forward on their root and still loop. In a clip of two frames the
//!    closing step is the one ordinary step walked back, which tells
//!    nothing: such a clip loops only when its last frame repeats its
//!    first.
//!
//! A one-shot clip holds its last pose once it is over. Playback wraps a
//! loop from its last frame straight to its first, so [`close_loop`] gives
//! a loop written the other exporters' way its first pose again at the
//! end.

use super::{Clip, JointPose};

/// Name words that make a clip loop, before any other rule.
pub const LOOPING_WORDS: &[&str] = &["loop", "looping", "cycle"];

/// Name words of clips that play once.
pub const ONE_SHOT_WORDS: &[&str] = &[
    "die", "dies", "death", "dead", "dying", "pain", "flinch", "attack", "melee", "fire", "shoot",
    "throw", "jump", "land", "reload", "raise", "lower", "gesture", "wave", "taunt", "sight",
    "evade", "teleport",
];

/// Name words of transitions from one motion or posture to another: they
/// play once.
pub const TRANSITION_WORDS: &[&str] = &[
    "to", "start", "stop", "begin", "end", "enter", "exit", "getup", "standup", "sitdown",
    "liedown",
];

/// Postures: followed by "up" or "down" (`stand_up`, `crouch_down`) they
/// name a transition, which plays once although "stand" alone loops.
pub const POSTURE_WORDS: &[&str] = &[
    "stand", "sit", "crouch", "kneel", "lie", "get", "duck", "squat",
];

/// Name words of moving and resting: cycles, which loop.
pub const MOTION_WORDS: &[&str] = &[
    "walk",
    "walking",
    "run",
    "running",
    "jog",
    "jogging",
    "sprint",
    "sprinting",
    "strafe",
    "strafing",
    "crawl",
    "crawling",
    "swim",
    "swimming",
    "fly",
    "flying",
    "march",
    "sneak",
    "idle",
    "idling",
    "stand",
    "standing",
    "breathe",
    "breathing",
];

/// Radians: smaller turns are file precision (loops written by Doom 3's
/// exporter repeat their first frame within about 1e-5).
pub const ROTATION_TOLERANCE: f32 = 0.01;

/// Of the longest non-root joint offset in the first frame.
pub const TRANSLATION_TOLERANCE: f32 = 0.01;

/// How much larger than a joint's largest frame-to-frame step its closing
/// step may be in a clip that loops: cycles measure at most 1 written
/// cleanly and stay under 2 with a dropped frame or jitter, while
/// one-shots measure more (docs/content.md has the figures).
pub const CLOSING_STEP_MARGIN: f32 = 2.0;

/// The rule above for a clip named `name` with these frames
/// (`frames[f][j]`: joint `j`'s local pose at frame `f`); `roots[j]` says
/// whether joint `j` has no parent.
pub fn loops_by_rule(name: &str, frames: &[Vec<JointPose>], roots: &[bool]) -> bool {
    name_rule(name).unwrap_or_else(|| closing_step_ratio(frames, roots) <= CLOSING_STEP_MARGIN)
}

/// `Some(true)`: the name says loop; `Some(false)`: once; `None`: it says
/// nothing.
pub fn name_rule(name: &str) -> Option<bool> {
    let words = name_words(name);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let posture_changes = words.windows(2).any(|pair| {
        POSTURE_WORDS.contains(&pair[0].as_str()) && matches!(pair[1].as_str(), "up" | "down")
    });
    if has(LOOPING_WORDS) {
        Some(true)
    } else if has(ONE_SHOT_WORDS) || has(TRANSITION_WORDS) || posture_changes {
        Some(false)
    } else if has(MOTION_WORDS) {
        Some(true)
    } else {
        None
    }
}

/// Lower-case words of a clip name (see the module's rule 1).
pub fn name_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphabetic() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            previous_lower = false;
            let between_letters = |at: Option<&char>| at.is_some_and(|c| c.is_alphabetic());
            if c == '2'
                && between_letters(i.checked_sub(1).and_then(|p| chars.get(p)))
                && between_letters(chars.get(i + 1))
            {
                words.push("to".to_owned());
            }
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// Rule 2's measure: over the joints whose closing step (last frame to
/// first) is beyond the tolerances, the largest ratio of that step to the
/// joint's largest step between consecutive frames, turns and moves apart;
/// 0 when every closing step is within the tolerances, infinite when a
/// joint closes with a step but never moves otherwise (or the clip has
/// only two frames). The clip loops by its poses when this is at
/// most [`CLOSING_STEP_MARGIN`].
pub fn closing_step_ratio(frames: &[Vec<JointPose>], roots: &[bool]) -> f32 {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else {
        return 0.0;
    };
    let is_root = |joint: usize| roots.get(joint).copied().unwrap_or(true);
    let longest_bone = first
        .iter()
        .enumerate()
        .filter(|&(joint, _)| !is_root(joint))
        .map(|(_, pose)| pose.translation.length())
        .fold(0.0f32, f32::max);
    let translation_tolerance = (TRANSLATION_TOLERANCE * longest_bone).max(1e-4);
    // With two frames the closing step is the ordinary step walked back.
    let ordinary = if frames.len() >= 3 { frames } else { &[][..] };
    let mut ratio = 0.0f32;
    for joint in 0..first.len() {
        let largest = |step: &dyn Fn(&JointPose, &JointPose) -> f32| {
            ordinary
                .windows(2)
                .map(|pair| step(&pair[0][joint], &pair[1][joint]))
                .fold(0.0f32, f32::max)
        };
        let closing_turn = turn(&last[joint], &first[joint]);
        if closing_turn > ROTATION_TOLERANCE {
            ratio = ratio.max(closing_turn / largest(&turn));
        }
        let closing_move = last[joint].translation.distance(first[joint].translation);
        if !is_root(joint) && closing_move > translation_tolerance {
            ratio =
                ratio.max(closing_move / largest(&|a, b| a.translation.distance(b.translation)));
        }
    }
    ratio
}

/// Makes a looping clip end on its first pose, as playback expects (it
/// wraps from the last frame to the first with no step between): a clip
/// whose last frame differs from its first beyond the tolerances gets its
/// first frame again at the end, one frame later, with root translations
/// carried on by the clip's average step so that root motion goes on.
pub fn close_loop(clip: &mut Clip, roots: &[bool]) {
    let count = clip.frames.len();
    if count < 2 || closing_step_ratio(&clip.frames, roots) == 0.0 {
        return;
    }
    let (first, last) = (&clip.frames[0], &clip.frames[count - 1]);
    let closing: Vec<JointPose> = first
        .iter()
        .zip(last)
        .enumerate()
        .map(|(joint, (first, last))| {
            if roots.get(joint).copied().unwrap_or(true) {
                let step = (last.translation - first.translation) / (count - 1) as f32;
                JointPose::new(first.rotation, last.translation + step)
            } else {
                *first
            }
        })
        .collect();
    clip.frames.push(closing);
    // The weights close as the joints do, back to the first frame's.
    if let Some(first) = clip.morphs.frames.first().cloned() {
        clip.morphs.frames.push(first);
    }
    // `Model::load` grows every frame's box to the posed mesh; the file
    // has none for this frame.
    if let Some(&last_box) = clip.bounds.last() {
        clip.bounds.push(last_box);
    }
}

/// The angle between two joint rotations; q and -q are the same rotation,
/// hence |dot|.
fn turn(a: &JointPose, b: &JointPose) -> f32 {
    2.0 * a.rotation.dot(b.rotation).abs().min(1.0).acos()
}

/// What `--loop` and `--once` say: clips named in `looping` loop and those
/// in `once` play once, whatever the rule says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopOverrides {
    pub looping: Vec<String>,
    pub once: Vec<String>,
}

impl LoopOverrides {
    /// The override for clip `name`, if either list names it.
    pub fn loops(&self, name: &str) -> Option<bool> {
        if self.looping.iter().any(|n| n == name) {
            Some(true)
        } else if self.once.iter().any(|n| n == name) {
            Some(false)
        } else {
            None
        }
    }

    /// Every name must be one of `clip_names`, and none in both lists; the
    /// error names the culprit and the clips there are.
    pub fn check(&self, clip_names: &[&str]) -> Result<(), String> {
        if let Some(both) = self.looping.iter().find(|n| self.once.contains(n)) {
            return Err(format!(
                "--loop {both} and --once {both}: a clip either loops or plays once"
            ));
        }
        let named = [("--loop", &self.looping), ("--once", &self.once)];
        for (flag, names) in named {
            if let Some(unknown) = names.iter().find(|n| !clip_names.contains(&n.as_str())) {
                return Err(if clip_names.is_empty() {
                    format!("{flag} {unknown}: the model has no clips")
                } else {
                    format!(
                        "{flag} {unknown}: no such clip; the clips are: {}",
                        clip_names.join(", ")
                    )
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_words("meleeAttack2"), ["melee", "attack"]);
        assert_eq!(name_words("death_1-B"), ["death", "b"]);
        assert_eq!(name_words("RUN.fast"), ["run", "fast"]);
        assert_eq!(name_words("idle"), ["idle"]);
        assert_eq!(name_words("stand2crouch"), ["stand", "to", "crouch"]);
        assert_eq!(name_words("walk2"), ["walk"]);
        assert_eq!(name_words("idle_2_b"), ["idle", "b"]);
        assert!(name_words("_12_").is_empty());
    }

    #[test]
    fn the_name_rule_knows_one_shots_transitions_and_cycles() {
        for once in [
            "die",
            "death2",
            "pain_head",
            "rangeAttack",
            "wave",
            "jump_up",
            "reload",
            // One-shot words win over motion words.
            "walk_death",
            "run_pain",
            // Transitions.
            "crouch_down",
            "stand_up",
            "StandUp",
            "standup",
            "getup",
            "get_up",
            "sit_down",
            "run_start",
            "walk_stop",
            "walk_to_run",
            "stand2crouch",
        ] {
            assert_eq!(name_rule(once), Some(false), "{once}");
        }
        for looping in [
            "idle",
            "walk",
            "run",
            "stand",
            "stand_idle",
            "crouch_walk",
            "jog",
            "sprint_fast",
            "strafeLeft",
            "breathe",
            // "up" alone is no transition.
            "walk_up",
            "fire_loop",
            "death_cycle",
        ] {
            assert_eq!(name_rule(looping), Some(true), "{looping}");
        }
        for silent in [
            "diet", "firefly", "crouch", "sit", "stretch", "af_pose", "runner",
        ] {
            assert_eq!(name_rule(silent), None, "{silent}");
        }
    }

    /// Three joints, as a third-party exporter samples them: a root that
    /// travels along X, hips (a child) that bob, and a knee. `pose(t)`
    /// gives (root x, hips height, hip turn, knee turn) at time `t`, one
    /// frame per unit.
    fn rig(frames: usize, pose: impl Fn(f32) -> [f32; 4]) -> Vec<Vec<JointPose>> {
        (0..frames)
            .map(|f| {
                let [x, height, hip, knee] = pose(f as f32);
                vec![
                    JointPose::new(Quat::IDENTITY, Vec3::new(x, 0.0, 0.0)),
                    JointPose::new(Quat::from_rotation_y(hip), Vec3::new(0.0, 0.0, height)),
                    JointPose::new(Quat::from_rotation_y(knee), Vec3::new(0.0, 0.0, -18.0)),
                ]
            })
            .collect()
    }

    const ROOTS: [bool; 3] = [true, false, false];

    /// A walk with a period of `period` frames, starting at `phase`
    /// (radians), sampled over `frames` frames.
    fn walk(period: f32, phase: f32, frames: usize) -> Vec<Vec<JointPose>> {
        rig(frames, |t| {
            let a = std::f32::consts::TAU * t / period + phase;
            [
                3.0 * t,
                36.0 + 1.5 * (2.0 * a).sin(),
                0.5 * a.sin(),
                0.6 + 0.6 * (a + 1.0).sin(),
            ]
        })
    }

    /// Deterministic noise in [-1, 1].
    fn noise(seed: &mut u32) -> f32 {
        *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (*seed >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    fn jitter(frames: &mut [Vec<JointPose>], radians: f32, seed: u32) {
        let mut seed = seed;
        for pose in frames.iter_mut().flatten() {
            let axis = Vec3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed));
            let turn =
                Quat::from_axis_angle(axis.normalize_or(Vec3::X), radians * noise(&mut seed));
            pose.rotation = turn * pose.rotation;
        }
    }

    #[test]
    fn cycles_loop_written_either_way() {
        for (period, phase) in [(8, 0.0), (30, 1.3), (61, 4.0)] {
            // id's way: the last frame repeats the first.
            let doom = walk(period as f32, phase, period + 1);
            assert_eq!(closing_step_ratio(&doom, &ROOTS), 0.0);
            // Other exporters': the last frame is one step before the first.
            let other = walk(period as f32, phase, period);
            let ratio = closing_step_ratio(&other, &ROOTS);
            assert!(
                ratio > 0.5 && ratio <= 1.0 + 1e-3,
                "{period} {phase}: {ratio}"
            );
            // Named for nothing the name rule knows: the poses decide.
            assert!(loops_by_rule("cycle_b", &other, &ROOTS) && loops_by_rule("b", &other, &ROOTS));
            // A frame short of the period, the seam is two steps long.
            let short = walk(period as f32, phase, period - 1);
            assert!(loops_by_rule("b", &short, &ROOTS), "{period} {phase}");
        }
    }

    #[test]
    fn noisy_cycles_still_loop_and_noisy_one_shots_still_play_once() {
        for seed in 0..20 {
            let mut cycle = walk(30.0, 0.7, 30);
            jitter(&mut cycle, 0.01, seed);
            let ratio = closing_step_ratio(&cycle, &ROOTS);
            assert!(ratio <= CLOSING_STEP_MARGIN, "seed {seed}: {ratio}");
            let mut death = fall(40);
            jitter(&mut death, 0.01, seed);
            assert!(
                closing_step_ratio(&death, &ROOTS) > 3.0 * CLOSING_STEP_MARGIN,
                "seed {seed}"
            );
        }
    }

    /// Falling over `steps` frames, faster and faster: the hips tip 90
    /// degrees and drop, the knee folds.
    fn fall(steps: usize) -> Vec<Vec<JointPose>> {
        rig(steps + 1, |t| {
            let e = (t / steps as f32).powi(2);
            [
                0.0,
                36.0 - 30.0 * e,
                std::f32::consts::FRAC_PI_2 * e,
                1.2 * e,
            ]
        })
    }

    #[test]
    fn deaths_play_once() {
        for steps in [6, 20, 40] {
            let ratio = closing_step_ratio(&fall(steps), &ROOTS);
            assert!(ratio > CLOSING_STEP_MARGIN, "{steps}: {ratio}");
            assert!(!loops_by_rule("collapse", &fall(steps), &ROOTS));
        }
        // Even where the name says nothing and the root stays put.
        assert!(!loops_by_rule("b", &fall(40), &ROOTS));
    }

    #[test]
    fn a_crouch_down_plays_once() {
        // Easing down over 12 frames (smoothstep) and holding 6 more.
        let crouch = rig(19, |t| {
            let s = (t / 12.0).min(1.0);
            let e = s * s * (3.0 - 2.0 * s);
            [0.0, 36.0 - 14.0 * e, 0.8 * e, 1.6 * e]
        });
        assert!(closing_step_ratio(&crouch, &ROOTS) > 4.0 * CLOSING_STEP_MARGIN);
        assert!(!loops_by_rule("crouch", &crouch, &ROOTS));
        assert!(!loops_by_rule("crouch_down", &crouch, &ROOTS));
        // A declaration or --loop may still loop it (LoopOverrides).
    }

    #[test]
    fn jumps_play_once_by_their_name_though_they_land_where_they_started() {
        let hop = rig(16, |t| {
            let arc = (std::f32::consts::PI * t / 15.0).sin();
            [2.0 * t, 36.0 + 20.0 * arc, 0.3 * arc, 0.9 * arc]
        });
        assert_eq!(closing_step_ratio(&hop, &ROOTS), 0.0);
        assert!(!loops_by_rule("jump", &hop, &ROOTS));
        assert!(!loops_by_rule("jumpForward", &hop, &ROOTS));
        // A jump cut at its top ends far from where it started.
        assert!(closing_step_ratio(&hop[..8], &ROOTS) > CLOSING_STEP_MARGIN);
    }

    #[test]
    fn the_pose_rule_leaves_out_root_travel_but_not_root_turns() {
        // The root walks on, the pose comes back (as in the walks above).
        let travel = rig(10, |t| [5.0 * t, 36.0, 0.0, 0.0]);
        assert_eq!(closing_step_ratio(&travel, &ROOTS), 0.0);
        // A root that turns a quarter and stays turned: a one-shot.
        let mut turn = travel.clone();
        for (f, frame) in turn.iter_mut().enumerate() {
            frame[0].rotation = Quat::from_rotation_z(0.17 * f as f32);
        }
        assert!(!loops_by_rule("b", &turn, &ROOTS));
        // Hips that climb without coming back (not a root): a one-shot.
        let climb = rig(10, |t| [0.0, 36.0 + 4.0 * t, 0.0, 0.0]);
        assert!(!loops_by_rule("b", &climb, &ROOTS));
    }

    #[test]
    fn short_clips_loop_only_when_they_end_where_they_began() {
        let still = rig(1, |_| [0.0, 36.0, 0.3, 0.3]);
        assert!(loops_by_rule("b", &still, &ROOTS));
        assert!(loops_by_rule("b", &[], &ROOTS));
        // Two frames: the closing step is the one step walked back.
        let two = rig(2, |t| [0.0, 36.0, 0.3 * t, 0.0]);
        assert!(closing_step_ratio(&two, &ROOTS).is_infinite());
        let back = rig(3, |t| [0.0, 36.0, 0.3 * (t % 2.0), 0.0]);
        assert!(loops_by_rule("b", &back, &ROOTS));
        // Within file precision of the first frame.
        let nearly = rig(3, |t| [0.0, 36.0, [0.0, 0.8, 1e-5][t as usize], 0.0]);
        assert!(loops_by_rule("b", &nearly, &ROOTS));
        // -q is q.
        let mut flipped = back.clone();
        flipped[2][1].rotation = -flipped[2][1].rotation;
        assert!(loops_by_rule("b", &flipped, &ROOTS));
    }

    #[test]
    fn a_loop_without_its_closing_frame_gets_it_and_wraps_without_a_step() {
        let clip = |frames| Clip {
            morphs: Default::default(),
            name: "b".into(),
            frame_rate: 30.0,
            looping: true,
            frames,
            bounds: Vec::new(),
        };
        // 30 frames of a 30-frame period: the root travels 3 units a frame.
        let mut open = clip(walk(30.0, 0.7, 30));
        close_loop(&mut open, &ROOTS);
        let closed = clip(walk(30.0, 0.7, 31));
        assert_eq!(open.frames.len(), 31);
        for (a, b) in open.frames[30].iter().zip(&closed.frames[30]) {
            assert!(turn(a, b) < 1e-4 && a.translation.distance(b.translation) < 1e-3);
        }
        // Sampled just before the wrap and at it: one pose.
        let mut before = vec![JointPose::IDENTITY; 3];
        let mut after = vec![JointPose::IDENTITY; 3];
        crate::anim::sample_clip(&open, open.duration() - 1e-4, &mut before);
        crate::anim::sample_clip(&open, 0.0, &mut after);
        for joint in 1..3 {
            assert!(turn(&before[joint], &after[joint]) < 1e-3, "{joint}");
        }
        // A clip that already closes is left alone.
        let mut already = closed.clone();
        close_loop(&mut already, &ROOTS);
        assert_eq!(already, closed);
    }

    #[test]
    fn overrides_win_and_are_checked() {
        let overrides = LoopOverrides {
            looping: vec!["wave".into()],
            once: vec!["walk".into()],
        };
        assert_eq!(overrides.loops("wave"), Some(true));
        assert_eq!(overrides.loops("walk"), Some(false));
        assert_eq!(overrides.loops("idle"), None);
        assert_eq!(overrides.check(&["idle", "walk", "wave"]), Ok(()));
        let error = overrides.check(&["idle", "walk"]).unwrap_err();
        assert_eq!(
            error,
            "--loop wave: no such clip; the clips are: idle, walk"
        );
        assert_eq!(
            overrides.check(&[]).unwrap_err(),
            "--loop wave: the model has no clips"
        );
        let both = LoopOverrides {
            looping: vec!["walk".into()],
            once: vec!["walk".into()],
        };
        assert!(both.check(&["walk"]).unwrap_err().contains("either loops"));
    }
}
