//! The renderer's descriptor sets: their layouts (set 0 of the draws, set 1
//! the mesh's texture, set 0 of the compute passes), the pool they come
//! from, and how buffers and textures are written into them.

use ash::vk;

use super::resources::{Buffer, Image};
use super::{debug, vk_error, Context, GpuError};

/// Set 0 of the draws: skinning transforms, instances, frame uniforms,
/// visible list (crowd.vert / skeleton.vert / crowd.frag bindings 0-3).
pub(super) fn create_scene_layout(ctx: &Context) -> Result<vk::DescriptorSetLayout, GpuError> {
    let binding = |binding, descriptor_type, stage_flags| vk::DescriptorSetLayoutBinding {
        binding,
        descriptor_type,
        descriptor_count: 1,
        stage_flags,
        ..Default::default()
    };
    let vertex = vk::ShaderStageFlags::VERTEX;
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(1, vk::DescriptorType::STORAGE_BUFFER, vertex),
        binding(
            2,
            vk::DescriptorType::UNIFORM_BUFFER,
            vertex | vk::ShaderStageFlags::FRAGMENT,
        ),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, vertex),
    ];
    create_set_layout(ctx, "scene set layout", &bindings)
}

/// Set 0 of cull.comp and animate.comp (shaders/crowd_compute.glsl): frame
/// uniforms, then storage buffers 1-8.
pub(super) fn create_compute_layout(ctx: &Context) -> Result<vk::DescriptorSetLayout, GpuError> {
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..COMPUTE_BINDINGS)
        .map(|binding| vk::DescriptorSetLayoutBinding {
            binding,
            descriptor_type: if binding == 0 {
                vk::DescriptorType::UNIFORM_BUFFER
            } else {
                vk::DescriptorType::STORAGE_BUFFER
            },
            descriptor_count: 1,
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            ..Default::default()
        })
        .collect();
    create_set_layout(ctx, "crowd compute set layout", &bindings)
}

const COMPUTE_BINDINGS: u32 = 9;

/// Set 1: the diffuse texture of the mesh being drawn.
pub(super) fn create_texture_layout(ctx: &Context) -> Result<vk::DescriptorSetLayout, GpuError> {
    let bindings = [vk::DescriptorSetLayoutBinding {
        binding: 0,
        descriptor_type: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        descriptor_count: 1,
        stage_flags: vk::ShaderStageFlags::FRAGMENT,
        ..Default::default()
    }];
    create_set_layout(ctx, "texture set layout", &bindings)
}

fn create_set_layout(
    ctx: &Context,
    name: &str,
    bindings: &[vk::DescriptorSetLayoutBinding],
) -> Result<vk::DescriptorSetLayout, GpuError> {
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
    let layout = unsafe { ctx.device.create_descriptor_set_layout(&info, None) }
        .map_err(vk_error("vkCreateDescriptorSetLayout"))?;
    debug::set_name(ctx, layout, name);
    Ok(layout)
}

pub(super) fn create_descriptor_pool(
    ctx: &Context,
    scene_sets: u32,
    compute_sets: u32,
    texture_sets: u32,
) -> Result<vk::DescriptorPool, GpuError> {
    let sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 3 * scene_sets + (COMPUTE_BINDINGS - 1) * compute_sets,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER,
            descriptor_count: scene_sets + compute_sets,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: texture_sets,
        },
    ];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(scene_sets + compute_sets + texture_sets)
        .pool_sizes(&sizes);
    let pool = unsafe { ctx.device.create_descriptor_pool(&info, None) }
        .map_err(vk_error("vkCreateDescriptorPool"))?;
    debug::set_name(ctx, pool, "renderer descriptor pool");
    Ok(pool)
}

pub(super) fn allocate_sets(
    ctx: &Context,
    pool: vk::DescriptorPool,
    layout: vk::DescriptorSetLayout,
    count: usize,
) -> Result<Vec<vk::DescriptorSet>, GpuError> {
    let layouts = vec![layout; count];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(pool)
        .set_layouts(&layouts);
    unsafe { ctx.device.allocate_descriptor_sets(&info) }
        .map_err(vk_error("vkAllocateDescriptorSets"))
}

pub(super) fn write_scene_set(
    ctx: &Context,
    set: vk::DescriptorSet,
    transforms: &Buffer,
    instances: &Buffer,
    uniforms: &Buffer,
    visible: &Buffer,
) {
    write_buffer_set(
        ctx,
        set,
        &[
            (0, vk::DescriptorType::STORAGE_BUFFER, transforms),
            (1, vk::DescriptorType::STORAGE_BUFFER, instances),
            (2, vk::DescriptorType::UNIFORM_BUFFER, uniforms),
            (3, vk::DescriptorType::STORAGE_BUFFER, visible),
        ],
    );
}

/// Points each `(binding, type, buffer)` of `set` at the whole buffer.
pub(super) fn write_buffer_set(
    ctx: &Context,
    set: vk::DescriptorSet,
    bindings: &[(u32, vk::DescriptorType, &Buffer)],
) {
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
        .iter()
        .map(|(_, _, buffer)| {
            [vk::DescriptorBufferInfo::default()
                .buffer(buffer.handle)
                .range(vk::WHOLE_SIZE)]
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = bindings
        .iter()
        .zip(&infos)
        .map(|((binding, ty, _), info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(*binding)
                .descriptor_type(*ty)
                .buffer_info(info)
        })
        .collect();
    unsafe { ctx.device.update_descriptor_sets(&writes, &[]) };
}

pub(super) fn write_texture_set(
    ctx: &Context,
    set: vk::DescriptorSet,
    texture: &Image,
    sampler: vk::Sampler,
) {
    let image_info = [vk::DescriptorImageInfo::default()
        .sampler(sampler)
        .image_view(texture.view)
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .image_info(&image_info);
    unsafe { ctx.device.update_descriptor_sets(&[write], &[]) };
}

/// Trilinear, repeating: md5 uvs may run past [0, 1].
pub(super) fn create_sampler(ctx: &Context) -> Result<vk::Sampler, GpuError> {
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(vk::Filter::LINEAR)
        .min_filter(vk::Filter::LINEAR)
        .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
        .address_mode_u(vk::SamplerAddressMode::REPEAT)
        .address_mode_v(vk::SamplerAddressMode::REPEAT)
        .address_mode_w(vk::SamplerAddressMode::REPEAT)
        .max_lod(vk::LOD_CLAMP_NONE);
    let sampler =
        unsafe { ctx.device.create_sampler(&info, None) }.map_err(vk_error("vkCreateSampler"))?;
    debug::set_name(ctx, sampler, "diffuse sampler");
    Ok(sampler)
}
