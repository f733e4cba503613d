//! The frame: the per-frame buffers, what the CPU uploads into them, and the
//! order the passes record in, with the barriers between them.
//! The window and the headless path both drive this; they differ only in
//! where the finished color image goes (a swapchain blit or a readback).

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};
use gpu_allocator::MemoryLocation;

use super::animation_data::{self, AnimationData, InstanceAnimation};
use super::crowd_memory::{bytes_per_instance, check_crowd_fits};
use super::descriptors::{
    allocate_sets, create_compute_layout, create_descriptor_pool, create_sampler,
    create_scene_layout, create_texture_layout, write_buffer_set, write_scene_set,
    write_texture_set,
};
use super::frame::FRAMES_IN_FLIGHT;
use super::gpu_model::{self, GpuModel, SurfaceVertex};
use super::passes::animate::{self, Animate};
use super::passes::crowd_draw::{
    self, CrowdDraw, DrawConstants, SkinningMode, Surface, DRAW_COMMAND_SIZE,
};
use super::passes::cull::{self, CrowdComputeConstants, Cull};
use super::passes::skeleton_overlay::{self, SkeletonOverlay};
use super::pipeline;
use super::profiler::{FrameTimings, Profiler};
use super::resources::{self, memory_barrier, Buffer, Image};
use super::targets::{begin_rendering, create_targets, end_rendering, TARGET_FORMATS};
use super::{debug, Context, GpuError};
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
    /// Inward unit normal and distance per plane (`crowd::Frustum`).
    pub frustum_planes: [Vec4; 6],
    pub time: f32,
    pub blend_time: f32,
    pub padding: [f32; 2],
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

/// Who writes the skinning transforms the vertex shader reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Animation {
    /// animate.comp, for the visible instances only.
    #[default]
    Gpu,
    /// `crowd::animate_crowd` on every core, uploaded each frame.
    Cpu,
    /// Nobody: the crowd stands in its bind pose, unskinned (the
    /// benchmark's ideal; the skeleton overlay is not drawn).
    #[value(skip)]
    Off,
}

pub struct RendererDesc {
    pub extent: vk::Extent2D,
    pub animation: Animation,
    /// Draw CPU-skinned vertices through identity transforms (the GPU
    /// path's yardstick) instead of skinning in the vertex shader; needs
    /// [`Animation::Cpu`].
    pub cpu_skinning: bool,
    /// Device memory the crowd may take, when smaller than the device's
    /// largest device-local heap (tests use it to play a small GPU).
    pub memory_budget: Option<u64>,
}

/// Everything one frame's recording reads.
pub struct FrameInput<'a> {
    pub uniforms: FrameUniforms,
    /// Every instance's animation state; uploaded only when `instances_version`
    /// differs from what this frame slot last saw.
    pub instances: &'a [InstanceAnimation],
    pub instances_version: u64,
    /// [`Animation::Cpu`] only: `instance_count * joint_count` transforms,
    /// instance-major.
    pub skinning_transforms: Option<&'a [SkinningTransform]>,
    /// CPU skinning only: the surface vertices of every instance,
    /// `vertex_count` apart.
    pub cpu_skinned: Option<&'a [SurfaceVertex]>,
    pub skinning_mode: SkinningMode,
    pub show_skeleton: bool,
    /// Triangle edges only, where [`Context::wireframe`] allows.
    pub wireframe: bool,
}

/// One copy per frame in flight of everything a frame writes, so a frame
/// never touches what the previous one may still be reading.
struct FrameData {
    uniforms: Buffer,
    /// Host-visible with CPU animation, device-local with GPU animation.
    skinning_transforms: Buffer,
    instance_animation: Buffer,
    /// Which `FrameInput::instances_version` `instance_animation` holds.
    instances_version: Option<u64>,
    /// cull.comp's output: count, then instance ids.
    visible: Buffer,
    /// The indirect draws: one per mesh, then the skeleton overlay's.
    draw_commands: Buffer,
    /// The visible count, copied out for statistics.
    visible_readback: Buffer,
    cpu_skinned: Option<Buffer>,
    /// Set 0 of the compute passes.
    compute_set: vk::DescriptorSet,
    /// Set 0 of the draws with this frame's transforms and visible list:
    /// the skeleton overlay reads it, and the crowd draw too unless it
    /// skins on the CPU.
    scene_set: vk::DescriptorSet,
    /// Set 0 for the crowd draw with CPU skinning: identity transforms and
    /// the identity visible list.
    identity_scene_set: Option<vk::DescriptorSet>,
}

/// Buffers that exist only with CPU skinning.
struct CpuSkinningData {
    identity_transforms: Buffer,
    /// `[instance_count, 0, 1, 2, ...]`: every instance, in order.
    all_instances: Buffer,
}

pub struct Renderer {
    pub extent: vk::Extent2D,
    /// Holds the finished frame in TRANSFER_SRC_OPTIMAL after [`Renderer::record`].
    pub color: Image,
    depth: Image,
    animation: Animation,
    scene_layout: vk::DescriptorSetLayout,
    texture_layout: vk::DescriptorSetLayout,
    compute_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    compute_pipeline_layout: vk::PipelineLayout,
    descriptor_pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    cull: Cull,
    animate: Animate,
    crowd: CrowdDraw,
    overlay: SkeletonOverlay,
    model: GpuModel,
    animation_data: AnimationData,
    texture_sets: Vec<vk::DescriptorSet>,
    instances: Buffer,
    instance_count: u32,
    /// What each frame's draw commands are reset to: instance counts of 0.
    draw_command_template: Buffer,
    cpu_skinning: Option<CpuSkinningData>,
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
        assert!(
            !desc.cpu_skinning || desc.animation == Animation::Cpu,
            "CPU skinning needs CPU animation"
        );
        let gpu_model = gpu_model::upload_model(ctx, model)?;
        let instance_count = instances.len() as u32;
        let per_instance = bytes_per_instance(&gpu_model, desc.cpu_skinning);
        if let Err(error) = check_crowd_fits(
            ctx,
            &gpu_model,
            per_instance,
            instance_count,
            desc.memory_budget,
        ) {
            gpu_model::destroy_model(ctx, gpu_model);
            return Err(error);
        }
        let animation_data = animation_data::upload_animation_data(ctx, model)?;
        let scene_layout = create_scene_layout(ctx)?;
        let texture_layout = create_texture_layout(ctx)?;
        let compute_layout = create_compute_layout(ctx)?;
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
        let compute_push_constants = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: size_of::<CrowdComputeConstants>() as u32,
        }];
        let compute_pipeline_layout = pipeline::create_pipeline_layout(
            ctx,
            "crowd compute",
            &[compute_layout],
            &compute_push_constants,
        )?;
        let cull = cull::create_cull(ctx, compute_pipeline_layout)?;
        let animate = animate::create_animate(ctx, compute_pipeline_layout)?;
        let crowd =
            crowd_draw::create_crowd_draw(ctx, pipeline_layout, gpu_model.limit, TARGET_FORMATS)?;
        let overlay =
            skeleton_overlay::create_skeleton_overlay(ctx, pipeline_layout, TARGET_FORMATS)?;
        let sampler = create_sampler(ctx)?;

        let scene_sets = FRAMES_IN_FLIGHT * if desc.cpu_skinning { 2 } else { 1 };
        let descriptor_pool = create_descriptor_pool(
            ctx,
            scene_sets as u32,
            FRAMES_IN_FLIGHT as u32,
            gpu_model.textures.len() as u32,
        )?;
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

        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let instances = resources::create_buffer_with_data(
            ctx,
            "crowd instances",
            storage,
            bytemuck::cast_slice(instances),
        )?;
        let draw_command_template = resources::create_buffer_with_data(
            ctx,
            "draw commands (reset values)",
            vk::BufferUsageFlags::TRANSFER_SRC,
            bytemuck::cast_slice(&draw_commands(&gpu_model)),
        )?;
        let transform_count = instance_count as usize * gpu_model.joint_count as usize;
        let transforms_size = (transform_count * size_of::<SkinningTransform>()) as u64;
        let visible_size = (size_of::<u32>() * (1 + instance_count as usize)) as u64;
        let cpu_skinning = if desc.cpu_skinning {
            let identity =
                vec![SkinningTransform::from(crate::anim::JointPose::IDENTITY); transform_count];
            let all_instances: Vec<u32> = std::iter::once(instance_count)
                .chain(0..instance_count)
                .collect();
            Some(CpuSkinningData {
                identity_transforms: resources::create_buffer_with_data(
                    ctx,
                    "identity skinning transforms",
                    storage,
                    bytemuck::cast_slice(&identity),
                )?,
                all_instances: resources::create_buffer_with_data(
                    ctx,
                    "visible instances (all)",
                    storage,
                    bytemuck::cast_slice(&all_instances),
                )?,
            })
        } else {
            None
        };

        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for slot in 0..FRAMES_IN_FLIGHT {
            let buffer = |name: &str, size: u64, usage, location| {
                resources::create_buffer(
                    ctx,
                    &format!("{name}, frame {slot}"),
                    size,
                    usage,
                    location,
                )
            };
            let uniforms = buffer(
                "frame uniforms",
                size_of::<FrameUniforms>() as u64,
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                MemoryLocation::CpuToGpu,
            )?;
            let transforms_location = match desc.animation {
                Animation::Cpu => MemoryLocation::CpuToGpu,
                Animation::Gpu | Animation::Off => MemoryLocation::GpuOnly,
            };
            let skinning_transforms = buffer(
                "skinning transforms",
                transforms_size,
                storage | vk::BufferUsageFlags::TRANSFER_SRC,
                transforms_location,
            )?;
            let instance_animation = buffer(
                "instance animation",
                (instances_len(instance_count) * size_of::<InstanceAnimation>()) as u64,
                storage,
                MemoryLocation::CpuToGpu,
            )?;
            let visible = buffer(
                "visible instances",
                visible_size,
                storage | vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC,
                MemoryLocation::GpuOnly,
            )?;
            let draw_commands = buffer(
                "draw commands",
                draw_command_template.size,
                storage
                    | vk::BufferUsageFlags::INDIRECT_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_DST,
                MemoryLocation::GpuOnly,
            )?;
            let visible_readback = buffer(
                "visible count readback",
                size_of::<u32>() as u64,
                vk::BufferUsageFlags::TRANSFER_DST,
                MemoryLocation::GpuToCpu,
            )?;
            let cpu_skinned = if desc.cpu_skinning {
                let size = u64::from(instance_count)
                    * u64::from(gpu_model.vertex_count)
                    * size_of::<SurfaceVertex>() as u64;
                Some(buffer(
                    "vertices: CPU-skinned",
                    size,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    MemoryLocation::CpuToGpu,
                )?)
            } else {
                None
            };
            let compute_set = allocate_sets(ctx, descriptor_pool, compute_layout, 1)?[0];
            debug::set_name(ctx, compute_set, &format!("frame {slot} compute set"));
            write_buffer_set(
                ctx,
                compute_set,
                &[
                    (0, vk::DescriptorType::UNIFORM_BUFFER, &uniforms),
                    (1, vk::DescriptorType::STORAGE_BUFFER, &instances),
                    (2, vk::DescriptorType::STORAGE_BUFFER, &instance_animation),
                    (3, vk::DescriptorType::STORAGE_BUFFER, &animation_data.clips),
                    (
                        4,
                        vk::DescriptorType::STORAGE_BUFFER,
                        &animation_data.clip_poses,
                    ),
                    (
                        5,
                        vk::DescriptorType::STORAGE_BUFFER,
                        &animation_data.skeleton,
                    ),
                    (6, vk::DescriptorType::STORAGE_BUFFER, &visible),
                    (7, vk::DescriptorType::STORAGE_BUFFER, &draw_commands),
                    (8, vk::DescriptorType::STORAGE_BUFFER, &skinning_transforms),
                ],
            );
            let sets = allocate_sets(
                ctx,
                descriptor_pool,
                scene_layout,
                if desc.cpu_skinning { 2 } else { 1 },
            )?;
            debug::set_name(ctx, sets[0], &format!("frame {slot} scene set"));
            write_scene_set(
                ctx,
                sets[0],
                &skinning_transforms,
                &instances,
                &uniforms,
                &visible,
            );
            let identity_scene_set = cpu_skinning.as_ref().map(|cpu| {
                debug::set_name(
                    ctx,
                    sets[1],
                    &format!("frame {slot} scene set, identity transforms"),
                );
                write_scene_set(
                    ctx,
                    sets[1],
                    &cpu.identity_transforms,
                    &instances,
                    &uniforms,
                    &cpu.all_instances,
                );
                sets[1]
            });
            frames.push(FrameData {
                uniforms,
                skinning_transforms,
                instance_animation,
                instances_version: None,
                visible,
                draw_commands,
                visible_readback,
                cpu_skinned,
                compute_set,
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
            animation: desc.animation,
            scene_layout,
            texture_layout,
            compute_layout,
            pipeline_layout,
            compute_pipeline_layout,
            descriptor_pool,
            sampler,
            cull,
            animate,
            crowd,
            overlay,
            model: gpu_model,
            animation_data,
            texture_sets,
            instances,
            instance_count,
            draw_command_template,
            cpu_skinning,
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

    /// Device memory in the buffers this renderer and its model hold
    /// (textures and targets not counted).
    pub fn buffer_bytes(&self) -> u64 {
        let frames: u64 = self
            .frames
            .iter()
            .flat_map(|f| {
                [
                    &f.uniforms,
                    &f.skinning_transforms,
                    &f.instance_animation,
                    &f.visible,
                    &f.draw_commands,
                    &f.visible_readback,
                ]
                .into_iter()
                .chain(&f.cpu_skinned)
            })
            .map(|b| b.size)
            .sum();
        let cpu_skinning = self
            .cpu_skinning
            .as_ref()
            .map_or(0, |c| c.identity_transforms.size + c.all_instances.size);
        let animation = &self.animation_data;
        frames
            + cpu_skinning
            + self.instances.size
            + self.draw_command_template.size
            + animation.clip_poses.size
            + animation.clips.size
            + animation.skeleton.size
            + self.model.buffer_bytes()
    }

    /// How many instances the cull pass kept in frame slot `slot`'s last
    /// frame; call after waiting for the slot's fence.
    pub fn visible_count(&self, slot: usize) -> u32 {
        bytemuck::pod_read_unaligned(&self.frames[slot].visible_readback.read()[..4])
    }

    /// The skinning transforms frame slot `slot` drew with (GPU animation
    /// writes them only for visible instances); call after waiting for the
    /// slot's fence. For tests comparing the GPU with the CPU reference.
    pub fn read_skinning_transforms(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<SkinningTransform>, GpuError> {
        let source = &self.frames[slot].skinning_transforms;
        resources::read_buffer(ctx, source)
    }

    /// The instance ids frame slot `slot` found visible, in slot order.
    pub fn read_visible_instances(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        let words: Vec<u32> = resources::read_buffer(ctx, &self.frames[slot].visible)?;
        let count = (words[0] as usize).min(words.len() - 1);
        Ok(words[1..=count].to_vec())
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
        if frame.instances_version != Some(input.instances_version) {
            assert_eq!(
                input.instances.len(),
                self.instance_count as usize,
                "one state per instance"
            );
            frame.instance_animation.write(input.instances);
            frame.instances_version = Some(input.instances_version);
        }
        match (self.animation, input.skinning_transforms) {
            (Animation::Cpu, Some(transforms)) => frame.skinning_transforms.write(transforms),
            (Animation::Gpu | Animation::Off, None) => {}
            _ => panic!("skinning transforms must be given exactly with CPU animation"),
        }
        match (&mut frame.cpu_skinned, input.cpu_skinned) {
            (Some(buffer), Some(vertices)) => buffer.write(vertices),
            (None, None) => {}
            _ => panic!(
                "CPU-skinned vertices must be given exactly when the renderer was made for them"
            ),
        }
        let frame = &self.frames[slot];

        let constants = CrowdComputeConstants {
            instance_count: self.instance_count,
            joint_count: self.model.joint_count,
            clip_count: self.animation_data.clip_count,
            draw_command_count: self.model.draws.len() as u32 + 1,
        };
        // Query pools are reset outside any rendering scope, before first use.
        self.profiler.begin_frame(ctx, cmd, slot);
        record_reset(ctx, cmd, frame, &self.draw_command_template);
        unsafe {
            ctx.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.compute_pipeline_layout,
                0,
                &[frame.compute_set],
                &[],
            );
        }
        let scope = self.profiler.begin(ctx, cmd, "cull");
        cull::record_cull(
            ctx,
            cmd,
            &self.cull,
            self.compute_pipeline_layout,
            constants,
        );
        self.profiler.end(ctx, cmd, scope);
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (
                Stage::COMPUTE_SHADER | Stage::DRAW_INDIRECT | Stage::VERTEX_SHADER | Stage::COPY,
                Access::SHADER_STORAGE_READ | Access::INDIRECT_COMMAND_READ | Access::TRANSFER_READ,
            ),
        );
        if self.animation == Animation::Gpu {
            let scope = self.profiler.begin(ctx, cmd, "animate");
            animate::record_animate(
                ctx,
                cmd,
                &self.animate,
                self.compute_pipeline_layout,
                constants,
            );
            self.profiler.end(ctx, cmd, scope);
            memory_barrier(
                ctx,
                cmd,
                (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
                (Stage::VERTEX_SHADER, Access::SHADER_STORAGE_READ),
            );
        }
        record_visible_count_readback(ctx, cmd, frame);

        let (crowd_set, surface) = match (&frame.cpu_skinned, frame.identity_scene_set) {
            (Some(vertices), Some(identity_set)) => (
                identity_set,
                Surface::CpuSkinned {
                    vertices: vertices.handle,
                    instance_count: self.instance_count,
                },
            ),
            _ => (
                frame.scene_set,
                Surface::BindPose {
                    draw_commands: frame.draw_commands.handle,
                },
            ),
        };
        let skinning_mode = match self.animation {
            Animation::Off => SkinningMode::Off,
            Animation::Gpu | Animation::Cpu => input.skinning_mode,
        };
        let draw_constants = DrawConstants::new(self.model.joint_count, skinning_mode);

        let _scene = debug::label(ctx, cmd, "scene");
        self.profiler.begin_statistics(ctx, cmd);
        // "draw" includes clearing the targets as the rendering scope opens.
        let draw = self.profiler.begin(ctx, cmd, "draw");
        begin_rendering(ctx, cmd, &self.color, &self.depth);
        pipeline::set_viewport(ctx, cmd, self.extent);
        self.bind_scene_set(ctx, cmd, crowd_set);
        crowd_draw::record_crowd_draw(
            ctx,
            cmd,
            &self.crowd,
            self.pipeline_layout,
            &self.model,
            &self.texture_sets,
            surface,
            draw_constants,
            input.wireframe,
        );
        self.profiler.end(ctx, cmd, draw);
        if input.show_skeleton && self.animation != Animation::Off {
            let overlay = self.profiler.begin(ctx, cmd, "overlay");
            if crowd_set != frame.scene_set {
                self.bind_scene_set(ctx, cmd, frame.scene_set);
            }
            skeleton_overlay::record_skeleton_overlay(
                ctx,
                cmd,
                &self.overlay,
                self.pipeline_layout,
                &self.model,
                (
                    frame.draw_commands.handle,
                    self.model.draws.len() as u64 * DRAW_COMMAND_SIZE,
                ),
                draw_constants,
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
            for buffer in [
                frame.uniforms,
                frame.skinning_transforms,
                frame.instance_animation,
                frame.visible,
                frame.draw_commands,
                frame.visible_readback,
            ] {
                resources::destroy_buffer(ctx, buffer);
            }
            if let Some(buffer) = frame.cpu_skinned {
                resources::destroy_buffer(ctx, buffer);
            }
        }
        if let Some(cpu) = self.cpu_skinning {
            resources::destroy_buffer(ctx, cpu.identity_transforms);
            resources::destroy_buffer(ctx, cpu.all_instances);
        }
        resources::destroy_buffer(ctx, self.instances);
        resources::destroy_buffer(ctx, self.draw_command_template);
        resources::destroy_image(ctx, self.color);
        resources::destroy_image(ctx, self.depth);
        gpu_model::destroy_model(ctx, self.model);
        animation_data::destroy_animation_data(ctx, self.animation_data);
        cull::destroy_cull(ctx, self.cull);
        animate::destroy_animate(ctx, self.animate);
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
                .destroy_pipeline_layout(self.compute_pipeline_layout, None);
            for layout in [self.scene_layout, self.texture_layout, self.compute_layout] {
                ctx.device.destroy_descriptor_set_layout(layout, None);
            }
        }
    }
}

/// Vulkan buffers cannot be empty: a crowd of none still gets one slot.
fn instances_len(instance_count: u32) -> usize {
    (instance_count as usize).max(1)
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

/// Zeroes the visible count and the draw commands' instance counts: what
/// cull.comp accumulates into with atomics.
fn record_reset(ctx: &Context, cmd: vk::CommandBuffer, frame: &FrameData, template: &Buffer) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "reset counts");
    unsafe {
        ctx.device
            .cmd_fill_buffer(cmd, frame.visible.handle, 0, size_of::<u32>() as u64, 0);
        let region = vk::BufferCopy::default().size(template.size);
        ctx.device
            .cmd_copy_buffer(cmd, template.handle, frame.draw_commands.handle, &[region]);
    }
    memory_barrier(
        ctx,
        cmd,
        (Stage::CLEAR | Stage::COPY, Access::TRANSFER_WRITE),
        (
            Stage::COMPUTE_SHADER,
            Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
        ),
    );
}

fn record_visible_count_readback(ctx: &Context, cmd: vk::CommandBuffer, frame: &FrameData) {
    use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
    let region = vk::BufferCopy::default().size(size_of::<u32>() as u64);
    unsafe {
        ctx.device.cmd_copy_buffer(
            cmd,
            frame.visible.handle,
            frame.visible_readback.handle,
            &[region],
        );
    }
    memory_barrier(
        ctx,
        cmd,
        (Stage::COPY, Access::TRANSFER_WRITE),
        (Stage::HOST, Access::HOST_READ),
    );
}
