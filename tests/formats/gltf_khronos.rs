//! Khronos' SimpleSkin sample as Khronos wrote it, and what glTF-Transform
//! and gltfpack make of it (tests/fixtures/gltf/README.md): two skins in
//! one scene, a skeleton under a node that moves its rest pose away from
//! its bind pose, Draco and meshopt. Each is checked against what the
//! sample's README describes, worked out here from that description, not
//! from the file.

use glam::{Quat, Vec3};
use md5crowd::gltf::GltfFile;
use md5crowd::model::{LoadOptions, Model};
use md5crowd::vfs::GameFile;

use super::gltf_load::{model_pose, vertices, worst_match};
use crate::common::md5_to_gltf::gltf_to_md5_point;

fn fixture(name: &str) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gltf")
        .join(name);
    let path = GameFile::loose(path);
    let file = GltfFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    Model::from_gltf(&file, &path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// SimpleSkin as its README lays it out: a strip 1 wide and 2 high in the
/// XY plane, vertices in rows at y = 0, 0.5, ... 2; the lower joint at the
/// origin-side row y = 1 stays, the upper one at y = 1 turns `angle`
/// radians about Z; row y's weights are (1 - y/2, y/2) on the two joints.
/// The whole skeleton stands `offset` from where the file puts it (glTF
/// metres, converted to md5 units).
fn simple_skin(angle: f32, offset: Vec3) -> Vec<Vec3> {
    let pivot = Vec3::new(0.0, 1.0, 0.0);
    let turn = Quat::from_rotation_z(angle);
    (0..10)
        .map(|i| {
            let p = Vec3::new(
                if i % 2 == 0 { -0.5 } else { 0.5 },
                (i / 2) as f32 * 0.5,
                0.0,
            );
            let upper = p.y / 2.0;
            let turned = pivot + turn * (p - pivot);
            gltf_to_md5_point(p * (1.0 - upper) + turned * upper + offset)
        })
        .collect()
}

/// Both ways: every expected point has a loaded vertex near it and every
/// loaded vertex an expected point.
fn distance(expected: &[Vec3], got: &[Vec3]) -> f32 {
    worst_match(expected, got).max(worst_match(got, expected))
}

const DEGREE: f32 = std::f32::consts::PI / 180.0;

/// How far a posed vertex may stray: weights are quantized to 1/255 at
/// load as md5's are, and 0.25 becoming 64/255 moves a vertex of the
/// strip turned 90 degrees by 0.055 units (1.4 mm).
const POSED: f32 = 0.08;

/// The sample itself: its one clip turns the upper joint 45 degrees at
/// 0.5 s and 90 at 1 s (its README's skinAnimation figure).
#[test]
fn khronos_simple_skin_bends_as_its_readme_shows() {
    let model = fixture("SimpleSkin.gltf");
    assert_eq!(model.skeleton.joint_count(), 2);
    let bind = distance(&simple_skin(0.0, Vec3::ZERO), &vertices(&model, None));
    assert!(bind < 1e-3, "bind pose off by {bind}");
    for (time, angle) in [(0.0, 0.0), (0.5, 45.0), (1.0, 90.0), (3.5, -45.0)] {
        let clip = model.clips[0].name.clone();
        let posed = vertices(&model, Some(&model_pose(&model, &clip, time)));
        let off = distance(&simple_skin(angle * DEGREE, Vec3::ZERO), &posed);
        println!("SimpleSkin.gltf at {time} s: within {off:.4} units");
        assert!(off < POSED, "at {time} s off by {off} units");
    }
}

/// glTF-Transform `merge --merge-scenes` of SimpleSkin with itself: one
/// scene, two skins on two skeletons, each animated by its own clip.
/// Both meshes are drawn, and the skeleton a clip leaves alone stays in
/// its rest pose while the other bends.
#[test]
fn two_skins_from_gltf_transform_merge_are_both_drawn() {
    let model = fixture("SimpleSkin.merged.glb");
    assert_eq!(
        model.skeleton.joint_count(),
        4,
        "{:?}",
        model.skeleton.names
    );
    assert_eq!(model.meshes.len(), 2, "both skinned meshes drawn");
    assert_eq!(model.clips.len(), 2);
    let straight = simple_skin(0.0, Vec3::ZERO);
    let bent = simple_skin(90.0 * DEGREE, Vec3::ZERO);
    for clip in &model.clips {
        let pose = model_pose(&model, &clip.name, 1.0);
        let meshes: Vec<Vec<Vec3>> = model
            .meshes
            .iter()
            .map(|mesh| {
                let one = Model {
                    meshes: vec![mesh.clone()],
                    ..model.clone()
                };
                vertices(&one, Some(&pose))
            })
            .collect();
        let bent_meshes = meshes.iter().filter(|m| distance(&bent, m) < POSED).count();
        let straight_meshes = meshes
            .iter()
            .filter(|m| distance(&straight, m) < 1e-3)
            .count();
        assert_eq!(
            (bent_meshes, straight_meshes),
            (1, 1),
            "clip {}: one mesh bent by it, the other at rest",
            clip.name
        );
    }
}

/// glTF-Transform `center` hangs the scene under a new node, "Pivot",
/// 1 m down: the inverse bind matrices still bind the strip where it was,
/// but glTF draws it where its nodes put it, 1 m lower. The lower joint
/// is animated by no channel and keeps its node's transform.
#[test]
fn a_skeleton_moved_by_its_parent_node_is_drawn_where_its_nodes_put_it() {
    let model = fixture("SimpleSkin.centered.glb");
    let down = Vec3::new(0.0, -1.0, 0.0);
    let clip = model.clips[0].name.clone();
    for (time, angle) in [(0.0, 0.0), (1.0, 90.0)] {
        let posed = vertices(&model, Some(&model_pose(&model, &clip, time)));
        let off = distance(&simple_skin(angle * DEGREE, down), &posed);
        println!("SimpleSkin.centered.glb at {time} s: within {off:.4} units");
        assert!(off < POSED, "at {time} s off by {off} units");
    }
}

/// SimpleSkin through glTF-Transform's `draco` and gltfpack's `-cc`
/// (quantized, meshopt-compressed, the dequantization in the mesh node
/// and inverse bind matrices) bends as the sample does.
#[test]
fn compressed_simple_skins_bend_as_the_sample_does() {
    for name in ["SimpleSkin.draco.glb", "SimpleSkin.gltfpack-cc.glb"] {
        let model = fixture(name);
        assert_eq!(model.skeleton.joint_count(), 2, "{name}");
        let clip = model.clips[0].name.clone();
        for (time, angle) in [(0.0, 0.0), (1.0, 90.0)] {
            let posed = vertices(&model, Some(&model_pose(&model, &clip, time)));
            let off = distance(&simple_skin(angle * DEGREE, Vec3::ZERO), &posed);
            println!("{name} at {time} s: within {off:.4} units");
            assert!(off < POSED, "{name} at {time} s off by {off} units");
        }
    }
}
