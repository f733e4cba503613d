//! The farthest depth sample of every pixel (depth_resolve.comp), where
//! the device has no MIN depth resolve: the depth pyramid is built from it
//! so that occlusion culling stays conservative with multisampled targets.
//! Set 2 of the compute passes binds its images; only multisampled targets
//! on such a device have one.

use ash::vk;

use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ComputePipeline, ShaderStage};
use crate::gpu::resources::{self, Image, ImageBarrier};
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// depth_resolve.comp: a workgroup per tile of pixels.
pub struct DepthResolve {
    pipeline: ComputePipeline,
}

pub fn create_depth_resolve(
    ctx: &Context,
    layout: vk::PipelineLayout,
) -> Result<DepthResolve, GpuError> {
    let shader = ShaderStage {
        name: "depth_resolve.comp",
        spirv: spirv::DEPTH_RESOLVE_COMP,
        specialization: None,
    };
    let pipeline = pipeline::create_compute_pipeline(ctx, "depth resolve", layout, &shader)?;
    Ok(DepthResolve { pipeline })
}

impl Destroy for DepthResolve {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// Writes `farthest` (GENERAL afterwards, readable by compute shaders and
/// copies) from the multisampled depth that `set` binds, which must be
/// readable by compute shaders (SHADER_READ_ONLY_OPTIMAL). `set` is bound
/// as set 2 of `layout`, the compute passes' layout, leaving sets 0 and 1
/// as they are.
pub fn record_depth_resolve(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &DepthResolve,
    (layout, set): (vk::PipelineLayout, vk::DescriptorSet),
    farthest: &Image,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let _label = debug::label(ctx, cmd, "depth resolve (farthest sample)");
    // Overwritten whole: the last frame's pyramid and readbacks read it.
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier::whole(
            farthest,
            (Stage::COMPUTE_SHADER | Stage::ALL_TRANSFER, Access::NONE),
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            Layout::UNDEFINED,
            Layout::GENERAL,
        ),
    );
    let [tile_width, tile_height, _] = pass.pipeline.workgroup_size;
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pass.pipeline.handle);
        ctx.device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            layout,
            2,
            &[set],
            &[],
        );
        ctx.device.cmd_dispatch(
            cmd,
            farthest.extent.width.div_ceil(tile_width),
            farthest.extent.height.div_ceil(tile_height),
            1,
        );
    }
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier::whole(
            farthest,
            (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE),
            (
                Stage::COMPUTE_SHADER | Stage::ALL_TRANSFER,
                Access::SHADER_SAMPLED_READ | Access::TRANSFER_READ,
            ),
            Layout::GENERAL,
            Layout::GENERAL,
        ),
    );
}
