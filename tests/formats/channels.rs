//! Channels from a game folder's model declarations and from the command
//! line, resolved on the skeleton of the mesh loaded: which channel plays
//! each joint, and the warnings for joint names the mesh lacks, each
//! naming the declaration's file and line. All CPU.

use crate::common;

use common::{shipped_character, write_file};
use md5crowd::anim::WHOLE_BODY;
use md5crowd::game::Game;
use md5crowd::model::{CharacterChannel, LoadOptions, Model};

/// A parent with two channels and a child that replaces one, adds one and
/// names a joint the crowdling lacks.
const DEF: &str = r#"/*
	crowdling_layered.def
*/
model char_crowdling {
	mesh				models/md5/chars/crowdling/crowdling.md5mesh
	channel torso		( *spine_1 )
	channel legs		( *origin -*spine_1 )
}

model char_crowdling_layered {
	inherit				char_crowdling
	channel head		( *neck -Lefteyelid )		// the crowdling has no eyelids
	channel torso		( *spine_2 - *neck )
}
"#;

#[test]
fn declared_channels_resolve_on_the_loaded_skeleton_with_file_and_line() {
    let base = common::scratch_dir("declared_channels");
    for (path, bytes) in shipped_character("models/md5/chars/crowdling", &[]) {
        write_file(&base.join(path), &bytes);
    }
    write_file(&base.join("def/crowdling_layered.def"), DEF.as_bytes());
    let (game, warnings) = Game::open(&base, None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let character = game.character("char_crowdling_layered").unwrap();
    let written: Vec<(String, &str)> = character
        .channels
        .iter()
        .map(|c| (c.spec.to_string(), c.written_at.as_str()))
        .collect();
    let def = base.join("def/crowdling_layered.def");
    let at = |model: &str, line: u32| format!("model '{model}' ({}:{line})", def.display());
    assert_eq!(
        written,
        [
            (
                "torso=*spine_2 -*neck".to_owned(),
                at("char_crowdling_layered", 13).as_str()
            ),
            (
                "legs=*origin -*spine_1".to_owned(),
                at("char_crowdling", 7).as_str()
            ),
            (
                "head=*neck -Lefteyelid".to_owned(),
                at("char_crowdling_layered", 12).as_str()
            ),
        ]
    );

    let model =
        Model::load_with(&character.mesh, &character.clips, &LoadOptions::default()).unwrap();
    let (channels, warnings) = model.resolve_channels(&character.channels);
    assert_eq!(
        warnings,
        [format!(
            "{}: channel 'head': no joint is named 'Lefteyelid' in {}",
            at("char_crowdling_layered", 12),
            character.mesh
        )]
    );
    assert_eq!(channels.names(), ["all", "torso", "legs", "head"]);
    let joint = |name: &str| {
        let index = model.skeleton.names.iter().position(|n| n == name).unwrap();
        channels.names()[usize::from(channels.joint_channels()[index])].as_str()
    };
    // spine_1 was the parent's torso; the child's starts below it, so
    // spine_1 goes to no channel: the whole body plays it.
    assert_eq!(joint("spine_1"), "all");
    assert_eq!(channels.mask(WHOLE_BODY).iter().filter(|&&m| m).count(), 1);
    assert_eq!(joint("spine_2"), "torso");
    assert_eq!(joint("r_hand"), "torso");
    assert_eq!(joint("neck"), "head");
    assert_eq!(joint("head"), "head");
    for legs in ["origin", "pelvis", "l_toe", "r_thigh"] {
        assert_eq!(joint(legs), "legs", "{legs}");
    }

    // The command line's channels come after the declaration's: one of a
    // declared name replaces it where it stood, a new one claims last.
    let mut given = character.channels.clone();
    for text in [
        "legs=*l_thigh *r_thigh",
        "arms=*l_clavicle *r_clavicle -l_hand nose",
    ] {
        given.push(CharacterChannel::from_command_line(text).unwrap());
    }
    let (channels, warnings) = model.resolve_channels(&given);
    assert_eq!(
        warnings,
        [
            format!(
                "{}: channel 'head': no joint is named 'Lefteyelid' in {}",
                at("char_crowdling_layered", 12),
                character.mesh
            ),
            format!(
                "--channel arms=*l_clavicle *r_clavicle -l_hand nose: channel 'arms': no joint is \
             named 'nose' in {}",
                character.mesh
            )
        ]
    );
    assert_eq!(channels.names(), ["all", "torso", "legs", "head", "arms"]);
    let owner = |name: &str| {
        let index = model.skeleton.names.iter().position(|n| n == name).unwrap();
        channels.names()[usize::from(channels.joint_channels()[index])].clone()
    };
    assert_eq!(owner("origin"), "all");
    assert_eq!(owner("pelvis"), "all");
    assert_eq!(owner("r_toe"), "legs");
    assert_eq!(owner("l_upper_arm"), "arms");
    assert_eq!(owner("l_hand"), "torso");
    assert_eq!(owner("chest"), "torso");
}
