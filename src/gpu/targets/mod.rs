//! What lives as long as the image size and the sample count: the colour
//! and depth images every pass draws into, their single-sample resolves
//! when they are multisampled, the depth pyramid occlusion culling builds
//! from the depth, and the dynamic-rendering scopes around the draws
//! (`rendering_scope`). The window blits the finished picture to the
//! swapchain; headless reads it back.
//!
//! With several samples a pixel the colour is averaged into the picture at
//! the end of the frame's last scope. The depth pyramid needs each pixel's
//! farthest sample (the smallest, with reverse Z), or a sample seen past an
//! edge could be hidden by a nearer one: the scope before the pyramid
//! resolves the depth to its MIN where the device can, and
//! depth_resolve.comp reads every sample where it cannot.

use super::memory::{DeviceMemory, MemoryReport};
use ash::vk;

use gpu_allocator::MemoryLocation;

use super::descriptors::{self, Resource};
use super::guard::{guard, Destroy, Guard};
use super::model_resources::ModelResources;
use super::passes::depth_resolve;
use super::pipeline::TargetFormats;
use super::resources::{self, Buffer, Image, ImageBarrier, ImageDesc};
use super::{Context, GpuError};
use crate::crowd::{pyramid_levels, PyramidLevel, MAX_PYRAMID_LEVELS};

mod rendering_scope;
mod weighted_blend;

pub(super) use rendering_scope::{begin_rendering, end_rendering, Closing, Scope};
use weighted_blend::{create_weighted_blend, WeightedBlend};
pub use weighted_blend::{weighted_blend_formats, WEIGHTED_COLORS_FORMAT, WEIGHTS_FORMAT};

/// sRGB: shaders write linear light, the hardware encodes on store (and
/// averages samples in linear light where it resolves them).
pub const COLOR_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// What depth_resolve.comp writes: depth formats are seldom storage images.
const FARTHEST_DEPTH_FORMAT: vk::Format = vk::Format::R32_SFLOAT;

/// The attachments of targets with `samples` samples a pixel: what the
/// scene's pipelines are made for.
pub fn target_formats(samples: u32) -> TargetFormats {
    TargetFormats {
        color: Some(COLOR_FORMAT),
        further_colors: &[],
        depth: DEPTH_FORMAT,
        samples: vk::SampleCountFlags::from_raw(samples),
    }
}

/// What the passes draw into, sized to the window or the screenshot.
pub struct Targets {
    /// Samples per pixel of `color` and `depth`.
    pub samples: u32,
    /// Drawn into; the finished picture itself with one sample a pixel.
    pub color: Image,
    pub depth: Image,
    /// With several samples a pixel: their single-sample resolves.
    resolves: Option<Resolves>,
    /// The depth pyramid: a table of levels, then their texels (pyramid.glsl).
    pub pyramid: Buffer,
    pub pyramid_levels: Vec<PyramidLevel>,
    pool: vk::DescriptorPool,
    /// Set 1 of the compute passes: the farthest depth and the pyramid.
    pub pyramid_set: vk::DescriptorSet,
    /// Where the BLEND meshes draw: only for a model that has them.
    weighted_blend: Option<WeightedBlend>,
}

/// The single-sample images multisampled targets resolve into.
struct Resolves {
    /// The colour's samples averaged: the finished picture.
    color: Image,
    /// Each pixel's farthest depth sample, which the pyramid is built from.
    farthest_depth: FarthestDepth,
}

enum FarthestDepth {
    /// A depth image, the MIN resolve of the scope before the pyramid.
    Attachment(Image),
    /// A colour image depth_resolve.comp writes; `set` (set 2 of the
    /// compute passes) binds it and the multisampled depth.
    Compute {
        image: Image,
        set: vk::DescriptorSet,
    },
}

/// `pyramid_levels` in pyramid.glsl: width, height, first texel, 0.
const LEVEL_TABLE_BYTES: usize = MAX_PYRAMID_LEVELS * 4 * size_of::<u32>();

/// Targets of `extent` with `samples` a pixel, a count the device offers
/// ([`super::MultisampleSupport::clamp`]).
pub(super) fn create_targets(
    ctx: &Context,
    extent: vk::Extent2D,
    samples: u32,
    model: &ModelResources,
) -> Result<Targets, GpuError> {
    use vk::ImageUsageFlags as Usage;
    let image = |name: &str, format, usage, samples| -> Result<_, GpuError> {
        let desc = ImageDesc {
            extent,
            format,
            usage,
            mip_levels: 1,
            swizzle: vk::ComponentMapping::default(),
            array_layers: None,
            samples: vk::SampleCountFlags::from_raw(samples),
        };
        Ok(guard(ctx, resources::create_image(ctx, name, &desc)?))
    };
    let multisampled = samples > 1;
    let min_resolve = ctx.multisample.min_depth_resolve;
    let attachment = Usage::COLOR_ATTACHMENT;
    // Copied out: the picture, by the window and readbacks; the depth the
    // pyramid reads, by the tests that check the pyramid.
    let picture = attachment | Usage::TRANSFER_SRC;
    let depth_attachment = Usage::DEPTH_STENCIL_ATTACHMENT;
    let read_depth = depth_attachment | Usage::SAMPLED | Usage::TRANSFER_SRC;
    let (color, depth, resolves) = if multisampled {
        let named = |what| format!("{what} ({samples} samples)");
        let color = image(&named("color target"), COLOR_FORMAT, attachment, samples)?;
        let depth_usage = match min_resolve {
            true => depth_attachment,
            false => depth_attachment | Usage::SAMPLED,
        };
        let depth = image(&named("depth target"), DEPTH_FORMAT, depth_usage, samples)?;
        let resolved = image("picture (color resolve)", COLOR_FORMAT, picture, 1)?;
        let farthest = match min_resolve {
            true => image("farthest depth (MIN resolve)", DEPTH_FORMAT, read_depth, 1)?,
            false => image(
                "farthest depth (depth_resolve.comp)",
                FARTHEST_DEPTH_FORMAT,
                Usage::STORAGE | Usage::SAMPLED | Usage::TRANSFER_SRC,
                1,
            )?,
        };
        (color, depth, Some((resolved, farthest)))
    } else {
        let color = image("color target", COLOR_FORMAT, picture, 1)?;
        let depth = image("depth target", DEPTH_FORMAT, read_depth, 1)?;
        (color, depth, None)
    };
    let weighted_blend = match &model.blend_composite {
        Some(composite) => Some(guard(
            ctx,
            create_weighted_blend(ctx, (extent, samples), composite, model.depth_sampler)?,
        )),
        None => None,
    };
    let (pyramid, levels) = create_pyramid(ctx, extent)?;
    let computed = multisampled && !min_resolve;
    let pool = guard(
        ctx,
        descriptors::create_pool(
            ctx,
            "targets descriptor pool",
            &[
                (&model.pyramid_layout, 1),
                (&model.depth_resolve_layout, u32::from(computed)),
            ],
        )?,
    );
    let (pyramid_reads, pyramid_layout) = match &resolves {
        None => (&depth, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
        Some((_, farthest)) if computed => (farthest, vk::ImageLayout::GENERAL),
        Some((_, farthest)) => (farthest, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
    };
    let pyramid_set = descriptors::create_set(
        ctx,
        *pool,
        &model.pyramid_layout,
        "depth pyramid set",
        &[
            (
                "depth",
                Resource::Texture(pyramid_reads, model.depth_sampler, pyramid_layout),
            ),
            ("DepthPyramid", Resource::Buffer(&pyramid)),
        ],
    )?;
    let resolves = match resolves {
        None => None,
        Some((color, farthest)) => {
            let farthest_depth = if computed {
                let set = descriptors::create_set(
                    ctx,
                    *pool,
                    &model.depth_resolve_layout,
                    "depth resolve set",
                    &[
                        (
                            "depth_samples",
                            Resource::Texture(
                                &depth,
                                model.depth_sampler,
                                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                            ),
                        ),
                        ("farthest_depth", Resource::StorageImage(&farthest)),
                    ],
                )?;
                FarthestDepth::Compute {
                    image: farthest.keep(),
                    set,
                }
            } else {
                FarthestDepth::Attachment(farthest.keep())
            };
            Some(Resolves {
                color: color.keep(),
                farthest_depth,
            })
        }
    };
    Ok(Targets {
        samples,
        color: color.keep(),
        depth: depth.keep(),
        resolves,
        pyramid: pyramid.keep(),
        pyramid_levels: levels,
        pool: pool.keep(),
        pyramid_set,
        weighted_blend: weighted_blend.map(|blend| blend.keep()),
    })
}

/// The depth pyramid of targets of `extent`, its table of levels uploaded
/// (pyramid.comp writes the texels), and those levels.
fn create_pyramid(
    ctx: &Context,
    extent: vk::Extent2D,
) -> Result<(Guard<'_, Buffer>, Vec<PyramidLevel>), GpuError> {
    let levels = pyramid_levels(extent.width, extent.height);
    let texels = levels.last().map_or(0, |l| l.offset + l.width * l.height);
    let mut table = vec![0u32; LEVEL_TABLE_BYTES / size_of::<u32>()];
    for (row, level) in table.chunks_exact_mut(4).zip(&levels) {
        row.copy_from_slice(&[level.width, level.height, level.offset, 0]);
    }
    let pyramid = guard(
        ctx,
        resources::create_buffer(
            ctx,
            &format!("depth pyramid {}x{}", extent.width, extent.height),
            (LEVEL_TABLE_BYTES + texels as usize * size_of::<f32>()) as u64,
            // A transfer source for the tests that read it back.
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        )?,
    );
    resources::upload_to_buffer(
        ctx,
        "depth pyramid levels",
        &pyramid,
        bytemuck::cast_slice(&table),
    )?;
    Ok((pyramid, levels))
}

impl Targets {
    pub fn extent(&self) -> vk::Extent2D {
        self.color.extent
    }

    /// What the scene's pipelines are made for.
    pub fn formats(&self) -> TargetFormats {
        target_formats(self.samples)
    }

    /// The finished picture, one sample a pixel: TRANSFER_SRC_OPTIMAL once
    /// a frame is recorded. The ui overlay draws on it.
    pub fn picture(&self) -> &Image {
        self.resolves.as_ref().map_or(&self.color, |r| &r.color)
    }

    /// The image of each pixel's farthest depth, which the pyramid is built
    /// from: the depth target itself with one sample a pixel.
    pub fn farthest_depth(&self) -> &Image {
        match &self.resolves {
            None => &self.depth,
            Some(resolves) => match &resolves.farthest_depth {
                FarthestDepth::Attachment(image) => image,
                FarthestDepth::Compute { image, .. } => image,
            },
        }
    }

    /// The MIN resolve attachment, when the scopes resolve the depth.
    fn min_resolve(&self) -> Option<&Image> {
        match &self.resolves.as_ref()?.farthest_depth {
            FarthestDepth::Attachment(image) => Some(image),
            FarthestDepth::Compute { .. } => None,
        }
    }

    /// Writes the farthest depth from the multisampled depth where
    /// depth_resolve.comp does (the depth readable by compute shaders),
    /// with `layout` the compute passes' layout; nothing otherwise.
    pub(super) fn record_depth_resolve(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        model: &ModelResources,
    ) {
        if let Some(Resolves {
            farthest_depth: FarthestDepth::Compute { image, set },
            ..
        }) = &self.resolves
        {
            depth_resolve::record_depth_resolve(
                ctx,
                cmd,
                &model.depth_resolve,
                (model.compute_pipeline_layout, *set),
                image,
            );
        }
    }

    /// After a frame: records what leaves [`Targets::farthest_depth`]
    /// holding the farthest samples of the depth the frame ended with, a
    /// transfer source (for the tests of the pyramid).
    pub(super) fn record_final_farthest_depth(
        &self,
        ctx: &Context,
        cmd: vk::CommandBuffer,
        model: &ModelResources,
    ) {
        use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
        let depth_stages = Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS;
        let depth_written = (depth_stages, Access::DEPTH_STENCIL_ATTACHMENT_WRITE);
        let (image, old_layout, src) = match &self.resolves {
            None => (&self.depth, Layout::DEPTH_ATTACHMENT_OPTIMAL, depth_written),
            // A scope that draws nothing but resolves.
            Some(Resolves {
                farthest_depth: FarthestDepth::Attachment(farthest),
                ..
            }) => {
                begin_rendering(ctx, cmd, self, Scope::Continued, Closing::Pyramid);
                end_rendering(ctx, cmd, self, Closing::Pyramid);
                let read = (Stage::COMPUTE_SHADER, Access::NONE);
                (farthest, Layout::SHADER_READ_ONLY_OPTIMAL, read)
            }
            Some(Resolves {
                farthest_depth: FarthestDepth::Compute { image, .. },
                ..
            }) => {
                resources::image_barrier(
                    ctx,
                    cmd,
                    &ImageBarrier::whole(
                        &self.depth,
                        depth_written,
                        (Stage::COMPUTE_SHADER, Access::SHADER_SAMPLED_READ),
                        Layout::DEPTH_ATTACHMENT_OPTIMAL,
                        Layout::SHADER_READ_ONLY_OPTIMAL,
                    ),
                );
                self.record_depth_resolve(ctx, cmd, model);
                let written = (Stage::COMPUTE_SHADER, Access::SHADER_STORAGE_WRITE);
                (image, Layout::GENERAL, written)
            }
        };
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier::whole(
                image,
                src,
                (Stage::ALL_TRANSFER, Access::TRANSFER_READ),
                old_layout,
                Layout::TRANSFER_SRC_OPTIMAL,
            ),
        );
    }
}

impl DeviceMemory for Targets {
    fn memory(&self) -> MemoryReport {
        let resolves = self
            .resolves
            .iter()
            .flat_map(|_| [self.picture(), self.farthest_depth()]);
        let blend = self.weighted_blend.iter().flat_map(WeightedBlend::images);
        MemoryReport::targets(
            [&self.color, &self.depth]
                .into_iter()
                .chain(resolves)
                .chain(blend),
            [&self.pyramid],
        )
    }
}

impl Destroy for Targets {
    fn destroy(self, ctx: &Context) {
        self.weighted_blend.destroy(ctx);
        // The pool frees the sets.
        self.pool.destroy(ctx);
        self.pyramid.destroy(ctx);
        if let Some(resolves) = self.resolves {
            resolves.color.destroy(ctx);
            match resolves.farthest_depth {
                FarthestDepth::Attachment(image) => image.destroy(ctx),
                FarthestDepth::Compute { image, .. } => image.destroy(ctx),
            }
        }
        self.color.destroy(ctx);
        self.depth.destroy(ctx);
    }
}
