//! Every Rust twin of a GLSL declaration against the compiled SPIR-V (GLSL
//! is the source of truth): struct sizes and member offsets, push constant
//! blocks, and vertex attributes against the shader inputs they feed.

use std::mem::{offset_of, size_of};

use ash::vk;

use super::crowd_buffers::VISIBLE_HEADER_BYTES;
use super::passes::crowd_draw;
use super::passes::skeleton_overlay;
use super::reflect::{self, layout_mismatches, ScalarKind, StructLayout};
use super::resources::TEXEL_BYTES;
use super::shader_types::{
    ClipInfo, CrowdComputeConstants, CrowdInstance, CrowdModel, DrawConstants, FrameBounds,
    FrameUniforms, GpuAgentLane, GpuGaitSwitch, GpuJointPose, GpuLocomotionTable, GpuSpeedSegment,
    InstanceAnimation, SkeletonJoint, SkeletonVertex, SkinningTransform, VisibleHeader,
};
use super::shaders::spirv;
use crate::skin::InfluenceLimit;

/// `offsets!(Type, a, b)` = `[("a", offset_of!(Type, a)), ("b", ...)]`.
macro_rules! offsets {
    ($ty:ty, $($field:ident),+) => {
        [$((stringify!($field), offset_of!($ty, $field))),+]
    };
}

/// The struct named `name` in `spirv`; every copy must agree.
fn glsl_struct(spirv: &[u8], name: &str) -> StructLayout {
    let layouts = reflect::struct_layouts(&reflect::words(spirv), name);
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
                cull_view_projection,
                light_direction,
                light_color,
                ambient_color,
                camera_position,
                frustum_planes,
                lod_params,
                time,
                blend_time,
                viewport_size,
                ground,
                shadow_radii
            ),
        );
    }
}

/// The animate kernels fetch a clip pose as two whole texels and a joint as
/// three (shaders/animate.glsl: `clip_pose`, `skeleton_joint`,
/// `joint_depth`), the second starting with the translation; the GPU == CPU
/// animation tests catch a shader that reads them otherwise.
#[test]
fn texel_records() {
    assert_eq!(size_of::<GpuJointPose>(), 2 * TEXEL_BYTES);
    assert_eq!(offset_of!(GpuJointPose, translation), TEXEL_BYTES);
    assert_eq!(size_of::<SkeletonJoint>(), 3 * TEXEL_BYTES);
    assert_eq!(
        offset_of!(SkeletonJoint, inverse_bind_translation),
        TEXEL_BYTES
    );
    // The parent's index is the translation texel's w, the depth the third's x.
    assert_eq!(offset_of!(SkeletonJoint, parent), TEXEL_BYTES + 12);
    assert_eq!(offset_of!(SkeletonJoint, depth), 2 * TEXEL_BYTES);
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
                padding,
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
                mesh_count,
                phase,
                palette_rows
            ),
        );
    }
    for shader in [
        spirv::ANIMATE_COMP,
        spirv::ANIMATE_JOINTS_COMP,
        spirv::CULL_COMP,
        spirv::DRAWS_COMP,
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
                padding,
                lod_errors
            ),
        );
    }
}

#[test]
fn visible_header() {
    // The lists start where the header's twin ends: VISIBLE_HEADER_BYTES.
    let header = size_of::<VisibleHeader>();
    assert_eq!(VISIBLE_HEADER_BYTES, header as u64);
    for shader in [
        spirv::CULL_COMP,
        spirv::DRAWS_COMP,
        spirv::ANIMATE_COMP,
        spirv::CROWD_VERT,
        spirv::SKELETON_VERT,
    ] {
        let mut members = offsets!(
            VisibleHeader,
            lod_counts,
            early_counts,
            palette_rows_wanted,
            posed_count,
            early_posed_count,
            padding
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
fn draw_constants() {
    assert_twin(
        glsl_struct(spirv::CROWD_VERT, "DrawConstants"),
        size_of::<DrawConstants>(),
        &offsets!(DrawConstants, skinning_mode, instance_count, show_lod),
    );
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
        other => panic!("add {other:?} to this table"),
    }
}

fn assert_attributes_feed_inputs(spirv: &[u8], attributes: &[vk::VertexInputAttributeDescription]) {
    let inputs = reflect::vertex_inputs(&reflect::words(spirv));
    assert_eq!(
        inputs.iter().map(|i| i.location).collect::<Vec<_>>(),
        attributes.iter().map(|a| a.location).collect::<Vec<_>>(),
        "every input fed, nothing else"
    );
    for (input, attribute) in inputs.iter().zip(attributes) {
        assert_eq!(
            delivers(attribute.format),
            (input.kind, input.components),
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
