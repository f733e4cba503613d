//! Material textures: a shader's diffuse, normal and specular images
//! (found by [`crate::material::MaterialLibrary`] and read at load into
//! the model, decoded on the CPU by [`map_texels`]) uploaded as mipmapped images, colour maps as sRGB and
//! data maps (normals, specular) as UNORM. A DDS file's BC1-3 blocks are
//! uploaded as they are, with its own mip levels, where the device has
//! `textureCompressionBC`; other images are RGBA8, their mips blitted here.
//! A missing or unreadable map is its kind's 1x1 default; only Vulkan
//! failures are errors.

use ash::vk;

use super::guard::{guard, Destroy};
use super::resources::{self, Image, ImageBarrier, ImageDesc};
use super::{Context, GpuError};
use crate::material::{
    map_texels, BlockFormat, DdsTexels, ImageBytes, MapTexels, MaterialMaps, TexelTransform,
};

pub use crate::material::MapKind;

/// Diffuse maps hold colours (sampled with the sRGB decode); normal and
/// specular maps hold data, read back as stored.
pub fn format_for(kind: MapKind) -> vk::Format {
    match kind {
        MapKind::Diffuse | MapKind::Emissive => vk::Format::R8G8B8A8_SRGB,
        MapKind::Normal | MapKind::Specular | MapKind::Occlusion => vk::Format::R8G8B8A8_UNORM,
    }
}

/// [`format_for`] of block-compressed texels. BC1 keeps its 1-bit alpha
/// (RGBA): a block in its three-colour mode decodes to transparent black
/// there, as on the CPU.
pub fn block_format_for(kind: MapKind, blocks: BlockFormat) -> vk::Format {
    let colour = format_for(kind) == vk::Format::R8G8B8A8_SRGB;
    match (blocks, colour) {
        (BlockFormat::Bc1, true) => vk::Format::BC1_RGBA_SRGB_BLOCK,
        (BlockFormat::Bc1, false) => vk::Format::BC1_RGBA_UNORM_BLOCK,
        (BlockFormat::Bc2, true) => vk::Format::BC2_SRGB_BLOCK,
        (BlockFormat::Bc2, false) => vk::Format::BC2_UNORM_BLOCK,
        (BlockFormat::Bc3, true) => vk::Format::BC3_SRGB_BLOCK,
        (BlockFormat::Bc3, false) => vk::Format::BC3_UNORM_BLOCK,
    }
}

/// Whether `format` is one of the block-compressed ones.
pub fn is_block_compressed(format: vk::Format) -> bool {
    (vk::Format::BC1_RGB_UNORM_BLOCK.as_raw()..=vk::Format::BC7_SRGB_BLOCK.as_raw())
        .contains(&format.as_raw())
}

/// The images a model's materials sample, each decoded and uploaded once:
/// materials share images (and the default textures), and a file that
/// cannot be read is one warning, however many materials name it.
#[derive(Default)]
pub struct MaterialTextures {
    pub images: Vec<Image>,
    /// Per material, the index into `images` of each map, in
    /// [`MapKind::ALL`] order.
    pub materials: Vec<[usize; MapKind::ALL.len()]>,
    /// What each image was made from, for finding it again.
    sources: Vec<ImageKey>,
}

/// What tells uploaded images apart: the map kind, and the file and height
/// transform it was decoded with (none: the kind's default).
type ImageKey = (MapKind, Option<(String, TexelTransform)>);

/// What [`MaterialTextures`] holds on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureMemory {
    pub images: usize,
    /// Device memory of all images (their allocations).
    pub bytes: u64,
    /// How many images are block-compressed.
    pub block_compressed: usize,
}

impl MaterialTextures {
    /// Adds a material, uploading the maps not seen before; returns its
    /// index. An image's debug name is its map kind and its file, not a
    /// material's name: materials share images.
    pub fn add(&mut self, ctx: &Context, material: &MaterialMaps) -> Result<usize, GpuError> {
        let max_dimension = max_image_dimension(ctx);
        let mut maps = [0; MapKind::ALL.len()];
        for (slot, kind) in maps.iter_mut().zip(MapKind::ALL) {
            let map = material.get(kind);
            let key = (kind, map.map(|m| (m.file.clone(), m.transform)));
            *slot = match self.sources.iter().position(|known| *known == key) {
                Some(index) => index,
                None => {
                    let image = load_map(ctx, map, kind, max_dimension)?;
                    self.images.push(image);
                    self.sources.push(key);
                    self.images.len() - 1
                }
            };
        }
        self.materials.push(maps);
        Ok(self.materials.len() - 1)
    }

    /// Material `material`'s map of `kind`.
    pub fn map(&self, material: usize, kind: MapKind) -> &Image {
        let slot = MapKind::ALL
            .iter()
            .position(|&k| k == kind)
            .expect("ALL lists every kind");
        &self.images[self.materials[material][slot]]
    }

    pub fn memory(&self) -> TextureMemory {
        TextureMemory {
            images: self.images.len(),
            bytes: self.images.iter().map(Image::bytes).sum(),
            block_compressed: self
                .images
                .iter()
                .filter(|i| is_block_compressed(i.format))
                .count(),
        }
    }
}

impl Destroy for MaterialTextures {
    fn destroy(self, ctx: &Context) {
        self.images.destroy(ctx);
    }
}

/// The largest side a 2D image may have on this device.
pub fn max_image_dimension(ctx: &Context) -> u32 {
    let properties = unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.physical_device)
    };
    properties.limits.max_image_dimension2_d
}

/// One map, or `kind`'s default texture when `image` is `None` or cannot
/// be decoded.
pub fn load_map(
    ctx: &Context,
    image: Option<&ImageBytes>,
    kind: MapKind,
    max_dimension: u32,
) -> Result<Image, GpuError> {
    let texels = map_texels(image, kind, max_dimension, ctx.texture_compression_bc);
    let name = match image {
        Some(image) if !texels.is_default => format!("{kind} map: {}", image.file),
        Some(image) => format!("{kind} map: default ({} unreadable)", image.file),
        None => format!("{kind} map: default"),
    };
    upload_texels(ctx, &name, &texels, kind)
}

/// `texels` as an image: a single RGBA8 level gets its mips blitted, any
/// other chain is copied level by level.
fn upload_texels(
    ctx: &Context,
    name: &str,
    texels: &MapTexels,
    kind: MapKind,
) -> Result<Image, GpuError> {
    let extent = vk::Extent2D {
        width: texels.width,
        height: texels.height,
    };
    let format = match texels.texels {
        DdsTexels::Rgba8 => format_for(kind),
        DdsTexels::Blocks(blocks) => block_format_for(kind, blocks),
    };
    let blit_mips = texels.texels == DdsTexels::Rgba8 && texels.levels.len() == 1;
    let mip_levels = if !blit_mips {
        texels.levels.len() as u32
    } else if can_blit_mips(ctx, format) {
        32 - extent.width.max(extent.height).leading_zeros()
    } else {
        1
    };
    // RXGB: the file's alpha is the normal's x.
    let swizzle = if texels.red_in_alpha {
        vk::ComponentMapping {
            r: vk::ComponentSwizzle::A,
            g: vk::ComponentSwizzle::IDENTITY,
            b: vk::ComponentSwizzle::IDENTITY,
            a: vk::ComponentSwizzle::ONE,
        }
    } else {
        vk::ComponentMapping::default()
    };
    let image = guard(
        ctx,
        resources::create_image(
            ctx,
            name,
            &ImageDesc {
                extent,
                format,
                // A transfer source for the blits, and for tools and
                // tests reading a texture back (BC formats must allow it).
                usage: vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::TRANSFER_SRC,
                mip_levels,
                swizzle,
                array_layers: None,
                samples: vk::SampleCountFlags::TYPE_1,
            },
        )?,
    );
    let data = texels.levels.concat();
    resources::upload_with_staging(ctx, name, &data, |cmd, staging| {
        if blit_mips {
            record_upload_and_mips(ctx, cmd, staging, &image);
        } else {
            record_level_copies(ctx, cmd, staging, &image, &texels.levels);
        }
    })?;
    Ok(image.keep())
}

/// Copies each of `levels`, one after the other in `staging`, to its mip
/// level of `image`, and hands them all to the fragment shader.
fn record_level_copies(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    staging: vk::Buffer,
    image: &Image,
    levels: &[Vec<u8>],
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let all_levels = resources::subresource_range(image.format, 0, image.mip_levels);
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: image.handle,
            range: all_levels,
            src: (Stage::NONE, Access::NONE),
            dst: (Stage::COPY, Access::TRANSFER_WRITE),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::TRANSFER_DST_OPTIMAL,
        },
    );
    let mut offset = 0u64;
    let regions: Vec<vk::BufferImageCopy> = (0u32..)
        .zip(levels)
        .map(|(level, bytes)| {
            let extent = vk::Extent3D {
                width: (image.extent.width >> level).max(1),
                height: (image.extent.height >> level).max(1),
                depth: 1,
            };
            let region = vk::BufferImageCopy::default()
                .buffer_offset(offset)
                .image_subresource(layers(level, 0))
                .image_extent(extent);
            offset += bytes.len() as u64;
            region
        })
        .collect();
    unsafe {
        ctx.device.cmd_copy_buffer_to_image(
            cmd,
            staging,
            image.handle,
            Layout::TRANSFER_DST_OPTIMAL,
            &regions,
        );
    }
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: image.handle,
            range: all_levels,
            src: (Stage::COPY, Access::TRANSFER_WRITE),
            dst: (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ),
            old_layout: Layout::TRANSFER_DST_OPTIMAL,
            new_layout: Layout::SHADER_READ_ONLY_OPTIMAL,
        },
    );
}

/// Mips come from linear blits of the level above, which needs the format
/// to support blitting and linear filtering with optimal tiling.
fn can_blit_mips(ctx: &Context, format: vk::Format) -> bool {
    let properties = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.physical_device, format)
    };
    properties.optimal_tiling_features.contains(
        vk::FormatFeatureFlags::BLIT_SRC
            | vk::FormatFeatureFlags::BLIT_DST
            | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
    )
}

fn record_upload_and_mips(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    staging: vk::Buffer,
    image: &Image,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: image.handle,
            range: resources::subresource_range(image.format, 0, 1),
            src: (Stage::NONE, Access::NONE),
            dst: (Stage::COPY, Access::TRANSFER_WRITE),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::TRANSFER_DST_OPTIMAL,
        },
    );
    let region = vk::BufferImageCopy::default()
        .image_subresource(layers(0, 0))
        .image_extent(image.extent.into());
    unsafe {
        ctx.device.cmd_copy_buffer_to_image(
            cmd,
            staging,
            image.handle,
            Layout::TRANSFER_DST_OPTIMAL,
            &[region],
        );
    }
    record_mip_chain(
        ctx,
        cmd,
        (image, 0),
        (Stage::COPY, Access::TRANSFER_WRITE),
        Layout::TRANSFER_DST_OPTIMAL,
    );
}

/// Levels 1 and on of layer `layer` of `image`, each blitted from the one
/// above at half its size: linear filtering at exactly 2:1 averages each
/// 2x2 block (so an impostor atlas's power-of-two cells never mix). Level 0
/// was written by `written` (stage, access) and is in `layout`; the other
/// levels' contents are discarded. Afterwards every level of the layer is
/// readable by fragment shaders; other layers are untouched.
pub(super) fn record_mip_chain(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    (image, layer): (&Image, u32),
    written: (vk::PipelineStageFlags2, vk::AccessFlags2),
    layout: vk::ImageLayout,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let barrier = |level, count, src, dst, old_layout, new_layout| {
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: image.handle,
                range: resources::layer_range(image.format, level, count, layer..layer + 1),
                src,
                dst,
                old_layout,
                new_layout,
            },
        );
    };
    let (read, write) = (
        (Stage::BLIT, Access::TRANSFER_READ),
        (Stage::BLIT, Access::TRANSFER_WRITE),
    );
    barrier(0, 1, written, read, layout, Layout::TRANSFER_SRC_OPTIMAL);
    let corner = |level: u32| vk::Offset3D {
        x: (image.extent.width >> level).max(1) as i32,
        y: (image.extent.height >> level).max(1) as i32,
        z: 1,
    };
    for level in 1..image.mip_levels {
        barrier(
            level,
            1,
            (Stage::NONE, Access::NONE),
            write,
            Layout::UNDEFINED,
            Layout::TRANSFER_DST_OPTIMAL,
        );
        let blit = vk::ImageBlit {
            src_subresource: layers(level - 1, layer),
            src_offsets: [vk::Offset3D::default(), corner(level - 1)],
            dst_subresource: layers(level, layer),
            dst_offsets: [vk::Offset3D::default(), corner(level)],
        };
        unsafe {
            ctx.device.cmd_blit_image(
                cmd,
                image.handle,
                Layout::TRANSFER_SRC_OPTIMAL,
                image.handle,
                Layout::TRANSFER_DST_OPTIMAL,
                &[blit],
                vk::Filter::LINEAR,
            );
        }
        barrier(
            level,
            1,
            write,
            read,
            Layout::TRANSFER_DST_OPTIMAL,
            Layout::TRANSFER_SRC_OPTIMAL,
        );
    }
    barrier(
        0,
        image.mip_levels,
        read,
        (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ),
        Layout::TRANSFER_SRC_OPTIMAL,
        Layout::SHADER_READ_ONLY_OPTIMAL,
    );
}

fn layers(mip_level: u32, layer: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .mip_level(mip_level)
        .base_array_layer(layer)
        .layer_count(1)
}
