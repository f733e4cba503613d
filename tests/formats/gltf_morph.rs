//! glTF morph targets as the loader reads them: layouts of Khronos'
//! SimpleMorph and AnimatedMorphCube deform as their READMEs say, sparse
//! and quantized targets decode, a skinned character's face targets move
//! its face alone, and each kind of bad input is one line naming its JSON
//! path. Expected values come from the numbers the fixtures put in
//! (tests/common/gltf_fixtures.rs), never from reading the files back.

use crate::common;

use glam::Vec3;
use md5crowd::anim::sample_morph_weights;
use md5crowd::gltf::{GltfError, GltfFile};
use md5crowd::model::{LoadOptions, Model};
use md5crowd::skin::{morphed_vertex, MorphTarget, SkinnedMesh};
use md5crowd::vfs::GameFile;
use serde_json::Value;

use common::gltf_fixtures::{self as fixtures, gltf_to_md5_direction, MorphFace};
use common::md5_to_gltf::gltf_to_md5_point;

fn load_with(name: &str, bytes: &[u8], options: &LoadOptions) -> Result<Model, GltfError> {
    let file = GltfFile::from_bytes(name, bytes, None)?;
    Model::from_gltf(&file, &GameFile::loose(name), options)
}

fn load(name: &str, bytes: &[u8]) -> Model {
    load_with(name, bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The model's weights at `time` into clip `clip`.
fn weights_at(model: &Model, clip: &str, time: f32) -> Vec<f32> {
    let clip = model.clips.iter().find(|c| c.name == clip).expect("clip");
    let mut weights = vec![0.0; model.morphs.count()];
    sample_morph_weights(clip, &model.morphs.defaults, time, &mut weights);
    weights
}

/// Every vertex of every mesh morphed by `weights`: position, and the
/// normal's and tangent's directions.
fn morphed(model: &Model, weights: &[f32]) -> Vec<[Vec3; 3]> {
    model
        .meshes
        .iter()
        .flat_map(|mesh| {
            (0..mesh.vertex_count()).map(move |v| {
                let vertex = morphed_vertex(mesh, v, weights);
                [
                    vertex.position,
                    vertex.normal.normalize(),
                    Vec3::from_slice(&vertex.tangent[..3]).normalize(),
                ]
            })
        })
        .collect()
}

/// Which of `file` (md5 units) the loaded vertex at `p` is: loading welds
/// and reorders vertices.
fn file_vertex(file: &[Vec3], p: Vec3) -> usize {
    file.iter()
        .position(|e| e.distance(p) < 1e-3)
        .unwrap_or_else(|| panic!("no vertex of the file at {p}"))
}

fn assert_close(got: &[f32], expected: &[f32], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}");
    for (g, e) in got.iter().zip(expected) {
        assert!((g - e).abs() < 1e-4, "{what}: {got:?} != {expected:?}");
    }
}

/// SimpleMorph: a triangle whose top vertex the two targets pull left and
/// right (the second also lifts the right corner), mesh weights 0.5 each,
/// a LINEAR animation over 4 seconds; unnamed targets are named after
/// the mesh.
#[test]
fn simple_morph_deforms_as_its_readme_says() {
    let expected = fixtures::simple_morph();
    let model = load("SimpleMorph.gltf", &expected.gltf);
    assert_eq!(model.morphs.names, ["meshes[0].0", "meshes[0].1"]);
    assert_eq!(model.morphs.defaults, expected.defaults);
    let clip = &model.clips[0];
    assert_eq!(clip.morphs.channels, 1);
    assert_eq!(clip.morphs.animated, [0, 1]);
    assert_eq!(clip.morphs.frames.len(), clip.frames.len());
    for time in [0.0, 0.5, 1.0, 1.75, 3.0, 3.5] {
        let key = expected.key_times.partition_point(|&t| t <= time) - 1;
        let s = time - expected.key_times[key];
        let (a, b) = (expected.key_weights[key], expected.key_weights[key + 1]);
        let w = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
        assert_close(
            &weights_at(&model, &clip.name, time),
            &w,
            &format!("at {time} s"),
        );
        let points: Vec<Vec3> = (0..3)
            .map(|v| {
                let [t0, t1] = [expected.targets[0][v], expected.targets[1][v]];
                gltf_to_md5_point(expected.positions[v] + t0 * w[0] + t1 * w[1])
            })
            .collect();
        let got = morphed(&model, &w);
        assert_eq!(got.len(), 3);
        for p in &points {
            let nearest = got
                .iter()
                .map(|g| g[0].distance(*p))
                .fold(f32::MAX, f32::min);
            assert!(nearest < 1e-3, "at {time} s: {p} off by {nearest}");
        }
    }
}

/// AnimatedMorphCube: "thin" flattens the cube, "angle" makes a ramp of
/// it (its top face's normal and tangent turn with it), and the animation
/// goes from one to the other. Positions, normals and tangents, offsets
/// placed by the node's turn and scale of 100. Unwelded: welding would
/// merge the faces' copies of a corner that no target moves apart (the
/// cube has no uvs), and derive tangents anew.
#[test]
fn animated_morph_cube_goes_thin_then_angled() {
    let expected = fixtures::animated_morph_cube();
    let options = LoadOptions {
        unwelded: true,
        ..LoadOptions::default()
    };
    let model = load_with("AnimatedMorphCube.glb", &expected.glb, &options).unwrap();
    assert_eq!(model.morphs.names, ["thin", "angle"]);
    assert_eq!(model.morphs.defaults, [0.0, 0.0]);
    let clip = &model.clips[0];
    assert_eq!(clip.name, "Square");
    assert_eq!(
        (clip.morphs.channels, clip.morphs.animated.as_slice()),
        (1, &[0, 1][..])
    );
    for k in [0, 16, 32, 63, 80, 95, 126] {
        let time = k as f32 * expected.key_interval;
        let w = expected.keys[k];
        let got_weights = weights_at(&model, "Square", time);
        assert_close(&got_weights, &w, &format!("key {k}"));
        let got = morphed(&model, &got_weights);
        assert_eq!(got.len(), 24, "faces keep their own vertices");
        for v in 0..24 {
            let want = expected.morphed_md5(v, w);
            let found = got.iter().any(|g| {
                g[0].distance(want[0]) < 1e-3
                    && g[1].distance(want[1]) < 1e-4
                    && g[2].distance(want[2]) < 1e-4
            });
            assert!(found, "key {k}: vertex {v} {want:?} not in {got:?}");
        }
    }
    // The README's words: thin is 2 mm of a 2 cm cube, scaled by 100.
    let thin = morphed(&model, &[1.0, 0.0]);
    let (lo, hi) = thin.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), g| {
        (lo.min(g[0]), hi.max(g[0]))
    });
    let extent = hi - lo;
    assert!(
        (extent.min_element() - 0.2 / 0.0254).abs() < 1e-2,
        "{extent}"
    );
    assert!(
        (extent.max_element() - 2.0 / 0.0254).abs() < 1e-2,
        "{extent}"
    );
}

/// The offsets of `target` at each vertex of `mesh`, against `file`'s
/// (glTF space) at the file vertex the loaded one is.
fn assert_offsets(mesh: &SkinnedMesh, target: &MorphTarget, file_md5: &[Vec3], offsets: &[Vec3]) {
    for (v, p) in mesh.positions.iter().enumerate() {
        let want = gltf_to_md5_point(offsets[file_vertex(file_md5, *p)]);
        let got = target.positions[v];
        assert!(got.distance(want) < 1e-3, "vertex {v}: {got} != {want}");
    }
}

/// A sparse target with no buffer view: zeros but at the vertices its
/// sparse indices name.
#[test]
fn a_sparse_target_moves_the_vertices_it_names() {
    let expected = fixtures::sparse_positions();
    let model = load("sparse.glb", &expected.glb);
    assert_eq!(model.morphs.names, ["grid.0"]);
    assert_eq!(model.morphs.defaults, [0.0]);
    let mesh = &model.meshes[0];
    assert_eq!(mesh.morph_targets.len(), 1);
    let target = &mesh.morph_targets[0];
    assert_offsets(
        mesh,
        target,
        &expected.positions_md5,
        &expected.morph_target,
    );
    assert_eq!(target.moved_vertices(), 2);
    assert!(target.normals.is_empty() && target.tangents.is_empty());
}

/// Normalized SHORT positions and BYTE normals (KHR_mesh_quantization),
/// named by `extras.targetNames`, the node's default weight over the
/// mesh's.
#[test]
fn a_quantized_target_decodes_its_integers() {
    let expected = fixtures::quantized_target();
    let model = load("quantized.glb", &expected.glb);
    assert_eq!(model.morphs.names, ["Raise"]);
    assert_eq!(model.morphs.defaults, [expected.default_weight]);
    let mesh = &model.meshes[0];
    let target = &mesh.morph_targets[0];
    assert_eq!(target.name, "Raise");
    let file_md5: Vec<Vec3> = expected
        .positions
        .iter()
        .map(|&p| gltf_to_md5_point(p))
        .collect();
    assert_offsets(mesh, target, &file_md5, &expected.offsets);
    for (v, p) in mesh.positions.iter().enumerate() {
        let want = gltf_to_md5_direction(expected.normal_offsets[file_vertex(&file_md5, *p)]);
        assert!(target.normals[v].distance(want) < 1e-5, "vertex {v}");
    }
    assert_eq!(target.moved_vertices(), 2);
}

fn mesh_of<'a>(model: &'a Model, shader: &str) -> &'a SkinnedMesh {
    model
        .meshes
        .iter()
        .find(|m| m.shader == shader)
        .expect(shader)
}

/// The skinned face: Smile and Blink move the head mesh's face and
/// nothing else, and every clip plays them next to its joints.
#[test]
fn a_skinned_face_moves_its_face_alone() {
    let expected = fixtures::morph_face();
    let model = load("face.glb", &fixtures::morph_face_character());
    assert_eq!(model.morphs.names, ["Smile", "Blink"]);
    assert_eq!(model.morphs.defaults, [0.0, 0.0]);
    assert!(mesh_of(&model, "textures/crowdling_body")
        .morph_targets
        .is_empty());
    let head = mesh_of(&model, "textures/crowdling_head");
    let [smile, blink] = [&head.morph_targets[0], &head.morph_targets[1]];
    assert_eq!(
        (smile.name.as_str(), smile.weight, blink.weight),
        ("Smile", 0, 1)
    );
    let (mut smiling, mut blinking) = (0, 0);
    for (v, p) in head.positions.iter().enumerate() {
        let file = file_vertex(&expected.head_positions, *p);
        assert!(
            smile.positions[v].distance(expected.smile[file]) < 1e-3,
            "vertex {v}"
        );
        assert!(
            blink.positions[v].distance(expected.blink[file]) < 1e-3,
            "vertex {v}"
        );
        assert!(
            smile.normals[v].distance(expected.smile_normals[file]) < 1e-4,
            "vertex {v}"
        );
        smiling += usize::from(expected.smile[file] != Vec3::ZERO);
        blinking += usize::from(expected.blink[file] != Vec3::ZERO);
    }
    assert!(smiling > 0 && blinking > 0 && smiling < head.vertex_count());
    assert_eq!(
        (smile.moved_vertices(), blink.moved_vertices()),
        (smiling, blinking)
    );
    assert!(blink.normals.is_empty());
    let shipped = common::shipped_model();
    for clip in &model.clips {
        assert_eq!(clip.morphs.channels, 1, "{}", clip.name);
        assert_eq!(clip.morphs.frames.len(), clip.frames.len(), "{}", clip.name);
        let keys = shipped
            .clips
            .iter()
            .find(|c| c.name == clip.name)
            .unwrap()
            .frames
            .len();
        for k in [0, keys / 4, keys / 2, keys - 1] {
            let got = weights_at(&model, &clip.name, k as f32 / clip.frame_rate);
            assert_close(
                &got,
                &MorphFace::weights(k, keys),
                &format!("{} key {k}", clip.name),
            );
        }
    }
}

/// The cost fixture: each of the 16 weights (8 per mesh) moves 30% of
/// its mesh, and every clip animates them all.
#[test]
fn the_bench_character_moves_its_share() {
    let model = load("bench.glb", &fixtures::morph_bench_character(8, 0.3));
    assert_eq!(model.morphs.count(), 16);
    assert_eq!(model.morphs.named("Bench3").count(), 2);
    for mesh in &model.meshes {
        assert_eq!(mesh.morph_targets.len(), 8);
        for target in &mesh.morph_targets {
            let share = target.moved_vertices() as f32 / mesh.vertex_count() as f32;
            assert!((share - 0.3).abs() < 0.01, "{}: {share}", target.name);
        }
    }
    for clip in &model.clips {
        assert_eq!(clip.morphs.animated, (0..16).collect::<Vec<u16>>());
        assert_eq!(clip.morphs.channels, 2);
    }
}

/// `md5crowd inspect` of `document` (a .gltf with its buffers inside)
/// fails with exit status 2 and one line naming `path`.
fn assert_refused(test: &str, document: &Value, path: &str) {
    let dir = common::scratch_dir(test);
    let file = dir.join(format!("{test}.gltf"));
    std::fs::write(&file, serde_json::to_vec(document).unwrap()).unwrap();
    let output = common::md5crowd_as_typed(&["inspect", common::arg(&file)]);
    common::assert_bad_input(&output, &[path]);
}

/// SimpleMorph's document, to break.
fn simple_morph_json() -> Value {
    serde_json::from_slice(&fixtures::simple_morph().gltf).unwrap()
}

#[test]
fn a_target_of_another_vertex_count_is_refused() {
    let mut document = simple_morph_json();
    document["accessors"][3]["count"] = 2.into();
    assert_refused(
        "morph_target_count",
        &document,
        "meshes[0].primitives[0].targets[1].POSITION",
    );
}

#[test]
fn weights_keys_that_are_not_per_target_are_refused() {
    let mut document = simple_morph_json();
    document["accessors"][5]["count"] = 9.into();
    assert_refused(
        "morph_weights_count",
        &document,
        "animations[0].samplers[0].output",
    );
}

#[test]
fn primitives_that_disagree_on_targets_are_refused() {
    let mut document = simple_morph_json();
    let mut second = document["meshes"][0]["primitives"][0].clone();
    second["targets"].as_array_mut().unwrap().pop();
    document["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    assert_refused(
        "morph_primitives",
        &document,
        "meshes[0].primitives[1].targets",
    );
}

#[test]
fn default_weights_not_one_per_target_are_refused() {
    let mut document = simple_morph_json();
    document["meshes"][0]["weights"] = serde_json::json!([0.5]);
    assert_refused("morph_mesh_weights", &document, "meshes[0].weights");
}

/// `inspect` lists each mesh's targets with the vertices they move, and
/// which clips animate them; each anim says how many weights channels it
/// has.
#[test]
fn inspect_lists_targets_and_the_clips_that_play_them() {
    let dir = common::scratch_dir("morph_inspect");
    let file = dir.join("face.glb");
    std::fs::write(&file, fixtures::morph_face_character()).unwrap();
    let model = load("face.glb", &fixtures::morph_face_character());
    let head = mesh_of(&model, "textures/crowdling_head");
    let moved: Vec<usize> = head
        .morph_targets
        .iter()
        .map(MorphTarget::moved_vertices)
        .collect();

    let output = common::md5crowd_as_typed(&["inspect", "--json", common::arg(&file)]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let meshes = json[0]["meshes"].as_array().unwrap();
    let targets: Vec<&Value> = meshes.iter().map(|m| &m["morph_targets"]).collect();
    let want = serde_json::json!([
        {"name": "Smile", "vertices": moved[0]},
        {"name": "Blink", "vertices": moved[1]},
    ]);
    assert!(targets.contains(&&want), "{targets:?}");
    assert!(
        targets.contains(&&serde_json::json!([])),
        "the body has none"
    );
    let anims: Vec<&Value> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "anim")
        .collect();
    assert_eq!(anims.len(), 4);
    assert!(anims.iter().all(|a| a["morph_channels"] == 1), "{anims:?}");

    let output = common::md5crowd_as_typed(&["inspect", common::arg(&file)]);
    let text = String::from_utf8(output.stdout).unwrap();
    let smile = format!(
        "morph target \"Smile\": {} verts, animated by idle, run, walk, wave",
        moved[0]
    );
    assert!(text.contains(&smile), "{text}");
    assert!(text.contains("morph weight channels: 1"), "{text}");
}

/// SimpleMorph's weights keyed STEP, then CUBICSPLINE with flat tangents
/// (a smoothstep from key to key, not a straight line).
#[test]
fn step_and_cubic_spline_weights_play_as_the_specification_says() {
    let expected = fixtures::simple_morph();
    let keys = expected.key_weights;
    let mut step = simple_morph_json();
    step["animations"][0]["samplers"][0]["interpolation"] = "STEP".into();
    let model = load("step.gltf", &serde_json::to_vec(&step).unwrap());
    assert_close(
        &weights_at(&model, "animation0", 0.5),
        &keys[0],
        "STEP at 0.5 s",
    );
    assert_close(
        &weights_at(&model, "animation0", 1.5),
        &keys[1],
        "STEP at 1.5 s",
    );

    let mut cubic = simple_morph_json();
    let triplets: Vec<u8> = keys
        .iter()
        .flat_map(|w| [0.0f32, 0.0, w[0], w[1], 0.0, 0.0])
        .flat_map(f32::to_le_bytes)
        .collect();
    let uri = common::gltf_write::data_uri("application/octet-stream", &triplets);
    let length = triplets.len();
    cubic["buffers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"uri": uri, "byteLength": length}));
    cubic["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"buffer": 2, "byteLength": length}));
    cubic["accessors"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
            {"bufferView": 4, "componentType": 5126, "count": 30, "type": "SCALAR"}
        ));
    cubic["animations"][0]["samplers"][0] =
        serde_json::json!({"input": 4, "interpolation": "CUBICSPLINE", "output": 6});
    let model = load("cubic.gltf", &serde_json::to_vec(&cubic).unwrap());
    // A quarter of the way from key 0 (0, 0) to key 1 (1, 0):
    // 3s² - 2s³ = 0.15625 of the way.
    assert_close(
        &weights_at(&model, "animation0", 0.25),
        &[0.15625, 0.0],
        "CUBICSPLINE",
    );
    assert_close(
        &weights_at(&model, "animation0", 2.5),
        &[0.5, 1.0],
        "CUBICSPLINE",
    );
}

/// tests/fixtures/gltf/crowdling.morph8.glb, which docs/performance.md
/// benches (8 targets over 30% of the vertices), is
/// `morph_bench_character(8, 0.3)`; `MD5CROWD_WRITE_FIXTURES=1` writes it
/// again after the generator changes.
#[test]
fn the_committed_bench_character_is_the_generators() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gltf/crowdling.morph8.glb");
    let bytes = fixtures::morph_bench_character(8, 0.3);
    if std::env::var_os("MD5CROWD_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path).unwrap();
    assert!(
        committed == bytes,
        "{} is not morph_bench_character(8, 0.3): write it again with MD5CROWD_WRITE_FIXTURES=1",
        path.display()
    );
}
