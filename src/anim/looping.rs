//! Whether a clip loops. md5anim files carry no loop flag (Doom 3 decides
//! in its `.def` files), so a documented rule decides, and `--loop` /
//! `--once` override it:
//!
//! 1. The name: split into words at `_`, `-`, spaces, dots, digits and
//!    lower-to-upper case changes (`meleeAttack2` is "melee", "attack"). A
//!    word in [`LOOPING_WORDS`] makes the clip loop; else a word in
//!    [`ONE_SHOT_WORDS`] (dying, being hurt, attacking, jumping, handling a
//!    weapon, gestures) makes it play once.
//! 2. Otherwise the poses: Doom 3 loops repeat their first frame as their
//!    last, so a clip whose last frame differs from its first (a joint
//!    turned by more than [`ROTATION_TOLERANCE`], or moved by more than
//!    [`TRANSLATION_TOLERANCE`] of the skeleton's longest bone) plays once.
//!    Root joints' translations are left out: locomotion clips carry the
//!    character forward on their root and still loop.
//!
//! A one-shot clip holds its last pose once it is over.

use super::JointPose;

/// Name words that make a clip loop, before any other rule: `fire_loop`
/// loops although "fire" alone plays once.
pub const LOOPING_WORDS: &[&str] = &["loop", "looping", "cycle"];

/// Name words of clips that play once.
pub const ONE_SHOT_WORDS: &[&str] = &[
    "die", "dies", "death", "dead", "dying", "pain", "flinch", "attack", "melee", "fire", "shoot",
    "throw", "jump", "land", "reload", "raise", "lower", "gesture", "wave", "taunt", "sight",
    "evade", "teleport",
];

/// Radians: larger turns between the first and last frame mean a one-shot
/// (file precision leaves loops within about 1e-5).
pub const ROTATION_TOLERANCE: f32 = 0.01;

/// Of the longest non-root joint offset in the first frame.
pub const TRANSLATION_TOLERANCE: f32 = 0.01;

/// The rule above for a clip named `name` with these frames
/// (`frames[f][j]`: joint `j`'s local pose at frame `f`); `roots[j]` says
/// whether joint `j` has no parent.
pub fn loops_by_rule(name: &str, frames: &[Vec<JointPose>], roots: &[bool]) -> bool {
    name_rule(name).unwrap_or_else(|| first_frame_returns(frames, roots))
}

/// `Some(true)`: the name says loop; `Some(false)`: once; `None`: it says
/// nothing.
pub fn name_rule(name: &str) -> Option<bool> {
    let words = name_words(name);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(LOOPING_WORDS) {
        Some(true)
    } else if has(ONE_SHOT_WORDS) {
        Some(false)
    } else {
        None
    }
}

/// Lower-case words of a clip name (see the module's rule 1).
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphabetic() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            previous_lower = false;
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

/// Rule 2: whether the last frame repeats the first, within the tolerances.
pub fn first_frame_returns(frames: &[Vec<JointPose>], roots: &[bool]) -> bool {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else {
        return true;
    };
    let is_root = |joint: usize| roots.get(joint).copied().unwrap_or(true);
    let longest_bone = first
        .iter()
        .enumerate()
        .filter(|&(joint, _)| !is_root(joint))
        .map(|(_, pose)| pose.translation.length())
        .fold(0.0f32, f32::max);
    let translation_tolerance = (TRANSLATION_TOLERANCE * longest_bone).max(1e-4);
    first.iter().zip(last).enumerate().all(|(joint, (a, b))| {
        // q and -q are the same rotation: the angle from |dot|.
        let angle = 2.0 * a.rotation.dot(b.rotation).abs().min(1.0).acos();
        angle <= ROTATION_TOLERANCE
            && (is_root(joint) || a.translation.distance(b.translation) <= translation_tolerance)
    })
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
        assert!(name_words("_12_").is_empty());
    }

    #[test]
    fn the_name_rule_knows_one_shots_and_loops() {
        for once in [
            "die",
            "death2",
            "pain_head",
            "rangeAttack",
            "wave",
            "jump_up",
            "reload",
        ] {
            assert_eq!(name_rule(once), Some(false), "{once}");
        }
        for silent in ["idle", "walk", "run", "stand", "diet", "firefly"] {
            assert_eq!(name_rule(silent), None, "{silent}");
        }
        assert_eq!(name_rule("fire_loop"), Some(true));
    }

    /// Two joints (a root and a child 10 units up), over frames whose child
    /// turns by `angles` about Z and whose root moves by `root_x`.
    fn frames(angles: &[f32], root_x: &[f32]) -> Vec<Vec<JointPose>> {
        angles
            .iter()
            .zip(root_x)
            .map(|(&angle, &x)| {
                vec![
                    JointPose::new(Quat::IDENTITY, Vec3::new(x, 0.0, 0.0)),
                    JointPose::new(Quat::from_rotation_z(angle), Vec3::new(0.0, 0.0, 10.0)),
                ]
            })
            .collect()
    }

    #[test]
    fn the_pose_rule_loops_clips_that_return_to_their_first_frame() {
        let roots = [true, false];
        let back = frames(&[0.0, 0.8, 0.0], &[0.0, 0.0, 0.0]);
        assert!(loops_by_rule("idle", &back, &roots));
        let away = frames(&[0.0, 0.8, 0.8], &[0.0, 0.0, 0.0]);
        assert!(!loops_by_rule("idle", &away, &roots));
        // The name rule comes first.
        assert!(!loops_by_rule("wave", &back, &roots));
        assert!(loops_by_rule("fire_loop", &away, &roots));
        // Locomotion: the root walks on, the pose comes back.
        let walking = frames(&[0.0, 0.8, 0.0], &[0.0, 50.0, 100.0]);
        assert!(loops_by_rule("walk", &walking, &roots));
        // Within file precision of the first frame.
        let nearly = frames(&[0.0, 0.8, 1e-5], &[0.0, 0.0, 0.0]);
        assert!(loops_by_rule("idle", &nearly, &roots));
        assert!(loops_by_rule("empty", &[], &roots));
        // -q is q.
        let mut flipped = back.clone();
        flipped[2][1].rotation = -flipped[2][1].rotation;
        assert!(loops_by_rule("idle", &flipped, &roots));
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
