//! The window's keys and mouse: which input means what, and the help text
//! that lists them (`--help` prints it). Keys that name a character
//! (brackets, plus, minus, digits, letters) follow the keyboard layout; the
//! fly keys are positions (WASD on QWERTY, ZQSD on AZERTY), so they stay a
//! cross.

use glam::Vec3;
use winit::event::{ElementState, KeyEvent};
use winit::keyboard::{Key, KeyCode, NamedKey, PhysicalKey};

/// For `--help`; keep in step with [`action_for`] and [`FlyKeys`].
pub const HELP: &str = "\
Window controls:
  left drag             orbit
  right or middle drag  pan
  wheel                 zoom
  W A S D  Q E          fly forward, left, back, right, down, up
  Space                 pause
  [  ]                  previous / next clip for everyone (crossfade: --blend-time)
  1-9                   clip 1-9 for everyone
  N                     the first layer's next clip (--layer)
  +  -                  double / halve the crowd
  K                     skeleton overlay
  L                     linear / dual quaternion skinning
  I                     4 / 8 joint influences per vertex (builds the vertices again)
  F                     wireframe (where the GPU supports it)
  O                     level of detail on / off
  T                     tint instances by their level of detail
  C                     occlusion culling on / off
  P                     impostors on / off (far instances drawn as one quad)
  M                     antialiasing: MSAA at --msaa samples a pixel / off
  H                     shadows: cascaded shadow maps / blob / off
  G                     locomotion on / off (a clip picked stops it)
  V                     freeze culling: the cull camera stays while the view moves
  R                     reset the camera (frame the crowd)
  F1                    the overlay: statistics, frame-time graph, every control
                        (--overlay shows it from the start, headless too)
  F12                   capture the next frame (when run under RenderDoc)
  Esc                   quit";

/// What a key press or an overlay control asks for, besides flying.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    Quit,
    Pause,
    PreviousClip,
    NextClip,
    /// Zero-based.
    Clip(u32),
    DoubleCrowd,
    HalveCrowd,
    /// The overlay's crowd size slider.
    SetInstances(u32),
    /// Back to the seeded mix of clips (the overlay's clip list).
    MixClips,
    /// The instances of one model (index in the cast) crossfade to its
    /// clip of a name (index in `CrowdState::clip_names`): the overlay's
    /// clip list of that model.
    ModelClip {
        model: u32,
        clip: u32,
    },
    /// A model's weight in the mix (`--mix`): the crowd is laid out anew
    /// with the same count (the overlay's share slider of that model).
    ModelShare {
        model: u32,
        share: f32,
    },
    /// Everyone's first layer steps to the next clip (N).
    NextLayerClip,
    /// Everyone's layer `layer` plays its clip of a name (index in
    /// `CrowdState::clip_names`): the overlay's layer rows.
    LayerClip {
        layer: u32,
        clip: u32,
    },
    /// A layer's weight: the overlay's layer rows.
    LayerWeight {
        layer: u32,
        weight: f32,
    },
    /// Seconds of crossfade for the next clip switches.
    BlendTime(f32),
    /// Animation time per wall-clock second.
    TimeScale(f32),
    /// The pixel error level of detail allows (`--lod-bias`).
    LodBias(f32),
    AnimationLod,
    /// Coarse levels skin with the fewer influences they keep, or all.
    LodInfluences,
    /// Keep culling with the frustum of the moment while the view moves.
    FreezeCulling,
    Overlay,
    Skeleton,
    Skinning,
    /// Between 4 and 8 joints per vertex: the model is loaded again.
    Influences,
    Wireframe,
    LevelOfDetail,
    ShowLod,
    Occlusion,
    Impostors,
    /// Between one sample a pixel and `--msaa`.
    Msaa,
    /// Shadow maps, blob shadows, none, round again.
    Shadows,
    /// Tint what each shadow cascade covers.
    CascadeColors,
    Locomotion,
    ResetCamera,
    Capture,
}

pub fn action_for(key: &Key) -> Option<Action> {
    match key.as_ref() {
        Key::Named(NamedKey::Escape) => Some(Action::Quit),
        Key::Named(NamedKey::Space) => Some(Action::Pause),
        Key::Named(NamedKey::F12) => Some(Action::Capture),
        Key::Named(NamedKey::F1) => Some(Action::Overlay),
        Key::Character(text) => match text.to_ascii_lowercase().as_str() {
            "[" => Some(Action::PreviousClip),
            "]" => Some(Action::NextClip),
            "n" => Some(Action::NextLayerClip),
            // `=` is `+` without shift on US layouts.
            "+" | "=" => Some(Action::DoubleCrowd),
            "-" => Some(Action::HalveCrowd),
            "k" => Some(Action::Skeleton),
            "l" => Some(Action::Skinning),
            "i" => Some(Action::Influences),
            "f" => Some(Action::Wireframe),
            "o" => Some(Action::LevelOfDetail),
            "t" => Some(Action::ShowLod),
            "c" => Some(Action::Occlusion),
            "p" => Some(Action::Impostors),
            "m" => Some(Action::Msaa),
            "h" => Some(Action::Shadows),
            "g" => Some(Action::Locomotion),
            "v" => Some(Action::FreezeCulling),
            "r" => Some(Action::ResetCamera),
            digit => match digit.parse::<u32>() {
                Ok(n @ 1..=9) => Some(Action::Clip(n - 1)),
                _ => None,
            },
        },
        _ => None,
    }
}

/// The fly keys held down, as a direction in view axes (right, up, forward).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlyKeys {
    held: [bool; 6],
}

impl FlyKeys {
    const KEYS: [(KeyCode, Vec3); 6] = [
        (KeyCode::KeyW, Vec3::Z),
        (KeyCode::KeyS, Vec3::NEG_Z),
        (KeyCode::KeyA, Vec3::NEG_X),
        (KeyCode::KeyD, Vec3::X),
        (KeyCode::KeyQ, Vec3::NEG_Y),
        (KeyCode::KeyE, Vec3::Y),
    ];

    /// True when the event was a fly key (and so is used up).
    pub fn update(&mut self, event: &KeyEvent) -> bool {
        let PhysicalKey::Code(code) = event.physical_key else {
            return false;
        };
        match Self::KEYS.iter().position(|(key, _)| *key == code) {
            Some(index) => {
                self.held[index] = event.state == ElementState::Pressed;
                true
            }
            None => false,
        }
    }

    /// Keys released while the window had no focus never report it.
    pub fn release_all(&mut self) {
        self.held = [false; 6];
    }

    pub fn direction(&self) -> Vec3 {
        Self::KEYS
            .iter()
            .zip(self.held)
            .filter(|(_, held)| *held)
            .map(|((_, direction), _)| *direction)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_a_key_and_a_help_line() {
        let keys = [
            (Key::Named(NamedKey::Escape), Action::Quit, "Esc"),
            (Key::Named(NamedKey::Space), Action::Pause, "Space"),
            (Key::Named(NamedKey::F12), Action::Capture, "F12"),
            (Key::Character("[".into()), Action::PreviousClip, "["),
            (Key::Character("]".into()), Action::NextClip, "]"),
            (Key::Character("n".into()), Action::NextLayerClip, "N"),
            (Key::Character("N".into()), Action::NextLayerClip, "N"),
            (Key::Character("1".into()), Action::Clip(0), "1-9"),
            (Key::Character("9".into()), Action::Clip(8), "1-9"),
            (Key::Character("+".into()), Action::DoubleCrowd, "+"),
            (Key::Character("=".into()), Action::DoubleCrowd, "+"),
            (Key::Character("-".into()), Action::HalveCrowd, "-"),
            (Key::Character("K".into()), Action::Skeleton, "K"),
            (Key::Character("l".into()), Action::Skinning, "L"),
            (Key::Character("I".into()), Action::Influences, "I"),
            (Key::Character("f".into()), Action::Wireframe, "F"),
            (Key::Character("r".into()), Action::ResetCamera, "R"),
            (Key::Character("g".into()), Action::Locomotion, "G"),
            (Key::Character("P".into()), Action::Impostors, "P"),
            (Key::Character("p".into()), Action::Impostors, "P"),
            (Key::Character("m".into()), Action::Msaa, "M"),
            (Key::Character("h".into()), Action::Shadows, "H"),
            (Key::Character("H".into()), Action::Shadows, "H"),
            (Key::Character("v".into()), Action::FreezeCulling, "V"),
            (Key::Named(NamedKey::F1), Action::Overlay, "F1"),
        ];
        for (key, action, label) in keys {
            assert_eq!(action_for(&key), Some(action), "{key:?}");
            // The key column ends where the descriptions start.
            let keys_column = |line: &str| line.get(..24).unwrap_or(line).to_owned();
            assert!(
                HELP.lines()
                    .any(|l| keys_column(l).split_whitespace().any(|k| k == label)),
                "no help line for {label}"
            );
        }
        assert_eq!(action_for(&Key::Character("0".into())), None);
        assert_eq!(action_for(&Key::Character("x".into())), None);
    }

    #[test]
    fn opposite_fly_keys_cancel() {
        let mut fly = FlyKeys {
            held: [true, true, false, true, false, true],
        };
        assert_eq!(fly.direction(), Vec3::new(1.0, 1.0, 0.0));
        fly.release_all();
        assert_eq!(fly.direction(), Vec3::ZERO);
    }
}
