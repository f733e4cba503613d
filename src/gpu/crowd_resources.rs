//! What lives as long as the crowd size: the buffers [`crowd_buffers`]
//! describes, made and filled, and the descriptor sets that point at them.
//! Resizing the crowd rebuilds this and nothing else.

use ash::vk;

use super::crowd_buffers::{crowd_buffers, Animation, CrowdBuffer, CrowdBufferDesc, CrowdShape};
use super::descriptors::{self, Resource};
use super::frame::FrameSlot;
use super::guard::{guard, Destroy};
use super::model_resources::ModelResources;
use super::passes::agents::AgentStep;
use super::passes::animate::Kernel;
use super::resources::{self, Buffer};
use super::shader_types::{
    CrowdInstance, CrowdModel, GpuAgentLane, GpuLocomotionTable, SkinningTransform, VisibleHeader,
    MAX_MODELS,
};
use super::{Context, GpuError};
use crate::skin::MAX_LODS;

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
    pub instance_count: u32,
    /// How the animate pass poses this crowd (chosen for its size).
    pub animate_kernel: Kernel,
    /// Per model, its part of the crowd (what the `Models` buffer holds).
    pub models: Vec<CrowdModel>,
    /// What `Placements` holds, kept to rebuild this crowd (the window
    /// falls back to it when a bigger one does not fit after all).
    pub placements: Vec<CrowdInstance>,
    /// The agents' lanes; `None`: locomotion has nothing to play (the
    /// agent pass is never recorded). Kept to rebuild this crowd.
    pub agents: Option<CrowdAgents>,
    /// The agent pass has moved the instances off `placements`: switching
    /// locomotion off puts them back (agents.comp's `RETURN_HOME`).
    pub placements_moved: bool,
    /// Per description of [`crowd_buffers`]: its copies (one per frame
    /// slot, or one).
    buffers: Vec<(CrowdBufferDesc, Vec<Buffer>)>,
    pool: vk::DescriptorPool,
    pub slots: Vec<CrowdSlotSets>,
}

/// Per frame slot: the descriptor sets of that slot's buffers.
pub struct CrowdSlotSets {
    /// Set 0 of the compute passes.
    pub compute: vk::DescriptorSet,
    /// Set 0 of the draws with this slot's transforms and visible list.
    pub scene: vk::DescriptorSet,
    /// CPU skinning: set 0 for the crowd draw, with identity transforms and
    /// every instance visible.
    pub identity_scene: Option<vk::DescriptorSet>,
    /// Which `FrameInput::instances_version` the slot's instance
    /// animation buffer holds: all of it, or with `walkers_moved` only the
    /// instances of the models that stand.
    pub instances_version: Option<u64>,
    /// The agent pass wrote the walking models' instance animation here.
    pub walkers_moved: bool,
    /// The last frame in the slot, by index, and the skinning palette rows
    /// it wanted: read back when it is done, applied before the slot's
    /// next frame is recorded.
    pub palette_wanted: Option<(u64, u32)>,
}

impl CrowdResources {
    pub fn new(
        ctx: &Context,
        model: &ModelResources,
        frame_slots: &[FrameSlot],
        placements: &[CrowdInstance],
        agents: Option<&CrowdAgents>,
        shape: CrowdShape,
        animate_kernel: Kernel,
    ) -> Result<CrowdResources, GpuError> {
        if let Some(agents) = agents.filter(|a| a.lanes.len() != placements.len()) {
            return Err(GpuError::FrameMismatch(format!(
                "{} agent lanes for a crowd of {}",
                agents.lanes.len(),
                placements.len()
            )));
        }
        let instance_count = placements.len() as u32;
        let models = crowd_models(model, placements)?;
        let mut buffers = guard(ctx, Vec::new());
        for desc in crowd_buffers(&shape) {
            let mut copies = guard(ctx, Vec::new());
            for slot in 0..desc.copies() as usize {
                let rows = desc.initial_rows(instance_count);
                copies.push(create_copy(ctx, &desc, slot, rows)?);
            }
            buffers.push(CrowdBufferCopies(desc, copies.keep()));
        }
        let find = |which: CrowdBuffer| buffers.iter().find(|b| b.0.buffer == which);
        if let Some(b) = find(CrowdBuffer::Placements) {
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], bytemuck::cast_slice(placements))?;
        }
        if let Some(b) = find(CrowdBuffer::Models) {
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], bytemuck::cast_slice(&models))?;
        }
        if let (Some(b), Some(agents)) = (find(CrowdBuffer::AgentLanes), agents) {
            let mut tables = agents.tables.clone();
            tables.resize(MAX_MODELS, bytemuck::Zeroable::zeroed());
            let mut bytes = bytemuck::cast_slice(&tables).to_vec();
            bytes.extend_from_slice(bytemuck::cast_slice(&agents.lanes));
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], &bytes)?;
        }
        if let Some(b) = find(CrowdBuffer::IdentityTransforms) {
            let identity = vec![
                SkinningTransform::from(crate::anim::JointPose::IDENTITY);
                (instance_count.max(1) * shape.joint_count) as usize
            ];
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], bytemuck::cast_slice(&identity))?;
        }
        if let Some(b) = find(CrowdBuffer::Visibility) {
            // Nobody was visible before the first frame: it draws everyone late.
            let nobody = vec![0u32; instance_count.max(1) as usize];
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], bytemuck::cast_slice(&nobody))?;
        }
        if let Some(b) = find(CrowdBuffer::AllInstances) {
            // Every instance at level 0, in order.
            let mut header = VisibleHeader::default();
            for (m, crowd_model) in models.iter().enumerate() {
                header.lod_counts[m * MAX_LODS] = crowd_model.instance_count;
            }
            let ids: Vec<u32> = (0..instance_count).collect();
            let mut all = bytemuck::bytes_of(&header).to_vec();
            all.extend_from_slice(bytemuck::cast_slice(&ids));
            resources::upload_to_buffer(ctx, b.0.name, &b.1[0], &all)?;
        }

        let cpu_skinned = shape.animation == Animation::CpuSkinned;
        let slot_count = frame_slots.len() as u32;
        let pool = guard(
            ctx,
            descriptors::create_pool(
                ctx,
                "crowd descriptor pool",
                &[
                    (&model.compute_layout, slot_count),
                    (
                        &model.scene_layout,
                        slot_count * if cpu_skinned { 2 } else { 1 },
                    ),
                ],
            )?,
        );
        let mut slots = Vec::with_capacity(frame_slots.len());
        for (slot, frame) in frame_slots.iter().enumerate() {
            let crowd = |which| -> &Buffer {
                let (desc, copies) = buffers
                    .iter()
                    .find(|b| b.0.buffer == which)
                    .map(|b| (&b.0, &b.1))
                    .expect("the crowd has this buffer");
                &copies[if desc.per_frame_slot { slot } else { 0 }]
            };
            let animation_data = &model.animation;
            let compute = descriptors::create_set(
                ctx,
                *pool,
                &model.compute_layout,
                &format!("frame {slot} compute set"),
                &[
                    ("Frame", Resource::Buffer(&frame.uniforms)),
                    (
                        "Instances",
                        Resource::Buffer(crowd(CrowdBuffer::Placements)),
                    ),
                    (
                        "InstanceAnimations",
                        Resource::Buffer(crowd(CrowdBuffer::InstanceAnimation)),
                    ),
                    ("Clips", Resource::Buffer(&animation_data.clips)),
                    (
                        "clip_poses",
                        Resource::TexelBuffer(animation_data.clip_poses.view),
                    ),
                    (
                        "ClipFrameBounds",
                        Resource::Buffer(&animation_data.frame_bounds),
                    ),
                    (
                        "skeleton",
                        Resource::TexelBuffer(animation_data.skeleton.view),
                    ),
                    (
                        "VisibleInstances",
                        Resource::Buffer(crowd(CrowdBuffer::VisibleInstances)),
                    ),
                    ("DrawCommands", Resource::Buffer(&frame.draw_commands)),
                    (
                        "Visibility",
                        Resource::Buffer(crowd(CrowdBuffer::Visibility)),
                    ),
                    (
                        "PoseSources",
                        Resource::Buffer(crowd(CrowdBuffer::PoseSources)),
                    ),
                    (
                        "SkinningTransforms",
                        Resource::Buffer(crowd(CrowdBuffer::SkinningTransforms)),
                    ),
                    (
                        "AgentLanes",
                        Resource::Buffer(crowd(CrowdBuffer::AgentLanes)),
                    ),
                    ("Models", Resource::Buffer(crowd(CrowdBuffer::Models))),
                ],
            )?;
            let scene_set = |name: &str, transforms, visible| {
                descriptors::create_set(
                    ctx,
                    *pool,
                    &model.scene_layout,
                    name,
                    &[
                        ("SkinningTransforms", Resource::Buffer(transforms)),
                        (
                            "Instances",
                            Resource::Buffer(crowd(CrowdBuffer::Placements)),
                        ),
                        ("Frame", Resource::Buffer(&frame.uniforms)),
                        ("VisibleInstances", Resource::Buffer(visible)),
                        (
                            "PoseSources",
                            Resource::Buffer(crowd(CrowdBuffer::PoseSources)),
                        ),
                        (
                            "SharedPoses",
                            Resource::Buffer(&model.animation.shared_poses),
                        ),
                    ],
                )
            };
            let scene = scene_set(
                &format!("frame {slot} scene set"),
                crowd(CrowdBuffer::SkinningTransforms),
                crowd(CrowdBuffer::VisibleInstances),
            )?;
            let identity_scene = if cpu_skinned {
                Some(scene_set(
                    &format!("frame {slot} scene set, identity transforms"),
                    crowd(CrowdBuffer::IdentityTransforms),
                    crowd(CrowdBuffer::AllInstances),
                )?)
            } else {
                None
            };
            slots.push(CrowdSlotSets {
                compute,
                scene,
                identity_scene,
                instances_version: None,
                walkers_moved: false,
                palette_wanted: None,
            });
        }
        Ok(CrowdResources {
            shape,
            instance_count,
            animate_kernel,
            models,
            placements: placements.to_vec(),
            agents: agents.cloned(),
            placements_moved: false,
            buffers: buffers.keep().into_iter().map(|b| (b.0, b.1)).collect(),
            pool: pool.keep(),
            slots,
        })
    }

    /// `which`'s copy for frame slot `slot`; `None` when this crowd has no
    /// such buffer (CPU skinning's extras).
    pub fn buffer(&self, which: CrowdBuffer, slot: usize) -> Option<&Buffer> {
        let (desc, copies) = self.buffers.iter().find(|(d, _)| d.buffer == which)?;
        copies.get(if desc.per_frame_slot { slot } else { 0 })
    }

    pub fn buffer_mut(&mut self, which: CrowdBuffer, slot: usize) -> Option<&mut Buffer> {
        let (desc, copies) = self.buffers.iter_mut().find(|(d, _)| d.buffer == which)?;
        copies.get_mut(if desc.per_frame_slot { slot } else { 0 })
    }

    /// What the agent pass does in a frame with locomotion `on`, if
    /// anything: walk, or once after locomotion went off, put everyone
    /// back; none without agents. Notes where that leaves the instances.
    pub fn agent_step(&mut self, on: bool) -> Option<AgentStep> {
        self.agents.as_ref()?;
        let step = match (on, self.placements_moved) {
            (true, _) => AgentStep::Walk,
            (false, true) => AgentStep::ReturnHome,
            (false, false) => return None,
        };
        self.placements_moved = on;
        Some(step)
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
        let (desc, copies) = self.buffers.iter().find(|(d, _)| d.palette)?;
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
        let (desc, copies) = self
            .buffers
            .iter_mut()
            .find(|(d, _)| d.palette)
            .expect("palette_rows found it");
        let palette = create_copy(ctx, desc, slot, rows)?;
        // Both sets name the palette by its block in the shaders.
        let sets = &self.slots[slot];
        for (set, layout) in [
            (sets.compute, &model.compute_layout),
            (sets.scene, &model.scene_layout),
        ] {
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

    /// What the buffers take now, summed from the allocations: at most
    /// [`super::crowd_buffers::crowd_bytes`] (the fit check's figure), less while a palette has
    /// fewer rows than instances.
    pub fn allocated_bytes(&self) -> u64 {
        self.buffers
            .iter()
            .flat_map(|(_, copies)| copies)
            .map(|b| b.size)
            .sum()
    }
}

impl Destroy for CrowdResources {
    fn destroy(self, ctx: &Context) {
        // The pool frees the sets.
        self.pool.destroy(ctx);
        for (_, copies) in self.buffers {
            copies.destroy(ctx);
        }
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
                padding: [0; 2],
                lod_errors: [errors(0), errors(1)],
            };
            first_instance += instance_count;
            first_transform += instance_count * part.joint_count;
            crowd_model
        })
        .collect())
}

/// Copy `slot` of `desc`'s buffer (the one copy, when not per frame slot),
/// with room for `rows` rows.
fn create_copy(
    ctx: &Context,
    desc: &CrowdBufferDesc,
    slot: usize,
    rows: u32,
) -> Result<Buffer, GpuError> {
    let name = if desc.per_frame_slot {
        format!("{}, frame {slot}", desc.name)
    } else {
        desc.name.to_owned()
    };
    resources::create_buffer(ctx, &name, desc.size(rows), desc.usage, desc.location)
}

/// A description and its buffers while they are being made.
struct CrowdBufferCopies(CrowdBufferDesc, Vec<Buffer>);

impl Destroy for CrowdBufferCopies {
    fn destroy(self, ctx: &Context) {
        self.1.destroy(ctx);
    }
}
