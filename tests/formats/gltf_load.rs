//! The glTF loader against files written the way exporters write them
//! (tests/common/gltf_fixtures.rs builds each byte by byte, and works out
//! what md5crowd must make of it without reading it back), the shipped
//! Khronos fox, mutated files, and the command line.

use crate::common;

use glam::{Quat, Vec3};
use md5crowd::anim::{local_to_model, sample_clip, JointPose};
use md5crowd::crowd::SplitMix64;
use md5crowd::gltf::{GltfError, GltfFile};
use md5crowd::material::{map_texels, MapKind, ShadingModel};
use md5crowd::model::{LoadOptions, Model};
use md5crowd::skin::{InfluenceLimit, SkinnedMesh};
use md5crowd::vfs::GameFile;

use common::gltf_fixtures::{self as fixtures, bad};
use common::md5_to_gltf::{model_to_gltf, write_shipped_glb, ConvertOptions};

fn load_bytes(name: &str, bytes: &[u8], options: &LoadOptions) -> Result<Model, GltfError> {
    let file = GltfFile::from_bytes(name, bytes, None)?;
    Model::from_gltf(&file, &GameFile::loose(name), options)
}

fn load(name: &str, bytes: &[u8]) -> Model {
    load_bytes(name, bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn fox() -> std::path::PathBuf {
    common::assets().join("gltf/Fox.glb")
}

/// Every vertex of `model` (welded and reordered at load: compared as
/// sets), in the bind pose or skinned by `pose` (model space per joint).
pub(super) fn vertices(model: &Model, pose: Option<&[JointPose]>) -> Vec<Vec3> {
    let skin = |mesh: &SkinnedMesh, v: usize| -> Vec3 {
        let p = mesh.positions[v];
        let Some(pose) = pose else { return p };
        (0..mesh.limit.count())
            .map(|k| {
                let j = mesh.joints[v][k] as usize;
                let transform = pose[j].then(model.skeleton.inverse_bind_pose[j]);
                transform.transform_point(p) * mesh.weights[v][k]
            })
            .sum()
    };
    model
        .meshes
        .iter()
        .flat_map(|m| (0..m.vertex_count()).map(move |v| skin(m, v)))
        .collect()
}

/// Which of the file's vertices (`file`, in md5 units) the loaded vertex
/// at `p` is: loading welds and reorders them.
fn file_vertex(file: &[Vec3], p: Vec3) -> usize {
    file.iter()
        .position(|e| e.distance(p) < 1e-3)
        .unwrap_or_else(|| panic!("no vertex of the file at {p}"))
}

/// The largest distance from an expected point to the nearest of `got`.
pub(super) fn worst_match(expected: &[Vec3], got: &[Vec3]) -> f32 {
    expected
        .iter()
        .map(|e| {
            got.iter()
                .map(|g| g.distance(*e))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
}

/// Model-space joint poses of clip `clip` at `time` seconds into it.
pub(super) fn model_pose(model: &Model, clip: &str, time: f32) -> Vec<JointPose> {
    let clip = model.clips.iter().find(|c| c.name == clip).expect("clip");
    let mut local = vec![JointPose::IDENTITY; model.skeleton.joint_count()];
    sample_clip(clip, time, &mut local);
    let mut posed = local.clone();
    local_to_model(&model.skeleton.parents, &local, &mut posed);
    posed
}

fn joint(model: &Model, name: &str) -> usize {
    model
        .skeleton
        .names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no joint {name} in {:?}", model.skeleton.names))
}

/// A Blender export: the armature node rotates the Z-up, centimetre rig
/// upright and scales it to metres, and the inverse bind matrices leave
/// it out. The character stands where glTF skinning puts it, in md5
/// units, in its bind pose and animated.
#[test]
fn a_blender_style_armature_stands_upright_at_its_real_size() {
    let expected = fixtures::blender_style();
    let model = load("blender.glb", &expected.glb);
    let names: Vec<usize> = expected
        .joint_names
        .iter()
        .map(|n| joint(&model, n))
        .collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "parents first");
    for (&j, origin) in names.iter().zip(&expected.joint_origins_md5) {
        let got = model.skeleton.bind_pose[j].translation;
        assert!(got.distance(*origin) < 1e-3, "joint {j}: {got} != {origin}");
    }
    let bind = worst_match(&expected.bind_positions_md5, &vertices(&model, None));
    assert!(bind < 1e-3, "bind pose off by {bind}");
    let pose = model_pose(&model, "wave", expected.wave_time);
    let waved = worst_match(&expected.wave_positions_md5, &vertices(&model, Some(&pose)));
    println!("blender style: bind pose within {bind:e}, wave at 0.5 s within {waved:e} units");
    assert!(waved < 1e-2, "waved pose off by {waved}");
    let clip = &model.clips[0];
    assert!((clip.duration() - expected.wave_duration).abs() < 1e-4);
}

/// CUBICSPLINE rotation keys at irregular times, starting at 0.25 s: the
/// clip starts at the first key and, played back as md5crowd plays clips
/// (frames blended by normalized lerp), stays within a measured angle of
/// the specification's Hermite spline everywhere.
#[test]
fn cubic_spline_rotations_are_sampled_within_a_measured_error() {
    let expected = fixtures::cubic_rotation();
    let model = load("cubic.glb", &expected.glb);
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == expected.animation)
        .unwrap();
    let start = expected.times[0];
    let end = *expected.times.last().unwrap();
    assert!(
        (clip.duration() - (end - start)).abs() < 1e-4,
        "from the first key to the last"
    );
    assert_eq!(
        clip.frame_rate.round(),
        60.0,
        "cubic keys sample at 60 a second"
    );
    let spinner = joint(&model, expected.joint);
    let mut local = vec![JointPose::IDENTITY; model.skeleton.joint_count()];
    let mut worst = 0f32;
    for step in 0..=1000 {
        let t = start + (end - start) * step as f32 / 1000.0;
        sample_clip(clip, t - start, &mut local);
        let got: Quat = local[spinner].rotation;
        let want = expected.gltf_rotation(t);
        worst = worst.max(got.angle_between(want).to_degrees());
    }
    println!(
        "cubic spline sampled at {:.1} fps: worst {worst:.4} degrees",
        clip.frame_rate
    );
    assert!(worst < 0.25, "{worst} degrees");
    // Held, not extrapolated, at the ends.
    sample_clip(clip, 0.0, &mut local);
    assert!(
        local[spinner]
            .rotation
            .angle_between(expected.gltf_rotation(start))
            < 1e-3
    );
}

/// A sparse POSITION over a base buffer view, and sparse JOINTS_0 and a
/// morph target with no buffer view at all.
#[test]
fn sparse_accessors_replace_what_they_name() {
    let expected = fixtures::sparse_positions();
    let model = load("sparse.glb", &expected.glb);
    let got = vertices(&model, None);
    let worst = worst_match(&expected.positions_md5, &got);
    assert!(worst < 1e-3, "positions off by {worst}");
    assert_eq!(got.len(), expected.positions_md5.len());
    // Vertices 3, 4 and 5 hang on the skin's second joint, the others on
    // its first.
    let mesh = &model.meshes[0];
    for (v, p) in mesh.positions.iter().enumerate() {
        let file_vertex = file_vertex(&expected.positions_md5, *p);
        // The fixture's skin lists its joints parents first, as
        // md5crowd orders them.
        let skin_joint = expected.joints[file_vertex][0] as usize;
        assert_eq!(
            mesh.joints[v][0] as usize, skin_joint,
            "vertex {file_vertex}"
        );
    }
}

/// JOINTS_0/WEIGHTS_0 (u16) and JOINTS_1/WEIGHTS_1 (u8): 8 influences,
/// kept with `--influences 8`, renormalized where the file's sum is 0.6
/// or 1.4, and quantized to 1/255.
#[test]
fn eight_influences_in_two_sets_are_kept_and_renormalized() {
    let expected = fixtures::eight_influences();
    let options = LoadOptions {
        influences: InfluenceLimit::Eight,
        unwelded: true,
        ..LoadOptions::default()
    };
    let model = load_bytes("eight.glb", &expected.glb, &options).unwrap();
    let mesh = &model.meshes[0];
    assert_eq!(mesh.truncation.max_influences, 8);
    for (v, p) in mesh.positions.iter().enumerate() {
        let file_vertex = file_vertex(&expected.positions_md5, *p);
        let total: f32 = mesh.weights[v].iter().sum();
        assert!(
            (total - 1.0).abs() < 1e-6,
            "vertex {file_vertex} sums to {total}"
        );
        for k in 0..8 {
            let name = &model.skeleton.names[mesh.joints[v][k] as usize];
            let slot = expected.joints[file_vertex]
                .iter()
                .position(|&j| model.skeleton.names[j as usize] == *name)
                .unwrap_or_else(|| panic!("vertex {file_vertex}: {name} is not one of its joints"));
            let want = expected.weights[file_vertex][slot];
            let got = mesh.weights[v][k];
            assert!(
                (got - want).abs() <= 1.0 / 255.0,
                "vertex {file_vertex} {name}: {got} != {want}"
            );
        }
    }
    // Four influences keep the four largest, renormalized.
    let four = load("eight.glb", &expected.glb);
    assert_eq!(four.meshes[0].truncation.max_influences, 8);
    assert!(four.meshes[0].truncation.truncated_vertices > 0);
}

/// A .gltf naming its .bin and its PNG beside it (one with a space,
/// percent-encoded), and a .glb with one PNG in a buffer view and one in
/// a data URI: each mesh draws its own image.
#[test]
fn images_come_from_files_buffer_views_and_data_uris() {
    let dir = common::scratch_dir("gltf_external");
    let external = fixtures::external_files(&dir);
    let model =
        Model::load_gltf(&GameFile::loose(&external.gltf), &LoadOptions::default()).unwrap();
    let worst = worst_match(&external.positions_md5, &vertices(&model, None));
    assert!(worst < 1e-3, "{worst}");
    let diffuse = model.materials.maps[0].diffuse.as_ref().unwrap();
    assert_eq!(
        &diffuse.bytes[..],
        &std::fs::read(&external.png).unwrap()[..]
    );
    assert!(diffuse.file.ends_with("quad skin.png"), "{}", diffuse.file);
    assert!(
        model.materials.warnings.is_empty(),
        "{:?}",
        model.materials.warnings
    );

    let embedded = fixtures::embedded_images();
    let model = load("embedded.glb", &embedded.glb);
    assert_eq!(model.materials.maps.len(), 2);
    for (mesh, image) in embedded.images.iter().enumerate() {
        let maps = &model.materials.maps[model.materials.of_mesh[mesh][0]];
        let bytes = &maps.diffuse.as_ref().unwrap().bytes;
        let decoded = image::load_from_memory(bytes).unwrap().to_rgba8();
        assert_eq!(&decoded, image, "mesh {mesh}");
    }
}

/// A missing image is a warning and glTF's default (the factor alone), not
/// an error.
#[test]
fn a_missing_image_is_a_warning() {
    let dir = common::scratch_dir("gltf_missing_image");
    let external = fixtures::external_files(&dir);
    std::fs::remove_file(&external.png).unwrap();
    let model =
        Model::load_gltf(&GameFile::loose(&external.gltf), &LoadOptions::default()).unwrap();
    let diffuse = model.materials.maps[0].diffuse.as_ref().unwrap();
    assert!(diffuse.bytes.is_empty(), "the factor alone");
    assert_eq!(
        model.materials.warnings.len(),
        1,
        "{:?}",
        model.materials.warnings
    );
    assert!(model.materials.warnings[0].contains("quad skin.png"));
}

/// The Khronos fox as Blender re-exports it: 24 joints, three clips named
/// after its animations at the keys' 24 a second, standing on the ground
/// (Z up) and walking forward (+X), its real size in md5 units.
#[test]
fn the_fox_loads_upright_facing_forward() {
    let model = Model::load_gltf(&GameFile::loose(fox()), &LoadOptions::default()).unwrap();
    assert_eq!(model.skeleton.joint_count(), 24);
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Run", "Survey", "Walk"]);
    for clip in &model.clips {
        assert!(
            (clip.frame_rate - 24.0).abs() < 0.05,
            "{} at {}",
            clip.name,
            clip.frame_rate
        );
    }
    let bounds = model.bind_pose_bounds();
    let size = bounds.max - bounds.min;
    assert!(size.z > size.y, "taller than wide: {size}");
    assert!(
        bounds.min.z.abs() < 0.05 * size.z,
        "feet on the ground: {bounds:?}"
    );
    // 79 glTF metres from nose to tail tip... as the file says.
    assert!((size.x / 39.37 - 154.7).abs() < 2.0, "{}", size.x / 39.37);
    let walk = model.clips.iter().position(|c| c.name == "Walk").unwrap();
    let velocity = model.ground_motion[walk].velocity;
    assert!(
        velocity.x > 0.9 * velocity.length(),
        "walks along +X: {velocity}"
    );
}

/// Mutated .glb files, as shipped and as optimizers write them (quantized,
/// meshopt-compressed, Draco): every one loads or is an error naming the
/// file, never a panic.
#[test]
fn mutated_files_are_errors_never_panics() {
    let files = [
        (fox(), 400),
        (optimized("Fox.gltfpack.glb"), 150),
        (optimized("Fox.gltfpack-cc.glb"), 150),
        (optimized("Fox.draco.glb"), 150),
    ];
    for (seed, (path, rounds)) in files.iter().enumerate() {
        let original = std::fs::read(path).unwrap();
        let (loaded, refused) = load_mutated(&original, *rounds, 40 + seed as u64);
        println!(
            "mutated {}: {loaded} loaded, {refused} refused",
            path.display()
        );
        assert!(
            refused > rounds / 8 && loaded > rounds / 8,
            "{loaded} {refused}"
        );
    }
}

/// `rounds` mutations of `original`, loaded: how many loaded, how many
/// were refused.
fn load_mutated(original: &[u8], rounds: usize, seed: u64) -> (usize, usize) {
    let json_end = 20 + u32::from_le_bytes(original[12..16].try_into().unwrap()) as usize;
    let mut random = SplitMix64(seed);
    let (mut loaded, mut refused) = (0, 0);
    for round in 0..rounds {
        let mut bytes = original.to_vec();
        match round % 4 {
            // A digit of the JSON changed: counts, offsets, indices.
            0 | 1 => {
                let digits: Vec<usize> = (20..json_end)
                    .filter(|&i| bytes[i].is_ascii_digit())
                    .collect();
                for _ in 0..1 + random.below(3) {
                    let at = digits[random.below(digits.len() as u32) as usize];
                    bytes[at] = b'0' + random.below(10) as u8;
                }
            }
            // Bytes of the binary chunk (keys, weights, matrices,
            // compressed streams) changed.
            2 => {
                for _ in 0..8 {
                    let at = json_end + random.below((bytes.len() - json_end) as u32) as usize;
                    bytes[at] = random.below(256) as u8;
                }
            }
            _ => bytes.truncate(random.below(bytes.len() as u32) as usize),
        }
        match load_bytes("mutated.glb", &bytes, &LoadOptions::default()) {
            Ok(_) => loaded += 1,
            Err(error) => {
                assert!(error.to_string().starts_with("mutated.glb: "), "{error}");
                refused += 1;
            }
        }
    }
    (loaded, refused)
}

/// Bad input: one line naming the file and where in it, exit code 2.
#[test]
fn bad_files_are_one_line_errors_with_exit_code_2() {
    let dir = common::scratch_dir("gltf_bad");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let (past_view, accessor) = bad::accessor_past_view();
    let accessor_path = format!("accessors[{accessor}]");
    let cases: Vec<(std::path::PathBuf, Vec<&str>)> = vec![
        (
            write("truncated.glb", &bad::truncated_glb()),
            vec!["truncated.glb: ", "truncated"],
        ),
        (
            write("short.glb", &bad::glb_length_under_header()),
            vec!["short.glb: ", "truncated"],
        ),
        (
            write("past.glb", &past_view),
            vec!["past.glb: ", &accessor_path, "past"],
        ),
        (
            write("dangling.glb", &bad::dangling_skin_joint()),
            vec!["dangling.glb: ", "skins[0].joints[1]"],
        ),
        (
            write("joint.glb", &bad::joint_index_past_skin()),
            vec!["joint.glb: ", "meshes[0].primitives[0]", "joint 5"],
        ),
        (
            write("nan.glb", &bad::nan_inverse_bind_matrix()),
            vec!["nan.glb: ", "inverseBindMatrices", "not finite"],
        ),
        (
            bad::missing_bin(&dir),
            vec!["no_bin.gltf: ", "buffers[0].uri", "no_bin.bin"],
        ),
    ];
    for (path, message) in &cases {
        let output = common::md5crowd_as_typed(&["inspect", common::arg(path)]);
        common::assert_bad_input(&output, message);
        let output = common::md5crowd_as_typed(&[
            common::arg(path),
            "--headless",
            "--screenshot",
            "/dev/null",
        ]);
        common::assert_bad_input(&output, message);
    }
}

/// `inspect FILE.glb --json`: the md5 objects' shape, the format said.
#[test]
fn inspect_reports_a_gltf_file_as_md5_objects() {
    let output = common::md5crowd_as_typed(&["inspect", common::arg(&fox()), "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reports: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 4);
    let mesh = &reports[0];
    assert_eq!(mesh["kind"], "mesh");
    assert_eq!(mesh["format"], "gltf");
    assert_eq!(mesh["joints"], 24);
    assert_eq!(mesh["tris"], 576);
    assert_eq!(mesh["max_influences"], 4);
    assert!(mesh["impostor"]["bytes"].as_u64().unwrap() > 0);
    for (anim, name) in reports[1..].iter().zip(["Run", "Survey", "Walk"]) {
        assert_eq!(anim["kind"], "anim");
        assert_eq!(anim["name"], name);
        assert!(anim["duration"].as_f64().unwrap() > 0.5);
        assert_eq!(anim["loops"], true);
    }
}

/// A glTF file takes no .md5anim and no id Tech skin.
#[test]
fn md5_clips_and_skins_are_refused_for_a_gltf_model() {
    let walk = common::assets().join("walk.md5anim");
    let output =
        common::md5crowd_as_typed(&[common::arg(&fox()), common::arg(&walk), "--headless"]);
    common::assert_bad_input(&output, &["Fox.glb", "plays its own animations"]);
    let output = common::md5crowd_as_typed(&[common::arg(&fox()), "--skin", "x", "--headless"]);
    common::assert_bad_input(&output, &["skins are id Tech declarations"]);
}

/// The shipped character written as a .glb by our converter
/// (tests/common/md5_to_gltf.rs: glTF space, metres, counter-clockwise,
/// its clips as LINEAR keys) renders as the md5 files do, each with its
/// diffuse images alone (the md5 copy sits where no .mtr is found: Doom
/// 3's implicit materials).
#[test]
fn the_same_character_as_gltf_and_as_md5_renders_alike() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("gltf_vs_md5");
    let md5_dir = dir.join("md5");
    std::fs::create_dir_all(md5_dir.join("textures")).unwrap();
    let assets = common::assets();
    let mut md5_files = Vec::new();
    for file in [
        "crowdling.md5mesh",
        "idle.md5anim",
        "run.md5anim",
        "walk.md5anim",
        "wave.md5anim",
    ] {
        std::fs::copy(assets.join(file), md5_dir.join(file)).unwrap();
        md5_files.push(md5_dir.join(file).display().to_string());
    }
    for image in ["crowdling_body.png", "crowdling_head.png"] {
        std::fs::copy(
            assets.join("textures").join(image),
            md5_dir.join("textures").join(image),
        )
        .unwrap();
    }
    let glb = write_shipped_glb(&common::shipped_model(), &dir)
        .display()
        .to_string();
    for (clip, time) in [
        ("walk", "0.4"),
        ("wave", "1.3"),
        ("idle", "2.0"),
        ("run", "0.25"),
    ] {
        let pose = [
            "--clip",
            clip,
            "--time",
            time,
            "--locomotion",
            "off",
            "--ground",
            "off",
            "--lod",
            "off",
        ];
        let md5_args: Vec<&str> = md5_files.iter().map(String::as_str).chain(pose).collect();
        let gltf_args: Vec<&str> = std::iter::once(glb.as_str()).chain(pose).collect();
        let md5 = common::render(&dir, &format!("{clip}_md5"), &md5_args);
        let gltf = common::render(&dir, &format!("{clip}_gltf"), &gltf_args);
        let covered = common::covered_pixels(&md5).max(common::covered_pixels(&gltf));
        // The glTF copy is shaded with the metallic-roughness BRDF, whose
        // hemisphere ambient and Fresnel move a pixel up to about 30 levels
        // from Doom 3's Lambert: a pose, mesh or texture off moves more.
        let differing = common::differing_pixels(&md5, &gltf, 40);
        let fraction = differing as f64 / covered as f64;
        println!("{clip} at {time} s: {differing} of {covered} pixels differ ({fraction:.4})");
        assert!(covered > 1000, "{clip}: nothing drawn");
        assert!(
            fraction <= 0.01,
            "{clip}: {fraction:.4} of the pixels differ"
        );
    }
}

/// A mesh without a skin under a joint moves rigidly with that joint, its
/// own node's offset and turn kept.
#[test]
fn a_rigid_part_moves_with_its_joint() {
    let expected = fixtures::rigid_part();
    let model = load("rigid.glb", &expected.glb);
    assert_eq!(model.meshes.len(), 2, "the skinned body and the shield");
    let got = vertices(&model, None);
    let bind = worst_match(&expected.bind_md5, &got);
    let pose = model_pose(&model, "swing", expected.time);
    let swung = worst_match(&expected.swung_md5, &vertices(&model, Some(&pose)));
    println!("rigid part: bind within {bind:e}, swung within {swung:e} units");
    assert!(bind < 1e-3 && swung < 1e-2, "{bind} {swung}");
    let shield = model.meshes.iter().find(|m| m.vertex_count() == 3).unwrap();
    let top = joint(&model, "top");
    assert!(shield.joints.iter().all(|j| j[0] as usize == top));
    assert!(shield.weights.iter().all(|w| w[0] == 1.0));
}

/// A file without a skin: each node holding a mesh is a joint, and node
/// animations play.
#[test]
fn a_model_without_a_skin_plays_its_node_animations() {
    let expected = fixtures::node_animated();
    let model = load("robot.glb", &expected.glb);
    assert_eq!(model.skeleton.names, ["base", "arm"]);
    let rest = worst_match(&expected.arm_rest_md5, &vertices(&model, None));
    let pose = model_pose(&model, "lift", expected.time);
    let lifted = worst_match(&expected.arm_lifted_md5, &vertices(&model, Some(&pose)));
    assert!(rest < 1e-3 && lifted < 1e-2, "{rest} {lifted}");
}

/// The same robot through gltfpack: the dequantizing scale it puts in new
/// nodes above the meshes comes out right, at rest and lifted.
#[test]
fn a_quantized_model_without_a_skin_draws_as_its_source() {
    let expected = fixtures::node_animated();
    let name = "robot.gltfpack.glb";
    let model = load(name, &std::fs::read(optimized(name)).unwrap());
    let rest = worst_match(&expected.arm_rest_md5, &vertices(&model, None));
    let pose = model_pose(&model, "lift", expected.time);
    let lifted = worst_match(&expected.arm_lifted_md5, &vertices(&model, Some(&pose)));
    println!("{name}: at rest within {rest:e}, lifted within {lifted:e} units");
    assert!(rest < 0.01 && lifted < 0.05, "{rest} {lifted}");
}

/// Scale a rigid joint cannot carry is a warning naming the joint and the
/// clip, uniform or not; the file still loads.
#[test]
fn joint_scale_that_cannot_be_folded_is_a_warning() {
    let dir = common::scratch_dir("gltf_scale");
    let path = dir.join("scaled.glb");
    std::fs::write(&path, fixtures::scaled_joints()).unwrap();
    let output = common::md5crowd_as_typed(&["inspect", common::arg(&path)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines_with = |text: &str| stderr.lines().filter(|l| l.contains(text)).count();
    assert_eq!(
        lines_with("uniform scale on 1 joint in 1 clip, largest x2.000: joint top in \"grow\""),
        1,
        "{stderr}"
    );
    assert_eq!(
        lines_with(
            "non-uniform scale on 2 joints in 1 clip, largest (1.000, 2.000, 1.000): joint top \
             in \"stretch\"; drawn without it"
        ),
        1,
        "{stderr}"
    );
    assert_eq!(
        lines_with("non-uniform scale in the rest pose (in proportion) on 2 joints, largest ("),
        1,
        "{stderr}"
    );
    // Each joint and clip is listed at debug level only.
    assert_eq!(lines_with(": joint root: "), 0, "{stderr}");
}

/// glTF and md5 characters in one crowd from the command line, and in
/// `bench`: `--mix` names the .glb by its stem, `--clip` a glTF
/// animation's name.
#[test]
fn a_gltf_model_joins_an_md5_crowd_and_the_bench() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("gltf_mixed");
    let assets = common::assets();
    let fox = fox();
    let args = [
        common::arg(&fox),
        common::arg(&assets),
        "--instances",
        "40",
        "--mix",
        "Fox:3",
    ];
    let (image, log) = common::render_with_log(&dir, "mixed", &args);
    assert!(common::covered_pixels(&image) > 500, "something is drawn");
    assert!(log.contains("2 model(s), 40 instance(s)"), "{log}");
    assert!(
        log.contains("model 1: ")
            && log.contains("Fox.glb, 24 joints, 1 meshes, 576 triangles")
            && log.contains("3 clip(s) (Run, Survey, Walk)")
            && log.contains("30 instance(s)"),
        "{log}"
    );
    assert!(
        log.contains("crowdling.md5mesh, 23 joints") && log.contains("10 instance(s)"),
        "{log}"
    );
    let mut picked = args.to_vec();
    picked.extend(["--clip", "Survey"]);
    let (_, log) = common::render_with_log(&dir, "picked", &picked);
    assert!(log.contains("validation: no warnings, no errors"), "{log}");

    let json = dir.join("bench.json");
    let report = common::bench_report(
        &[
            common::arg(&fox),
            "--instances",
            "256",
            "--modes",
            "gpu",
            "--frames",
            "2",
            "--rounds",
            "1",
        ],
        &json,
    );
    let runs = report["runs"].as_array().expect("runs");
    assert!(!runs.is_empty(), "{report}");
}

/// A character with many joints and clips, as glTF: the generated 85-joint
/// subject in 20 meshes, its two clips and four variations of them
/// (slower, reversed), written by the test converter and loaded back
/// whole. The file stays in the test's folder
/// (`target/tmp/render_tests/gltf_many/P85.glb`) for the load-time figure
/// in docs/performance.md.
#[test]
fn a_many_joint_character_with_six_animations_round_trips() {
    let dir = common::scratch_dir("gltf_many");
    let written = common::many_joints::write_many_parts(&dir.join("md5"), 85, 20, 20.0).unwrap();
    let mut model = Model::load(&written.mesh, &written.anims, InfluenceLimit::Four).unwrap();
    let originals = model.clips.clone();
    for clip in &originals {
        let mut slow = clip.clone();
        slow.name = format!("{}_slow", clip.name);
        slow.frame_rate /= 2.0;
        let mut reversed = clip.clone();
        reversed.name = format!("{}_reversed", clip.name);
        reversed.frames.reverse();
        model.clips.extend([slow, reversed]);
    }
    let converted = model_to_gltf(&model, &ConvertOptions::default());
    let path = converted.gltf.write_glb(&dir, "P85");
    let loaded = Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap();
    assert_eq!(loaded.skeleton.joint_count(), 85);
    assert_eq!(loaded.meshes.len(), 20);
    let names: Vec<&str> = loaded.clips.iter().map(|c| c.name.as_str()).collect();
    let expected: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, expected);
    // Every clip's pose, a third of the way in, as the md5 model's.
    for clip in &model.clips {
        let time = clip.duration() / 3.0;
        let want = model_pose(&model, &clip.name, time);
        let got = model_pose(&loaded, &clip.name, time);
        // Joints by name: the loader orders them as the node tree does.
        let worst = want
            .iter()
            .zip(&model.skeleton.names)
            .map(|(a, name)| {
                a.translation
                    .distance(got[joint(&loaded, name)].translation)
            })
            .fold(0.0, f32::max);
        assert!(worst < 0.05, "{}: joints off by {worst} units", clip.name);
    }
}

/// The first texel of `map` (of `kind`) as decoded for the GPU.
fn first_texel(map: Option<&md5crowd::material::ImageBytes>, kind: MapKind) -> [u8; 4] {
    let texels = map_texels(map, kind, 4096, false);
    texels.levels[0][..4].try_into().unwrap()
}

/// baseColorFactor alone, a JPEG base colour, a normal texture,
/// metallicRoughness as a texture and as factors, no material at all, and
/// a primitive without indices.
#[test]
fn materials_of_every_kind_become_the_three_maps() {
    let expected = fixtures::material_kinds();
    let model = load("materials.glb", &expected.glb);
    let maps_of = |name: &str| {
        let mesh = model
            .meshes
            .iter()
            .position(|m| m.shader == name)
            .unwrap_or_else(|| panic!("no mesh drawn with {name}"));
        &model.materials.maps[model.materials.of_mesh[mesh][0]]
    };
    // Factors alone: one texel of them (sRGB-encoded base colour), and
    // roughness 0 in green, metallic 1 in blue.
    let factors = maps_of("factors");
    assert_eq!(
        first_texel(factors.diffuse.as_ref(), MapKind::Diffuse),
        [188, 137, 255, 255]
    );
    assert!(factors.normal.is_none());
    assert_eq!(
        first_texel(factors.specular.as_ref(), MapKind::Specular),
        [255, 0, 255, 255]
    );
    assert_eq!(factors.shading.model, ShadingModel::MetallicRoughness);
    // Textures: the JPEG decodes near its source, the normal map is the
    // file's, blue 255 and green 0 (a smooth metal) kept as they are.
    let textured = maps_of("textured");
    let jpeg = map_texels(textured.diffuse.as_ref(), MapKind::Diffuse, 4096, false);
    assert!(!jpeg.is_default, "{:?}", jpeg.warnings);
    let error: f64 = jpeg.levels[0]
        .chunks_exact(4)
        .zip(expected.jpeg_source.pixels())
        .map(|(got, want)| {
            (0..3)
                .map(|c| (f64::from(got[c]) - f64::from(want[c])).abs())
                .sum::<f64>()
        })
        .sum::<f64>()
        / (64.0 * 3.0);
    assert!(
        error < 12.0,
        "the JPEG decodes {error} levels off on average"
    );
    assert_eq!(
        &textured.normal.as_ref().unwrap().bytes[..],
        &expected.normal_png[..]
    );
    assert_eq!(
        first_texel(textured.specular.as_ref(), MapKind::Specular),
        [255, 0, 255, 255]
    );
    // No material: white, and glTF's default metallic 1 and roughness 1.
    let plain = maps_of("default material");
    assert_eq!(
        first_texel(plain.diffuse.as_ref(), MapKind::Diffuse),
        [255, 255, 255, 255]
    );
    assert_eq!(
        first_texel(plain.specular.as_ref(), MapKind::Specular),
        [255, 255, 255, 255]
    );
    let unindexed = model
        .meshes
        .iter()
        .find(|m| m.shader == "default material")
        .unwrap();
    assert_eq!(unindexed.triangle_count(), 2);
}

/// Exporter sloppiness is logged once, with counts: weights that do not
/// sum to 1. Morph targets are read, not warned about.
#[test]
fn renormalized_weights_are_a_warning_and_morph_targets_none() {
    let dir = common::scratch_dir("gltf_warnings");
    let eight = dir.join("eight.glb");
    std::fs::write(&eight, fixtures::eight_influences().glb).unwrap();
    let sparse = dir.join("sparse.glb");
    std::fs::write(&sparse, fixtures::sparse_positions().glb).unwrap();
    let output = common::md5crowd_as_typed(&["inspect", common::arg(&eight), common::arg(&sparse)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let renormalized: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("renormalized"))
        .collect();
    assert_eq!(renormalized.len(), 1, "{stderr}");
    assert!(
        renormalized[0].contains("2 vertices' weights summed to between 0.6"),
        "{stderr}"
    );
    assert!(renormalized[0].contains("and 1.4"), "{stderr}");
    assert!(!stderr.contains("morph"), "{stderr}");
}

/// A count the file merely claims sizes nothing: an accessor without a
/// buffer view (zeros and sparse values) claiming two billion positions is
/// refused before anything is allocated for them.
#[test]
fn a_claimed_count_without_data_is_refused() {
    let glb = fixtures::sparse_positions().glb;
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    let bin = &glb[bad::bin_data_start(&glb)..];
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap();
    let accessor = &mut json["accessors"][position as usize];
    accessor.as_object_mut().unwrap().remove("bufferView");
    accessor["count"] = serde_json::json!(2_000_000_000u64);
    let error = load_bytes(
        "claimed.glb",
        &bad::glb_of(&json, Some(bin)),
        &LoadOptions::default(),
    )
    .expect_err("refused");
    assert_eq!(error.path, format!("accessors[{position}]"), "{error}");
    assert!(error.message.contains("taken on trust"), "{error}");
}

/// A skin without joints has nothing to move its vertices: refused.
#[test]
fn a_skin_without_joints_is_refused() {
    let glb = fixtures::rigid_part().glb;
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    let bin = &glb[bad::bin_data_start(&glb)..];
    json["skins"][0]["joints"] = serde_json::json!([]);
    json["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("inverseBindMatrices");
    let error = load_bytes(
        "jointless.glb",
        &bad::glb_of(&json, Some(bin)),
        &LoadOptions::default(),
    )
    .expect_err("refused");
    assert!(error.path.starts_with("skins[0]"), "{error}");
}

/// Two skins sharing a joint, one mesh drawn by both, no animation
/// (Animation_Skin_07, Instancing_08 and Animation_Skin_00's rest pose,
/// in small): one skeleton with the shared joint once, both instances
/// drawn, and the clip "rest" poses them as glTF draws them.
#[test]
fn every_skin_is_drawn_in_its_rest_pose() {
    let expected = fixtures::two_skins();
    let model = load("two_skins.glb", &expected.glb);
    let mut names = model.skeleton.names.clone();
    names.sort();
    assert_eq!(names, ["left", "right", "root"]);
    assert_eq!(model.meshes.len(), 2, "both instances drawn");
    let clips: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(clips, ["rest"]);
    let pose = model_pose(&model, "rest", 0.0);
    let rest = worst_match(&expected.rest_md5, &vertices(&model, Some(&pose)));
    println!("two skins: rest pose within {rest:e} units");
    assert!(rest < 1e-3, "rest pose off by {rest}");
}

fn optimized(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gltf")
        .join(name)
}

/// Seconds to open `bytes` (document, buffers, decoding) and to load the
/// model from them (all of `Model::from_gltf`), the fastest of 9 runs
/// each: the figures docs/performance.md quotes.
fn load_seconds(name: &str, bytes: &[u8]) -> (f64, f64) {
    let fastest = |run: &dyn Fn()| {
        (0..9)
            .map(|_| {
                let start = std::time::Instant::now();
                run();
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let open = fastest(&|| {
        GltfFile::from_bytes(name, bytes, None).unwrap();
    });
    let model = fastest(&|| {
        load(name, bytes);
    });
    println!(
        "{name} ({} bytes): opened in {:.2} ms, loaded in {:.2} ms (fastest of 9)",
        bytes.len(),
        open * 1e3,
        model * 1e3
    );
    (open, model)
}

/// The fox after gltfpack (quantized; meshopt-compressed, EXT_ and KHR_)
/// and glTF-Transform's draco: the same joints, triangles and clips, its
/// vertices where the shipped fox's are in the bind pose and walking,
/// within the optimizers' rounding.
#[test]
fn optimized_foxes_are_the_shipped_fox() {
    let shipped_bytes = std::fs::read(fox()).unwrap();
    let shipped = load("Fox.glb", &shipped_bytes);
    let (_, shipped_load) = load_seconds("Fox.glb", &shipped_bytes);
    let size = {
        let all = vertices(&shipped, None);
        let (lo, hi) = all.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
        lo.distance(hi)
    };
    let walking = |model: &Model| vertices(model, Some(&model_pose(model, "Walk", 0.5)));
    for name in [
        "Fox.gltfpack.glb",
        "Fox.gltfpack-cc.glb",
        "Fox.gltfpack-cc-khr.glb",
        "Fox.draco.glb",
    ] {
        let bytes = std::fs::read(optimized(name)).unwrap();
        let model = load(name, &bytes);
        let (_, seconds) = load_seconds(name, &bytes);
        // Decoding must not make loading slow: a generous bound, as the
        // machine is shared.
        assert!(seconds < 10.0 * shipped_load + 0.05, "{name}: {seconds} s");
        assert_eq!(model.skeleton.names, shipped.skeleton.names, "{name}");
        let triangles = |m: &Model| m.meshes.iter().map(|m| m.indices.len()).sum::<usize>();
        assert_eq!(triangles(&model), triangles(&shipped), "{name}");
        let clips = |m: &Model| m.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(clips(&model), clips(&shipped), "{name}");
        let bind = worst_match(&vertices(&shipped, None), &vertices(&model, None)) / size;
        let walk = worst_match(&walking(&shipped), &walking(&model)) / size;
        println!("{name}: bind pose within {bind:.5}, walking within {walk:.5} of its size");
        assert!(bind < 2e-3, "{name}: bind pose off by {bind} of its size");
        assert!(walk < 1e-2, "{name}: walking off by {walk} of its size");
    }
}

/// Sixteen optimized foxes at 1 s look like sixteen shipped ones: at most
/// 1% of the picture's pixels differ by more than 10% (25 of 255 levels).
/// Locomotion is off: the ground speed measured from the feet of a
/// requantized clip moves a fox by enough after a second to shift its
/// outline (1.1% of the pixels for gltfpack -cc with it on), which is not
/// how the file draws. Most of Draco's 0.8% is welding: the weld keeps
/// the first of a flat-shaded corner's normals, and Draco orders the
/// vertices otherwise (12 pixels differ with `--weld off`).
#[test]
fn optimized_foxes_render_as_the_shipped_fox() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("gltf_optimized");
    let crowd = [
        "--instances",
        "16",
        "--time",
        "1",
        "--locomotion",
        "off",
        "--ground",
        "off",
    ];
    let picture = |name: &str, path: &std::path::Path| {
        let args: Vec<&str> = std::iter::once(common::arg(path)).chain(crowd).collect();
        common::render_sized(&dir, name, (640, 480), &args).0
    };
    let shipped = picture("shipped", &fox());
    let names = ["Fox.gltfpack.glb", "Fox.gltfpack-cc.glb", "Fox.draco.glb"];
    let mut fractions = Vec::new();
    for name in names {
        let image = picture(name, &optimized(name));
        let covered = common::covered_pixels(&shipped).max(common::covered_pixels(&image));
        assert!(covered > 5000, "{name}: nothing drawn");
        let differing = common::differing_pixels(&shipped, &image, 25);
        let fraction = differing as f64 / (image.width() * image.height()) as f64;
        println!("{name}: {differing} pixels differ by over 10% ({fraction:.4} of them)");
        fractions.push(fraction);
    }
    for (name, fraction) in names.iter().zip(fractions) {
        assert!(
            fraction <= 0.01,
            "{name}: {fraction:.4} of the pixels differ"
        );
    }
}

/// Our own character through gltfpack -cc draws as our writer's copy.
#[test]
fn our_character_through_gltfpack_is_our_character() {
    let dir = common::scratch_dir("gltf_crowdling_cc");
    let source = write_shipped_glb(&common::shipped_model(), &dir);
    let source = load("crowdling.glb", &std::fs::read(source).unwrap());
    let name = "crowdling.gltfpack-cc.glb";
    let packed = load(name, &std::fs::read(optimized(name)).unwrap());
    assert_eq!(packed.skeleton.names, source.skeleton.names);
    let bind = worst_match(&vertices(&source, None), &vertices(&packed, None));
    let walk = |m: &Model| vertices(m, Some(&model_pose(m, "walk", 0.4)));
    let walked = worst_match(&walk(&source), &walk(&packed));
    println!("{name}: bind pose within {bind:.4}, walking within {walked:.4} units");
    assert!(bind < 0.05 && walked < 0.5, "{bind} {walked}");
}

/// A file requiring extensions md5crowd does not read: one line naming
/// each, exit code 2; and bad compressed data names the buffer view or
/// accessor.
#[test]
fn unread_extensions_and_bad_compressed_data_are_named() {
    let dir = common::scratch_dir("gltf_extensions");
    let fox_bytes = std::fs::read(fox()).unwrap();
    let required = edit_glb(&fox_bytes, &|json| {
        json["extensionsRequired"] = serde_json::json!(["KHR_materials_variants", "EXT_future"]);
    });
    let meshopt = std::fs::read(optimized("Fox.gltfpack-cc.glb")).unwrap();
    let huge_count = edit_glb(&meshopt, &|json| {
        let view = json["bufferViews"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|v| v["extensions"]["EXT_meshopt_compression"]["mode"] == "ATTRIBUTES")
            .unwrap();
        view["extensions"]["EXT_meshopt_compression"]["count"] = serde_json::json!(1u64 << 40);
        view["byteLength"] = serde_json::json!((1u64 << 40) * view["byteStride"].as_u64().unwrap());
    });
    let mut broken_draco = std::fs::read(optimized("Fox.draco.glb")).unwrap();
    let json_length = u32::from_le_bytes(broken_draco[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value =
        serde_json::from_slice(&broken_draco[20..20 + json_length]).unwrap();
    let view = &json["bufferViews"][json["meshes"][0]["primitives"][0]["extensions"]
        ["KHR_draco_mesh_compression"]["bufferView"]
        .as_u64()
        .unwrap() as usize];
    let start = bad::bin_data_start(&broken_draco) + view["byteOffset"].as_u64().unwrap() as usize;
    // Past Draco's header, which names the kind of mesh.
    for byte in &mut broken_draco[start + 16..start + 80] {
        *byte = 0xA5;
    }
    let cases = [
        (
            "required.glb",
            required,
            vec![
                "extensionsRequired",
                "\"KHR_materials_variants\", \"EXT_future\"",
                "cannot read",
            ],
        ),
        (
            "meshopt.glb",
            huge_count,
            vec![
                "meshopt.glb: bufferViews[",
                "EXT_meshopt_compression",
                "taken on trust",
            ],
        ),
        (
            "draco.glb",
            broken_draco,
            vec![
                "draco.glb: meshes[0].primitives[0]",
                "KHR_draco_mesh_compression",
            ],
        ),
    ];
    for (name, bytes, message) in &cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let output = common::md5crowd_as_typed(&["inspect", common::arg(&path)]);
        common::assert_bad_input(&output, message);
    }
}

/// KHR_materials_pbrSpecularGlossiness with an EXT_texture_webp diffuse
/// texture: the WebP image (not its fallback) is the diffuse map, and
/// specular 1 with glossiness 0.5 a specular level of 1 x 0.5² = 0.25.
#[test]
fn specular_glossiness_and_webp_become_the_maps() {
    let expected = fixtures::specular_glossiness_webp();
    let model = load("glossy.glb", &expected.glb);
    let maps = &model.materials.maps[model.materials.of_mesh[0][0]];
    assert_eq!(
        first_texel(maps.diffuse.as_ref(), MapKind::Diffuse),
        expected.webp_colour
    );
    assert_eq!(
        first_texel(maps.specular.as_ref(), MapKind::Specular),
        [64, 64, 64, 255]
    );
}

/// The compressed streams themselves mutated (1 to 4 bytes inside the
/// meshopt views of gltfpack -cc's fox, inside the Draco bitstream of
/// glTF-Transform's): each file loads or is refused with a line naming
/// the file and where, never a panic.
#[test]
fn mutated_compressed_streams_are_errors_never_panics() {
    for (name, rounds) in [("Fox.gltfpack-cc.glb", 300), ("Fox.draco.glb", 300)] {
        let original = std::fs::read(optimized(name)).unwrap();
        let json_length = u32::from_le_bytes(original[12..16].try_into().unwrap()) as usize;
        let json: serde_json::Value =
            serde_json::from_slice(&original[20..20 + json_length]).unwrap();
        let bin = bad::bin_data_start(&original);
        let number = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as usize;
        let mut streams: Vec<(usize, usize)> = json["bufferViews"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|view| {
                let meshopt = &view["extensions"]["EXT_meshopt_compression"];
                meshopt.is_object().then(|| {
                    (
                        bin + number(&meshopt["byteOffset"]),
                        number(&meshopt["byteLength"]),
                    )
                })
            })
            .collect();
        for primitive in json["meshes"][0]["primitives"].as_array().unwrap() {
            let draco = &primitive["extensions"]["KHR_draco_mesh_compression"];
            if draco.is_object() {
                let view = &json["bufferViews"][number(&draco["bufferView"])];
                streams.push((
                    bin + number(&view["byteOffset"]),
                    number(&view["byteLength"]),
                ));
            }
        }
        assert!(!streams.is_empty(), "{name}: no compressed stream");
        let mut random = SplitMix64(7);
        let (mut loaded, mut refused) = (0, 0);
        for _ in 0..rounds {
            let mut bytes = original.clone();
            let (start, length) = streams[random.below(streams.len() as u32) as usize];
            for _ in 0..1 + random.below(4) {
                bytes[start + random.below(length as u32) as usize] = random.below(256) as u8;
            }
            match load_bytes("mutated.glb", &bytes, &LoadOptions::default()) {
                Ok(_) => loaded += 1,
                Err(error) => {
                    let line = error.to_string();
                    assert!(line.starts_with("mutated.glb: "), "{line}");
                    assert!(
                        [
                            "bufferViews[",
                            "accessors[",
                            "meshes[",
                            "animations[",
                            "skins["
                        ]
                        .iter()
                        .any(|at| line.contains(at)),
                        "{line}"
                    );
                    refused += 1;
                }
            }
        }
        println!("{name}, streams mutated: {loaded} loaded, {refused} refused");
        assert!(refused > 0, "{name}: no mutation refused");
    }
}

/// `bytes` (a .glb) with its JSON changed by `edit`, its BIN chunk kept.
fn edit_glb(bytes: &[u8], edit: &dyn Fn(&mut serde_json::Value)) -> Vec<u8> {
    let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_length]).unwrap();
    edit(&mut json);
    bad::glb_of(&json, Some(&bytes[bad::bin_data_start(bytes)..]))
}

/// What the decoders are handed cut short or miscounted: a meshopt stream
/// truncated, a meshopt view claiming twice the vertices it encodes (a
/// few more decode: the codec's blocks need not end where the count
/// does), a Draco bitstream truncated, a Draco accessor's count off by
/// one, a quantized accessor counting past its buffer view, a Draco
/// header claiming 2^32 - 1 vertices, faces or symbols. Each is refused
/// with a line naming the file and the view or accessor.
#[test]
fn truncated_and_miscounted_compressed_data_are_named() {
    let read = |name: &str| std::fs::read(optimized(name)).unwrap();
    let meshopt = read("Fox.gltfpack-cc.glb");
    let draco = read("Fox.draco.glb");
    let quantized = read("Fox.gltfpack.glb");
    // The fox's positions: buffer view 1 (gltfpack, quantized to u16),
    // accessor 1 (glTF-Transform's Draco primitive, whose stream is
    // buffer view 3).
    fn meshopt_positions(json: &mut serde_json::Value) -> &mut serde_json::Value {
        &mut json["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]
    }
    let mut cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        (
            "meshopt stream cut in half",
            edit_glb(&meshopt, &|json| {
                let view = meshopt_positions(json);
                view["byteLength"] = (view["byteLength"].as_u64().unwrap() / 2).into();
            }),
            vec![
                "bufferViews[1].extensions.EXT_meshopt_compression",
                "do not decode as vertices",
            ],
        ),
        (
            "meshopt stream counting twice its vertices",
            edit_glb(&meshopt, &|json| {
                let count = json["accessors"][0]["count"].as_u64().unwrap() * 2;
                meshopt_positions(json)["count"] = count.into();
                json["bufferViews"][1]["byteLength"] = (count * 8).into();
            }),
            vec![
                "bufferViews[1].extensions.EXT_meshopt_compression",
                "do not decode as vertices",
            ],
        ),
        (
            "Draco bitstream cut to 40 bytes",
            edit_glb(&draco, &|json| {
                json["bufferViews"][3]["byteLength"] = 40.into();
            }),
            vec![
                "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression",
                "bufferViews[3] does not decode as a Draco mesh",
            ],
        ),
        (
            "Draco positions counted one short",
            edit_glb(&draco, &|json| {
                let count = json["accessors"][1]["count"].as_u64().unwrap() - 1;
                json["accessors"][1]["count"] = count.into();
            }),
            vec!["accessors[1]: count 1497, but the Draco mesh of"],
        ),
        (
            "quantized positions counted past their view",
            edit_glb(&quantized, &|json| {
                json["accessors"][0]["count"] = 1_000_000.into();
            }),
            vec!["accessors[0]"],
        ),
    ];
    // Draco's edgebreaker header counts (vertices, faces, symbols, split
    // symbols: varints from byte 12) claiming 2^32 - 1: refused before
    // anything that size is allocated.
    let draco_start = {
        let json_length = u32::from_le_bytes(draco[12..16].try_into().unwrap()) as usize;
        let json: serde_json::Value = serde_json::from_slice(&draco[20..20 + json_length]).unwrap();
        bad::bin_data_start(&draco)
            + json["bufferViews"][3]["byteOffset"].as_u64().unwrap() as usize
    };
    for at in 12..22 {
        let mut bytes = draco.clone();
        bytes[draco_start + at..draco_start + at + 5]
            .copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
        cases.push((
            "a Draco header count at 2^32 - 1",
            bytes,
            vec!["bufferViews[3] does not decode as a Draco mesh"],
        ));
    }
    for (what, bytes, expected) in cases {
        let error = match load_bytes("cut.glb", &bytes, &LoadOptions::default()) {
            Ok(_) => panic!("{what}: loaded"),
            Err(error) => error.to_string(),
        };
        println!("{what}: {error}");
        assert!(error.starts_with("cut.glb: "), "{what}: {error}");
        assert!(!error.contains('\n'), "{what}: {error}");
        for part in expected {
            assert!(error.contains(part), "{what}: {error} (no {part:?})");
        }
    }
}
