//! `md5crowd inspect` as a user runs it: text, JSON, and exit codes.

use std::path::PathBuf;
use std::process::Command;

const MESH: &str = r#"MD5Version 10
commandline ""
numJoints 2
numMeshes 2
joints {
	"root"	-1 ( 0 0 0 ) ( 0 0 0 )
	"arm"	0 ( 0 0 10 ) ( 0 0 0.7071068 )
}
mesh {
	shader "body"
	numverts 3
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 5
	vert 2 ( 0 1 ) 6 1
	numtris 1
	tri 0 0 2 1
	numweights 7
	weight 0 1 1 ( 2 0 0 )
	weight 1 0 0.4 ( 4 0 0 )
	weight 2 1 0.3 ( 0 0 0 )
	weight 3 0 0.1 ( 4 0 1 )
	weight 4 1 0.1 ( 0 1 0 )
	weight 5 0 0.1 ( 4 1 0 )
	weight 6 0 1 ( 0 3 0 )
}
mesh {
	shader "empty"
	numverts 0
	numtris 0
	numweights 0
}
"#;

const ANIM: &str = r#"MD5Version 10
commandline ""
numFrames 3
numJoints 2
frameRate 24
numAnimatedComponents 1
hierarchy {
	"root"	-1 0 0
	"hand"	0 32 0
}
bounds {
	( -1 -1 -1 ) ( 1 1 1 )
	( -1 -1 -1 ) ( 1 1 1 )
	( -1 -1 -1 ) ( 1 1 1 )
}
baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 0 0 10 ) ( 0 0 0.7071068 )
}
frame 0 { 0.7071068 }
frame 1 { 0.5 }
frame 2 { 0.7071068 }
"#;

fn fixture(name: &str, text: &str) -> PathBuf {
    // Cargo's scratch space for this crate's tests: rewritten each run, not
    // piling up in the system's temporary folder.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("inspect_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn inspect(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg("inspect")
        .args(args)
        .output()
        .expect("run md5crowd")
}

/// `md5crowd inspect --json FILES`, which must succeed: its reports.
fn inspect_json(files: &[&std::ffi::OsStr]) -> serde_json::Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--json".as_ref()];
    args.extend_from_slice(files);
    let out = inspect(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

#[test]
fn json_reports_every_key() {
    let mesh = fixture("hero.md5mesh", MESH);
    let anim = fixture("wave.md5anim", ANIM);
    let out = inspect(&["--json".as_ref(), mesh.as_os_str(), anim.as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let mesh = &json[0];
    assert_eq!(mesh["kind"], "mesh");
    assert_eq!(mesh["joints"], 2);
    assert_eq!(mesh["verts"], 3);
    assert_eq!(mesh["tris"], 1);
    assert_eq!(mesh["weights"], 7);
    assert_eq!(mesh["meshes"][0]["shader"], "body");
    assert_eq!(mesh["meshes"][1]["verts"], 0);
    assert_eq!(mesh["meshes"][0]["morph_targets"], serde_json::json!([]));
    // Vertex 1 has five weights on two joints: merged, it has 2 influences.
    assert_eq!(mesh["max_influences"], 2);
    assert_eq!(mesh["over4"], 0);
    assert_eq!(mesh["over8"], 0);
    assert_eq!(mesh["max_dropped_weight"], 0.0);
    assert!(mesh["file"].as_str().unwrap().ends_with("hero.md5mesh"));

    let anim = &json[1];
    assert_eq!(anim["kind"], "anim");
    assert_eq!(anim["joints"], 2);
    assert_eq!(anim["frames"], 3);
    assert_eq!(anim["frame_rate"], 24.0);
    assert!((anim["duration"].as_f64().unwrap() - 2.0 / 24.0).abs() < 1e-6);
    assert_eq!(anim["animated_components"], 1);
    assert_eq!(anim["morph_channels"], 0);
    // A gesture, by its name: it plays once.
    assert_eq!(anim["loops"], false);
    // "hand" vs the mesh's "arm": bound by index, reported.
    assert_eq!(anim["name_mismatches"].as_array().unwrap().len(), 1);
    // Only the hand turns: no ground under it to measure.
    assert_eq!(anim["ground_speed"], 0.0);
    assert_eq!(anim["ground_velocity"], serde_json::json!([0.0, 0.0, 0.0]));
}

#[test]
fn text_report_names_what_is_inside() {
    let mesh = fixture("text.md5mesh", MESH);
    let out = inspect(&[mesh.as_os_str()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("joints: 2"), "{text}");
    assert!(
        text.contains("shader \"body\": 3 verts, 1 tris, 7 weights"),
        "{text}"
    );
}

#[test]
fn invalid_file_exits_2_with_file_line_column() {
    let bad = fixture("bad.md5mesh", &MESH.replace("tri 0 0 2 1", "tri 0 0 2 3"));
    let out = inspect(&[bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("bad.md5mesh:16:"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn missing_file_exits_2() {
    let out = inspect(&["/nonexistent/x.md5mesh".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.md5mesh: cannot read"));
}

#[test]
fn anim_that_does_not_fit_the_mesh_exits_2() {
    let mesh = fixture("fit.md5mesh", MESH);
    let anim = fixture(
        "misfit.md5anim",
        &ANIM.replace("\"hand\"\t0 32 0", "\"hand\"\t-1 32 0"),
    );
    let out = inspect(&[mesh.as_os_str(), anim.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("misfit.md5anim") && stderr.contains("fit.md5mesh"),
        "{stderr}"
    );
}

#[test]
fn every_shipped_file_passes_inspect() {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&assets)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "md5mesh" || e == "md5anim")
        })
        .collect();
    // The mesh first, so every anim is checked against it.
    files.sort_by_key(|p| p.extension().is_some_and(|e| e == "md5anim"));
    assert!(files.len() >= 4, "{files:?}");
    let files: Vec<&std::ffi::OsStr> = files.iter().map(|p| p.as_os_str()).collect();
    let json = inspect_json(&files);
    let reports = json.as_array().unwrap();
    assert_eq!(reports[0]["kind"], "mesh");
    assert!(
        reports[0]["over4"].as_u64().unwrap() > 0,
        "the truncation path is exercised"
    );
    for anim in &reports[1..] {
        assert_eq!(anim["name_mismatches"].as_array().map(Vec::len), Some(0));
        // The locomotion loops; the wave (raise, wave, lower) plays once.
        let file = anim["file"].as_str().unwrap();
        assert_eq!(anim["loops"], !file.ends_with("wave.md5anim"), "{file}");
        let (speed, velocity) = ground_motion(anim);
        assert!(
            (velocity.iter().map(|v| v * v).sum::<f64>().sqrt() - speed).abs() < 1e-3,
            "{file}: {speed} {velocity:?}"
        );
    }
}

/// The impostor atlas `Model::load` makes: 16 directions on 3 rings, 12
/// frames of each clip in a slot per clip (one, the bind pose, without
/// clips), 32 texels a cell, an RGBA8 image of normals and depth and one of
/// colour for the one skin, each with 6 mip levels.
#[test]
fn meshes_report_their_impostor_atlas() {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mesh = assets.join("crowdling.md5mesh");
    let files: Vec<PathBuf> = std::iter::once(mesh.clone())
        .chain(["idle", "run", "walk", "wave"].map(|name| assets.join(format!("{name}.md5anim"))))
        .collect();
    let args: Vec<&std::ffi::OsStr> = files.iter().map(|p| p.as_os_str()).collect();
    let json = inspect_json(&args);
    // 4 slots (a clip each) of 1536 x 384 texels and their mips, 4 bytes
    // each, 2 images; 12 frames of every clip.
    assert_eq!(
        json[0]["impostor"],
        serde_json::json!({
            "views": 48,
            "frames": 48,
            "frames_per_clip": 12,
            "slots": 4,
            "bytes": 25_159_680
        })
    );
    // What the renderer bakes.
    let model = md5crowd::model::Model::load(&mesh, &files[1..], Default::default()).unwrap();
    let layout = model.impostor_layout(md5crowd::crowd::IMPOSTOR_MEMORY_BUDGET);
    assert_eq!(
        json[0]["impostor"],
        serde_json::json!({
            "views": layout.views(),
            "frames": layout.frames(),
            "frames_per_clip": layout.frames_per_clip,
            "slots": layout.slots,
            "bytes": layout.bytes(),
        })
    );
    let out = inspect(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "  impostor atlas: 48 views x 12 frames a clip, 4 clip(s) at once, 24.0 MiB\n"
        ),
        "{text}"
    );

    let alone = inspect_json(&[mesh.as_os_str()]);
    // No clip: one slot, its 12 rows all the bind pose.
    assert_eq!(
        alone[0]["impostor"],
        serde_json::json!({
            "views": 48,
            "frames": 12,
            "frames_per_clip": 12,
            "slots": 1,
            "bytes": 6_289_920
        })
    );
    // A clip of its own: 12 frames.
    let other = fixture("other.md5mesh", MESH);
    let anim = fixture("other_wave.md5anim", ANIM);
    let json = inspect_json(&[other.as_os_str(), anim.as_os_str()]);
    assert_eq!(json[0]["impostor"]["frames"], 12, "{}", json[0]);
}

/// An anim report's `ground_speed` and `ground_velocity`, which must be there.
fn ground_motion(anim: &serde_json::Value) -> (f64, Vec<f64>) {
    let speed = anim["ground_speed"]
        .as_f64()
        .unwrap_or_else(|| panic!("no ground_speed number in {anim}"));
    let velocity: Vec<f64> = anim["ground_velocity"]
        .as_array()
        .unwrap_or_else(|| panic!("no ground_velocity array in {anim}"))
        .iter()
        .map(|v| v.as_f64().expect("ground_velocity holds numbers"))
        .collect();
    assert_eq!(velocity.len(), 3, "{anim}");
    (speed, velocity)
}

#[test]
fn json_ground_speeds_of_the_shipped_clips() {
    // assets/README.md: a planted foot slides back at about 50 units/s in the
    // walk and 120 in the run; idle and wave stay on the spot.
    let expected = [("idle", 0.0), ("walk", 50.0), ("run", 120.0), ("wave", 0.0)];
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let paths: Vec<PathBuf> = expected
        .iter()
        .map(|(name, _)| assets.join(format!("{name}.md5anim")))
        .collect();
    let mut args: Vec<&std::ffi::OsStr> = vec!["--json".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    let out = inspect(&args);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, (name, speed)) in expected.iter().enumerate() {
        let (measured, velocity) = ground_motion(&json[i]);
        assert!(
            (measured - speed).abs() <= 0.1 * speed,
            "{name}: {measured} vs {speed}"
        );
        // The crowdling faces +X, and walks that way.
        assert!(velocity[0] >= 0.98 * measured, "{name}: {velocity:?}");
        assert_eq!(velocity[2], 0.0, "{name}");
    }
}

#[test]
fn a_root_that_travels_is_root_motion() {
    // The root slides 24 units along +Y over the clip's 2/24 s.
    let slide = ANIM
        .replace("numAnimatedComponents 1", "numAnimatedComponents 2")
        .replace("\"root\"\t-1 0 0", "\"root\"\t-1 2 0")
        .replace("\"hand\"\t0 32 0", "\"hand\"\t0 32 1")
        .replace("frame 0 { 0.7071068 }", "frame 0 { 0 0.7071068 }")
        .replace("frame 1 { 0.5 }", "frame 1 { 12 0.5 }")
        .replace("frame 2 { 0.7071068 }", "frame 2 { 24 0.7071068 }");
    let anim = fixture("slide.md5anim", &slide);
    let out = inspect(&["--json".as_ref(), anim.as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (speed, velocity) = ground_motion(&json[0]);
    assert!((speed - 288.0).abs() < 0.01, "{speed}");
    assert!((velocity[1] - 288.0).abs() < 0.01, "{velocity:?}");
    assert_eq!((velocity[0], velocity[2]), (0.0, 0.0));

    let out = inspect(&[anim.as_os_str()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("ground speed: 288.0 units/s along (0.00, 1.00, 0.00), root motion"),
        "{text}"
    );
}

#[test]
fn text_report_gives_the_ground_speed() {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let (walk, idle) = (assets.join("walk.md5anim"), assets.join("idle.md5anim"));
    let out = inspect(&[walk.as_os_str(), idle.as_os_str()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("ground speed: "))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains(" units/s along (1.00, 0.00, 0.00), from the feet"),
        "{text}"
    );
    assert!(lines[1].contains("ground speed: 0 (on the spot)"), "{text}");
}

#[test]
fn anims_say_whether_they_loop_by_name_or_by_their_poses() {
    // Neither name is in the rule's lists: the poses decide. ANIM's last
    // frame repeats its first; the other turns the hand 5 degrees a frame,
    // from 90 to 65: it ends 25 degrees (five steps) from where it began.
    let back = fixture("sway.md5anim", ANIM);
    let tilt_frames = [
        "0.7071068",
        "0.6755902",
        "0.6427876",
        "0.6087614",
        "0.5735764",
        "0.5372996",
    ]
    .iter()
    .enumerate()
    .map(|(f, qz)| format!("frame {f} {{ {qz} }}\n"))
    .collect::<String>();
    let away = fixture(
        "tilt.md5anim",
        &ANIM
            .replace("numFrames 3", "numFrames 6")
            .replace(
                "bounds {\n",
                &format!("bounds {{\n{}", "\t( -1 -1 -1 ) ( 1 1 1 )\n".repeat(3)),
            )
            .replace(
                "frame 0 { 0.7071068 }\nframe 1 { 0.5 }\nframe 2 { 0.7071068 }\n",
                &tilt_frames,
            ),
    );
    let death = fixture("death_2.md5anim", ANIM);
    let out = inspect(&[
        "--json".as_ref(),
        back.as_os_str(),
        away.as_os_str(),
        death.as_os_str(),
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loops: Vec<&serde_json::Value> = (0..3).map(|i| &json[i]["loops"]).collect();
    assert_eq!(loops, [true, false, false]);

    let out = inspect(&[back.as_os_str(), away.as_os_str()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(0.083 s, loops)"), "{text}");
    assert!(text.contains("(0.208 s, plays once)"), "{text}");
}

#[test]
fn a_loop_without_its_closing_frame_reports_the_time_it_plays() {
    // The hand swings 90, 70, 50, 70 degrees and back to 90 as the clip
    // wraps: four frames, four steps, as most exporters write cycles.
    let open = fixture(
        "swing.md5anim",
        &ANIM
            .replace("numFrames 3", "numFrames 4")
            .replace("bounds {\n", "bounds {\n\t( -1 -1 -1 ) ( 1 1 1 )\n")
            .replace(
                "frame 0 { 0.7071068 }\nframe 1 { 0.5 }\nframe 2 { 0.7071068 }\n",
                "frame 0 { 0.7071068 }\nframe 1 { 0.5735764 }\nframe 2 { 0.4226183 }\n\
                 frame 3 { 0.5735764 }\n",
            ),
    );
    let out = inspect(&["--json".as_ref(), open.as_os_str()]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["frames"], 4);
    assert_eq!(json[0]["loops"], true);
    let duration = json[0]["duration"].as_f64().unwrap();
    assert!((duration - 4.0 / 24.0).abs() < 1e-6, "{duration}");
    let text = String::from_utf8(inspect(&[open.as_os_str()]).stdout).unwrap();
    assert!(text.contains("(0.167 s, loops)"), "{text}");
}

#[test]
fn json_lods_of_a_one_triangle_mesh_are_lod_0_alone() {
    // Too small for a coarser level; the empty mesh adds its one empty level.
    let mesh = fixture("tiny.md5mesh", MESH);
    let out = inspect(&["--json".as_ref(), mesh.as_os_str()]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json[0]["lods"],
        serde_json::json!([{ "tris": 1, "error": 0.0 }])
    );
}

#[test]
fn a_mesh_whose_chain_stops_short_is_named_with_why() {
    // One triangle: LOD 0 alone, and the report says why; the empty mesh
    // has no chain to fall short of, nor has any of the shipped meshes.
    let mesh = fixture("tiny.md5mesh", MESH);
    let json = inspect_json(&[mesh.as_os_str()]);
    let note = "1 triangle, too few for levels of detail (10 at least)";
    assert_eq!(json[0]["meshes"][0]["lod_note"], note);
    assert!(json[0]["meshes"][1]["lod_note"].is_null());
    let text = String::from_utf8(inspect(&[mesh.as_os_str()]).stdout).unwrap();
    assert!(
        text.contains(&format!("    short LOD chain: {note}\n")),
        "{text}"
    );
    let shipped = shipped_character_json();
    for mesh in shipped["meshes"].as_array().unwrap() {
        assert!(mesh["lod_note"].is_null(), "{mesh}");
    }
}

fn shipped_character_json() -> serde_json::Value {
    let mesh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/crowdling.md5mesh");
    inspect_json(&[mesh.as_os_str()])[0].clone()
}

#[test]
fn json_lods_of_the_shipped_character_shrink_to_a_few_dozen_triangles() {
    let mesh = shipped_character_json();
    let lods = mesh["lods"].as_array().expect("lods is an array");
    assert!((2..=8).contains(&lods.len()), "{lods:?}");
    for lod in lods {
        let keys: Vec<&String> = lod.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["error", "tris"], "{lod}");
        assert!(lod["tris"].is_u64() && lod["error"].is_f64(), "{lod}");
    }
    let tris: Vec<u64> = lods.iter().map(|l| l["tris"].as_u64().unwrap()).collect();
    let errors: Vec<f64> = lods.iter().map(|l| l["error"].as_f64().unwrap()).collect();
    assert_eq!(tris[0], mesh["tris"].as_u64().unwrap(), "LOD 0 is the mesh");
    assert_eq!(errors[0], 0.0);
    assert!(tris.windows(2).all(|w| w[1] < w[0]), "{tris:?}");
    assert!(errors.windows(2).all(|w| w[1] >= w[0]), "{errors:?}");
    let last = *tris.last().unwrap();
    assert!(last * 10 <= tris[0] && last <= 96, "{tris:?}");
}

#[test]
fn text_report_shows_the_lod_chain() {
    let mesh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/crowdling.md5mesh");
    let out = inspect(&[mesh.as_os_str()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("LODs: "))
        .unwrap_or_else(|| panic!("no LODs line in {text}"));
    assert!(line.contains("LODs: 5920 tris, "), "{line}");
    let json = shipped_character_json();
    let levels = json["lods"].as_array().unwrap().len();
    assert_eq!(line.matches("(err ").count(), levels - 1, "{line}");
}

#[test]
fn the_body_parts_hold_every_joint_once_and_show_in_the_text() {
    let json = shipped_character_json();
    let parts: Vec<Vec<&str>> = json["body_parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["joints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j.as_str().unwrap())
                .collect()
        })
        .collect();
    // The trunk first, then the head, the arms and the legs.
    assert_eq!(parts.len(), 6, "{parts:?}");
    assert_eq!(
        parts[0],
        ["origin", "pelvis", "spine_1", "spine_2", "chest"]
    );
    assert!(parts.contains(&vec!["neck", "head"]), "{parts:?}");
    assert!(
        parts.contains(&vec!["l_clavicle", "l_upper_arm", "l_forearm", "l_hand"]),
        "{parts:?}"
    );
    assert!(
        parts.contains(&vec!["r_thigh", "r_calf", "r_foot", "r_toe"]),
        "{parts:?}"
    );
    let joints: usize = parts.iter().map(Vec::len).sum();
    assert_eq!(joints as u64, json["joints"].as_u64().unwrap());

    let mesh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/crowdling.md5mesh");
    let text = String::from_utf8(inspect(&[mesh.as_os_str()]).stdout).unwrap();
    assert!(
        text.contains("body parts (occlusion boxes): 6: origin (+4), "),
        "{text}"
    );
}

#[test]
fn json_influences_per_level_follow_the_anims_named() {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mesh = assets.join("crowdling.md5mesh");
    let report = |anims: &[&str]| {
        let anims: Vec<PathBuf> = anims.iter().map(|a| assets.join(a)).collect();
        let mut files = vec![mesh.as_os_str()];
        files.extend(anims.iter().map(|a| a.as_os_str()));
        let json = inspect_json(&files);
        let counts: Vec<u64> = json[0]["lod_influences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(counts.len(), json[0]["lods"].as_array().unwrap().len());
        (counts, json[0]["lod_anims"].as_u64().unwrap())
    };
    // Alone: the bind pose, where one joint per vertex is exact everywhere.
    let (alone, anims) = report(&[]);
    assert_eq!(anims, 0);
    assert!(alone.iter().all(|&c| c == 1), "{alone:?}");
    // With its clips: LOD 0 keeps all 4, coarser levels no more than finer
    // ones, the coarsest one.
    let clips = [
        "walk.md5anim",
        "run.md5anim",
        "idle.md5anim",
        "wave.md5anim",
    ];
    let (posed, anims) = report(&clips);
    assert_eq!(anims, 4);
    assert_eq!(posed[0], 4, "{posed:?}");
    assert_eq!(*posed.last().unwrap(), 1, "{posed:?}");
    assert!(posed.windows(2).all(|w| w[1] <= w[0]), "{posed:?}");
}
