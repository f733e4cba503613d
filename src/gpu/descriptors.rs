//! Descriptor sets, with binding numbers written once: in the GLSL. Each set
//! layout is reflected from the SPIR-V of the shaders that share it, and
//! sets are written by the names the shaders give their blocks (`Frame`,
//! `SkinningTransforms`, the sampler `diffuse`), so a binding moved in a
//! shader moves here too, and a name the shaders lack fails loudly.

use ash::vk;

use super::guard::Destroy;
use super::reflect::{self, MergedBinding};
use super::resources::{Buffer, Image};
use super::{debug, vk_error, Context, GpuError};

/// A set layout and the bindings it was made from.
pub struct SetLayout {
    pub handle: vk::DescriptorSetLayout,
    pub bindings: Vec<MergedBinding>,
}

/// A shader that uses a set: its name (for errors), SPIR-V and stage.
pub type ShaderUse<'a> = (&'a str, &'a [u8], vk::ShaderStageFlags);

/// The layout of set `set` as `shaders` declare it together.
pub fn create_set_layout(
    ctx: &Context,
    name: &str,
    set: u32,
    shaders: &[ShaderUse],
) -> Result<SetLayout, GpuError> {
    let bindings = reflect::merged_set_bindings(set, shaders).map_err(GpuError::ShaderInterface)?;
    let layout_bindings: Vec<vk::DescriptorSetLayoutBinding> =
        bindings.iter().map(MergedBinding::layout_binding).collect();
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
    ctx.creation_step("vkCreateDescriptorSetLayout")?;
    let handle = unsafe { ctx.device.create_descriptor_set_layout(&info, None) }
        .map_err(vk_error("vkCreateDescriptorSetLayout"))?;
    debug::set_name(ctx, handle, name);
    Ok(SetLayout { handle, bindings })
}

impl Destroy for SetLayout {
    fn destroy(self, ctx: &Context) {
        self.handle.destroy(ctx);
    }
}

/// A pool with room for exactly `sets`: (layout, how many of it).
pub fn create_pool(
    ctx: &Context,
    name: &str,
    sets: &[(&SetLayout, u32)],
) -> Result<vk::DescriptorPool, GpuError> {
    let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
    // A layout wanted no times adds no sizes (each must be above zero).
    for (layout, count) in sets.iter().filter(|(_, count)| *count > 0) {
        for binding in &layout.bindings {
            let ty = binding.descriptor.kind.descriptor_type();
            let descriptors = count * binding.descriptor.count;
            match sizes.iter_mut().find(|s| s.ty == ty) {
                Some(size) => size.descriptor_count += descriptors,
                None => sizes.push(vk::DescriptorPoolSize {
                    ty,
                    descriptor_count: descriptors,
                }),
            }
        }
    }
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(sets.iter().map(|(_, count)| count).sum::<u32>().max(1))
        .pool_sizes(&sizes);
    ctx.creation_step("vkCreateDescriptorPool")?;
    let pool = unsafe { ctx.device.create_descriptor_pool(&info, None) }
        .map_err(vk_error("vkCreateDescriptorPool"))?;
    debug::set_name(ctx, pool, name);
    Ok(pool)
}

/// What a binding points at.
pub enum Resource<'a> {
    Buffer(&'a Buffer),
    /// Part of a buffer: its offset (aligned as the device asks of the
    /// binding's kind) and size in bytes.
    BufferRange(&'a Buffer, u64, u64),
    /// An image as it will be laid out when the shader samples it.
    Texture(&'a Image, vk::Sampler, vk::ImageLayout),
    /// An array of images sampled alike, one per element of the shaders'
    /// array (`sampler2D maps[N]`: exactly N).
    Textures(Vec<&'a Image>, vk::Sampler, vk::ImageLayout),
    /// A buffer read through a format (`samplerBuffer`).
    TexelBuffer(vk::BufferView),
    /// An image written texel by texel (`image2D`), in the GENERAL layout.
    StorageImage(&'a Image),
}

/// A set of `layout` from `pool` (freed with the pool), with every binding
/// written: `resources` names each by its GLSL name.
///
/// Panics when a name is not in the layout or a binding is left out: the
/// renderer and its shaders disagree, which every renderer test catches.
pub fn create_set(
    ctx: &Context,
    pool: vk::DescriptorPool,
    layout: &SetLayout,
    name: &str,
    resources: &[(&str, Resource)],
) -> Result<vk::DescriptorSet, GpuError> {
    let layouts = [layout.handle];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(pool)
        .set_layouts(&layouts);
    ctx.creation_step("vkAllocateDescriptorSets")?;
    let set = unsafe { ctx.device.allocate_descriptor_sets(&info) }
        .map_err(vk_error("vkAllocateDescriptorSets"))?[0];
    debug::set_name(ctx, set, name);

    for binding in &layout.bindings {
        let declared = &binding.descriptor.name;
        assert!(
            resources.iter().any(|(n, _)| n == declared),
            "{name}: nothing given for the shaders' `{declared}`"
        );
    }
    write_set(ctx, set, layout, resources);
    Ok(set)
}

/// Points the bindings of `set` (of `layout`) that `resources` names, by
/// their GLSL names, at new resources; the others keep theirs. The set must
/// not be in use by a pending command buffer.
///
/// Panics when a name is not in the layout, as [`create_set`] does.
pub fn write_set(
    ctx: &Context,
    set: vk::DescriptorSet,
    layout: &SetLayout,
    resources: &[(&str, Resource)],
) {
    let mut buffer_infos = Vec::new();
    let mut image_infos = Vec::new();
    let mut texel_views = Vec::new();
    let targets: Vec<(&MergedBinding, &Resource)> = resources
        .iter()
        .map(|(resource_name, resource)| {
            let binding = layout
                .bindings
                .iter()
                .find(|b| b.descriptor.name == *resource_name)
                .unwrap_or_else(|| panic!("the shaders declare no `{resource_name}` in this set"));
            match resource {
                Resource::Buffer(buffer) => buffer_infos
                    .push([vk::DescriptorBufferInfo::default()
                        .buffer(buffer.handle)
                        .range(vk::WHOLE_SIZE)]),
                Resource::BufferRange(buffer, offset, range) => {
                    buffer_infos.push([vk::DescriptorBufferInfo::default()
                        .buffer(buffer.handle)
                        .offset(*offset)
                        .range(*range)])
                }
                Resource::Texture(image, sampler, layout) => {
                    image_infos.push(image_infos_of(&[image], *sampler, *layout))
                }
                Resource::Textures(images, sampler, layout) => {
                    assert_eq!(
                        images.len(),
                        binding.descriptor.count as usize,
                        "`{resource_name}`: as many images as the shaders' array holds"
                    );
                    image_infos.push(image_infos_of(images, *sampler, *layout))
                }
                Resource::TexelBuffer(view) => texel_views.push([*view]),
                Resource::StorageImage(image) => image_infos.push(image_infos_of(
                    &[image],
                    vk::Sampler::null(),
                    vk::ImageLayout::GENERAL,
                )),
            }
            (binding, resource)
        })
        .collect();
    let (mut buffers, mut images) = (buffer_infos.iter(), image_infos.iter());
    let mut views = texel_views.iter();
    let writes: Vec<vk::WriteDescriptorSet> = targets
        .iter()
        .map(|(binding, resource)| {
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding.descriptor.binding)
                .descriptor_type(binding.descriptor.kind.descriptor_type());
            match resource {
                Resource::Buffer(_) | Resource::BufferRange(..) => {
                    write.buffer_info(buffers.next().expect("one info each"))
                }
                Resource::Texture(..) | Resource::Textures(..) | Resource::StorageImage(_) => {
                    write.image_info(images.next().expect("infos for each"))
                }
                Resource::TexelBuffer(_) => {
                    write.texel_buffer_view(views.next().expect("one view each"))
                }
            }
        })
        .collect();
    unsafe { ctx.device.update_descriptor_sets(&writes, &[]) };
}

fn image_infos_of(
    images: &[&Image],
    sampler: vk::Sampler,
    layout: vk::ImageLayout,
) -> Vec<vk::DescriptorImageInfo> {
    images
        .iter()
        .map(|image| {
            vk::DescriptorImageInfo::default()
                .sampler(sampler)
                .image_view(image.view)
                .image_layout(layout)
        })
        .collect()
}

/// How a sampler reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Trilinear and anisotropic where the device can, repeating: md5 uvs
    /// may run past [0, 1].
    Diffuse,
    /// Trilinear, clamped, not anisotropic: the impostor atlases, whose
    /// cells face the eye (no slant to keep detail along) and lie side by
    /// side (extra taps along a slant would read the neighbours').
    Atlas,
    /// Nearest, clamped: pyramid.comp fetches depth texels as they are
    /// (depth formats need not support linear filtering).
    Depth,
}

pub fn create_sampler(ctx: &Context, sampling: Sampling) -> Result<vk::Sampler, GpuError> {
    let (filter, mipmap, address, name) = match sampling {
        Sampling::Diffuse => (
            vk::Filter::LINEAR,
            vk::SamplerMipmapMode::LINEAR,
            vk::SamplerAddressMode::REPEAT,
            "diffuse sampler",
        ),
        Sampling::Atlas => (
            vk::Filter::LINEAR,
            vk::SamplerMipmapMode::LINEAR,
            vk::SamplerAddressMode::CLAMP_TO_EDGE,
            "impostor atlas sampler",
        ),
        Sampling::Depth => (
            vk::Filter::NEAREST,
            vk::SamplerMipmapMode::NEAREST,
            vk::SamplerAddressMode::CLAMP_TO_EDGE,
            "depth sampler",
        ),
    };
    // Materials seen at a slant keep their detail along the slant instead
    // of blurring to the mip the steepest direction asks for.
    let anisotropy = match sampling {
        Sampling::Diffuse => ctx.max_anisotropy,
        Sampling::Atlas | Sampling::Depth => None,
    };
    let info = vk::SamplerCreateInfo::default()
        .anisotropy_enable(anisotropy.is_some())
        .max_anisotropy(anisotropy.unwrap_or(1.0))
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(mipmap)
        .address_mode_u(address)
        .address_mode_v(address)
        .address_mode_w(address)
        .max_lod(vk::LOD_CLAMP_NONE);
    ctx.creation_step("vkCreateSampler")?;
    let sampler =
        unsafe { ctx.device.create_sampler(&info, None) }.map_err(vk_error("vkCreateSampler"))?;
    debug::set_name(ctx, sampler, name);
    Ok(sampler)
}
