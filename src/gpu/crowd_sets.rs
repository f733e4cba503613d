//! The crowd's descriptor sets: per frame slot, a compute set and a scene
//! set for the camera and for each shadow cascade (with CPU skinning, one
//! more scene set of identity transforms), pointing at that slot's copies
//! of the crowd's buffers and at the model's, the frame slot's and the
//! shadow map's resources.

use ash::vk;

use super::crowd_buffers::{Animation, CrowdBuffer, CrowdShape};
use super::descriptors::{self, Resource};
use super::frame::FrameSlot;
use super::model_resources::ModelResources;
use super::resources::Buffer;
use super::shadow_map::ShadowMap;
use super::{Context, GpuError};

/// Per frame slot: the descriptor sets of that slot's buffers.
pub struct CrowdSlotSets {
    /// Set 0 of the compute passes.
    pub compute: vk::DescriptorSet,
    /// Set 0 of the draws with this slot's transforms and visible list.
    pub scene: vk::DescriptorSet,
    /// CPU skinning: set 0 for the crowd draw, with identity transforms and
    /// every instance visible.
    pub identity_scene: Option<vk::DescriptorSet>,
    /// Per shadow cascade, the same two sets with its visible lists and
    /// the shadow pose sources in place of the camera's.
    pub shadow: Vec<ViewSets>,
}

/// A shadow cascade's sets of one frame slot.
pub struct ViewSets {
    pub compute: vk::DescriptorSet,
    pub scene: vk::DescriptorSet,
}

/// The pool of the crowd's sets: per frame slot a compute set and a scene
/// set, with CPU skinning a second scene set, and both again per shadow
/// cascade.
pub(super) fn create_pool(
    ctx: &Context,
    model: &ModelResources,
    slot_count: usize,
    shape: &CrowdShape,
) -> Result<vk::DescriptorPool, GpuError> {
    let slot_count = slot_count as u32;
    let cpu_skinned = u32::from(shape.animation == Animation::CpuSkinned);
    let views = 1 + shape.shadow_cascades;
    descriptors::create_pool(
        ctx,
        "crowd descriptor pool",
        &[
            (&model.compute_layout, slot_count * views),
            (&model.scene_layout, slot_count * (views + cpu_skinned)),
        ],
    )
}

/// What frame slot `slot`'s sets are made from: `pool` (which frees them)
/// and the model's and slot's resources.
pub(super) struct SlotSets<'a> {
    pub(super) pool: vk::DescriptorPool,
    pub(super) model: &'a ModelResources,
    pub(super) frame: &'a FrameSlot,
    pub(super) slot: usize,
    pub(super) shadow_map: &'a ShadowMap,
}

/// The buffers one view's sets point at besides the crowd's shared ones.
struct ViewBuffers<'a> {
    name: String,
    visible: &'a Buffer,
    pose_sources: &'a Buffer,
    impostor_cells: &'a Buffer,
    transforms: &'a Buffer,
}

impl<'a> SlotSets<'a> {
    /// The slot's sets, pointing at its copies of the crowd's buffers
    /// (`crowd(buffer, view)`).
    pub(super) fn create(
        &self,
        ctx: &Context,
        shape: &CrowdShape,
        crowd: impl Fn(CrowdBuffer, usize) -> &'a Buffer + Copy,
    ) -> Result<CrowdSlotSets, GpuError> {
        let slot = self.slot;
        let camera = ViewBuffers {
            name: format!("frame {slot}"),
            visible: crowd(CrowdBuffer::VisibleInstances, 0),
            pose_sources: crowd(CrowdBuffer::PoseSources, 0),
            impostor_cells: crowd(CrowdBuffer::ImpostorCells, 0),
            transforms: crowd(CrowdBuffer::SkinningTransforms, 0),
        };
        let compute = self.compute_set(ctx, &camera, crowd)?;
        let scene = self.scene_set(ctx, &camera, crowd)?;
        let identity_scene = if shape.animation == Animation::CpuSkinned {
            let identity = ViewBuffers {
                name: format!("frame {slot}, identity transforms"),
                visible: crowd(CrowdBuffer::AllInstances, 0),
                transforms: crowd(CrowdBuffer::IdentityTransforms, 0),
                ..camera
            };
            Some(self.scene_set(ctx, &identity, crowd)?)
        } else {
            None
        };
        let shadow = (0..shape.shadow_cascades as usize)
            .map(|cascade| {
                let view = ViewBuffers {
                    name: format!("frame {slot}, shadow cascade {cascade}"),
                    visible: crowd(CrowdBuffer::ShadowVisibleInstances, cascade),
                    pose_sources: crowd(CrowdBuffer::ShadowPoseSources, 0),
                    impostor_cells: crowd(CrowdBuffer::ShadowImpostorCells, 0),
                    transforms: crowd(CrowdBuffer::SkinningTransforms, 0),
                };
                Ok(ViewSets {
                    compute: self.compute_set(ctx, &view, crowd)?,
                    scene: self.scene_set(ctx, &view, crowd)?,
                })
            })
            .collect::<Result<Vec<_>, GpuError>>()?;
        Ok(CrowdSlotSets {
            compute,
            scene,
            identity_scene,
            shadow,
        })
    }

    /// Set 0 of the compute passes for `view`.
    fn compute_set(
        &self,
        ctx: &Context,
        view: &ViewBuffers<'a>,
        crowd: impl Fn(CrowdBuffer, usize) -> &'a Buffer,
    ) -> Result<vk::DescriptorSet, GpuError> {
        let (model, frame) = (self.model, self.frame);
        let animation_data = &model.animation;
        let shared = |which| Resource::Buffer(crowd(which, 0));
        descriptors::create_set(
            ctx,
            self.pool,
            &model.compute_layout,
            &format!("{} compute set", view.name),
            &[
                ("Frame", Resource::Buffer(&frame.uniforms)),
                ("Instances", shared(CrowdBuffer::Placements)),
                ("InstanceAnimations", shared(CrowdBuffer::InstanceAnimation)),
                ("InstanceLayers", shared(CrowdBuffer::InstanceLayers)),
                ("LayerMasks", Resource::Buffer(&animation_data.layer_masks)),
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
                ("VisibleInstances", Resource::Buffer(view.visible)),
                ("DrawCommands", Resource::Buffer(&frame.draw_commands)),
                ("Visibility", shared(CrowdBuffer::Visibility)),
                ("PoseSources", Resource::Buffer(view.pose_sources)),
                ("CameraPoseSources", shared(CrowdBuffer::PoseSources)),
                ("SkinningTransforms", Resource::Buffer(view.transforms)),
                ("AgentLanes", shared(CrowdBuffer::AgentLanes)),
                ("Models", shared(CrowdBuffer::Models)),
                (
                    "ImpostorSlots",
                    Resource::Buffer(&model.impostors.slot_table),
                ),
                (
                    "ImpostorRequests",
                    Resource::Buffer(&model.impostors.requests),
                ),
                ("ImpostorCells", Resource::Buffer(view.impostor_cells)),
                (
                    "ClipMorphRows",
                    Resource::Buffer(&animation_data.clip_morph_rows),
                ),
                ("MorphWeights", shared(CrowdBuffer::MorphWeights)),
            ],
        )
    }

    /// Set 0 of the draws for `view`.
    fn scene_set(
        &self,
        ctx: &Context,
        view: &ViewBuffers<'a>,
        crowd: impl Fn(CrowdBuffer, usize) -> &'a Buffer,
    ) -> Result<vk::DescriptorSet, GpuError> {
        let model = self.model;
        descriptors::create_set(
            ctx,
            self.pool,
            &model.scene_layout,
            &format!("{} scene set", view.name),
            &[
                ("SkinningTransforms", Resource::Buffer(view.transforms)),
                (
                    "Instances",
                    Resource::Buffer(crowd(CrowdBuffer::Placements, 0)),
                ),
                ("Frame", Resource::Buffer(&self.frame.uniforms)),
                ("VisibleInstances", Resource::Buffer(view.visible)),
                ("PoseSources", Resource::Buffer(view.pose_sources)),
                (
                    "SharedPoses",
                    Resource::Buffer(&model.animation.shared_poses),
                ),
                ("Models", Resource::Buffer(crowd(CrowdBuffer::Models, 0))),
                ("ImpostorCells", Resource::Buffer(view.impostor_cells)),
                (
                    "MorphWeights",
                    Resource::Buffer(crowd(CrowdBuffer::MorphWeights, 0)),
                ),
                ("MorphRanges", Resource::Buffer(&model.model.morph_ranges)),
                ("MorphEntries", Resource::Buffer(&model.model.morph_entries)),
                ("shadow_map", self.shadow_map.texture()),
            ],
        )
    }
}
