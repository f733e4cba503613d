//! What a glTF character's conversion changed or left out, for the log:
//! warnings about single things as lines, and warnings that recur per
//! joint and clip (a rig exported with a slight stretch on every leg bone
//! in every clip) summed up as one line per kind, their full list at debug
//! level.

/// One joint (in one clip, if any) that a kind of warning is about.
struct Entry {
    joint: String,
    clip: String,
    /// How far from right, for finding the largest.
    size: f32,
    /// The value as the line shows it.
    shown: String,
}

/// Every joint and clip one kind of warning is about.
#[derive(Default)]
pub struct JointWarning {
    entries: Vec<Entry>,
}

impl JointWarning {
    /// Joint `joint` in clip `clip` ("" for none) is `shown` off, `size`
    /// measuring by how much.
    pub fn add(&mut self, joint: &str, clip: &str, size: f32, shown: String) {
        self.entries.push(Entry {
            joint: joint.to_owned(),
            clip: clip.to_owned(),
            size,
            shown,
        });
    }

    /// The one line: `file: what on N joints in M clips, largest V: joint
    /// J in "C"; consequence`. The full list goes to the debug log.
    fn summary(&self, file: &str, what: &str, consequence: &str) -> Option<String> {
        let largest = self
            .entries
            .iter()
            .max_by(|a, b| a.size.total_cmp(&b.size))?;
        for entry in &self.entries {
            let clip = match entry.clip.as_str() {
                "" => String::new(),
                clip => format!(" in \"{clip}\""),
            };
            log::debug!(
                "{file}: joint {}: {what} {}{clip}",
                entry.joint,
                entry.shown
            );
        }
        let count = |names: Vec<&str>, one: &str| {
            let mut names = names;
            names.sort_unstable();
            names.dedup();
            match names.len() {
                1 => format!("1 {one}"),
                n => format!("{n} {one}s"),
            }
        };
        let joints = count(
            self.entries.iter().map(|e| e.joint.as_str()).collect(),
            "joint",
        );
        let clips: Vec<&str> = self
            .entries
            .iter()
            .map(|e| e.clip.as_str())
            .filter(|c| !c.is_empty())
            .collect();
        let (in_clips, in_clip) = if clips.is_empty() {
            (String::new(), String::new())
        } else {
            (
                format!(" in {}", count(clips, "clip")),
                format!(" in \"{}\"", largest.clip),
            )
        };
        Some(format!(
            "{file}: {what} on {joints}{in_clips}, largest {}: joint {}{in_clip}; {consequence}",
            largest.shown, largest.joint
        ))
    }
}

/// The conversion's warnings.
#[derive(Default)]
pub struct Warnings {
    /// Warnings about single things, each a line.
    pub lines: Vec<String>,
    /// Joints scaled unevenly in the rest pose.
    pub rest_scale: JointWarning,
    /// Joints whose inverse bind matrix and rest pose differ in scale.
    pub bind_scale: JointWarning,
    /// Joints two skins bind in different places.
    pub skins_disagree: JointWarning,
    /// Joints scaled unevenly by a clip.
    pub clip_stretch: JointWarning,
    /// Joints scaled evenly by a clip.
    pub clip_scale: JointWarning,
    /// Animations that move no drawn node (skipped): `animations[i]
    /// ("name")`.
    pub empty_clips: Vec<String>,
}

impl Warnings {
    /// Every line, the summaries after the single warnings.
    pub fn finish(self, file: &str) -> Vec<String> {
        let summaries = [
            (
                &self.rest_scale,
                "non-uniform scale in the rest pose (in proportion)",
                "drawn without it",
            ),
            (
                &self.bind_scale,
                "inverse bind matrix and rest pose differ in scale",
                "skinned as if they agreed",
            ),
            (
                &self.skins_disagree,
                "bound elsewhere by a later skin (distance plus angle)",
                "skinned with the first skin's bind pose",
            ),
            (&self.clip_stretch, "non-uniform scale", "drawn without it"),
            (
                &self.clip_scale,
                "uniform scale",
                "its children keep their places, but its own vertices are drawn unscaled",
            ),
        ];
        let mut lines = self.lines;
        let listed = |clips: &[String], what: &str| {
            let count = match clips.len() {
                1 => "1 animation".to_owned(),
                n => format!("{n} animations"),
            };
            format!("{file}: {what} in {count}: {}", clips.join(", "))
        };
        if !self.empty_clips.is_empty() {
            lines.push(format!(
                "{}; skipped",
                listed(&self.empty_clips, "no channel moves a node")
            ));
        }
        lines.extend(
            summaries
                .into_iter()
                .filter_map(|(kind, what, consequence)| kind.summary(file, what, consequence)),
        );
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_one_line_naming_the_largest() {
        let mut kind = JointWarning::default();
        for (joint, clip, size) in [("thigh.l", "idle", 0.029), ("thigh.r", "idle", 0.02)] {
            kind.add(joint, clip, size, format!("{size:.3}"));
        }
        kind.add("thigh.l", "run", 0.01, "0.010".into());
        let line = kind.summary("g.glb", "non-uniform scale", "drawn without it");
        assert_eq!(
            line.as_deref(),
            Some(
                "g.glb: non-uniform scale on 2 joints in 2 clips, largest 0.029: joint thigh.l \
                 in \"idle\"; drawn without it"
            )
        );
        assert_eq!(JointWarning::default().summary("g.glb", "x", "y"), None);
    }

    #[test]
    fn animations_of_a_kind_are_one_line() {
        let warnings = Warnings {
            empty_clips: vec![
                "animations[1] (\"b\")".into(),
                "animations[2] (\"c\")".into(),
            ],
            ..Warnings::default()
        };
        assert_eq!(
            warnings.finish("m.glb"),
            [
                "m.glb: no channel moves a node in 2 animations: animations[1] (\"b\"), \
              animations[2] (\"c\"); skipped"
            ]
        );
    }
}
