//! The renderer's readbacks, for tests comparing the GPU with the CPU
//! reference: each reads one buffer or target as the last frame (or frame
//! slot) left it; call once that frame is done.

use ash::vk;

use super::crowd_buffers::CrowdBuffer;
use super::guard::guard;
use super::renderer::Renderer;
use super::resources;
use super::shader_types::{CrowdInstance, InstanceAnimation, SkinningTransform, VisibleHeader};
use super::{Context, GpuError};
use crate::crowd::{DepthPyramid, MAX_PYRAMID_LEVELS};

impl Renderer {
    /// The skinning transforms frame slot `slot` drew with: with GPU
    /// animation the palette, whose rows [`Renderer::read_pose_sources`]
    /// says the visible instances got; call once the slot's frame is done.
    /// For tests comparing the GPU with the CPU reference.
    pub fn read_skinning_transforms(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<SkinningTransform>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::SkinningTransforms, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// Every instance's morph weights as frame slot `slot` drew them,
    /// `GpuModel::morph_stride` each (the animate pass writes the posed
    /// instances'); call once the frame is done.
    pub fn read_morph_weights(&self, ctx: &Context, slot: usize) -> Result<Vec<f32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::MorphWeights, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// Where every instance stood in the last frame (the agent pass moves
    /// them); call once the frames are done.
    pub fn read_placements(&self, ctx: &Context) -> Result<Vec<CrowdInstance>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::Placements, 0)?;
        resources::read_buffer(ctx, buffer)
    }

    /// The instance animation frame slot `slot` animated with (the agent
    /// pass writes it when locomotion is on); call once the frame is done.
    pub fn read_instance_animation(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<InstanceAnimation>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::InstanceAnimation, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// The instance ids frame slot `slot` found visible, in slot order,
    /// each once: an instance in the band around the impostor switch is in
    /// a level's list and in the impostors'.
    pub fn read_visible_instances(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        let mut seen = std::collections::HashSet::new();
        let lists = self.read_visible_lists(ctx, slot)?;
        Ok(lists
            .concat()
            .into_iter()
            .filter(|&id| seen.insert(id))
            .collect())
    }

    /// Per level of detail, the instance ids frame slot `slot` drew at it,
    /// model after model.
    pub fn read_visible_by_lod(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<Vec<u32>>, GpuError> {
        let mut lists = self.read_visible_lists(ctx, slot)?;
        lists.truncate(self.model.model.lod_count as usize);
        Ok(lists)
    }

    /// The instance ids frame slot `slot` drew as impostors, model after
    /// model.
    pub fn read_impostor_instances(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<u32>, GpuError> {
        let lists = self.read_visible_lists(ctx, slot)?;
        Ok(lists
            .get(self.model.model.lod_count as usize)
            .cloned()
            .unwrap_or_default())
    }

    /// The indirect commands frame slot `slot` drew with, as words laid
    /// out by [`crate::gpu::draw_commands::DrawCommandLayout`].
    pub fn read_draw_commands(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        resources::read_buffer(ctx, &self.slots[slot].draw_commands)
    }

    /// The counts frame slot `slot`'s cull left in its visible lists.
    pub fn read_visible_header(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<VisibleHeader, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::VisibleInstances, slot)?;
        let words: Vec<u32> = resources::read_buffer(ctx, buffer)?;
        let header = &words[..size_of::<VisibleHeader>() / 4];
        Ok(bytemuck::pod_read_unaligned(bytemuck::cast_slice(header)))
    }

    /// The instances frame slot `slot`'s culls handed palette rows to (the
    /// posed list, which animate.comp runs over), in the order they took
    /// them.
    pub fn read_posed_instances(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::VisibleInstances, slot)?;
        let words: Vec<u32> = resources::read_buffer(ctx, buffer)?;
        let (header, regions) = words.split_at(size_of::<VisibleHeader>() / 4);
        let header: VisibleHeader = bytemuck::pod_read_unaligned(bytemuck::cast_slice(header));
        let stride = self.crowd.as_ref().map_or(0, |c| c.instance_count()) as usize;
        let start = ((self.model.model.lod_count as usize + 1) * stride).min(regions.len());
        let end = (start + header.posed_count as usize).min(regions.len());
        Ok(regions[start..end].to_vec())
    }

    /// The visible lists: one per level of detail, then the impostors'.
    fn read_visible_lists(&self, ctx: &Context, slot: usize) -> Result<Vec<Vec<u32>>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::VisibleInstances, slot)?;
        self.read_lists_of(ctx, buffer)
    }

    /// The instance ids shadow cascade `cascade` kept in the frame that
    /// used `slot`: one list per level of detail, then its impostors'.
    pub fn read_cascade_lists(
        &self,
        ctx: &Context,
        slot: usize,
        cascade: usize,
    ) -> Result<Vec<Vec<u32>>, GpuError> {
        let buffer = self
            .crowd
            .as_ref()
            .and_then(|crowd| {
                crowd.cascade_buffer(CrowdBuffer::ShadowVisibleInstances, slot, cascade)
            })
            .ok_or_else(|| GpuError::FrameMismatch(format!("no shadow cascade {cascade}")))?;
        self.read_lists_of(ctx, buffer)
    }

    /// Per instance a shadow cascade kept as an impostor in the frame that
    /// used `slot`, the atlas cell it cast from.
    pub fn read_shadow_impostor_cells(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::ShadowImpostorCells, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// Per instance a shadow cascade kept in the frame that used `slot`,
    /// the pose it was drawn in.
    pub fn read_shadow_pose_sources(
        &self,
        ctx: &Context,
        slot: usize,
    ) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::ShadowPoseSources, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// `buffer`'s lists, laid out as the visible lists are.
    fn read_lists_of(
        &self,
        ctx: &Context,
        buffer: &resources::Buffer,
    ) -> Result<Vec<Vec<u32>>, GpuError> {
        let words: Vec<u32> = resources::read_buffer(ctx, buffer)?;
        let (header, regions) = words.split_at(size_of::<VisibleHeader>() / 4);
        let header: VisibleHeader = bytemuck::pod_read_unaligned(bytemuck::cast_slice(header));
        let Some(crowd) = self.crowd.as_ref() else {
            return Ok(Vec::new());
        };
        let stride = crowd.instance_count() as usize;
        let lods = self.model.model.lod_count as usize;
        Ok((0..=lods)
            .map(|lod| {
                crowd
                    .models
                    .iter()
                    .enumerate()
                    .flat_map(|(m, model)| {
                        let start =
                            (lod * stride + model.first_instance as usize).min(regions.len());
                        let counted = match lod == lods {
                            true => header.impostor_counts[m],
                            false => header.model_counts(m)[lod],
                        };
                        let count = (counted as usize)
                            .min(model.instance_count as usize)
                            .min(regions.len() - start);
                        regions[start..start + count].iter().copied()
                    })
                    .collect()
            })
            .collect())
    }

    /// Each pixel's farthest depth sample as the last frame left the
    /// depth, row by row (the depth itself with one sample a pixel); call
    /// once the frames are done. For tests of the depth pyramid.
    pub fn read_depth(&self, ctx: &Context) -> Result<Vec<f32>, GpuError> {
        let farthest = self.targets.farthest_depth();
        let size = u64::from(farthest.extent.width) * u64::from(farthest.extent.height) * 4;
        let readback = guard(
            ctx,
            resources::create_buffer(
                ctx,
                "depth readback",
                size,
                vk::BufferUsageFlags::TRANSFER_DST,
                gpu_allocator::MemoryLocation::GpuToCpu,
            )?,
        );
        resources::submit_and_wait(ctx, "read back the depth", |cmd| {
            self.targets
                .record_final_farthest_depth(ctx, cmd, &self.model);
            let range = resources::subresource_range(farthest.format, 0, 1);
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(range.aspect_mask)
                        .layer_count(1),
                )
                .image_extent(farthest.extent.into());
            unsafe {
                ctx.device.cmd_copy_image_to_buffer(
                    cmd,
                    farthest.handle,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    readback.handle,
                    &[region],
                );
            }
        })?;
        Ok(bytemuck::pod_collect_to_vec(readback.read()))
    }

    /// The depth pyramid the last frame built (with occlusion culling on).
    pub fn read_depth_pyramid(&self, ctx: &Context) -> Result<DepthPyramid, GpuError> {
        let words: Vec<u32> = resources::read_buffer(ctx, &self.targets.pyramid)?;
        let table = MAX_PYRAMID_LEVELS * 4;
        Ok(DepthPyramid {
            levels: self.targets.pyramid_levels.clone(),
            texels: words[table..].iter().map(|&w| f32::from_bits(w)).collect(),
        })
    }

    /// Per instance, where frame slot `slot` found its skinning transforms
    /// (`SHARED_POSE` set: a shared pose of animation level of detail).
    pub fn read_pose_sources(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::PoseSources, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// Per instance drawn as an impostor in the frame that used `slot`, its
    /// cell and, from `IMPOSTOR_FADE_SHIFT` up, its fade.
    pub fn read_impostor_cells(&self, ctx: &Context, slot: usize) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::ImpostorCells, slot)?;
        resources::read_buffer(ctx, buffer)
    }

    /// Per instance, 1 when the last frame's culling found it visible.
    pub fn read_visibility(&self, ctx: &Context) -> Result<Vec<u32>, GpuError> {
        let buffer = self.crowd_buffer(CrowdBuffer::Visibility, 0)?;
        resources::read_buffer(ctx, buffer)
    }

    fn crowd_buffer(
        &self,
        which: CrowdBuffer,
        slot: usize,
    ) -> Result<&resources::Buffer, GpuError> {
        self.crowd
            .as_ref()
            .and_then(|crowd| crowd.buffer(which, slot))
            .ok_or_else(|| GpuError::FrameMismatch(format!("no crowd with {which:?}")))
    }
}
