//! Diffuse textures: finding the file an md5 `shader` names, decoding it
//! (PNG, TGA, JPEG) and uploading it as a mipmapped sRGB image.

use std::path::{Path, PathBuf};

use ash::vk;

use super::resources::{self, Image, ImageBarrier, ImageDesc};
use super::{Context, GpuError};

const EXTENSIONS: [&str; 3] = ["png", "tga", "jpg"];
const FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// The files tried for an md5 `shader` string, in order: the string as a
/// path relative to the mesh file, then with each of [`EXTENSIONS`]
/// appended; then its file name alone in the mesh's folder, bare and with
/// each extension (md5 shaders are often engine paths such as
/// `models/characters/marine/marine` that only exist in the game tree).
pub fn texture_candidates(mesh_path: &Path, shader: &str) -> Vec<PathBuf> {
    let folder = mesh_path.parent().unwrap_or(Path::new(""));
    let mut candidates = Vec::new();
    let mut add_with_extensions = |base: PathBuf| {
        let with_extensions = EXTENSIONS.iter().map(|ext| {
            let mut name = base.clone().into_os_string();
            name.push(".");
            name.push(ext);
            PathBuf::from(name)
        });
        for candidate in std::iter::once(base.clone()).chain(with_extensions) {
            if !candidates.contains(&candidate) {
                candidates.push(candidate);
            }
        }
    };
    if shader.is_empty() {
        return candidates;
    }
    add_with_extensions(folder.join(shader));
    if let Some(file_name) = Path::new(shader).file_name() {
        add_with_extensions(folder.join(file_name));
    }
    candidates
}

/// The texture for `shader`, or a neutral mid-grey one and a single warning
/// naming every path tried when no file exists.
pub fn load_material_texture(
    ctx: &Context,
    mesh_path: &Path,
    shader: &str,
) -> Result<Image, GpuError> {
    let candidates = texture_candidates(mesh_path, shader);
    match candidates.iter().find(|path| path.is_file()) {
        Some(path) => load_texture(ctx, path),
        None => {
            let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            log::warn!(
                "no texture for shader \"{shader}\" (tried: {}); using a neutral grey material",
                if tried.is_empty() {
                    "nothing, the name is empty".to_owned()
                } else {
                    tried.join(", ")
                }
            );
            create_solid_texture(
                ctx,
                &format!("texture: neutral grey for \"{shader}\""),
                [128, 128, 128, 255],
            )
        }
    }
}

pub fn load_texture(ctx: &Context, path: &Path) -> Result<Image, GpuError> {
    let decoded = image::open(path).map_err(|source| GpuError::Texture {
        path: path.display().to_string(),
        source,
    })?;
    let rgba = decoded.to_rgba8();
    let extent = vk::Extent2D {
        width: rgba.width(),
        height: rgba.height(),
    };
    upload_texture(
        ctx,
        &format!("texture: {}", path.display()),
        extent,
        rgba.as_raw(),
    )
}

pub fn create_solid_texture(ctx: &Context, name: &str, rgba: [u8; 4]) -> Result<Image, GpuError> {
    upload_texture(
        ctx,
        name,
        vk::Extent2D {
            width: 1,
            height: 1,
        },
        &rgba,
    )
}

fn upload_texture(
    ctx: &Context,
    name: &str,
    extent: vk::Extent2D,
    rgba: &[u8],
) -> Result<Image, GpuError> {
    let mip_levels = if can_blit_mips(ctx) {
        32 - extent.width.max(extent.height).leading_zeros()
    } else {
        1
    };
    let image = resources::create_image(
        ctx,
        name,
        &ImageDesc {
            extent,
            format: FORMAT,
            usage: vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC,
            mip_levels,
        },
    )?;
    let uploaded = resources::upload_with_staging(ctx, name, rgba, |cmd, staging| {
        record_upload_and_mips(ctx, cmd, staging, &image);
    });
    match uploaded {
        Ok(()) => Ok(image),
        Err(error) => {
            resources::destroy_image(ctx, image);
            Err(error)
        }
    }
}

/// Mips come from linear blits of the level above, which needs the format
/// to support blitting and linear filtering with optimal tiling.
fn can_blit_mips(ctx: &Context) -> bool {
    let properties = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.physical_device, FORMAT)
    };
    properties.optimal_tiling_features.contains(
        vk::FormatFeatureFlags::BLIT_SRC
            | vk::FormatFeatureFlags::BLIT_DST
            | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
    )
}

fn record_upload_and_mips(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    staging: vk::Buffer,
    image: &Image,
) {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: image.handle,
            range: resources::subresource_range(image.format, 0, image.mip_levels),
            src: (Stage::NONE, Access::NONE),
            // Level 0 is written by the copy, the others by blits.
            dst: (Stage::COPY | Stage::BLIT, Access::TRANSFER_WRITE),
            old_layout: Layout::UNDEFINED,
            new_layout: Layout::TRANSFER_DST_OPTIMAL,
        },
    );
    let region = vk::BufferImageCopy::default()
        .image_subresource(layers(0))
        .image_extent(image.extent.into());
    unsafe {
        ctx.device.cmd_copy_buffer_to_image(
            cmd,
            staging,
            image.handle,
            Layout::TRANSFER_DST_OPTIMAL,
            &[region],
        );
    }

    // Each level is blitted from the one above, which must first become a
    // transfer source; once read it is final and goes to the shader layout.
    let mut size = (image.extent.width as i32, image.extent.height as i32);
    for level in 1..image.mip_levels {
        let previous = level - 1;
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: image.handle,
                range: resources::subresource_range(image.format, previous, 1),
                src: (Stage::COPY | Stage::BLIT, Access::TRANSFER_WRITE),
                dst: (Stage::BLIT, Access::TRANSFER_READ),
                old_layout: Layout::TRANSFER_DST_OPTIMAL,
                new_layout: Layout::TRANSFER_SRC_OPTIMAL,
            },
        );
        let next = ((size.0 / 2).max(1), (size.1 / 2).max(1));
        let blit = vk::ImageBlit::default()
            .src_subresource(layers(previous))
            .src_offsets([
                vk::Offset3D::default(),
                vk::Offset3D {
                    x: size.0,
                    y: size.1,
                    z: 1,
                },
            ])
            .dst_subresource(layers(level))
            .dst_offsets([
                vk::Offset3D::default(),
                vk::Offset3D {
                    x: next.0,
                    y: next.1,
                    z: 1,
                },
            ]);
        unsafe {
            ctx.device.cmd_blit_image(
                cmd,
                image.handle,
                Layout::TRANSFER_SRC_OPTIMAL,
                image.handle,
                Layout::TRANSFER_DST_OPTIMAL,
                &[blit],
                vk::Filter::LINEAR,
            );
        }
        resources::image_barrier(
            ctx,
            cmd,
            &ImageBarrier {
                image: image.handle,
                range: resources::subresource_range(image.format, previous, 1),
                src: (Stage::BLIT, Access::TRANSFER_READ),
                dst: (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ),
                old_layout: Layout::TRANSFER_SRC_OPTIMAL,
                new_layout: Layout::SHADER_READ_ONLY_OPTIMAL,
            },
        );
        size = next;
    }
    let last = image.mip_levels - 1;
    resources::image_barrier(
        ctx,
        cmd,
        &ImageBarrier {
            image: image.handle,
            range: resources::subresource_range(image.format, last, 1),
            src: (Stage::COPY | Stage::BLIT, Access::TRANSFER_WRITE),
            dst: (Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ),
            old_layout: Layout::TRANSFER_DST_OPTIMAL,
            new_layout: Layout::SHADER_READ_ONLY_OPTIMAL,
        },
    );
}

fn layers(mip_level: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .mip_level(mip_level)
        .layer_count(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_documented_order() {
        let candidates =
            texture_candidates(Path::new("models/hero/hero.md5mesh"), "textures/hero/skin");
        let expected = [
            "models/hero/textures/hero/skin",
            "models/hero/textures/hero/skin.png",
            "models/hero/textures/hero/skin.tga",
            "models/hero/textures/hero/skin.jpg",
            "models/hero/skin",
            "models/hero/skin.png",
            "models/hero/skin.tga",
            "models/hero/skin.jpg",
        ];
        assert_eq!(candidates, expected.map(PathBuf::from));
    }

    #[test]
    fn a_bare_name_is_tried_once() {
        let candidates = texture_candidates(Path::new("hero.md5mesh"), "skin.tga");
        assert_eq!(
            candidates,
            ["skin.tga", "skin.tga.png", "skin.tga.tga", "skin.tga.jpg"].map(PathBuf::from)
        );
    }

    #[test]
    fn an_empty_shader_names_no_file() {
        assert!(texture_candidates(Path::new("hero.md5mesh"), "").is_empty());
    }
}
