//! The crowd draw's pipelines: one per influence count the meshes' levels
//! of detail are skinned with, times one per shading the meshes' materials
//! ask for (`material::ShadingVariant`: model, alpha mode, sides), each
//! made once, through the pipeline cache, when the targets are.

use ash::vk;

use super::crowd_draw::vertex_input;
use crate::gpu::gpu_model::MeshDraw;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{
    self, Blend, Constants, Depth, DepthBias, GraphicsPipelineDesc, ShaderStage, TargetFormats,
};
use crate::gpu::shaders::spirv;
use crate::gpu::shadow_map::SHADOW_FORMAT;
use crate::gpu::targets::weighted_blend_formats;
use crate::gpu::{Context, GpuError};
use crate::material::{AlphaMode, ShadingVariant};
use crate::skin::InfluenceLimit;

/// The crowd's pipelines, fewest influences first within each shading.
pub struct CrowdDraw {
    variants: Vec<CrowdVariant>,
}

/// crowd.vert specialised for `influences` joints per vertex, crowd.frag
/// for `shading`.
struct CrowdVariant {
    influences: u32,
    shading: ShadingVariant,
    pipeline: vk::Pipeline,
    /// The same pipeline drawing triangle edges; only where the device has
    /// `fillModeNonSolid`.
    wireframe: Option<vk::Pipeline>,
    /// Depth only, biased, into a shadow map layer: the casters.
    shadow: vk::Pipeline,
}

/// Which of a variant's pipelines a draw uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    Filled,
    /// Triangle edges where the device can draw them, filled where not.
    Wireframe,
    /// Depth only into a shadow cascade.
    ShadowDepth,
}

impl CrowdDraw {
    /// Every variant's influence count and filled pipeline, by shading,
    /// fewest influences first within each.
    pub fn variants(&self) -> Vec<(u32, vk::Pipeline)> {
        self.variants
            .iter()
            .map(|v| (v.influences, v.pipeline))
            .collect()
    }

    /// The pipeline for a level skinned with `influences` of a mesh shaded
    /// as `shading`, drawn as `look`.
    pub(super) fn pipeline(
        &self,
        influences: u32,
        shading: ShadingVariant,
        look: Look,
    ) -> vk::Pipeline {
        let shaded = || self.variants.iter().filter(|v| v.shading == shading);
        let variant = shaded()
            .find(|v| v.influences >= influences)
            .or_else(|| shaded().next_back())
            .expect("a crowd draw has a pipeline for every mesh's shading");
        match look {
            Look::Filled => variant.pipeline,
            Look::Wireframe => variant.wireframe.unwrap_or(variant.pipeline),
            Look::ShadowDepth => variant.shadow,
        }
    }
}

/// Pipelines for a model skinned with up to `limit` influences, one per
/// count its meshes' levels read and shading its meshes ask for, sampling
/// as many skins as its meshes have materials.
pub fn create_crowd_draw(
    ctx: &Context,
    layout: vk::PipelineLayout,
    limit: InfluenceLimit,
    meshes: &[MeshDraw],
    formats: TargetFormats,
) -> Result<CrowdDraw, GpuError> {
    // crowd.frag's branches for the skins in use, at least one.
    let skin_count = meshes.first().map_or(1, |m| m.materials.len().max(1)) as u32;
    // All of them too: `--lod-influences off`.
    let mut counts: Vec<u32> = meshes
        .iter()
        .flat_map(|m| &m.lods)
        .map(|level| level.influences)
        .chain([limit.count() as u32])
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let mut shadings: Vec<ShadingVariant> = meshes.iter().map(|m| m.shading).collect();
    shadings.sort_unstable();
    shadings.dedup();
    let mut variants = guard(ctx, Vec::with_capacity(counts.len() * shadings.len()));
    for &shading in &shadings {
        for &influences in &counts {
            let key = VariantKey {
                limit,
                influences,
                skin_count,
                shading,
            };
            variants.push(create_variant(ctx, layout, key, formats)?);
        }
    }
    Ok(CrowdDraw {
        variants: variants.keep(),
    })
}

/// What one variant is made for.
#[derive(Clone, Copy)]
struct VariantKey {
    limit: InfluenceLimit,
    influences: u32,
    skin_count: u32,
    shading: ShadingVariant,
}

fn create_variant(
    ctx: &Context,
    layout: vk::PipelineLayout,
    key: VariantKey,
    formats: TargetFormats,
) -> Result<CrowdVariant, GpuError> {
    let VariantKey {
        limit,
        influences,
        skin_count,
        shading,
    } = key;
    let (bindings, attributes) = vertex_input(limit);
    let specialization = pipeline::constant_0(&influences);
    let multisampled = formats.samples != vk::SampleCountFlags::TYPE_1;
    let masked = shading.alpha == AlphaMode::Mask;
    let blended = shading.alpha == AlphaMode::Blend;
    let fragment_constants = Constants::new(&[
        skin_count,
        shading.model as u32,
        shading.alpha as u32,
        u32::from(shading.double_sided),
        u32::from(masked && multisampled),
    ]);
    let fragment_specialization = fragment_constants.info();
    // Doom 3's opaque one-sided variant keeps the name captures know it by.
    let shaded = match shading == ShadingVariant::default() {
        true => String::new(),
        false => format!(
            ", {:?} {:?}{}",
            shading.model,
            shading.alpha,
            if shading.double_sided {
                " double-sided"
            } else {
                ""
            }
        ),
    };
    let name = format!(
        "crowd draw ({influences} of {} influences{shaded})",
        limit.count()
    );
    let desc = GraphicsPipelineDesc {
        name: &name,
        layout,
        vertex_shader: ShaderStage {
            name: "crowd.vert",
            spirv: spirv::CROWD_VERT,
            specialization: Some(&specialization),
        },
        // BLEND surfaces go to the weighted blend targets, in any order.
        fragment_shader: Some(match blended {
            true => ShaderStage {
                name: "crowd_blended.frag",
                spirv: spirv::CROWD_BLENDED_FRAG,
                specialization: Some(&fragment_specialization),
            },
            false => ShaderStage {
                name: "crowd.frag",
                spirv: spirv::CROWD_FRAG,
                specialization: Some(&fragment_specialization),
            },
        }),
        vertex_bindings: &bindings,
        vertex_attributes: &attributes,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        polygon_mode: vk::PolygonMode::FILL,
        // md5 triangles are clockwise seen from outside; the projection
        // flips Y for Vulkan, which keeps that winding on screen.
        cull_mode: match shading.double_sided {
            true => vk::CullModeFlags::NONE,
            false => vk::CullModeFlags::BACK,
        },
        front_face: vk::FrontFace::CLOCKWISE,
        // Blended surfaces hide nothing: what is behind them shows.
        depth: match blended {
            true => Depth::TestOnly,
            false => Depth::TestAndWrite,
        },
        blend: match blended {
            true => Blend::WeightedSum,
            false => Blend::Replace,
        },
        alpha_to_coverage: masked && multisampled,
        depth_bias: None,
        formats: match blended {
            true => weighted_blend_formats(formats.samples),
            false => formats,
        },
    };
    let pipeline = guard(ctx, pipeline::create_graphics_pipeline(ctx, &desc)?);
    let wireframe = if ctx.wireframe {
        let name = format!("{name}, wireframe");
        let wireframe = GraphicsPipelineDesc {
            name: &name,
            polygon_mode: vk::PolygonMode::LINE,
            ..desc
        };
        Some(guard(
            ctx,
            pipeline::create_graphics_pipeline(ctx, &wireframe)?,
        ))
    } else {
        None
    };
    let shadow_name = format!("{name}, shadow depth");
    let skins = pipeline::constant_0(&skin_count);
    let shadow = GraphicsPipelineDesc {
        name: &shadow_name,
        // A cut-out's holes let the sun through.
        fragment_shader: masked.then_some(ShaderStage {
            name: "crowd_shadow.frag",
            spirv: spirv::CROWD_SHADOW_FRAG,
            specialization: Some(&skins),
        }),
        // Both faces: md5 meshes need not be closed, and a back face is
        // the one a lit front face must not see in the map.
        cull_mode: vk::CullModeFlags::NONE,
        depth_bias: Some(SHADOW_DEPTH_BIAS),
        depth: Depth::TestAndWrite,
        blend: Blend::Replace,
        alpha_to_coverage: false,
        formats: SHADOW_TARGET,
        ..desc
    };
    let shadow = pipeline::create_graphics_pipeline(ctx, &shadow)?;
    Ok(CrowdVariant {
        influences,
        shading,
        pipeline: pipeline.keep(),
        wireframe: wireframe.map(|w| w.keep()),
        shadow,
    })
}

impl Destroy for CrowdVariant {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
        self.wireframe.destroy(ctx);
        self.shadow.destroy(ctx);
    }
}

/// Casters' depth pushed away from the sun (reverse Z: down): a constant
/// for flat surfaces facing it, and by slope for those it grazes. With the
/// receivers' lift along their normal (shadows.glsl), lit surfaces stay
/// free of acne without the shadow detaching from the feet.
pub const SHADOW_DEPTH_BIAS: DepthBias = DepthBias {
    constant: -1.0,
    slope: -1.5,
};

/// A shadow map layer: depth only, one sample.
pub const SHADOW_TARGET: TargetFormats = TargetFormats {
    color: None,
    further_colors: &[],
    depth: SHADOW_FORMAT,
    samples: vk::SampleCountFlags::TYPE_1,
};

impl Destroy for CrowdDraw {
    fn destroy(self, ctx: &Context) {
        self.variants.destroy(ctx);
    }
}
