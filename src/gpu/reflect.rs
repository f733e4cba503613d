//! Just enough SPIR-V reflection to keep Rust and GLSL in agreement: struct
//! member offsets and sizes, and vertex shader inputs. GLSL is the source of
//! truth; tests compare every `#[repr(C)]` twin against what the compiler
//! laid out (see [`layout_mismatches`]).

use std::collections::HashMap;

const SPIRV_MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

// Opcodes and enumerants from the SPIR-V specification, section 3.
const OP_NAME: u32 = 5;
const OP_MEMBER_NAME: u32 = 6;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_MATRIX: u32 = 24;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const DECORATION_ARRAY_STRIDE: u32 = 6;
const DECORATION_MATRIX_STRIDE: u32 = 7;
const DECORATION_LOCATION: u32 = 30;
const DECORATION_OFFSET: u32 = 35;
const STORAGE_CLASS_INPUT: u32 = 1;

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
        pointee: u32,
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
    constants: HashMap<u32, u32>,
    types: HashMap<u32, Type>,
    input_variables: Vec<(u32, u32)>,
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
            let Some(Type::Pointer { pointee }) = module.types.get(&pointer_type) else {
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
            (OP_TYPE_POINTER, [id, _storage, pointee]) => {
                self.types.insert(*id, Type::Pointer { pointee: *pointee });
            }
            // 32-bit constants are all that array lengths use here.
            (OP_CONSTANT, [_type, id, value, ..]) => {
                self.constants.insert(*id, *value);
            }
            (OP_VARIABLE, [pointer_type, id, STORAGE_CLASS_INPUT, ..]) => {
                self.input_variables.push((*id, *pointer_type));
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
            Some(Type::Pointer { .. }) | None => 0,
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
