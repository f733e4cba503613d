//! Impostor atlases, baked at load on the GPU: per model, an image of it
//! from each view direction ([`crowd::view_direction`]) at each baked frame
//! ([`crowd::bake_poses`]), laid out as [`ImpostorLayout`] says, mip-mapped.
//!
//! The bake draws a small crowd with the crowd's own skinning: crowd.vert,
//! its vertex streams and the model's material sets. Each instance is one
//! cell: posed at its row's frame (its pose source points at a row of bake
//! poses), turned so its cell's view direction faces the bake camera, and
//! placed where its cell lies in the atlas, which an orthographic camera per
//! ring of elevation covers. impostor_bake.frag keeps the albedo under each
//! skin (a pass per skin), then the normal and depth (one more pass); the
//! mips are box-filtered blits, so every cell stays inside its own texels.
//! The light is not baked: impostor.frag lights the normals as the crowd
//! turns, and applies tints.

use super::memory::{DeviceMemory, MemoryReport};
use super::texture;
use std::time::Instant;

use ash::vk;
use glam::{Mat4, Vec3, Vec4};

use super::descriptors::{self, Resource, Sampling, SetLayout};
use super::gpu_model::{GpuModel, ModelPart};
use super::guard::{guard, Destroy};
use super::passes::crowd_draw;
use super::pipeline::{self, Depth, GraphicsPipelineDesc, ShaderStage, TargetFormats};
use super::resources::{self, Buffer, Image, ImageBarrier, ImageDesc};
use super::shader_types::{CrowdInstance, DrawConstants, FrameUniforms, VisibleHeader, MAX_SKINS};
use super::shaders::spirv;
use super::targets::TARGET_FORMATS;
use super::{debug, vk_error, Context, GpuError};
use crate::crowd::{self, ImpostorLayout, IMPOSTOR_AZIMUTHS, IMPOSTOR_RINGS};
use crate::model::Model;
use crate::skin::SkinningMethod;

/// Albedo and coverage: sRGB, so the mips average in linear light.
const ALBEDO_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
/// The normal in the view's frame and the depth along it, x * 0.5 + 0.5.
const NORMAL_DEPTH_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// One model's atlas.
pub struct ImpostorAtlas {
    pub layout: ImpostorLayout,
    /// Per skin: albedo (rgb) and coverage (alpha), rgb premultiplied.
    albedo: Vec<Image>,
    /// Normal (rgb) and depth (alpha), premultiplied by the coverage.
    normal_depth: Image,
    /// Seconds the bake took, start to finish.
    pub bake_seconds: f64,
}

impl Destroy for ImpostorAtlas {
    fn destroy(self, ctx: &Context) {
        self.albedo.destroy(ctx);
        self.normal_depth.destroy(ctx);
    }
}

/// Every model's atlas, and the sets impostor.frag reads them through.
pub struct ImpostorAtlases {
    pub atlases: Vec<ImpostorAtlas>,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    /// `sets[m]`: model m's atlas, set 1 of the impostor draw.
    pub sets: Vec<vk::DescriptorSet>,
}

impl DeviceMemory for ImpostorAtlases {
    fn memory(&self) -> MemoryReport {
        let images = self
            .atlases
            .iter()
            .flat_map(|a| a.albedo.iter().chain([&a.normal_depth]));
        MemoryReport::impostor_atlases(images)
    }
}

impl Destroy for ImpostorAtlases {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.sampler.destroy(ctx);
        self.atlases.destroy(ctx);
    }
}

/// What the bake borrows of the models' resources.
pub struct BakeInputs<'a> {
    pub gpu_model: &'a GpuModel,
    pub scene_layout: &'a SetLayout,
    /// Scene + material: crowd.vert's and impostor_bake.frag's sets.
    pub draw_pipeline_layout: vk::PipelineLayout,
    pub material_sets: &'a [vk::DescriptorSet],
    /// Set 1 of the impostor draw: one model's atlas.
    pub atlas_layout: &'a SetLayout,
}

/// Bakes every model's atlas and writes the sets that sample them.
pub fn bake_atlases(
    ctx: &Context,
    inputs: &BakeInputs,
    models: &[Model],
) -> Result<ImpostorAtlases, GpuError> {
    let mut atlases = guard(ctx, Vec::with_capacity(models.len()));
    for (part, model) in inputs.gpu_model.parts.iter().zip(models) {
        let atlas = bake_atlas(ctx, inputs, part, model)?;
        log::info!(
            "impostors: {}: {} views x {} frames of {} texels, {:.1} MiB, baked in {:.2} s",
            part.name,
            atlas.layout.views(),
            atlas.layout.frames(),
            crowd::IMPOSTOR_CELL_TEXELS,
            atlas.layout.bytes() as f64 / f64::from(1 << 20),
            atlas.bake_seconds
        );
        atlases.push(atlas);
    }
    let sampler = guard(ctx, descriptors::create_sampler(ctx, Sampling::Diffuse)?);
    let pool = guard(
        ctx,
        descriptors::create_pool(
            ctx,
            "impostor atlas descriptor pool",
            &[(inputs.atlas_layout, atlases.len() as u32)],
        )?,
    );
    let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
    let sets = atlases
        .iter()
        .zip(&inputs.gpu_model.parts)
        .map(|(atlas, part)| {
            // Elements past the skins repeat the first: every descriptor
            // of the array must be valid.
            let albedo = (0..MAX_SKINS)
                .map(|skin| atlas.albedo.get(skin).unwrap_or(&atlas.albedo[0]))
                .collect();
            descriptors::create_set(
                ctx,
                *pool,
                inputs.atlas_layout,
                &format!("impostor atlas: {}", part.name),
                &[
                    ("albedo_maps", Resource::Textures(albedo, *sampler, read)),
                    (
                        "normal_depth_map",
                        Resource::Texture(&atlas.normal_depth, *sampler, read),
                    ),
                ],
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ImpostorAtlases {
        atlases: atlases.keep(),
        sampler: sampler.keep(),
        pool: pool.keep(),
        sets,
    })
}

fn bake_atlas(
    ctx: &Context,
    inputs: &BakeInputs,
    part: &ModelPart,
    model: &Model,
) -> Result<ImpostorAtlas, GpuError> {
    let started = Instant::now();
    let layout = part.impostor;
    let (width, height) = layout.extent();
    let name = &part.name;
    let image = |label: &str, format, usage, mip_levels| {
        let desc = ImageDesc {
            extent: vk::Extent2D { width, height },
            format,
            usage,
            mip_levels,
            swizzle: vk::ComponentMapping::default(),
        };
        resources::create_image(ctx, &format!("impostor {label}: {name}"), &desc)
    };
    use vk::ImageUsageFlags as Usage;
    let usage =
        Usage::COLOR_ATTACHMENT | Usage::SAMPLED | Usage::TRANSFER_SRC | Usage::TRANSFER_DST;
    let mips = layout.mip_levels();
    let mut albedo = guard(ctx, Vec::with_capacity(layout.skins as usize));
    for skin in 0..layout.skins {
        let label = format!("albedo, skin {skin}");
        albedo.push(image(&label, ALBEDO_FORMAT, usage, mips)?);
    }
    let normal_depth = guard(
        ctx,
        image("normal and depth", NORMAL_DEPTH_FORMAT, usage, mips)?,
    );
    let depth = guard(
        ctx,
        image(
            "bake depth",
            TARGET_FORMATS.depth,
            Usage::DEPTH_STENCIL_ATTACHMENT,
            1,
        )?,
    );
    // Rendering writes level 0 only, through views of it alone.
    let mut views = guard(ctx, Vec::with_capacity(albedo.len() + 1));
    for image in albedo.iter().chain([&*normal_depth]) {
        views.push(level_0_view(ctx, image)?);
    }
    let crowd = guard(ctx, BakeCrowd::new(ctx, inputs, model, &layout, name)?);
    let pipeline = guard(ctx, bake_pipeline(ctx, inputs, &layout)?);
    let normal_depth_view = views[albedo.len()];
    resources::submit_and_wait(ctx, "impostor bake", |cmd| {
        let _label = debug::label(ctx, cmd, &format!("impostor bake: {name}"));
        // Level 0 was just rendered; the mips average it down to a texel a cell.
        let record_mips = |ctx, cmd, atlas| {
            texture::record_mip_chain(
                ctx,
                cmd,
                atlas,
                (
                    vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                    vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                ),
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            )
        };
        // A pass per skin, each rewriting the same normals and depths.
        for (skin, (atlas, &view)) in albedo.iter().zip(views.iter()).enumerate() {
            let pass = BakePass {
                targets: [(atlas, view), (&normal_depth, normal_depth_view)],
                pipeline: *pipeline,
                skin: skin as u32,
            };
            record_bake_pass(ctx, cmd, inputs, part, &crowd, &depth, &pass, &layout);
            record_mips(ctx, cmd, atlas);
        }
        record_mips(ctx, cmd, &normal_depth);
    })?;
    Ok(ImpostorAtlas {
        layout,
        albedo: albedo.keep(),
        normal_depth: normal_depth.keep(),
        bake_seconds: started.elapsed().as_secs_f64(),
    })
}

/// One pass of the bake: a skin's albedo and the normals and depths, each
/// drawn into its level 0 (the view).
struct BakePass<'a> {
    targets: [(&'a Image, vk::ImageView); 2],
    pipeline: vk::Pipeline,
    /// The skin whose instances draw it.
    skin: u32,
}

fn level_0_view(ctx: &Context, image: &Image) -> Result<vk::ImageView, GpuError> {
    let info = vk::ImageViewCreateInfo::default()
        .image(image.handle)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(image.format)
        .subresource_range(resources::subresource_range(image.format, 0, 1));
    ctx.creation_step("vkCreateImageView")?;
    let view = unsafe { ctx.device.create_image_view(&info, None) }
        .map_err(vk_error("vkCreateImageView"))?;
    debug::set_name(ctx, view, "impostor bake target view");
    Ok(view)
}

/// The bake's crowd: an instance per cell and skin, its pose rows, and a
/// scene set per ring of elevation (each with its camera).
struct BakeCrowd {
    buffers: Vec<Buffer>,
    pool: vk::DescriptorPool,
    /// `sets[ring]`.
    sets: Vec<vk::DescriptorSet>,
    /// Instances per ring and skin: a cell per azimuth and row.
    per_ring: u32,
}

impl Destroy for BakeCrowd {
    fn destroy(self, ctx: &Context) {
        self.pool.destroy(ctx);
        self.buffers.destroy(ctx);
    }
}

impl BakeCrowd {
    fn new(
        ctx: &Context,
        inputs: &BakeInputs,
        model: &Model,
        layout: &ImpostorLayout,
        name: &str,
    ) -> Result<BakeCrowd, GpuError> {
        use vk::BufferUsageFlags as Usage;
        let joints = model.skeleton.joint_count() as u32;
        let rows = layout.frames();
        let per_ring = IMPOSTOR_AZIMUTHS * rows;
        let placements = bake_placements(layout);
        let count = placements.len() as u32;
        let mut visible = bytemuck::bytes_of(&VisibleHeader::default()).to_vec();
        visible.extend(bytemuck::cast_slice(&(0..count).collect::<Vec<u32>>()));
        // Instance i shows row (i / AZIMUTHS) % rows.
        let sources: Vec<u32> = (0..count)
            .map(|i| (i / IMPOSTOR_AZIMUTHS) % rows * joints)
            .collect();
        let poses = crowd::bake_poses(layout, &model.skeleton, &model.clips);
        let storage = Usage::STORAGE_BUFFER;
        let mut buffers = guard(ctx, Vec::new());
        let mut buffer = |label: &str, usage, data: &[u8]| -> Result<usize, GpuError> {
            let name = format!("impostor bake {label}: {name}");
            buffers.push(resources::create_buffer_with_data(ctx, &name, usage, data)?);
            Ok(buffers.len() - 1)
        };
        let poses = buffer("poses", storage, bytemuck::cast_slice(&poses))?;
        let instances = buffer("instances", storage, bytemuck::cast_slice(&placements))?;
        let visible = buffer("visible instances", storage, &visible)?;
        let sources = buffer("pose sources", storage, bytemuck::cast_slice(&sources))?;
        let mut frames = Vec::with_capacity(IMPOSTOR_RINGS as usize);
        for ring in 0..IMPOSTOR_RINGS {
            let camera = ring_camera(layout, ring);
            let uniforms = FrameUniforms {
                view_projection: camera,
                cull_view_projection: camera,
                ..FrameUniforms::default()
            };
            let label = format!("camera, ring {ring}");
            frames.push(buffer(
                &label,
                Usage::UNIFORM_BUFFER,
                bytemuck::bytes_of(&uniforms),
            )?);
        }
        let pool = guard(
            ctx,
            descriptors::create_pool(
                ctx,
                &format!("impostor bake descriptor pool: {name}"),
                &[(inputs.scene_layout, IMPOSTOR_RINGS)],
            )?,
        );
        let sets = frames
            .iter()
            .enumerate()
            .map(|(ring, &frame)| {
                // The bake's crowd.vert reads no shared pose and no model:
                // those bindings get the pose rows.
                descriptors::create_set(
                    ctx,
                    *pool,
                    inputs.scene_layout,
                    &format!("impostor bake scene set, ring {ring}: {name}"),
                    &[
                        ("SkinningTransforms", Resource::Buffer(&buffers[poses])),
                        ("Instances", Resource::Buffer(&buffers[instances])),
                        ("Frame", Resource::Buffer(&buffers[frame])),
                        ("VisibleInstances", Resource::Buffer(&buffers[visible])),
                        ("PoseSources", Resource::Buffer(&buffers[sources])),
                        ("SharedPoses", Resource::Buffer(&buffers[poses])),
                        ("Models", Resource::Buffer(&buffers[poses])),
                    ],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(BakeCrowd {
            pool: pool.keep(),
            buffers: buffers.keep(),
            sets,
            per_ring,
        })
    }
}

/// The bake camera of ring `ring`, looking along the ring's view at azimuth
/// 0 (crowd::view_direction), orthographic over the whole atlas: a cell is
/// the model's sphere's diameter square, column c and row r (from the top)
/// centred at ((c + 0.5) * d) along its right and -(r + 0.5) * d along its
/// up. Depth runs from 0 at the sphere's far side to 1 at its near side
/// (reverse Z, as every pass here).
fn ring_camera(layout: &ImpostorLayout, ring: u32) -> Mat4 {
    let towards = crowd::view_direction(ring * IMPOSTOR_AZIMUTHS);
    let right = Vec3::Y;
    let up = towards.cross(right);
    let (width, height) = layout.extent();
    let texel = 2.0 * layout.sphere.radius / crowd::IMPOSTOR_CELL_TEXELS as f32;
    let (width, height) = (width as f32 * texel, height as f32 * texel);
    Mat4::from_cols(
        Vec4::new(
            2.0 / width * right.x,
            -2.0 / height * up.x,
            0.5 / layout.sphere.radius * towards.x,
            0.0,
        ),
        Vec4::new(
            2.0 / width * right.y,
            -2.0 / height * up.y,
            0.5 / layout.sphere.radius * towards.y,
            0.0,
        ),
        Vec4::new(
            2.0 / width * right.z,
            -2.0 / height * up.z,
            0.5 / layout.sphere.radius * towards.z,
            0.0,
        ),
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
    )
}

/// Every cell's instance, skin after skin, ring after ring, row after row,
/// azimuth after azimuth: turned by minus its azimuth, so its view faces
/// its ring's camera, and moved so its sphere's centre is its cell's.
fn bake_placements(layout: &ImpostorLayout) -> Vec<CrowdInstance> {
    let rows = layout.frames();
    let cell = 2.0 * layout.sphere.radius;
    let centre = layout.sphere.centre;
    let mut placements = Vec::new();
    for skin in 0..layout.skins {
        for ring in 0..IMPOSTOR_RINGS {
            let towards = crowd::view_direction(ring * IMPOSTOR_AZIMUTHS);
            let (right, up) = (Vec3::Y, towards.cross(Vec3::Y));
            for row in 0..rows {
                for azimuth in 0..IMPOSTOR_AZIMUTHS {
                    let column = ring * IMPOSTOR_AZIMUTHS + azimuth;
                    let yaw = -(azimuth as f32) * std::f32::consts::TAU / IMPOSTOR_AZIMUTHS as f32;
                    let target =
                        (column as f32 + 0.5) * cell * right - (row as f32 + 0.5) * cell * up;
                    let (sin, cos) = yaw.sin_cos();
                    let turned = Vec3::new(
                        centre.x * cos - centre.y * sin,
                        centre.x * sin + centre.y * cos,
                        centre.z,
                    );
                    placements.push(CrowdInstance {
                        placement: (target - turned).extend(yaw),
                        tint: Vec3::ONE,
                        skin,
                        model: 0,
                        padding: [0; 3],
                    });
                }
            }
        }
    }
    placements
}

/// The bake's pipeline: crowd.vert with every influence, and
/// impostor_bake.frag writing albedo and normal-and-depth. No face is
/// culled: the orthographic cameras need not keep md5's winding.
fn bake_pipeline(
    ctx: &Context,
    inputs: &BakeInputs,
    layout: &ImpostorLayout,
) -> Result<vk::Pipeline, GpuError> {
    let limit = inputs.gpu_model.limit;
    let (bindings, attributes) = crowd_draw::vertex_input(limit);
    let influences = limit.count() as u32;
    let vertex_constants = pipeline::constant_0(&influences);
    let fragment_constants = pipeline::constant_0(&layout.skins);
    pipeline::create_graphics_pipeline(
        ctx,
        &GraphicsPipelineDesc {
            name: "impostor bake",
            layout: inputs.draw_pipeline_layout,
            vertex_shader: ShaderStage {
                name: "crowd.vert",
                spirv: spirv::CROWD_VERT,
                specialization: Some(&vertex_constants),
            },
            fragment_shader: ShaderStage {
                name: "impostor_bake.frag",
                spirv: spirv::IMPOSTOR_BAKE_FRAG,
                specialization: Some(&fragment_constants),
            },
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::CLOCKWISE,
            depth: Depth::TestAndWrite,
            alpha_blend: false,
            formats: TargetFormats {
                color: ALBEDO_FORMAT,
                second_color: Some(NORMAL_DEPTH_FORMAT),
                depth: TARGET_FORMATS.depth,
            },
        },
    )
}

/// The level each mesh is baked at: the coarsest whose error stays within
/// the impostor's own, which the image could not show anyway.
fn bake_level(part: &ModelPart, layout: &ImpostorLayout) -> usize {
    part.lod_errors
        .iter()
        .rposition(|&error| error <= layout.error())
        .unwrap_or(0)
}

#[allow(clippy::too_many_arguments)]
fn record_bake_pass(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    inputs: &BakeInputs,
    part: &ModelPart,
    crowd: &BakeCrowd,
    depth: &Image,
    pass: &BakePass,
    layout: &ImpostorLayout,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let device = &ctx.device;
    let model = inputs.gpu_model;
    let tests = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    let color_write = (
        Stage::COLOR_ATTACHMENT_OUTPUT,
        Access::COLOR_ATTACHMENT_WRITE,
    );
    // Written by the last pass (the normals), or new.
    for (image, _) in pass.targets {
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: image.handle,
                range: resources::subresource_range(image.format, 0, 1),
                src: color_write,
                dst: color_write,
                old_layout: Layout::UNDEFINED,
                new_layout: Layout::COLOR_ATTACHMENT_OPTIMAL,
            },
        );
    }
    // The last pass's depth is cleared away.
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: depth.handle,
            range: resources::subresource_range(depth.format, 0, 1),
            src: (tests, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
            dst: (
                tests,
                Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
        },
    );
    let color_attachments = pass.targets.map(|(_, view)| {
        vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue::default())
    });
    let depth_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(depth.view)
        .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(vk::ClearValue::default());
    let extent = pass.targets[0].0.extent;
    let info = vk::RenderingInfo::default()
        .render_area(extent.into())
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    let level = bake_level(part, layout);
    let instances = crowd.per_ring * IMPOSTOR_RINGS * layout.skins;
    let constants = DrawConstants::new(Some(SkinningMethod::Linear), instances, false);
    unsafe {
        ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info);
        pipeline::set_viewport(ctx, cmd, extent);
        device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pass.pipeline);
        device.cmd_push_constants(
            cmd,
            inputs.draw_pipeline_layout,
            vk::ShaderStageFlags::VERTEX,
            0,
            bytemuck::bytes_of(&constants),
        );
        device.cmd_bind_vertex_buffers(cmd, 0, &[model.surface.handle], &[0]);
        device.cmd_bind_vertex_buffers(cmd, 1, &[model.skin.handle], &[0]);
        if let Some(extra) = &model.extra_influences {
            device.cmd_bind_vertex_buffers(cmd, 2, &[extra.handle], &[0]);
        }
        device.cmd_bind_index_buffer(cmd, model.indices.handle, 0, vk::IndexType::UINT32);
    }
    let draws = part.first_draw as usize..(part.first_draw + part.draw_count) as usize;
    for ring in 0..IMPOSTOR_RINGS {
        let first_instance = (pass.skin * IMPOSTOR_RINGS + ring) * crowd.per_ring;
        unsafe {
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                inputs.draw_pipeline_layout,
                0,
                &[crowd.sets[ring as usize]],
                &[],
            );
        }
        for index in draws.clone() {
            let draw = &model.draws[index];
            let range = draw.lods[level.min(draw.lods.len() - 1)];
            unsafe {
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    inputs.draw_pipeline_layout,
                    1,
                    &[inputs.material_sets[index]],
                    &[],
                );
                device.cmd_draw_indexed(
                    cmd,
                    range.index_count,
                    crowd.per_ring,
                    range.first_index,
                    draw.vertex_offset,
                    first_instance,
                );
            }
        }
    }
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> ImpostorLayout {
        let posed = crate::bounds::Bounds {
            min: Vec3::new(-20.0, -30.0, 0.0),
            max: Vec3::new(22.0, 26.0, 70.0),
        };
        ImpostorLayout::new(4, 2, posed)
    }

    /// Where the bake camera of `ring` puts a world point, in atlas texels
    /// (x right, y down) and depth.
    fn texel(layout: &ImpostorLayout, ring: u32, world: Vec3) -> Vec3 {
        let (width, height) = layout.extent();
        let ndc = ring_camera(layout, ring).project_point3(world);
        Vec3::new(
            (ndc.x * 0.5 + 0.5) * width as f32,
            (ndc.y * 0.5 + 0.5) * height as f32,
            ndc.z,
        )
    }

    #[test]
    fn every_cell_sees_its_instance_from_its_view_upright_and_unmirrored() {
        let layout = layout();
        let placements = bake_placements(&layout);
        let rows = layout.frames();
        assert_eq!(
            placements.len() as u32,
            layout.views() * rows * layout.skins
        );
        let cell = crowd::IMPOSTOR_CELL_TEXELS as f32;
        let sphere = layout.sphere;
        for (index, placed) in placements.iter().enumerate() {
            let index = index as u32;
            let azimuth = index % IMPOSTOR_AZIMUTHS;
            let row = index / IMPOSTOR_AZIMUTHS % rows;
            let ring = index / (IMPOSTOR_AZIMUTHS * rows) % IMPOSTOR_RINGS;
            let view = ring * IMPOSTOR_AZIMUTHS + azimuth;
            let instance = crowd::Instance {
                position: placed.placement.truncate(),
                yaw: placed.placement.w,
                ..crowd::Instance::settled(0, 0.0)
            };
            let world = |p: Vec3| {
                let (sin, cos) = instance.yaw.sin_cos();
                instance.position + Vec3::new(p.x * cos - p.y * sin, p.x * sin + p.y * cos, p.z)
            };
            // The sphere's centre: the cell's centre, at mid depth.
            let centre = texel(&layout, ring, world(sphere.centre));
            let expected = Vec3::new((view as f32 + 0.5) * cell, (row as f32 + 0.5) * cell, 0.5);
            assert!(
                (centre - expected).abs().max_element() < 1e-2,
                "{centre} {expected}"
            );
            // The point towards the view's eye: nearest, and in the middle.
            let direction = crowd::view_direction(view);
            let near = texel(
                &layout,
                ring,
                world(sphere.centre + direction * sphere.radius),
            );
            assert!((near - expected - Vec3::Z * 0.5).abs().max_element() < 1e-2);
            // Up stays up (the top of the cell, y down), and the model's
            // left, seen from the view, is on the cell's left.
            let top = texel(
                &layout,
                ring,
                world(sphere.centre + Vec3::Z * sphere.radius),
            );
            assert!(top.y < centre.y);
            let right = Vec3::new(-direction.y, direction.x, 0.0).normalize();
            let side = texel(&layout, ring, world(sphere.centre + right * sphere.radius));
            assert!(side.x > centre.x + cell * 0.45, "{side} {centre}");
        }
    }
}
