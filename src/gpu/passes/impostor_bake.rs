//! The impostor bake: draws one model's clip into a slot of its atlas
//! (gpu::impostor_atlas), a few units a frame, with the crowd's own
//! skinning: crowd.vert, its vertex streams and the model's material sets.
//!
//! A slot is a layer of the atlas's images: a column of cells per view, a
//! row per frame of the clip. The bake's crowd has an instance per cell and
//! skin, posed at its row's frame (its pose source points at a row of bake
//! poses, uploaded when the slot's bake begins), turned so its cell's view
//! direction faces the bake camera, and placed where its cell lies, which
//! an orthographic camera per ring of elevation covers. A unit is one
//! ring's cells of one row: the scissored render area of its rendering
//! scope, so the cells of a slot are baked over as many frames as the
//! budget needs, each cleared as it is drawn. impostor_bake.frag keeps the
//! albedo under each skin (a scope per skin), the normal and depth and,
//! where the model has materials other than Doom 3's, the surface and
//! emission (its `pipelines` module).

use ash::vk;
use glam::{Mat4, Vec3, Vec4};

use crate::crowd::{
    self, BakeUnits, ImpostorLayout, IMPOSTOR_AZIMUTHS, IMPOSTOR_CELL_TEXELS,
    IMPOSTOR_FRAMES_PER_CLIP, IMPOSTOR_RINGS,
};
use crate::gpu::descriptors::{self, Resource, SetLayout};
use crate::gpu::gpu_model::{GpuModel, ModelPart};
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::memory::{DeviceMemory, MemoryReport};
use crate::gpu::pipeline;
use crate::gpu::resources::{self, memory_barrier, Buffer, Image, ImageBarrier, ImageDesc};
use crate::gpu::shader_types::{CrowdInstance, DrawConstants, FrameUniforms, VisibleHeader};
use crate::gpu::shadow_map::ShadowMap;
use crate::gpu::targets::DEPTH_FORMAT;
use crate::gpu::{Context, GpuError};
use crate::model::Model;
use crate::skin::SkinningMethod;

mod pipelines;

pub use pipelines::atlas_format;
use pipelines::BakePipelines;

/// Units of a slot: a ring's cells of a row, every row of every ring.
pub const UNITS_PER_SLOT: u32 = IMPOSTOR_RINGS * IMPOSTOR_FRAMES_PER_CLIP;

/// What the bake borrows of the models' resources.
pub struct BakeInputs<'a> {
    pub gpu_model: &'a GpuModel,
    /// Scene + material: crowd.vert's and impostor_bake.frag's sets.
    pub draw_pipeline_layout: vk::PipelineLayout,
    pub material_sets: &'a [vk::DescriptorSet],
}

/// One model's bake: its crowd of a slot's cells, the poses of the clip
/// being baked, the depth target and the pipeline.
pub struct BakeCrowd {
    buffers: Vec<Buffer>,
    /// Index in `buffers` of the pose rows: a slot's, uploaded when its
    /// bake begins.
    poses: usize,
    /// Index in `buffers` of the instances' morph weights (as the pose
    /// rows, a slot's), `morph_stride` an instance.
    morph_weights: usize,
    /// `GpuModel::morph_stride`: 0, no model has morph targets.
    pub morph_stride: u32,
    pool: vk::DescriptorPool,
    /// `sets[ring]`.
    sets: Vec<vk::DescriptorSet>,
    depth: Image,
    pipelines: BakePipelines,
    /// The level each mesh is baked at.
    level: usize,
    /// Instances of the bake's crowd: one list, level 0's region.
    pub instance_count: u32,
    /// Triangles one unit draws, every skin counted: what the per-frame
    /// budget is spent in.
    pub unit_triangles: u64,
}

impl Destroy for BakeCrowd {
    fn destroy(self, ctx: &Context) {
        self.pipelines.destroy(ctx);
        self.pool.destroy(ctx);
        self.buffers.destroy(ctx);
        self.depth.destroy(ctx);
    }
}

impl DeviceMemory for BakeCrowd {
    fn memory(&self) -> MemoryReport {
        MemoryReport::buffers(&self.buffers) + MemoryReport::impostor_atlases([&self.depth])
    }
}

impl BakeCrowd {
    pub fn new(
        ctx: &Context,
        inputs: &BakeInputs,
        (scene_layout, shadow_map): (&SetLayout, &ShadowMap),
        (part, model): (&ModelPart, &Model),
    ) -> Result<BakeCrowd, GpuError> {
        use vk::BufferUsageFlags as Usage;
        let layout = &part.impostor;
        let name = &part.name;
        let joints = model.skeleton.joint_count() as u32;
        let placements = bake_placements(layout);
        let count = placements.len() as u32;
        let mut visible = bytemuck::bytes_of(&VisibleHeader::default()).to_vec();
        visible.extend(bytemuck::cast_slice(&(0..count).collect::<Vec<u32>>()));
        // Instance i shows row (i / AZIMUTHS) % FRAMES.
        let sources: Vec<u32> = (0..count)
            .map(|i| (i / IMPOSTOR_AZIMUTHS) % IMPOSTOR_FRAMES_PER_CLIP * joints)
            .collect();
        // Until a bake begins, the bind pose: every row valid.
        let poses = crowd::bake_poses(layout, &model.skeleton, &[], 0);
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
        // Until a bake begins, none; Vulkan buffers cannot be empty.
        let morph_stride = inputs.gpu_model.morph_stride;
        let weights = vec![0f32; (count * morph_stride).max(1) as usize];
        let morph_weights = buffer("morph weights", storage, bytemuck::cast_slice(&weights))?;
        let mut frames = Vec::with_capacity(IMPOSTOR_RINGS as usize);
        for ring in 0..IMPOSTOR_RINGS {
            let camera = ring_camera(layout, ring);
            let uniforms = FrameUniforms {
                view_projection: camera,
                morph_stride,
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
                &[(scene_layout, IMPOSTOR_RINGS)],
            )?,
        );
        let sets = frames
            .iter()
            .enumerate()
            .map(|(ring, &frame)| {
                // The bake's crowd.vert reads no shared pose, no model and
                // no impostor cell: those bindings get the pose rows.
                descriptors::create_set(
                    ctx,
                    *pool,
                    scene_layout,
                    &format!("impostor bake scene set, ring {ring}: {name}"),
                    &[
                        ("SkinningTransforms", Resource::Buffer(&buffers[poses])),
                        ("Instances", Resource::Buffer(&buffers[instances])),
                        ("Frame", Resource::Buffer(&buffers[frame])),
                        ("VisibleInstances", Resource::Buffer(&buffers[visible])),
                        ("PoseSources", Resource::Buffer(&buffers[sources])),
                        ("SharedPoses", Resource::Buffer(&buffers[poses])),
                        ("Models", Resource::Buffer(&buffers[poses])),
                        ("ImpostorCells", Resource::Buffer(&buffers[poses])),
                        ("MorphWeights", Resource::Buffer(&buffers[morph_weights])),
                        (
                            "MorphRanges",
                            Resource::Buffer(&inputs.gpu_model.morph_ranges),
                        ),
                        (
                            "MorphEntries",
                            Resource::Buffer(&inputs.gpu_model.morph_entries),
                        ),
                        ("shadow_map", shadow_map.texture()),
                    ],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (width, height) = layout.extent();
        let depth = guard(
            ctx,
            resources::create_image(
                ctx,
                &format!("impostor bake depth: {name}"),
                &ImageDesc {
                    extent: vk::Extent2D { width, height },
                    format: DEPTH_FORMAT,
                    usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                    mip_levels: 1,
                    swizzle: vk::ComponentMapping::default(),
                    array_layers: None,
                    samples: vk::SampleCountFlags::TYPE_1,
                },
            )?,
        );
        let draws = &inputs.gpu_model.draws[part.first_draw as usize..][..part.draw_count as usize];
        let pipelines = guard(ctx, BakePipelines::new(ctx, inputs, layout, draws)?);
        let level = bake_level(part, layout);
        let triangles: u64 = draws
            .iter()
            .map(|draw| u64::from(draw.lods[level.min(draw.lods.len() - 1)].index_count / 3))
            .sum();
        Ok(BakeCrowd {
            unit_triangles: triangles * u64::from(IMPOSTOR_AZIMUTHS * layout.skins),
            level,
            instance_count: count,
            pipelines: pipelines.keep(),
            depth: depth.keep(),
            pool: pool.keep(),
            buffers: buffers.keep(),
            sets,
            poses,
            morph_weights,
            morph_stride,
        })
    }

    /// Records the upload of a slot's pose rows and morph weights when its
    /// bake begins: after the last bake's draws read them, before this
    /// one's do.
    pub fn record_poses(&self, ctx: &Context, cmd: vk::CommandBuffer, poses: &SlotPoses) {
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        memory_barrier(
            ctx,
            cmd,
            (Stage::VERTEX_SHADER, Access::NONE),
            (Stage::COPY, Access::TRANSFER_WRITE),
        );
        for (buffer, bytes) in [
            (self.poses, &poses.transforms),
            (self.morph_weights, &poses.morph_weights),
        ] {
            // vkCmdUpdateBuffer takes at most 65536 bytes a call.
            for (index, chunk) in bytes.chunks(1 << 16).enumerate() {
                let handle = self.buffers[buffer].handle;
                unsafe {
                    ctx.device
                        .cmd_update_buffer(cmd, handle, (index << 16) as u64, chunk);
                }
            }
        }
        memory_barrier(
            ctx,
            cmd,
            (Stage::COPY, Access::TRANSFER_WRITE),
            (Stage::VERTEX_SHADER, Access::SHADER_STORAGE_READ),
        );
    }
}

/// What a slot's bake poses its crowd with: the skinning transforms of
/// its rows, and each instance's morph weights.
pub struct SlotPoses {
    pub transforms: Vec<u8>,
    pub morph_weights: Vec<u8>,
}

/// The images a slot is baked into: level 0 of its layer of each skin's
/// albedo, and of the atlas's other images (the normals and depths, then
/// the surfaces and emission where kept), and a view of each.
pub struct SlotTargets<'a> {
    pub albedo: Vec<(&'a Image, vk::ImageView)>,
    /// Written by every skin's scope: the last skin's stay, as the normal
    /// maps are per skin (a glTF character, the only kind with surfaces,
    /// has one skin).
    pub shared: Vec<(&'a Image, vk::ImageView)>,
}

/// Records `units` of a slot's bake into `targets`, whose level 0 is a
/// colour attachment: per skin, one rendering scope per ring the units
/// cover, over the rows they cover.
pub fn record_units(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    inputs: &BakeInputs,
    (part, crowd): (&ModelPart, &BakeCrowd),
    targets: &SlotTargets,
    units: &BakeUnits,
) {
    let mut unit = units.units.start;
    while unit < units.units.end {
        let ring = unit / IMPOSTOR_FRAMES_PER_CLIP;
        let first_row = unit % IMPOSTOR_FRAMES_PER_CLIP;
        let rows = (units.units.end - unit).min(IMPOSTOR_FRAMES_PER_CLIP - first_row);
        for (skin, &albedo) in targets.albedo.iter().enumerate() {
            let scope = BakeScope {
                targets: [albedo]
                    .into_iter()
                    .chain(targets.shared.iter().copied())
                    .collect(),
                skin: skin as u32,
                ring,
                rows: first_row..first_row + rows,
            };
            record_scope(ctx, cmd, inputs, (part, crowd), &scope);
        }
        unit += rows;
    }
}

/// One rendering scope of the bake: a skin's albedo and the atlas's other
/// images, of one ring's cells in `rows`.
struct BakeScope<'a> {
    targets: Vec<(&'a Image, vk::ImageView)>,
    skin: u32,
    ring: u32,
    rows: std::ops::Range<u32>,
}

fn record_scope(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    inputs: &BakeInputs,
    (part, crowd): (&ModelPart, &BakeCrowd),
    scope: &BakeScope,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let device = &ctx.device;
    let model = inputs.gpu_model;
    let tests = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
    // The last scope wrote these targets (the normals each time) and the
    // depth, which this one clears.
    memory_barrier(
        ctx,
        cmd,
        (
            Stage::COLOR_ATTACHMENT_OUTPUT,
            Access::COLOR_ATTACHMENT_WRITE,
        ),
        (
            Stage::COLOR_ATTACHMENT_OUTPUT,
            Access::COLOR_ATTACHMENT_WRITE,
        ),
    );
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: crowd.depth.handle,
            range: resources::subresource_range(crowd.depth.format, 0, 1),
            src: (tests, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
            dst: (
                tests,
                Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::DEPTH_ATTACHMENT_OPTIMAL,
        },
    );
    let color_attachments: Vec<vk::RenderingAttachmentInfo> = scope
        .targets
        .iter()
        .map(|&(_, view)| {
            vk::RenderingAttachmentInfo::default()
                .image_view(view)
                .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue::default())
        })
        .collect();
    let depth_attachment = vk::RenderingAttachmentInfo::default()
        .image_view(crowd.depth.view)
        .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(vk::ClearValue::default());
    let cell = IMPOSTOR_CELL_TEXELS;
    // The ring's columns, the rows': all the scope clears and draws.
    let area = vk::Rect2D {
        offset: vk::Offset2D {
            x: (scope.ring * IMPOSTOR_AZIMUTHS * cell) as i32,
            y: (scope.rows.start * cell) as i32,
        },
        extent: vk::Extent2D {
            width: IMPOSTOR_AZIMUTHS * cell,
            height: scope.rows.len() as u32 * cell,
        },
    };
    let info = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&color_attachments)
        .depth_attachment(&depth_attachment);
    let constants = DrawConstants::new(Some(SkinningMethod::Linear), crowd.instance_count, false);
    let per_row = IMPOSTOR_AZIMUTHS;
    let first_instance = ((scope.skin * IMPOSTOR_RINGS + scope.ring) * IMPOSTOR_FRAMES_PER_CLIP
        + scope.rows.start)
        * per_row;
    let instances = scope.rows.len() as u32 * per_row;
    let layout = inputs.draw_pipeline_layout;
    unsafe {
        ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info);
        // The whole slot is the camera's; drawing stays in the area.
        pipeline::set_viewport(ctx, cmd, crowd.depth.extent);
        device.cmd_set_scissor(cmd, 0, &[area]);
        device.cmd_push_constants(
            cmd,
            layout,
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
        device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            &[crowd.sets[scope.ring as usize]],
            &[],
        );
    }
    let mut bound = vk::Pipeline::null();
    for index in part.first_draw as usize..(part.first_draw + part.draw_count) as usize {
        let draw = &model.draws[index];
        let range = draw.lods[crowd.level.min(draw.lods.len() - 1)];
        let wanted = crowd.pipelines.of(draw);
        if wanted != bound {
            bound = wanted;
            unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, wanted) };
        }
        unsafe {
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                1,
                &[inputs.material_sets[index]],
                &[],
            );
            device.cmd_draw_indexed(
                cmd,
                range.index_count,
                instances,
                range.first_index,
                draw.vertex_offset,
                first_instance,
            );
        }
    }
    unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
}

/// The bake camera of ring `ring`, looking along the ring's view at azimuth
/// 0 (crowd::view_direction), orthographic over a whole slot: a cell is the
/// model's sphere's diameter square, column c and row r (from the top)
/// centred at ((c + 0.5) * d) along its right and -(r + 0.5) * d along its
/// up. Depth runs from 0 at the sphere's far side to 1 at its near side
/// (reverse Z, as every pass here).
fn ring_camera(layout: &ImpostorLayout, ring: u32) -> Mat4 {
    let towards = crowd::view_direction(ring * IMPOSTOR_AZIMUTHS);
    let right = Vec3::Y;
    let up = towards.cross(right);
    let (width, height) = layout.extent();
    let texel = 2.0 * layout.sphere.radius / IMPOSTOR_CELL_TEXELS as f32;
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

/// Every cell's instance of a slot, skin after skin, ring after ring, row
/// after row, azimuth after azimuth: turned by minus its azimuth, so its
/// view faces its ring's camera, and moved so its sphere's centre is its
/// cell's.
fn bake_placements(layout: &ImpostorLayout) -> Vec<CrowdInstance> {
    let cell = 2.0 * layout.sphere.radius;
    let centre = layout.sphere.centre;
    let mut placements = Vec::new();
    for skin in 0..layout.skins {
        for ring in 0..IMPOSTOR_RINGS {
            let towards = crowd::view_direction(ring * IMPOSTOR_AZIMUTHS);
            let (right, up) = (Vec3::Y, towards.cross(Vec3::Y));
            for row in 0..IMPOSTOR_FRAMES_PER_CLIP {
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

/// The level each mesh is baked at: the coarsest whose error stays within
/// the impostor's own, which the image could not show anyway.
fn bake_level(part: &ModelPart, layout: &ImpostorLayout) -> usize {
    part.lod_errors
        .iter()
        .rposition(|&error| error <= layout.error())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::IMPOSTOR_MEMORY_BUDGET;

    fn layout() -> ImpostorLayout {
        let posed = crate::bounds::Bounds {
            min: Vec3::new(-20.0, -30.0, 0.0),
            max: Vec3::new(22.0, 26.0, 70.0),
        };
        ImpostorLayout::new(4, (2, false), posed, IMPOSTOR_MEMORY_BUDGET)
    }

    /// Where the bake camera of `ring` puts a world point, in slot texels
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
        let rows = IMPOSTOR_FRAMES_PER_CLIP;
        assert_eq!(
            placements.len() as u32,
            layout.views() * rows * layout.skins
        );
        let cell = IMPOSTOR_CELL_TEXELS as f32;
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

    #[test]
    fn a_units_instances_are_its_rings_cells_of_its_rows() {
        // record_scope's first instance and count, against the placements'
        // order: the ring and rows it draws are the ones its area covers.
        let layout = layout();
        let placements = bake_placements(&layout);
        let ring = 2;
        let rows = 5..9;
        for skin in 0..layout.skins {
            let first = ((skin * IMPOSTOR_RINGS + ring) * IMPOSTOR_FRAMES_PER_CLIP + rows.start)
                * IMPOSTOR_AZIMUTHS;
            let count = rows.len() as u32 * IMPOSTOR_AZIMUTHS;
            for index in first..first + count {
                let placed = placements[index as usize];
                assert_eq!(placed.skin, skin);
                let (sin, cos) = placed.placement.w.sin_cos();
                let c = layout.sphere.centre;
                let turned = Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z);
                let at = texel(&layout, ring, placed.placement.truncate() + turned);
                let cell = (at / IMPOSTOR_CELL_TEXELS as f32).truncate().as_uvec2();
                assert_eq!(cell.x / IMPOSTOR_AZIMUTHS, ring, "{at}");
                assert!(rows.contains(&cell.y), "{at}");
            }
        }
    }
}
