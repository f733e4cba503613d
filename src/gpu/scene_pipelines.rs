//! The pipelines that draw into the frame's targets: the crowd's meshes,
//! the impostors, the ground, the skeleton overlay and the BLEND meshes'
//! composite. They live as long as
//! the model they draw and the targets' formats and sample count together,
//! apart from the model's resources, so that targets of another sample
//! count rebuild these and nothing else (no upload, no atlas).

use ash::vk;

use super::guard::{guard, Destroy};
use super::model_resources::ModelResources;
use super::passes::blend_composite;
use super::passes::crowd_draw::{self, CrowdDraw};
use super::passes::ground::{self, Ground};
use super::passes::impostor_draw::{self, ImpostorDraw};
use super::passes::skeleton_overlay::{self, SkeletonOverlay};
use super::pipeline::TargetFormats;
use super::{Context, GpuError};

pub struct ScenePipelines {
    pub crowd_draw: CrowdDraw,
    pub skeleton_overlay: SkeletonOverlay,
    pub ground: Ground,
    pub impostor_draw: ImpostorDraw,
    /// The BLEND meshes' composite: only for a model that has them.
    pub blend_composite: Option<vk::Pipeline>,
}

impl ScenePipelines {
    /// `model`'s draws into targets of `formats`; each made is freed when a
    /// later one fails.
    pub fn new(
        ctx: &Context,
        model: &ModelResources,
        formats: TargetFormats,
    ) -> Result<ScenePipelines, GpuError> {
        let gpu_model = &model.model;
        let draw = model.draw_pipeline_layout;
        let crowd_draw = guard(
            ctx,
            crowd_draw::create_crowd_draw(ctx, draw, gpu_model.limit, &gpu_model.draws, formats)?,
        );
        let skeleton_overlay = guard(
            ctx,
            skeleton_overlay::create_skeleton_overlay(ctx, draw, formats)?,
        );
        let ground = guard(ctx, ground::create_ground(ctx, draw, formats)?);
        let skin_count = gpu_model
            .draws
            .first()
            .map_or(1, |m| m.materials.len().max(1));
        let surfaces = gpu_model.parts.iter().any(|p| p.impostor.surfaces);
        let impostor_draw = guard(
            ctx,
            impostor_draw::create_impostor_draw(
                ctx,
                model.impostor_pipeline_layout,
                (skin_count as u32, surfaces),
                formats,
            )?,
        );
        let blend_composite = match &model.blend_composite {
            Some(layout) => Some(blend_composite::create_blend_composite(
                ctx,
                layout,
                formats.samples,
            )?),
            None => None,
        };
        Ok(ScenePipelines {
            blend_composite,
            impostor_draw: impostor_draw.keep(),
            ground: ground.keep(),
            skeleton_overlay: skeleton_overlay.keep(),
            crowd_draw: crowd_draw.keep(),
        })
    }
}

impl Destroy for ScenePipelines {
    fn destroy(self, ctx: &Context) {
        self.blend_composite.destroy(ctx);
        self.impostor_draw.destroy(ctx);
        self.ground.destroy(ctx);
        self.skeleton_overlay.destroy(ctx);
        self.crowd_draw.destroy(ctx);
    }
}
