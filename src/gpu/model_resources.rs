//! What lives as long as the model: its vertex and index streams, textures,
//! clips and skeleton on the GPU, the descriptor set layouts (reflected from
//! the shaders), the pipelines of every pass, and the draw commands' reset
//! values. A new crowd size or window size never touches any of this.

use ash::vk;

use super::animation_data::{self, AnimationData};
use super::descriptors::{self, Resource, SetLayout};
use super::gpu_model::{self, GpuModel};
use super::guard::{guard, Destroy};
use super::passes::animate::{self, Animate};
use super::passes::crowd_draw::{self, CrowdDraw};
use super::passes::cull::{self, Cull};
use super::passes::skeleton_overlay::{self, SkeletonOverlay};
use super::pipeline;
use super::resources::{self, Buffer};
use super::shader_types::{CrowdComputeConstants, DrawConstants};
use super::shaders::spirv;
use super::targets::TARGET_FORMATS;
use super::{Context, GpuError};
use crate::model::Model;

pub struct ModelResources {
    pub model: GpuModel,
    pub animation: AnimationData,
    /// Set 0 of the draws: skinning transforms, instances, frame uniforms,
    /// visible list (crowd.vert/frag, skeleton.vert/frag).
    pub scene_layout: SetLayout,
    /// Set 1 of the crowd draw: the mesh's texture.
    pub texture_layout: SetLayout,
    /// Set 0 of cull.comp and animate.comp.
    pub compute_layout: SetLayout,
    pub draw_pipeline_layout: vk::PipelineLayout,
    pub compute_pipeline_layout: vk::PipelineLayout,
    pub cull: Cull,
    pub animate: Animate,
    pub crowd_draw: CrowdDraw,
    pub skeleton_overlay: SkeletonOverlay,
    sampler: vk::Sampler,
    texture_pool: vk::DescriptorPool,
    /// `texture_sets[i]` samples `model.textures[i]`.
    pub texture_sets: Vec<vk::DescriptorSet>,
    /// What each frame's draw commands are reset to: instance counts of 0.
    pub draw_command_template: Buffer,
}

impl ModelResources {
    pub fn new(ctx: &Context, model: &Model) -> Result<ModelResources, GpuError> {
        use vk::ShaderStageFlags as Stage;
        let gpu_model = guard(ctx, gpu_model::upload_model(ctx, model)?);
        let animation = guard(ctx, animation_data::upload_animation_data(ctx, model)?);
        let scene_layout = guard(
            ctx,
            descriptors::create_set_layout(
                ctx,
                "scene set layout",
                0,
                &[
                    ("crowd.vert", spirv::CROWD_VERT, Stage::VERTEX),
                    ("crowd.frag", spirv::CROWD_FRAG, Stage::FRAGMENT),
                    ("skeleton.vert", spirv::SKELETON_VERT, Stage::VERTEX),
                    ("skeleton.frag", spirv::SKELETON_FRAG, Stage::FRAGMENT),
                ],
            )?,
        );
        let texture_layout = guard(
            ctx,
            descriptors::create_set_layout(
                ctx,
                "texture set layout",
                1,
                &[("crowd.frag", spirv::CROWD_FRAG, Stage::FRAGMENT)],
            )?,
        );
        let compute_layout = guard(
            ctx,
            descriptors::create_set_layout(
                ctx,
                "crowd compute set layout",
                0,
                &[
                    ("cull.comp", spirv::CULL_COMP, Stage::COMPUTE),
                    ("animate.comp", spirv::ANIMATE_COMP, Stage::COMPUTE),
                ],
            )?,
        );
        let draw_pipeline_layout = guard(
            ctx,
            pipeline::create_pipeline_layout(
                ctx,
                "scene + texture",
                &[scene_layout.handle, texture_layout.handle],
                &[push_constants::<DrawConstants>(Stage::VERTEX)],
            )?,
        );
        let compute_pipeline_layout = guard(
            ctx,
            pipeline::create_pipeline_layout(
                ctx,
                "crowd compute",
                &[compute_layout.handle],
                &[push_constants::<CrowdComputeConstants>(Stage::COMPUTE)],
            )?,
        );
        let cull = guard(ctx, cull::create_cull(ctx, *compute_pipeline_layout)?);
        let animate = guard(ctx, animate::create_animate(ctx, *compute_pipeline_layout)?);
        let crowd_draw = guard(
            ctx,
            crowd_draw::create_crowd_draw(
                ctx,
                *draw_pipeline_layout,
                gpu_model.limit,
                TARGET_FORMATS,
            )?,
        );
        let skeleton_overlay = guard(
            ctx,
            skeleton_overlay::create_skeleton_overlay(ctx, *draw_pipeline_layout, TARGET_FORMATS)?,
        );
        let sampler = guard(ctx, descriptors::create_sampler(ctx)?);
        let texture_count = gpu_model.textures.len() as u32;
        let texture_pool = guard(
            ctx,
            descriptors::create_pool(
                ctx,
                "texture descriptor pool",
                &[(&texture_layout, texture_count)],
            )?,
        );
        let texture_sets = gpu_model
            .textures
            .iter()
            .enumerate()
            .map(|(i, texture)| {
                descriptors::create_set(
                    ctx,
                    *texture_pool,
                    &texture_layout,
                    &format!("texture set {i}"),
                    &[("diffuse", Resource::Texture(texture, *sampler))],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let draw_command_template = resources::create_buffer_with_data(
            ctx,
            "draw commands (reset values)",
            vk::BufferUsageFlags::TRANSFER_SRC,
            bytemuck::cast_slice(&draw_commands(&gpu_model)),
        )?;
        Ok(ModelResources {
            model: gpu_model.keep(),
            animation: animation.keep(),
            scene_layout: scene_layout.keep(),
            texture_layout: texture_layout.keep(),
            compute_layout: compute_layout.keep(),
            draw_pipeline_layout: draw_pipeline_layout.keep(),
            compute_pipeline_layout: compute_pipeline_layout.keep(),
            cull: cull.keep(),
            animate: animate.keep(),
            crowd_draw: crowd_draw.keep(),
            skeleton_overlay: skeleton_overlay.keep(),
            sampler: sampler.keep(),
            texture_pool: texture_pool.keep(),
            texture_sets,
            draw_command_template,
        })
    }

    /// Indirect draw commands: one per mesh, then the skeleton overlay's.
    pub fn draw_command_count(&self) -> u32 {
        self.model.draws.len() as u32 + 1
    }

    /// Device memory in the buffers (textures not counted).
    pub fn buffer_bytes(&self) -> u64 {
        let animation = &self.animation;
        self.model.buffer_bytes()
            + animation.clip_poses.size
            + animation.clips.size
            + animation.skeleton.size
            + self.draw_command_template.size
    }
}

impl Destroy for ModelResources {
    fn destroy(self, ctx: &Context) {
        self.draw_command_template.destroy(ctx);
        // The pool frees the texture sets.
        self.texture_pool.destroy(ctx);
        self.sampler.destroy(ctx);
        self.skeleton_overlay.destroy(ctx);
        self.crowd_draw.destroy(ctx);
        self.animate.destroy(ctx);
        self.cull.destroy(ctx);
        self.compute_pipeline_layout.destroy(ctx);
        self.draw_pipeline_layout.destroy(ctx);
        self.compute_layout.destroy(ctx);
        self.texture_layout.destroy(ctx);
        self.scene_layout.destroy(ctx);
        self.animation.destroy(ctx);
        self.model.destroy(ctx);
    }
}

fn push_constants<T>(stage_flags: vk::ShaderStageFlags) -> vk::PushConstantRange {
    vk::PushConstantRange {
        stage_flags,
        offset: 0,
        size: size_of::<T>() as u32,
    }
}

/// The draw commands with zero instances: one `VkDrawIndexedIndirectCommand`
/// per mesh, then the skeleton overlay's `VkDrawIndirectCommand`, padded to
/// the same 5 words so cull.comp finds every instance count at word 1.
fn draw_commands(model: &GpuModel) -> Vec<u32> {
    let mut words: Vec<u32> = model
        .draws
        .iter()
        .flat_map(|d| [d.index_count, 0, d.first_index, d.vertex_offset as u32, 0])
        .collect();
    words.extend([model.skeleton_vertex_count, 0, 0, 0, 0]);
    words
}
