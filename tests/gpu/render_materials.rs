//! Doom 3 materials as the renderer draws them: a game folder built in a
//! scratch directory (the shipped mesh under `models/md5/`, TGA images,
//! `.mtr` files; or the images in a pk4 archive, or precompressed under
//! `dds/`), rendered headless under the validation layer with each
//! variant's base folder given by `--textures`.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{
    assets, covered_pixels, differing_pixels, render_with_log, scratch_dir, shipped_character,
    shipped_tga, solid_tga, vulkan_or_skip, write_file,
};
use image::RgbaImage;

const SHADERS: [&str; 2] = ["textures/crowdling_body", "textures/crowdling_head"];

/// A base folder holding the shipped diffuse textures as TGA (what games
/// ship) and, when `material` is given, a `.mtr` that defines both shaders
/// with its body; `material` sees the shader name.
fn base_folder(root: &Path, name: &str, material: Option<&dyn Fn(&str) -> String>) -> PathBuf {
    let base = root.join(name);
    for shader in SHADERS {
        write_file(&base.join(format!("{shader}.tga")), &shipped_tga(shader));
    }
    if let Some(material) = material {
        let text: String = SHADERS
            .iter()
            .map(|shader| format!("{shader}\n{{\n{}\n}}\n", material(shader)))
            .collect();
        write_file(&base.join("materials/test.mtr"), text.as_bytes());
    }
    base
}

/// A 16x16 TGA of one colour at `base/textures/NAME.tga`.
fn write_solid_tga(base: &Path, name: &str, rgb: [u8; 3]) {
    write_file(
        &base.join(format!("textures/{name}.tga")),
        &solid_tga(16, rgb),
    );
}

/// The game folder's mesh (under `models/md5/`, beside its walk) and
/// render arguments that draw it at one fixed pose.
fn game_mesh(base: &Path) -> [String; 2] {
    let files = shipped_character("models/md5/crowdling", &["walk"]);
    for (path, bytes) in &files {
        write_file(&base.join(path), bytes);
    }
    [0, 1].map(|file| base.join(&files[file].0).display().to_string())
}

/// The game mesh at one fixed pose with `textures` as the base folder; the
/// image and the run's log.
fn render_with(dir: &Path, name: &str, mesh: &[String; 2], textures: &Path) -> (RgbaImage, String) {
    let textures = textures.display().to_string();
    let args = [
        mesh[0].as_str(),
        mesh[1].as_str(),
        "--time",
        "0.4",
        "--locomotion",
        "off",
        "--ground",
        "off",
        "--textures",
        textures.as_str(),
    ];
    render_with_log(dir, name, &args)
}

#[test]
fn flat_maps_change_nothing_and_a_tilted_normal_map_does() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("materials_flat_and_tilted");
    let plain = base_folder(&dir, "plain", None);
    let mesh = game_mesh(&plain);
    let with_maps = |name: &str, normal: [u8; 3]| {
        let base = base_folder(
            &dir,
            name,
            Some(&|shader: &str| {
                format!(
                    "\tdiffusemap {shader}.tga\n\tbumpmap textures/normal\n\tspecularmap textures/black"
                )
            }),
        );
        write_solid_tga(&base, "normal", normal);
        write_solid_tga(&base, "black", [0, 0, 0]);
        base
    };
    let flat = with_maps("flat", [128, 128, 255]);
    // About 40 degrees towards +u.
    let tilted = with_maps("tilted", [210, 128, 225]);

    let plain_image = render_with(&dir, "plain", &mesh, &plain).0;
    let flat_image = render_with(&dir, "flat", &mesh, &flat).0;
    let tilted_image = render_with(&dir, "tilted", &mesh, &tilted).0;
    let covered = covered_pixels(&plain_image);
    assert!(covered > 2_000, "the character covers {covered} pixels");
    // A flat normal map decodes to exactly +Z, a black specular map adds
    // nothing: at most a rounding level apart (filtering a constant map).
    assert_eq!(
        differing_pixels(&plain_image, &flat_image, 1),
        0,
        "a flat normal map and a black specular map look like no maps"
    );
    let changed = differing_pixels(&plain_image, &tilted_image, 8);
    assert!(
        changed * 2 > covered,
        "a tilted normal map changes the shading of most of the character: {changed} of {covered} pixels"
    );
}

#[test]
fn a_truncated_image_is_a_warning_and_a_grey_texture() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("materials_truncated");
    let plain = base_folder(&dir, "plain", None);
    let mesh = game_mesh(&plain);
    let diffuse_only = |name: &str, image: &'static str| {
        base_folder(
            &dir,
            name,
            Some(&move |_shader: &str| format!("\tdiffusemap textures/{image}")),
        )
    };
    let grey = diffuse_only("grey", "grey");
    write_solid_tga(&grey, "grey", [128, 128, 128]);
    let broken = diffuse_only("broken", "broken");
    write_solid_tga(&broken, "broken", [200, 20, 20]);
    let broken_file = broken.join("textures/broken.tga");
    let bytes = fs::read(&broken_file).unwrap();
    fs::write(&broken_file, &bytes[..bytes.len() / 3]).unwrap();

    let (broken_image, stderr) = render_with(&dir, "broken", &mesh, &broken);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("broken.tga"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "one warning naming the file (the two materials share it):\n{stderr}"
    );
    let grey_image = render_with(&dir, "grey", &mesh, &grey).0;
    assert_eq!(
        differing_pixels(&broken_image, &grey_image, 1),
        0,
        "the broken image draws as mid-grey"
    );
}

/// The shipped textures of `shader` (`textures/NAME`) as a DDS file with
/// every mip level compressed by texpresso: DXT1 for colours, RXGB (DXT5,
/// red moved to alpha) for the `_local` normal maps, as id's tools wrote
/// Doom 3's. Each level is the 2x2 average of the one above, colours
/// averaged in linear light: the renderer's own mips for PNGs (linear
/// blits of sRGB images), so that only the compression tells them apart.
fn dds_of(shader: &str) -> Vec<u8> {
    let mut level = image::open(assets().join(format!("{shader}.png")))
        .unwrap()
        .to_rgba8();
    let (width, height) = level.dimensions();
    let normal_map = shader.ends_with("_local");
    let (format, fourcc) = if normal_map {
        (texpresso::Format::Bc3, *b"RXGB")
    } else {
        (texpresso::Format::Bc1, *b"DXT1")
    };
    let srgb = !normal_map && !shader.ends_with("_s");
    let levels = 32 - width.max(height).leading_zeros();
    let mut data = Vec::new();
    for _ in 0..levels {
        let (w, h) = level.dimensions();
        let mut texels = level.clone();
        if normal_map {
            for texel in texels.pixels_mut() {
                texel.0 = [0, texel[1], texel[2], texel[0]];
            }
        }
        let mut blocks = vec![0; format.compressed_size(w as usize, h as usize)];
        format.compress(
            texels.as_raw(),
            w as usize,
            h as usize,
            texpresso::Params::default(),
            &mut blocks,
        );
        data.extend(blocks);
        level = half(&level, srgb);
    }
    common::dds::dds_file(
        width,
        height,
        levels,
        common::dds::PixelFormat::FourCc(fourcc),
        &data,
    )
}

/// `image` at half its size (at least 1), each texel the average of the 2x2
/// above it; in linear light when `srgb`.
fn half(image: &RgbaImage, srgb: bool) -> RgbaImage {
    let to_linear = |v: u8| {
        let c = f32::from(v) / 255.0;
        if !srgb {
            c
        } else if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let to_stored = |c: f32| {
        let v = if !srgb {
            c
        } else if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (v * 255.0).round().clamp(0.0, 255.0) as u8
    };
    let (w, h) = image.dimensions();
    RgbaImage::from_fn((w / 2).max(1), (h / 2).max(1), |x, y| {
        let texels = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .map(|(dx, dy)| image.get_pixel((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1)));
        image::Rgba(std::array::from_fn(|c| {
            if c == 3 {
                let sum: u32 = texels.iter().map(|t| u32::from(t[3])).sum();
                return ((sum + 2) / 4) as u8;
            }
            to_stored(texels.iter().map(|t| to_linear(t[c])).sum::<f32>() / 4.0)
        }))
    })
}

/// The shipped material file and the names of the images it names.
fn shipped_images() -> (Vec<u8>, Vec<String>) {
    let mtr = fs::read(assets().join("materials/crowdling.mtr")).unwrap();
    let images = SHADERS
        .iter()
        .flat_map(|shader| {
            [
                shader.to_string(),
                format!("{shader}_local"),
                format!("{shader}_s"),
            ]
        })
        .collect();
    (mtr, images)
}

/// The `textures:` start-up line's device memory and block-compressed
/// image count.
fn texture_memory(log: &str) -> (f64, u32) {
    let line = log
        .lines()
        .find(|l| l.contains("textures: ") && l.contains("block-compressed"))
        .unwrap_or_else(|| panic!("no texture memory line:\n{log}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    // "... 2.67 MiB of device memory, 6 of them block-compressed, filtered ..."
    let word_before = |word: &str, back: usize| {
        let at = words
            .iter()
            .position(|w| w.trim_end_matches(',') == word)
            .unwrap();
        words[at - back]
    };
    (
        word_before("MiB", 1).parse().unwrap(),
        word_before("block-compressed", 3).parse().unwrap(),
    )
}

#[test]
fn the_character_renders_alike_from_loose_images_an_archive_and_dds() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("materials_game_folders");
    let (mtr, images) = shipped_images();

    // The shipped folder as it is: loose PNGs.
    let loose = dir.join("loose");
    write_file(&loose.join("materials/crowdling.mtr"), &mtr);
    for image in &images {
        let png = format!("{image}.png");
        write_file(&loose.join(&png), &fs::read(assets().join(&png)).unwrap());
    }
    let mesh = game_mesh(&loose);

    // The same images as TGAs in an archive, the only file of its base.
    let archive = dir.join("archive");
    let tgas: Vec<(String, Vec<u8>)> = images
        .iter()
        .map(|image| (format!("{image}.tga"), shipped_tga(image)))
        .collect();
    let mut files: Vec<(&str, &[u8])> = vec![("materials/crowdling.mtr", &mtr)];
    files.extend(
        tgas.iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice())),
    );
    common::pk4::write_pk4(&archive.join("pak000.pk4"), &files);

    // Precompressed under dds/, loose.
    let dds = dir.join("dds");
    write_file(&dds.join("materials/crowdling.mtr"), &mtr);
    for image in &images {
        write_file(&dds.join(format!("dds/{image}.dds")), &dds_of(image));
    }

    let (loose_image, loose_log) = render_with(&dir, "loose", &mesh, &loose);
    let (archive_image, archive_log) = render_with(&dir, "archive", &mesh, &archive);
    let (dds_image, dds_log) = render_with(&dir, "dds", &mesh, &dds);
    for log in [&loose_log, &archive_log, &dds_log] {
        assert!(!log.contains("WARN"), "{log}");
    }
    let covered = covered_pixels(&loose_image);
    assert!(covered > 2_000, "the character covers {covered} pixels");
    assert_eq!(
        differing_pixels(&loose_image, &archive_image, 0),
        0,
        "PNG and TGA hold the same texels"
    );
    // Block compression moves a texel by a few levels, more on sharp
    // edges, where a 4x4 block holds more than its four colours.
    let (near, far) = (
        differing_pixels(&loose_image, &dds_image, 12),
        differing_pixels(&loose_image, &dds_image, 40),
    );
    println!(
        "DDS vs PNG: {near} of {covered} pixels differ by more than 12 levels, {far} by more than 40"
    );
    assert!(near * 100 < covered, "{near} of {covered}");
    assert_eq!(far, 0);

    let (png_mib, png_blocks) = texture_memory(&loose_log);
    let (dds_mib, dds_blocks) = texture_memory(&dds_log);
    println!("texture memory: {png_mib} MiB from PNG, {dds_mib} MiB from DDS");
    assert_eq!((png_blocks, dds_blocks), (0, 6));
    assert!(dds_mib * 3.0 < png_mib, "{dds_mib} MiB vs {png_mib} MiB");
}
