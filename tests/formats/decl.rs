//! id Tech 4 declarations as the game's files write them (typed here by
//! hand in the style of Doom 3's def/ and skins/ folders): characters
//! resolved from an entityDef to its model, inherit chains and cycles,
//! syntax errors that cost one declaration, unknown names with the closest
//! declared ones, skins.

use glam::Vec3;
use md5crowd::decl::{DeclKind, DeclSet, DeclSource, ResolveError};

const MONSTER_DEFAULT: &str = r#"/***********************************************************************

	monster_default.def

***********************************************************************/

entityDef monster_default {
	"spawnclass"				"idAI"
	"health"					"100"
	"skin"						""
	"mass"						"200"
	"snd_footstep"				"monster_default_footstep"
	"editor_usage"				"Base monster. " \
								"Not placed in maps."
}
"#;

const IMP: &str = r#"/***********************************************************************

	monster_demon_imp.def

***********************************************************************/

export fred {
	options -prefix IMP_ -keep Lknee Rknee -parent Rknee Body2 -sourcedir models/monsters/imp/cycles
	mesh	imp_walk1.mb -dest models/md5/monsters/imp/imp
	anim	imp_walk1.mb -dest models/md5/monsters/imp/walk1
}

model monster_demon_imp {
	mesh							models/md5/monsters/imp/imp.md5mesh
	channel torso					( *Waist )
	channel legs					( origin Body Body2 *Hips -*Waist SPINNER )
	offset							( 0 0 -2 )
	skin							skins/monsters/imp/imp

	anim af_pose					models/md5/monsters/imp/af_pose.md5anim
	anim idle						models/md5/monsters/imp/idle1.md5anim
	anim sight1						models/md5/monsters/imp/sight.md5anim {
		frame 16.5					sound_voice snd_sight
	}
	anim walk						models/md5/monsters/imp/walk1.md5anim {
		frame 12					sound_body snd_footstep
		frame 30					sound_body snd_footstep
	}
	anim run						models/md5/monsters/imp/run.md5anim
	anim pain1						models/md5/monsters/imp/pain_chest.md5anim
	anim pain2						models/md5/monsters/imp/pain_head.md5anim
	anim death						models/md5/monsters/imp/death.md5anim
}

entityDef monster_demon_imp {
	"inherit"					"monster_default"
	"scriptobject"				"monster_demon_imp"
	"size"						"48 48 68"
	"health"					"130"
	"model"						"monster_demon_imp"
	"ragdoll"					"monster_demon_imp"
	"skin"						"skins/monsters/imp/imp_red"
	"snd_sight"					"monster_demon_imp_sight"
}

particle imp_fireball_trail {
	{
		count				20
		material			textures/particles/fireball
		color 				1.00 1.00 1.00 1.00
	}
}
"#;

fn imp_game() -> DeclSet {
    DeclSet::parse([
        DeclSource::new("pak000.pk4/def/monster_default.def", MONSTER_DEFAULT),
        DeclSource::new("pak000.pk4/def/monster_demon_imp.def", IMP),
    ])
}

#[test]
fn an_entity_def_resolves_to_its_model() {
    let game = imp_game();
    assert!(game.warnings().is_empty(), "{:?}", game.warnings());
    let imp = game.resolve_model("Monster_Demon_Imp").unwrap();
    let chain: Vec<(DeclKind, &str, String)> = imp
        .chain
        .iter()
        .map(|(kind, name, origin)| (*kind, name.as_str(), origin.to_string()))
        .collect();
    assert_eq!(
        chain,
        [
            (
                DeclKind::Entity,
                "monster_demon_imp",
                "pak000.pk4/def/monster_demon_imp.def:35".to_owned()
            ),
            (
                DeclKind::Model,
                "monster_demon_imp",
                "pak000.pk4/def/monster_demon_imp.def:13".to_owned()
            ),
        ]
    );
    assert_eq!(imp.mesh, "models/md5/monsters/imp/imp.md5mesh");
    assert_eq!(imp.offset, Vec3::new(0.0, 0.0, -2.0));
    // The entity's skin wins over the model's.
    assert_eq!(imp.skin.as_deref(), Some("skins/monsters/imp/imp_red"));
    let anims: Vec<(&str, &str)> = imp
        .anims
        .iter()
        .map(|a| (a.name.as_str(), a.file()))
        .collect();
    assert_eq!(
        anims,
        [
            ("af_pose", "models/md5/monsters/imp/af_pose.md5anim"),
            ("idle", "models/md5/monsters/imp/idle1.md5anim"),
            ("sight1", "models/md5/monsters/imp/sight.md5anim"),
            ("walk", "models/md5/monsters/imp/walk1.md5anim"),
            ("run", "models/md5/monsters/imp/run.md5anim"),
            ("pain1", "models/md5/monsters/imp/pain_chest.md5anim"),
            ("pain2", "models/md5/monsters/imp/pain_head.md5anim"),
            ("death", "models/md5/monsters/imp/death.md5anim"),
        ]
    );

    // The entityDef's inherited keys; its own win.
    let entity = game.entity("monster_demon_imp").unwrap();
    assert_eq!(entity.keys.get("health"), Some("130"));
    assert_eq!(entity.keys.get("mass"), Some("200"));
    assert_eq!(entity.keys.get("inherit"), None);
    let base = game.entity("monster_default").unwrap();
    assert_eq!(
        base.keys.get("editor_usage"),
        Some("Base monster. Not placed in maps.")
    );

    // The model declaration alone: its own skin.
    let model = game.model("MONSTER_DEMON_IMP").unwrap();
    assert_eq!(
        model.contents.skin.as_deref(),
        Some("skins/monsters/imp/imp")
    );
    // The particle and the export block are skipped.
    assert_eq!(game.iter().count(), 3);
}

#[test]
fn unknown_names_come_with_the_closest_declared_ones() {
    let game = imp_game();
    let error = game.resolve_model("monster_demon_ipm").unwrap_err();
    assert_eq!(
        error,
        ResolveError::Unknown {
            name: "monster_demon_ipm".into(),
            closest: vec!["monster_demon_imp".into()],
        }
    );
    assert_eq!(
        error.to_string(),
        "no model or entityDef is named 'monster_demon_ipm'; the closest names: monster_demon_imp"
    );
    // monster_default draws nothing, so it is no suggestion.
    assert_eq!(game.closest_names("monster", 5), ["monster_demon_imp"]);
    assert_eq!(
        game.resolve_model("cyberdemon").unwrap_err().to_string(),
        "no model or entityDef is named 'cyberdemon'"
    );
    assert_eq!(
        game.resolve_model("monster_default")
            .unwrap_err()
            .to_string(),
        "entityDef 'monster_default' (pak000.pk4/def/monster_default.def:7) has no \"model\" key"
    );
}

#[test]
fn a_syntax_error_costs_its_declaration_and_names_its_line() {
    let text = r#"model monster_zombie_base {
	mesh						models/md5/monsters/zombies/zombie.md5mesh
	anim idle					models/md5/monsters/zombies/idle.md5anim
}

model monster_zombie_broken {
	mesh						models/md5/monsters/zombies/zombie.md5mesh
	anim idle					models/md5/monsters/zombies/idle.md5anim
	anim walk
}

entityDef monster_zombie_bad {
	"model"						"monster_zombie_base"
	health						"10"
}

model monster_zombie_static {
	mesh						models/mapobjects/zombie_statue.lwo
}

model monster_zombie_maint {
	inherit						monster_zombie_base
	anim walk					models/md5/monsters/zombies/walk1.md5anim
}

entityDef "monster_zombie_maint" {
	"model"						"monster_zombie_maint"
	"skin"						"skins/zombies/maint"
}
"#;
    let game = DeclSet::parse([DeclSource::new("def/zombies.def", text)]);
    assert_eq!(
        game.warnings(),
        [
            "def/zombies.def:10: the declaration ends where an .md5anim path was expected \
             (the model 'monster_zombie_broken' is skipped)",
            "def/zombies.def:14: expected a quoted key, found 'health' \
             (the entityDef 'monster_zombie_bad' is skipped)",
            "def/zombies.def:18: expected an .md5mesh path, found \
             'models/mapobjects/zombie_statue.lwo' (the model 'monster_zombie_static' is skipped)",
        ]
    );
    assert!(game.model("monster_zombie_broken").is_none());
    let maint = game.resolve_model("monster_zombie_maint").unwrap();
    assert_eq!(maint.mesh, "models/md5/monsters/zombies/zombie.md5mesh");
    assert_eq!(maint.anims.len(), 2);
    assert_eq!(maint.skin.as_deref(), Some("skins/zombies/maint"));
}

#[test]
fn a_broken_brace_costs_the_rest_of_its_file_only() {
    let broken = "model half {\n\tmesh half.md5mesh\n\tanim idle idle.md5anim {\n}\n";
    let game = DeclSet::parse([
        DeclSource::new("def/half.def", broken),
        DeclSource::new("def/monster_default.def", MONSTER_DEFAULT),
        DeclSource::new("def/imp.def", IMP),
    ]);
    assert_eq!(
        game.warnings(),
        ["def/half.def:1: the '{' of 'half' is never closed"]
    );
    assert!(game.resolve_model("monster_demon_imp").is_ok());
}

#[test]
fn inherit_chains_resolve_parents_first_wherever_they_are_declared() {
    let children = r#"
model char_marine_walker {
	inherit						char_marine
	anim walk					models/md5/chars/marine/walk_fast.md5anim
	anim run					models/md5/chars/marine/run.md5anim
	remove						pain
}

entityDef char_marine_walker {
	"inherit"					"char_marine_base"
	"model"						"char_marine_walker"
}
"#;
    let parents = r#"
model char_base {
	mesh						models/md5/chars/base.md5mesh
	offset						( 0 0 1 )
	anim idle					models/md5/chars/idle.md5anim
	anim pain1					models/md5/chars/pain1.md5anim
	anim pain2					models/md5/chars/pain2.md5anim
}

model char_marine {
	inherit						char_base
	mesh						models/md5/chars/marine.md5mesh
	anim walk					models/md5/chars/marine/walk.md5anim
}

entityDef char_base {
	"skin"						"skins/chars/base"
	"team"						"0"
}

entityDef char_marine_base {
	"inherit"					"char_base"
	"team"						"1"
}
"#;
    let game = DeclSet::parse([
        DeclSource::new("def/walker.def", children),
        DeclSource::new("def/base.def", parents),
    ]);
    assert!(game.warnings().is_empty(), "{:?}", game.warnings());
    let walker = game.resolve_model("char_marine_walker").unwrap();
    assert_eq!(walker.mesh, "models/md5/chars/marine.md5mesh");
    assert_eq!(walker.offset, Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(walker.skin.as_deref(), Some("skins/chars/base"));
    let anims: Vec<(&str, &str)> = walker
        .anims
        .iter()
        .map(|a| (a.name.as_str(), a.file()))
        .collect();
    assert_eq!(
        anims,
        [
            ("idle", "models/md5/chars/idle.md5anim"),
            ("walk", "models/md5/chars/marine/walk_fast.md5anim"),
            ("run", "models/md5/chars/marine/run.md5anim"),
        ]
    );
    assert_eq!(
        game.entity("char_marine_walker").unwrap().keys.get("team"),
        Some("1")
    );
}

#[test]
fn channels_carry_through_inherit_and_a_child_replaces_one_in_place() {
    let parents = r#"
/*
	the zombies share their channels
*/
model monster_zombie_base {
	mesh						models/md5/monsters/zombies/zombie.md5mesh
	channel torso				( *Waist )
	channel legs				( *origin -*Waist )		// everything else
	anim idle					models/md5/monsters/zombies/idle.md5anim
}
"#;
    let children = r#"
model monster_zombie_fat {
	inherit						monster_zombie_base
	mesh						models/md5/monsters/zombies/fat.md5mesh
	channel eyelids				( Leyelid Reyelid )
	channel torso				( *Chest - Neck )
	channel eyelids				( )
}

entityDef monster_zombie_fat {
	"model"						"monster_zombie_fat"
}
"#;
    let game = DeclSet::parse([
        DeclSource::new("pak000.pk4/def/zombie_fat.def", children),
        DeclSource::new("pak000.pk4/def/zombie_base.def", parents),
    ]);
    assert_eq!(
        game.warnings(),
        [
            "pak000.pk4/def/zombie_fat.def:7: model 'monster_zombie_fat' channel 'eyelids' is \
		  declared twice; the later one is used"
        ]
    );
    let fat = game.resolve_model("monster_zombie_fat").unwrap();
    let channels: Vec<(&str, String, usize)> = fat
        .channels
        .iter()
        .map(|c| {
            let at = format!("{} {}", c.model, c.origin);
            (c.channel.name.as_str(), at, c.channel.joints.len())
        })
        .collect();
    assert_eq!(
        channels,
        [
            (
                "torso",
                "monster_zombie_fat pak000.pk4/def/zombie_fat.def:6".to_owned(),
                2
            ),
            (
                "legs",
                "monster_zombie_base pak000.pk4/def/zombie_base.def:8".to_owned(),
                2
            ),
            (
                "eyelids",
                "monster_zombie_fat pak000.pk4/def/zombie_fat.def:7".to_owned(),
                0
            ),
        ]
    );
    let torso = &fat.channels[0].channel.joints;
    assert!(torso[0].subtree && !torso[0].removed && torso[0].name == "Chest");
    assert!(!torso[1].subtree && torso[1].removed && torso[1].name == "Neck");
    // The imp's channels, through its entityDef.
    let imp = imp_game().resolve_model("monster_demon_imp").unwrap();
    let names: Vec<&str> = imp
        .channels
        .iter()
        .map(|c| c.channel.name.as_str())
        .collect();
    assert_eq!(names, ["torso", "legs"]);
    assert_eq!(imp.channels[1].origin.line, 16);
    assert_eq!(imp.channels[1].channel.joints.len(), 6);
}

#[test]
fn inherit_cycles_are_warnings_not_hangs() {
    let text = r#"
model loop_a {
	inherit loop_b
	mesh models/a.md5mesh
}
model loop_b {
	inherit loop_a
	anim idle models/b_idle.md5anim
}
model self_made {
	inherit SELF_MADE
	mesh models/self.md5mesh
}
entityDef ring_a {
	"inherit" "ring_b"
	"model" "loop_a"
}
entityDef ring_b {
	"inherit" "ring_a"
	"skin" "skins/ring"
}
entityDef orphan {
	"inherit" "nobody"
	"model" "models/orphan.md5mesh"
}
"#;
    let game = DeclSet::parse([DeclSource::new("def/cycles.def", text)]);
    assert_eq!(
        game.warnings(),
        [
            "def/cycles.def:7: model 'loop_b' inherits 'loop_a', which inherits this model again: \
             the cycle is ignored here",
            "def/cycles.def:11: model 'self_made' inherits 'SELF_MADE', which inherits this model \
             again: the cycle is ignored here",
            "def/cycles.def:19: entityDef 'ring_b' inherits 'ring_a', which inherits this entityDef \
             again: the cycle is ignored here",
            "def/cycles.def:23: entityDef 'orphan' inherits 'nobody', but no entityDef has that name",
        ]
    );
    let a = game.resolve_model("loop_a").unwrap();
    assert_eq!(a.mesh, "models/a.md5mesh");
    assert_eq!(a.anims[0].name, "idle");
    let ring = game.resolve_model("ring_a").unwrap();
    assert_eq!(ring.skin.as_deref(), Some("skins/ring"));
    assert_eq!(ring.mesh, "models/a.md5mesh");
    assert_eq!(
        game.resolve_model("orphan").unwrap().mesh,
        "models/orphan.md5mesh"
    );
    assert!(game.resolve_model("self_made").is_ok());
}

#[test]
fn a_name_declared_twice_keeps_the_first_read() {
    let again = "model monster_demon_imp {\n\tmesh models/md5/imp_mod.md5mesh\n}\n";
    let game = DeclSet::parse([
        DeclSource::new("pak002.pk4/def/monster_demon_imp.def", IMP),
        DeclSource::new("pak000.pk4/def/monster_default.def", MONSTER_DEFAULT),
        DeclSource::new("pak000.pk4/def/old.def", again),
    ]);
    assert_eq!(
        game.warnings(),
        [
            "pak000.pk4/def/old.def:1: model 'monster_demon_imp' is declared again; the one at \
             pak002.pk4/def/monster_demon_imp.def:13 is used"
        ]
    );
    assert_eq!(
        game.model("monster_demon_imp")
            .unwrap()
            .contents
            .mesh
            .as_deref(),
        Some("models/md5/monsters/imp/imp.md5mesh")
    );
}

#[test]
fn entity_models_that_are_not_declarations() {
    let text = r#"
entityDef env_ragdoll_imp {
	"model"		"models/md5/monsters/imp/imp.md5mesh"
	"skin"		"skins/monsters/imp/imp_burnt"
}
entityDef item_medkit {
	"model"		"models/items/medkit/medkit.lwo"
}
"#;
    let game = DeclSet::parse([DeclSource::new("def/misc.def", text)]);
    let ragdoll = game.resolve_model("env_ragdoll_imp").unwrap();
    assert_eq!(ragdoll.mesh, "models/md5/monsters/imp/imp.md5mesh");
    assert!(ragdoll.anims.is_empty());
    assert_eq!(ragdoll.chain.len(), 1);
    assert_eq!(
        ragdoll.skin.as_deref(),
        Some("skins/monsters/imp/imp_burnt")
    );
    assert_eq!(
        game.resolve_model("item_medkit").unwrap_err().to_string(),
        "entityDef 'item_medkit' (def/misc.def:6): its \"model\" 'models/items/medkit/medkit.lwo' \
         is neither a model declaration nor an .md5mesh"
    );
    let listed: Vec<(&str, bool)> = game.iter().map(|d| (d.name, d.model.is_ok())).collect();
    assert_eq!(listed, [("env_ragdoll_imp", true), ("item_medkit", false)]);
}

#[test]
fn skin_files_hold_several_skins() {
    let imp_skins = r#"
// skins for the imp
skin skins/monsters/imp/imp_red {
	model	models/md5/monsters/imp/imp.md5mesh
	models/monsters/imp/imp			models/monsters/imp/imp_red
	models/monsters/imp/imp_eyes	models/monsters/imp/imp_eyes_red
}

skins/monsters/imp/imp_invisible
{
	*								textures/common/nodraw
}
"#;
    let zombie_skins = "skin skins/zombies/maint {\n\tmodels/monsters/zombie/maint \
                        models/monsters/zombie/maint_bloody\n}\n";
    let game = DeclSet::parse([
        DeclSource::new("pak001.pk4/skins/imp.skin", imp_skins),
        DeclSource::from_bytes("pak001.pk4/skins/zombie.skin", zombie_skins.as_bytes()),
    ]);
    assert!(game.warnings().is_empty(), "{:?}", game.warnings());
    let names: Vec<&str> = game.skins().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "skins/monsters/imp/imp_red",
            "skins/monsters/imp/imp_invisible",
            "skins/zombies/maint"
        ]
    );
    let red = game.skin("Skins/Monsters/Imp/Imp_Red").unwrap();
    assert_eq!(red.origin.to_string(), "pak001.pk4/skins/imp.skin:3");
    assert_eq!(red.body.models, ["models/md5/monsters/imp/imp.md5mesh"]);
    assert_eq!(
        red.body.remap("models/monsters/imp/imp_eyes"),
        "models/monsters/imp/imp_eyes_red"
    );
    assert_eq!(
        red.body.remap("models/monsters/imp/teeth"),
        "models/monsters/imp/teeth"
    );
    let invisible = game.skin("skins/monsters/imp/imp_invisible").unwrap();
    assert_eq!(
        invisible.body.remap("models/monsters/imp/imp"),
        "textures/common/nodraw"
    );
}

#[test]
fn latin1_bytes_do_not_stop_a_file() {
    let mut bytes = b"// \xa9 1999-2004 id Software\nmodel m {\n\tmesh m.md5mesh\n}\n".to_vec();
    bytes.extend_from_slice(b"entityDef e { \"editor_usage\" \"caf\xe9\" \"model\" \"m\" }\n");
    let game = DeclSet::parse([DeclSource::from_bytes("def/latin1.def", &bytes)]);
    assert!(game.warnings().is_empty(), "{:?}", game.warnings());
    assert_eq!(game.resolve_model("e").unwrap().mesh, "m.md5mesh");
}
