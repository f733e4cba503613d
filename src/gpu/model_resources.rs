//! What lives as long as the models: their vertex and index streams,
//! textures, clips and skeletons on the GPU (every model's in shared
//! buffers), the descriptor set layouts (reflected from
//! the shaders), the material sets ([`MaterialSets`], built in their own
//! file), the pipelines of every pass, and the draw commands' reset
//! values. A new crowd size or window size never touches any of this.

use super::memory::{DeviceMemory, MemoryReport};
use ash::vk;

use super::animation_data::{self, AnimationData};
use super::descriptors::{self, Sampling, SetLayout};
use super::draw_commands::DrawCommandLayout;
use super::gpu_model::{self, GpuModel};
use super::guard::{guard, Destroy, Guard};
use super::impostor_atlas::ImpostorAtlases;
use super::material_sets::MaterialSets;
use super::passes::agents::{self, Agents};
use super::passes::animate::{self, Animate};
use super::passes::blend_composite::{self, BlendCompositeLayout};
use super::passes::cull::{self, Cull};
use super::passes::depth_resolve::{self, DepthResolve};
use super::passes::draws::{self, Draws};
use super::passes::impostor_bake::BakeInputs;
use super::passes::pyramid::{self, Pyramid};
use super::pipeline;
use super::shader_types::{CrowdComputeConstants, DrawConstants};
use super::shaders::spirv;
use super::shadow_map::ShadowMap;
use super::{Context, GpuError};
use crate::material::AlphaMode;
use crate::model::Model;

pub struct ModelResources {
    pub model: GpuModel,
    pub animation: AnimationData,
    /// Set 0 of the draws: skinning transforms, instances, frame uniforms,
    /// visible list (crowd.vert/frag, skeleton.vert/frag).
    pub scene_layout: SetLayout,
    /// Set 1 of the crowd draw: the mesh's material under each skin
    /// (diffuse, normal and specular maps, constants), and its emissive and
    /// occlusion maps.
    pub material_layout: SetLayout,
    /// Set 0 of agents.comp, cull.comp, draws.comp and animate.comp.
    pub compute_layout: SetLayout,
    /// Set 1 of the compute passes: the depth target and its pyramid
    /// (pyramid.comp builds it, cull.comp tests against it).
    pub pyramid_layout: SetLayout,
    /// Set 2 of the compute passes: a multisampled depth target and the
    /// image of its farthest samples (depth_resolve.comp).
    pub depth_resolve_layout: SetLayout,
    /// How pyramid.comp reads the depth target.
    pub depth_sampler: vk::Sampler,
    pub draw_pipeline_layout: vk::PipelineLayout,
    pub compute_pipeline_layout: vk::PipelineLayout,
    pub agents: Agents,
    pub cull: Cull,
    pub draws: Draws,
    pub animate: Animate,
    pub pyramid: Pyramid,
    pub depth_resolve: DepthResolve,
    /// Set 1 of the impostor draw: one model's atlas.
    pub impostor_layout: SetLayout,
    /// Scene + impostor atlas: set 0 is the crowd draw's, so the scene set
    /// stays bound from the meshes to the impostors.
    pub impostor_pipeline_layout: vk::PipelineLayout,
    /// Every model's impostor atlas, baked as the crowd wants them.
    pub impostors: ImpostorAtlases,
    /// The layouts of the BLEND meshes' composite over the picture: only
    /// when some mesh is BLEND.
    pub blend_composite: Option<BlendCompositeLayout>,
    /// Set 1 of the crowd draw for each of `model.draws`
    /// ([`MaterialSets`]).
    pub materials: MaterialSets,
    /// Where each indirect command lies in a frame slot's buffer.
    pub draw_commands: DrawCommandLayout,
}

impl ModelResources {
    /// Uploads `models`, then makes what draws them: set and pipeline
    /// layouts, every pass's pipelines, the material sets, and the
    /// impostor atlases (baked here). Every step frees what it made when a
    /// later one fails.
    pub fn new(
        ctx: &Context,
        models: &[Model],
        impostor_budget: u64,
        shadow_map: &ShadowMap,
    ) -> Result<ModelResources, GpuError> {
        let gpu_model = guard(ctx, gpu_model::upload_models(ctx, models, impostor_budget)?);
        let animation = guard(ctx, animation_data::upload_animation_data(ctx, models)?);
        let sets = create_set_layouts(ctx)?;
        let layouts = create_pipeline_layouts(ctx, &sets)?;
        let passes = create_passes(ctx, &layouts, &gpu_model)?;
        let depth_sampler = guard(ctx, descriptors::create_sampler(ctx, Sampling::Depth)?);
        let blends = gpu_model
            .draws
            .iter()
            .any(|draw| draw.shading.alpha == AlphaMode::Blend);
        let blend_composite = match blends {
            true => Some(guard(
                ctx,
                blend_composite::create_blend_composite_layout(ctx)?,
            )),
            false => None,
        };
        let materials = guard(ctx, MaterialSets::new(ctx, &sets.material, &gpu_model)?);
        let impostors = guard(
            ctx,
            ImpostorAtlases::new(
                ctx,
                &BakeInputs {
                    gpu_model: &gpu_model,
                    draw_pipeline_layout: *layouts.draw,
                    material_sets: materials.sets(),
                },
                ((&sets.scene, shadow_map), &sets.impostor),
                models,
            )?,
        );
        Ok(ModelResources {
            draw_commands: DrawCommandLayout::of(&gpu_model),
            model: gpu_model.keep(),
            animation: animation.keep(),
            scene_layout: sets.scene.keep(),
            material_layout: sets.material.keep(),
            impostor_layout: sets.impostor.keep(),
            compute_layout: sets.compute.keep(),
            pyramid_layout: sets.pyramid.keep(),
            depth_resolve_layout: sets.depth_resolve.keep(),
            draw_pipeline_layout: layouts.draw.keep(),
            impostor_pipeline_layout: layouts.impostor.keep(),
            compute_pipeline_layout: layouts.compute.keep(),
            agents: passes.agents.keep(),
            cull: passes.cull.keep(),
            draws: passes.draws.keep(),
            animate: passes.animate.keep(),
            pyramid: passes.pyramid.keep(),
            depth_resolve: passes.depth_resolve.keep(),
            impostors: impostors.keep(),
            blend_composite: blend_composite.map(|composite| composite.keep()),
            depth_sampler: depth_sampler.keep(),
            materials: materials.keep(),
        })
    }
}

impl ModelResources {
    /// What the impostor bake draws with.
    pub fn bake_inputs(&self) -> BakeInputs<'_> {
        BakeInputs {
            gpu_model: &self.model,
            draw_pipeline_layout: self.draw_pipeline_layout,
            material_sets: self.materials.sets(),
        }
    }
}

impl DeviceMemory for ModelResources {
    fn memory(&self) -> MemoryReport {
        self.model.memory()
            + self.materials.memory()
            + self.animation.memory()
            + self.impostors.memory()
    }
}

impl Destroy for ModelResources {
    fn destroy(self, ctx: &Context) {
        self.impostors.destroy(ctx);
        self.blend_composite.destroy(ctx);
        self.impostor_pipeline_layout.destroy(ctx);
        self.impostor_layout.destroy(ctx);
        self.materials.destroy(ctx);
        self.depth_sampler.destroy(ctx);
        self.animate.destroy(ctx);
        self.depth_resolve.destroy(ctx);
        self.pyramid.destroy(ctx);
        self.draws.destroy(ctx);
        self.cull.destroy(ctx);
        self.agents.destroy(ctx);
        self.compute_pipeline_layout.destroy(ctx);
        self.draw_pipeline_layout.destroy(ctx);
        self.depth_resolve_layout.destroy(ctx);
        self.pyramid_layout.destroy(ctx);
        self.compute_layout.destroy(ctx);
        self.material_layout.destroy(ctx);
        self.scene_layout.destroy(ctx);
        self.animation.destroy(ctx);
        self.model.destroy(ctx);
    }
}

/// The descriptor set layouts, each the union of what the shaders sharing
/// it declare. Fields drop (on a failed step) in reverse creation order.
struct SetLayouts<'c> {
    impostor: Guard<'c, SetLayout>,
    depth_resolve: Guard<'c, SetLayout>,
    pyramid: Guard<'c, SetLayout>,
    compute: Guard<'c, SetLayout>,
    material: Guard<'c, SetLayout>,
    scene: Guard<'c, SetLayout>,
}

fn create_set_layouts(ctx: &Context) -> Result<SetLayouts<'_>, GpuError> {
    use vk::ShaderStageFlags as Stage;
    let layout = |name, set, shaders: &[(&str, &[u8], Stage)]| -> Result<_, GpuError> {
        Ok(guard(
            ctx,
            descriptors::create_set_layout(ctx, name, set, shaders)?,
        ))
    };
    let scene = layout(
        "scene set layout",
        0,
        &[
            ("crowd.vert", spirv::CROWD_VERT, Stage::VERTEX),
            ("crowd.frag", spirv::CROWD_FRAG, Stage::FRAGMENT),
            (
                "crowd_blended.frag",
                spirv::CROWD_BLENDED_FRAG,
                Stage::FRAGMENT,
            ),
            ("skeleton.vert", spirv::SKELETON_VERT, Stage::VERTEX),
            ("skeleton.frag", spirv::SKELETON_FRAG, Stage::FRAGMENT),
            ("ground.vert", spirv::GROUND_VERT, Stage::VERTEX),
            ("ground.frag", spirv::GROUND_FRAG, Stage::FRAGMENT),
            ("blob_shadow.vert", spirv::BLOB_SHADOW_VERT, Stage::VERTEX),
            ("impostor.vert", spirv::IMPOSTOR_VERT, Stage::VERTEX),
            ("impostor.frag", spirv::IMPOSTOR_FRAG, Stage::FRAGMENT),
            (
                "impostor_bake.frag",
                spirv::IMPOSTOR_BAKE_FRAG,
                Stage::FRAGMENT,
            ),
        ],
    )?;
    // The mesh's material under each skin (diffuse, normal, specular maps,
    // constants).
    let material = layout(
        "material set layout",
        1,
        &[
            ("crowd.frag", spirv::CROWD_FRAG, Stage::FRAGMENT),
            (
                "crowd_blended.frag",
                spirv::CROWD_BLENDED_FRAG,
                Stage::FRAGMENT,
            ),
            (
                "crowd_shadow.frag",
                spirv::CROWD_SHADOW_FRAG,
                Stage::FRAGMENT,
            ),
            (
                "impostor_bake.frag",
                spirv::IMPOSTOR_BAKE_FRAG,
                Stage::FRAGMENT,
            ),
        ],
    )?;
    let impostor = layout(
        "impostor atlas set layout",
        1,
        &[("impostor.frag", spirv::IMPOSTOR_FRAG, Stage::FRAGMENT)],
    )?;
    let compute = layout(
        "crowd compute set layout",
        0,
        &[
            ("cull.comp", spirv::CULL_COMP, Stage::COMPUTE),
            ("draws.comp", spirv::DRAWS_COMP, Stage::COMPUTE),
            ("animate.comp", spirv::ANIMATE_COMP, Stage::COMPUTE),
            (
                "animate_joints.comp",
                spirv::ANIMATE_JOINTS_COMP,
                Stage::COMPUTE,
            ),
            ("agents.comp", spirv::AGENTS_COMP, Stage::COMPUTE),
        ],
    )?;
    let pyramid = layout(
        "depth pyramid set layout",
        1,
        &[
            ("pyramid.comp", spirv::PYRAMID_COMP, Stage::COMPUTE),
            ("cull.comp", spirv::CULL_COMP, Stage::COMPUTE),
        ],
    )?;
    let depth_resolve = layout(
        "depth resolve set layout",
        2,
        &[(
            "depth_resolve.comp",
            spirv::DEPTH_RESOLVE_COMP,
            Stage::COMPUTE,
        )],
    )?;
    Ok(SetLayouts {
        impostor,
        depth_resolve,
        pyramid,
        compute,
        material,
        scene,
    })
}

/// The pipeline layouts: scene + material for the draws, scene + atlas
/// for the impostors (set 0 stays bound from the meshes on), and the
/// compute passes' three sets (the third only for a depth resolve).
struct PipelineLayouts<'c> {
    compute: Guard<'c, vk::PipelineLayout>,
    impostor: Guard<'c, vk::PipelineLayout>,
    draw: Guard<'c, vk::PipelineLayout>,
}

fn create_pipeline_layouts<'c>(
    ctx: &'c Context,
    sets: &SetLayouts,
) -> Result<PipelineLayouts<'c>, GpuError> {
    use vk::ShaderStageFlags as Stage;
    let layout = |name, sets: &[vk::DescriptorSetLayout], push| -> Result<_, GpuError> {
        Ok(guard(
            ctx,
            pipeline::create_pipeline_layout(ctx, name, sets, &[push])?,
        ))
    };
    let draw = layout(
        "scene + material",
        &[sets.scene.handle, sets.material.handle],
        push_constants::<DrawConstants>(Stage::VERTEX),
    )?;
    let impostor = layout(
        "scene + impostor atlas",
        &[sets.scene.handle, sets.impostor.handle],
        push_constants::<DrawConstants>(Stage::VERTEX),
    )?;
    let compute = layout(
        "crowd compute",
        &[
            sets.compute.handle,
            sets.pyramid.handle,
            sets.depth_resolve.handle,
        ],
        // pyramid.comp pushes its level into the same range.
        push_constants::<CrowdComputeConstants>(Stage::COMPUTE),
    )?;
    Ok(PipelineLayouts {
        compute,
        impostor,
        draw,
    })
}

/// Every pass's pipelines, made for the models' skeletons, influences and
/// skins and for the frame's target formats.
struct Passes<'c> {
    depth_resolve: Guard<'c, DepthResolve>,
    pyramid: Guard<'c, Pyramid>,
    draws: Guard<'c, Draws>,
    animate: Guard<'c, Animate>,
    cull: Guard<'c, Cull>,
    agents: Guard<'c, Agents>,
}

fn create_passes<'c>(
    ctx: &'c Context,
    layouts: &PipelineLayouts,
    gpu_model: &GpuModel,
) -> Result<Passes<'c>, GpuError> {
    let compute = *layouts.compute;
    let agents = guard(ctx, agents::create_agents(ctx, compute)?);
    let cull = guard(ctx, cull::create_cull(ctx, compute)?);
    let joints = gpu_model.max_joint_count() as usize;
    let animate = guard(ctx, animate::create_animate(ctx, compute, joints)?);
    let draws = guard(ctx, draws::create_draws(ctx, compute, joints, &animate)?);
    let pyramid = guard(ctx, pyramid::create_pyramid(ctx, compute)?);
    let depth_resolve = guard(ctx, depth_resolve::create_depth_resolve(ctx, compute)?);
    Ok(Passes {
        depth_resolve,
        pyramid,
        draws,
        animate,
        cull,
        agents,
    })
}

fn push_constants<T>(stage_flags: vk::ShaderStageFlags) -> vk::PushConstantRange {
    vk::PushConstantRange {
        stage_flags,
        offset: 0,
        size: size_of::<T>() as u32,
    }
}
