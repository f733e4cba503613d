//! The crowd: every mesh of the model, instanced, skinned in the vertex
//! shader (crowd.vert), lit and textured in the fragment shader.

use std::mem::{offset_of, size_of};
use std::ops::Range;

use ash::vk;

pub use super::crowd_pipelines::{
    create_crowd_draw, CrowdDraw, Look, SHADOW_DEPTH_BIAS, SHADOW_TARGET,
};
use crate::gpu::draw_commands::{DrawCommandLayout, DRAW_COMMAND_STRIDE};
use crate::gpu::gpu_model::{GpuModel, MeshDraw};
use crate::gpu::shader_types::{
    CrowdModel, DrawConstants, ExtraInfluences, SkinVertex, SurfaceVertex,
};
use crate::gpu::{debug, Context};
use crate::material::AlphaMode;
use crate::skin::InfluenceLimit;

/// Where stream 0 (skinned or bind-pose surface vertices) comes from.
pub enum Surface<'a> {
    /// The model's bind pose, skinned by the vertex shader; one indirect
    /// draw per mesh and level of detail from command set `set` of
    /// `draw_commands`, instanced over that level's visible list. Only the
    /// first `drawn_levels` levels are drawn: with level of detail off
    /// every instance is at level 0.
    BindPose {
        draw_commands: (vk::Buffer, DrawCommandLayout),
        set: usize,
        drawn_levels: u32,
    },
    /// Vertices skinned on the CPU, each instance's copy its model's
    /// `ModelPart::vertex_count` after the one before, one draw per
    /// instance and mesh; the set bound at 0 must then hold
    /// identity skinning transforms and the identity visible list.
    CpuSkinned {
        vertices: vk::Buffer,
        /// Each model's instances: their skinned copies follow each other,
        /// model after model.
        models: &'a [CrowdModel],
    },
}

/// Vertex streams and attributes for `limit`. With four influences the
/// second joints/weights pair (locations 5, 6) aliases the first: the
/// shader never reads past its `INFLUENCES`, but its interface declares
/// it, and every declared input must be fed.
pub fn vertex_input(
    limit: InfluenceLimit,
) -> (
    Vec<vk::VertexInputBindingDescription>,
    Vec<vk::VertexInputAttributeDescription>,
) {
    let binding = |binding, stride: usize| vk::VertexInputBindingDescription {
        binding,
        stride: stride as u32,
        input_rate: vk::VertexInputRate::VERTEX,
    };
    let attribute =
        |location, binding, format, offset: usize| vk::VertexInputAttributeDescription {
            location,
            binding,
            format,
            offset: offset as u32,
        };
    let (f32x4, f32x3, f32x2) = (
        vk::Format::R32G32B32A32_SFLOAT,
        vk::Format::R32G32B32_SFLOAT,
        vk::Format::R32G32_SFLOAT,
    );
    let (u16x4, unorm8x4, unorm16x4) = (
        vk::Format::R16G16B16A16_UINT,
        vk::Format::R8G8B8A8_UNORM,
        vk::Format::R16G16B16A16_UNORM,
    );
    let mut bindings = vec![
        binding(0, size_of::<SurfaceVertex>()),
        binding(1, size_of::<SkinVertex>()),
    ];
    let mut attributes = vec![
        attribute(0, 0, f32x3, offset_of!(SurfaceVertex, position)),
        attribute(1, 0, f32x3, offset_of!(SurfaceVertex, normal)),
        attribute(2, 1, f32x2, offset_of!(SkinVertex, uv)),
        attribute(3, 1, u16x4, offset_of!(SkinVertex, joints)),
        attribute(4, 1, unorm8x4, offset_of!(SkinVertex, weights)),
    ];
    match limit {
        InfluenceLimit::Four => attributes.extend([
            attribute(5, 1, u16x4, offset_of!(SkinVertex, joints)),
            attribute(6, 1, unorm8x4, offset_of!(SkinVertex, weights)),
        ]),
        InfluenceLimit::Eight => {
            bindings.push(binding(2, size_of::<ExtraInfluences>()));
            attributes.extend([
                attribute(5, 2, u16x4, offset_of!(ExtraInfluences, joints)),
                attribute(6, 2, unorm8x4, offset_of!(ExtraInfluences, weights)),
            ]);
        }
    }
    attributes.extend([
        attribute(7, 0, f32x4, offset_of!(SurfaceVertex, tangent)),
        attribute(8, 1, unorm16x4, offset_of!(SkinVertex, color)),
    ]);
    (bindings, attributes)
}

/// A mesh's levels of detail, given the pipeline each is drawn with, as
/// runs of consecutive levels sharing one: each run is one multi-draw. The
/// runs come last to first when the last one's pipeline is `bound`, so
/// that meshes alternate directions and bind a pipeline once each where
/// their levels use two.
fn level_runs(
    pipelines: impl Iterator<Item = vk::Pipeline>,
    bound: Option<vk::Pipeline>,
) -> Vec<(vk::Pipeline, Range<u32>)> {
    let mut runs: Vec<(vk::Pipeline, Range<u32>)> = Vec::new();
    for (lod, pipeline) in (0u32..).zip(pipelines) {
        match runs.last_mut() {
            Some((last, levels)) if *last == pipeline => levels.end = lod + 1,
            _ => runs.push((pipeline, lod..lod + 1)),
        }
    }
    if runs.len() > 1 && runs.last().map(|(pipeline, _)| *pipeline) == bound {
        runs.reverse();
    }
    runs
}

/// The indirect calls that draw a run of levels, as (first level, draw
/// count): the whole run in one with multi-draw, else a call per level.
fn level_calls(levels: Range<u32>, multi_draw: bool) -> impl Iterator<Item = (u32, u32)> {
    let per_call = if multi_draw { levels.len().max(1) } else { 1 };
    let end = levels.end;
    levels
        .step_by(per_call)
        .map(move |first| (first, (per_call as u32).min(end - first)))
}

/// How the draws are recorded: the same instances at the same levels
/// either way.
#[derive(Clone, Copy, Debug)]
pub struct DrawOptions {
    pub look: Look,
    /// Each level skins with the influences it keeps; off: with all of them.
    pub lod_influences: bool,
    /// One indirect call per run of levels sharing a pipeline where the
    /// device has `multiDrawIndirect`; off: one per level.
    pub multi_draw: bool,
    /// Only the meshes of BLEND materials; off: only the others.
    pub blended: bool,
}

/// Whether the draws go through `multiDrawIndirect` when `asked`: a
/// device without it runs off (one call per level).
pub fn multi_draw_runs(ctx: &Context, asked: bool) -> bool {
    asked && ctx.multi_draw_indirect
}

/// Records the draws, inside a dynamic rendering scope whose set 0 (scene)
/// is already bound with `layout`. `material_sets[d]` samples the maps of
/// draw `model.draws[d]` under every skin.
#[allow(clippy::too_many_arguments)]
pub fn record_crowd_draw(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &CrowdDraw,
    layout: vk::PipelineLayout,
    model: &GpuModel,
    material_sets: &[vk::DescriptorSet],
    surface: Surface<'_>,
    constants: DrawConstants,
    options: DrawOptions,
) {
    let DrawOptions {
        look,
        lod_influences,
        multi_draw,
        blended,
    } = options;
    let drawn = |draw: &MeshDraw| (draw.shading.alpha == AlphaMode::Blend) == blended;
    // Lavapipe, like most drivers, pays per command recorded and again when
    // the pool is reset: fewer calls are cheaper on the CPU.
    let multi_draw = multi_draw_runs(ctx, multi_draw);
    let constants = match surface {
        // Their vertices are morphed already.
        Surface::CpuSkinned { .. } => DrawConstants {
            morphed: 0,
            ..constants
        },
        Surface::BindPose { .. } => constants,
    };
    let device = &ctx.device;
    let bind_pipeline = |pipeline| unsafe {
        device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
    };
    unsafe {
        device.cmd_push_constants(
            cmd,
            layout,
            vk::ShaderStageFlags::VERTEX,
            0,
            bytemuck::bytes_of(&constants),
        );
        device.cmd_bind_vertex_buffers(cmd, 1, &[model.skin.handle], &[0]);
        if let Some(extra) = &model.extra_influences {
            device.cmd_bind_vertex_buffers(cmd, 2, &[extra.handle], &[0]);
        }
        device.cmd_bind_index_buffer(cmd, model.indices.handle, 0, vk::IndexType::UINT32);
    }
    let bind_materials = |draw: usize| unsafe {
        device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            1,
            &[material_sets[draw]],
            &[],
        );
    };
    match surface {
        Surface::BindPose {
            draw_commands: (draw_commands, commands),
            set,
            drawn_levels,
        } => {
            unsafe { device.cmd_bind_vertex_buffers(cmd, 0, &[model.surface.handle], &[0]) };
            let mut bound = None;
            for (mesh, draw) in model.draws.iter().enumerate().filter(|(_, d)| drawn(d)) {
                let _label = debug::label(ctx, cmd, &draw.label);
                bind_materials(mesh);
                let pipelines = (0..drawn_levels).map(|lod| {
                    let influences = match lod_influences {
                        true => draw.lods[(lod as usize).min(draw.lods.len() - 1)].influences,
                        false => model.limit.count() as u32,
                    };
                    pass.pipeline(influences, draw.shading, look)
                });
                for (pipeline, levels) in level_runs(pipelines, bound) {
                    if bound.replace(pipeline) != Some(pipeline) {
                        bind_pipeline(pipeline);
                    }
                    for (first, count) in level_calls(levels, multi_draw) {
                        unsafe {
                            device.cmd_draw_indexed_indirect(
                                cmd,
                                draw_commands,
                                commands.mesh(set, mesh, first),
                                count,
                                DRAW_COMMAND_STRIDE,
                            );
                        }
                    }
                }
            }
        }
        // Each instance has its own skinned copy of stream 0, while
        // `first_instance` keeps gl_InstanceIndex as in the instanced draw.
        Surface::CpuSkinned { vertices, models } => {
            let vertex_bytes = size_of::<SurfaceVertex>() as u64;
            for (index, draw) in model.draws.iter().enumerate().filter(|(_, d)| drawn(d)) {
                let _label = debug::label(ctx, cmd, &draw.label);
                // Skinned already: any influence count draws them.
                bind_pipeline(pass.pipeline(0, draw.shading, look));
                bind_materials(index);
                let part = &model.parts[draw.model];
                let crowd_model = &models[draw.model];
                // Where the model's copies start, and the mesh inside one.
                let model_first: u64 = models[..draw.model]
                    .iter()
                    .zip(&model.parts)
                    .map(|(m, p)| u64::from(m.instance_count) * u64::from(p.vertex_count))
                    .sum();
                let mesh_offset = draw.vertex_offset - part.first_vertex as i32;
                for copy in 0..crowd_model.instance_count {
                    let instance = crowd_model.first_instance + copy;
                    let first = model_first + u64::from(copy) * u64::from(part.vertex_count);
                    unsafe {
                        device.cmd_bind_vertex_buffers(
                            cmd,
                            0,
                            &[vertices],
                            &[first * vertex_bytes],
                        );
                        // The yardstick draws the full mesh.
                        device.cmd_draw_indexed(
                            cmd,
                            draw.lods[0].index_count,
                            1,
                            draw.lods[0].first_index,
                            mesh_offset,
                            instance,
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ash::vk::{self, Handle};

    use super::{level_calls, level_runs};

    #[test]
    fn levels_sharing_a_pipeline_are_one_run_and_meshes_alternate_directions() {
        let (eight, four) = (vk::Pipeline::from_raw(8), vk::Pipeline::from_raw(4));
        let levels = [eight, eight, four, four, four];
        let first = level_runs(levels.into_iter(), None);
        assert_eq!(first, [(eight, 0..2), (four, 2..5)]);
        // The next mesh starts with the pipeline the last one left bound.
        let second = level_runs(levels.into_iter(), Some(four));
        assert_eq!(second, [(four, 2..5), (eight, 0..2)]);
        let third = level_runs(levels.into_iter(), Some(eight));
        assert_eq!(third, first);
        // One pipeline: one run, whatever is bound.
        assert_eq!(
            level_runs([four; 3].into_iter(), Some(four)),
            [(four, 0..3)]
        );
        // A pipeline coming back is a run of its own: runs are contiguous.
        let back = level_runs([eight, four, eight].into_iter(), None);
        assert_eq!(back, [(eight, 0..1), (four, 1..2), (eight, 2..3)]);
        assert!(level_runs(std::iter::empty(), None).is_empty());
    }

    #[test]
    fn a_run_is_one_call_with_multi_draw_and_a_call_per_level_without() {
        let calls = |levels, multi_draw| level_calls(levels, multi_draw).collect::<Vec<_>>();
        assert_eq!(calls(2..5, true), [(2, 3)]);
        assert_eq!(calls(2..5, false), [(2, 1), (3, 1), (4, 1)]);
        assert_eq!(calls(0..1, true), [(0, 1)]);
    }
}
