//! The material descriptor sets: set 1 of the crowd draw, its shadow
//! casters and the impostor bake. One set per draw of the models (a mesh at
//! a level), with that mesh's maps and constants under each skin, allocated
//! from a pool of their own with one sampler for every map. Every draw's
//! constants lie in one uniform buffer, a block each. They live as long as
//! the models' uploads whose images they point at.

use ash::vk;

use super::descriptors::{self, Resource, Sampling, SetLayout};
use super::gpu_model::{GpuModel, MeshDraw};
use super::guard::{guard, Destroy};
use super::memory::{DeviceMemory, MemoryReport};
use super::resources::{self, Buffer};
use super::shader_types::{MaterialBlock, MAX_SKINS};
use super::texture::MapKind;
use super::{Context, GpuError};

pub struct MaterialSets {
    /// Frees the sets when destroyed.
    pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    /// Every draw's [`MaterialBlock`], as [`ConstantBlocks`] lays them out.
    constants: Buffer,
    /// `sets[d]` samples the maps of draw `model.draws[d]`'s materials and
    /// reads their constants, one array element per skin.
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
        let blocks = ConstantBlocks::of(ctx, gpu_model);
        let constants = guard(
            ctx,
            resources::create_buffer_with_data(
                ctx,
                &format!("material constants: {} draws", gpu_model.draws.len()),
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                &blocks.bytes,
            )?,
        );
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
            .enumerate()
            .map(|(index, draw)| {
                let constants =
                    Resource::BufferRange(&constants, blocks.offset(index), BLOCK_BYTES);
                create_draw_set(ctx, (*pool, layout), (*sampler, constants), gpu_model, draw)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MaterialSets {
            pool: pool.keep(),
            sampler: sampler.keep(),
            constants: constants.keep(),
            sets,
        })
    }

    /// Indexed by draw, as `GpuModel::draws`.
    pub fn sets(&self) -> &[vk::DescriptorSet] {
        &self.sets
    }
}

impl DeviceMemory for MaterialSets {
    fn memory(&self) -> MemoryReport {
        MemoryReport::buffers([&self.constants])
    }
}

impl Destroy for MaterialSets {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.constants.destroy(ctx);
        self.sampler.destroy(ctx);
    }
}

/// One draw's constants, as the shaders' `Material` block holds them.
const BLOCK_BYTES: u64 = size_of::<MaterialBlock>() as u64;

/// Every draw's [`MaterialBlock`], described once: the bytes uploaded
/// (whose length sizes the buffer, its allocation and its memory report)
/// and where each draw's block starts.
struct ConstantBlocks {
    /// From one draw's block to the next: [`BLOCK_BYTES`] rounded up to the
    /// device's `minUniformBufferOffsetAlignment`.
    stride: u64,
    bytes: Vec<u8>,
}

impl ConstantBlocks {
    fn of(ctx: &Context, gpu_model: &GpuModel) -> ConstantBlocks {
        let limits = unsafe {
            ctx.instance
                .get_physical_device_properties(ctx.physical_device)
        }
        .limits;
        let stride = BLOCK_BYTES.next_multiple_of(limits.min_uniform_buffer_offset_alignment);
        let mut bytes = vec![0; stride as usize * gpu_model.draws.len()];
        for (draw, block) in gpu_model
            .draws
            .iter()
            .zip(bytes.chunks_mut(stride as usize))
        {
            let constants = MaterialBlock {
                constants_of_skin: std::array::from_fn(|skin| {
                    gpu_model.material_constants[material_of_skin(draw, skin)]
                }),
            };
            block[..BLOCK_BYTES as usize].copy_from_slice(bytemuck::bytes_of(&constants));
        }
        ConstantBlocks { stride, bytes }
    }

    /// Where draw `index`'s block starts in the buffer.
    fn offset(&self, index: usize) -> u64 {
        index as u64 * self.stride
    }
}

/// The index into `GpuModel::materials` of `draw`'s material under `skin`.
/// Skins past those in use take the first's: every descriptor of an array,
/// and every element of the constants, must be valid.
fn material_of_skin(draw: &MeshDraw, skin: usize) -> usize {
    *draw.materials.get(skin).unwrap_or(&draw.materials[0])
}

/// `draw`'s set, named after it: the diffuse, normal and specular
/// maps under each skin, the emissive and occlusion maps of its first, and
/// `constants`, its block of the constants.
fn create_draw_set(
    ctx: &Context,
    (pool, layout): (vk::DescriptorPool, &SetLayout),
    (sampler, constants): (vk::Sampler, Resource),
    gpu_model: &GpuModel,
    draw: &MeshDraw,
) -> Result<vk::DescriptorSet, GpuError> {
    let maps = |kind| {
        let images = (0..MAX_SKINS)
            .map(|skin| gpu_model.materials.map(material_of_skin(draw, skin), kind))
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
            ("Material", constants),
        ],
    )
}
