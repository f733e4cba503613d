//! Doom 3 materials as the renderer draws them: a game folder built in a
//! scratch directory (the shipped mesh under `models/md5/`, TGA images,
//! `.mtr` files), rendered headless under the validation layer with each
//! variant's base folder given by `--textures`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{
    assets, covered_pixels, differing_pixels, render_with_log, scratch_dir, vulkan_or_skip,
};
use image::{ImageFormat, RgbaImage};

const SHADERS: [&str; 2] = ["textures/crowdling_body", "textures/crowdling_head"];

/// A base folder holding the shipped diffuse textures as TGA (what games
/// ship) and, when `material` is given, a `.mtr` that defines both shaders
/// with its body; `material` sees the shader name.
fn base_folder(root: &Path, name: &str, material: Option<&dyn Fn(&str) -> String>) -> PathBuf {
    let base = root.join(name);
    fs::create_dir_all(base.join("textures")).unwrap();
    for shader in SHADERS {
        image::open(assets().join(format!("{shader}.png")))
            .unwrap()
            .save_with_format(base.join(format!("{shader}.tga")), ImageFormat::Tga)
            .unwrap();
    }
    if let Some(material) = material {
        fs::create_dir_all(base.join("materials")).unwrap();
        let text: String = SHADERS
            .iter()
            .map(|shader| format!("{shader}\n{{\n{}\n}}\n", material(shader)))
            .collect();
        fs::write(base.join("materials/test.mtr"), text).unwrap();
    }
    base
}

/// A 16x16 TGA of one colour at `base/textures/NAME.tga`.
fn solid_tga(base: &Path, name: &str, rgb: [u8; 3]) {
    let image = RgbaImage::from_pixel(16, 16, image::Rgba([rgb[0], rgb[1], rgb[2], 255]));
    image
        .save_with_format(base.join(format!("textures/{name}.tga")), ImageFormat::Tga)
        .unwrap();
}

/// The game folder's mesh (under `models/md5/`, beside its walk) and
/// render arguments that draw it at one fixed pose.
fn game_mesh(base: &Path) -> [String; 2] {
    let folder = base.join("models/md5/crowdling");
    fs::create_dir_all(&folder).unwrap();
    for file in ["crowdling.md5mesh", "walk.md5anim"] {
        fs::copy(assets().join(file), folder.join(file)).unwrap();
    }
    ["crowdling.md5mesh", "walk.md5anim"].map(|f| folder.join(f).display().to_string())
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
        solid_tga(&base, "normal", normal);
        solid_tga(&base, "black", [0, 0, 0]);
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
    solid_tga(&grey, "grey", [128, 128, 128]);
    let broken = diffuse_only("broken", "broken");
    solid_tga(&broken, "broken", [200, 20, 20]);
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
