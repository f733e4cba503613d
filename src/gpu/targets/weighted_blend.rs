//! The weighted blend targets: where the BLEND meshes draw
//! (shaders/weighted_blend.glsl), in a rendering scope of their own after
//! the opaque picture is finished, then composited over the picture in a
//! scope of the picture alone (passes::blend_composite), which averages
//! each pixel's samples itself: a resolve would write the averages out and
//! read them back, for the same result. Only targets of a
//! model with BLEND meshes have them.
//!
//! The order: the last opaque scope resolves the picture and keeps the
//! depth (`Closing::Blended`); the blended scope tests against that depth
//! without writing it; the composite reads every sample and leaves the
//! picture a transfer source, as `Closing::Picture` would have.

use ash::vk;

use super::{Targets, DEPTH_FORMAT};
use crate::gpu::descriptors::{self, Resource};
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::passes::blend_composite::{self, BlendCompositeLayout};
use crate::gpu::pipeline::{self, TargetFormats};
use crate::gpu::resources::{self, Image, ImageBarrier, ImageDesc};
use crate::gpu::{Context, GpuError};

/// Premultiplied colours times their weights, summed; alpha: what shows
/// through, multiplied. Half floats: the weights keep the sums in range.
pub const WEIGHTED_COLORS_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// Alphas times their weights, summed.
pub const WEIGHTS_FORMAT: vk::Format = vk::Format::R16_SFLOAT;

/// What the BLEND meshes' pipelines are made for, with the scene's
/// `samples`: both weighted targets and the scene's depth.
pub fn weighted_blend_formats(samples: vk::SampleCountFlags) -> TargetFormats {
    TargetFormats {
        color: Some(WEIGHTED_COLORS_FORMAT),
        further_colors: &[WEIGHTS_FORMAT],
        depth: DEPTH_FORMAT,
        samples,
    }
}

pub(super) struct WeightedBlend {
    /// The weighted colours and the weights, with the scene's samples a
    /// pixel; the composite reads every sample.
    images: [Image; 2],
    pool: vk::DescriptorPool,
    /// The composite's set 0.
    set: vk::DescriptorSet,
}

/// Weighted targets of `extent` with `samples` a pixel, and the set
/// `composite` reads them through with `sampler`.
pub(super) fn create_weighted_blend(
    ctx: &Context,
    (extent, samples): (vk::Extent2D, u32),
    composite: &BlendCompositeLayout,
    sampler: vk::Sampler,
) -> Result<WeightedBlend, GpuError> {
    let image = |what: &str, format| -> Result<_, GpuError> {
        let desc = ImageDesc {
            extent,
            format,
            usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
            mip_levels: 1,
            swizzle: vk::ComponentMapping::default(),
            array_layers: None,
            samples: vk::SampleCountFlags::from_raw(samples),
        };
        let name = match samples {
            1 => what.to_string(),
            _ => format!("{what} ({samples} samples)"),
        };
        Ok(guard(ctx, resources::create_image(ctx, &name, &desc)?))
    };
    let colors = image("blend weighted colors", WEIGHTED_COLORS_FORMAT)?;
    let weights = image("blend weights", WEIGHTS_FORMAT)?;
    let pool = guard(
        ctx,
        descriptors::create_pool(
            ctx,
            "blend composite descriptor pool",
            &[(&composite.set_layout, 1)],
        )?,
    );
    let layout = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
    let set = descriptors::create_set(
        ctx,
        *pool,
        &composite.set_layout,
        "blend composite set",
        &[
            (
                "weighted_colors",
                Resource::Texture(&colors, sampler, layout),
            ),
            ("weights", Resource::Texture(&weights, sampler, layout)),
        ],
    )?;
    Ok(WeightedBlend {
        set,
        pool: pool.keep(),
        images: [colors.keep(), weights.keep()],
    })
}

/// A stage and the accesses of it a barrier waits for or makes wait.
type StageAccess = (vk::PipelineStageFlags2, vk::AccessFlags2);

impl WeightedBlend {
    /// Every image, for the memory report.
    pub(super) fn images(&self) -> impl Iterator<Item = &Image> {
        self.images.iter()
    }

    /// One barrier over both images, from `src` to `dst`, taking them
    /// from the layout `old` to `new`.
    fn barrier(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        (src, dst): (StageAccess, StageAccess),
        (old, new): (vk::ImageLayout, vk::ImageLayout),
    ) {
        for image in &self.images {
            resources::image_barrier(ctx, cmd, &ImageBarrier::whole(image, src, dst, old, new));
        }
    }
}

impl Destroy for WeightedBlend {
    fn destroy(self, ctx: &Context) {
        // The pool frees the set.
        self.pool.destroy(ctx);
        for image in self.images {
            image.destroy(ctx);
        }
    }
}

/// Sums start at zero; what shows through starts whole.
const CLEARED: [[f32; 4]; 2] = [[0.0, 0.0, 0.0, 1.0], [0.0; 4]];

impl Targets {
    /// Whether these targets have weighted blend targets: the model has
    /// BLEND meshes, and the last opaque scope closes with
    /// `Closing::Blended`.
    pub fn blends(&self) -> bool {
        self.weighted_blend.is_some()
    }

    /// Opens the scope the BLEND meshes draw in: the weighted targets
    /// cleared, the depth of the finished opaque picture tested.
    pub(in crate::gpu) fn begin_blended(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
        let blend = self
            .weighted_blend
            .as_ref()
            .expect("a model with BLEND meshes");
        let attachment_write = (
            Stage::COLOR_ATTACHMENT_OUTPUT,
            Access::COLOR_ATTACHMENT_WRITE,
        );
        // Last frame the composite sampled them; they are cleared.
        let last_frame = (Stage::FRAGMENT_SHADER, Access::NONE);
        blend.barrier(
            ctx,
            cmd,
            (last_frame, attachment_write),
            (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL),
        );
        let attachments = [0, 1].map(|index| {
            vk::RenderingAttachmentInfo::default()
                .image_view(blend.images[index].view)
                .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    color: vk::ClearColorValue {
                        float32: CLEARED[index],
                    },
                })
        });
        // Tested, not written: blended surfaces hide nothing. Stored, as
        // every scope does, for the readbacks of the frame's final depth.
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(self.depth.view)
            .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        let info = vk::RenderingInfo::default()
            .render_area(self.extent().into())
            .layer_count(1)
            .color_attachments(&attachments)
            .depth_attachment(&depth);
        unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
        pipeline::set_viewport(ctx, cmd, self.extent());
    }

    /// Closes the blended scope, then lays what it drew over the picture
    /// with the composite's `pipeline`; the picture is left a transfer
    /// source.
    pub(in crate::gpu) fn end_blended(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        (layout, pipeline): (&BlendCompositeLayout, vk::Pipeline),
    ) {
        use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
        let blend = self
            .weighted_blend
            .as_ref()
            .expect("a model with BLEND meshes");
        unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
        let written = (
            Stage::COLOR_ATTACHMENT_OUTPUT,
            Access::COLOR_ATTACHMENT_WRITE,
        );
        blend.barrier(
            ctx,
            cmd,
            (
                written,
                (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ),
            ),
            (
                Layout::COLOR_ATTACHMENT_OPTIMAL,
                Layout::SHADER_READ_ONLY_OPTIMAL,
            ),
        );
        // The picture was resolved (or drawn) by the last opaque scope,
        // whose closing left it an attachment.
        let picture = vk::RenderingAttachmentInfo::default()
            .image_view(self.picture().view)
            .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        let attachments = [picture];
        let info = vk::RenderingInfo::default()
            .render_area(self.extent().into())
            .layer_count(1)
            .color_attachments(&attachments);
        unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
        pipeline::set_viewport(ctx, cmd, self.extent());
        blend_composite::record_blend_composite(ctx, cmd, (layout, pipeline), blend.set);
        unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier::whole(
                self.picture(),
                written,
                (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
                Layout::COLOR_ATTACHMENT_OPTIMAL,
                Layout::TRANSFER_SRC_OPTIMAL,
            ),
        );
    }
}
