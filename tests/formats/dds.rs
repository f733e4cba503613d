//! DDS images written byte by byte from known blocks (`common::dds`): what
//! they decode to on the CPU (BC1's four and three colours, BC2's and
//! BC3's alpha, RXGB's red, uncompressed RGB and grey masks), their mip
//! levels, broken and hostile headers; then on the device, under
//! validation: BC1-3 images with their levels, whose texels the device
//! decodes as the CPU does, and the CPU path for a device without
//! `textureCompressionBC`.

use crate::common;

use ash::vk;
use common::dds::{bc1_block, bc1_solid, bc3_alpha_block, dds_file, rgb565, PixelFormat};
use gpu_allocator::MemoryLocation;
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::guard::Destroy;
use md5crowd::gpu::resources::{self, Image, ImageBarrier, ImageDesc};
use md5crowd::gpu::texture::{block_format_for, format_for, load_map};
use md5crowd::gpu::{Context, ContextDesc};
use md5crowd::material::{
    decode_image, map_texels, parse_dds, BlockFormat, DdsTexels, ImageBytes, ImageSource, MapKind,
};
use md5crowd::vfs::GameFile;

const RED: u16 = 0xF800;
const GREEN: u16 = 0x07E0;
const BLUE: u16 = 0x001F;
const WHITE: u16 = 0xFFFF;

fn dxt1(width: u32, height: u32, mips: u32, blocks: &[[u8; 8]]) -> Vec<u8> {
    dds_file(
        width,
        height,
        mips,
        PixelFormat::FourCc(*b"DXT1"),
        &blocks.concat(),
    )
}

/// `bytes` as a file in a scratch folder, as a diffuse map's source.
fn source(test: &str, bytes: &[u8]) -> ImageSource {
    let path = common::scratch_dir(test).join("image.dds");
    std::fs::write(&path, bytes).unwrap();
    ImageSource::File(GameFile::loose(path))
}

fn decode(test: &str, bytes: &[u8]) -> Vec<[u8; 4]> {
    let image = decode_image(&source(test, bytes), MapKind::Diffuse, 4096);
    assert!(image.warnings.is_empty(), "{:?}", image.warnings);
    image
        .rgba
        .chunks(4)
        .map(|t| t.try_into().unwrap())
        .collect()
}

/// An 8x4 image of four levels, each a colour of its own: 8x4 red (two
/// blocks), 4x2 green, 2x1 blue, 1x1 white (one block each).
fn four_levels() -> Vec<u8> {
    let blocks = [RED, RED, GREEN, BLUE, WHITE].map(bc1_solid);
    dxt1(8, 4, 4, &blocks)
}

#[test]
fn a_bc1_block_decodes_to_its_endpoints_and_the_thirds_between() {
    // Four-colour mode (c0 > c1): indices 0, 1, 2, 3 along the top row.
    let mut indices = [0; 16];
    indices[..4].copy_from_slice(&[0, 1, 2, 3]);
    let texels = decode("bc1_four", &dxt1(4, 4, 1, &[bc1_block(RED, BLUE, indices)]));
    assert_eq!(
        texels[..4],
        [
            [255, 0, 0, 255],
            [0, 0, 255, 255],
            [170, 0, 85, 255],
            [85, 0, 170, 255]
        ]
    );
    assert!(texels[4..].iter().all(|&t| t == [255, 0, 0, 255]));

    // Three-colour mode (c0 <= c1): index 2 halfway, 3 transparent black.
    let texels = decode(
        "bc1_three",
        &dxt1(4, 4, 1, &[bc1_block(BLUE, RED, indices)]),
    );
    assert_eq!(
        texels[..4],
        [
            [0, 0, 255, 255],
            [255, 0, 0, 255],
            [127, 0, 127, 255],
            [0, 0, 0, 0]
        ]
    );
}

#[test]
fn bc3_alpha_takes_eight_steps_between_its_endpoints() {
    let indices: [u8; 16] = std::array::from_fn(|i| i as u8 % 8);
    let block = [bc3_alpha_block(140, 0, indices), bc1_solid(WHITE)].concat();
    let file = dds_file(4, 4, 1, PixelFormat::FourCc(*b"DXT5"), &block);
    let alphas: Vec<u8> = decode("bc3_alpha", &file).iter().map(|t| t[3]).collect();
    let steps = [140, 0, 120, 100, 80, 60, 40, 20];
    assert_eq!(alphas, [steps, steps].concat());
}

#[test]
fn bc2_alpha_is_four_explicit_bits_a_texel() {
    // Texel i's alpha is i (0..15), two texels a byte, the low nibble first.
    let alpha: Vec<u8> = (0..8u8).map(|i| (2 * i) | (2 * i + 1) << 4).collect();
    let block = [alpha.as_slice(), &bc1_solid(WHITE)].concat();
    let file = dds_file(4, 4, 1, PixelFormat::FourCc(*b"DXT3"), &block);
    let alphas: Vec<u8> = decode("bc2_alpha", &file).iter().map(|t| t[3]).collect();
    assert_eq!(alphas, (0..16u8).map(|a| a * 17).collect::<Vec<_>>());
}

#[test]
fn rxgb_stores_red_in_alpha_and_decodes_it_back() {
    // Doom 3's normal maps: red 0 in the colour block, x in alpha.
    let block = [
        bc3_alpha_block(200, 200, [0; 16]),
        bc1_solid(rgb565(0, 128, 255)),
    ]
    .concat();
    let file = dds_file(4, 4, 1, PixelFormat::FourCc(*b"RXGB"), &block);
    let image = parse_dds(&file).unwrap();
    assert!(image.red_in_alpha);
    assert_eq!(image.texels, DdsTexels::Blocks(BlockFormat::Bc3));
    // 128 and 255 through RGB565 come back as 130 and 255.
    assert!(decode("rxgb", &file)
        .iter()
        .all(|&t| t == [200, 130, 255, 255]));
}

#[test]
fn uncompressed_images_are_read_by_their_channel_masks() {
    // A8R8G8B8: bytes B, G, R, A.
    let argb = PixelFormat::Masks(32, [0xff_0000, 0xff00, 0xff, 0xff00_0000]);
    let file = dds_file(2, 1, 1, argb, &[30, 20, 10, 40, 3, 2, 1, 255]);
    assert_eq!(decode("argb", &file), [[10, 20, 30, 40], [1, 2, 3, 255]]);
    // R8G8B8: bytes B, G, R; no alpha mask is opaque.
    let rgb = PixelFormat::Masks(24, [0xff_0000, 0xff00, 0xff, 0]);
    let file = dds_file(2, 1, 1, rgb, &[30, 20, 10, 3, 2, 1]);
    assert_eq!(decode("rgb", &file), [[10, 20, 30, 255], [1, 2, 3, 255]]);
    // R5G6B5, little-endian: full red, then full blue.
    let r5g6b5 = PixelFormat::Masks(16, [0xf800, 0x07e0, 0x001f, 0]);
    let file = dds_file(2, 1, 1, r5g6b5, &[0x00, 0xf8, 0x1f, 0x00]);
    assert_eq!(
        decode("r5g6b5", &file),
        [[255, 0, 0, 255], [0, 0, 255, 255]]
    );
}

#[test]
fn mip_levels_are_read_each_at_its_size() {
    let image = parse_dds(&four_levels()).unwrap();
    assert!(image.warnings.is_empty());
    assert_eq!(image.levels.len(), 4);
    let colours = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255; 4],
    ];
    for (level, colour) in colours.iter().enumerate() {
        let (width, height) = image.level_extent(level);
        assert_eq!((width, height), (8 >> level, (4 >> level).max(1)));
        let texels = image.decode_level(level);
        assert_eq!(texels.len(), (width * height * 4) as usize);
        assert!(texels.chunks(4).all(|t| t == colour), "level {level}");
    }

    // Kept as blocks for a device that samples them, decoded otherwise.
    let source = ImageBytes::read(&source("dds_levels", &four_levels())).unwrap();
    let blocks = map_texels(Some(&source), MapKind::Diffuse, 4096, true);
    assert_eq!(blocks.texels, DdsTexels::Blocks(BlockFormat::Bc1));
    assert_eq!(
        blocks.levels.iter().map(Vec::len).collect::<Vec<_>>(),
        [16, 8, 8, 8]
    );
    let decoded = map_texels(Some(&source), MapKind::Diffuse, 4096, false);
    assert_eq!(decoded.texels, DdsTexels::Rgba8);
    assert_eq!(decoded.levels.len(), 4);
    assert_eq!(
        decoded.levels[2],
        [[0, 0, 255, 255], [0, 0, 255, 255]].concat()
    );

    // A device limit of 4 texels starts at the 4x2 level, with a warning.
    let small = map_texels(Some(&source), MapKind::Diffuse, 4, true);
    assert_eq!((small.width, small.height, small.levels.len()), (4, 2, 3));
    assert_eq!(small.warnings.len(), 1, "{:?}", small.warnings);
}

#[test]
fn levels_missing_from_the_end_are_a_warning_and_the_rest_is_used() {
    let whole = four_levels();
    // Level 0 (16 bytes) and level 1 (8 bytes) only.
    let cut = &whole[..whole.len() - 16];
    let image = ImageBytes::read(&source("dds_cut", cut)).unwrap();
    let texels = map_texels(Some(&image), MapKind::Diffuse, 4096, true);
    assert!(!texels.is_default);
    assert_eq!(texels.levels.len(), 2);
    assert_eq!(texels.warnings.len(), 1, "{:?}", texels.warnings);
    assert!(
        texels.warnings[0].contains("image.dds") && texels.warnings[0].contains("2 of its 4"),
        "{}",
        texels.warnings[0]
    );
}

#[test]
fn a_truncated_or_unsupported_file_is_one_warning_and_the_default() {
    let check = |test: &str, bytes: &[u8], says: &str| {
        let image = decode_image(&source(test, bytes), MapKind::Normal, 4096);
        assert!(image.is_default);
        assert_eq!(image.rgba, [128, 128, 255, 255]);
        assert_eq!(image.warnings.len(), 1, "{:?}", image.warnings);
        assert!(
            image.warnings[0].contains("image.dds") && image.warnings[0].contains(says),
            "{}",
            image.warnings[0]
        );
    };
    let whole = dxt1(64, 64, 1, &[bc1_solid(RED); 256]);
    check("dds_truncated", &whole[..whole.len() - 8], "truncated");
    check("dds_header_only", &whole[..100], "DDS");
    let ati2 = dds_file(4, 4, 1, PixelFormat::FourCc(*b"ATI2"), &[0; 16]);
    check("dds_ati2", &ati2, "ATI2");
    // A header claiming a huge image over a few bytes is refused as
    // truncated, before anything its size is allocated.
    let huge = dds_file(65535, 65535, 17, PixelFormat::FourCc(*b"DXT5"), &[0; 64]);
    check("dds_huge", &huge, "truncated");
    let huge = dds_file(
        65535,
        65535,
        1,
        PixelFormat::Masks(32, [0xff_0000, 0xff00, 0xff, 0]),
        &[0; 64],
    );
    check("dds_huge_rgb", &huge, "truncated");
}

/// Level `level` of `image` as RGBA8 texels: blitted (which decodes blocks)
/// to an RGBA8 UNORM image and copied to the host. `image` is in the
/// shader-read layout and left in the transfer-source one.
fn read_level(ctx: &Context, image: &Image, level: u32) -> Vec<u8> {
    use vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
    let extent = vk::Extent2D {
        width: (image.extent.width >> level).max(1),
        height: (image.extent.height >> level).max(1),
    };
    let target = resources::create_image(
        ctx,
        "readback target",
        &ImageDesc {
            extent,
            format: vk::Format::R8G8B8A8_UNORM,
            // Sampled only because every image here gets a view.
            usage: vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::SAMPLED,
            mip_levels: 1,
            swizzle: vk::ComponentMapping::default(),
            array_layers: None,
            samples: vk::SampleCountFlags::TYPE_1,
        },
    )
    .unwrap();
    let buffer = resources::create_buffer(
        ctx,
        "readback",
        u64::from(extent.width * extent.height * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )
    .unwrap();
    let corner = vk::Offset3D {
        x: extent.width as i32,
        y: extent.height as i32,
        z: 1,
    };
    let layers = |mip_level| {
        vk::ImageSubresourceLayers::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .mip_level(mip_level)
            .layer_count(1)
    };
    resources::submit_and_wait(ctx, "read a level back", |cmd| {
        let barrier = |image: &Image, mip, src, dst, old_layout, new_layout| {
            resources::image_barrier(
                ctx,
                cmd,
                &ImageBarrier {
                    image: image.handle,
                    range: resources::subresource_range(image.format, mip, 1),
                    src,
                    dst,
                    old_layout,
                    new_layout,
                },
            );
        };
        barrier(
            image,
            level,
            (Stage::FRAGMENT_SHADER, Access::NONE),
            (Stage::BLIT, Access::TRANSFER_READ),
            Layout::SHADER_READ_ONLY_OPTIMAL,
            Layout::TRANSFER_SRC_OPTIMAL,
        );
        barrier(
            &target,
            0,
            (Stage::NONE, Access::NONE),
            (Stage::BLIT, Access::TRANSFER_WRITE),
            Layout::UNDEFINED,
            Layout::TRANSFER_DST_OPTIMAL,
        );
        let blit = vk::ImageBlit::default()
            .src_subresource(layers(level))
            .src_offsets([vk::Offset3D::default(), corner])
            .dst_subresource(layers(0))
            .dst_offsets([vk::Offset3D::default(), corner]);
        unsafe {
            ctx.device.cmd_blit_image(
                cmd,
                image.handle,
                Layout::TRANSFER_SRC_OPTIMAL,
                target.handle,
                Layout::TRANSFER_DST_OPTIMAL,
                &[blit],
                vk::Filter::NEAREST,
            );
        }
        barrier(
            &target,
            0,
            (Stage::BLIT, Access::TRANSFER_WRITE),
            (Stage::COPY, Access::TRANSFER_READ),
            Layout::TRANSFER_DST_OPTIMAL,
            Layout::TRANSFER_SRC_OPTIMAL,
        );
        let region = vk::BufferImageCopy::default()
            .image_subresource(layers(0))
            .image_extent(extent.into());
        unsafe {
            ctx.device.cmd_copy_image_to_buffer(
                cmd,
                target.handle,
                Layout::TRANSFER_SRC_OPTIMAL,
                buffer.handle,
                &[region],
            );
        }
    })
    .unwrap();
    let texels = buffer.read().to_vec();
    buffer.destroy(ctx);
    target.destroy(ctx);
    texels
}

/// Deterministic bytes for blocks of every kind of content.
fn noise(count: usize, seed: u32) -> Vec<u8> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        })
        .collect()
}

/// How far a device's BC1-3 decode may stray from the CPU's (texpresso's),
/// in 8-bit levels. Vulkan takes the formats from the Khronos Data Format
/// Specification's S3TC chapter, which defines the palette's interpolated
/// entries as exact thirds (colours) and sevenths or fifths (BC3's alpha)
/// of the endpoints and leaves their rounding to the implementation.
/// Hardware interpolates at its own precision: a decoder that interpolates
/// the 5-bit endpoint channels before expanding them to 8 bits is off by up
/// to half a 5-bit step (255 / 31 / 2 = 4.1 levels), and each side rounds
/// to 8 bits once: 5. Seen: lavapipe 1, an NVIDIA H100 (driver 580) 5.
/// Real decoding errors differ by far more
/// (`real_decoding_errors_differ_by_far_more_than_the_tolerance`).
const BC_DECODE_TOLERANCE: u8 = 5;

/// The largest difference between two decoded images, byte by byte.
fn largest_difference(a: &[u8], b: &[u8]) -> u8 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0)
}

/// A 16x8 image of `blocks` of `block_bytes` noise, 5 levels.
fn noisy_levels(fourcc: [u8; 4], block_bytes: usize) -> Vec<u8> {
    // 4x2 + 2x1 + 1x1 + 1x1 + 1x1 blocks.
    let data = noise((8 + 2 + 1 + 1 + 1) * block_bytes, block_bytes as u32);
    dds_file(16, 8, 5, PixelFormat::FourCc(fourcc), &data)
}

#[test]
fn block_compressed_images_upload_with_their_levels_and_decode_as_on_the_cpu() {
    if !common::vulkan_or_skip() {
        return;
    }
    let _ = env_logger::builder().is_test(true).try_init();
    let mut ctx = Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .unwrap();
    if !ctx.texture_compression_bc
        && !common::required_or_skip(&format!("{} has no textureCompressionBC", ctx.device_name))
    {
        return;
    }
    let files = [
        ("bc1", noisy_levels(*b"DXT1", 8), BlockFormat::Bc1),
        ("bc2", noisy_levels(*b"DXT3", 16), BlockFormat::Bc2),
        ("bc3", noisy_levels(*b"DXT5", 16), BlockFormat::Bc3),
        ("rxgb", noisy_levels(*b"RXGB", 16), BlockFormat::Bc3),
    ];
    let mut largest = 0;
    for (name, file, blocks) in &files {
        let source = ImageBytes::read(&source(&format!("dds_gpu_{name}"), file)).unwrap();
        // Normal maps are UNORM, so the blit gives the stored values.
        let image = load_map(&ctx, Some(&source), MapKind::Normal, 4096).unwrap();
        assert_eq!(image.format, block_format_for(MapKind::Normal, *blocks));
        assert_eq!(image.mip_levels, 5, "{name}");
        let mut cpu = parse_dds(file).unwrap();
        // The blit reads the image, not the view: red stays in alpha.
        cpu.red_in_alpha = false;
        for level in 0..5 {
            let gpu = read_level(&ctx, &image, level as u32);
            let difference = largest_difference(&gpu, &cpu.decode_level(level));
            largest = largest.max(difference);
        }
        image.destroy(&ctx);
    }
    println!("BC1-3: the device's decode and the CPU's differ by at most {largest}");
    assert!(largest <= BC_DECODE_TOLERANCE, "{largest}");

    // Without the feature: decoded on the CPU, the file's levels kept.
    ctx.texture_compression_bc = false;
    let (name, file, _) = &files[3];
    let source = ImageBytes::read(&source(&format!("dds_cpu_{name}"), file)).unwrap();
    let image = load_map(&ctx, Some(&source), MapKind::Normal, 4096).unwrap();
    assert_eq!(image.format, format_for(MapKind::Normal));
    assert_eq!(image.mip_levels, 5);
    let cpu = parse_dds(file).unwrap();
    for level in 0..5 {
        assert_eq!(
            read_level(&ctx, &image, level as u32),
            cpu.decode_level(level)
        );
    }
    image.destroy(&ctx);

    let counts = ctx.message_counts.clone();
    drop(ctx);
    assert_eq!((counts.warnings(), counts.errors()), (0, 0));
}

/// The tolerance lets hardware round, not decode wrongly: a swapped pair of
/// endpoints, rows in the wrong order or a level read from another level's
/// blocks each differ from the right decode by far more.
#[test]
fn real_decoding_errors_differ_by_far_more_than_the_tolerance() {
    for (fourcc, block_bytes) in [(*b"DXT1", 8), (*b"DXT3", 16), (*b"DXT5", 16)] {
        let name = String::from_utf8_lossy(&fourcc).into_owned();
        let right = parse_dds(&noisy_levels(fourcc, block_bytes)).unwrap();
        // The colour block is each block's last 8 bytes: endpoints first.
        let mut swapped = right.clone();
        for level in &mut swapped.levels {
            for block in level.chunks_exact_mut(block_bytes) {
                block[block_bytes - 8..block_bytes - 4].rotate_left(2);
            }
        }
        let mut shifted = right.clone();
        for level in 1..right.levels.len() {
            let length = right.levels[level].len();
            shifted.levels[level] = right.levels[level - 1][..length].to_vec();
        }
        for level in 0..right.levels.len() {
            let expected = right.decode_level(level);
            let (width, _) = right.level_extent(level);
            let upside_down: Vec<u8> = expected
                .chunks_exact(width as usize * 4)
                .rev()
                .flatten()
                .copied()
                .collect();
            let mut wrong = vec![("swapped endpoints", swapped.decode_level(level))];
            // Level 0 has no level above it to read from.
            if level > 0 {
                wrong.push(("another level's blocks", shifted.decode_level(level)));
            }
            // A level one texel high reads the same either way up.
            if upside_down != expected {
                wrong.push(("rows upside down", upside_down));
            }
            for (what, decoded) in wrong {
                let difference = largest_difference(&decoded, &expected);
                assert!(
                    difference > 4 * BC_DECODE_TOLERANCE,
                    "{name} level {level}, {what}: {difference}"
                );
            }
        }
    }
}
