//! What lives as long as the crowd size: the buffers [`crowd_buffers`]
//! describes, made and filled, and the descriptor sets that point at them
//! (made in `crowd_sets`). Resizing the crowd rebuilds this and nothing
//! else.

use super::memory::{DeviceMemory, MemoryReport};
use ash::vk;

use super::crowd_buffers::{crowd_buffers, CrowdBuffer, CrowdBufferDesc, CrowdShape};
use super::crowd_sets::{create_pool, SlotSets};
use super::descriptors::{self, Resource};
use super::frame::FrameSlot;
use super::guard::{guard, Destroy};
use super::model_resources::ModelResources;
use super::passes::animate::Kernel;
use super::resources::{self, Buffer};
use super::shader_types::{
    CrowdInstance, CrowdModel, GpuAgentLane, GpuLocomotionTable, SkinningTransform, VisibleHeader,
    MAX_MODELS,
};
use super::shadow_map::ShadowMap;
use super::{Context, GpuError};
use crate::skin::MAX_LODS;

pub use super::crowd_sets::{CrowdSlotSets, ViewSets};

/// What agents.comp reads: the table every agent of a model shares, per
/// model, and a lane per instance (see `crowd::agents`).
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdAgents {
    pub tables: Vec<GpuLocomotionTable>,
    pub lanes: Vec<GpuAgentLane>,
}

/// The crowd-sized buffers and the descriptor sets that point at them.
pub struct CrowdResources {
    pub shape: CrowdShape,
    /// How the animate pass poses this crowd (chosen for its size).
    pub animate_kernel: Kernel,
    /// Per model, its part of the crowd (what the `Models` buffer holds).
    pub models: Vec<CrowdModel>,
    /// The agents' lanes; `None`: locomotion has nothing to play (the
    /// agent pass is never recorded). Kept to rebuild this crowd.
    pub agents: Option<CrowdAgents>,
    /// Per description of [`crowd_buffers`]: its copies (one per frame
    /// slot, or one).
    buffers: Vec<CrowdBufferCopies>,
    pool: vk::DescriptorPool,
    pub slots: Vec<CrowdSlotSets>,
}

impl CrowdResources {
    /// The buffers of a crowd of `shape` standing at `placements`, filled,
    /// and each frame slot's sets pointing at them and at the renderer's
    /// shadow map; `shape` is the renderer's ([`CrowdShape::of`] its
    /// model), `animate_kernel` the one chosen for this crowd's size.
    pub fn new(
        ctx: &Context,
        (model, frame_slots, shadow_map): (&ModelResources, &[FrameSlot], &ShadowMap),
        placements: &[CrowdInstance],
        agents: Option<&CrowdAgents>,
        shape: CrowdShape,
        animate_kernel: Kernel,
        palette_start_bytes: u64,
    ) -> Result<CrowdResources, GpuError> {
        if let Some(agents) = agents.filter(|a| a.lanes.len() != placements.len()) {
            return Err(GpuError::FrameMismatch(format!(
                "{} agent lanes for a crowd of {}",
                agents.lanes.len(),
                placements.len()
            )));
        }
        let models = crowd_models(model, placements)?;
        let buffers = guard(
            ctx,
            create_buffers(ctx, &shape, placements.len() as u32, palette_start_bytes)?,
        );
        let contents = Contents {
            placements,
            models: &models,
            agents,
            joint_count: shape.joint_count,
        };
        for copies in buffers.iter() {
            if let Some(bytes) = contents.of(copies.desc.buffer) {
                let buffer = &copies.copies[0];
                resources::upload_to_buffer(ctx, copies.desc.name, buffer, &bytes)?;
            }
        }
        let pool = guard(ctx, create_pool(ctx, model, frame_slots.len(), &shape)?);
        let slots = frame_slots
            .iter()
            .enumerate()
            .map(|(slot, frame)| {
                let crowd = |which, view| {
                    view_copy_of(&buffers, which, slot, view).expect("the crowd has it")
                };
                let sets = SlotSets {
                    pool: *pool,
                    model,
                    frame,
                    slot,
                    shadow_map,
                };
                sets.create(ctx, &shape, crowd)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CrowdResources {
            shape,
            animate_kernel,
            models,
            agents: agents.cloned(),
            buffers: buffers.keep(),
            pool: pool.keep(),
            slots,
        })
    }

    /// `which`'s copy for frame slot `slot`; `None` when this crowd has no
    /// such buffer (CPU skinning's extras).
    pub fn buffer(&self, which: CrowdBuffer, slot: usize) -> Option<&Buffer> {
        copy_of(&self.buffers, which, slot)
    }

    /// Shadow cascade `cascade`'s copy of `which` (a buffer with one per
    /// cascade) for frame slot `slot`.
    pub fn cascade_buffer(
        &self,
        which: CrowdBuffer,
        slot: usize,
        cascade: usize,
    ) -> Option<&Buffer> {
        view_copy_of(&self.buffers, which, slot, cascade)
    }

    pub fn buffer_mut(&mut self, which: CrowdBuffer, slot: usize) -> Option<&mut Buffer> {
        let copies = self.buffers.iter_mut().find(|b| b.desc.buffer == which)?;
        let copy = copies.index(slot, 0);
        copies.copies.get_mut(copy)
    }

    /// Whether the agent pass writes the instance animation this frame
    /// (the CPU's copy is then uploaded only for the models that stand,
    /// see [`CrowdResources::walks`]).
    pub fn agents_walk(&self, on: bool) -> bool {
        on && self.agents.is_some()
    }

    /// Whether agents.comp walks model `model`'s instances: it has agents
    /// and the model has gaits. The others stand as the CPU put them.
    pub fn walks(&self, model: usize) -> bool {
        self.agents
            .as_ref()
            .and_then(|agents| agents.tables.get(model))
            .is_some_and(|table| table.gait_count > 0)
    }

    /// Every model's instances together.
    pub fn instance_count(&self) -> u32 {
        self.models.iter().map(|m| m.instance_count).sum()
    }

    /// Where the instances stand without locomotion, read back from the
    /// `Placements` buffer, with the agents' homes where the agent pass
    /// moved them: what builds this crowd again (the window falls back to
    /// it when a bigger one does not fit after all). Call while the GPU is
    /// idle.
    pub fn read_home_placements(&self, ctx: &Context) -> Result<Vec<CrowdInstance>, GpuError> {
        let buffer = self
            .buffer(CrowdBuffer::Placements, 0)
            .expect("every crowd has placements");
        let mut placements: Vec<CrowdInstance> = resources::read_buffer(ctx, buffer)?;
        placements.truncate(self.instance_count() as usize);
        if let Some(agents) = &self.agents {
            for (placement, lane) in placements.iter_mut().zip(&agents.lanes) {
                placement.placement = lane.home;
            }
        }
        Ok(placements)
    }

    /// Joint transforms of every instance: the most a palette may need.
    pub fn transform_count(&self) -> u32 {
        self.models
            .iter()
            .map(|m| m.instance_count * m.joint_count)
            .sum()
    }

    /// Rows slot `slot`'s skinning palette holds now; `None` without one
    /// (CPU animation: a row per instance).
    pub fn palette_rows(&self, slot: usize) -> Option<u32> {
        let CrowdBufferCopies { desc, copies } = self.buffers.iter().find(|b| b.desc.palette)?;
        let rows = (copies[slot].size - desc.header_bytes) / desc.row_bytes();
        Some(rows as u32)
    }

    /// Gives slot `slot`'s palette room for `wanted` rows when it has
    /// fewer: the power of two above (so a crowd coming into view grows it
    /// a few times at most), at most every instance's joints. It never shrinks.
    /// The slot must be idle (its fence waited): its buffer is replaced and
    /// its sets rewritten. The new buffer is made first, so a failure
    /// leaves the slot as it was. Returns the rows when it grew.
    pub fn grow_palette(
        &mut self,
        ctx: &Context,
        model: &ModelResources,
        slot: usize,
        wanted: u32,
    ) -> Result<Option<u32>, GpuError> {
        let most = self.transform_count();
        let wanted = wanted.min(most);
        let rows = match self.palette_rows(slot) {
            Some(rows) if rows < wanted => wanted
                .checked_next_power_of_two()
                .map_or(most, |rows| rows.min(most)),
            _ => return Ok(None),
        };
        let CrowdBufferCopies { desc, copies } = self
            .buffers
            .iter_mut()
            .find(|b| b.desc.palette)
            .expect("palette_rows found it");
        let palette = create_copy(ctx, desc, (slot, 0), rows)?;
        // Every view's sets name the palette by its block in the shaders.
        let sets = &self.slots[slot];
        let views = std::iter::once((sets.compute, sets.scene))
            .chain(sets.shadow.iter().map(|view| (view.compute, view.scene)));
        for (set, layout) in views.flat_map(|(compute, scene)| {
            [
                (compute, &model.compute_layout),
                (scene, &model.scene_layout),
            ]
        }) {
            descriptors::write_set(
                ctx,
                set,
                layout,
                &[("SkinningTransforms", Resource::Buffer(&palette))],
            );
        }
        std::mem::replace(&mut copies[slot], palette).destroy(ctx);
        Ok(Some(rows))
    }

    /// The bytes the buffers were asked for: the fit check's figure
    /// ([`super::crowd_buffers::crowd_bytes`]) once every palette holds the
    /// crowd. The device charges a little more ([`DeviceMemory::memory`]):
    /// each allocation's alignment.
    pub fn requested_bytes(&self) -> u64 {
        self.buffers
            .iter()
            .flat_map(|b| &b.copies)
            .map(|b| b.size)
            .sum()
    }
}

/// What the buffers take now, as the allocator charged them.
impl DeviceMemory for CrowdResources {
    fn memory(&self) -> MemoryReport {
        MemoryReport::buffers(self.buffers.iter().flat_map(|b| &b.copies))
    }
}

impl Destroy for CrowdResources {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.buffers.destroy(ctx);
    }
}

/// The crowd's [`CrowdModel`] table: each model's data in the shared
/// buffers, and its instances, which `placements` must hold sorted by
/// model.
fn crowd_models(
    resources: &ModelResources,
    placements: &[CrowdInstance],
) -> Result<Vec<CrowdModel>, GpuError> {
    let parts = &resources.model.parts;
    let mut counts = vec![0u32; parts.len()];
    let mut previous = 0;
    for placement in placements {
        let model = placement.model as usize;
        if model >= parts.len() || model < previous {
            return Err(GpuError::FrameMismatch(format!(
                "an instance of model {model} in a crowd of {} models, or out of model order",
                parts.len()
            )));
        }
        counts[model] += 1;
        previous = model;
    }
    let (mut first_instance, mut first_transform) = (0, 0);
    Ok(parts
        .iter()
        .zip(&resources.animation.models)
        .zip(counts)
        .map(|((part, clips), instance_count)| {
            let errors = |row: usize| {
                glam::Vec4::from_array(std::array::from_fn(|i| {
                    part.lod_errors.get(row * 4 + i).copied().unwrap_or(0.0)
                }))
            };
            let crowd_model = CrowdModel {
                joint_count: part.joint_count,
                first_joint: part.first_joint,
                clip_count: clips.clip_count,
                lod_count: part.lod_count,
                part_count: clips.part_count,
                first_instance,
                instance_count,
                first_draw: part.first_draw,
                draw_count: part.draw_count,
                first_transform,
                first_clip: clips.first_clip,
                first_layer_mask: clips.first_layer_mask,
                lod_errors: [errors(0), errors(1)],
                impostor_sphere: part
                    .impostor
                    .sphere
                    .centre
                    .extend(part.impostor.sphere.radius),
                impostor_half_size: part.impostor.half_size.extend(clips.layered_radius),
            };
            first_instance += instance_count;
            first_transform += instance_count * part.joint_count;
            crowd_model
        })
        .collect())
}

/// The copy of `desc`'s buffer for frame slot `slot` (the one copy, when
/// not per frame slot) and view `view`, with room for `rows` rows.
fn create_copy(
    ctx: &Context,
    desc: &CrowdBufferDesc,
    (slot, view): (usize, usize),
    rows: u32,
) -> Result<Buffer, GpuError> {
    let mut name = desc.name.to_owned();
    if desc.per_frame_slot {
        name += &format!(", frame {slot}");
    }
    if desc.views > 1 || desc.buffer == CrowdBuffer::ShadowVisibleInstances {
        name += &format!(", cascade {view}");
    }
    resources::create_buffer(ctx, &name, desc.size(rows), desc.usage, desc.location)
}

/// A description of [`crowd_buffers`] and its copies: one per frame slot,
/// or one.
struct CrowdBufferCopies {
    desc: CrowdBufferDesc,
    copies: Vec<Buffer>,
}

impl CrowdBufferCopies {
    /// Which copy frame slot `slot` uses for view `view`.
    fn index(&self, slot: usize, view: usize) -> usize {
        let slot = if self.desc.per_frame_slot { slot } else { 0 };
        slot * self.desc.views as usize + view
    }
}

impl Destroy for CrowdBufferCopies {
    fn destroy(self, ctx: &Context) {
        self.copies.destroy(ctx);
    }
}

/// `which`'s copy for frame slot `slot`, if the crowd has that buffer.
fn copy_of(buffers: &[CrowdBufferCopies], which: CrowdBuffer, slot: usize) -> Option<&Buffer> {
    view_copy_of(buffers, which, slot, 0)
}

/// `which`'s copy for frame slot `slot` and view `view`.
fn view_copy_of(
    buffers: &[CrowdBufferCopies],
    which: CrowdBuffer,
    slot: usize,
    view: usize,
) -> Option<&Buffer> {
    let copies = buffers.iter().find(|b| b.desc.buffer == which)?;
    if view >= copies.desc.views as usize {
        return None;
    }
    copies.copies.get(copies.index(slot, view))
}

/// Every buffer of [`crowd_buffers`], at the rows a new crowd of
/// `instance_count` starts with; all freed when one fails.
fn create_buffers(
    ctx: &Context,
    shape: &CrowdShape,
    instance_count: u32,
    palette_start_bytes: u64,
) -> Result<Vec<CrowdBufferCopies>, GpuError> {
    let mut buffers = guard(ctx, Vec::new());
    for desc in crowd_buffers(shape) {
        let mut copies = guard(ctx, Vec::new());
        for copy in 0..desc.copies() as usize {
            let rows = desc.initial_rows(instance_count, palette_start_bytes);
            let views = desc.views as usize;
            copies.push(create_copy(ctx, &desc, (copy / views, copy % views), rows)?);
        }
        buffers.push(CrowdBufferCopies {
            desc,
            copies: copies.keep(),
        });
    }
    Ok(buffers.keep())
}

/// What a new crowd's buffers start with, where the GPU does not write it
/// first.
struct Contents<'a> {
    placements: &'a [CrowdInstance],
    models: &'a [CrowdModel],
    agents: Option<&'a CrowdAgents>,
    joint_count: u32,
}

impl Contents<'_> {
    /// The bytes uploaded into `which` (its one copy); `None`: nothing.
    fn of(&self, which: CrowdBuffer) -> Option<Vec<u8>> {
        let instance_count = self.placements.len() as u32;
        match which {
            CrowdBuffer::Placements => Some(bytemuck::cast_slice(self.placements).to_vec()),
            CrowdBuffer::Models => Some(bytemuck::cast_slice(self.models).to_vec()),
            CrowdBuffer::AgentLanes => self.agents.map(|agents| {
                let mut tables = agents.tables.clone();
                tables.resize(MAX_MODELS, bytemuck::Zeroable::zeroed());
                let mut bytes = bytemuck::cast_slice(&tables).to_vec();
                bytes.extend_from_slice(bytemuck::cast_slice(&agents.lanes));
                bytes
            }),
            CrowdBuffer::IdentityTransforms => {
                let identity = vec![
                    SkinningTransform::from(crate::anim::JointPose::IDENTITY);
                    (instance_count.max(1) * self.joint_count) as usize
                ];
                Some(bytemuck::cast_slice(&identity).to_vec())
            }
            // Nobody was visible before the first frame: it draws everyone late.
            CrowdBuffer::Visibility => Some(vec![0; 4 * instance_count.max(1) as usize]),
            CrowdBuffer::AllInstances => {
                // Every instance at level 0, in order.
                let mut header = VisibleHeader::default();
                for (m, crowd_model) in self.models.iter().enumerate() {
                    header.lod_counts[m * MAX_LODS] = crowd_model.instance_count;
                }
                let ids: Vec<u32> = (0..instance_count).collect();
                let mut all = bytemuck::bytes_of(&header).to_vec();
                all.extend_from_slice(bytemuck::cast_slice(&ids));
                Some(all)
            }
            CrowdBuffer::InstanceAnimation
            | CrowdBuffer::InstanceLayers
            | CrowdBuffer::SkinningTransforms
            | CrowdBuffer::VisibleInstances
            | CrowdBuffer::ShadowVisibleInstances
            | CrowdBuffer::ShadowPoseSources
            | CrowdBuffer::ShadowImpostorCells
            | CrowdBuffer::PoseSources
            | CrowdBuffer::ImpostorCells
            | CrowdBuffer::MorphWeights
            | CrowdBuffer::CpuSkinnedVertices => None,
        }
    }
}
