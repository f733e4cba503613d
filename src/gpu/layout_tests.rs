//! Every Rust twin of a GLSL declaration against the compiled SPIR-V (GLSL
//! is the source of truth): struct sizes and member offsets, push constant
//! blocks, and vertex attributes against the shader inputs they feed.

use std::mem::{offset_of, size_of};

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};

use super::morph_data::MorphEntry;
use super::reflect::Reflection;
use super::shader_types::{
    ClipInfo, CrowdComputeConstants, CrowdInstance, CrowdModel, DrawConstants, FrameBounds,
    FrameUniforms, GpuAgentLane, GpuCullView, GpuGaitSwitch, GpuInstanceLayer, GpuLocomotionTable,
    GpuSpeedSegment, InstanceAnimation, MaterialBlock, MaterialConstants, SkinningTransform,
    VisibleHeader,
};
use super::shaders::spirv;

mod vertex_attributes;

/// `offsets!(Type, a, b)` = `[("a", offset_of!(Type, a)), ("b", ...)]`.
macro_rules! offsets {
    ($ty:ty, $($field:ident),+) => {
        [$((stringify!($field), offset_of!($ty, $field))),+]
    };
}

/// A GLSL struct as the compiler laid it out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StructLayout {
    name: String,
    /// The array stride when the struct is an array element (that is what a
    /// Rust slice of its twin must match), else where its last member ends.
    size: usize,
    /// (name, offset) in declaration order.
    members: Vec<(String, usize)>,
}

/// Every struct named `name` that has a memory layout (a shader may hold
/// several copies, e.g. one per block that embeds it). Copies without one,
/// which the compiler emits for function-local values, are left out.
fn struct_layouts(spirv: &[u8], name: &str) -> Vec<StructLayout> {
    let module = Reflection::new(spirv).unwrap();
    module
        .globals()
        .filter(|instruction| instruction.class.opcode == Op::TypeStruct)
        .filter_map(|instruction| instruction.result_id)
        .filter(|&id| {
            module.name(id) == name
                && module
                    .member_decoration(id, 0, Decoration::Offset)
                    .is_some()
        })
        .map(|id| struct_layout(&module, id))
        .collect()
}

fn struct_layout(module: &Reflection, id: Word) -> StructLayout {
    let member_count = module.definition(id).unwrap().operands.len() as u32;
    let members = (0..member_count)
        .map(|member| {
            let offset = module.member_decoration(id, member, Decoration::Offset);
            (module.member_name(id, member), offset.unwrap() as usize)
        })
        .collect();
    let stride =
        module
            .globals()
            .find_map(|array| match (array.class.opcode, array.operands.first()) {
                (Op::TypeArray | Op::TypeRuntimeArray, Some(Operand::IdRef(element)))
                    if *element == id =>
                {
                    module.decoration(array.result_id?, Decoration::ArrayStride)?
                }
                _ => None,
            });
    StructLayout {
        name: module.name(id),
        size: stride.map_or_else(|| struct_end(module, id), |stride| stride as usize),
        members,
    }
}

/// Where the last member of struct `id` ends.
fn struct_end(module: &Reflection, id: Word) -> usize {
    let members = &module.definition(id).unwrap().operands;
    (0u32..)
        .zip(members)
        .map(|(member, ty)| {
            let Operand::IdRef(ty) = ty else {
                panic!("struct {id} member {member}: {ty:?}")
            };
            let offset = module.member_decoration(id, member, Decoration::Offset);
            let matrix_stride = module.member_decoration(id, member, Decoration::MatrixStride);
            offset.unwrap_or(0) as usize + type_size(module, *ty, matrix_stride)
        })
        .max()
        .unwrap_or(0)
}

fn type_size(module: &Reflection, ty: Word, matrix_stride: Option<u32>) -> usize {
    let definition = module.definition(ty).unwrap();
    match (definition.class.opcode, definition.operands.as_slice()) {
        (Op::TypeInt | Op::TypeFloat, [Operand::LiteralBit32(bits), ..]) => *bits as usize / 8,
        (Op::TypeVector, [Operand::IdRef(component), Operand::LiteralBit32(count)]) => {
            *count as usize * type_size(module, *component, None)
        }
        (Op::TypeMatrix, [_, Operand::LiteralBit32(columns)]) => {
            (columns * matrix_stride.unwrap_or(16)) as usize
        }
        (Op::TypeArray, [_, Operand::IdRef(length)]) => {
            let stride = module.decoration(ty, Decoration::ArrayStride).flatten();
            (stride.unwrap_or(0) * module.constant(*length).unwrap()) as usize
        }
        (Op::TypeRuntimeArray, _) => 0,
        (Op::TypeStruct, _) => struct_end(module, ty),
        _ => panic!("no size for {definition:?}"),
    }
}

/// Differences between a GLSL struct and its Rust twin, described for a
/// test failure; empty when they agree. `members` are the twin's fields in
/// declaration order with `offset_of!` offsets.
fn layout_mismatches(
    glsl: &StructLayout,
    rust_size: usize,
    members: &[(&str, usize)],
) -> Vec<String> {
    let name = &glsl.name;
    let mut problems = Vec::new();
    if glsl.size != rust_size {
        problems.push(format!(
            "{name}: GLSL size {} but Rust size {rust_size}",
            glsl.size
        ));
    }
    if glsl.members.len() != members.len() {
        problems.push(format!(
            "{name}: GLSL has {} members, Rust {}",
            glsl.members.len(),
            members.len()
        ));
    }
    for ((glsl_name, glsl_offset), (rust_name, rust_offset)) in glsl.members.iter().zip(members) {
        if glsl_name != rust_name || glsl_offset != rust_offset {
            problems.push(format!(
                "{name}: GLSL member {glsl_name} at offset {glsl_offset}, Rust {rust_name} at {rust_offset}"
            ));
        }
    }
    problems
}

/// The struct named `name` in `spirv`; every copy must agree.
fn glsl_struct(spirv: &[u8], name: &str) -> StructLayout {
    let layouts = struct_layouts(spirv, name);
    let first = layouts
        .first()
        .unwrap_or_else(|| panic!("no struct {name} in the shader"))
        .clone();
    assert!(
        layouts.iter().all(|l| *l == first),
        "copies of {name} differ: {layouts:?}"
    );
    first
}

fn assert_twin(glsl: StructLayout, rust_size: usize, members: &[(&str, usize)]) {
    let problems = layout_mismatches(&glsl, rust_size, members);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn skinning_transform() {
    for shader in [spirv::CROWD_VERT, spirv::SKELETON_VERT, spirv::ANIMATE_COMP] {
        assert_twin(
            glsl_struct(shader, "SkinningTransform"),
            size_of::<SkinningTransform>(),
            &offsets!(SkinningTransform, rotation, translation),
        );
    }
}

#[test]
fn frame_uniforms() {
    for shader in [
        spirv::CROWD_VERT,
        spirv::CROWD_FRAG,
        spirv::SKELETON_VERT,
        spirv::CULL_COMP,
        spirv::ANIMATE_COMP,
    ] {
        assert_twin(
            glsl_struct(shader, "FrameUniforms"),
            size_of::<FrameUniforms>(),
            &offsets!(
                FrameUniforms,
                view_projection,
                cull_views,
                light_direction,
                light_color,
                ambient_color,
                camera_position,
                time,
                blend_time,
                morph_stride,
                padding,
                ground,
                shadow_radii,
                shadow_far,
                shadow_texel_size,
                shadow_params
            ),
        );
    }
    assert_twin(
        glsl_struct(spirv::CULL_COMP, "CullView"),
        size_of::<GpuCullView>(),
        &offsets!(
            GpuCullView,
            view_projection,
            frustum_planes,
            lod_params,
            eye,
            viewport_size,
            orthographic,
            padding
        ),
    );
}

#[test]
fn animation_data() {
    assert_twin(
        glsl_struct(spirv::CULL_COMP, "FrameBounds"),
        size_of::<FrameBounds>(),
        &offsets!(FrameBounds, min, max),
    );
    // The agent pass writes what the animate and cull passes read.
    for shader in [spirv::ANIMATE_COMP, spirv::CULL_COMP, spirv::AGENTS_COMP] {
        assert_twin(
            glsl_struct(shader, "InstanceAnimation"),
            size_of::<InstanceAnimation>(),
            &offsets!(
                InstanceAnimation,
                clip,
                previous_clip,
                older_clip,
                blend_start,
                phase,
                previous_phase,
                older_phase,
                from_weight,
                rate,
                padding
            ),
        );
    }
    for shader in [
        spirv::ANIMATE_COMP,
        spirv::ANIMATE_JOINTS_COMP,
        spirv::CULL_COMP,
    ] {
        assert_twin(
            glsl_struct(shader, "InstanceLayer"),
            size_of::<GpuInstanceLayer>(),
            &offsets!(
                GpuInstanceLayer,
                clip,
                previous_clip,
                channel_and_mode,
                blend_start,
                phase,
                previous_phase,
                weight,
                rate
            ),
        );
    }
    for shader in [spirv::ANIMATE_COMP, spirv::CULL_COMP] {
        assert_twin(
            glsl_struct(shader, "ClipInfo"),
            size_of::<ClipInfo>(),
            &offsets!(
                ClipInfo,
                first_pose,
                frame_count,
                frame_rate,
                looping,
                shared_first,
                shared_count,
                first_bounds,
                first_morph_row,
                bounding_sphere,
                bounds_min,
                bounds_max
            ),
        );
        assert_twin(
            glsl_struct(shader, "CrowdComputeConstants"),
            size_of::<CrowdComputeConstants>(),
            &offsets!(
                CrowdComputeConstants,
                instance_count,
                model_count,
                lod_count,
                phase,
                palette_rows,
                impostors,
                view,
                command_set,
                draw_commands
            ),
        );
    }
    for shader in [
        spirv::ANIMATE_COMP,
        spirv::ANIMATE_JOINTS_COMP,
        spirv::CULL_COMP,
        spirv::DRAWS_COMP,
        spirv::IMPOSTOR_VERT,
    ] {
        assert_twin(
            glsl_struct(shader, "CrowdModel"),
            size_of::<CrowdModel>(),
            &offsets!(
                CrowdModel,
                joint_count,
                first_joint,
                clip_count,
                lod_count,
                part_count,
                first_instance,
                instance_count,
                first_draw,
                draw_count,
                first_transform,
                first_clip,
                first_layer_mask,
                lod_errors,
                impostor_sphere,
                impostor_half_size
            ),
        );
    }
}

#[test]
fn visible_header() {
    // The lists start where the header's twin ends.
    let header = size_of::<VisibleHeader>();
    for shader in [
        spirv::CULL_COMP,
        spirv::DRAWS_COMP,
        spirv::ANIMATE_COMP,
        spirv::CROWD_VERT,
        spirv::SKELETON_VERT,
        spirv::IMPOSTOR_VERT,
    ] {
        let mut members = offsets!(
            VisibleHeader,
            lod_counts,
            early_counts,
            palette_rows_wanted,
            posed_count,
            early_posed_count,
            padding,
            impostor_counts,
            early_impostor_counts,
            band_counts
        )
        .to_vec();
        members.push(("visible_instances", header));
        assert_twin(glsl_struct(shader, "VisibleInstances"), header, &members);
    }
}

#[test]
fn crowd_instance() {
    for shader in [
        spirv::CROWD_VERT,
        spirv::SKELETON_VERT,
        spirv::IMPOSTOR_VERT,
        spirv::CULL_COMP,
        spirv::AGENTS_COMP,
    ] {
        assert_twin(
            glsl_struct(shader, "CrowdInstance"),
            size_of::<CrowdInstance>(),
            &offsets!(CrowdInstance, placement, tint, skin, model, padding),
        );
    }
}

#[test]
fn agent_lanes() {
    let shader = spirv::AGENTS_COMP;
    assert_twin(
        glsl_struct(shader, "SpeedSegment"),
        size_of::<GpuSpeedSegment>(),
        &offsets!(
            GpuSpeedSegment,
            start_time,
            start_distance,
            start_speed,
            acceleration
        ),
    );
    assert_twin(
        glsl_struct(shader, "GaitSwitch"),
        size_of::<GpuGaitSwitch>(),
        &offsets!(GpuGaitSwitch, time, from_gait, to_gait, padding),
    );
    assert_twin(
        glsl_struct(shader, "LocomotionTable"),
        size_of::<GpuLocomotionTable>(),
        &offsets!(
            GpuLocomotionTable,
            gait_clips,
            gait_speeds,
            gait_headings,
            gait_strides,
            segments,
            switches,
            gait_count,
            switch_count,
            period_distance,
            padding,
            gait_curves
        ),
    );
    assert_twin(
        glsl_struct(shader, "AgentLane"),
        size_of::<GpuAgentLane>(),
        &offsets!(
            GpuAgentLane,
            home,
            centre,
            radius,
            start_angle,
            direction,
            time_offset,
            phase,
            padding
        ),
    );
}

#[test]
fn morph_entry() {
    assert_twin(
        glsl_struct(spirv::CROWD_VERT, "MorphEntry"),
        size_of::<MorphEntry>(),
        &offsets!(MorphEntry, position, normal, tangent),
    );
}

#[test]
fn draw_constants() {
    for shader in [spirv::CROWD_VERT, spirv::IMPOSTOR_VERT] {
        assert_twin(
            glsl_struct(shader, "DrawConstants"),
            size_of::<DrawConstants>(),
            &offsets!(
                DrawConstants,
                skinning_mode,
                instance_count,
                show_lod,
                view,
                morphed
            ),
        );
    }
}

#[test]
fn material_constants() {
    for shader in [
        spirv::CROWD_FRAG,
        spirv::CROWD_BLENDED_FRAG,
        spirv::CROWD_SHADOW_FRAG,
        spirv::IMPOSTOR_BAKE_FRAG,
    ] {
        assert_twin(
            glsl_struct(shader, "MaterialConstants"),
            size_of::<MaterialConstants>(),
            &offsets!(MaterialConstants, alpha_cutoff),
        );
        assert_twin(
            glsl_struct(shader, "Material"),
            size_of::<MaterialBlock>(),
            &offsets!(MaterialBlock, constants_of_skin),
        );
    }
}

#[test]
fn a_wrong_twin_is_reported() {
    #[repr(C)]
    struct Swapped {
        translation: [f32; 4],
        rotation: [f32; 4],
    }
    let problems = layout_mismatches(
        &glsl_struct(spirv::CROWD_VERT, "SkinningTransform"),
        size_of::<Swapped>(),
        &offsets!(Swapped, translation, rotation),
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    let short = layout_mismatches(
        &glsl_struct(spirv::CROWD_VERT, "SkinningTransform"),
        16,
        &[("rotation", 0)],
    );
    assert_eq!(short.len(), 2, "size and member count: {short:?}");
}
