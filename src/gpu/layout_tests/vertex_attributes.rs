//! Vertex attributes against the vertex shader inputs they feed: every
//! input fed, nothing else, each with the scalar kind and component count
//! the shader declares.

use ash::vk;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::gpu::passes::{crowd_draw, skeleton_overlay};
use crate::gpu::reflect::Reflection;
use crate::gpu::shader_types::SkeletonVertex;
use crate::gpu::shaders::spirv;
use crate::skin::InfluenceLimit;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScalarKind {
    Float,
    Int,
    Uint,
}

/// What a vertex attribute format delivers to the shader.
fn delivers(format: vk::Format) -> (ScalarKind, u32) {
    match format {
        vk::Format::R32_UINT => (ScalarKind::Uint, 1),
        vk::Format::R32G32_SFLOAT => (ScalarKind::Float, 2),
        vk::Format::R32G32B32_SFLOAT => (ScalarKind::Float, 3),
        vk::Format::R32G32B32A32_SFLOAT => (ScalarKind::Float, 4),
        vk::Format::R16G16B16A16_UINT => (ScalarKind::Uint, 4),
        vk::Format::R8G8B8A8_UNORM => (ScalarKind::Float, 4),
        vk::Format::R16G16B16A16_UNORM => (ScalarKind::Float, 4),
        other => panic!("add {other:?} to this table"),
    }
}

/// A vertex shader input (`layout(location = N) in ...`).
struct VertexInput {
    location: u32,
    name: String,
    /// What it holds: its scalar kind and component count.
    delivered: (ScalarKind, u32),
}

/// Vertex inputs sorted by location (built-ins such as `gl_VertexIndex`
/// have no location and are left out).
fn vertex_inputs(spirv: &[u8]) -> Vec<VertexInput> {
    let module = Reflection::new(spirv).unwrap();
    let scalar_kind = |ty: Word| {
        let definition = module.definition(ty).unwrap();
        match (definition.class.opcode, definition.operands.as_slice()) {
            (Op::TypeFloat, _) => ScalarKind::Float,
            (Op::TypeInt, [_, Operand::LiteralBit32(1)]) => ScalarKind::Int,
            (Op::TypeInt, _) => ScalarKind::Uint,
            _ => panic!("a vertex input of type {definition:?}"),
        }
    };
    let mut inputs: Vec<VertexInput> = module
        .globals()
        .filter(|instruction| {
            instruction.class.opcode == Op::Variable
                && instruction.operands.first() == Some(&Operand::StorageClass(StorageClass::Input))
        })
        .filter_map(|variable| {
            let id = variable.result_id?;
            let location = module.decoration(id, Decoration::Location)??;
            let pointer = module.definition(variable.result_type?)?;
            let Some(Operand::IdRef(pointee)) = pointer.operands.get(1) else {
                return None;
            };
            let ty = module.definition(*pointee)?;
            let delivered = match ty.operands.as_slice() {
                [Operand::IdRef(component), Operand::LiteralBit32(count)]
                    if ty.class.opcode == Op::TypeVector =>
                {
                    (scalar_kind(*component), *count)
                }
                _ => (scalar_kind(*pointee), 1),
            };
            Some(VertexInput {
                location,
                name: module.name(id),
                delivered,
            })
        })
        .collect();
    inputs.sort_by_key(|input| input.location);
    inputs
}

fn assert_attributes_feed_inputs(spirv: &[u8], attributes: &[vk::VertexInputAttributeDescription]) {
    let inputs = vertex_inputs(spirv);
    assert_eq!(
        inputs.iter().map(|i| i.location).collect::<Vec<_>>(),
        attributes.iter().map(|a| a.location).collect::<Vec<_>>(),
        "every input fed, nothing else"
    );
    for (input, attribute) in inputs.iter().zip(attributes) {
        assert_eq!(
            delivers(attribute.format),
            input.delivered,
            "location {} ({})",
            input.location,
            input.name
        );
    }
}

#[test]
fn crowd_vertex_attributes() {
    for limit in [InfluenceLimit::Four, InfluenceLimit::Eight] {
        let (bindings, attributes) = crowd_draw::vertex_input(limit);
        assert_attributes_feed_inputs(spirv::CROWD_VERT, &attributes);
        for attribute in &attributes {
            let binding = bindings
                .iter()
                .find(|b| b.binding == attribute.binding)
                .expect("bound stream");
            assert!(
                attribute.offset < binding.stride,
                "location {} inside its vertex",
                attribute.location
            );
        }
    }
}

#[test]
fn skeleton_vertex_attributes() {
    let (bindings, attributes) = skeleton_overlay::vertex_input();
    assert_attributes_feed_inputs(spirv::SKELETON_VERT, &attributes);
    assert_eq!(bindings[0].stride as usize, size_of::<SkeletonVertex>());
}
