//! Just enough SPIR-V reflection to keep Rust and GLSL in agreement: struct
//! member offsets and sizes, vertex shader inputs, and descriptor bindings.
//! GLSL is the source of truth; tests compare every `#[repr(C)]` twin
//! against what the compiler laid out (see [`layout_mismatches`]), and
//! descriptor set layouts can be derived from the shaders (see
//! [`merged_set_bindings`]) so binding numbers are written only in GLSL.

use std::collections::{BTreeMap, HashMap, HashSet};

use ash::vk;

const SPIRV_MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

// Opcodes and enumerants from the SPIR-V specification, section 3.
const OP_NAME: u32 = 5;
const OP_MEMBER_NAME: u32 = 6;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_MATRIX: u32 = 24;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_SAMPLED_IMAGE: u32 = 27;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const DIM_BUFFER: u32 = 5;
const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_ARRAY_STRIDE: u32 = 6;
const DECORATION_MATRIX_STRIDE: u32 = 7;
const DECORATION_LOCATION: u32 = 30;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const DECORATION_OFFSET: u32 = 35;
const STORAGE_CLASS_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_CLASS_INPUT: u32 = 1;
const STORAGE_CLASS_UNIFORM: u32 = 2;
const STORAGE_CLASS_STORAGE_BUFFER: u32 = 12;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    pub name: String,
    /// The array stride when the struct is an array element (that is what a
    /// Rust slice of its twin must match), else where its last member ends.
    pub size: u32,
    pub members: Vec<MemberLayout>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    pub name: String,
    pub offset: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Float,
    Int,
    Uint,
}

/// A vertex shader input variable (`layout(location = N) in ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexInput {
    pub location: u32,
    pub name: String,
    pub kind: ScalarKind,
    pub components: u32,
}

/// The descriptor kinds the shaders use; others (separate images and
/// samplers, storage images, storage texel buffers) are not reflected yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    UniformBuffer,
    StorageBuffer,
    CombinedImageSampler,
    /// `samplerBuffer` and the like: a buffer read through a format.
    UniformTexelBuffer,
}

impl DescriptorKind {
    /// What a `vk::DescriptorSetLayoutBinding` and the pool sizes call it.
    pub fn descriptor_type(self) -> vk::DescriptorType {
        match self {
            DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        }
    }
}

/// One descriptor a shader declares (`layout(set = S, binding = B) ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorBinding {
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// The GLSL block's type name (`Frame`, `SkinningTransforms`, ...) for
    /// buffers, the variable name (`diffuse`) for samplers: what code looks
    /// bindings up by. Blocks are usually anonymous instances, so the
    /// variable name would be empty.
    pub name: String,
    /// Descriptors in the binding: 1, or the length of an array of them
    /// (`sampler2D maps[8]`).
    pub count: u32,
}

/// One binding of a descriptor set shared by several shader stages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergedBinding {
    pub descriptor: DescriptorBinding,
    /// Every stage that declares it (what the layout's `stage_flags` must
    /// cover: a stage may not touch a binding the layout hides from it).
    pub stages: vk::ShaderStageFlags,
}

impl MergedBinding {
    /// The layout binding: its type, and as many descriptors as the
    /// shaders' array holds.
    pub fn layout_binding(&self) -> vk::DescriptorSetLayoutBinding<'static> {
        vk::DescriptorSetLayoutBinding::default()
            .binding(self.descriptor.binding)
            .descriptor_type(self.descriptor.kind.descriptor_type())
            .descriptor_count(self.descriptor.count)
            .stage_flags(self.stages)
    }
}

#[derive(Clone, Debug)]
enum Type {
    Scalar(ScalarKind, u32),
    Vector {
        component: u32,
        count: u32,
    },
    Matrix {
        columns: u32,
    },
    Array {
        element: u32,
        length_id: Option<u32>,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        storage: u32,
        pointee: u32,
    },
    /// An image type's dimensionality (`Dim`), which tells a texel buffer
    /// from an image.
    Image {
        dim: u32,
    },
    /// `sampler2D`, `samplerBuffer` and friends.
    SampledImage {
        image: u32,
    },
}

/// The facts about one module that the queries need, gathered in one pass.
#[derive(Default)]
struct Module {
    names: HashMap<u32, String>,
    member_names: HashMap<(u32, u32), String>,
    member_offsets: HashMap<(u32, u32), u32>,
    member_matrix_strides: HashMap<(u32, u32), u32>,
    array_strides: HashMap<u32, u32>,
    locations: HashMap<u32, u32>,
    descriptor_sets: HashMap<u32, u32>,
    bindings: HashMap<u32, u32>,
    blocks: HashSet<u32>,
    buffer_blocks: HashSet<u32>,
    constants: HashMap<u32, u32>,
    types: HashMap<u32, Type>,
    input_variables: Vec<(u32, u32)>,
    /// Variables in storage classes that can hold descriptors: (id, pointer
    /// type).
    resource_variables: Vec<(u32, u32)>,
}

/// Turns embedded SPIR-V bytes into words (`include_bytes!` promises no
/// alignment, so this copies).
pub fn words(spirv: &[u8]) -> Vec<u32> {
    spirv
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Every struct named `name` that has a memory layout (a shader may hold
/// several copies, e.g. one per block that embeds it). Copies without one,
/// which the compiler emits for function-local values, are left out.
pub fn struct_layouts(spirv: &[u32], name: &str) -> Vec<StructLayout> {
    let module = parse(spirv);
    let mut ids: Vec<u32> = module
        .types
        .iter()
        .filter(|(id, ty)| {
            matches!(ty, Type::Struct { .. })
                && module.names.get(id).map(String::as_str) == Some(name)
                && module
                    .member_offsets
                    .keys()
                    .any(|(struct_id, _)| struct_id == *id)
        })
        .map(|(id, _)| *id)
        .collect();
    ids.sort_unstable();
    ids.into_iter().map(|id| module.struct_layout(id)).collect()
}

/// Vertex inputs sorted by location (built-ins such as `gl_VertexIndex`
/// have no location and are left out).
pub fn vertex_inputs(spirv: &[u32]) -> Vec<VertexInput> {
    let module = parse(spirv);
    let mut inputs: Vec<VertexInput> = module
        .input_variables
        .iter()
        .filter_map(|&(variable, pointer_type)| {
            let location = *module.locations.get(&variable)?;
            let Some(Type::Pointer { pointee, .. }) = module.types.get(&pointer_type) else {
                return None;
            };
            let (kind, components) = match module.types.get(pointee)? {
                Type::Scalar(kind, _) => (*kind, 1),
                Type::Vector { component, count } => match module.types.get(component)? {
                    Type::Scalar(kind, _) => (*kind, *count),
                    _ => return None,
                },
                _ => return None,
            };
            Some(VertexInput {
                location,
                name: module.names.get(&variable).cloned().unwrap_or_default(),
                kind,
                components,
            })
        })
        .collect();
    inputs.sort_by_key(|input| input.location);
    inputs
}

/// Every descriptor a module declares (variables decorated with
/// DescriptorSet and Binding), sorted by (set, binding).
///
/// Uniform blocks are `UniformBuffer`; `buffer` blocks (StorageBuffer
/// storage, or Uniform storage decorated BufferBlock before SPIR-V 1.3) are
/// `StorageBuffer`; `sampler2D` and the like are `CombinedImageSampler`,
/// `samplerBuffer` and the like `UniformTexelBuffer`.
/// A sized array of samplers is one binding of that many descriptors.
/// Skipped, because no shader here uses them: arrays sized at run time (the
/// count would have to come from elsewhere), and separate images, samplers
/// and storage images. A layout derived from such a shader lacks the
/// binding, which pipeline creation (and the validation layer) reports.
pub fn descriptor_bindings(spirv: &[u32]) -> Vec<DescriptorBinding> {
    let module = parse(spirv);
    let mut bindings: Vec<DescriptorBinding> = module
        .resource_variables
        .iter()
        .filter_map(|&(variable, pointer_type)| {
            let set = *module.descriptor_sets.get(&variable)?;
            let binding = *module.bindings.get(&variable)?;
            let Some(&Type::Pointer { storage, pointee }) = module.types.get(&pointer_type) else {
                return None;
            };
            let (pointee, count) = match module.types.get(&pointee)? {
                Type::Array {
                    element,
                    length_id: Some(length),
                } => (*element, *module.constants.get(length)?),
                Type::Array {
                    length_id: None, ..
                } => return None,
                _ => (pointee, 1),
            };
            let (kind, name_id) = match (storage, module.types.get(&pointee)?) {
                (STORAGE_CLASS_UNIFORM, Type::Struct { .. })
                    if module.blocks.contains(&pointee) =>
                {
                    (DescriptorKind::UniformBuffer, pointee)
                }
                (STORAGE_CLASS_UNIFORM, Type::Struct { .. })
                    if module.buffer_blocks.contains(&pointee) =>
                {
                    (DescriptorKind::StorageBuffer, pointee)
                }
                (STORAGE_CLASS_STORAGE_BUFFER, Type::Struct { .. }) => {
                    (DescriptorKind::StorageBuffer, pointee)
                }
                (STORAGE_CLASS_UNIFORM_CONSTANT, Type::SampledImage { image }) => {
                    match module.types.get(image)? {
                        Type::Image { dim: DIM_BUFFER } => {
                            (DescriptorKind::UniformTexelBuffer, variable)
                        }
                        _ => (DescriptorKind::CombinedImageSampler, variable),
                    }
                }
                _ => return None,
            };
            Some(DescriptorBinding {
                set,
                binding,
                kind,
                name: module.names.get(&name_id).cloned().unwrap_or_default(),
                count,
            })
        })
        .collect();
    bindings.sort_by_key(|b| (b.set, b.binding));
    bindings
}

/// The union of the bindings of `set` over `stages`, sorted by binding, each
/// with the stages that declare it: the description of one descriptor set
/// layout that all of them share. A stage is `(name, spirv, stage)`; the
/// name (e.g. `"crowd.vert"`) is only for the error, which names both
/// shaders of every (set, binding) that two stages (or one, twice) declare
/// with different kinds or names: that is a GLSL bug the layout would hide.
pub fn merged_set_bindings(
    set: u32,
    stages: &[(&str, &[u32], vk::ShaderStageFlags)],
) -> Result<Vec<MergedBinding>, String> {
    // binding -> (the merged binding, the shader that declared it first)
    let mut merged: BTreeMap<u32, (MergedBinding, &str)> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for &(shader, spirv, stage) in stages {
        for descriptor in descriptor_bindings(spirv) {
            if descriptor.set != set {
                continue;
            }
            match merged.get_mut(&descriptor.binding) {
                Some((existing, _))
                    if existing.descriptor.kind == descriptor.kind
                        && existing.descriptor.name == descriptor.name =>
                {
                    existing.stages |= stage;
                }
                Some((existing, first)) => conflicts.push(format!(
                    "set {set} binding {}: {first} declares {} ({:?}) but {shader} declares {} ({:?})",
                    descriptor.binding,
                    existing.descriptor.name,
                    existing.descriptor.kind,
                    descriptor.name,
                    descriptor.kind,
                )),
                None => {
                    merged.insert(
                        descriptor.binding,
                        (
                            MergedBinding {
                                descriptor,
                                stages: stage,
                            },
                            shader,
                        ),
                    );
                }
            }
        }
    }
    if conflicts.is_empty() {
        Ok(merged.into_values().map(|(binding, _)| binding).collect())
    } else {
        Err(conflicts.join("\n"))
    }
}

/// Differences between a GLSL struct and its Rust twin, described for a
/// test failure; empty when they agree. `members` are the twin's fields in
/// declaration order with `std::mem::offset_of!` offsets.
pub fn layout_mismatches(
    glsl: &StructLayout,
    rust_size: usize,
    members: &[(&str, usize)],
) -> Vec<String> {
    let mut problems = Vec::new();
    if glsl.size as usize != rust_size {
        problems.push(format!(
            "{}: GLSL size {} but Rust size {rust_size}",
            glsl.name, glsl.size
        ));
    }
    if glsl.members.len() != members.len() {
        problems.push(format!(
            "{}: GLSL has {} members, Rust {}",
            glsl.name,
            glsl.members.len(),
            members.len()
        ));
    }
    for (glsl_member, (rust_name, rust_offset)) in glsl.members.iter().zip(members) {
        if glsl_member.name != *rust_name || glsl_member.offset as usize != *rust_offset {
            problems.push(format!(
                "{}: GLSL member {} at offset {}, Rust {rust_name} at {rust_offset}",
                glsl.name, glsl_member.name, glsl_member.offset
            ));
        }
    }
    problems
}

fn parse(spirv: &[u32]) -> Module {
    let mut module = Module::default();
    assert!(
        spirv.len() >= HEADER_WORDS && spirv[0] == SPIRV_MAGIC,
        "not a SPIR-V module (the build embeds them; this is a build bug)"
    );
    let mut at = HEADER_WORDS;
    while at < spirv.len() {
        let word_count = (spirv[at] >> 16) as usize;
        let opcode = spirv[at] & 0xffff;
        assert!(
            word_count > 0 && at + word_count <= spirv.len(),
            "truncated SPIR-V"
        );
        module.record(opcode, &spirv[at + 1..at + word_count]);
        at += word_count;
    }
    module
}

impl Module {
    fn record(&mut self, opcode: u32, operands: &[u32]) {
        match (opcode, operands) {
            (OP_NAME, [id, name @ ..]) => {
                self.names.insert(*id, literal_string(name));
            }
            (OP_MEMBER_NAME, [id, member, name @ ..]) => {
                self.member_names
                    .insert((*id, *member), literal_string(name));
            }
            (OP_DECORATE, [id, DECORATION_ARRAY_STRIDE, stride]) => {
                self.array_strides.insert(*id, *stride);
            }
            (OP_DECORATE, [id, DECORATION_LOCATION, location]) => {
                self.locations.insert(*id, *location);
            }
            (OP_DECORATE, [id, DECORATION_DESCRIPTOR_SET, set]) => {
                self.descriptor_sets.insert(*id, *set);
            }
            (OP_DECORATE, [id, DECORATION_BINDING, binding]) => {
                self.bindings.insert(*id, *binding);
            }
            (OP_DECORATE, [id, DECORATION_BLOCK]) => {
                self.blocks.insert(*id);
            }
            (OP_DECORATE, [id, DECORATION_BUFFER_BLOCK]) => {
                self.buffer_blocks.insert(*id);
            }
            (OP_MEMBER_DECORATE, [id, member, DECORATION_OFFSET, offset]) => {
                self.member_offsets.insert((*id, *member), *offset);
            }
            (OP_MEMBER_DECORATE, [id, member, DECORATION_MATRIX_STRIDE, stride]) => {
                self.member_matrix_strides.insert((*id, *member), *stride);
            }
            (OP_TYPE_INT, [id, width, signed]) => {
                let kind = if *signed == 1 {
                    ScalarKind::Int
                } else {
                    ScalarKind::Uint
                };
                self.types.insert(*id, Type::Scalar(kind, width / 8));
            }
            (OP_TYPE_FLOAT, [id, width, ..]) => {
                self.types
                    .insert(*id, Type::Scalar(ScalarKind::Float, width / 8));
            }
            (OP_TYPE_VECTOR, [id, component, count]) => {
                self.types.insert(
                    *id,
                    Type::Vector {
                        component: *component,
                        count: *count,
                    },
                );
            }
            (OP_TYPE_MATRIX, [id, _column, columns]) => {
                self.types.insert(*id, Type::Matrix { columns: *columns });
            }
            (OP_TYPE_ARRAY, [id, element, length_id]) => {
                self.types.insert(
                    *id,
                    Type::Array {
                        element: *element,
                        length_id: Some(*length_id),
                    },
                );
            }
            (OP_TYPE_RUNTIME_ARRAY, [id, element]) => {
                self.types.insert(
                    *id,
                    Type::Array {
                        element: *element,
                        length_id: None,
                    },
                );
            }
            (OP_TYPE_STRUCT, [id, members @ ..]) => {
                self.types.insert(
                    *id,
                    Type::Struct {
                        members: members.to_vec(),
                    },
                );
            }
            (OP_TYPE_POINTER, [id, storage, pointee]) => {
                self.types.insert(
                    *id,
                    Type::Pointer {
                        storage: *storage,
                        pointee: *pointee,
                    },
                );
            }
            (OP_TYPE_IMAGE, [id, _sampled_type, dim, ..]) => {
                self.types.insert(*id, Type::Image { dim: *dim });
            }
            (OP_TYPE_SAMPLED_IMAGE, [id, image]) => {
                self.types.insert(*id, Type::SampledImage { image: *image });
            }
            // 32-bit constants are all that array lengths use here.
            (OP_CONSTANT, [_type, id, value, ..]) => {
                self.constants.insert(*id, *value);
            }
            (OP_VARIABLE, [pointer_type, id, STORAGE_CLASS_INPUT, ..]) => {
                self.input_variables.push((*id, *pointer_type));
            }
            // Push constants (storage class 9) are not descriptors.
            (
                OP_VARIABLE,
                [pointer_type, id, STORAGE_CLASS_UNIFORM_CONSTANT
                | STORAGE_CLASS_UNIFORM
                | STORAGE_CLASS_STORAGE_BUFFER, ..],
            ) => {
                self.resource_variables.push((*id, *pointer_type));
            }
            _ => {}
        }
    }

    fn struct_layout(&self, id: u32) -> StructLayout {
        let Some(Type::Struct { members }) = self.types.get(&id) else {
            unreachable!("struct_layout is only called on struct ids");
        };
        let members: Vec<MemberLayout> = (0u32..)
            .zip(members)
            .map(|(index, _)| MemberLayout {
                name: self
                    .member_names
                    .get(&(id, index))
                    .cloned()
                    .unwrap_or_default(),
                offset: self.member_offsets.get(&(id, index)).copied().unwrap_or(0),
            })
            .collect();
        let stride = self.types.iter().find_map(|(array, ty)| match ty {
            Type::Array { element, .. } if *element == id => self.array_strides.get(array).copied(),
            _ => None,
        });
        StructLayout {
            name: self.names.get(&id).cloned().unwrap_or_default(),
            size: stride.unwrap_or_else(|| self.struct_end(id)),
            members,
        }
    }

    /// Where the last member of struct `id` ends.
    fn struct_end(&self, id: u32) -> u32 {
        let Some(Type::Struct { members }) = self.types.get(&id) else {
            return 0;
        };
        (0u32..)
            .zip(members)
            .map(|(index, ty)| {
                let offset = self.member_offsets.get(&(id, index)).copied().unwrap_or(0);
                let matrix_stride = self.member_matrix_strides.get(&(id, index)).copied();
                offset + self.type_size(*ty, matrix_stride)
            })
            .max()
            .unwrap_or(0)
    }

    fn type_size(&self, ty: u32, matrix_stride: Option<u32>) -> u32 {
        match self.types.get(&ty) {
            Some(Type::Scalar(_, bytes)) => *bytes,
            Some(Type::Vector { component, count }) => count * self.type_size(*component, None),
            Some(Type::Matrix { columns }) => columns * matrix_stride.unwrap_or(16),
            Some(Type::Array { length_id, .. }) => {
                let stride = self.array_strides.get(&ty).copied().unwrap_or(0);
                let length = length_id
                    .and_then(|l| self.constants.get(&l).copied())
                    .unwrap_or(0);
                stride * length
            }
            Some(Type::Struct { .. }) => self.struct_end(ty),
            Some(Type::Pointer { .. } | Type::Image { .. } | Type::SampledImage { .. }) | None => 0,
        }
    }
}

/// A nul-terminated UTF-8 string packed little-endian into words.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::shaders::spirv;

    const COMPUTE: vk::ShaderStageFlags = vk::ShaderStageFlags::COMPUTE;
    const VERTEX: vk::ShaderStageFlags = vk::ShaderStageFlags::VERTEX;
    const FRAGMENT: vk::ShaderStageFlags = vk::ShaderStageFlags::FRAGMENT;

    fn descriptor(set: u32, binding: u32, kind: DescriptorKind, name: &str) -> DescriptorBinding {
        DescriptorBinding {
            set,
            binding,
            kind,
            name: name.to_owned(),
            count: 1,
        }
    }

    /// (binding, kind, name) of every descriptor of set `set` in `spirv`.
    fn bindings_of(spirv: &[u8], set: u32) -> Vec<(u32, DescriptorKind, String)> {
        descriptor_bindings(&words(spirv))
            .into_iter()
            .filter(|d| d.set == set)
            .map(|d| (d.binding, d.kind, d.name))
            .collect()
    }

    fn expected(list: &[(u32, DescriptorKind, &str)]) -> Vec<(u32, DescriptorKind, String)> {
        list.iter()
            .map(|&(binding, kind, name)| (binding, kind, name.to_owned()))
            .collect()
    }

    use DescriptorKind::{CombinedImageSampler, StorageBuffer, UniformBuffer, UniformTexelBuffer};

    #[test]
    fn draw_vertex_shaders_declare_the_scene_set_without_push_constants() {
        let scene = expected(&[
            (0, StorageBuffer, "SkinningTransforms"),
            (1, StorageBuffer, "Instances"),
            (2, UniformBuffer, "Frame"),
            (3, StorageBuffer, "VisibleInstances"),
            (4, StorageBuffer, "PoseSources"),
            (5, StorageBuffer, "SharedPoses"),
        ]);
        assert_eq!(bindings_of(spirv::CROWD_VERT, 0), scene);
        assert_eq!(bindings_of(spirv::SKELETON_VERT, 0), scene);
    }

    #[test]
    fn crowd_frag_declares_frame_and_the_material_samplers() {
        let skins = |binding, name| DescriptorBinding {
            count: crate::gpu::shader_types::MAX_SKINS as u32,
            ..descriptor(1, binding, CombinedImageSampler, name)
        };
        assert_eq!(
            descriptor_bindings(&words(spirv::CROWD_FRAG)),
            [
                descriptor(0, 2, UniformBuffer, "Frame"),
                skins(0, "diffuse_maps"),
                skins(1, "normal_maps"),
                skins(2, "specular_maps"),
            ]
        );
        assert_eq!(descriptor_bindings(&words(spirv::SKELETON_FRAG)), []);
    }

    #[test]
    fn compute_shaders_declare_what_they_use_of_the_shared_set() {
        assert_eq!(
            bindings_of(spirv::CULL_COMP, 0),
            expected(&[
                (0, UniformBuffer, "Frame"),
                (1, StorageBuffer, "Instances"),
                (2, StorageBuffer, "InstanceAnimations"),
                (3, StorageBuffer, "Clips"),
                (6, StorageBuffer, "VisibleInstances"),
                (9, StorageBuffer, "Visibility"),
                (10, StorageBuffer, "PoseSources"),
                (12, StorageBuffer, "ClipFrameBounds"),
                (13, StorageBuffer, "Models"),
            ])
        );
        assert_eq!(
            bindings_of(spirv::CULL_COMP, 1),
            expected(&[(1, StorageBuffer, "DepthPyramid")])
        );
        assert_eq!(
            bindings_of(spirv::PYRAMID_COMP, 1),
            expected(&[
                (0, CombinedImageSampler, "depth"),
                (1, StorageBuffer, "DepthPyramid"),
            ])
        );
        assert_eq!(
            bindings_of(spirv::ANIMATE_COMP, 0),
            expected(&[
                (0, UniformBuffer, "Frame"),
                (1, StorageBuffer, "Instances"),
                (2, StorageBuffer, "InstanceAnimations"),
                (3, StorageBuffer, "Clips"),
                (4, UniformTexelBuffer, "clip_poses"),
                (5, UniformTexelBuffer, "skeleton"),
                (6, StorageBuffer, "VisibleInstances"),
                (8, StorageBuffer, "SkinningTransforms"),
                (10, StorageBuffer, "PoseSources"),
                (13, StorageBuffer, "Models"),
            ])
        );
    }

    #[test]
    fn merged_compute_set_is_frame_storage_buffers_and_two_texel_buffers() {
        let cull = words(spirv::CULL_COMP);
        let draws = words(spirv::DRAWS_COMP);
        let animate = words(spirv::ANIMATE_COMP);
        let merged = merged_set_bindings(
            0,
            &[
                ("cull.comp", &cull[..], COMPUTE),
                ("draws.comp", &draws[..], COMPUTE),
                ("animate.comp", &animate[..], COMPUTE),
            ],
        )
        .unwrap();
        let summary: Vec<(u32, DescriptorKind, vk::ShaderStageFlags)> = merged
            .iter()
            .map(|m| (m.descriptor.binding, m.descriptor.kind, m.stages))
            .collect();
        let mut want = vec![(0, UniformBuffer, COMPUTE)];
        want.extend((1..=10).map(|binding| {
            let kind = match binding {
                4 | 5 => UniformTexelBuffer,
                _ => StorageBuffer,
            };
            (binding, kind, COMPUTE)
        }));
        want.push((12, StorageBuffer, COMPUTE));
        want.push((13, StorageBuffer, COMPUTE));
        assert_eq!(summary, want);
    }

    #[test]
    fn merged_draw_sets_combine_stages() {
        let crowd_vert = words(spirv::CROWD_VERT);
        let crowd_frag = words(spirv::CROWD_FRAG);
        let skeleton_vert = words(spirv::SKELETON_VERT);
        let skeleton_frag = words(spirv::SKELETON_FRAG);
        let stages = [
            ("crowd.vert", &crowd_vert[..], VERTEX),
            ("crowd.frag", &crowd_frag[..], FRAGMENT),
            ("skeleton.vert", &skeleton_vert[..], VERTEX),
            ("skeleton.frag", &skeleton_frag[..], FRAGMENT),
        ];

        let scene = merged_set_bindings(0, &stages).unwrap();
        let summary: Vec<(u32, DescriptorKind, &str, vk::ShaderStageFlags)> = scene
            .iter()
            .map(|m| {
                let d = &m.descriptor;
                (d.binding, d.kind, d.name.as_str(), m.stages)
            })
            .collect();
        assert_eq!(
            summary,
            [
                (0, StorageBuffer, "SkinningTransforms", VERTEX),
                (1, StorageBuffer, "Instances", VERTEX),
                (2, UniformBuffer, "Frame", VERTEX | FRAGMENT),
                (3, StorageBuffer, "VisibleInstances", VERTEX),
                (4, StorageBuffer, "PoseSources", VERTEX),
                (5, StorageBuffer, "SharedPoses", VERTEX),
            ]
        );
        let frame = scene[2].layout_binding();
        assert_eq!(
            (
                frame.binding,
                frame.descriptor_type,
                frame.descriptor_count,
                frame.stage_flags
            ),
            (2, vk::DescriptorType::UNIFORM_BUFFER, 1, VERTEX | FRAGMENT)
        );

        assert_eq!(
            merged_set_bindings(1, &stages).unwrap(),
            ["diffuse_maps", "normal_maps", "specular_maps"]
                .into_iter()
                .enumerate()
                .map(|(binding, name)| MergedBinding {
                    descriptor: DescriptorBinding {
                        count: crate::gpu::shader_types::MAX_SKINS as u32,
                        ..descriptor(1, binding as u32, CombinedImageSampler, name)
                    },
                    stages: FRAGMENT,
                })
                .collect::<Vec<_>>()
        );
        let diffuse = merged_set_bindings(1, &stages).unwrap()[0].layout_binding();
        assert_eq!(diffuse.descriptor_count, 8);
        assert_eq!(merged_set_bindings(2, &stages).unwrap(), []);
    }

    #[test]
    fn merging_disagreeing_shaders_names_them() {
        // crowd.vert's set 0 against cull.comp's: binding 0 and 2 differ in
        // kind (storage vs uniform), binding 3 only in name, binding 1 agrees.
        let crowd_vert = words(spirv::CROWD_VERT);
        let cull = words(spirv::CULL_COMP);
        let error = merged_set_bindings(
            0,
            &[
                ("crowd.vert", &crowd_vert[..], VERTEX),
                ("cull.comp", &cull[..], COMPUTE),
            ],
        )
        .unwrap_err();
        let lines: Vec<&str> = error.lines().collect();
        assert_eq!(lines.len(), 3, "{error}");
        for (line, binding) in lines.iter().zip(["binding 0:", "binding 2:", "binding 3:"]) {
            assert!(line.contains(binding), "{error}");
            assert!(
                line.contains("crowd.vert") && line.contains("cull.comp"),
                "{error}"
            );
        }
        assert!(lines[0].contains("SkinningTransforms") && lines[0].contains("Frame"));
        assert!(lines[1].contains("UniformBuffer") && lines[1].contains("StorageBuffer"));
        assert!(lines[2].contains("VisibleInstances") && lines[2].contains("Clips"));
    }

    /// One instruction: the word count and opcode, then the operands.
    fn instruction(module: &mut Vec<u32>, opcode: u32, operands: &[u32]) {
        module.push(((operands.len() as u32 + 1) << 16) | opcode);
        module.extend_from_slice(operands);
    }

    /// A hand-assembled module for what the compiled shaders lack (they are
    /// SPIR-V 1.5): a pre-1.3 BufferBlock storage buffer, a push constant
    /// block, an array of samplers, and a conflicting uniform buffer.
    fn hand_built(storage_decoration: u32, push_constant_binding: bool) -> Vec<u32> {
        let (float, uint, image, sampled, length) = (1, 2, 3, 4, 5);
        let (array, array_ptr, samplers, block, block_ptr, buffer) = (6, 7, 8, 9, 10, 11);
        let (push_block, push_ptr, push) = (12, 13, 14);
        let mut m = vec![SPIRV_MAGIC, 0x0001_0000, 0, 15, 0];
        let name = |m: &mut Vec<u32>, id: u32, text: &str| {
            let mut bytes = text.as_bytes().to_vec();
            bytes.resize(text.len() / 4 * 4 + 4, 0);
            let mut operands = vec![id];
            operands.extend(words(&bytes));
            instruction(m, OP_NAME, &operands);
        };
        name(&mut m, block, "Data");
        name(&mut m, buffer, "");
        name(&mut m, samplers, "textures");
        name(&mut m, push_block, "Constants");
        instruction(&mut m, OP_DECORATE, &[block, storage_decoration]);
        instruction(&mut m, OP_DECORATE, &[buffer, DECORATION_DESCRIPTOR_SET, 0]);
        instruction(&mut m, OP_DECORATE, &[buffer, DECORATION_BINDING, 1]);
        instruction(
            &mut m,
            OP_DECORATE,
            &[samplers, DECORATION_DESCRIPTOR_SET, 0],
        );
        instruction(&mut m, OP_DECORATE, &[samplers, DECORATION_BINDING, 2]);
        instruction(&mut m, OP_DECORATE, &[push_block, DECORATION_BLOCK]);
        if push_constant_binding {
            // Invalid SPIR-V, but shows that storage class 9 is never read.
            instruction(&mut m, OP_DECORATE, &[push, DECORATION_DESCRIPTOR_SET, 0]);
            instruction(&mut m, OP_DECORATE, &[push, DECORATION_BINDING, 3]);
        }
        instruction(&mut m, OP_TYPE_FLOAT, &[float, 32]);
        instruction(&mut m, OP_TYPE_IMAGE, &[image, float, 1, 0, 0, 0, 1, 0]);
        instruction(&mut m, OP_TYPE_SAMPLED_IMAGE, &[sampled, image]);
        instruction(&mut m, OP_TYPE_INT, &[uint, 32, 0]);
        instruction(&mut m, OP_CONSTANT, &[uint, length, 4]);
        instruction(&mut m, OP_TYPE_ARRAY, &[array, sampled, length]);
        instruction(
            &mut m,
            OP_TYPE_POINTER,
            &[array_ptr, STORAGE_CLASS_UNIFORM_CONSTANT, array],
        );
        instruction(&mut m, OP_TYPE_STRUCT, &[block, float]);
        instruction(
            &mut m,
            OP_TYPE_POINTER,
            &[block_ptr, STORAGE_CLASS_UNIFORM, block],
        );
        instruction(&mut m, OP_TYPE_STRUCT, &[push_block, float]);
        instruction(&mut m, OP_TYPE_POINTER, &[push_ptr, 9, push_block]);
        instruction(
            &mut m,
            OP_VARIABLE,
            &[array_ptr, samplers, STORAGE_CLASS_UNIFORM_CONSTANT],
        );
        instruction(
            &mut m,
            OP_VARIABLE,
            &[block_ptr, buffer, STORAGE_CLASS_UNIFORM],
        );
        instruction(&mut m, OP_VARIABLE, &[push_ptr, push, 9]);
        m
    }

    #[test]
    fn hand_built_buffer_block_is_storage_arrays_count_and_push_constants_are_skipped() {
        let textures = DescriptorBinding {
            count: 4,
            ..descriptor(0, 2, CombinedImageSampler, "textures")
        };
        let legacy = hand_built(DECORATION_BUFFER_BLOCK, true);
        assert_eq!(
            descriptor_bindings(&legacy),
            [descriptor(0, 1, StorageBuffer, "Data"), textures.clone()]
        );
        let uniform = hand_built(DECORATION_BLOCK, false);
        assert_eq!(
            descriptor_bindings(&uniform),
            [descriptor(0, 1, UniformBuffer, "Data"), textures]
        );

        let error = merged_set_bindings(
            0,
            &[
                ("legacy.comp", &legacy[..], COMPUTE),
                ("uniform.comp", &uniform[..], COMPUTE),
            ],
        )
        .unwrap_err();
        assert_eq!(
            error,
            "set 0 binding 1: legacy.comp declares Data (StorageBuffer) but uniform.comp \
             declares Data (UniformBuffer)"
        );
    }
}
