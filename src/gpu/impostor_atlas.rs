//! Impostor atlases, baked on the GPU when the crowd first wants them:
//! per model, images of it from each view direction
//! ([`crowd::view_direction`]) at each frame of the clips it holds, a layer
//! (a slot, [`ImpostorLayout::slots`]) per clip, mip-mapped.
//!
//! Nothing is baked at load, so the first frame never waits. cull.comp
//! reads a slot table (a slot per clip of the clip table, or
//! [`IMPOSTOR_UNBAKED`]) and flags each clip an instance wanted as an
//! impostor; the flags come back with the frame's slot, and
//! [`crowd::AtlasSlots`] turns them into bakes: [`ImpostorAtlases::plan`]
//! takes at most [`BAKE_TRIANGLES_PER_FRAME`] of them a frame and
//! [`ImpostorAtlases::record`] draws them (passes::impostor_bake) ahead of
//! the frame's culls. A slot's mips are built, and the table names its
//! clip, in the frame its last unit is drawn; until then its instances are
//! meshes at their coarsest level.

use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::descriptors::{self, Resource, Sampling, SetLayout};
use super::gpu_model::ModelPart;
use super::guard::{guard, Destroy};
use super::memory::{DeviceMemory, MemoryReport};
use super::passes::impostor_bake::{
    self, BakeCrowd, BakeInputs, SlotPoses, SlotTargets, UNITS_PER_SLOT,
};
use super::resources::{self, memory_barrier, Buffer, Image, ImageBarrier};
use super::shader_types::MAX_SKINS;
use super::shadow_map::ShadowMap;
use super::texture;
use super::{debug, Context, GpuError};
use crate::anim::{Clip, Skeleton};
use crate::crowd::{self, AtlasImage, AtlasSlots, BakeUnits, ImpostorLayout, IMPOSTOR_UNBAKED};
use crate::model::Model;

mod create;

/// Triangles the bakes of one frame may draw, every model together (at
/// least one unit is drawn when any is wanted): on lavapipe about 0.1 s of
/// a frame, on a GPU well under a millisecond. The shipped character's
/// clip (36 units of 16 cells at 762 triangles) takes a frame.
pub const BAKE_TRIANGLES_PER_FRAME: u64 = 1 << 19;

/// One model's atlas, and what fills it.
pub struct ImpostorAtlas {
    pub layout: ImpostorLayout,
    /// The images of `layout.images()`, in its order, a layer per slot,
    /// every value premultiplied by the coverage: per skin albedo (rgb) and
    /// coverage (alpha), the normal (rgb) and depth (alpha), then the
    /// surfaces and emission where kept.
    images: Vec<Image>,
    /// Per image, per slot: a view of level 0 of the slot's layer, what the
    /// bake renders into.
    slot_views: Vec<Vec<vk::ImageView>>,
    bake: BakeCrowd,
    /// Which clips the slots hold and which are wanted.
    pub slots: AtlasSlots,
    /// What the bake poses are sampled from.
    skeleton: Skeleton,
    clips: Vec<Clip>,
    /// The model's morph weights where its clips have none.
    morph_defaults: Vec<f32>,
    name: String,
    /// The slot being baked: the frame and time its bake began.
    baking_since: Option<(u64, Instant)>,
}

impl Destroy for ImpostorAtlas {
    fn destroy(self, ctx: &Context) {
        self.slot_views.into_iter().flatten().for_each(|view| {
            unsafe { ctx.device.destroy_image_view(view, None) };
        });
        self.bake.destroy(ctx);
        self.images.destroy(ctx);
    }
}

impl ImpostorAtlas {
    /// The image that keeps `kind`, if the atlas keeps it.
    fn image(&self, kind: AtlasImage) -> Option<&Image> {
        let index = self.layout.images().iter().position(|&k| k == kind)?;
        Some(&self.images[index])
    }
}

/// Every model's atlas, the sets impostor.frag reads them through, and the
/// tables cull.comp reads and writes.
pub struct ImpostorAtlases {
    pub atlases: Vec<ImpostorAtlas>,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    /// `sets[m]`: model m's atlas, set 1 of the impostor draw.
    pub sets: Vec<vk::DescriptorSet>,
    /// Per clip of the clip table, its slot or [`IMPOSTOR_UNBAKED`].
    pub slot_table: Buffer,
    /// Per clip of the clip table, nonzero when an instance wanted it as
    /// an impostor this frame; copied to the frame slot's readback.
    pub requests: Buffer,
    /// Per model, its first clip in the clip table.
    first_clips: Vec<u32>,
}

impl DeviceMemory for ImpostorAtlases {
    fn memory(&self) -> MemoryReport {
        let images = self.atlases.iter().flat_map(|a| &a.images);
        self.atlases.iter().map(|a| a.bake.memory()).fold(
            MemoryReport::impostor_atlases(images)
                + MemoryReport::buffers([&self.slot_table, &self.requests]),
            |sum, bake| sum + bake,
        )
    }
}

impl Destroy for ImpostorAtlases {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.sampler.destroy(ctx);
        self.atlases.destroy(ctx);
        self.slot_table.destroy(ctx);
        self.requests.destroy(ctx);
    }
}

/// What a frame bakes: units of slots, model by model, and the slot table
/// once they are drawn.
#[derive(Default)]
pub struct BakePlan {
    steps: Vec<BakeStep>,
    /// Per clip of the clip table, its slot or [`IMPOSTOR_UNBAKED`].
    table: Vec<u32>,
}

struct BakeStep {
    model: usize,
    units: BakeUnits,
    /// The slot's pose rows and weights, when these are its first units.
    poses: Option<SlotPoses>,
}

impl BakePlan {
    /// Units baked this frame, every model together.
    pub fn units(&self) -> u32 {
        self.steps.iter().map(|s| s.units.units.len() as u32).sum()
    }
}

impl ImpostorAtlases {
    /// Every model's atlas, unbaked, and the sets that sample them.
    pub fn new(
        ctx: &Context,
        inputs: &BakeInputs,
        (scene, atlas_layout): ((&SetLayout, &ShadowMap), &SetLayout),
        models: &[Model],
    ) -> Result<ImpostorAtlases, GpuError> {
        let mut atlases = guard(ctx, Vec::with_capacity(models.len()));
        for (part, model) in inputs.gpu_model.parts.iter().zip(models) {
            let atlas = ImpostorAtlas::new(ctx, inputs, scene, part, model)?;
            let layout = atlas.layout;
            log::info!(
                "impostors: {}: {} slot(s) of {} frames x {} views for {} clip(s), {:.1} MiB; \
                 nothing baked at start: a clip is baked when the crowd first wants it, \
                 {} triangles a unit of {}, up to {} a frame",
                part.name,
                layout.slots,
                layout.frames_per_clip,
                layout.views(),
                layout.clip_count,
                layout.bytes() as f64 / f64::from(1 << 20),
                atlas.bake.unit_triangles,
                UNITS_PER_SLOT,
                BAKE_TRIANGLES_PER_FRAME,
            );
            atlases.push(atlas);
        }
        let first_clips = crate::gpu::animation_data::first_clips(models);
        let clip_entries: u32 = atlases.iter().map(|a| a.layout.clip_count).sum();
        let table = vec![IMPOSTOR_UNBAKED; clip_entries.max(1) as usize];
        use vk::BufferUsageFlags as Usage;
        let slot_table = guard(
            ctx,
            resources::create_buffer_with_data(
                ctx,
                "impostor slot table",
                Usage::STORAGE_BUFFER,
                bytemuck::cast_slice(&table),
            )?,
        );
        let requests = guard(
            ctx,
            resources::create_buffer_with_data(
                ctx,
                "impostor requests",
                Usage::STORAGE_BUFFER | Usage::TRANSFER_SRC,
                &vec![0; table.len() * 4],
            )?,
        );
        let sampler = guard(ctx, descriptors::create_sampler(ctx, Sampling::Atlas)?);
        let pool = guard(
            ctx,
            descriptors::create_pool(
                ctx,
                "impostor atlas descriptor pool",
                &[(atlas_layout, atlases.len() as u32)],
            )?,
        );
        let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let sets = atlases
            .iter()
            .map(|atlas| {
                // Elements past the skins repeat the first: every descriptor
                // of the array must be valid.
                let first = atlas.image(AtlasImage::Albedo(0)).expect("a skin");
                let albedo = (0..MAX_SKINS as u32)
                    .map(|skin| atlas.image(AtlasImage::Albedo(skin)).unwrap_or(first))
                    .collect();
                let normal_depth = atlas.image(AtlasImage::NormalDepth).expect("normals");
                // Without surfaces, impostor.frag's pipeline reads neither
                // image, but the descriptors must be valid.
                let kept = |kind| atlas.image(kind).unwrap_or(normal_depth);
                let texture = |image| Resource::Texture(image, *sampler, read);
                descriptors::create_set(
                    ctx,
                    *pool,
                    atlas_layout,
                    &format!("impostor atlas: {}", atlas.name),
                    &[
                        ("albedo_maps", Resource::Textures(albedo, *sampler, read)),
                        ("normal_depth_map", texture(normal_depth)),
                        ("surface_map", texture(kept(AtlasImage::Surface))),
                        ("emission_map", texture(kept(AtlasImage::Emission))),
                    ],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ImpostorAtlases {
            atlases: atlases.keep(),
            sampler: sampler.keep(),
            pool: pool.keep(),
            sets,
            slot_table: slot_table.keep(),
            requests: requests.keep(),
            first_clips,
        })
    }

    /// Bytes of the requests, and of each frame slot's copy of them.
    pub fn requests_bytes(&self) -> u64 {
        self.requests.size
    }

    /// The requests cull.comp left in frame `frame` (a word per clip of
    /// the clip table): each clip flagged is wanted.
    pub fn note_requests(&mut self, words: &[u32], frame: u64) {
        for (atlas, &first) in self.atlases.iter_mut().zip(&self.first_clips) {
            let own = words.iter().skip(first as usize);
            for (clip, &word) in own.take(atlas.layout.clip_count as usize).enumerate() {
                if word != 0 {
                    atlas.slots.want(clip as u32, frame);
                }
            }
        }
    }

    /// What frame `frame` bakes, within [`BAKE_TRIANGLES_PER_FRAME`], and
    /// the slot table its culls read.
    pub fn plan(&mut self, frame: u64) -> BakePlan {
        let mut budget = BAKE_TRIANGLES_PER_FRAME;
        let mut steps = Vec::new();
        for (model, atlas) in self.atlases.iter_mut().enumerate() {
            let cost = atlas.bake.unit_triangles.max(1);
            // The first unit of a frame is drawn whatever it costs.
            while budget > 0 {
                let affordable = (budget / cost).max(u64::from(steps.is_empty()));
                if affordable == 0 {
                    break;
                }
                let Some(units) = atlas.slots.take_units(frame, affordable as u32) else {
                    break;
                };
                budget = budget.saturating_sub(cost * units.units.len() as u64);
                if let Some(evicted) = units.evicted {
                    atlas.log_evicted(&units, evicted);
                }
                let poses = units.starts().then(|| {
                    atlas.baking_since = Some((frame, Instant::now()));
                    atlas.slot_poses(units.clip)
                });
                if units.units.end == UNITS_PER_SLOT {
                    atlas.log_baked(&units, frame);
                }
                steps.push(BakeStep {
                    model,
                    units,
                    poses,
                });
            }
        }
        let table = self.atlases.iter().flat_map(|a| a.slots.table()).collect();
        BakePlan { steps, table }
    }

    /// Clips baked now, and the slots they could fill, every model's
    /// together: the overlay's line.
    pub fn baked_clips(&self) -> (usize, usize) {
        let baked = self.atlases.iter().map(|a| a.slots.baked_clips().count());
        let slots = self.atlases.iter().map(|a| a.layout.slots as usize);
        (baked.sum(), slots.sum())
    }

    /// Records `plan`: the slot table written and the requests cleared
    /// for this frame's culls, then each step's units drawn into its slot,
    /// and the slot's mips once it is whole.
    pub fn record(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        inputs: &BakeInputs,
        plan: &BakePlan,
    ) {
        use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};
        // Last frame's culls read the table and wrote the requests, which
        // its copy read.
        memory_barrier(
            ctx,
            cmd,
            (Stage::COMPUTE_SHADER | Stage::COPY, Access::NONE),
            (Stage::COPY | Stage::CLEAR, Access::TRANSFER_WRITE),
        );
        let table: &[u8] = bytemuck::cast_slice(&plan.table);
        unsafe {
            // vkCmdUpdateBuffer takes at most 65536 bytes a call.
            for (index, chunk) in table.chunks(1 << 16).enumerate() {
                ctx.device.cmd_update_buffer(
                    cmd,
                    self.slot_table.handle,
                    (index << 16) as u64,
                    chunk,
                );
            }
            ctx.device
                .cmd_fill_buffer(cmd, self.requests.handle, 0, vk::WHOLE_SIZE, 0);
        }
        memory_barrier(
            ctx,
            cmd,
            (Stage::COPY | Stage::CLEAR, Access::TRANSFER_WRITE),
            (
                Stage::COMPUTE_SHADER,
                Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
            ),
        );
        for step in &plan.steps {
            let atlas = &self.atlases[step.model];
            let part = &inputs.gpu_model.parts[step.model];
            if let Some(poses) = &step.poses {
                atlas.bake.record_poses(ctx, cmd, poses);
            }
            atlas.record_step(ctx, cmd, inputs, part, &step.units);
        }
    }
}

impl ImpostorAtlas {
    /// What a bake of `clip` into a slot poses its crowd with.
    fn slot_poses(&self, clip: u32) -> SlotPoses {
        let transforms = crowd::bake_poses(&self.layout, &self.skeleton, &self.clips, clip);
        let morph_weights = crowd::bake_morph_weights(
            &self.layout,
            (&self.clips, &self.morph_defaults),
            clip,
            self.bake.instance_count,
            self.bake.morph_stride as usize,
        );
        SlotPoses {
            transforms: bytemuck::cast_slice(&transforms).to_vec(),
            morph_weights: bytemuck::cast_slice(&morph_weights).to_vec(),
        }
    }

    /// One line when a slot is taken from a clip no longer wanted.
    fn log_evicted(&self, units: &BakeUnits, evicted: u32) {
        log::info!(
            "impostors: {}: clip \"{}\" takes slot {} from \"{}\", unwanted for over {} frames",
            self.name,
            self.clip_name(units.clip),
            units.slot,
            self.clip_name(evicted),
            crowd::IDLE_FRAMES_BEFORE_EVICTION,
        );
    }

    fn clip_name(&self, clip: u32) -> &str {
        self.clips
            .get(clip as usize)
            .map_or("bind pose", |c| c.name.as_str())
    }

    /// One line when a slot's last units are planned: which clip, and how
    /// long since its first.
    fn log_baked(&self, units: &BakeUnits, frame: u64) {
        let clip = self.clip_name(units.clip);
        let (frames, seconds) = self.baking_since.map_or((1, 0.0), |(first, at)| {
            (frame - first + 1, at.elapsed().as_secs_f64())
        });
        log::info!(
            "impostors: {}: clip \"{clip}\" baked into slot {} over {frames} frame(s), {seconds:.2} s",
            self.name,
            units.slot
        );
    }

    /// Records one step: the slot's level 0 made a target, its units drawn,
    /// then its mips built once whole, or level 0 made readable again.
    fn record_step(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        inputs: &BakeInputs,
        part: &ModelPart,
        units: &BakeUnits,
    ) {
        use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
        let _label = debug::label(ctx, cmd, &format!("impostor bake: {}", self.name));
        let layer = units.slot;
        let images = &self.images;
        let color = (
            Stage::COLOR_ATTACHMENT_OUTPUT,
            Access::COLOR_ATTACHMENT_WRITE,
        );
        let sampled = (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ);
        let level_0 = |image: &Image, src, dst, old_layout, new_layout| {
            resources::image_barrier(
                ctx,
                cmd,
                &ImageBarrier {
                    image: image.handle,
                    range: resources::layer_range(image.format, 0, 1, layer..layer + 1),
                    src,
                    dst,
                    old_layout,
                    new_layout,
                },
            );
        };
        // The last frames' draws may have sampled it (another clip's).
        for image in images {
            level_0(
                image,
                (Stage::FRAGMENT_SHADER, Access::NONE),
                color,
                Layout::SHADER_READ_ONLY_OPTIMAL,
                Layout::COLOR_ATTACHMENT_OPTIMAL,
            );
        }
        let target = |index: usize| (&images[index], self.slot_views[index][layer as usize]);
        let skins = self.layout.skins as usize;
        let targets = SlotTargets {
            albedo: (0..skins).map(target).collect(),
            shared: (skins..images.len()).map(target).collect(),
        };
        impostor_bake::record_units(ctx, cmd, inputs, (part, &self.bake), &targets, units);
        for image in images {
            if units.units.end == UNITS_PER_SLOT {
                let attachment = Layout::COLOR_ATTACHMENT_OPTIMAL;
                texture::record_mip_chain(ctx, cmd, (image, layer), color, attachment);
            } else {
                level_0(
                    image,
                    color,
                    sampled,
                    Layout::COLOR_ATTACHMENT_OPTIMAL,
                    Layout::SHADER_READ_ONLY_OPTIMAL,
                );
            }
        }
    }
}

/// A frame slot's copy of the requests, read once its fence signals.
pub fn create_requests_readback(
    ctx: &Context,
    slot: usize,
    bytes: u64,
) -> Result<Buffer, GpuError> {
    resources::create_buffer(
        ctx,
        &format!("impostor requests readback, frame {slot}"),
        bytes,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )
}
