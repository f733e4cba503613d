//! The frame: per-frame data upload, the offscreen color and depth targets,
//! the descriptor sets the passes share, and the order the passes record in.
//! The window and the headless path both drive this; they differ only in
//! where the finished color image goes (a swapchain blit or a readback).

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};
use gpu_allocator::MemoryLocation;

use super::frame::FRAMES_IN_FLIGHT;
use super::gpu_model::{self, GpuModel, SurfaceVertex};
use super::passes::crowd_draw::{self, CrowdDraw, DrawConstants, SkinningMode, Surface};
use super::passes::skeleton_overlay::{self, SkeletonOverlay};
use super::pipeline::{self, TargetFormats};
use super::profiler::{FrameTimings, Profiler};
use super::resources::{self, Buffer, Image, ImageBarrier, ImageDesc};
use super::{debug, vk_error, Context, GpuError};
use crate::anim::SkinningTransform;
use crate::model::Model;

/// Twin of `FrameUniforms` in shaders/scene.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameUniforms {
    pub view_projection: Mat4,
    pub light_direction: Vec4,
    pub light_color: Vec4,
    pub ambient_color: Vec4,
}

/// Twin of `CrowdInstance` in shaders/scene.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CrowdInstance {
    /// xyz: world position of the model origin; w: yaw about +Z in radians.
    pub placement: Vec4,
    /// rgb multiplies the diffuse texture.
    pub tint: Vec4,
}

pub const TARGET_FORMATS: TargetFormats = TargetFormats {
    // sRGB: shaders write linear light, the hardware encodes on store.
    color: vk::Format::R8G8B8A8_SRGB,
    depth: vk::Format::D32_SFLOAT,
};

/// A dark grey-blue, in linear light.
const CLEAR_COLOR: [f32; 4] = [0.02, 0.025, 0.035, 1.0];

pub struct RendererDesc {
    pub extent: vk::Extent2D,
    /// Draw CPU-skinned vertices through identity transforms (the GPU
    /// path's yardstick) instead of skinning in the vertex shader.
    pub cpu_skinning: bool,
}

/// Everything one frame's recording reads. `skinning_transforms` holds
/// `instance_count * joint_count` transforms, instance-major;
/// `cpu_skinned` (CPU skinning only) the surface vertices of every
/// instance, `vertex_count` apart.
pub struct FrameInput<'a> {
    pub uniforms: FrameUniforms,
    pub skinning_transforms: &'a [SkinningTransform],
    pub cpu_skinned: Option<&'a [SurfaceVertex]>,
    pub skinning_mode: SkinningMode,
    pub show_skeleton: bool,
}

/// Host-visible data rewritten every frame, one copy per frame in flight.
struct FrameData {
    uniforms: Buffer,
    skinning_transforms: Buffer,
    cpu_skinned: Option<Buffer>,
    /// Set 0 with this frame's transforms: the skeleton overlay reads it,
    /// and the crowd draw too unless it skins on the CPU.
    scene_set: vk::DescriptorSet,
    /// Set 0 for the crowd draw with CPU skinning: identity transforms.
    identity_scene_set: Option<vk::DescriptorSet>,
}

pub struct Renderer {
    pub extent: vk::Extent2D,
    /// Holds the finished frame in TRANSFER_SRC_OPTIMAL after [`Renderer::record`].
    pub color: Image,
    depth: Image,
    scene_layout: vk::DescriptorSetLayout,
    texture_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    descriptor_pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    crowd: CrowdDraw,
    overlay: SkeletonOverlay,
    model: GpuModel,
    texture_sets: Vec<vk::DescriptorSet>,
    instances: Buffer,
    instance_count: u32,
    identity_transforms: Option<Buffer>,
    frames: Vec<FrameData>,
    profiler: Profiler,
}

impl Renderer {
    pub fn new(
        ctx: &Context,
        model: &Model,
        instances: &[CrowdInstance],
        desc: &RendererDesc,
    ) -> Result<Renderer, GpuError> {
        let gpu_model = gpu_model::upload_model(ctx, model)?;
        let scene_layout = create_scene_layout(ctx)?;
        let texture_layout = create_texture_layout(ctx)?;
        let push_constants = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::VERTEX,
            offset: 0,
            size: size_of::<DrawConstants>() as u32,
        }];
        let pipeline_layout = pipeline::create_pipeline_layout(
            ctx,
            "scene + texture",
            &[scene_layout, texture_layout],
            &push_constants,
        )?;
        let crowd =
            crowd_draw::create_crowd_draw(ctx, pipeline_layout, gpu_model.limit, TARGET_FORMATS)?;
        let overlay =
            skeleton_overlay::create_skeleton_overlay(ctx, pipeline_layout, TARGET_FORMATS)?;
        let sampler = create_sampler(ctx)?;

        let scene_sets = FRAMES_IN_FLIGHT * if desc.cpu_skinning { 2 } else { 1 };
        let descriptor_pool =
            create_descriptor_pool(ctx, scene_sets as u32, gpu_model.textures.len() as u32)?;
        let texture_sets = allocate_sets(
            ctx,
            descriptor_pool,
            texture_layout,
            gpu_model.textures.len(),
        )?;
        for ((set, texture), i) in texture_sets.iter().zip(&gpu_model.textures).zip(0..) {
            debug::set_name(ctx, *set, &format!("texture set {i}"));
            write_texture_set(ctx, *set, texture, sampler);
        }

        let instance_count = instances.len() as u32;
        let instances = resources::create_buffer_with_data(
            ctx,
            "crowd instances",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            bytemuck::cast_slice(instances),
        )?;
        let transform_count = instance_count as usize * gpu_model.joint_count as usize;
        let transforms_size = (transform_count * size_of::<SkinningTransform>()) as u64;
        let identity_transforms = if desc.cpu_skinning {
            let identity =
                vec![SkinningTransform::from(crate::anim::JointPose::IDENTITY); transform_count];
            Some(resources::create_buffer_with_data(
                ctx,
                "identity skinning transforms",
                vk::BufferUsageFlags::STORAGE_BUFFER,
                bytemuck::cast_slice(&identity),
            )?)
        } else {
            None
        };

        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for slot in 0..FRAMES_IN_FLIGHT {
            let host_buffer = |name: &str, size: u64, usage| {
                resources::create_buffer(
                    ctx,
                    &format!("{name}, frame {slot}"),
                    size,
                    usage,
                    MemoryLocation::CpuToGpu,
                )
            };
            let uniforms = host_buffer(
                "frame uniforms",
                size_of::<FrameUniforms>() as u64,
                vk::BufferUsageFlags::UNIFORM_BUFFER,
            )?;
            let skinning_transforms = host_buffer(
                "skinning transforms",
                transforms_size,
                vk::BufferUsageFlags::STORAGE_BUFFER,
            )?;
            let cpu_skinned = if desc.cpu_skinning {
                let size = u64::from(instance_count)
                    * u64::from(gpu_model.vertex_count)
                    * size_of::<SurfaceVertex>() as u64;
                Some(host_buffer(
                    "vertices: CPU-skinned",
                    size,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                )?)
            } else {
                None
            };
            let sets = allocate_sets(
                ctx,
                descriptor_pool,
                scene_layout,
                if desc.cpu_skinning { 2 } else { 1 },
            )?;
            debug::set_name(ctx, sets[0], &format!("frame {slot} scene set"));
            write_scene_set(ctx, sets[0], &skinning_transforms, &instances, &uniforms);
            let identity_scene_set = identity_transforms.as_ref().map(|identity| {
                debug::set_name(
                    ctx,
                    sets[1],
                    &format!("frame {slot} scene set, identity transforms"),
                );
                write_scene_set(ctx, sets[1], identity, &instances, &uniforms);
                sets[1]
            });
            frames.push(FrameData {
                uniforms,
                skinning_transforms,
                cpu_skinned,
                scene_set: sets[0],
                identity_scene_set,
            });
        }

        let (color, depth) = create_targets(ctx, desc.extent)?;
        let profiler = Profiler::new(ctx)?;
        Ok(Renderer {
            extent: desc.extent,
            color,
            depth,
            scene_layout,
            texture_layout,
            pipeline_layout,
            descriptor_pool,
            sampler,
            crowd,
            overlay,
            model: gpu_model,
            texture_sets,
            instances,
            instance_count,
            identity_transforms,
            frames,
            profiler,
        })
    }

    /// New targets for a new size. The caller makes sure the GPU is idle.
    pub fn resize(&mut self, ctx: &Context, extent: vk::Extent2D) -> Result<(), GpuError> {
        let (color, depth) = create_targets(ctx, extent)?;
        resources::destroy_image(ctx, std::mem::replace(&mut self.color, color));
        resources::destroy_image(ctx, std::mem::replace(&mut self.depth, depth));
        self.extent = extent;
        Ok(())
    }

    /// Uploads `input` into frame slot `slot` (whose fence the caller has
    /// waited for) and records the passes into `cmd`. Afterwards
    /// [`Renderer::color`] holds the frame, ready to be copied out.
    pub fn record(
        &mut self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        slot: usize,
        input: &FrameInput,
    ) {
        let frame = &mut self.frames[slot];
        frame.uniforms.write(&[input.uniforms]);
        frame.skinning_transforms.write(input.skinning_transforms);
        match (&mut frame.cpu_skinned, input.cpu_skinned) {
            (Some(buffer), Some(vertices)) => buffer.write(vertices),
            (None, None) => {}
            _ => panic!(
                "CPU-skinned vertices must be given exactly when the renderer was made for them"
            ),
        }

        let (crowd_set, surface) = match (&frame.cpu_skinned, frame.identity_scene_set) {
            (Some(vertices), Some(identity_set)) => {
                (identity_set, Surface::CpuSkinned(vertices.handle))
            }
            _ => (frame.scene_set, Surface::BindPose),
        };
        let scene_set = frame.scene_set;

        self.profiler.begin_frame(ctx, cmd, slot);
        let _scene = debug::label(ctx, cmd, "scene");
        self.profiler.begin_statistics(ctx, cmd);
        // "draw" includes clearing the targets as the rendering scope opens.
        let draw = self.profiler.begin(ctx, cmd, "draw");
        begin_rendering(ctx, cmd, &self.color, &self.depth);
        pipeline::set_viewport(ctx, cmd, self.extent);
        let constants = DrawConstants::new(self.model.joint_count, input.skinning_mode);
        self.bind_scene_set(ctx, cmd, crowd_set);
        crowd_draw::record_crowd_draw(
            ctx,
            cmd,
            &self.crowd,
            self.pipeline_layout,
            &self.model,
            &self.texture_sets,
            surface,
            self.instance_count,
            constants,
        );
        self.profiler.end(ctx, cmd, draw);
        if input.show_skeleton {
            let overlay = self.profiler.begin(ctx, cmd, "overlay");
            if crowd_set != scene_set {
                self.bind_scene_set(ctx, cmd, scene_set);
            }
            skeleton_overlay::record_skeleton_overlay(
                ctx,
                cmd,
                &self.overlay,
                self.pipeline_layout,
                &self.model,
                self.instance_count,
                constants,
            );
            self.profiler.end(ctx, cmd, overlay);
        }
        end_rendering(ctx, cmd, &self.color);
        self.profiler.end_statistics(ctx, cmd);
    }

    /// The GPU timings of the frame last recorded into `slot`, once; call
    /// after waiting for the slot's fence (see [`Profiler::take`]).
    pub fn take_timings(
        &mut self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Option<FrameTimings>, GpuError> {
        self.profiler.take(ctx, slot)
    }

    fn bind_scene_set(&self, ctx: &Context, cmd: vk::CommandBuffer, set: vk::DescriptorSet) {
        unsafe {
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline_layout,
                0,
                &[set],
                &[],
            );
        }
    }

    pub fn destroy(self, ctx: &Context) {
        self.profiler.destroy(ctx);
        for frame in self.frames {
            resources::destroy_buffer(ctx, frame.uniforms);
            resources::destroy_buffer(ctx, frame.skinning_transforms);
            if let Some(buffer) = frame.cpu_skinned {
                resources::destroy_buffer(ctx, buffer);
            }
        }
        if let Some(buffer) = self.identity_transforms {
            resources::destroy_buffer(ctx, buffer);
        }
        resources::destroy_buffer(ctx, self.instances);
        resources::destroy_image(ctx, self.color);
        resources::destroy_image(ctx, self.depth);
        gpu_model::destroy_model(ctx, self.model);
        crowd_draw::destroy_crowd_draw(ctx, self.crowd);
        skeleton_overlay::destroy_skeleton_overlay(ctx, self.overlay);
        unsafe {
            // Destroying the pool frees its sets.
            ctx.device
                .destroy_descriptor_pool(self.descriptor_pool, None);
            ctx.device.destroy_sampler(self.sampler, None);
            ctx.device
                .destroy_pipeline_layout(self.pipeline_layout, None);
            ctx.device
                .destroy_descriptor_set_layout(self.scene_layout, None);
            ctx.device
                .destroy_descriptor_set_layout(self.texture_layout, None);
        }
    }
}

fn create_targets(ctx: &Context, extent: vk::Extent2D) -> Result<(Image, Image), GpuError> {
    let color = resources::create_image(
        ctx,
        "color target",
        &ImageDesc {
            extent,
            format: TARGET_FORMATS.color,
            usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            mip_levels: 1,
        },
    )?;
    let depth = resources::create_image(
        ctx,
        "depth target",
        &ImageDesc {
            extent,
            format: TARGET_FORMATS.depth,
            usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            mip_levels: 1,
        },
    );
    match depth {
        Ok(depth) => Ok((color, depth)),
        Err(error) => {
            resources::destroy_image(ctx, color);
            Err(error)
        }
    }
}

/// Transitions the targets for drawing (their old contents are discarded)
/// and opens the rendering scope with both cleared.
fn begin_rendering(ctx: &Context, cmd: vk::CommandBuffer, color: &Image, depth: &Image) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    // The previous frame (same images) last wrote them as attachments and
    // read the color image with a copy or blit.
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: color.handle,
            range: resources::subresource_range(color.format, 0, 1),
            src: (
                Stage::COLOR_ATTACHMENT_OUTPUT | Stage::ALL_TRANSFER,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            dst: (
                Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
        },
    );
    let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: depth.handle,
            range: resources::subresource_range(depth.format, 0, 1),
            src: (depth_stages, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
            dst: (
                depth_stages,
                Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
        },
    );
    let color_attachments = [vk::RenderingAttachmentInfo::default()
        .image_view(color.view)
        .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: CLEAR_COLOR,
            },
        })];
    // Reverse Z: the far plane is 0.
    let depth_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(depth.view)
        .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 0.0,
                stencil: 0,
            },
        });
    let info = vk::RenderingInfo::default()
        .render_area(color.extent.into())
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
}

/// Closes the rendering scope and makes the color image a transfer source.
fn end_rendering(ctx: &Context, cmd: vk::CommandBuffer, color: &Image) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: color.handle,
            range: resources::subresource_range(color.format, 0, 1),
            src: (
                Stage::COLOR_ATTACHMENT_OUTPUT,
                Access::COLOR_ATTACHMENT_WRITE,
            ),
            dst: (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
            old_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            new_layout: Layout::TRANSFER_SRC_OPTIMAL,
        },
    );
}

/// Set 0, shared by the passes: skinning transforms, instances, frame
/// uniforms (crowd.vert / skeleton.vert / crowd.frag bindings 0-2).
fn create_scene_layout(ctx: &Context) -> Result<vk::DescriptorSetLayout, GpuError> {
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
    ];
    create_set_layout(ctx, "scene set layout", &bindings)
}

/// Set 1: the diffuse texture of the mesh being drawn.
fn create_texture_layout(ctx: &Context) -> Result<vk::DescriptorSetLayout, GpuError> {
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

fn create_descriptor_pool(
    ctx: &Context,
    scene_sets: u32,
    texture_sets: u32,
) -> Result<vk::DescriptorPool, GpuError> {
    let sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 2 * scene_sets,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER,
            descriptor_count: scene_sets,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: texture_sets,
        },
    ];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(scene_sets + texture_sets)
        .pool_sizes(&sizes);
    let pool = unsafe { ctx.device.create_descriptor_pool(&info, None) }
        .map_err(vk_error("vkCreateDescriptorPool"))?;
    debug::set_name(ctx, pool, "renderer descriptor pool");
    Ok(pool)
}

fn allocate_sets(
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

fn write_scene_set(
    ctx: &Context,
    set: vk::DescriptorSet,
    transforms: &Buffer,
    instances: &Buffer,
    uniforms: &Buffer,
) {
    let whole = |buffer: &Buffer| {
        [vk::DescriptorBufferInfo::default()
            .buffer(buffer.handle)
            .range(vk::WHOLE_SIZE)]
    };
    let (transforms, instances, uniforms) = (whole(transforms), whole(instances), whole(uniforms));
    let write = |binding, ty, info| {
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(binding)
            .descriptor_type(ty)
            .buffer_info(info)
    };
    let writes = [
        write(0, vk::DescriptorType::STORAGE_BUFFER, &transforms),
        write(1, vk::DescriptorType::STORAGE_BUFFER, &instances),
        write(2, vk::DescriptorType::UNIFORM_BUFFER, &uniforms),
    ];
    unsafe { ctx.device.update_descriptor_sets(&writes, &[]) };
}

fn write_texture_set(ctx: &Context, set: vk::DescriptorSet, texture: &Image, sampler: vk::Sampler) {
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
fn create_sampler(ctx: &Context) -> Result<vk::Sampler, GpuError> {
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
