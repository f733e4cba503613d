//! `--layer CHANNEL:CLIP[,CLIP...][@WEIGHT]` and `--additive
//! CLIP[,CLIP...][@WEIGHT]`: the layers the crowd plays over its base
//! clips, as typed, and resolved on each model of the cast into
//! [`LayerRecipe`]s by channel and clip names.

use std::fmt;
use std::str::FromStr;

use crate::anim::LayerMode;
use crate::crowd::{LayerRecipe, MAX_LAYERS};
use crate::model::Model;

use super::AppError;

/// A layer as the command line gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerArg {
    /// The channel's name; `all` (an additive layer's): the whole body.
    pub channel: String,
    /// Each instance plays one of these.
    pub clips: Vec<String>,
    pub weight: f32,
    pub mode: LayerMode,
}

/// The whole body's channel name, as `anim::Channels` names it.
const WHOLE_BODY: &str = crate::anim::WHOLE_BODY_NAME;

impl LayerArg {
    /// `--additive CLIP[,CLIP...][@WEIGHT]`: a whole-body additive layer.
    pub fn parse_additive(text: &str) -> Result<LayerArg, String> {
        let (clips, weight) = clips_and_weight(text, "CLIP[,CLIP...][@WEIGHT]")?;
        Ok(LayerArg {
            channel: WHOLE_BODY.to_owned(),
            clips,
            weight,
            mode: LayerMode::Additive,
        })
    }
}

impl FromStr for LayerArg {
    type Err = String;

    /// `--layer CHANNEL:CLIP[,CLIP...][@WEIGHT]`: an override layer.
    fn from_str(text: &str) -> Result<LayerArg, String> {
        const FORM: &str = "CHANNEL:CLIP[,CLIP...][@WEIGHT]";
        let Some((channel, rest)) = text.split_once(':') else {
            return Err(format!("expected {FORM}, got {text:?}"));
        };
        let channel = channel.trim();
        if channel.is_empty() {
            return Err(format!("expected a channel's name before ':' ({FORM})"));
        }
        let (clips, weight) = clips_and_weight(rest, FORM)?;
        Ok(LayerArg {
            channel: channel.to_owned(),
            clips,
            weight,
            mode: LayerMode::Override,
        })
    }
}

impl fmt::Display for LayerArg {
    /// As typed: `torso:wave,idle@0.5`, `additive idle@0.3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mode {
            LayerMode::Override => write!(f, "{}:", self.channel)?,
            LayerMode::Additive => write!(f, "additive ")?,
        }
        write!(f, "{}@{}", self.clips.join(","), self.weight)
    }
}

/// `CLIP[,CLIP...][@WEIGHT]`: the clip names and the weight (1 unless
/// given, 0 to 1).
fn clips_and_weight(text: &str, form: &str) -> Result<(Vec<String>, f32), String> {
    let (clips, weight) = match text.rsplit_once('@') {
        Some((clips, weight)) => {
            let weight = weight
                .trim()
                .parse::<f32>()
                .ok()
                .filter(|w| (0.0..=1.0).contains(w))
                .ok_or_else(|| {
                    format!("expected a weight from 0 to 1 after '@', got {weight:?}")
                })?;
            (clips, weight)
        }
        None => (text, 1.0),
    };
    let clips: Vec<String> = clips.split(',').map(|c| c.trim().to_owned()).collect();
    if clips.iter().any(String::is_empty) {
        return Err(format!(
            "expected clip names separated by ',' ({form}), got {text:?}"
        ));
    }
    Ok((clips, weight))
}

/// `layers` resolved on each of `models`: per model the recipes of the
/// layers whose channel it has (`all` every model has) and of whose clips
/// it has one or more. A layer some models lack is a warning naming them;
/// one no model can play, or more layers than [`MAX_LAYERS`], is bad input.
pub fn resolve_layers(
    layers: &[LayerArg],
    models: &[Model],
) -> Result<Vec<Vec<LayerRecipe>>, AppError> {
    if layers.len() > MAX_LAYERS {
        return Err(AppError::Arguments(format!(
            "{} layers (--layer and --additive); an instance plays {MAX_LAYERS} at most",
            layers.len()
        )));
    }
    let mut recipes = vec![Vec::new(); models.len()];
    for layer in layers {
        let mut played = false;
        for (model, recipes) in models.iter().zip(&mut recipes) {
            let channel = model.channels.index_of(&layer.channel);
            let clips: Vec<u32> = layer
                .clips
                .iter()
                .filter_map(|name| {
                    model
                        .clips
                        .iter()
                        .position(|c| c.name.eq_ignore_ascii_case(name))
                })
                .map(|index| index as u32)
                .collect();
            match channel {
                Some(channel) if !clips.is_empty() => {
                    played = true;
                    recipes.push(LayerRecipe {
                        channel,
                        clips,
                        weight: layer.weight,
                        mode: layer.mode,
                    });
                }
                _ if models.len() > 1 => log::warn!(
                    "layer {layer}: {} has no channel '{}' or none of its clips; it plays none",
                    model.mesh_file,
                    layer.channel
                ),
                _ => {}
            }
        }
        if !played {
            let channels: Vec<String> = models
                .iter()
                .flat_map(|m| m.channels.names().iter().cloned())
                .collect();
            let clips: Vec<&str> = models
                .iter()
                .flat_map(|m| m.clips.iter().map(|c| c.name.as_str()))
                .collect();
            return Err(AppError::Arguments(format!(
                "layer {layer}: no model has the channel '{}' and one of the clips {:?} (channels: {}; clips: {}); --channel NAME=JOINTS makes a channel",
                layer.channel,
                layer.clips,
                channels.join(", "),
                clips.join(", ")
            )));
        }
    }
    Ok(recipes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_read_as_typed() {
        let layer: LayerArg = "torso:wave,idle@0.5".parse().unwrap();
        assert_eq!(
            layer,
            LayerArg {
                channel: "torso".into(),
                clips: vec!["wave".into(), "idle".into()],
                weight: 0.5,
                mode: LayerMode::Override,
            }
        );
        assert_eq!(layer.to_string(), "torso:wave,idle@0.5");
        let whole: LayerArg = "all:run".parse().unwrap();
        assert_eq!((whole.channel.as_str(), whole.weight), ("all", 1.0));
        let additive = LayerArg::parse_additive("idle@0.25").unwrap();
        assert_eq!(
            (additive.channel.as_str(), additive.mode, additive.weight),
            ("all", LayerMode::Additive, 0.25)
        );
        assert_eq!(additive.to_string(), "additive idle@0.25");
    }

    #[test]
    fn a_bad_layer_says_what_was_expected() {
        for (text, expected) in [
            ("wave", "expected CHANNEL:CLIP"),
            (":wave", "a channel's name"),
            ("torso:", "clip names"),
            ("torso:wave,,idle", "clip names"),
            ("torso:wave@2", "a weight from 0 to 1"),
            ("torso:wave@x", "a weight from 0 to 1"),
        ] {
            let error = text.parse::<LayerArg>().unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
        assert!(LayerArg::parse_additive("@0.5")
            .unwrap_err()
            .contains("clip names"));
    }
}
