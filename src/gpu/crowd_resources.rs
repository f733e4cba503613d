//! What lives as long as the crowd size: every buffer that grows with the
//! instance count, and the descriptor sets that point at them. One list,
//! [`crowd_buffers`], describes those buffers; it alone decides what is
//! allocated ([`CrowdResources::new`]), whether a crowd fits the device
//! ([`check_crowd_fits`], at the size each buffer may reach:
//! [`crowd_bytes`]) and what is allocated now
//! ([`CrowdResources::allocated_bytes`]): they differ by the skinning
//! palette, which starts small and grows with what is drawn. Resizing the
//! crowd rebuilds this and nothing else.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::descriptors::{self, Resource};
use super::frame::{FrameSlot, FRAMES_IN_FLIGHT};
use super::gpu_model;
use super::guard::{guard, Destroy};
use super::model_resources::ModelResources;
use super::passes::agents::AgentStep;
use super::passes::animate::Kernel;
use super::resources::{self, Buffer};
use super::shader_types::{
    CrowdInstance, CrowdModel, GpuAgentLane, GpuLocomotionTable, InstanceAnimation,
    SkinningTransform, SurfaceVertex, VisibleHeader, MAX_MODELS,
};
use super::{Context, GpuError};
use crate::model::Model;
use crate::skin::MAX_LODS;

/// Who poses the crowd; fixed when its buffers are made, since it decides
/// which buffers exist and where they live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Animation {
    /// animate.comp, for the visible instances only.
    #[default]
    Gpu,
    /// `crowd::animate_crowd` on every core, uploaded each frame.
    Cpu,
    /// CPU animation and CPU skinning: the GPU path's yardstick. Vertices
    /// arrive skinned and are drawn through identity transforms.
    CpuSkinned,
    /// Nobody: the crowd stands in its bind pose, unskinned (the
    /// benchmark's ideal; the skeleton overlay is not drawn).
    BindPose,
}

/// The crowd's buffers, one description each (see [`crowd_buffers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrowdBuffer {
    /// Where each instance stands ([`CrowdInstance`]).
    Placements,
    /// Clip, phase, rate and crossfade per instance; rewritten on a clip
    /// switch, or by the agent pass every frame while locomotion is on.
    InstanceAnimation,
    /// A quaternion and a translation per joint: with GPU animation a
    /// palette, a row (transform) per joint of each drawn instance that is
    /// posed on its own (see [`INITIAL_PALETTE_INSTANCES`]); with CPU
    /// animation every instance's, instance-major.
    SkinningTransforms,
    /// cull.comp's output: the counts, then the ids of the visible
    /// instances, a region per level of detail.
    VisibleInstances,
    /// Per instance, where its skinning transforms are: its own rows, or a
    /// shared pose (animation level of detail); written by cull.comp.
    PoseSources,
    /// Per instance, whether it was visible at the end of the last frame:
    /// the early phase of occlusion culling draws those. One copy, as each
    /// frame reads what the one before wrote.
    Visibility,
    /// CPU skinning: identity transforms, as the vertices arrive skinned.
    IdentityTransforms,
    /// CPU skinning: the visible list holding every instance in order.
    AllInstances,
    /// CPU skinning: every instance's skinned surface vertices.
    CpuSkinnedVertices,
    /// agents.comp's input: a locomotion table per model, then a lane per
    /// instance. One copy, written once; every crowd has it, so the fit
    /// check need not know whether locomotion will be switched on.
    AgentLanes,
    /// A [`CrowdModel`] per model: where its data and its instances are.
    Models,
}

/// The instances a skinning palette starts with rows for (fewer for a
/// smaller crowd): about what one view can hold of instances posed on their
/// own. With animation level of detail those project to more than 16 pixels
/// of radius, and some 1100 discs of that size cover a 1280x720 image;
/// crowds up to this size allocate what they always did, and 23 joints take
/// 736 KiB a frame slot where 16384 instances would take 11.5 MiB.
pub const INITIAL_PALETTE_INSTANCES: u32 = 1024;

/// One buffer whose size is proportional to the instance count: rows of
/// each instance, or for a palette, of each instance at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrowdBufferDesc {
    pub buffer: CrowdBuffer,
    pub name: &'static str,
    pub bytes_per_instance: u64,
    /// Rows an instance takes at most: 1, or for a palette the joints of
    /// the largest model (a row is a joint transform).
    pub rows_per_instance: u32,
    /// Bytes before the per-instance ones (the visible list's count).
    pub header_bytes: u64,
    /// One copy per frame in flight, or one in all.
    pub per_frame_slot: bool,
    /// A palette: it starts with rows for [`INITIAL_PALETTE_INSTANCES`]
    /// and grows, up to every instance's, as frames want more
    /// ([`CrowdResources::grow_palette`]). The fit check counts it at its
    /// largest.
    pub palette: bool,
    pub usage: vk::BufferUsageFlags,
    pub location: MemoryLocation,
}

impl CrowdBufferDesc {
    /// Bytes of one copy holding `rows` rows. Vulkan buffers cannot be
    /// empty: a crowd of none still gets room for one.
    pub fn size(&self, rows: u32) -> u64 {
        self.header_bytes + self.row_bytes() * u64::from(rows.max(1))
    }

    pub fn row_bytes(&self) -> u64 {
        self.bytes_per_instance / u64::from(self.rows_per_instance.max(1))
    }

    /// The most rows `instances` take: what the fit check counts.
    pub fn rows_for(&self, instances: u32) -> u32 {
        instances.saturating_mul(self.rows_per_instance)
    }

    /// The rows a new crowd of `instances` allocates.
    pub fn initial_rows(&self, instances: u32) -> u32 {
        if self.palette {
            self.rows_for(instances.min(INITIAL_PALETTE_INSTANCES))
        } else {
            self.rows_for(instances)
        }
    }

    pub fn copies(&self) -> u64 {
        if self.per_frame_slot {
            FRAMES_IN_FLIGHT as u64
        } else {
            1
        }
    }

    /// Bound as a storage buffer, so also capped by maxStorageBufferRange.
    pub fn is_storage(&self) -> bool {
        self.usage.contains(vk::BufferUsageFlags::STORAGE_BUFFER)
    }
}

/// What decides the crowd's buffers besides the instance count. With
/// several models each figure is the largest model's: the fit check counts
/// every instance as that large, whatever the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrowdShape {
    /// The most joints a model has.
    pub joint_count: u32,
    /// The most vertices of a model's drawn meshes: the stride of
    /// CPU-skinned data.
    pub vertex_count: u32,
    /// Levels of detail: the visible lists hold a region per level.
    pub lod_count: u32,
    pub animation: Animation,
}

impl CrowdShape {
    pub fn of(models: &[Model], animation: Animation) -> CrowdShape {
        fn largest(models: &[Model], figure: impl Fn(&Model) -> usize) -> u32 {
            models.iter().map(figure).max().unwrap_or(0) as u32
        }
        let meshes = gpu_model::drawn_meshes;
        CrowdShape {
            joint_count: largest(models, |m| m.skeleton.joint_count()),
            vertex_count: largest(models, |m| meshes(m).map(|m| m.vertex_count()).sum()),
            lod_count: largest(models, |m| {
                meshes(m).map(|m| m.lods.len()).max().unwrap_or(1)
            })
            .clamp(1, MAX_LODS as u32),
            animation,
        }
    }
}

/// Every buffer a crowd of `shape` allocates.
pub fn crowd_buffers(shape: &CrowdShape) -> Vec<CrowdBufferDesc> {
    use vk::BufferUsageFlags as Usage;
    let desc = |buffer, name, bytes_per_instance: usize, per_frame_slot, usage, location| {
        CrowdBufferDesc {
            buffer,
            name,
            bytes_per_instance: bytes_per_instance as u64,
            rows_per_instance: 1,
            header_bytes: 0,
            per_frame_slot,
            palette: false,
            usage,
            location,
        }
    };
    let storage = Usage::STORAGE_BUFFER;
    let transforms = shape.joint_count as usize * size_of::<SkinningTransform>();
    let cpu_animated = matches!(shape.animation, Animation::Cpu | Animation::CpuSkinned);
    let mut buffers = vec![
        desc(
            CrowdBuffer::Placements,
            "crowd instances",
            size_of::<CrowdInstance>(),
            false,
            // A transfer source for the tests that read the agents back.
            storage | Usage::TRANSFER_DST | Usage::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        ),
        desc(
            CrowdBuffer::InstanceAnimation,
            "instance animation",
            size_of::<InstanceAnimation>(),
            true,
            storage | Usage::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        ),
        CrowdBufferDesc {
            // animate.comp writes the rows of the instances cull.comp
            // draws; the CPU uploads every instance's.
            palette: shape.animation == Animation::Gpu,
            rows_per_instance: match shape.animation {
                Animation::Gpu => shape.joint_count.max(1),
                _ => 1,
            },
            ..desc(
                CrowdBuffer::SkinningTransforms,
                "skinning transforms",
                transforms,
                true,
                storage | Usage::TRANSFER_SRC,
                if cpu_animated {
                    MemoryLocation::CpuToGpu
                } else {
                    MemoryLocation::GpuOnly
                },
            )
        },
        // A count per model and level, then a region of instance_count ids
        // per level, then the posed list: the instances cull.comp handed
        // palette rows to, which animate.comp poses (each at most once).
        CrowdBufferDesc {
            header_bytes: VISIBLE_HEADER_BYTES,
            ..desc(
                CrowdBuffer::VisibleInstances,
                "visible instances",
                size_of::<u32>() * (shape.lod_count as usize + 1),
                true,
                storage | Usage::TRANSFER_DST | Usage::TRANSFER_SRC,
                MemoryLocation::GpuOnly,
            )
        },
        desc(
            CrowdBuffer::PoseSources,
            "pose sources",
            size_of::<u32>(),
            true,
            // A transfer source for the tests that read it back.
            storage | Usage::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        ),
        desc(
            CrowdBuffer::Visibility,
            "visibility (last frame)",
            size_of::<u32>(),
            false,
            storage | Usage::TRANSFER_DST | Usage::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        ),
        CrowdBufferDesc {
            header_bytes: (MAX_MODELS * size_of::<GpuLocomotionTable>()) as u64,
            ..desc(
                CrowdBuffer::AgentLanes,
                "agent lanes",
                size_of::<GpuAgentLane>(),
                false,
                storage | Usage::TRANSFER_DST,
                MemoryLocation::GpuOnly,
            )
        },
        CrowdBufferDesc {
            header_bytes: (MAX_MODELS * size_of::<CrowdModel>()) as u64,
            ..desc(
                CrowdBuffer::Models,
                "crowd models",
                0,
                false,
                storage | Usage::TRANSFER_DST,
                MemoryLocation::GpuOnly,
            )
        },
    ];
    if shape.animation == Animation::CpuSkinned {
        let vertices = shape.vertex_count as usize * size_of::<SurfaceVertex>();
        buffers.extend([
            desc(
                CrowdBuffer::IdentityTransforms,
                "identity skinning transforms",
                transforms,
                false,
                storage | Usage::TRANSFER_DST,
                MemoryLocation::GpuOnly,
            ),
            CrowdBufferDesc {
                header_bytes: VISIBLE_HEADER_BYTES,
                ..desc(
                    CrowdBuffer::AllInstances,
                    "visible instances (all)",
                    size_of::<u32>(),
                    false,
                    storage | Usage::TRANSFER_DST,
                    MemoryLocation::GpuOnly,
                )
            },
            desc(
                CrowdBuffer::CpuSkinnedVertices,
                "vertices: CPU-skinned",
                vertices,
                true,
                Usage::VERTEX_BUFFER,
                MemoryLocation::CpuToGpu,
            ),
        ]);
    }
    buffers
}

/// What the visible lists start with: counts, and the palette rows wanted.
pub const VISIBLE_HEADER_BYTES: u64 = size_of::<VisibleHeader>() as u64;

/// Device memory a crowd of `instances` may take, every copy counted and a
/// palette at its largest: what the fit check holds against the device.
pub fn crowd_bytes(shape: &CrowdShape, instances: u32) -> u64 {
    crowd_buffers(shape)
        .iter()
        .map(|b| b.size(b.rows_for(instances)) * b.copies())
        .sum()
}

/// The device's caps on single buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferLimits {
    pub max_buffer_size: u64,
    pub max_storage_buffer_range: u64,
    /// The largest device-local heap, or a smaller budget (a test hook
    /// playing a small GPU).
    pub heap_size: u64,
}

impl BufferLimits {
    pub fn of(ctx: &Context, budget: Option<u64>) -> BufferLimits {
        let properties = unsafe {
            ctx.instance
                .get_physical_device_properties(ctx.physical_device)
        };
        let memory = unsafe {
            ctx.instance
                .get_physical_device_memory_properties(ctx.physical_device)
        };
        let heap = memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
        BufferLimits {
            max_buffer_size: max_buffer_size(ctx).unwrap_or(u64::MAX),
            max_storage_buffer_range: u64::from(properties.limits.max_storage_buffer_range),
            heap_size: budget.map_or(heap, |b| b.min(heap)),
        }
    }
}

/// maxBufferSize, which only drivers with VK_KHR_maintenance4 state.
fn max_buffer_size(ctx: &Context) -> Option<u64> {
    let extensions = unsafe {
        ctx.instance
            .enumerate_device_extension_properties(ctx.physical_device)
    }
    .ok()?;
    let name = ash::khr::maintenance4::NAME;
    if !extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
    {
        return None;
    }
    let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut maintenance4);
    unsafe {
        ctx.instance
            .get_physical_device_properties2(ctx.physical_device, &mut properties)
    };
    Some(maintenance4.max_buffer_size)
}

/// The most instances of `shape` the device holds besides `fixed_bytes`
/// (the model and the frame slots), and the limit that decides, in words.
pub fn instances_that_fit(
    shape: &CrowdShape,
    limits: &BufferLimits,
    fixed_bytes: u64,
) -> (u64, String) {
    let buffers = crowd_buffers(shape);
    let by_buffer = buffers.iter().filter_map(|buffer| {
        let (cap, cap_name) =
            if buffer.is_storage() && limits.max_storage_buffer_range < limits.max_buffer_size {
                (limits.max_storage_buffer_range, "maxStorageBufferRange")
            } else {
                (limits.max_buffer_size, "maxBufferSize")
            };
        let instances = cap
            .saturating_sub(buffer.header_bytes)
            .checked_div(buffer.bytes_per_instance)?;
        let reason = format!(
            "its {} buffer takes {} bytes per instance and the device's {cap_name} is {} MiB",
            buffer.name,
            buffer.bytes_per_instance,
            cap >> 20
        );
        Some((instances, reason))
    });
    let per_instance: u64 = buffers
        .iter()
        .map(|b| b.bytes_per_instance * b.copies())
        .sum();
    let headers: u64 = buffers.iter().map(|b| b.header_bytes * b.copies()).sum();
    let by_heap = limits
        .heap_size
        .saturating_sub(fixed_bytes + headers)
        .checked_div(per_instance)
        .map(|instances| {
            let needed = fixed_bytes + crowd_bytes(shape, instances as u32);
            let reason = format!(
                "{} MiB of device memory hold the model and {instances} instances ({} MiB), \
                 and the largest device-local heap has {} MiB",
                needed.div_ceil(1 << 20),
                (per_instance * instances) >> 20,
                limits.heap_size >> 20
            );
            (instances, reason)
        });
    by_buffer
        .chain(by_heap)
        .min_by_key(|(instances, _)| *instances)
        .unwrap_or((u64::MAX, String::new()))
}

/// Refuses a crowd the device cannot hold, saying how many would fit:
/// better than an allocation failure halfway through building it.
pub fn check_crowd_fits(
    shape: &CrowdShape,
    instances: u32,
    limits: &BufferLimits,
    fixed_bytes: u64,
) -> Result<(), GpuError> {
    let (fits, reason) = instances_that_fit(shape, limits, fixed_bytes);
    if u64::from(instances) <= fits {
        return Ok(());
    }
    Err(GpuError::CrowdTooLarge {
        requested: instances,
        fits,
        reason,
    })
}

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
        animation: Animation,
        animate_kernel: Kernel,
    ) -> Result<CrowdResources, GpuError> {
        if let Some(agents) = agents.filter(|a| a.lanes.len() != placements.len()) {
            return Err(GpuError::FrameMismatch(format!(
                "{} agent lanes for a crowd of {}",
                agents.lanes.len(),
                placements.len()
            )));
        }
        let shape = CrowdShape {
            joint_count: model.model.max_joint_count(),
            vertex_count: model
                .model
                .parts
                .iter()
                .map(|p| p.vertex_count)
                .max()
                .unwrap_or(0),
            lod_count: model.model.lod_count,
            animation,
        };
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

        let cpu_skinned = animation == Animation::CpuSkinned;
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
    /// [`crowd_bytes`] (the fit check's figure), less while a palette has
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

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: BufferLimits = BufferLimits {
        max_buffer_size: 4 << 30,
        max_storage_buffer_range: 128 << 20,
        heap_size: 64 << 30,
    };

    fn shape(joint_count: u32, vertex_count: u32, animation: Animation) -> CrowdShape {
        CrowdShape {
            joint_count,
            vertex_count,
            lod_count: 1,
            animation,
        }
    }

    #[test]
    fn the_storage_binding_caps_the_transforms() {
        let (fits, reason) = instances_that_fit(&shape(64, 1000, Animation::Gpu), &LIMITS, 0);
        assert_eq!(fits, (128 << 20) / (32 * 64));
        assert_eq!(
            reason,
            "its skinning transforms buffer takes 2048 bytes per instance and the device's \
             maxStorageBufferRange is 128 MiB"
        );
    }

    #[test]
    fn the_buffer_size_caps_vertex_buffers() {
        // 26214 vertices of 40 bytes: 1 MiB per instance of CPU-skinned data.
        let vertex = size_of::<SurfaceVertex>() as u64;
        assert_eq!(vertex, 40, "position, normal, tangent");
        let cpu = shape(23, (1 << 20) / vertex as u32, Animation::CpuSkinned);
        let (fits, reason) = instances_that_fit(&cpu, &LIMITS, 0);
        assert_eq!(fits, (4u64 << 30) / (vertex * ((1 << 20) / vertex)));
        assert!(reason.contains("maxBufferSize is 4096 MiB"), "{reason}");
        // Without maintenance4 no buffer size is stated: bindings and the heap cap.
        let unstated = BufferLimits {
            max_buffer_size: u64::MAX,
            ..LIMITS
        };
        let (fits, reason) = instances_that_fit(&cpu, &unstated, 0);
        assert!(reason.contains("heap"), "{reason}");
        assert!(crowd_bytes(&cpu, fits as u32) <= unstated.heap_size);
        assert!(crowd_bytes(&cpu, fits as u32 + 1) > unstated.heap_size);
    }

    #[test]
    fn the_heap_fit_leaves_room_for_the_model() {
        let small = BufferLimits {
            heap_size: 2 << 20,
            ..LIMITS
        };
        let gpu = shape(23, 3158, Animation::Gpu);
        let model = 300_000;
        let (fits, _) = instances_that_fit(&gpu, &small, model);
        assert!(model + crowd_bytes(&gpu, fits as u32) <= small.heap_size);
        assert!(model + crowd_bytes(&gpu, fits as u32 + 1) > small.heap_size);
        assert!(check_crowd_fits(&gpu, fits as u32, &small, model).is_ok());
        let refused = check_crowd_fits(&gpu, fits as u32 + 1, &small, model).unwrap_err();
        assert!(
            refused
                .to_string()
                .ends_with(&format!("at most {fits} instances fit")),
            "{refused}"
        );
    }

    #[test]
    fn only_gpu_animation_has_a_palette_which_starts_with_the_first_rows() {
        let palettes = |animation| -> Vec<CrowdBufferDesc> {
            crowd_buffers(&shape(23, 100, animation))
                .into_iter()
                .filter(|b| b.palette)
                .collect()
        };
        for animation in [Animation::Cpu, Animation::CpuSkinned, Animation::BindPose] {
            assert!(palettes(animation).is_empty(), "{animation:?}");
        }
        let [palette] = palettes(Animation::Gpu)[..] else {
            panic!("one palette");
        };
        assert_eq!(palette.buffer, CrowdBuffer::SkinningTransforms);
        // A row per joint of the instances it starts with.
        assert_eq!(palette.initial_rows(300), 300 * 23);
        assert_eq!(palette.initial_rows(5000), INITIAL_PALETTE_INSTANCES * 23);
        // The fit check counts it at a row per instance.
        let gpu = shape(23, 100, Animation::Gpu);
        let cpu = shape(23, 100, Animation::Cpu);
        assert_eq!(crowd_bytes(&gpu, 5000), crowd_bytes(&cpu, 5000));
    }

    #[test]
    fn cpu_skinning_adds_its_buffers() {
        let names = |a| -> Vec<CrowdBuffer> {
            crowd_buffers(&shape(23, 100, a))
                .iter()
                .map(|b| b.buffer)
                .collect()
        };
        assert_eq!(names(Animation::Gpu), names(Animation::Cpu));
        assert_eq!(
            names(Animation::CpuSkinned).len(),
            names(Animation::Gpu).len() + 3
        );
        assert!(names(Animation::Gpu).contains(&CrowdBuffer::AgentLanes));
    }
}
