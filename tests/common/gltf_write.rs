//! A glTF 2.0 writer for tests, written the way exporters write files: the
//! JSON built as `serde_json` values, the binary buffer laid out byte by
//! byte (little-endian, each buffer view starting on a 4-byte boundary).
//! One buffer per document. Everything added returns its index; arrays left
//! empty are left out of the JSON, as the spec asks.
//!
//! The fields are public so that bad-input fixtures can break a document
//! after building it.

use std::path::{Path, PathBuf};

use base64::Engine;
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde_json::{json, Map, Value};

/// `bufferView.target` for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// `bufferView.target` for indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// Sampler filters and wraps (GL enums).
pub const NEAREST: u32 = 9728;
pub const LINEAR: u32 = 9729;
pub const LINEAR_MIPMAP_LINEAR: u32 = 9987;
pub const REPEAT: u32 = 10497;

/// GLB chunk types, as the little-endian u32 of their four bytes.
pub const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
pub const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
pub const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// A component type of an accessor: its GL enum, its size, and how it is
/// written.
pub trait Component: Copy {
    const CODE: u32;
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn to_f64(self) -> f64;
}

macro_rules! component {
    ($t:ty, $code:expr) => {
        impl Component for $t {
            const CODE: u32 = $code;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
component!(i8, 5120);
component!(u8, 5121);
component!(i16, 5122);
component!(u16, 5123);
component!(u32, 5125);
component!(f32, 5126);

/// An accessor's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Scalar,
    Vec2,
    Vec3,
    Vec4,
    Mat4,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Scalar => "SCALAR",
            Type::Vec2 => "VEC2",
            Type::Vec3 => "VEC3",
            Type::Vec4 => "VEC4",
            Type::Mat4 => "MAT4",
        }
    }

    pub fn components(self) -> usize {
        match self {
            Type::Scalar => 1,
            Type::Vec2 => 2,
            Type::Vec3 => 3,
            Type::Vec4 => 4,
            Type::Mat4 => 16,
        }
    }
}

/// How [`GltfBuilder::accessor`] lays out and describes its values.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    /// Integer components read as [0, 1] (unsigned) or [-1, 1] (signed).
    pub normalized: bool,
    /// Write `min` and `max` (per component, over all elements), as
    /// exporters do for POSITION and animation inputs.
    pub min_max: bool,
    /// Bytes from one element to the next in the buffer view (the gap
    /// filled with zeros) and written as its `byteStride`; `None`: tightly
    /// packed, no `byteStride`.
    pub stride: Option<usize>,
    /// The buffer view's `target`.
    pub target: Option<u32>,
}

impl Layout {
    /// A vertex attribute: ARRAY_BUFFER.
    pub const VERTEX: Layout = Layout {
        normalized: false,
        min_max: false,
        stride: None,
        target: Some(ARRAY_BUFFER),
    };
    /// POSITION: ARRAY_BUFFER with min and max.
    pub const POSITION: Layout = Layout {
        normalized: false,
        min_max: true,
        stride: None,
        target: Some(ARRAY_BUFFER),
    };
    /// Normalized integers in ARRAY_BUFFER (weights, colours).
    pub const NORMALIZED: Layout = Layout {
        normalized: true,
        min_max: false,
        stride: None,
        target: Some(ARRAY_BUFFER),
    };
    /// Indices: ELEMENT_ARRAY_BUFFER.
    pub const INDICES: Layout = Layout {
        normalized: false,
        min_max: false,
        stride: None,
        target: Some(ELEMENT_ARRAY_BUFFER),
    };
    /// No target, no min or max (inverse bind matrices, animation outputs).
    pub const PLAIN: Layout = Layout {
        normalized: false,
        min_max: false,
        stride: None,
        target: None,
    };
    /// Animation input times: no target, min and max.
    pub const TIMES: Layout = Layout {
        normalized: false,
        min_max: true,
        stride: None,
        target: None,
    };
}

/// A node; everything left `None` or empty is left out.
#[derive(Clone, Debug, Default)]
pub struct Node {
    pub name: Option<String>,
    pub translation: Option<Vec3>,
    pub rotation: Option<Quat>,
    pub scale: Option<Vec3>,
    /// Instead of translation, rotation and scale (column-major).
    pub matrix: Option<Mat4>,
    pub children: Vec<usize>,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// Its mesh's morph weights, over the mesh's own.
    pub weights: Option<Vec<f32>>,
}

impl Node {
    pub fn named(name: &str) -> Node {
        Node {
            name: Some(name.to_owned()),
            ..Node::default()
        }
    }
}

/// One primitive of a mesh: attribute semantics to accessors.
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    pub attributes: Vec<(String, usize)>,
    pub indices: Option<usize>,
    pub material: Option<usize>,
    /// 4 (triangles) when left out.
    pub mode: Option<u32>,
    /// Morph targets, each attribute semantics to displacement accessors.
    pub targets: Vec<Vec<(String, usize)>>,
}

impl Primitive {
    pub fn attribute(mut self, semantic: &str, accessor: usize) -> Primitive {
        self.attributes.push((semantic.to_owned(), accessor));
        self
    }
}

/// A metallic-roughness material; `None` leaves a field to its default.
#[derive(Clone, Debug, Default)]
pub struct Material {
    pub name: Option<String>,
    pub base_color_factor: Option<[f32; 4]>,
    /// A texture index (texCoord 0).
    pub base_color_texture: Option<usize>,
    pub metallic_factor: Option<f32>,
    pub roughness_factor: Option<f32>,
    pub metallic_roughness_texture: Option<usize>,
    pub normal_texture: Option<usize>,
    pub normal_scale: Option<f32>,
    pub double_sided: bool,
    /// "OPAQUE" when left out.
    pub alpha_mode: Option<&'static str>,
    pub alpha_cutoff: Option<f32>,
    pub emissive_factor: Option<[f32; 3]>,
    /// KHR_materials_emissive_strength, as Blender writes an emission
    /// strength over 1.
    pub emissive_strength: Option<f32>,
    /// KHR_materials_unlit, as Blender writes a "Background" shader.
    pub unlit: bool,
}

/// An animation channel's target property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Translation,
    Rotation,
    Scale,
    /// Morph target weights: per key, one scalar per target of the node's
    /// mesh.
    Weights,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    /// Outputs are (in-tangent, value, out-tangent) triplets per key.
    CubicSpline,
}

/// One animation channel with its own sampler.
#[derive(Clone, Copy, Debug)]
pub struct Channel {
    pub node: usize,
    pub property: Property,
    /// Key times (SCALAR f32, with min and max).
    pub input: usize,
    pub output: usize,
    pub interpolation: Interpolation,
}

/// The glTF being built.
#[derive(Clone, Debug, Default)]
pub struct GltfBuilder {
    /// The one binary buffer.
    pub buffer: Vec<u8>,
    pub buffer_views: Vec<Value>,
    pub accessors: Vec<Value>,
    pub nodes: Vec<Value>,
    pub skins: Vec<Value>,
    pub meshes: Vec<Value>,
    pub materials: Vec<Value>,
    pub textures: Vec<Value>,
    pub images: Vec<Value>,
    pub samplers: Vec<Value>,
    pub animations: Vec<Value>,
    pub scenes: Vec<Value>,
    /// The default scene; the first scene added unless set.
    pub scene: Option<usize>,
    /// Files the document names by relative URI (external images): the
    /// file name as on disk, and its bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

fn push(list: &mut Vec<Value>, value: Value) -> usize {
    list.push(value);
    list.len() - 1
}

fn vec3(v: Vec3) -> Value {
    json!([v.x, v.y, v.z])
}

impl GltfBuilder {
    pub fn new() -> GltfBuilder {
        GltfBuilder::default()
    }

    /// Appends `bytes` to the buffer at the next 4-byte boundary (zeros
    /// in between); returns where they start.
    pub fn append(&mut self, bytes: &[u8]) -> usize {
        while !self.buffer.len().is_multiple_of(4) {
            self.buffer.push(0);
        }
        let offset = self.buffer.len();
        self.buffer.extend_from_slice(bytes);
        offset
    }

    /// A buffer view over `bytes`, appended to the buffer.
    pub fn view(&mut self, bytes: &[u8], stride: Option<usize>, target: Option<u32>) -> usize {
        let offset = self.append(bytes);
        let mut view = json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()});
        if let Some(stride) = stride {
            view["byteStride"] = json!(stride);
        }
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        push(&mut self.buffer_views, view)
    }

    /// An accessor of `values` (components in order, `ty.components()`
    /// per element) in a buffer view of its own.
    pub fn accessor<T: Component>(&mut self, values: &[T], ty: Type, layout: Layout) -> usize {
        let n = ty.components();
        assert!(
            !values.is_empty() && values.len().is_multiple_of(n),
            "{} values do not make {} elements",
            values.len(),
            ty.name()
        );
        assert!(
            ty != Type::Mat4 || T::SIZE == 4,
            "matrix columns of 1- or 2-byte components need padding"
        );
        let count = values.len() / n;
        let element = n * T::SIZE;
        let mut bytes = Vec::with_capacity(values.len() * T::SIZE);
        match layout.stride {
            Some(stride) => {
                assert!(stride >= element && stride.is_multiple_of(4) && stride <= 252);
                for chunk in values.chunks_exact(n) {
                    let start = bytes.len();
                    chunk.iter().for_each(|c| c.put(&mut bytes));
                    bytes.resize(start + stride, 0);
                }
                // The last element needs only its own bytes.
                bytes.truncate((count - 1) * stride + element);
            }
            None => values.iter().for_each(|c| c.put(&mut bytes)),
        }
        let view = self.view(&bytes, layout.stride, layout.target);
        let mut accessor = json!({
            "bufferView": view,
            "byteOffset": 0,
            "componentType": T::CODE,
            "count": count,
            "type": ty.name(),
        });
        if layout.normalized {
            accessor["normalized"] = json!(true);
        }
        if layout.min_max {
            let as_f64: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
            let (min, max) = min_max(&as_f64, n);
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        push(&mut self.accessors, accessor)
    }

    /// A sparse accessor of `count` elements: `base` (in a buffer view of
    /// its own) or, without one, zeros, with element `indices[i]` replaced
    /// by the `i`th element of `values`. `indices` must increase (u8, u16
    /// or u32). With `min_max`, min and max are those of the elements as
    /// replaced.
    #[allow(clippy::too_many_arguments)]
    pub fn sparse_accessor<T: Component, I: Component>(
        &mut self,
        base: Option<&[T]>,
        count: usize,
        ty: Type,
        normalized: bool,
        indices: &[I],
        values: &[T],
        min_max_too: bool,
    ) -> usize {
        let n = ty.components();
        assert_eq!(values.len(), indices.len() * n);
        let mut effective: Vec<f64> = match base {
            Some(base) => {
                assert_eq!(base.len(), count * n);
                base.iter().map(|v| v.to_f64()).collect()
            }
            None => vec![0.0; count * n],
        };
        for (i, index) in indices.iter().enumerate() {
            let at = index.to_f64() as usize;
            assert!(at < count);
            for c in 0..n {
                effective[at * n + c] = values[i * n + c].to_f64();
            }
        }
        let mut accessor = json!({
            "componentType": T::CODE,
            "count": count,
            "type": ty.name(),
        });
        if let Some(base) = base {
            let mut bytes = Vec::new();
            base.iter().for_each(|c| c.put(&mut bytes));
            accessor["bufferView"] = json!(self.view(&bytes, None, Some(ARRAY_BUFFER)));
            accessor["byteOffset"] = json!(0);
        }
        if normalized {
            accessor["normalized"] = json!(true);
        }
        let mut index_bytes = Vec::new();
        indices.iter().for_each(|c| c.put(&mut index_bytes));
        let index_view = self.view(&index_bytes, None, None);
        let mut value_bytes = Vec::new();
        values.iter().for_each(|c| c.put(&mut value_bytes));
        let value_view = self.view(&value_bytes, None, None);
        accessor["sparse"] = json!({
            "count": indices.len(),
            "indices": {"bufferView": index_view, "byteOffset": 0, "componentType": I::CODE},
            "values": {"bufferView": value_view, "byteOffset": 0},
        });
        if min_max_too {
            let (min, max) = min_max(&effective, n);
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        push(&mut self.accessors, accessor)
    }

    /// POSITION: f32 VEC3 with min and max.
    pub fn positions(&mut self, positions: &[Vec3]) -> usize {
        self.accessor(&flat3(positions), Type::Vec3, Layout::POSITION)
    }

    /// A vertex attribute of f32 VEC3 (NORMAL).
    pub fn vec3s(&mut self, values: &[Vec3]) -> usize {
        self.accessor(&flat3(values), Type::Vec3, Layout::VERTEX)
    }

    /// A vertex attribute of f32 VEC2 (TEXCOORD_n).
    pub fn vec2s(&mut self, values: &[Vec2]) -> usize {
        let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
        self.accessor(&flat, Type::Vec2, Layout::VERTEX)
    }

    /// A vertex attribute of f32 VEC4 (TANGENT, WEIGHTS_n).
    pub fn vec4s(&mut self, values: &[Vec4]) -> usize {
        let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
        self.accessor(&flat, Type::Vec4, Layout::VERTEX)
    }

    /// Animation output of translations or scales: f32 VEC3, no target.
    pub fn vec3_output(&mut self, values: &[Vec3]) -> usize {
        self.accessor(&flat3(values), Type::Vec3, Layout::PLAIN)
    }

    /// Animation output of rotations: f32 VEC4 (x, y, z, w), no target.
    pub fn quat_output(&mut self, values: &[Quat]) -> usize {
        let flat: Vec<f32> = values.iter().flat_map(|q| q.to_array()).collect();
        self.accessor(&flat, Type::Vec4, Layout::PLAIN)
    }

    /// Animation input: key times in seconds, with min and max.
    pub fn times(&mut self, seconds: &[f32]) -> usize {
        self.accessor(seconds, Type::Scalar, Layout::TIMES)
    }

    /// Inverse bind matrices: f32 MAT4, column-major.
    pub fn matrices(&mut self, matrices: &[Mat4]) -> usize {
        let flat: Vec<f32> = matrices.iter().flat_map(|m| m.to_cols_array()).collect();
        self.accessor(&flat, Type::Mat4, Layout::PLAIN)
    }

    pub fn indices_u16(&mut self, indices: &[u16]) -> usize {
        self.accessor(indices, Type::Scalar, Layout::INDICES)
    }

    pub fn indices_u32(&mut self, indices: &[u32]) -> usize {
        self.accessor(indices, Type::Scalar, Layout::INDICES)
    }

    pub fn node(&mut self, node: Node) -> usize {
        let mut json = Map::new();
        if let Some(name) = node.name {
            json.insert("name".into(), json!(name));
        }
        if let Some(m) = node.matrix {
            json.insert("matrix".into(), json!(m.to_cols_array()));
        }
        if let Some(t) = node.translation {
            json.insert("translation".into(), vec3(t));
        }
        if let Some(r) = node.rotation {
            json.insert("rotation".into(), json!(r.to_array()));
        }
        if let Some(s) = node.scale {
            json.insert("scale".into(), vec3(s));
        }
        if !node.children.is_empty() {
            json.insert("children".into(), json!(node.children));
        }
        if let Some(mesh) = node.mesh {
            json.insert("mesh".into(), json!(mesh));
        }
        if let Some(skin) = node.skin {
            json.insert("skin".into(), json!(skin));
        }
        if let Some(weights) = node.weights {
            json.insert("weights".into(), json!(weights));
        }
        push(&mut self.nodes, Value::Object(json))
    }

    /// Makes `child` a child of `parent` (after those it has).
    pub fn add_child(&mut self, parent: usize, child: usize) {
        let node = self.nodes[parent].as_object_mut().unwrap();
        node.entry("children")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!(child));
    }

    /// A skin over the `joints` nodes; `inverse_bind_matrices` an accessor
    /// of one MAT4 per joint (none: identities).
    pub fn skin(
        &mut self,
        name: &str,
        joints: &[usize],
        inverse_bind_matrices: Option<usize>,
        skeleton: Option<usize>,
    ) -> usize {
        let mut skin = json!({"name": name, "joints": joints});
        if let Some(ibm) = inverse_bind_matrices {
            skin["inverseBindMatrices"] = json!(ibm);
        }
        if let Some(skeleton) = skeleton {
            skin["skeleton"] = json!(skeleton);
        }
        push(&mut self.skins, skin)
    }

    /// A mesh; `weights` are the morph targets' default weights.
    pub fn mesh(&mut self, name: &str, primitives: &[Primitive], weights: Option<&[f32]>) -> usize {
        fn attributes(list: &[(String, usize)]) -> Value {
            let map: Map<String, Value> = list
                .iter()
                .map(|(semantic, accessor)| (semantic.clone(), json!(accessor)))
                .collect();
            Value::Object(map)
        }
        let primitives: Vec<Value> = primitives
            .iter()
            .map(|p| {
                let mut json = json!({"attributes": attributes(&p.attributes)});
                if let Some(indices) = p.indices {
                    json["indices"] = json!(indices);
                }
                if let Some(material) = p.material {
                    json["material"] = json!(material);
                }
                if let Some(mode) = p.mode {
                    json["mode"] = json!(mode);
                }
                if !p.targets.is_empty() {
                    json["targets"] =
                        Value::Array(p.targets.iter().map(|t| attributes(t)).collect());
                }
                json
            })
            .collect();
        let mut mesh = json!({"name": name, "primitives": primitives});
        if let Some(weights) = weights {
            mesh["weights"] = json!(weights);
        }
        push(&mut self.meshes, mesh)
    }

    pub fn material(&mut self, material: Material) -> usize {
        let mut pbr = Map::new();
        if let Some(f) = material.base_color_factor {
            pbr.insert("baseColorFactor".into(), json!(f));
        }
        if let Some(t) = material.base_color_texture {
            pbr.insert("baseColorTexture".into(), json!({"index": t}));
        }
        if let Some(m) = material.metallic_factor {
            pbr.insert("metallicFactor".into(), json!(m));
        }
        if let Some(r) = material.roughness_factor {
            pbr.insert("roughnessFactor".into(), json!(r));
        }
        if let Some(t) = material.metallic_roughness_texture {
            pbr.insert("metallicRoughnessTexture".into(), json!({"index": t}));
        }
        let mut json = Map::new();
        if let Some(name) = material.name {
            json.insert("name".into(), json!(name));
        }
        if !pbr.is_empty() {
            json.insert("pbrMetallicRoughness".into(), Value::Object(pbr));
        }
        if let Some(t) = material.normal_texture {
            let mut info = json!({"index": t});
            if let Some(scale) = material.normal_scale {
                info["scale"] = json!(scale);
            }
            json.insert("normalTexture".into(), info);
        }
        if material.double_sided {
            json.insert("doubleSided".into(), json!(true));
        }
        if let Some(mode) = material.alpha_mode {
            json.insert("alphaMode".into(), json!(mode));
        }
        if let Some(cutoff) = material.alpha_cutoff {
            json.insert("alphaCutoff".into(), json!(cutoff));
        }
        if let Some(emissive) = material.emissive_factor {
            json.insert("emissiveFactor".into(), json!(emissive));
        }
        let mut extensions = Map::new();
        if let Some(strength) = material.emissive_strength {
            extensions.insert(
                "KHR_materials_emissive_strength".into(),
                json!({"emissiveStrength": strength}),
            );
        }
        if material.unlit {
            extensions.insert("KHR_materials_unlit".into(), json!({}));
        }
        if !extensions.is_empty() {
            json.insert("extensions".into(), Value::Object(extensions));
        }
        push(&mut self.materials, Value::Object(json))
    }

    /// A sampler; `None` filters are left to the viewer.
    pub fn sampler(
        &mut self,
        mag: Option<u32>,
        min: Option<u32>,
        wrap_s: u32,
        wrap_t: u32,
    ) -> usize {
        let mut sampler = json!({"wrapS": wrap_s, "wrapT": wrap_t});
        if let Some(mag) = mag {
            sampler["magFilter"] = json!(mag);
        }
        if let Some(min) = min {
            sampler["minFilter"] = json!(min);
        }
        push(&mut self.samplers, sampler)
    }

    pub fn texture(&mut self, image: usize, sampler: Option<usize>) -> usize {
        let mut texture = json!({"source": image});
        if let Some(sampler) = sampler {
            texture["sampler"] = json!(sampler);
        }
        push(&mut self.textures, texture)
    }

    /// An image stored in the buffer (a buffer view and its MIME type), as
    /// in a .glb.
    pub fn image_in_buffer(&mut self, name: &str, bytes: &[u8], mime_type: &str) -> usize {
        let view = self.view(bytes, None, None);
        push(
            &mut self.images,
            json!({"name": name, "bufferView": view, "mimeType": mime_type}),
        )
    }

    /// An image inside the JSON as a base64 `data:` URI.
    pub fn image_data_uri(&mut self, name: &str, bytes: &[u8], mime_type: &str) -> usize {
        let uri = data_uri(mime_type, bytes);
        push(&mut self.images, json!({"name": name, "uri": uri}))
    }

    /// An image in a file beside the document, `file_name` as on disk (its
    /// URI percent-encoded); written by [`GltfBuilder::write_gltf`] and
    /// [`GltfBuilder::write_glb`].
    pub fn image_file(&mut self, file_name: &str, bytes: Vec<u8>) -> usize {
        self.files.push((file_name.to_owned(), bytes));
        push(
            &mut self.images,
            json!({"name": file_name, "uri": uri_encode(file_name)}),
        )
    }

    /// An animation, one sampler per channel.
    pub fn animation(&mut self, name: &str, channels: &[Channel]) -> usize {
        let index = push(
            &mut self.animations,
            json!({"name": name, "channels": [], "samplers": []}),
        );
        for channel in channels {
            self.add_channel(index, channel);
        }
        index
    }

    /// Appends `channel`, with a sampler of its own, to animation
    /// `animation`.
    pub fn add_channel(&mut self, animation: usize, channel: &Channel) {
        let interpolation = match channel.interpolation {
            Interpolation::Linear => "LINEAR",
            Interpolation::Step => "STEP",
            Interpolation::CubicSpline => "CUBICSPLINE",
        };
        let path = match channel.property {
            Property::Translation => "translation",
            Property::Rotation => "rotation",
            Property::Scale => "scale",
            Property::Weights => "weights",
        };
        let animation = &mut self.animations[animation];
        let samplers = animation["samplers"].as_array_mut().unwrap();
        samplers.push(json!({
            "input": channel.input,
            "output": channel.output,
            "interpolation": interpolation,
        }));
        let sampler = samplers.len() - 1;
        animation["channels"]
            .as_array_mut()
            .unwrap()
            .push(json!({"sampler": sampler, "target": {"node": channel.node, "path": path}}));
    }

    /// Names mesh `mesh`'s morph targets as Blender and three.js do, in
    /// its `extras.targetNames`.
    pub fn target_names(&mut self, mesh: usize, names: &[&str]) {
        self.meshes[mesh]["extras"] = json!({ "targetNames": names });
    }

    /// Adds morph target `target` (semantics to offset accessors) to
    /// primitive `primitive` of mesh `mesh`.
    pub fn add_target(&mut self, mesh: usize, primitive: usize, target: &[(&str, usize)]) {
        let target: Map<String, Value> = target
            .iter()
            .map(|&(semantic, accessor)| (semantic.to_owned(), json!(accessor)))
            .collect();
        self.meshes[mesh]["primitives"][primitive]
            .as_object_mut()
            .unwrap()
            .entry("targets")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(Value::Object(target));
    }

    /// Animation output of morph weights: f32 SCALAR, `targets` per key
    /// (three times as many for CUBICSPLINE), no target.
    pub fn weights_output(&mut self, values: &[f32]) -> usize {
        self.accessor(values, Type::Scalar, Layout::PLAIN)
    }

    pub fn scene(&mut self, name: &str, nodes: &[usize]) -> usize {
        let index = push(&mut self.scenes, json!({"name": name, "nodes": nodes}));
        self.scene.get_or_insert(index);
        index
    }

    /// The document with its buffer at `buffer_uri` (`None`: the GLB's
    /// BIN chunk). No buffer when nothing was appended.
    pub fn document(&self, buffer_uri: Option<&str>) -> Value {
        let mut root = Map::new();
        root.insert(
            "asset".into(),
            json!({"version": "2.0", "generator": "md5crowd tests/common/gltf_write.rs"}),
        );
        if let Some(scene) = self.scene {
            root.insert("scene".into(), json!(scene));
        }
        let lists = [
            ("scenes", &self.scenes),
            ("nodes", &self.nodes),
            ("meshes", &self.meshes),
            ("skins", &self.skins),
            ("materials", &self.materials),
            ("textures", &self.textures),
            ("images", &self.images),
            ("samplers", &self.samplers),
            ("animations", &self.animations),
            ("accessors", &self.accessors),
            ("bufferViews", &self.buffer_views),
        ];
        for (name, list) in lists {
            if !list.is_empty() {
                root.insert(name.into(), Value::Array(list.clone()));
            }
        }
        // As exporters do: every material extension listed as used.
        let mut used: Vec<&String> = self
            .materials
            .iter()
            .filter_map(|m| m["extensions"].as_object())
            .flat_map(Map::keys)
            .collect();
        used.sort();
        used.dedup();
        if !used.is_empty() {
            root.insert("extensionsUsed".into(), json!(used));
        }
        if !self.buffer.is_empty() {
            let mut buffer = json!({"byteLength": self.buffer.len()});
            if let Some(uri) = buffer_uri {
                buffer["uri"] = json!(uri);
            }
            root.insert("buffers".into(), json!([buffer]));
        }
        Value::Object(root)
    }

    /// The binary glTF: header, JSON chunk, BIN chunk (when there is a
    /// buffer).
    pub fn to_glb(&self) -> Vec<u8> {
        let bin = (!self.buffer.is_empty()).then_some(self.buffer.as_slice());
        glb(&self.document(None), bin)
    }

    /// A .gltf with the buffer inside it as a base64 `data:` URI.
    pub fn to_gltf_embedded(&self) -> Vec<u8> {
        let uri = data_uri("application/octet-stream", &self.buffer);
        serde_json::to_vec_pretty(&self.document(Some(&uri))).unwrap()
    }

    /// Writes `dir/stem.gltf`, `dir/stem.bin` (named by a relative URI)
    /// and the external images; returns the .gltf's path.
    pub fn write_gltf(&self, dir: &Path, stem: &str) -> PathBuf {
        let bin_name = format!("{stem}.bin");
        let json = self.document(Some(&uri_encode(&bin_name)));
        let path = dir.join(format!("{stem}.gltf"));
        std::fs::write(&path, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
        if !self.buffer.is_empty() {
            std::fs::write(dir.join(bin_name), &self.buffer).unwrap();
        }
        self.write_files(dir);
        path
    }

    /// Writes `dir/stem.glb` and the external images; returns its path.
    pub fn write_glb(&self, dir: &Path, stem: &str) -> PathBuf {
        let path = dir.join(format!("{stem}.glb"));
        std::fs::write(&path, self.to_glb()).unwrap();
        self.write_files(dir);
        path
    }

    fn write_files(&self, dir: &Path) {
        for (name, bytes) in &self.files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
}

fn flat3(values: &[Vec3]) -> Vec<f32> {
    values.iter().flat_map(|v| v.to_array()).collect()
}

/// Per-component min and max of `values`, `n` components per element,
/// as JSON numbers of the components' own values.
fn min_max(values: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut min = vec![f64::INFINITY; n];
    let mut max = vec![f64::NEG_INFINITY; n];
    for chunk in values.chunks_exact(n) {
        for (c, v) in chunk.iter().enumerate() {
            min[c] = min[c].min(*v);
            max[c] = max[c].max(*v);
        }
    }
    (min, max)
}

/// A GLB of `json` and `bin`: the 12-byte header (magic, version 2, total
/// length), the JSON chunk padded with spaces and the BIN chunk padded
/// with zeros, each to a multiple of 4 bytes.
pub fn glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(json).unwrap();
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let mut chunks = Vec::new();
    chunks.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    chunks.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    chunks.extend_from_slice(&json_bytes);
    if let Some(bin) = bin {
        let padded = bin.len().next_multiple_of(4);
        chunks.extend_from_slice(&(padded as u32).to_le_bytes());
        chunks.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        chunks.extend_from_slice(bin);
        chunks.resize(chunks.len() + padded - bin.len(), 0);
    }
    let mut out = Vec::with_capacity(12 + chunks.len());
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + chunks.len()) as u32).to_le_bytes());
    out.extend_from_slice(&chunks);
    out
}

/// `data:MIME;base64,...`
pub fn data_uri(mime_type: &str, bytes: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    format!("data:{mime_type};base64,{encoded}")
}

/// A relative URI of a file name: bytes other than RFC 3986's unreserved
/// characters and `/` percent-encoded (a space is `%20`).
pub fn uri_encode(name: &str) -> String {
    let mut out = String::new();
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A small PNG of `image`, as bytes.
pub fn png_bytes(image: &image::RgbaImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}
