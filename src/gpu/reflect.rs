//! Descriptor bindings reflected from the shaders' SPIR-V, so that binding
//! numbers are written only in GLSL: each descriptor set layout is the union
//! of what the shaders sharing it declare (see [`merged_set_bindings`]).
//! rspirv reads the SPIR-V into instructions with typed operands; the
//! layout tests (`layout_tests.rs`) query the same [`Reflection`] to hold
//! every `#[repr(C)]` twin to its GLSL.

use std::collections::{BTreeMap, HashMap};

use ash::vk;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Dim, ExecutionMode, Op, StorageClass, Word};

/// The descriptor kinds the shaders use; others (separate images and
/// samplers, storage texel buffers) are not reflected yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    UniformBuffer,
    StorageBuffer,
    CombinedImageSampler,
    /// `samplerBuffer` and the like: a buffer read through a format.
    UniformTexelBuffer,
    /// `image2D` and the like: an image written (or read) texel by texel.
    StorageImage,
}

impl DescriptorKind {
    /// What a `vk::DescriptorSetLayoutBinding` and the pool sizes call it.
    pub fn descriptor_type(self) -> vk::DescriptorType {
        match self {
            DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
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

/// A parsed SPIR-V module, with its definitions by id.
pub struct Reflection {
    module: Module,
    /// Result id -> index in `module.types_global_values`.
    definitions: HashMap<Word, usize>,
}

impl Reflection {
    pub fn new(spirv: &[u8]) -> Result<Reflection, String> {
        let module = rspirv::dr::load_bytes(spirv).map_err(|error| error.to_string())?;
        let definitions = (0..)
            .zip(&module.types_global_values)
            .filter_map(|(index, instruction)| Some((instruction.result_id?, index)))
            .collect();
        Ok(Reflection {
            module,
            definitions,
        })
    }

    /// The instruction that defines `id` (a type, constant or variable).
    pub fn definition(&self, id: Word) -> Option<&Instruction> {
        Some(&self.module.types_global_values[*self.definitions.get(&id)?])
    }

    /// Types, constants and global variables, in module order.
    pub fn globals(&self) -> impl Iterator<Item = &Instruction> {
        self.module.types_global_values.iter()
    }

    /// The debug name of `id` (`OpName`), empty where it has none.
    pub fn name(&self, id: Word) -> String {
        self.module
            .debug_names
            .iter()
            .find_map(|instruction| match instruction.operands.as_slice() {
                [Operand::IdRef(target), Operand::LiteralString(name)]
                    if instruction.class.opcode == Op::Name && *target == id =>
                {
                    Some(name.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Whether `id` is decorated `decoration`, and its first literal if any.
    pub fn decoration(&self, id: Word, decoration: Decoration) -> Option<Option<u32>> {
        self.module.annotations.iter().find_map(|instruction| {
            match instruction.operands.as_slice() {
                [Operand::IdRef(target), Operand::Decoration(found), rest @ ..]
                    if instruction.class.opcode == Op::Decorate
                        && *target == id
                        && *found == decoration =>
                {
                    Some(literal(rest))
                }
                _ => None,
            }
        })
    }

    /// The debug name of member `member` of struct `id` (`OpMemberName`).
    #[cfg(test)]
    pub fn member_name(&self, id: Word, member: u32) -> String {
        self.module
            .debug_names
            .iter()
            .find_map(|instruction| match instruction.operands.as_slice() {
                [Operand::IdRef(target), Operand::LiteralBit32(index), Operand::LiteralString(name)]
                    if *target == id && *index == member =>
                {
                    Some(name.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The literal of `decoration` on member `member` of struct `id`.
    #[cfg(test)]
    pub fn member_decoration(&self, id: Word, member: u32, decoration: Decoration) -> Option<u32> {
        self.module
            .annotations
            .iter()
            .find_map(|instruction| match instruction.operands.as_slice() {
                [Operand::IdRef(target), Operand::LiteralBit32(index), Operand::Decoration(found), rest @ ..]
                    if instruction.class.opcode == Op::MemberDecorate
                        && *target == id
                        && *index == member
                        && *found == decoration =>
                {
                    literal(rest)
                }
                _ => None,
            })
    }

    /// The value of the 32-bit integer constant `id`.
    pub fn constant(&self, id: Word) -> Option<u32> {
        let definition = self.definition(id)?;
        (definition.class.opcode == Op::Constant)
            .then(|| literal(&definition.operands))
            .flatten()
    }
}

/// The first operand, if it is a 32-bit literal.
fn literal(operands: &[Operand]) -> Option<u32> {
    match operands.first() {
        Some(Operand::LiteralBit32(value)) => Some(*value),
        _ => None,
    }
}

/// The workgroup size a compute shader declares (`layout(local_size_x =
/// ...) in;`, SPIR-V's `LocalSize` execution mode): what its dispatches
/// are counted in.
pub fn workgroup_size(spirv: &[u8]) -> Result<[u32; 3], String> {
    let module = rspirv::dr::load_bytes(spirv).map_err(|error| error.to_string())?;
    module
        .execution_modes
        .iter()
        .find_map(|instruction| match instruction.operands.as_slice() {
            [Operand::IdRef(_), Operand::ExecutionMode(ExecutionMode::LocalSize), Operand::LiteralBit32(x), Operand::LiteralBit32(y), Operand::LiteralBit32(z)] => {
                Some([*x, *y, *z])
            }
            _ => None,
        })
        .ok_or_else(|| "no LocalSize execution mode (not a compute shader with a literal local_size)".into())
}

/// Every descriptor a module declares (variables decorated with
/// DescriptorSet and Binding), sorted by (set, binding).
///
/// Uniform blocks are `UniformBuffer`; `buffer` blocks (StorageBuffer
/// storage, or Uniform storage decorated BufferBlock before SPIR-V 1.3) are
/// `StorageBuffer`; `sampler2D` and the like are `CombinedImageSampler`,
/// `samplerBuffer` and the like `UniformTexelBuffer`, `image2D` and the
/// like `StorageImage`.
/// A sized array of samplers is one binding of that many descriptors.
/// Skipped, because no shader here uses them: arrays sized at run time (the
/// count would have to come from elsewhere), and separate images and
/// samplers. A layout derived from such a shader lacks the
/// binding, which pipeline creation (and the validation layer) reports.
pub fn descriptor_bindings(spirv: &[u8]) -> Result<Vec<DescriptorBinding>, String> {
    let module = Reflection::new(spirv)?;
    let mut bindings: Vec<DescriptorBinding> = module
        .globals()
        .filter(|instruction| instruction.class.opcode == Op::Variable)
        .filter_map(|variable| descriptor(&module, variable))
        .collect();
    bindings.sort_by_key(|b| (b.set, b.binding));
    Ok(bindings)
}

/// The descriptor that `variable` (an `OpVariable`) is, if it is one.
fn descriptor(module: &Reflection, variable: &Instruction) -> Option<DescriptorBinding> {
    let id = variable.result_id?;
    let set = module.decoration(id, Decoration::DescriptorSet)??;
    let binding = module.decoration(id, Decoration::Binding)??;
    let pointer = module.definition(variable.result_type?)?;
    let [Operand::StorageClass(storage), Operand::IdRef(pointee)] = pointer.operands.as_slice()
    else {
        return None;
    };
    let mut pointee = module.definition(*pointee)?;
    let mut count = 1;
    if pointee.class.opcode == Op::TypeArray {
        let [Operand::IdRef(element), Operand::IdRef(length)] = pointee.operands.as_slice() else {
            return None;
        };
        count = module.constant(*length)?;
        pointee = module.definition(*element)?;
    }
    let pointee_id = pointee.result_id?;
    let block = |decoration| module.decoration(pointee_id, decoration).is_some();
    let (kind, name_id) = match (storage, pointee.class.opcode) {
        (StorageClass::Uniform, Op::TypeStruct) if block(Decoration::Block) => {
            (DescriptorKind::UniformBuffer, pointee_id)
        }
        (StorageClass::Uniform, Op::TypeStruct) if block(Decoration::BufferBlock) => {
            (DescriptorKind::StorageBuffer, pointee_id)
        }
        (StorageClass::StorageBuffer, Op::TypeStruct) => {
            (DescriptorKind::StorageBuffer, pointee_id)
        }
        (StorageClass::UniformConstant, Op::TypeSampledImage) => {
            let [Operand::IdRef(image)] = pointee.operands.as_slice() else {
                return None;
            };
            match module.definition(*image)?.operands.get(1) {
                Some(Operand::Dim(Dim::DimBuffer)) => (DescriptorKind::UniformTexelBuffer, id),
                _ => (DescriptorKind::CombinedImageSampler, id),
            }
        }
        // OpTypeImage's sixth operand: 2 is an image without a sampler.
        (StorageClass::UniformConstant, Op::TypeImage)
            if matches!(pointee.operands.get(5), Some(Operand::LiteralBit32(2))) =>
        {
            (DescriptorKind::StorageImage, id)
        }
        _ => return None,
    };
    // Blocks are usually anonymous instances: their type has the name.
    Some(DescriptorBinding {
        set,
        binding,
        kind,
        name: module.name(name_id),
        count,
    })
}

/// The union of the bindings of `set` over `stages`, sorted by binding, each
/// with the stages that declare it: the description of one descriptor set
/// layout that all of them share. A stage is `(name, spirv, stage)`; the
/// name (e.g. `"crowd.vert"`) is only for the error, which names both
/// shaders of every (set, binding) that two stages (or one, twice) declare
/// with different kinds or names: that is a GLSL bug the layout would hide.
pub fn merged_set_bindings(
    set: u32,
    stages: &[(&str, &[u8], vk::ShaderStageFlags)],
) -> Result<Vec<MergedBinding>, String> {
    // binding -> (the merged binding, the shader that declared it first)
    let mut merged: BTreeMap<u32, (MergedBinding, &str)> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for &(shader, spirv, stage) in stages {
        let descriptors =
            descriptor_bindings(spirv).map_err(|error| format!("{shader}: {error}"))?;
        for descriptor in descriptors {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::shaders::spirv;
    use rspirv::spirv::MAGIC_NUMBER;

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
        descriptor_bindings(spirv)
            .unwrap()
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

    use DescriptorKind::{
        CombinedImageSampler, StorageBuffer, StorageImage, UniformBuffer, UniformTexelBuffer,
    };

    #[test]
    fn draw_vertex_shaders_declare_the_scene_set_without_push_constants() {
        let mut scene = vec![
            (0, StorageBuffer, "SkinningTransforms"),
            (1, StorageBuffer, "Instances"),
            (2, UniformBuffer, "Frame"),
            (3, StorageBuffer, "VisibleInstances"),
            (4, StorageBuffer, "PoseSources"),
            (5, StorageBuffer, "SharedPoses"),
        ];
        assert_eq!(bindings_of(spirv::SKELETON_VERT, 0), expected(&scene));
        // A mesh in the band around the impostor switch reads its fade,
        // and morph targets move its vertices.
        scene.push((7, StorageBuffer, "ImpostorCells"));
        scene.push((19, StorageBuffer, "MorphWeights"));
        scene.push((20, StorageBuffer, "MorphRanges"));
        scene.push((21, StorageBuffer, "MorphEntries"));
        assert_eq!(bindings_of(spirv::CROWD_VERT, 0), expected(&scene));
    }

    #[test]
    fn crowd_frag_declares_frame_and_the_material_maps_and_constants() {
        let skins = |binding, name| DescriptorBinding {
            count: crate::gpu::shader_types::MAX_SKINS as u32,
            ..descriptor(1, binding, CombinedImageSampler, name)
        };
        assert_eq!(
            descriptor_bindings(spirv::CROWD_FRAG).unwrap(),
            [
                descriptor(0, 2, UniformBuffer, "Frame"),
                descriptor(0, 8, CombinedImageSampler, "shadow_map"),
                skins(0, "diffuse_maps"),
                skins(1, "normal_maps"),
                skins(2, "specular_maps"),
                descriptor(1, 3, CombinedImageSampler, "emissive_map"),
                descriptor(1, 4, CombinedImageSampler, "occlusion_map"),
                descriptor(1, 5, UniformBuffer, "Material"),
            ]
        );
        assert_eq!(descriptor_bindings(spirv::SKELETON_FRAG).unwrap(), []);
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
                (14, StorageBuffer, "ImpostorSlots"),
                (15, StorageBuffer, "ImpostorRequests"),
                (16, StorageBuffer, "ImpostorCells"),
                (17, StorageBuffer, "CameraPoseSources"),
                (18, StorageBuffer, "InstanceLayers"),
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
            bindings_of(spirv::DEPTH_RESOLVE_COMP, 2),
            expected(&[
                (0, CombinedImageSampler, "depth_samples"),
                (1, StorageImage, "farthest_depth"),
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
                (18, StorageBuffer, "InstanceLayers"),
                (19, StorageBuffer, "LayerMasks"),
                (20, StorageBuffer, "ClipMorphRows"),
                (21, StorageBuffer, "MorphWeights"),
            ])
        );
    }

    #[test]
    fn merged_compute_set_is_frame_storage_buffers_and_two_texel_buffers() {
        let merged = merged_set_bindings(
            0,
            &[
                ("cull.comp", spirv::CULL_COMP, COMPUTE),
                ("draws.comp", spirv::DRAWS_COMP, COMPUTE),
                ("animate.comp", spirv::ANIMATE_COMP, COMPUTE),
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
        want.extend((12..=21).map(|binding| (binding, StorageBuffer, COMPUTE)));
        assert_eq!(summary, want);
    }

    #[test]
    fn merged_draw_sets_combine_stages() {
        let stages = [
            ("crowd.vert", spirv::CROWD_VERT, VERTEX),
            ("crowd.frag", spirv::CROWD_FRAG, FRAGMENT),
            ("skeleton.vert", spirv::SKELETON_VERT, VERTEX),
            ("skeleton.frag", spirv::SKELETON_FRAG, FRAGMENT),
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
                (7, StorageBuffer, "ImpostorCells", VERTEX),
                (8, CombinedImageSampler, "shadow_map", FRAGMENT),
                (19, StorageBuffer, "MorphWeights", VERTEX),
                (20, StorageBuffer, "MorphRanges", VERTEX),
                (21, StorageBuffer, "MorphEntries", VERTEX),
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
                .chain(
                    [
                        (3, CombinedImageSampler, "emissive_map"),
                        (4, CombinedImageSampler, "occlusion_map"),
                        (5, UniformBuffer, "Material"),
                    ]
                    .map(|(binding, kind, name)| MergedBinding {
                        descriptor: descriptor(1, binding, kind, name),
                        stages: FRAGMENT,
                    })
                )
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
        let error = merged_set_bindings(
            0,
            &[
                ("crowd.vert", spirv::CROWD_VERT, VERTEX),
                ("cull.comp", spirv::CULL_COMP, COMPUTE),
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
    fn instruction(module: &mut Vec<u32>, op: Op, operands: &[u32]) {
        module.push(((operands.len() as u32 + 1) << 16) | op as u32);
        module.extend_from_slice(operands);
    }

    /// A nul-terminated string packed into words, as SPIR-V literals are.
    fn literal(text: &str) -> Vec<u32> {
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize(text.len() / 4 * 4 + 4, 0);
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    /// A hand-assembled module for what the compiled shaders lack (they are
    /// SPIR-V 1.5): a pre-1.3 BufferBlock storage buffer, a push constant
    /// block, an array of samplers, and a conflicting uniform buffer.
    fn hand_built(storage_decoration: Decoration, push_constant_binding: bool) -> Vec<u8> {
        let (float, uint, image, sampled, length) = (1, 2, 3, 4, 5);
        let (array, array_ptr, samplers, block, block_ptr, buffer) = (6, 7, 8, 9, 10, 11);
        let (push_block, push_ptr, push) = (12, 13, 14);
        let (uniform_constant, uniform, push_constant) = (
            StorageClass::UniformConstant as u32,
            StorageClass::Uniform as u32,
            StorageClass::PushConstant as u32,
        );
        let (set, binding) = (Decoration::DescriptorSet as u32, Decoration::Binding as u32);
        let mut m = vec![MAGIC_NUMBER, 0x0001_0000, 0, 15, 0];
        for (id, text) in [
            (block, "Data"),
            (buffer, ""),
            (samplers, "textures"),
            (push_block, "Constants"),
        ] {
            let mut operands = vec![id];
            operands.extend(literal(text));
            instruction(&mut m, Op::Name, &operands);
        }
        instruction(&mut m, Op::Decorate, &[block, storage_decoration as u32]);
        instruction(&mut m, Op::Decorate, &[buffer, set, 0]);
        instruction(&mut m, Op::Decorate, &[buffer, binding, 1]);
        instruction(&mut m, Op::Decorate, &[samplers, set, 0]);
        instruction(&mut m, Op::Decorate, &[samplers, binding, 2]);
        instruction(
            &mut m,
            Op::Decorate,
            &[push_block, Decoration::Block as u32],
        );
        for struct_id in [block, push_block] {
            let offset = Decoration::Offset as u32;
            instruction(&mut m, Op::MemberDecorate, &[struct_id, 0, offset, 0]);
        }
        if push_constant_binding {
            // Invalid SPIR-V, but shows that push constants are never descriptors.
            instruction(&mut m, Op::Decorate, &[push, set, 0]);
            instruction(&mut m, Op::Decorate, &[push, binding, 3]);
        }
        instruction(&mut m, Op::TypeFloat, &[float, 32]);
        let dim = Dim::Dim2D as u32;
        instruction(&mut m, Op::TypeImage, &[image, float, dim, 0, 0, 0, 1, 0]);
        instruction(&mut m, Op::TypeSampledImage, &[sampled, image]);
        instruction(&mut m, Op::TypeInt, &[uint, 32, 0]);
        instruction(&mut m, Op::Constant, &[uint, length, 4]);
        instruction(&mut m, Op::TypeArray, &[array, sampled, length]);
        instruction(
            &mut m,
            Op::TypePointer,
            &[array_ptr, uniform_constant, array],
        );
        instruction(&mut m, Op::TypeStruct, &[block, float]);
        instruction(&mut m, Op::TypePointer, &[block_ptr, uniform, block]);
        instruction(&mut m, Op::TypeStruct, &[push_block, float]);
        instruction(
            &mut m,
            Op::TypePointer,
            &[push_ptr, push_constant, push_block],
        );
        instruction(
            &mut m,
            Op::Variable,
            &[array_ptr, samplers, uniform_constant],
        );
        instruction(&mut m, Op::Variable, &[block_ptr, buffer, uniform]);
        instruction(&mut m, Op::Variable, &[push_ptr, push, push_constant]);
        m.iter().flat_map(|word| word.to_le_bytes()).collect()
    }

    #[test]
    fn hand_built_buffer_block_is_storage_arrays_count_and_push_constants_are_skipped() {
        let textures = DescriptorBinding {
            count: 4,
            ..descriptor(0, 2, CombinedImageSampler, "textures")
        };
        let legacy = hand_built(Decoration::BufferBlock, true);
        assert_eq!(
            descriptor_bindings(&legacy).unwrap(),
            [descriptor(0, 1, StorageBuffer, "Data"), textures.clone()]
        );
        let uniform = hand_built(Decoration::Block, false);
        assert_eq!(
            descriptor_bindings(&uniform).unwrap(),
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
