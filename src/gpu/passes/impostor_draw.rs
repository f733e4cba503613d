//! The impostors: for each model, one indirect draw of a quad per instance
//! cull.comp put in its impostor list (impostor.vert, impostor.frag),
//! sampling the model's atlas. Drawn after the meshes in the same scene
//! scope, with the same scene set.

use ash::vk;

use crate::gpu::gpu_model::GpuModel;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::passes::crowd_draw::{self, SHADOW_DEPTH_BIAS};
use crate::gpu::pipeline::{
    self, Blend, Constants, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats,
};
use crate::gpu::shader_types::DrawConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

pub struct ImpostorDraw {
    pipeline: vk::Pipeline,
    /// For atlases that keep surfaces and emission (a model with materials
    /// other than Doom 3's); only where a model has them.
    surfaces: Option<vk::Pipeline>,
    /// Depth only, into a shadow cascade (impostor_shadow.frag).
    shadow: vk::Pipeline,
    /// The pipeline's layout (owned by the model's resources).
    layout: vk::PipelineLayout,
}

/// The pipelines, sampling as many skins as the models' meshes have, and
/// shading surfaces where `surfaces` (some model's atlas keeps them).
pub fn create_impostor_draw(
    ctx: &Context,
    layout: vk::PipelineLayout,
    (skin_count, surfaces): (u32, bool),
    formats: TargetFormats,
) -> Result<ImpostorDraw, GpuError> {
    // Constant 0: the skins; 1: alpha to coverage, with several samples;
    // 2: the atlas keeps surfaces.
    let multisampled = formats.samples != vk::SampleCountFlags::TYPE_1;
    let doom3 = Constants::new(&[skin_count, vk::Bool32::from(multisampled), 0]);
    let constants = doom3.info();
    let desc = GraphicsPipelineDesc {
        name: "impostor draw",
        layout,
        vertex_shader: ShaderStage {
            name: "impostor.vert",
            spirv: spirv::IMPOSTOR_VERT,
            specialization: None,
        },
        fragment_shader: Some(ShaderStage {
            name: "impostor.frag",
            spirv: spirv::IMPOSTOR_FRAG,
            specialization: Some(&constants),
        }),
        vertex_bindings: &[],
        vertex_attributes: &[],
        topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
        polygon_mode: vk::PolygonMode::FILL,
        // A quad faces the eye either way round.
        cull_mode: vk::CullModeFlags::NONE,
        front_face: vk::FrontFace::CLOCKWISE,
        depth: Depth::TestAndWrite,
        blend: Blend::Replace,
        // impostor.frag gives its coverage as alpha.
        alpha_to_coverage: multisampled,
        depth_bias: None,
        formats,
    };
    let pipeline = guard(ctx, pipeline::create_graphics_pipeline(ctx, &desc)?);
    let with_surfaces = Constants::new(&[skin_count, vk::Bool32::from(multisampled), 1]);
    let with_surfaces = with_surfaces.info();
    let surfaces = match surfaces {
        true => Some(guard(
            ctx,
            pipeline::create_graphics_pipeline(
                ctx,
                &GraphicsPipelineDesc {
                    name: "impostor draw, surfaces",
                    fragment_shader: Some(ShaderStage {
                        specialization: Some(&with_surfaces),
                        ..desc.fragment_shader.expect("impostor.frag")
                    }),
                    ..desc
                },
            )?,
        )),
        false => None,
    };
    let skins = pipeline::constant_0(&skin_count);
    let shadow = pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: "impostor draw, shadow depth",
            fragment_shader: Some(ShaderStage {
                name: "impostor_shadow.frag",
                spirv: spirv::IMPOSTOR_SHADOW_FRAG,
                specialization: Some(&skins),
            }),
            alpha_to_coverage: false,
            depth_bias: Some(SHADOW_DEPTH_BIAS),
            formats: crowd_draw::SHADOW_TARGET,
            ..desc
        },
    )?;
    Ok(ImpostorDraw {
        pipeline: pipeline.keep(),
        surfaces: surfaces.map(|p| p.keep()),
        shadow,
        layout,
    })
}

/// Which of the pass's pipelines a draw uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpostorLook {
    /// Lit into the picture.
    Picture,
    /// Depth only into a shadow cascade.
    ShadowDepth,
}

impl Destroy for ImpostorDraw {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
        self.surfaces.destroy(ctx);
        self.shadow.destroy(ctx);
    }
}

/// Records every model's impostor draw, inside a rendering scope whose set
/// 0 (the scene set, compatible with the pass's layout) is bound: model m's
/// indirect command at `commands.1[m]` in `commands.0`, its atlas in
/// `atlas_sets[m]`.
pub fn record_impostor_draw(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &ImpostorDraw,
    model: &GpuModel,
    atlas_sets: &[vk::DescriptorSet],
    commands: (vk::Buffer, &[u64]),
    (constants, look): (DrawConstants, ImpostorLook),
) {
    let (device, layout) = (&ctx.device, pass.layout);
    unsafe {
        device.cmd_push_constants(
            cmd,
            layout,
            vk::ShaderStageFlags::VERTEX,
            0,
            bytemuck::bytes_of(&constants),
        );
    }
    let mut bound = vk::Pipeline::null();
    for ((part, &set), &offset) in model.parts.iter().zip(atlas_sets).zip(commands.1) {
        let _label = debug::label(ctx, cmd, &format!("impostors: {}", part.name));
        let pipeline = match (look, pass.surfaces) {
            (ImpostorLook::ShadowDepth, _) => pass.shadow,
            (ImpostorLook::Picture, Some(surfaces)) if part.impostor.surfaces => surfaces,
            (ImpostorLook::Picture, _) => pass.pipeline,
        };
        unsafe {
            if pipeline != bound {
                bound = pipeline;
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
            }
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                1,
                &[set],
                &[],
            );
            device.cmd_draw_indirect(cmd, commands.0, offset, 1, 0);
        }
    }
}
