//! A character's channels on their way to its skeleton: each kept with
//! where it was written (a model declaration's line, or the command
//! line), so that a joint name the mesh lacks can be a warning that says
//! where to fix it. Which joints a channel holds is only known once the
//! mesh is read ([`Model::resolve_channels`]).

use crate::anim::{ChannelSpec, ChannelSpecError, ChannelWarning, Channels};

use super::Model;

/// A channel a character is loaded with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CharacterChannel {
    pub spec: ChannelSpec,
    /// For warnings: `model 'monster_demon_imp'
    /// (pak000.pk4/def/monster_demon_imp.def:15)`, or `--channel
    /// legs=*origin -*Waist`.
    pub written_at: String,
}

impl CharacterChannel {
    /// A `--channel NAME=JOINTS` of the command line
    /// ([`ChannelSpec::parse`]).
    pub fn from_command_line(text: &str) -> Result<CharacterChannel, ChannelSpecError> {
        Ok(CharacterChannel {
            spec: ChannelSpec::parse(text)?,
            written_at: format!("--channel {}", text.trim()),
        })
    }
}

impl Model {
    /// `channels` resolved against this model's skeleton
    /// ([`Channels::resolve`]: a joint goes to the last channel that
    /// claims it, and a channel named again replaces the earlier one
    /// where it stood, so command-line channels given after a
    /// declaration's override them). A joint name the mesh lacks, or a
    /// channel past the limit, is a warning naming where the channel was
    /// written, logged and returned; the rest of the channel still
    /// applies.
    pub fn resolve_channels(&self, channels: &[CharacterChannel]) -> (Channels, Vec<String>) {
        let specs: Vec<ChannelSpec> = channels.iter().map(|c| c.spec.clone()).collect();
        let (resolved, warnings) = Channels::resolve(&self.skeleton, &specs);
        let warnings = warnings
            .iter()
            .map(|warning| {
                let written_at = &channels[warning.spec()].written_at;
                let message = match warning {
                    ChannelWarning::UnknownJoint { .. } => {
                        format!("{written_at}: {warning} in {}", self.mesh_file)
                    }
                    ChannelWarning::TooMany { .. } => format!("{written_at}: {warning}"),
                };
                log::warn!("{message}");
                message
            })
            .collect();
        (resolved, warnings)
    }
}
