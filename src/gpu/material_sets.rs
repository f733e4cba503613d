//! The material descriptor sets: set 1 of the crowd draw, its shadow
//! casters and the impostor bake. One set per draw of the models (a mesh at
//! a level), sampling that mesh's maps under each skin, allocated from a
//! pool of their own with one sampler for every map. They live as long as
//! the models' uploads whose images they point at.

use ash::vk;

use super::descriptors::{self, Resource, Sampling, SetLayout};
use super::gpu_model::{GpuModel, MeshDraw};
use super::guard::{guard, Destroy};
use super::shader_types::MAX_SKINS;
use super::texture::MapKind;
use super::{Context, GpuError};

pub struct MaterialSets {
    /// Frees the sets when destroyed.
    pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    /// `sets[d]` samples the maps of draw `model.draws[d]`'s materials,
    /// one array element per skin.
    sets: Vec<vk::DescriptorSet>,
}

impl MaterialSets {
    /// A set of `layout` per draw of `gpu_model`, written with its maps.
    /// The sampler and pool are freed if a later step fails.
    pub fn new(
        ctx: &Context,
        layout: &SetLayout,
        gpu_model: &GpuModel,
    ) -> Result<MaterialSets, GpuError> {
        let sampler = guard(ctx, descriptors::create_sampler(ctx, Sampling::Diffuse)?);
        let pool = guard(
            ctx,
            descriptors::create_pool(
                ctx,
                "material descriptor pool",
                &[(layout, gpu_model.draws.len() as u32)],
            )?,
        );
        let sets = gpu_model
            .draws
            .iter()
            .map(|draw| create_draw_set(ctx, (*pool, layout), *sampler, gpu_model, draw))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MaterialSets {
            pool: pool.keep(),
            sampler: sampler.keep(),
            sets,
        })
    }

    /// Indexed by draw, as `GpuModel::draws`.
    pub fn sets(&self) -> &[vk::DescriptorSet] {
        &self.sets
    }
}

impl Destroy for MaterialSets {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.sampler.destroy(ctx);
    }
}

/// `draw`'s set, named after it: the diffuse, normal and specular
/// maps under each skin, the emissive and occlusion maps of its first.
fn create_draw_set(
    ctx: &Context,
    (pool, layout): (vk::DescriptorPool, &SetLayout),
    sampler: vk::Sampler,
    gpu_model: &GpuModel,
    draw: &MeshDraw,
) -> Result<vk::DescriptorSet, GpuError> {
    // Elements past the skins in use repeat the first: every descriptor of
    // the array must be valid.
    let maps = |kind| {
        let images = (0..MAX_SKINS)
            .map(|skin| {
                let material = draw.materials.get(skin).unwrap_or(&draw.materials[0]);
                gpu_model.materials.map(*material, kind)
            })
            .collect();
        Resource::Textures(images, sampler, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
    };
    // The first skin's: these maps do not vary by skin (material.glsl).
    let map = |kind| {
        Resource::Texture(
            gpu_model.materials.map(draw.materials[0], kind),
            sampler,
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        )
    };
    descriptors::create_set(
        ctx,
        pool,
        layout,
        &format!("materials: {}", draw.label),
        &[
            ("diffuse_maps", maps(MapKind::Diffuse)),
            ("normal_maps", maps(MapKind::Normal)),
            ("specular_maps", maps(MapKind::Specular)),
            ("emissive_map", map(MapKind::Emissive)),
            ("occlusion_map", map(MapKind::Occlusion)),
        ],
    )
}
