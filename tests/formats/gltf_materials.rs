//! glTF materials as the loader reads them: the shading `inspect --json`
//! reports for each mesh, and bad input (a texture index out of range, an
//! alphaCutoff outside 0..1) as warnings naming the material's JSON path,
//! drawn with glTF's defaults; a required extension md5crowd does not read
//! still refuses the file. Vertex colours (COLOR_0) in every encoding
//! exporters write, and of a wrong type refused.

use std::process::Command;

use serde_json::{json, Value};

use crate::common;
use common::gltf_write::glb;
use common::material_fixtures::{self, ColorEncoding};
use glam::{Vec3, Vec4};
use md5crowd::material::{AlphaMode, ShadingModel, DEFAULT_ALPHA_CUTOFF};
use md5crowd::model::{LoadOptions, Model};
use md5crowd::vfs::GameFile;

/// [`material_fixtures::panels`] with its JSON changed by `edit`, written
/// to the test's folder.
fn edited_panels(name: &str, edit: impl Fn(&mut Value)) -> std::path::PathBuf {
    let bytes = material_fixtures::panels();
    let file = gltf::Glb::from_slice(&bytes).unwrap();
    let mut document: Value = serde_json::from_slice(&file.json).unwrap();
    edit(&mut document);
    // A folder per file: scratch_dir empties it, and tests run at once.
    let dir = common::scratch_dir(&format!("gltf_materials_{name}"));
    let path = dir.join(name);
    std::fs::write(&path, glb(&document, file.bin.as_deref())).unwrap();
    path
}

#[test]
fn inspect_json_names_each_meshs_material() {
    let path = edited_panels("panels.glb", |_| {});
    let out = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args(["inspect", "--json", common::arg(&path)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Value = serde_json::from_slice(&out.stdout).unwrap();
    let materials: Vec<&Value> = reports[0]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["material"])
        .collect();
    let expected = |model, alpha, double_sided| json!({"model": model, "alpha": alpha, "alpha_cutoff": 0.5, "double_sided": double_sided});
    assert_eq!(
        materials,
        [
            &expected("metallic-roughness", "MASK", false),
            &expected("metallic-roughness", "OPAQUE", false),
            &expected("metallic-roughness", "OPAQUE", true),
            &expected("metallic-roughness", "OPAQUE", false),
            &expected("unlit", "OPAQUE", false),
        ]
    );
    // md5 meshes are Doom 3's.
    let out = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args(["inspect", "--json", common::arg(&common::shipped_mesh())])
        .output()
        .unwrap();
    let reports: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reports[0]["meshes"][0]["material"],
        expected("doom3", "OPAQUE", false)
    );
}

#[test]
fn bad_materials_are_warnings_naming_their_path_and_draw_with_defaults() {
    let path = edited_panels("bad.glb", |document| {
        document["materials"][0]["alphaCutoff"] = json!(1.5);
        document["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 9});
        document["materials"][3]["emissiveTexture"] = json!({"index": -2});
    });
    let model = Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap();
    let warnings = &model.materials.warnings;
    let has = |what: &str| warnings.iter().any(|w| w.contains(what));
    assert!(has("materials[0].alphaCutoff: 1.5"), "{warnings:?}");
    assert!(
        has("materials[1].pbrMetallicRoughness.baseColorTexture.index: 9"),
        "{warnings:?}"
    );
    assert!(
        has("materials[3].emissiveTexture.index: -2"),
        "{warnings:?}"
    );
    let shading_of = |name: &str| {
        let mesh = model.meshes.iter().position(|m| m.shader == name).unwrap();
        model.materials.maps[model.materials.of_mesh[mesh][0]].clone()
    };
    let mask = shading_of("mask");
    assert_eq!(mask.shading.alpha, AlphaMode::Mask);
    assert_eq!(mask.shading.alpha_cutoff, DEFAULT_ALPHA_CUTOFF);
    // The factor alone, glTF's default for a texture it cannot draw.
    let away = shading_of("away");
    assert!(away.diffuse.unwrap().bytes.is_empty());
    assert_eq!(away.shading.model, ShadingModel::MetallicRoughness);
}

#[test]
fn an_unread_required_material_extension_still_refuses_the_file() {
    let path = edited_panels("transmission.glb", |document| {
        document["extensionsUsed"] = json!(["KHR_materials_transmission"]);
        document["extensionsRequired"] = json!(["KHR_materials_transmission"]);
    });
    let error = Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap_err();
    assert!(
        error.to_string().contains("KHR_materials_transmission"),
        "{error}"
    );
}

/// Per triangle of mesh `name`, the [`material_fixtures::PAINT`] quarter
/// its centre lies in and its corners' colours.
fn painted_triangles(model: &Model, name: &str) -> Vec<(usize, [Vec4; 3])> {
    let mesh = model.meshes.iter().find(|m| m.shader == name).unwrap();
    let centre = mesh.positions.iter().sum::<Vec3>() / mesh.positions.len() as f32;
    mesh.indices
        .chunks_exact(3)
        .map(|t| {
            // glTF's +X is md5's +Y, +Y is +Z; the lower half comes first.
            let middle = t.iter().map(|&v| mesh.positions[v as usize]).sum::<Vec3>() / 3.0;
            let quarter = usize::from(middle.y > centre.y) + 2 * usize::from(middle.z > centre.z);
            (
                quarter,
                [0, 1, 2].map(|i| mesh.colors[t[i] as usize].linear()),
            )
        })
        .collect()
}

/// COLOR_0 in each form exporters write it decodes to its linear values
/// (a VEC3's alpha 1), on every panel, whatever welding and the GPU order
/// did to the vertices; without it, every vertex is white. The copies
/// along the quarters' seams, equal but for their colour, are not welded
/// (without colours, they are).
#[test]
fn vertex_colours_decode_from_every_encoding() {
    for encoding in ColorEncoding::ALL {
        let dir = common::scratch_dir(&format!("gltf_colors_{encoding:?}"));
        let path = dir.join("painted.glb");
        std::fs::write(&path, material_fixtures::painted_panels(encoding)).unwrap();
        let model = Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap();
        let mut worst = 0.0f32;
        for name in material_fixtures::PAINTED {
            let mesh = model.meshes.iter().find(|m| m.shader == name).unwrap();
            assert_eq!(
                mesh.colors.len(),
                mesh.positions.len(),
                "{encoding:?} {name}"
            );
            // The seams' copies are one vertex where nothing tells them apart.
            let kept = if encoding == ColorEncoding::Absent {
                9
            } else {
                16
            };
            assert_eq!(mesh.vertex_count(), kept, "{encoding:?} {name}");
            for (quarter, corners) in painted_triangles(&model, name) {
                let expected = encoding.decoded(material_fixtures::PAINT[quarter]);
                for got in corners {
                    worst = worst.max((got - expected).abs().max_element());
                }
            }
        }
        println!(
            "{encoding:?}: largest difference {:.2} of 1/65535",
            worst * 65535.0
        );
        assert!(worst <= 0.5 / 65535.0 + 1e-7, "{encoding:?}: {worst}");
    }
}

/// A COLOR_0 of a type the specification does not allow (SCALAR; integers
/// not normalized) is bad input: exit status 2, one line naming the file
/// and the attribute's JSON path.
#[test]
fn a_colour_of_the_wrong_type_is_refused_naming_its_path() {
    let bytes = material_fixtures::painted_panels(ColorEncoding::Unorm8Vec4);
    let file = gltf::Glb::from_slice(&bytes).unwrap();
    let document: Value = serde_json::from_slice(&file.json).unwrap();
    let color = document["meshes"][1]["primitives"][0]["attributes"]["COLOR_0"].clone();
    let edits: [(&str, Value, &[&str]); 2] = [
        ("scalar.glb", json!({"type": "SCALAR"}), &["found SCALAR"]),
        (
            "plain.glb",
            json!({"normalized": false}),
            &["not normalized"],
        ),
    ];
    for (name, fields, message) in edits {
        let mut edited = document.clone();
        let accessor = &mut edited["accessors"][color.as_u64().unwrap() as usize];
        for (key, value) in fields.as_object().unwrap() {
            accessor[key] = value.clone();
        }
        let dir = common::scratch_dir(&format!("gltf_colors_bad_{name}"));
        let path = dir.join(name);
        std::fs::write(&path, glb(&edited, file.bin.as_deref())).unwrap();
        let out = common::md5crowd_as_typed(&["inspect", common::arg(&path)]);
        let mut parts = vec![name, "meshes[0].primitives[0].attributes.COLOR_0"];
        parts.extend(message);
        common::assert_bad_input(&out, &parts);
    }
}
