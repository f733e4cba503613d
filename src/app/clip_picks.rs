//! Picking clips by name: what `--clip`, the window's keys and the overlay
//! choose from is a clip name, and each model plays its clip of that name.
//! [`clip_names`] lists the names; [`ModelClips`] maps them to one model's
//! clips and back.

use crate::model::Model;

/// Every model's clip names, each once, in the order the models and their
/// clips come: what `--clip` and the window's keys pick from (each model
/// plays its clip of the name picked).
pub fn clip_names(models: &[Model]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for clip in models.iter().flat_map(|m| &m.clips) {
        if !names.contains(&clip.name) {
            names.push(clip.name.clone());
        }
    }
    names
}

/// What the crowd keeps of one model's clips to pick and switch them.
pub struct ModelClips {
    /// Per clip: whether it loops, and its duration.
    pub loops: Vec<bool>,
    pub durations: Vec<f32>,
    /// Per name of [`clip_names`] (a pick), its clip of that name.
    by_name: Vec<Option<u32>>,
}

impl ModelClips {
    /// `model`'s clips, picked by the names in `names` ([`clip_names`]).
    pub fn of(model: &Model, names: &[String]) -> ModelClips {
        ModelClips {
            loops: model.clips.iter().map(|c| c.looping).collect(),
            durations: model.clips.iter().map(|c| c.duration()).collect(),
            by_name: names
                .iter()
                .map(|name| {
                    let clip = model.clips.iter().position(|c| &c.name == name);
                    clip.map(|c| c as u32)
                })
                .collect(),
        }
    }

    /// The model's clip named by `pick`, if it has one.
    pub fn clip(&self, pick: u32) -> Option<u32> {
        self.by_name.get(pick as usize).copied().flatten()
    }

    /// The pick naming the model's clip `clip`.
    pub fn pick_of(&self, clip: u32) -> Option<u32> {
        let pick = self.by_name.iter().position(|&c| c == Some(clip))?;
        Some(pick as u32)
    }

    /// The picks the model has a clip of.
    pub fn picks(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.by_name.len() as u32).filter(|&pick| self.by_name[pick as usize].is_some())
    }
}
