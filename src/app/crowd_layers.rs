//! The window's hold on the layers the crowd plays (`--layer`,
//! `--additive`): N steps the first layer's clip, and the overlay has a
//! row per layer with its channel, its clip and its weight.

use super::clip_picks::ModelClips;
use super::crowd_state::CrowdState;
use crate::anim::{LayerMode, WHOLE_BODY_NAME};
use crate::crowd::LayerTrack;
use crate::model::Model;

/// One layer as the overlay shows it, as the first instance playing it
/// has it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerRow {
    /// Its channel's name (`all`: the whole body).
    pub channel: String,
    /// The clip it plays, by its index among the crowd's clip names.
    pub clip: Option<u32>,
    pub weight: f32,
    pub mode: LayerMode,
}

impl CrowdState {
    /// Everyone's layer `layer` crossfades to their model's clip `step`
    /// places after the one it plays (wrapping round), as the loop rule
    /// plays it.
    pub fn step_layer_clip(&mut self, layer: usize, step: i32) {
        let (time, blend_time) = (self.time, self.spec.blend_time);
        self.change_layers(|instance, clips| {
            let count = clips.loops.len() as i64;
            let Some(track) = instance.layers.as_mut_slice().get_mut(layer) else {
                return;
            };
            if count > 0 {
                let next = (i64::from(track.clip) + i64::from(step)).rem_euclid(count) as u32;
                switch(track, clips, next, (time, blend_time));
            }
        });
    }

    /// Everyone's layer `layer` crossfades to their model's clip of the
    /// name `pick` (an index in [`CrowdState::clip_names`]); a model
    /// lacking it plays on.
    pub fn play_layer_clip(&mut self, layer: usize, pick: u32) {
        let (time, blend_time) = (self.time, self.spec.blend_time);
        self.change_layers(|instance, clips| {
            let track = instance.layers.as_mut_slice().get_mut(layer);
            if let (Some(track), Some(clip)) = (track, clips.clip(pick)) {
                switch(track, clips, clip, (time, blend_time));
            }
        });
    }

    /// Everyone's layer `layer` weighs `weight` (0 to 1).
    pub fn set_layer_weight(&mut self, layer: usize, weight: f32) {
        self.change_layers(|instance, _| {
            if let Some(track) = instance.layers.as_mut_slice().get_mut(layer) {
                track.weight = weight.clamp(0.0, 1.0);
            }
        });
    }

    /// A row per layer the crowd plays, as the first instance playing it
    /// has it (`models`: the cast's). Every instance of a model plays its
    /// model's layers, so each model's first instance tells (instances are
    /// sorted by model): the overlay asks every frame, whatever the crowd's
    /// size.
    pub fn layer_rows(&self, models: &[Model]) -> Vec<LayerRow> {
        let mut rows: Vec<LayerRow> = Vec::new();
        let firsts = (0..models.len() as u32).filter_map(|m| {
            let first = self.instances.partition_point(|i| i.model < m);
            self.instances.get(first).filter(|i| i.model == m)
        });
        for instance in firsts {
            let model = &models[instance.model as usize];
            for track in instance.layers.as_slice().iter().skip(rows.len()) {
                let channel = model.channels.names().get(usize::from(track.channel));
                let clip = model.clips.get(track.clip as usize);
                rows.push(LayerRow {
                    channel: channel.map_or(WHOLE_BODY_NAME, String::as_str).to_owned(),
                    clip: clip
                        .and_then(|c| self.clip_names.iter().position(|n| *n == c.name))
                        .map(|i| i as u32),
                    weight: track.weight,
                    mode: track.mode,
                });
            }
        }
        rows
    }
}

/// `track` crossfades to `clip` at `time`, as `clips`' loop rule plays it.
fn switch(track: &mut LayerTrack, clips: &ModelClips, clip: u32, (time, blend_time): (f32, f32)) {
    let looping = clips.loops.get(clip as usize).copied().unwrap_or(true);
    track.switch_clip(clip, looping, time, blend_time);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{ChannelSpec, Channels};
    use crate::app::crowd_state::CrowdSpec;
    use crate::crowd::LayerRecipe;
    use crate::gpu::crowd_buffers::Animation;
    use crate::skin::InfluenceLimit;
    use std::path::Path;

    /// The shipped character with a torso channel, 12 of it, everyone
    /// playing `wave` or `idle` on the torso at 0.8.
    fn crowd() -> (Model, CrowdState) {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let anims: Vec<_> = ["idle", "walk", "wave"]
            .iter()
            .map(|c| assets.join(format!("{c}.md5anim")))
            .collect();
        let mut model = Model::load(
            &assets.join("crowdling.md5mesh"),
            &anims,
            InfluenceLimit::Four,
        )
        .unwrap();
        let torso = ChannelSpec::parse("torso=*spine_1").unwrap();
        model.channels = Channels::resolve(&model.skeleton, &[torso]).0;
        let recipe = LayerRecipe {
            channel: 1,
            clips: vec![2, 0],
            weight: 0.8,
            mode: LayerMode::Override,
        };
        let spec = CrowdSpec {
            instances: 12,
            seed: 3,
            spacing: None,
            clip: None,
            blend_time: 0.25,
            animation: Animation::Gpu,
            animate_kernel: None,
            locomotion: false,
            layers: 3,
        };
        let crowd = CrowdState::new(
            std::slice::from_ref(&model),
            (&[1.0], &[vec![recipe]]),
            spec,
        );
        (model, crowd)
    }

    #[test]
    fn the_window_steps_picks_and_weighs_a_layer() {
        let (model, mut crowd) = crowd();
        let rows = crowd.layer_rows(std::slice::from_ref(&model));
        let [row] = &rows[..] else {
            panic!("one layer: {rows:?}");
        };
        assert_eq!((row.channel.as_str(), row.weight), ("torso", 0.8));
        let clips = |crowd: &CrowdState| -> Vec<u32> {
            crowd
                .instances
                .iter()
                .map(|i| i.layers.as_slice()[0].clip)
                .collect()
        };
        let before = clips(&crowd);
        assert!(before.contains(&0) && before.contains(&2), "each picks one");
        crowd.time = 4.0;
        crowd.step_layer_clip(0, 1);
        let stepped = clips(&crowd);
        for (before, after) in before.iter().zip(&stepped) {
            assert_eq!(*after, (before + 1) % 3);
        }
        let fading = crowd.instances[0].layers.as_slice()[0];
        assert_eq!((fading.previous_clip, fading.blend_start), (before[0], 4.0));
        let walk = crowd.clip_names.iter().position(|n| n == "walk").unwrap() as u32;
        crowd.play_layer_clip(0, walk);
        assert!(clips(&crowd).iter().all(|&c| c == 1));
        crowd.set_layer_weight(0, 0.25);
        let row = &crowd.layer_rows(std::slice::from_ref(&model))[0];
        assert_eq!((row.clip, row.weight), (Some(walk), 0.25));
    }
}
