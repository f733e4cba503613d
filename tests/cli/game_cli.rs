//! `--game DIR`: an id Tech 4 game folder as installed (pk4 archives
//! written here with the `zip` crate; def/ and skins/ declarations typed in
//! the game's style), a character named by its declaration, its clips by
//! the names declared, its offset and skin applied; `--skin`, `--skins`;
//! `inspect --game`. The pictures need Vulkan; the rest is CPU only.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::pk4::write_pk4;
use common::{
    assets, md5crowd_as_typed, render_with_log, scratch_dir, shipped_character, solid_tga,
    vulkan_or_skip,
};
use glam::Vec3;
use image::RgbaImage;
use md5crowd::game::Game;
use md5crowd::material::MaterialLibrary;
use md5crowd::model::{LoadOptions, Model, SkinChoice, DEFAULT_SKIN};

const CHARACTER: &str = "models/md5/chars/crowdling";

const DEF: &str = r#"/*
	crowdling.def
*/
entityDef npc_base {
	"spawnclass"	"idAI"
	"health"		"100"
}

model char_crowdling {
	mesh			models/md5/chars/crowdling/crowdling.md5mesh
	offset			( 0 0 12 )
	channel torso	( *spine_1 )
	channel legs	( *origin -*spine_1 Lefteyelid )	// no such joint: a warning
	anim stroll		models/md5/chars/crowdling/walk.md5anim {
		frame 3		sound_body snd_footstep
	}
	anim rest		models/md5/chars/crowdling/idle.md5anim
	anim gone		models/md5/chars/crowdling/missing.md5anim
}

entityDef npc_crowdling {
	"inherit"		"npc_base"
	"model"			"char_crowdling"
	"skin"			"skins/crowdling/red"
}
"#;

const SKINS: &str = r#"
skin skins/crowdling/red {
	model	models/md5/chars/crowdling/crowdling.md5mesh
	textures/crowdling_body		textures/solid_red
	textures/crowdling_head		textures/solid_red
}

skin skins/crowdling/green {
	*	textures/solid_green
}
"#;

const MTR: &str = "\
textures/solid_red
{
	diffusemap	textures/solid_red.tga
}
textures/solid_green
{
	diffusemap	textures/solid_green.tga
}
";

/// The base folder: the character, its textures and def in pak000, the
/// skins and their materials in pak001.
fn game_folder(test: &str) -> PathBuf {
    let base = scratch_dir(test).join("base");
    let read = |file: &str| fs::read(assets().join(file)).unwrap();
    let names: Vec<(String, Vec<u8>)> = shipped_character(CHARACTER, &["walk", "idle"])
        .into_iter()
        .chain(["crowdling_body", "crowdling_head"].map(|texture| {
            (
                format!("textures/{texture}.png"),
                read(&format!("textures/{texture}.png")),
            )
        }))
        .chain([("def/crowdling.def".to_owned(), DEF.as_bytes().to_vec())])
        .collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    write_pk4(&base.join("pak000.pk4"), &files);
    let red = solid_tga(4, [230, 20, 20]);
    let green = solid_tga(4, [20, 230, 20]);
    write_pk4(
        &base.join("pak001.pk4"),
        &[
            ("skins/crowdling.skin", SKINS.as_bytes()),
            ("materials/solid.mtr", MTR.as_bytes()),
            ("textures/solid_red.tga", &red),
            ("textures/solid_green.tga", &green),
        ],
    );
    base
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn inspect_lists_the_declarations_that_draw_characters() {
    let base = game_folder("inspect_game");
    let output = md5crowd_as_typed(&["inspect", "--game", base.to_str().unwrap(), "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let list = json.as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|d| d["name"].as_str().unwrap()).collect();
    // npc_base draws nothing: no "model" key.
    assert_eq!(names, ["char_crowdling", "npc_crowdling"]);
    let entity = &list[1];
    assert_eq!(entity["kind"], "declaration");
    assert_eq!(entity["declared_as"], "entityDef");
    assert_eq!(entity["mesh"], format!("{CHARACTER}/crowdling.md5mesh"));
    assert_eq!(entity["skin"], "skins/crowdling/red");
    assert_eq!(list[0]["skin"], serde_json::Value::Null);
    assert_eq!(
        entity["anims"],
        serde_json::json!({
            "stroll": format!("{CHARACTER}/walk.md5anim"),
            "rest": format!("{CHARACTER}/idle.md5anim"),
            "gone": format!("{CHARACTER}/missing.md5anim"),
        })
    );
    assert_eq!(entity["offset"], serde_json::json!([0.0, 0.0, 12.0]));
    let source = entity["source"].as_str().unwrap();
    assert!(source.ends_with("pak000.pk4/def/crowdling.def"), "{source}");
    assert_eq!(entity["line"], 21);
    // Its model's channel lines, as --channel takes them.
    assert_eq!(
        entity["channels"],
        serde_json::json!(["torso=*spine_1", "legs=*origin -*spine_1 Lefteyelid"])
    );
    // The two clips the game holds, a slot of 12 frames each, and one
    // skin: 2 layers of 1536 x 384 texels and their mips, 4 bytes each, 2
    // images.
    assert_eq!(
        entity["impostor"],
        serde_json::json!({
            "views": 48,
            "frames": 24,
            "frames_per_clip": 12,
            "slots": 2,
            "bytes": 12_579_840
        })
    );

    let text = md5crowd_as_typed(&["inspect", "--game", base.to_str().unwrap(), "npc_crowdling"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("npc_crowdling (entityDef, "), "{text}");
    assert!(text.contains("  clips: 3: gone, rest, stroll"), "{text}");
    assert!(text.contains("  skin: skins/crowdling/red"), "{text}");
    assert!(
        text.contains("  channels: torso=*spine_1, legs=*origin -*spine_1 Lefteyelid\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  impostor atlas: 48 views x 12 frames a clip, 2 clip(s) at once, 12.0 MiB\n"
        ),
        "{text}"
    );
}

#[test]
fn an_unknown_name_is_bad_input_with_the_closest_names() {
    let base = game_folder("unknown_name");
    let base = base.to_str().unwrap();
    for args in [
        vec!["inspect", "--game", base, "npc_crowdlng"],
        vec!["--game", base, "npc_crowdlng", "--headless"],
    ] {
        let output = md5crowd_as_typed(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let message = stderr(&output);
        assert!(
            message.contains("no model or entityDef is named 'npc_crowdlng'")
                && message.contains("the closest names: npc_crowdling"),
            "{message}"
        );
    }
    let output = md5crowd_as_typed(&[
        "--game",
        base,
        "npc_crowdling",
        "--skin",
        "skins/crowdlin/red",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "no skin is named 'skins/crowdlin/red'; the closest names: skins/crowdling/red"
        ),
        "{}",
        stderr(&output)
    );
    let too_many = ["default"; 9].join(",");
    let output = md5crowd_as_typed(&["--game", base, "npc_crowdling", "--skins", &too_many]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("at most 8"), "{}", stderr(&output));
}

#[test]
fn a_declaration_gives_the_mesh_its_named_clips_offset_and_skin() {
    let base = game_folder("declaration");
    let (game, warnings) = Game::open(&base, None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let character = game.character("NPC_Crowdling").unwrap();
    assert_eq!(character.name, "npc_crowdling");
    assert!(character
        .mesh
        .to_string()
        .ends_with("pak000.pk4/models/md5/chars/crowdling/crowdling.md5mesh"));
    let clips: Vec<&str> = character.clips.iter().map(|c| c.name.as_str()).collect();
    // "gone" names a file the game lacks: left out.
    assert_eq!(clips, ["stroll", "rest"]);
    assert_eq!(character.offset, Vec3::new(0.0, 0.0, 12.0));
    assert_eq!(character.skin.as_deref(), Some("skins/crowdling/red"));
    assert_eq!(
        game.skin("skins/crowdling/red")
            .unwrap()
            .remap("textures/crowdling_head"),
        "textures/solid_red"
    );
    assert_eq!(game.skin(DEFAULT_SKIN).unwrap().remap("x"), "x");

    // The offset moves the bind pose and every clip frame alike.
    let load = |offset| {
        let options = LoadOptions {
            offset,
            ..LoadOptions::default()
        };
        Model::load_with(&character.mesh, &character.clips, &options).unwrap()
    };
    let (moved, still) = (load(character.offset), load(Vec3::ZERO));
    let (a, b) = (moved.bind_pose_bounds(), still.bind_pose_bounds());
    assert!((a.min - b.min - character.offset).abs().max_element() < 1e-3);
    assert!((a.max - b.max - character.offset).abs().max_element() < 1e-3);
    for (m, s) in moved.clips.iter().zip(&still.clips) {
        let (a, b) = (m.bounds_union(), s.bounds_union());
        assert!(
            (a.min - b.min - character.offset).abs().max_element() < 1e-2,
            "{}",
            m.name
        );
        assert_eq!(m.looping, s.looping);
    }
}

/// The model holds what it draws with: each mesh's material under each
/// skin, its images read at load from the library it was given.
#[test]
fn a_loaded_model_holds_its_materials_images_read() {
    let base = game_folder("resolved_materials");
    let (game, _) = Game::open(&base, None);
    let materials = MaterialLibrary::from_vfs(&game.vfs);
    let character = game.character("npc_crowdling").unwrap();
    let options = LoadOptions {
        materials: Some(&materials),
        skins: vec![
            SkinChoice::default_skin(),
            game.skin("skins/crowdling/red").unwrap(),
        ],
        ..LoadOptions::default()
    };
    let model = Model::load_with(&character.mesh, &character.clips, &options).unwrap();
    let resolved = &model.materials;
    assert_eq!(resolved.of_mesh.len(), model.meshes.len());
    let red = solid_tga(4, [230, 20, 20]);
    for (mesh, of_skin) in model.meshes.iter().zip(&resolved.of_mesh) {
        let [own, skinned] = of_skin[..] else {
            panic!("{}: {of_skin:?}", mesh.shader)
        };
        let own = resolved.maps[own].diffuse.as_ref().unwrap();
        assert!(
            own.file.ends_with(&format!("{}.png", mesh.shader)),
            "{}",
            own.file
        );
        let skinned = resolved.maps[skinned].diffuse.as_ref().unwrap();
        assert_eq!(&skinned.bytes[..], &red[..], "{}", skinned.file);
    }
}

/// A mixed crowd of one game folder's declarations opens the folder once
/// per run: its `.mtr` files are parsed (and logged) once, at load, not
/// per model nor again by the GPU upload.
#[test]
fn a_mixed_crowd_of_one_game_folder_reads_it_once() {
    if !vulkan_or_skip() {
        return;
    }
    let base = game_folder("mixed_once");
    let dir = base.parent().unwrap().to_path_buf();
    let (_, log) = render_game(
        &base,
        &dir,
        "mixed",
        &["char_crowdling", "npc_crowdling", "--instances", "6"],
    );
    assert!(log.contains("model 3: "), "three models: {log}");
    assert_eq!(
        log.matches("materials: 2 from 1 .mtr files").count(),
        1,
        "{log}"
    );
}

/// Pixels of a strongly red and of a strongly green surface: (red, green).
fn red_and_green(image: &RgbaImage) -> (usize, usize) {
    let strongly = |p: &image::Rgba<u8>, c: usize| {
        let others = (0..3)
            .filter(|&o| o != c)
            .map(|o| u32::from(p[o]))
            .max()
            .unwrap();
        p[c] > 60 && u32::from(p[c]) > 3 * others.max(20)
    };
    let red = image.pixels().filter(|p| strongly(p, 0)).count();
    let green = image.pixels().filter(|p| strongly(p, 1)).count();
    (red, green)
}

fn render_game(base: &Path, dir: &Path, name: &str, args: &[&str]) -> (RgbaImage, String) {
    let mut all = vec!["--game", base.to_str().unwrap(), "npc_crowdling"];
    all.extend_from_slice(args);
    render_with_log(dir, name, &all)
}

#[test]
fn a_declared_character_renders_with_its_skin_and_skins_vary_a_crowd() {
    if !vulkan_or_skip() {
        return;
    }
    let base = game_folder("render_declared");
    let dir = base.parent().unwrap().to_path_buf();
    let one = ["--time", "0.5", "--clip", "stroll"];
    let (declared, log) = render_game(&base, &dir, "declared", &one);
    assert!(
        log.contains("clip(s) (stroll, rest)") && log.contains("missing.md5anim is not in"),
        "{log}"
    );
    // A channel's joint the mesh lacks: a warning naming the declaration
    // and its line.
    assert!(
        log.contains("model 'char_crowdling' (")
            && log
                .contains("def/crowdling.def:13): channel 'legs': no joint is named 'Lefteyelid'"),
        "{log}"
    );
    let (red, green) = red_and_green(&declared);
    assert!(
        red > 1500 && green == 0,
        "declared skin: {red} red, {green} green pixels"
    );

    let mut own = one.to_vec();
    own.extend(["--skin", "default"]);
    let (own, _) = render_game(&base, &dir, "own", &own);
    let (red, green) = red_and_green(&own);
    assert!(
        red < 100 && green == 0,
        "own materials: {red} red, {green} green pixels"
    );

    // One mesh, three skins, one draw per mesh and level as before.
    let crowd = [
        "--instances",
        "36",
        "--time",
        "1.0",
        "--skins",
        "skins/crowdling/red,skins/crowdling/green,default",
    ];
    let (mixed, log) = render_game(&base, &dir, "mixed", &crowd);
    let (red, green) = red_and_green(&mixed);
    assert!(
        red > 300 && green > 300,
        "mixed crowd: {red} red, {green} green pixels"
    );
    assert!(
        log.contains("skins: skins/crowdling/red, skins/crowdling/green, default"),
        "{log}"
    );
}
