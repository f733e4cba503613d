//! Materials as the `gltf` crate can take them: a texture reference past
//! the file's textures, which the crate would refuse the whole file for, is
//! taken out with a warning naming its JSON path, and the material draws
//! that map with glTF's default. An `alphaCutoff` outside 0..1 is reset to
//! glTF's 0.5 with a warning. A material is never an error.

use serde_json::Value;

use super::prepare::array_len;

/// Where a material keeps its textures' `textureInfo` objects, as paths
/// of object keys from the material.
const TEXTURE_INFOS: &[&[&str]] = &[
    &["pbrMetallicRoughness", "baseColorTexture"],
    &["pbrMetallicRoughness", "metallicRoughnessTexture"],
    &["normalTexture"],
    &["occlusionTexture"],
    &["emissiveTexture"],
    &[
        "extensions",
        "KHR_materials_pbrSpecularGlossiness",
        "diffuseTexture",
    ],
    &[
        "extensions",
        "KHR_materials_pbrSpecularGlossiness",
        "specularGlossinessTexture",
    ],
];

/// `json`'s materials mended as the module comment says; one line per
/// thing mended.
pub fn mend_materials(name: &str, json: &mut Value) -> Vec<String> {
    let textures = array_len(json, "textures");
    let mut warnings = Vec::new();
    let Some(Value::Array(materials)) = json.get_mut("materials") else {
        return warnings;
    };
    for (m, material) in materials.iter_mut().enumerate() {
        for keys in TEXTURE_INFOS {
            let Some((last, parents)) = keys.split_last() else {
                continue;
            };
            let Some(holder) = parents
                .iter()
                .try_fold(&mut *material, |value, key| value.get_mut(*key))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let Some(index) = holder.get(*last).map(|info| info["index"].clone()) else {
                continue;
            };
            if index.as_u64().is_some_and(|i| i < textures as u64) {
                continue;
            }
            holder.remove(*last);
            warnings.push(format!(
                "{name}: materials[{m}].{}.index: {index} is not one of the file's {textures} \
                 textures; drawn with glTF's default",
                keys.join(".")
            ));
        }
        let cutoff = &material["alphaCutoff"];
        if !cutoff.is_null() && !cutoff.as_f64().is_some_and(|c| (0.0..=1.0).contains(&c)) {
            warnings.push(format!(
                "{name}: materials[{m}].alphaCutoff: {cutoff} is outside 0..1; drawn with \
                 glTF's default 0.5"
            ));
            if let Some(object) = material.as_object_mut() {
                object.remove("alphaCutoff");
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::mend_materials;

    #[test]
    fn bad_texture_references_and_cutoffs_are_taken_out_with_their_paths() {
        let mut document = json!({
            "textures": [{"source": 0}],
            "materials": [
                {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
                {"normalTexture": {"index": 3}, "alphaCutoff": 1.5,
                 "pbrMetallicRoughness": {"metallicRoughnessTexture": {"index": -1}}},
                {"alphaCutoff": 0.25}
            ]
        });
        let warnings = mend_materials("f.gltf", &mut document);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with(
            "f.gltf: materials[1].pbrMetallicRoughness.metallicRoughnessTexture.index: -1"
        ));
        assert!(warnings[1].starts_with("f.gltf: materials[1].normalTexture.index: 3"));
        assert!(warnings[2].starts_with("f.gltf: materials[1].alphaCutoff: 1.5"));
        let bad = &document["materials"][1];
        assert!(bad.get("normalTexture").is_none() && bad.get("alphaCutoff").is_none());
        assert!(bad["pbrMetallicRoughness"]
            .get("metallicRoughnessTexture")
            .is_none());
        assert_eq!(
            document["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"],
            0
        );
        assert_eq!(document["materials"][2]["alphaCutoff"], 0.25);
    }
}
