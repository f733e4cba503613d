//! Channels: named sets of joints that play their own clip over the whole
//! body's (id Tech 4's `torso`, `legs`, `head`, `eyelids`), so a character
//! can walk with its legs while its torso shoots.
//!
//! A [`ChannelSpec`] names a channel and the joints it claims, in the
//! syntax of a Doom 3 model declaration's `channel NAME ( JOINTS )`:
//! `*Waist` is a joint and everything below it, `Waist` the joint alone,
//! and `-` before either takes it back out of the set built so far. The
//! command line writes the same as `NAME=JOINTS`
//! ([`ChannelSpec::parse`]). Resolving specs against a skeleton
//! ([`Channels::resolve`]) gives each joint the one channel that plays
//! it: the last that claims it, or the whole body ([`WHOLE_BODY`],
//! channel 0 as in id Tech 4) when none does.
//!
//! Nothing here knows where a spec was written: the caller keeps that,
//! and words the warnings ([`ChannelWarning`]) with it.

use std::collections::HashMap;
use std::fmt;

use super::{JointMask, Skeleton};

/// The channel of every joint no other channel claims.
pub const WHOLE_BODY: u8 = 0;

/// [`WHOLE_BODY`]'s name, which no other channel may take (id Tech 4's).
pub const WHOLE_BODY_NAME: &str = "all";

/// Channels besides the whole body: a joint's channel is a byte.
pub const MAX_CHANNELS: usize = u8::MAX as usize;

/// How far a term reaches below the joint it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointReach {
    /// `Waist`: the joint alone.
    Joint,
    /// `*Waist`: the joint and all its descendants.
    Subtree,
}

/// Whether a term puts joints into the channel's set or takes them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermEffect {
    Add,
    /// `-` before the name: out of the set built so far (later terms may
    /// put them back).
    Remove,
}

/// One word of a channel's joint list: `Waist`, `*Waist`, `-Waist` or
/// `-*Waist`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointTerm {
    /// As written; joints match it exactly, else ignoring ASCII case (as
    /// the game matches joint names).
    pub name: String,
    pub reach: JointReach,
    pub effect: TermEffect,
}

impl fmt::Display for JointTerm {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let minus = if self.effect == TermEffect::Remove {
            "-"
        } else {
            ""
        };
        let star = if self.reach == JointReach::Subtree {
            "*"
        } else {
            ""
        };
        write!(f, "{minus}{star}{}", self.name)
    }
}

/// A channel as written: its name and joint terms, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelSpec {
    name: String,
    terms: Vec<JointTerm>,
}

/// Why a channel's text or parts make no channel: what was expected and
/// what was found instead, with the whole text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("channel '{text}': expected {expected}, found {found}")]
pub struct ChannelSpecError {
    pub text: String,
    pub expected: String,
    pub found: String,
}

impl ChannelSpec {
    /// A channel `name` of `terms`. The name must be a word (no spaces, no
    /// `=`) other than [`WHOLE_BODY_NAME`]; each term's name a word that
    /// starts with neither `-` nor `*`. No terms is an empty channel.
    pub fn new(name: impl Into<String>, terms: Vec<JointTerm>) -> Result<Self, ChannelSpecError> {
        let spec = ChannelSpec {
            name: name.into(),
            terms,
        };
        let error = |expected: &str, found: String| ChannelSpecError {
            text: spec.to_string(),
            expected: expected.to_owned(),
            found,
        };
        check_channel_name(&spec.name).map_err(|(expected, found)| error(expected, found))?;
        for term in &spec.terms {
            check_joint_name(&term.name).map_err(|(expected, found)| error(expected, found))?;
        }
        Ok(spec)
    }

    /// The command line's `NAME=JOINTS`: `torso=*Waist`, `legs=*origin
    /// -*Waist`, `torso=*mixamorig:Spine`. Joints are separated by spaces
    /// and a name holds any other character (`:` included). A `-` or `*`
    /// standing alone belongs to the next word (`- *Waist` is `-*Waist`),
    /// as in the declaration files, where id Tech 4's lexer reads them as
    /// tokens of their own. `torso=` is an empty channel.
    pub fn parse(text: &str) -> Result<Self, ChannelSpecError> {
        let error = |expected: &str, found: String| ChannelSpecError {
            text: text.to_owned(),
            expected: expected.to_owned(),
            found,
        };
        let Some((name, joints)) = text.split_once('=') else {
            return Err(error(
                "NAME=JOINTS (such as torso=*Waist)",
                "no '='".to_owned(),
            ));
        };
        let name = name.trim();
        check_channel_name(name).map_err(|(expected, found)| error(expected, found))?;
        let terms = parse_terms(joints).map_err(|(expected, found)| error(expected, found))?;
        Ok(ChannelSpec {
            name: name.to_owned(),
            terms,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn terms(&self) -> &[JointTerm] {
        &self.terms
    }
}

impl fmt::Display for ChannelSpec {
    /// The command line's form, which [`ChannelSpec::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}=", self.name)?;
        for (i, term) in self.terms.iter().enumerate() {
            let space = if i == 0 { "" } else { " " };
            write!(f, "{space}{term}")?;
        }
        Ok(())
    }
}

/// (what was expected, what was found) when `name` cannot name a channel.
fn check_channel_name(name: &str) -> Result<(), (&'static str, String)> {
    let expected = "a channel name: a word other than 'all' (the whole body's)";
    if name.is_empty() {
        Err((expected, "none".to_owned()))
    } else if name.eq_ignore_ascii_case(WHOLE_BODY_NAME) || name.contains(char::is_whitespace) {
        Err((expected, format!("'{name}'")))
    } else if name.contains('=') {
        Err((expected, format!("'{name}', which holds '='")))
    } else {
        Ok(())
    }
}

/// (what was expected, what was found) when `name` cannot name a joint in
/// a term.
fn check_joint_name(name: &str) -> Result<(), (&'static str, String)> {
    let expected = "a joint name: a word not starting with '-' or '*'";
    if name.is_empty() {
        Err((expected, "none".to_owned()))
    } else if name.starts_with(['-', '*']) || name.contains(char::is_whitespace) {
        Err((expected, format!("'{name}'")))
    } else {
        Ok(())
    }
}

/// The terms of a joint list separated by spaces; a prefix alone binds to
/// the next word.
fn parse_terms(joints: &str) -> Result<Vec<JointTerm>, (&'static str, String)> {
    let mut terms = Vec::new();
    // The prefixes read and not yet given a name.
    let mut pending = String::new();
    for word in joints.split_whitespace() {
        let mut rest = word;
        if pending.is_empty() {
            if let Some(after) = rest.strip_prefix('-') {
                pending.push('-');
                rest = after;
            }
        }
        if !pending.ends_with('*') {
            if let Some(after) = rest.strip_prefix('*') {
                pending.push('*');
                rest = after;
            }
        }
        if rest.is_empty() {
            continue;
        }
        if rest.starts_with(['-', '*']) {
            return Err(("a joint name after a '-' or '*'", format!("'{word}'")));
        }
        terms.push(JointTerm {
            name: rest.to_owned(),
            reach: if pending.ends_with('*') {
                JointReach::Subtree
            } else {
                JointReach::Joint
            },
            effect: if pending.starts_with('-') {
                TermEffect::Remove
            } else {
                TermEffect::Add
            },
        });
        pending.clear();
    }
    if pending.is_empty() {
        Ok(terms)
    } else {
        Err((
            "a joint name after the last '-' or '*'",
            "the end".to_owned(),
        ))
    }
}

/// A spec that resolving could not fully apply. `spec` is its index in
/// the list given, for the caller to say where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChannelWarning {
    /// A term names no joint of the skeleton; the term is skipped (the
    /// game warns and goes on).
    UnknownJoint {
        spec: usize,
        channel: String,
        joint: String,
    },
    /// The channel is past [`MAX_CHANNELS`] and left out.
    TooMany { spec: usize, channel: String },
}

impl ChannelWarning {
    /// The index of the spec it is about, in the list given.
    pub fn spec(&self) -> usize {
        match self {
            ChannelWarning::UnknownJoint { spec, .. } | ChannelWarning::TooMany { spec, .. } => {
                *spec
            }
        }
    }
}

impl fmt::Display for ChannelWarning {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ChannelWarning::UnknownJoint { channel, joint, .. } => {
                write!(f, "channel '{channel}': no joint is named '{joint}'")
            }
            ChannelWarning::TooMany { channel, .. } => write!(
                f,
                "channel '{channel}' is left out: a character has at most {MAX_CHANNELS} \
                 channels besides '{WHOLE_BODY_NAME}'"
            ),
        }
    }
}

/// Which channel plays each joint of one skeleton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channels {
    /// Index 0 is [`WHOLE_BODY_NAME`], then the channels in the order
    /// first given.
    names: Vec<String>,
    /// Per joint, its index in `names`.
    joint_channel: Vec<u8>,
}

impl Channels {
    /// `joint_count` joints, all in the whole body: no channel.
    pub fn whole_body(joint_count: usize) -> Channels {
        Channels {
            names: vec![WHOLE_BODY_NAME.to_owned()],
            joint_channel: vec![WHOLE_BODY; joint_count],
        }
    }

    /// [`Channels::resolve_joints`] of a skeleton's joints.
    pub fn resolve(skeleton: &Skeleton, specs: &[ChannelSpec]) -> (Channels, Vec<ChannelWarning>) {
        Channels::resolve_joints(&skeleton.names, &skeleton.parents, specs)
    }

    /// Each channel's joints from its terms, applied in order to a set
    /// that starts empty; then each joint goes to the last channel whose
    /// set holds it, or stays with the whole body. A spec whose name was
    /// given before (ignoring case) replaces that one where it stood, as
    /// a model's `channel` line replaces the one it inherits. `parents`
    /// are in parent-before-child order ([`Skeleton`]'s).
    ///
    /// id Tech 4 gives a joint that two channels claim to the first, with
    /// a warning; here the last wins, so that a later channel (one from
    /// the command line) can take joints from an earlier one. Declarations
    /// written for the game claim no joint twice, and resolve the same.
    pub fn resolve_joints(
        joint_names: &[String],
        parents: &[Option<u16>],
        specs: &[ChannelSpec],
    ) -> (Channels, Vec<ChannelWarning>) {
        let mut channels = Channels::whole_body(parents.len());
        let mut warnings = Vec::new();
        // Per channel after the whole body, the spec that defines it.
        let mut defined_by: Vec<usize> = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let earlier = channels.names[1..]
                .iter()
                .position(|n| n.eq_ignore_ascii_case(&spec.name));
            match earlier {
                Some(at) => defined_by[at] = i,
                None if defined_by.len() == MAX_CHANNELS => {
                    warnings.push(ChannelWarning::TooMany {
                        spec: i,
                        channel: spec.name.clone(),
                    });
                }
                None => {
                    channels.names.push(spec.name.clone());
                    defined_by.push(i);
                }
            }
        }
        let joints = JointLookup::new(joint_names, parents);
        for (at, &i) in defined_by.iter().enumerate() {
            let spec = &specs[i];
            let set = joints.set_of(&spec.terms, |joint| {
                warnings.push(ChannelWarning::UnknownJoint {
                    spec: i,
                    channel: spec.name.clone(),
                    joint: joint.to_owned(),
                });
            });
            let channel = u8::try_from(at + 1).unwrap_or(u8::MAX);
            for (owner, claimed) in channels.joint_channel.iter_mut().zip(set) {
                if claimed {
                    *owner = channel;
                }
            }
        }
        // Warnings in the order the specs were given.
        warnings.sort_by_key(ChannelWarning::spec);
        (channels, warnings)
    }

    /// Channel names, [`WHOLE_BODY_NAME`] first: a channel's index here is
    /// the number [`Channels::joint_channels`] holds.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of the channel `name` (ignoring case).
    pub fn index_of(&self, name: &str) -> Option<u8> {
        let at = self
            .names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))?;
        u8::try_from(at).ok()
    }

    /// Per joint, the index of the channel that plays it.
    pub fn joint_channels(&self) -> &[u8] {
        &self.joint_channel
    }

    pub fn joint_count(&self) -> usize {
        self.joint_channel.len()
    }

    /// Per joint, whether `channel` plays it. The masks of all channels
    /// split the skeleton: each joint is in exactly one, the whole body's
    /// holding the joints no other channel claims.
    pub fn mask(&self, channel: u8) -> Vec<bool> {
        self.joint_channel.iter().map(|&c| c == channel).collect()
    }

    /// [`Channels::mask`] as bits, as a shader reads it: joint `j` is bit
    /// `j % 32` of word `j / 32`; the last word's unused bits are 0.
    pub fn mask_words(&self, channel: u8) -> Vec<u32> {
        self.channel_mask(channel).words
    }

    /// The joints a layer can play on, by the layer's channel index: 0 the
    /// whole body (every joint, where [`Channels::mask`] of
    /// [`WHOLE_BODY`] holds only those no channel claims), then each
    /// channel's own.
    pub fn layer_masks(&self) -> Vec<JointMask> {
        std::iter::once(JointMask::all(self.joint_count()))
            .chain((1..self.names.len()).map(|channel| self.channel_mask(channel as u8)))
            .collect()
    }

    fn channel_mask(&self, channel: u8) -> JointMask {
        let mut mask = JointMask::none(self.joint_count());
        for (joint, &owner) in self.joint_channel.iter().enumerate() {
            if owner == channel {
                mask.insert(joint);
            }
        }
        mask
    }
}

/// Joints by name, and each joint's children, for resolving terms.
struct JointLookup {
    exact: HashMap<String, usize>,
    /// By ASCII-lower-case name: the first joint of that name.
    any_case: HashMap<String, usize>,
    children: Vec<Vec<usize>>,
}

impl JointLookup {
    fn new(joint_names: &[String], parents: &[Option<u16>]) -> JointLookup {
        let mut exact = HashMap::new();
        let mut any_case = HashMap::new();
        for (joint, name) in joint_names.iter().enumerate().rev() {
            // In reverse, so that the first joint of a name stays.
            exact.insert(name.clone(), joint);
            any_case.insert(name.to_ascii_lowercase(), joint);
        }
        let mut children = vec![Vec::new(); parents.len()];
        for (joint, parent) in parents.iter().enumerate() {
            // A parent not before its child would make a cycle possible;
            // the skeleton's order rules it out, and this keeps it so.
            if let Some(list) = parent
                .map(usize::from)
                .filter(|&p| p < joint)
                .and_then(|p| children.get_mut(p))
            {
                list.push(joint);
            }
        }
        JointLookup {
            exact,
            any_case,
            children,
        }
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.exact
            .get(name)
            .or_else(|| self.any_case.get(&name.to_ascii_lowercase()))
            .copied()
            .filter(|&joint| joint < self.children.len())
    }

    /// Per joint, whether `terms` put it in the set; `unknown` hears each
    /// name that is no joint.
    fn set_of(&self, terms: &[JointTerm], mut unknown: impl FnMut(&str)) -> Vec<bool> {
        let mut set = vec![false; self.children.len()];
        for term in terms {
            let Some(joint) = self.find(&term.name) else {
                unknown(&term.name);
                continue;
            };
            let inside = term.effect == TermEffect::Add;
            let mut stack = vec![joint];
            while let Some(joint) = stack.pop() {
                set[joint] = inside;
                if term.reach == JointReach::Subtree {
                    stack.extend(&self.children[joint]);
                }
            }
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> ChannelSpec {
        ChannelSpec::parse(text).unwrap()
    }

    /// The imp's joints, cut down: `origin` over `Body`, which holds the
    /// legs under `Hips` and the upper body under `Waist`.
    fn imp() -> (Vec<String>, Vec<Option<u16>>) {
        let joints = [
            ("origin", None),
            ("Body", Some(0)),
            ("Hips", Some(1)),
            ("Lthigh", Some(2)),
            ("Rthigh", Some(2)),
            ("Waist", Some(1)),
            ("Chest", Some(5)),
            ("Neck", Some(6)),
            ("Head", Some(7)),
            ("Larm", Some(6)),
            ("Leyelid", Some(8)),
        ];
        let names = joints.iter().map(|(name, _)| name.to_string()).collect();
        (names, joints.iter().map(|&(_, parent)| parent).collect())
    }

    fn resolve(texts: &[&str]) -> (Channels, Vec<ChannelWarning>) {
        let (names, parents) = imp();
        let specs: Vec<ChannelSpec> = texts.iter().map(|t| spec(t)).collect();
        Channels::resolve_joints(&names, &parents, &specs)
    }

    /// Per joint of [`imp`], its channel's name.
    fn owners(channels: &Channels) -> Vec<&str> {
        channels
            .joint_channels()
            .iter()
            .map(|&c| channels.names()[usize::from(c)].as_str())
            .collect()
    }

    #[test]
    fn the_command_line_form_reads_back_as_written() {
        let legs = spec("legs=*origin -*Waist");
        assert_eq!(legs.name(), "legs");
        assert_eq!(
            legs.terms(),
            [
                JointTerm {
                    name: "origin".into(),
                    reach: JointReach::Subtree,
                    effect: TermEffect::Add,
                },
                JointTerm {
                    name: "Waist".into(),
                    reach: JointReach::Subtree,
                    effect: TermEffect::Remove,
                },
            ]
        );
        assert_eq!(legs.to_string(), "legs=*origin -*Waist");
        // A prefix standing alone belongs to the next word, as in a .def.
        assert_eq!(spec("legs = *origin - *Waist"), legs);
        assert_eq!(spec("legs=*origin -* Waist"), legs);
        assert_eq!(spec("  legs=  *origin\t-*Waist  "), legs);
        let torso = spec("torso=*mixamorig:Spine mixamorig:Hips -mixamorig:Left-Arm");
        assert_eq!(
            torso.to_string(),
            "torso=*mixamorig:Spine mixamorig:Hips -mixamorig:Left-Arm"
        );
        assert_eq!(torso.terms()[2].name, "mixamorig:Left-Arm");
        assert_eq!(torso.terms()[2].effect, TermEffect::Remove);
        assert_eq!(torso.terms()[1].reach, JointReach::Joint);
        // Everything after the first '=' is joints.
        assert_eq!(spec("eyes=a=b").terms()[0].name, "a=b");
        assert!(spec("head=").terms().is_empty());
        assert!(spec("head= ").terms().is_empty());
    }

    #[test]
    fn bad_command_line_channels_say_what_was_expected() {
        let message = |text: &str| ChannelSpec::parse(text).unwrap_err().to_string();
        assert_eq!(
            message("torso"),
            "channel 'torso': expected NAME=JOINTS (such as torso=*Waist), found no '='"
        );
        assert_eq!(
            message("=*Waist"),
            "channel '=*Waist': expected a channel name: a word other than 'all' \
             (the whole body's), found none"
        );
        assert_eq!(
            message("ALL=*origin"),
            "channel 'ALL=*origin': expected a channel name: a word other than 'all' \
             (the whole body's), found 'ALL'"
        );
        assert!(message("upper body=*Waist").ends_with("found 'upper body'"));
        assert_eq!(
            message("legs=*origin -"),
            "channel 'legs=*origin -': expected a joint name after the last '-' or '*', \
             found the end"
        );
        assert_eq!(
            message("legs=*origin - -Waist"),
            "channel 'legs=*origin - -Waist': expected a joint name after a '-' or '*', \
             found '-Waist'"
        );
        for text in [
            "legs=--Waist",
            "legs=**Waist",
            "legs=*-Waist",
            "legs=* *Waist",
        ] {
            assert!(
                message(text).contains("expected a joint name after a '-' or '*'"),
                "{text}"
            );
        }
    }

    #[test]
    fn new_checks_what_parse_checks() {
        let term = |name: &str| JointTerm {
            name: name.into(),
            reach: JointReach::Joint,
            effect: TermEffect::Add,
        };
        assert!(ChannelSpec::new("torso", vec![term("Waist")]).is_ok());
        assert!(ChannelSpec::new("head", Vec::new()).is_ok());
        let error = ChannelSpec::new("all", vec![term("Waist")]).unwrap_err();
        assert_eq!(error.text, "all=Waist");
        assert_eq!(error.found, "'all'");
        for bad in ["", "-Waist", "*Waist", "left arm"] {
            assert!(
                ChannelSpec::new("torso", vec![term(bad)]).is_err(),
                "{bad:?}"
            );
        }
        assert!(ChannelSpec::new("a=b", Vec::new()).is_err());
    }

    #[test]
    fn subtrees_bare_joints_and_removals() {
        let (channels, warnings) = resolve(&[
            "torso=*Waist -Leyelid",
            "legs=origin Body *Hips",
            "eyelids=Leyelid",
        ]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(channels.names(), ["all", "torso", "legs", "eyelids"]);
        assert_eq!(
            owners(&channels),
            [
                "legs", "legs", "legs", "legs", "legs", "torso", "torso", "torso", "torso",
                "torso", "eyelids"
            ]
        );
        assert_eq!(channels.index_of("LEGS"), Some(2));
        assert_eq!(channels.index_of("arms"), None);

        // A removal takes out what was added before it, not after.
        let (channels, _) = resolve(&["torso=*Waist -*Neck Head"]);
        assert_eq!(
            owners(&channels),
            ["all", "all", "all", "all", "all", "torso", "torso", "all", "torso", "torso", "all"]
        );
        // The imp's legs, as its declaration writes them.
        let (channels, _) = resolve(&["legs=*origin -*Waist"]);
        assert_eq!(
            channels.mask(1),
            [true, true, true, true, true, false, false, false, false, false, false]
        );
    }

    #[test]
    fn the_last_channel_to_claim_a_joint_plays_it() {
        let (channels, _) = resolve(&["body=*origin", "torso=*Waist", "head=*Head"]);
        assert_eq!(
            owners(&channels),
            [
                "body", "body", "body", "body", "body", "torso", "torso", "torso", "head", "torso",
                "head"
            ]
        );
        // The same channels the other way round: the first claims it all.
        let (channels, _) = resolve(&["head=*Head", "torso=*Waist", "body=*origin"]);
        assert!(channels.joint_channels().iter().all(|&c| c == 3));
        assert!(channels.mask(1).iter().all(|&m| !m));
    }

    #[test]
    fn a_channel_given_again_replaces_the_first_where_it_stood() {
        let (channels, warnings) =
            resolve(&["torso=*Waist", "legs=*Hips", "TORSO=*Chest -Larm Nothing"]);
        assert_eq!(channels.names(), ["all", "torso", "legs"]);
        assert_eq!(
            owners(&channels),
            [
                "all", "all", "legs", "legs", "legs", "all", "torso", "torso", "torso", "all",
                "torso"
            ]
        );
        // Only the spec in force is resolved, and its warnings point at it.
        assert_eq!(
            warnings,
            [ChannelWarning::UnknownJoint {
                spec: 2,
                channel: "TORSO".into(),
                joint: "Nothing".into()
            }]
        );
    }

    #[test]
    fn empty_channels_and_unknown_joints() {
        let (channels, warnings) =
            resolve(&["head=", "torso=*Waist -*SPINNER waist2", "legs=*hips"]);
        assert_eq!(channels.names(), ["all", "head", "torso", "legs"]);
        assert!(channels.mask(1).iter().all(|&m| !m));
        assert_eq!(channels.mask_words(1), [0]);
        // Joint names match ignoring case when no joint matches exactly.
        assert_eq!(channels.mask_words(3), [0b11100]);
        assert_eq!(channels.mask_words(2), [0b111_1110_0000]);
        assert_eq!(channels.mask_words(0), [0b11]);
        assert_eq!(
            warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "channel 'torso': no joint is named 'SPINNER'",
                "channel 'torso': no joint is named 'waist2'"
            ]
        );
        assert!(warnings.iter().all(|w| w.spec() == 1));
        // No joints at all.
        let (channels, warnings) = Channels::resolve_joints(&[], &[], &[spec("torso=*Waist")]);
        assert_eq!(channels.joint_count(), 0);
        assert!(channels.mask_words(1).is_empty());
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn gltf_names_and_an_exact_match_first() {
        let names: Vec<String> = [
            "mixamorig:Hips",
            "mixamorig:Spine",
            "mixamorig:spine",
            "mixamorig:Head",
        ]
        .map(str::to_owned)
        .into();
        let parents = [None, Some(0), Some(1), Some(2)];
        let specs = [spec("torso=*mixamorig:spine"), spec("hips=MIXAMORIG:HIPS")];
        let (channels, warnings) = Channels::resolve_joints(&names, &parents, &specs);
        assert!(warnings.is_empty());
        assert_eq!(channels.joint_channels(), [2, 0, 1, 1]);
    }

    #[test]
    fn masks_split_the_skeleton_into_words() {
        // 70 joints in a chain: the torso from joint 33 down.
        let names: Vec<String> = (0..70).map(|j| format!("j{j}")).collect();
        let parents: Vec<Option<u16>> = (0..70u16).map(|j| j.checked_sub(1)).collect();
        let (channels, _) = Channels::resolve_joints(
            &names,
            &parents,
            &[spec("torso=*j33 -j69"), spec("tip=j69")],
        );
        assert_eq!(channels.mask_words(0), [u32::MAX, 1, 0]);
        assert_eq!(channels.mask_words(1), [0, !1, (1 << 5) - 1]);
        assert_eq!(channels.mask_words(2), [0, 0, 1 << 5]);
        let mut union = vec![0u32; 3];
        for channel in 0..3 {
            for (all, word) in union.iter_mut().zip(channels.mask_words(channel)) {
                assert_eq!(*all & word, 0, "channels overlap");
                *all |= word;
            }
        }
        assert_eq!(union, [u32::MAX, u32::MAX, (1 << 6) - 1]);
    }

    #[test]
    fn channels_past_the_limit_are_left_out() {
        let (names, parents) = imp();
        let specs: Vec<ChannelSpec> = (0..=MAX_CHANNELS)
            .map(|c| spec(&format!("c{c}=Head")))
            .collect();
        let (channels, warnings) = Channels::resolve_joints(&names, &parents, &specs);
        assert_eq!(channels.names().len(), MAX_CHANNELS + 1);
        assert_eq!(channels.joint_channels()[8], u8::MAX);
        assert_eq!(
            warnings,
            [ChannelWarning::TooMany {
                spec: MAX_CHANNELS,
                channel: format!("c{MAX_CHANNELS}")
            }]
        );
    }
}
