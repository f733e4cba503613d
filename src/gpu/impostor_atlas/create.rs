//! One model's atlas made: its layered images, a view of each slot for the
//! bake to render into, and every layer readable before anything is baked.

use ash::vk;

use super::ImpostorAtlas;
use crate::crowd::{AtlasImage, AtlasSlots};
use crate::gpu::descriptors::SetLayout;
use crate::gpu::gpu_model::ModelPart;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::passes::impostor_bake::{atlas_format, BakeCrowd, BakeInputs, UNITS_PER_SLOT};
use crate::gpu::resources::{self, Image, ImageBarrier, ImageDesc};
use crate::gpu::shadow_map::ShadowMap;
use crate::gpu::{debug, vk_error, Context, GpuError};
use crate::model::Model;

impl ImpostorAtlas {
    pub(super) fn new(
        ctx: &Context,
        inputs: &BakeInputs,
        scene: (&SetLayout, &ShadowMap),
        part: &ModelPart,
        model: &Model,
    ) -> Result<ImpostorAtlas, GpuError> {
        let layout = part.impostor;
        let (width, height) = layout.extent();
        let name = &part.name;
        let image = |kind: AtlasImage| {
            let label = match kind {
                AtlasImage::Albedo(skin) => format!("albedo, skin {skin}"),
                AtlasImage::NormalDepth => "normal and depth".to_owned(),
                AtlasImage::Surface => "surface".to_owned(),
                AtlasImage::Emission => "emission".to_owned(),
            };
            use vk::ImageUsageFlags as Usage;
            let desc = ImageDesc {
                extent: vk::Extent2D { width, height },
                format: atlas_format(kind),
                usage: Usage::COLOR_ATTACHMENT
                    | Usage::SAMPLED
                    | Usage::TRANSFER_SRC
                    | Usage::TRANSFER_DST,
                mip_levels: layout.mip_levels(),
                swizzle: vk::ComponentMapping::default(),
                array_layers: Some(layout.slots),
                samples: vk::SampleCountFlags::TYPE_1,
            };
            resources::create_image(ctx, &format!("impostor {label}: {name}"), &desc)
        };
        let kinds = layout.images();
        let mut images = guard(ctx, Vec::with_capacity(kinds.len()));
        for kind in kinds {
            images.push(image(kind)?);
        }
        let mut slot_views = guard(ctx, SlotViews(Vec::new()));
        for image in images.iter() {
            let mut views = Vec::with_capacity(layout.slots as usize);
            for slot in 0..layout.slots {
                match slot_view(ctx, image, slot) {
                    Ok(view) => views.push(view),
                    Err(error) => {
                        slot_views.0.push(views);
                        return Err(error);
                    }
                }
            }
            slot_views.0.push(views);
        }
        let bake = guard(ctx, BakeCrowd::new(ctx, inputs, scene, (part, model))?);
        // Every layer readable from the start: the draw's set views them
        // all, and a slot is rendered into from this layout and back.
        resources::submit_and_wait(ctx, "impostor atlas layouts", |cmd| {
            for image in images.iter() {
                resources::image_barrier(
                    ctx,
                    cmd,
                    &ImageBarrier {
                        image: image.handle,
                        range: resources::layer_range(
                            image.format,
                            0,
                            image.mip_levels,
                            0..layout.slots,
                        ),
                        src: (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE),
                        dst: (
                            vk::PipelineStageFlags2::FRAGMENT_SHADER,
                            vk::AccessFlags2::SHADER_SAMPLED_READ,
                        ),
                        old_layout: vk::ImageLayout::UNDEFINED,
                        new_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    },
                );
            }
        })?;
        Ok(ImpostorAtlas {
            slots: AtlasSlots::new(layout.slots, layout.clip_count, UNITS_PER_SLOT),
            layout,
            skeleton: model.skeleton.clone(),
            clips: model.clips.clone(),
            morph_defaults: model.morphs.defaults.clone(),
            name: name.clone(),
            baking_since: None,
            bake: bake.keep(),
            slot_views: slot_views.keep().0,
            images: images.keep(),
        })
    }
}

/// Views made so far, destroyed when a later step fails.
struct SlotViews(Vec<Vec<vk::ImageView>>);

impl Destroy for SlotViews {
    fn destroy(self, ctx: &Context) {
        for view in self.0.into_iter().flatten() {
            unsafe { ctx.device.destroy_image_view(view, None) };
        }
    }
}

/// A 2D view of level 0 of layer `slot`: what a slot's bake renders into.
fn slot_view(ctx: &Context, image: &Image, slot: u32) -> Result<vk::ImageView, GpuError> {
    let info = vk::ImageViewCreateInfo::default()
        .image(image.handle)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(image.format)
        .subresource_range(resources::layer_range(image.format, 0, 1, slot..slot + 1));
    ctx.creation_step("vkCreateImageView")?;
    let view = unsafe { ctx.device.create_image_view(&info, None) }
        .map_err(vk_error("vkCreateImageView"))?;
    debug::set_name(
        ctx,
        view,
        &format!("impostor bake target view, slot {slot}"),
    );
    Ok(view)
}
