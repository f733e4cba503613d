//! KHR_draco_mesh_compression: a primitive's attributes and indices
//! stored as one Draco bitstream, decoded by the `draco-core` crate (see
//! Cargo.toml for why that decoder) into a buffer of plain accessors, one
//! tightly packed view each. Counts are the accessors' word until decoded;
//! the bytes are allocated only once the decoded mesh agrees with them.

use draco_core::{DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointIndex};
use serde_json::{Map, Value};

use super::prepare::{append, array_len, index_field};
use super::GltfError;

const EXTENSION: &str = "KHR_draco_mesh_compression";

/// One accessor the decoded mesh fills.
struct Target {
    accessor: usize,
    /// The Draco attribute's unique id; `None` for the indices.
    unique_id: Option<u32>,
    /// Its declared layout: component type (glTF code), components per
    /// element, element count.
    component_type: u64,
    components: usize,
    count: usize,
    /// Its view's offset in the decoded buffer.
    offset: usize,
}

/// A Draco-compressed primitive.
pub struct DracoPrimitive {
    /// `meshes[m].primitives[p].extensions.KHR_draco_mesh_compression`.
    pub path: String,
    /// The buffer view holding the bitstream.
    pub view: usize,
    targets: Vec<Target>,
}

impl DracoPrimitive {
    /// Every primitive of the document that must be decoded: one whose
    /// accessors have no data of their own (an uncompressed fallback is
    /// read as it is). `views` is how many buffer views the file declares.
    pub fn read_all(
        name: &str,
        json: &Value,
        views: usize,
    ) -> Result<Vec<DracoPrimitive>, GltfError> {
        let mut primitives = Vec::new();
        let mut claimed = vec![false; array_len(json, "accessors")];
        for (m, mesh) in json["meshes"].as_array().into_iter().flatten().enumerate() {
            let list = mesh["primitives"].as_array().into_iter().flatten();
            for (p, primitive) in list.enumerate() {
                let extension = &primitive["extensions"][EXTENSION];
                if !extension.is_object() {
                    continue;
                }
                let path = format!("meshes[{m}].primitives[{p}].extensions.{EXTENSION}");
                let draco = DracoPrimitive::read(name, json, primitive, extension, path, views)?;
                let Some(draco) = draco else { continue };
                for target in &draco.targets {
                    if std::mem::replace(&mut claimed[target.accessor], true) {
                        return Err(GltfError::new(
                            name,
                            format!("accessors[{}]", target.accessor),
                            "filled by two Draco primitives",
                        ));
                    }
                }
                primitives.push(draco);
            }
        }
        Ok(primitives)
    }

    fn read(
        name: &str,
        json: &Value,
        primitive: &Value,
        extension: &Value,
        path: String,
        views: usize,
    ) -> Result<Option<DracoPrimitive>, GltfError> {
        let error =
            |at: &str, message: String| GltfError::new(name, format!("{path}{at}"), message);
        let view = index_field(name, extension, "bufferView", &path)?;
        if view >= views {
            return Err(error(
                ".bufferView",
                format!("{view}, but the file has {views} buffer views"),
            ));
        }
        let Some(attributes) = extension["attributes"].as_object() else {
            return Err(error(".attributes", "expected an object".into()));
        };
        let mut wanted: Vec<(&Value, Option<u32>, String)> = Vec::new();
        for (semantic, id) in attributes {
            let id = id
                .as_u64()
                .and_then(|id| u32::try_from(id).ok())
                .ok_or_else(|| {
                    error(
                        &format!(".attributes.{semantic}"),
                        format!("expected a Draco attribute id, found {id}"),
                    )
                })?;
            wanted.push((
                &primitive["attributes"][semantic],
                Some(id),
                semantic.clone(),
            ));
        }
        if !primitive["indices"].is_null() {
            wanted.push((&primitive["indices"], None, "indices".into()));
        }
        let accessor_count = array_len(json, "accessors");
        let mut targets = Vec::new();
        let mut offset = 0usize;
        for (accessor, unique_id, what) in wanted {
            let accessor = accessor
                .as_u64()
                .and_then(|a| usize::try_from(a).ok())
                .filter(|&a| a < accessor_count)
                .ok_or_else(|| {
                    error(
                        "",
                        format!("{what}: the primitive names no accessor of the file for it"),
                    )
                })?;
            let target = target_of(name, &json["accessors"][accessor], accessor, unique_id)?;
            // Accessors with data of their own: the uncompressed fallback.
            if !json["accessors"][accessor]["bufferView"].is_null() {
                return Ok(None);
            }
            let length = element_size(target.component_type) * target.components;
            let bytes = target.count.checked_mul(length).ok_or_else(|| {
                GltfError::new(name, format!("accessors[{accessor}]"), "its size overflows")
            })?;
            offset = offset
                .checked_add(bytes.next_multiple_of(4))
                .ok_or_else(|| error("", "the decoded accessors' sizes overflow".into()))?;
            targets.push(Target {
                offset: offset - bytes.next_multiple_of(4),
                ..target
            });
        }
        Ok(Some(DracoPrimitive {
            path,
            view,
            targets,
        }))
    }

    /// Points the primitive's accessors at views of buffer `buffer`, which
    /// the decoded mesh fills; the buffer's length.
    pub fn place(&self, json: &mut Value, buffer: usize) -> usize {
        let mut end = 0;
        for target in &self.targets {
            let length = target.count * element_size(target.component_type) * target.components;
            let mut view = Map::new();
            view.insert("buffer".into(), buffer.into());
            view.insert("byteOffset".into(), target.offset.into());
            view.insert("byteLength".into(), length.max(1).into());
            let index = append(json, "bufferViews", Value::Object(view));
            if let Some(accessor) = json["accessors"][target.accessor].as_object_mut() {
                accessor.insert("bufferView".into(), index.into());
                accessor.insert("byteOffset".into(), 0.into());
            }
            end = target.offset + length.next_multiple_of(4);
        }
        end
    }

    /// The buffer `place` laid out, decoded from the bitstream `bytes`.
    pub fn decode(&self, name: &str, bytes: &[u8]) -> Result<Vec<u8>, GltfError> {
        let error = |message: String| GltfError::new(name, &self.path, message);
        let mut mesh = Mesh::new();
        MeshDecoder::new()
            .decode(&mut DecoderBuffer::new(bytes), &mut mesh)
            .map_err(|e| {
                error(format!(
                    "bufferViews[{}] does not decode as a Draco mesh: {e}",
                    self.view
                ))
            })?;
        let points = mesh.num_points();
        let mut columns = Vec::with_capacity(self.targets.len());
        for target in &self.targets {
            let accessor_error = |message: String| {
                GltfError::new(name, format!("accessors[{}]", target.accessor), message)
            };
            let values = match target.unique_id {
                Some(id) => {
                    if target.count != points {
                        return Err(accessor_error(format!(
                            "count {}, but the Draco mesh of {} has {points} points",
                            target.count, self.path
                        )));
                    }
                    let attribute = mesh
                        .attribute_by_unique_id(id)
                        .ok_or_else(|| error(format!("the Draco mesh has no attribute {id}")))?;
                    attribute_values(attribute, points, target.components)
                        .map_err(|m| error(format!("attribute {id}: {m}")))?
                }
                None => {
                    let faces = mesh.num_faces();
                    if Some(target.count) != faces.checked_mul(3) {
                        return Err(accessor_error(format!(
                            "count {}, but the Draco mesh of {} has {faces} triangles",
                            target.count, self.path
                        )));
                    }
                    let largest = match target.component_type {
                        5121 => usize::from(u8::MAX),
                        5123 => usize::from(u16::MAX),
                        _ => u32::MAX as usize,
                    };
                    if points > largest + 1 {
                        return Err(accessor_error(format!(
                            "indices of {points} points do not fit its component type"
                        )));
                    }
                    (0..faces)
                        .flat_map(|f| mesh.face(draco_core::FaceIndex(f as u32)))
                        .map(|p| f64::from(p.0))
                        .collect()
                }
            };
            columns.push(values);
        }
        let end = self.targets.last().map_or(0, |t| {
            t.offset + (t.count * element_size(t.component_type) * t.components).next_multiple_of(4)
        });
        let mut buffer = vec![0u8; end];
        for (target, values) in self.targets.iter().zip(columns) {
            let size = element_size(target.component_type);
            for (k, value) in values.into_iter().enumerate() {
                let at = target.offset + k * size;
                write_component(&mut buffer[at..at + size], target.component_type, value);
            }
        }
        Ok(buffer)
    }
}

/// Accessor `value`'s layout, checked: a Draco target must say what it
/// decodes to.
fn target_of(
    name: &str,
    value: &Value,
    accessor: usize,
    unique_id: Option<u32>,
) -> Result<Target, GltfError> {
    let path = format!("accessors[{accessor}]");
    let component_type = value["componentType"].as_u64().unwrap_or(0);
    let components = match value["type"].as_str() {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        _ => {
            return Err(GltfError::new(
                name,
                format!("{path}.type"),
                format!("a Draco attribute of type {}", value["type"]),
            ))
        }
    };
    if element_size(component_type) == 0 {
        return Err(GltfError::new(
            name,
            format!("{path}.componentType"),
            format!(
                "a Draco attribute of component type {}",
                value["componentType"]
            ),
        ));
    }
    Ok(Target {
        accessor,
        unique_id,
        component_type,
        components,
        count: index_field(name, value, "count", &path)?,
        offset: 0,
    })
}

/// Bytes per component of glTF component type `code` (0: not one).
fn element_size(code: u64) -> usize {
    match code {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        _ => 0,
    }
}

/// `components` values per point of `attribute`, point by point, as f64
/// (exact for every type Draco stores glTF attributes in).
fn attribute_values(
    attribute: &PointAttribute,
    points: usize,
    components: usize,
) -> Result<Vec<f64>, String> {
    let stored = usize::from(attribute.num_components());
    if stored < components {
        return Err(format!(
            "{stored} components per value, the accessor needs {components}"
        ));
    }
    let data_type = attribute.data_type();
    let size = data_type.byte_length();
    let data = attribute.buffer().data();
    let stride = usize::try_from(attribute.byte_stride()).map_err(|e| e.to_string())?;
    let mut values = Vec::with_capacity(points * components);
    for point in 0..points {
        let index = attribute.mapped_index(PointIndex(point as u32)).0 as usize;
        for c in 0..components {
            let at = index
                .checked_mul(stride)
                .and_then(|a| a.checked_add(c * size))
                .filter(|&a| a + size <= data.len())
                .ok_or_else(|| format!("point {point}'s value lies past the decoded data"))?;
            values.push(read_component(&data[at..at + size], data_type)?);
        }
    }
    Ok(values)
}

fn read_component(bytes: &[u8], data_type: draco_core::DataType) -> Result<f64, String> {
    use draco_core::DataType as T;
    let word = |n: usize| -> [u8; 8] {
        let mut w = [0; 8];
        w[..n].copy_from_slice(&bytes[..n]);
        w
    };
    Ok(match data_type {
        T::Int8 => f64::from(bytes[0] as i8),
        T::Uint8 | T::Bool => f64::from(bytes[0]),
        T::Int16 => f64::from(i16::from_le_bytes([bytes[0], bytes[1]])),
        T::Uint16 => f64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        T::Int32 => f64::from(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        T::Uint32 => f64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        T::Float32 => f64::from(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        T::Float64 => f64::from_le_bytes(word(8)),
        other => return Err(format!("values of type {other:?}")),
    })
}

/// `value` stored as glTF component type `code`, saturating.
fn write_component(out: &mut [u8], code: u64, value: f64) {
    match code {
        5120 => out.copy_from_slice(&(value as i8).to_le_bytes()),
        5121 => out.copy_from_slice(&(value as u8).to_le_bytes()),
        5122 => out.copy_from_slice(&(value as i16).to_le_bytes()),
        5123 => out.copy_from_slice(&(value as u16).to_le_bytes()),
        5125 => out.copy_from_slice(&(value as u32).to_le_bytes()),
        _ => out.copy_from_slice(&(value as f32).to_le_bytes()),
    }
}
