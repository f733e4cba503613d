//! The crowd's buffers, described once: [`crowd_buffers`] lists every
//! buffer that grows with the instance count, and that one list decides
//! what is allocated ([`super::crowd_resources::CrowdResources::new`]),
//! whether a crowd fits the device ([`check_crowd_fits`], at the size each
//! buffer may reach: [`crowd_bytes`]) and what is allocated now
//! ([`super::crowd_resources::CrowdResources::requested_bytes`]): they
//! differ by the skinning palette of a crowd past [`PALETTE_START_BYTES`],
//! which starts there and grows with what is drawn.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::frame::FRAMES_IN_FLIGHT;
use super::gpu_model;
use super::morph_data;
use super::shader_types::{
    CrowdInstance, CrowdModel, GpuAgentLane, GpuInstanceLayer, GpuLocomotionTable,
    InstanceAnimation, SkinningTransform, SurfaceVertex, VisibleHeader, MAX_LAYERS, MAX_MODELS,
    MAX_SHADOW_CASCADES,
};
use crate::model::Model;
use crate::skin::MAX_LODS;

mod fit;
pub use fit::{check_crowd_fits, instances_that_fit, BufferLimits};

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
    /// Per instance, the layers over its base clip ([`GpuInstanceLayer`],
    /// [`MAX_LAYERS`] each); rewritten with the instance animation.
    InstanceLayers,
    /// A quaternion and a translation per joint: with GPU animation a
    /// palette, a row (transform) per joint of each drawn (or shadow-casting)
    /// instance that is posed on its own (see [`PALETTE_START_BYTES`]); with CPU
    /// animation every instance's, instance-major.
    SkinningTransforms,
    /// cull.comp's output: the counts, then the ids of the visible
    /// instances, a region per level of detail and one for the impostors.
    VisibleInstances,
    /// Per instance, where its skinning transforms are: its own rows, or a
    /// shared pose (animation level of detail); written by cull.comp.
    PoseSources,
    /// Per instance drawn as an impostor, its atlas cell and its fade in
    /// the band around the switch; written by cull.comp.
    ImpostorCells,
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
    /// Per shadow cascade, cull.comp's output for it: the counts, then a
    /// region of ids per level of detail.
    ShadowVisibleInstances,
    /// Per instance, its model's morph weights this frame
    /// ([`CrowdShape::morph_stride`] each): written by the animate pass
    /// for the instances it poses, or with CPU animation uploaded for
    /// every instance; read by crowd.vert. Empty where no model has morph
    /// targets.
    MorphWeights,
    /// Per instance a shadow cascade keeps, the pose it casts in: the one
    /// the camera drew it in, or its clip's shared pose.
    ShadowPoseSources,
    /// Per instance a shadow cascade keeps as an impostor, the atlas cell
    /// facing the sun.
    ShadowImpostorCells,
}

/// Device memory a frame slot's skinning palette may start with. Within
/// it a palette holds every instance's rows from the first frame, so no
/// frame can run out of rows: which instances would lose theirs depends on
/// the order of cull.comp's atomics, and the picture would differ from run
/// to run. 23-joint characters fit 91,000 instances in it, 110-joint ones
/// 19,000. A larger crowd starts with this much and grows as frames want
/// more ([`super::crowd_resources::CrowdResources::grow_palette`]); its
/// headless frames are drawn again until none runs short
/// ([`super::renderer::Renderer::settle`]).
pub const PALETTE_START_BYTES: u64 = 64 << 20;

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
    /// Copies per frame slot (or in all): one, or one per shadow cascade.
    pub views: u32,
    /// A palette: it starts with rows for every instance, or
    /// [`PALETTE_START_BYTES`]' worth, and grows, up to every instance's, as frames want more
    /// ([`super::crowd_resources::CrowdResources::grow_palette`]). The fit check counts it at its
    /// largest.
    pub palette: bool,
    pub usage: vk::BufferUsageFlags,
    pub location: MemoryLocation,
}

impl CrowdBufferDesc {
    /// Bytes of one copy holding `rows` rows. Vulkan buffers cannot be
    /// empty: a crowd of none still gets room for one, and rows of no
    /// bytes (no morph weights) get one word.
    pub fn size(&self, rows: u32) -> u64 {
        (self.header_bytes + self.row_bytes() * u64::from(rows.max(1))).max(4)
    }

    pub fn row_bytes(&self) -> u64 {
        self.bytes_per_instance / u64::from(self.rows_per_instance.max(1))
    }

    /// The most rows `instances` take: what the fit check counts.
    pub fn rows_for(&self, instances: u32) -> u32 {
        instances.saturating_mul(self.rows_per_instance)
    }

    /// The rows a new crowd of `instances` allocates; a palette holds
    /// every instance's within `palette_start_bytes` a copy.
    pub fn initial_rows(&self, instances: u32, palette_start_bytes: u64) -> u32 {
        let rows = self.rows_for(instances);
        if self.palette {
            let affordable = palette_start_bytes / self.row_bytes().max(1);
            rows.min(u32::try_from(affordable).unwrap_or(u32::MAX))
        } else {
            rows
        }
    }

    pub fn copies(&self) -> u64 {
        let slots = if self.per_frame_slot {
            FRAMES_IN_FLIGHT as u64
        } else {
            1
        };
        slots * u64::from(self.views)
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
    /// The most morph weights a model has (`gpu::morph_data::morph_stride`).
    pub morph_stride: u32,
    pub animation: Animation,
    /// Shadow cascades culled and drawn (0: none), each with lists of its
    /// own. The bind pose casts as the other modes do, so that bench's
    /// static baseline draws the same shadows; CPU skinning, which draws
    /// every instance itself, casts none.
    pub shadow_cascades: u32,
}

impl CrowdShape {
    pub fn of(models: &[Model], animation: Animation, shadow_cascades: u32) -> CrowdShape {
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
            morph_stride: morph_data::morph_stride(models),
            animation,
            shadow_cascades: match animation {
                Animation::Gpu | Animation::Cpu | Animation::BindPose => {
                    shadow_cascades.min(MAX_SHADOW_CASCADES as u32)
                }
                Animation::CpuSkinned => 0,
            },
        }
    }
}

/// Every buffer a crowd of `shape` allocates.
pub fn crowd_buffers(shape: &CrowdShape) -> Vec<CrowdBufferDesc> {
    use vk::BufferUsageFlags as Usage;
    let storage = Usage::STORAGE_BUFFER;
    let transforms = shape.joint_count as usize * size_of::<SkinningTransform>();
    // What the animate pass writes, or with CPU animation the CPU uploads
    // every frame.
    let posed_location = match shape.animation {
        Animation::Cpu | Animation::CpuSkinned => MemoryLocation::CpuToGpu,
        Animation::Gpu | Animation::BindPose => MemoryLocation::GpuOnly,
    };
    let mut buffers = vec![
        desc(
            CrowdBuffer::Placements,
            "crowd instances",
            size_of::<CrowdInstance>(),
            false,
            // A transfer source: a failed rebuild reads the old crowd back,
            // and tests the agents.
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
        desc(
            CrowdBuffer::InstanceLayers,
            "instance layers",
            size_of::<GpuInstanceLayer>() * MAX_LAYERS,
            true,
            storage,
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
                posed_location,
            )
        },
        // A count per model and level, then a region of instance_count ids
        // per level, the impostor list, then the posed list: the instances
        // cull.comp handed palette rows to, which animate.comp poses (each
        // at most once).
        CrowdBufferDesc {
            header_bytes: VISIBLE_HEADER_BYTES,
            ..desc(
                CrowdBuffer::VisibleInstances,
                "visible instances",
                size_of::<u32>() * (shape.lod_count as usize + 2),
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
            CrowdBuffer::ImpostorCells,
            "impostor cells",
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
    buffers.push(desc(
        CrowdBuffer::MorphWeights,
        "morph weights",
        shape.morph_stride as usize * size_of::<f32>(),
        true,
        // A transfer source for the tests that read it back.
        storage | Usage::TRANSFER_SRC,
        posed_location,
    ));
    if shape.shadow_cascades > 0 {
        buffers.extend(shadow_buffers(shape));
    }
    if shape.animation == Animation::CpuSkinned {
        buffers.extend(cpu_skinned_buffers(shape, transforms));
    }
    buffers
}

/// The shadow cascades' own buffers, after the camera's.
fn shadow_buffers(shape: &CrowdShape) -> [CrowdBufferDesc; 3] {
    use vk::BufferUsageFlags as Usage;
    let storage = Usage::STORAGE_BUFFER;
    [
        // A region per level and the impostor list; no posed list:
        // casters are posed by the camera or share a pose.
        CrowdBufferDesc {
            header_bytes: VISIBLE_HEADER_BYTES,
            views: shape.shadow_cascades,
            ..desc(
                CrowdBuffer::ShadowVisibleInstances,
                "shadow visible instances",
                size_of::<u32>() * (shape.lod_count as usize + 1),
                true,
                storage | Usage::TRANSFER_DST | Usage::TRANSFER_SRC,
                MemoryLocation::GpuOnly,
            )
        },
        desc(
            CrowdBuffer::ShadowPoseSources,
            "shadow pose sources",
            size_of::<u32>(),
            true,
            storage | Usage::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        ),
        desc(
            CrowdBuffer::ShadowImpostorCells,
            "shadow impostor cells",
            size_of::<u32>(),
            true,
            storage | Usage::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        ),
    ]
}

/// What CPU skinning adds: the identity transforms and the list of every
/// instance its draw reads, and the skinned vertices; `transforms` is the
/// bytes of one instance's skinning transforms.
fn cpu_skinned_buffers(shape: &CrowdShape, transforms: usize) -> [CrowdBufferDesc; 3] {
    use vk::BufferUsageFlags as Usage;
    let storage = Usage::STORAGE_BUFFER;
    let vertices = shape.vertex_count as usize * size_of::<SurfaceVertex>();
    [
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
    ]
}

/// One of [`crowd_buffers`]: a row of `bytes_per_instance` per instance, no
/// header, one view, no palette.
fn desc(
    buffer: CrowdBuffer,
    name: &'static str,
    bytes_per_instance: usize,
    per_frame_slot: bool,
    usage: vk::BufferUsageFlags,
    location: MemoryLocation,
) -> CrowdBufferDesc {
    CrowdBufferDesc {
        buffer,
        name,
        bytes_per_instance: bytes_per_instance as u64,
        rows_per_instance: 1,
        header_bytes: 0,
        per_frame_slot,
        views: 1,
        palette: false,
        usage,
        location,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn shape(joint_count: u32, vertex_count: u32, animation: Animation) -> CrowdShape {
        CrowdShape {
            joint_count,
            vertex_count,
            lod_count: 1,
            morph_stride: 0,
            animation,
            shadow_cascades: 0,
        }
    }

    #[test]
    fn shadow_cascades_count_their_lists_and_the_casters_poses() {
        let without = CrowdShape {
            lod_count: 4,
            ..shape(23, 1000, Animation::Gpu)
        };
        let with = CrowdShape {
            shadow_cascades: 3,
            ..without
        };
        let extra = crowd_bytes(&with, 1000) - crowd_bytes(&without, 1000);
        // Per frame slot: each cascade's counts and a region of ids per
        // level and for its impostors, and one pose source and one
        // impostor cell per instance for all of them.
        let per_slot = 3 * (VISIBLE_HEADER_BYTES + 5 * 4 * 1000) + 2 * 4 * 1000;
        assert_eq!(extra, FRAMES_IN_FLIGHT as u64 * per_slot);
        // CPU skinning casts no shadow map, whatever is asked; the bind
        // pose casts as the animated modes do (bench's static baseline).
        assert_eq!(
            CrowdShape::of(&[], Animation::CpuSkinned, 3).shadow_cascades,
            0
        );
        assert_eq!(
            CrowdShape::of(&[], Animation::BindPose, 3).shadow_cascades,
            3
        );
        assert_eq!(CrowdShape::of(&[], Animation::Cpu, 9).shadow_cascades, 4);
    }

    #[test]
    fn only_gpu_animation_has_a_palette_which_starts_with_every_instance_it_affords() {
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
        // A row per joint of every instance, within its start's bytes.
        let row = size_of::<SkinningTransform>() as u64;
        assert_eq!(palette.initial_rows(5000, PALETTE_START_BYTES), 5000 * 23);
        assert_eq!(palette.initial_rows(300, 1000 * 23 * row), 300 * 23);
        assert_eq!(palette.initial_rows(5000, 1000 * 23 * row), 1000 * 23);
        assert_eq!(palette.initial_rows(5000, 0), 0, "a row is kept by size()");
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
