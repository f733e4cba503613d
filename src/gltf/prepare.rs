//! The document as the `gltf` crate can check it: the extensions the file
//! requires are checked against those md5crowd reads, and the ones that
//! change where data lies (meshopt-compressed buffer views, Draco
//! primitives, WebP textures) are rewritten into plain glTF that points at
//! buffers md5crowd fills by decoding. Nothing here reads a buffer: what
//! each decoder needs is recorded, with every index it names checked.

use serde_json::{Map, Value};

use super::draco::DracoPrimitive;
use super::material_json::mend_materials;
use super::meshopt::MeshoptView;
use super::GltfError;

/// The extensions md5crowd reads, in what it says when a file requires
/// another.
pub const READ_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "KHR_draco_mesh_compression",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_texture_transform",
    "EXT_texture_webp",
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
];

/// Of [`READ_EXTENSIONS`], those the `gltf` crate reads itself (its
/// features); the others are rewritten away here, so it never sees them.
const READ_BY_GLTF_CRATE: &[&str] = &[
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_texture_transform",
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
];

/// A buffer md5crowd makes: the decoded bytes of a compressed view or
/// primitive, appended after the file's own buffers.
pub enum Decode {
    Meshopt(MeshoptView),
    Draco(DracoPrimitive),
}

/// The rewritten document and what fills the buffers it gained.
pub struct Prepared {
    pub json: Value,
    /// How many buffers the file itself declares; buffer `original + k`
    /// is filled by `decodes[k]`.
    pub original_buffers: usize,
    pub decodes: Vec<Decode>,
    /// Per file buffer, whether it is a meshopt fallback: a placeholder
    /// with no bytes of its own.
    pub fallback: Vec<bool>,
    /// What `material_json::mend_materials` mended.
    pub material_warnings: Vec<String>,
}

/// `json` (the document) checked and rewritten; see the module comment.
pub fn prepare(name: &str, mut json: Value) -> Result<Prepared, GltfError> {
    check_required(name, &json)?;
    if !json.is_object() {
        return Err(GltfError::new(
            name,
            "",
            "the document is not a JSON object",
        ));
    }
    check_channel_targets(name, &json)?;
    if let Some(Value::Array(required)) = json.get_mut("extensionsRequired") {
        required.retain(|e| {
            e.as_str()
                .is_some_and(|e| READ_BY_GLTF_CRATE.contains(&e) || !READ_EXTENSIONS.contains(&e))
        });
    }
    let original_buffers = array_len(&json, "buffers");
    let fallback = (0..original_buffers)
        .map(|b| {
            let extensions = &json["buffers"][b]["extensions"];
            ["EXT_meshopt_compression", "KHR_meshopt_compression"]
                .iter()
                .any(|e| extensions[*e]["fallback"] == true)
        })
        .collect();
    let mut decodes = Vec::new();
    let view_count = array_len(&json, "bufferViews");
    for view in 0..view_count {
        if let Some(meshopt) =
            MeshoptView::read(name, &json["bufferViews"][view], view, original_buffers)?
        {
            let length = meshopt.decoded_length();
            let target = original_buffers + decodes.len();
            json["bufferViews"][view] = rewritten_view(&json["bufferViews"][view], target, length);
            push_buffer(&mut json, length);
            decodes.push(Decode::Meshopt(meshopt));
        }
    }
    for primitive in DracoPrimitive::read_all(name, &json, view_count)? {
        let target = original_buffers + decodes.len();
        let length = primitive.place(&mut json, target);
        push_buffer(&mut json, length);
        decodes.push(Decode::Draco(primitive));
    }
    prefer_webp_sources(&mut json);
    let material_warnings = mend_materials(name, &mut json);
    Ok(Prepared {
        material_warnings,
        json,
        original_buffers,
        decodes,
        fallback,
    })
}

/// One line naming every extension the file requires and md5crowd does
/// not read.
fn check_required(name: &str, json: &Value) -> Result<(), GltfError> {
    let unread: Vec<String> = json["extensionsRequired"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| !e.as_str().is_some_and(|e| READ_EXTENSIONS.contains(&e)))
        .map(|e| e.to_string())
        .collect();
    if unread.is_empty() {
        return Ok(());
    }
    Err(GltfError::new(
        name,
        "extensionsRequired",
        format!(
            "the file requires {}, which md5crowd cannot read (it reads {})",
            unread.join(", "),
            READ_EXTENSIONS.join(", ")
        ),
    ))
}

/// Every animation channel's target node is one of the file's: the `gltf`
/// crate checks the other indices, not this one.
fn check_channel_targets(name: &str, json: &Value) -> Result<(), GltfError> {
    let nodes = array_len(json, "nodes");
    for (a, animation) in json["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (c, channel) in animation["channels"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let node = &channel["target"]["node"];
            if node.is_null() || node.as_u64().is_some_and(|n| n < nodes as u64) {
                continue;
            }
            return Err(GltfError::new(
                name,
                format!("animations[{a}].channels[{c}].target.node"),
                format!("{node}, but the file has {nodes} nodes"),
            ));
        }
    }
    Ok(())
}

/// EXT_texture_webp: the texture's WebP image is the one drawn (its
/// `source`, if any, is the fallback for viewers without WebP).
fn prefer_webp_sources(json: &mut Value) {
    let Some(Value::Array(textures)) = json.get_mut("textures") else {
        return;
    };
    for texture in textures.iter_mut().filter_map(Value::as_object_mut) {
        let webp = texture
            .get("extensions")
            .and_then(|e| e.get("EXT_texture_webp"))
            .and_then(|w| w.get("source"))
            .cloned();
        if let Some(source) = webp {
            texture.insert("source".into(), source);
        }
    }
}

pub fn array_len(json: &Value, key: &str) -> usize {
    json.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// A view that reads `length` bytes from the start of buffer `buffer`,
/// keeping its stride and target.
fn rewritten_view(view: &Value, buffer: usize, length: usize) -> Value {
    let mut view = view.clone();
    if let Some(object) = view.as_object_mut() {
        object.insert("buffer".into(), buffer.into());
        object.insert("byteOffset".into(), 0.into());
        object.insert("byteLength".into(), length.into());
        object.remove("extensions");
    }
    view
}

/// Appends a buffer of `length` bytes, filled by a decoder.
pub fn push_buffer(json: &mut Value, length: usize) {
    let mut buffer = Map::new();
    buffer.insert("byteLength".into(), length.max(1).into());
    append(json, "buffers", Value::Object(buffer));
}

/// Appends `value` to the array `key` (made if missing); its index.
pub fn append(json: &mut Value, key: &str, value: Value) -> usize {
    let Some(root) = json.as_object_mut() else {
        return 0;
    };
    let array = root.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if !array.is_array() {
        *array = Value::Array(Vec::new());
    }
    match array {
        Value::Array(array) => {
            array.push(value);
            array.len() - 1
        }
        _ => 0,
    }
}

/// A non-negative integer field of `object`, or an error naming `path`.
pub fn index_field(name: &str, object: &Value, key: &str, path: &str) -> Result<usize, GltfError> {
    object[key]
        .as_u64()
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| {
            GltfError::new(
                name,
                format!("{path}.{key}"),
                format!("expected a non-negative integer, found {}", object[key]),
            )
        })
}
