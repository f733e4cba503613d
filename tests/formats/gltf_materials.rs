//! glTF materials as the loader reads them: the shading `inspect --json`
//! reports for each mesh, and bad input (a texture index out of range, an
//! alphaCutoff outside 0..1) as warnings naming the material's JSON path,
//! drawn with glTF's defaults; a required extension md5crowd does not read
//! still refuses the file.

use std::process::Command;

use serde_json::{json, Value};

use crate::common;
use common::gltf_write::glb;
use common::material_fixtures;
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
