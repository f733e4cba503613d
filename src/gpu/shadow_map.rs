//! The sun's shadow map: a depth layer per cascade, drawn by the casters
//! each cascade's cull kept and sampled, with depth comparison, by the
//! passes that receive shadows (crowd.frag, ground.frag). It lives as long
//! as the renderer: its size and layer count are fixed for the run, and the
//! model's and crowd's descriptor sets point at it.

use ash::vk;

use super::descriptors::Resource;
use super::guard::{guard, Destroy};
use super::memory::{DeviceMemory, MemoryReport};
use super::resources::{self, Image, ImageBarrier, ImageDesc};
use super::{debug, pipeline, vk_error, Context, GpuError};

/// 32-bit float depth: cascades span hundreds of units, and reverse Z
/// keeps the precision where the light's near plane is.
pub const SHADOW_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

pub struct ShadowMap {
    /// `layers` layers of `resolution` squared texels, viewed as an array.
    pub image: Image,
    /// One view per layer, each a cascade's depth attachment.
    pub layer_views: Vec<vk::ImageView>,
    /// Compares a receiver's depth with the stored one; filters linearly
    /// where the format allows (hardware 2x2 percentage-closer filtering).
    pub sampler: vk::Sampler,
    pub resolution: u32,
}

impl ShadowMap {
    /// A map of `cascades` layers (one, never drawn, for none: the
    /// receiving passes' sets still need an image) of `resolution` texels a
    /// side.
    pub fn new(ctx: &Context, cascades: u32, resolution: u32) -> Result<ShadowMap, GpuError> {
        let layers = cascades.max(1);
        // Never drawn without cascades: one texel keeps the sets valid.
        let resolution = if cascades == 0 { 1 } else { resolution.max(1) };
        let name = format!("shadow map ({layers} cascades of {resolution}x{resolution})");
        let image = guard(
            ctx,
            resources::create_image(
                ctx,
                &name,
                &ImageDesc {
                    extent: vk::Extent2D {
                        width: resolution,
                        height: resolution,
                    },
                    format: SHADOW_FORMAT,
                    usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                        | vk::ImageUsageFlags::SAMPLED,
                    mip_levels: 1,
                    swizzle: vk::ComponentMapping::default(),
                    array_layers: Some(layers),
                    samples: vk::SampleCountFlags::TYPE_1,
                },
            )?,
        );
        let mut layer_views = guard(ctx, Vec::with_capacity(layers as usize));
        for layer in 0..layers {
            let info = vk::ImageViewCreateInfo::default()
                .image(image.handle)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(SHADOW_FORMAT)
                .subresource_range(resources::layer_range(
                    SHADOW_FORMAT,
                    0,
                    1,
                    layer..layer + 1,
                ));
            ctx.creation_step("vkCreateImageView")?;
            let view = unsafe { ctx.device.create_image_view(&info, None) }
                .map_err(vk_error("vkCreateImageView"))?;
            debug::set_name(ctx, view, &format!("shadow map, cascade {layer}"));
            layer_views.push(ImageViewHandle(view));
        }
        let sampler = guard(ctx, SamplerHandle(create_compare_sampler(ctx)?));
        // Readable from the start: the receiving passes' sets point at it
        // before any frame draws into it (they read it only after).
        resources::submit_and_wait(ctx, "shadow map layout", |cmd| {
            resources::image_barrier(
                ctx,
                cmd,
                &ImageBarrier::whole(
                    &image,
                    (Stage::NONE, Access::NONE),
                    READ_STAGES,
                    vk::ImageLayout::UNDEFINED,
                    READ_LAYOUT,
                ),
            );
        })?;
        Ok(ShadowMap {
            image: image.keep(),
            layer_views: layer_views.keep().into_iter().map(|v| v.0).collect(),
            sampler: sampler.keep().0,
            resolution,
        })
    }

    pub fn extent(&self) -> vk::Extent2D {
        self.image.extent
    }

    /// As the receiving passes' sets bind it.
    pub(in crate::gpu) fn texture(&self) -> Resource<'_> {
        Resource::Texture(&self.image, self.sampler, READ_LAYOUT)
    }

    /// Before the cascades are drawn: last frame's reads done, the old
    /// depth discarded.
    pub fn record_begin_drawing(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        let barrier = ImageBarrier::whole(
            &self.image,
            READ_STAGES,
            (
                Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS,
                Access::DEPTH_STENCIL_ATTACHMENT_READ | Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
        );
        resources::image_barrier(ctx, cmd, &barrier);
    }

    /// Opens cascade `cascade`'s layer for its casters, cleared to the
    /// far plane (reverse Z: 0), with its viewport;
    /// [`ShadowMap::record_end_cascade`] closes it.
    pub fn record_begin_cascade(&self, ctx: &Context, cmd: vk::CommandBuffer, cascade: usize) {
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(self.layer_views[cascade])
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 0.0,
                    stencil: 0,
                },
            });
        let info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: self.extent(),
            })
            .layer_count(1)
            .depth_attachment(&depth);
        unsafe { ctx.dynamic_rendering.cmd_begin_rendering(cmd, &info) };
        pipeline::set_viewport(ctx, cmd, self.extent());
    }

    pub fn record_end_cascade(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        unsafe { ctx.dynamic_rendering.cmd_end_rendering(cmd) };
    }

    /// After the cascades are drawn: readable by the receiving passes.
    pub fn record_end_drawing(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        let barrier = ImageBarrier::whole(
            &self.image,
            (
                Stage::LATE_FRAGMENT_TESTS,
                Access::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            READ_STAGES,
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
            READ_LAYOUT,
        );
        resources::image_barrier(ctx, cmd, &barrier);
    }
}

use vk::{AccessFlags2 as Access, PipelineStageFlags2 as Stage};

const READ_LAYOUT: vk::ImageLayout = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
const READ_STAGES: (vk::PipelineStageFlags2, vk::AccessFlags2) =
    (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ);

struct SamplerHandle(vk::Sampler);

impl Destroy for SamplerHandle {
    fn destroy(self, ctx: &Context) {
        unsafe { ctx.device.destroy_sampler(self.0, None) };
    }
}

/// Lit where the receiver is at least as near the sun as the stored depth
/// (reverse Z: nearer is greater); outside the map, the black border's
/// depth 0 (infinitely far) lights everything.
fn create_compare_sampler(ctx: &Context) -> Result<vk::Sampler, GpuError> {
    let features = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.physical_device, SHADOW_FORMAT)
    }
    .optimal_tiling_features;
    let filter = match features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR) {
        true => vk::Filter::LINEAR,
        false => vk::Filter::NEAREST,
    };
    let address = vk::SamplerAddressMode::CLAMP_TO_BORDER;
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(address)
        .address_mode_v(address)
        .address_mode_w(address)
        .border_color(vk::BorderColor::FLOAT_OPAQUE_BLACK)
        .compare_enable(true)
        .compare_op(vk::CompareOp::GREATER_OR_EQUAL);
    ctx.creation_step("vkCreateSampler")?;
    let sampler =
        unsafe { ctx.device.create_sampler(&info, None) }.map_err(vk_error("vkCreateSampler"))?;
    debug::set_name(ctx, sampler, "shadow map sampler (depth comparison)");
    Ok(sampler)
}

/// A layer view, destroyed by its guard if a later step fails.
struct ImageViewHandle(vk::ImageView);

impl Destroy for ImageViewHandle {
    fn destroy(self, ctx: &Context) {
        unsafe { ctx.device.destroy_image_view(self.0, None) };
    }
}

/// A render target: the frame draws into it.
impl DeviceMemory for ShadowMap {
    fn memory(&self) -> MemoryReport {
        MemoryReport::targets([&self.image], [])
    }
}

impl Destroy for ShadowMap {
    fn destroy(self, ctx: &Context) {
        unsafe {
            for view in self.layer_views {
                ctx.device.destroy_image_view(view, None);
            }
            ctx.device.destroy_sampler(self.sampler, None);
        }
        self.image.destroy(ctx);
    }
}
