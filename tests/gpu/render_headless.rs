//! Headless renders of the shipped character, each run under the validation
//! layer with synchronization validation (a message fails the test).

use crate::common;

use std::path::Path;

use common::{
    assert_validated, assets, covered_pixels, differing_pixels, render, scratch_dir,
    vulkan_or_skip, wireframe_or_skip,
};

/// GPU and CPU skinning compute the same thing in different float orders
/// (and the GPU interpolates unnormalised normals), so edges move by a
/// fraction of a pixel and shading by a level or two. Pixels off by more
/// than this many levels (of 255) in any channel count as different...
const LEVELS: u8 = 8;
/// ...and at most this fraction of the pixels the characters cover may
/// differ (measured: 0 on lavapipe; a vertex shader that drops all but the
/// first influence moves about 2.6%).
const MAX_DIFFERING: f64 = 0.005;

fn mesh_and(clip: &str) -> [String; 2] {
    [
        assets().join("crowdling.md5mesh").display().to_string(),
        assets()
            .join(format!("{clip}.md5anim"))
            .display()
            .to_string(),
    ]
}

/// The grid on the spot: these tests pin the character's pose at a time.
fn args<'a>(files: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    files
        .iter()
        .map(String::as_str)
        // The crowd alone: its pixels are what differs from the void.
        .chain(["--locomotion", "off", "--ground", "off"])
        .chain(extra.iter().copied())
        .collect()
}

#[test]
fn the_character_is_drawn_lit_and_textured() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("drawn");
    let files = mesh_and("walk");
    let image = render(&dir, "walk", &args(&files, &["--time", "0.4"]));
    let (width, height) = image.dimensions();
    // The character stands in the middle, roughly half the image tall.
    let covered = covered_pixels(&image) as f64 / (width * height) as f64;
    assert!(
        (0.03..0.5).contains(&covered),
        "character covers {covered:.3} of the image"
    );
    let centre = image.get_pixel(width / 2, height / 2);
    assert_ne!(centre, image.get_pixel(0, 0), "nothing at the centre");
    // Textured and lit: many distinct colours, not one flat fill.
    let colours: std::collections::HashSet<_> = image.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 200, "only {} colours", colours.len());
}

#[test]
fn the_same_arguments_give_the_same_image() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("deterministic");
    let files = mesh_and("wave");
    let frames = ["--time", "1.3", "--frames", "3", "--instances", "4"];
    let first = render(&dir, "first", &args(&files, &frames));
    let second = render(&dir, "second", &args(&files, &frames));
    assert_eq!(differing_pixels(&first, &second, 0), 0);
}

#[test]
fn gpu_skinning_matches_cpu_skinning() {
    assert_gpu_skinning_matches_the_cpu_reference("lbs");
}

/// As for LBS, against the CPU dual quaternion reference: a shader whose
/// DQS blended like LBS (or not at all) fails here, since the two differ
/// by more than `MAX_DIFFERING` where joints bend.
#[test]
fn gpu_dual_quaternion_skinning_matches_the_cpu_reference() {
    assert_gpu_skinning_matches_the_cpu_reference("dqs");
}

fn assert_gpu_skinning_matches_the_cpu_reference(skinning: &str) {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir(&format!("gpu_vs_cpu_{skinning}"));
    for (clip, time, influences) in [
        ("walk", "0.0", "4"),
        ("walk", "0.55", "4"),
        ("wave", "1.2", "4"),
        ("run", "0.3", "8"),
    ] {
        let files = mesh_and(clip);
        let common = [
            "--time",
            time,
            "--influences",
            influences,
            "--skinning",
            skinning,
        ];
        assert_gpu_skinning_matches_the_cpu(
            &dir,
            &format!("{skinning}: {clip} at {time}s, {influences} influences"),
            &format!("{clip}_{time}"),
            &args(&files, &common),
        );
    }
}

/// A glTF character (Blender's armature above the joints, STEP keys)
/// skinned on the GPU as the CPU reference skins it, by both methods.
#[test]
fn gpu_skinning_of_a_gltf_character_matches_the_cpu_reference() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("gpu_vs_cpu_gltf");
    let fox = [assets().join("gltf/Fox.glb").display().to_string()];
    for (clip, time, skinning) in [
        ("Walk", "0.3", "lbs"),
        ("Run", "0.55", "dqs"),
        ("Survey", "1.7", "lbs"),
    ] {
        let common = ["--clip", clip, "--time", time, "--skinning", skinning];
        assert_gpu_skinning_matches_the_cpu(
            &dir,
            &format!("Fox.glb {skinning}: {clip} at {time}s"),
            &format!("fox_{clip}_{time}"),
            &args(&fox, &common),
        );
    }
}

/// `arguments` rendered with GPU and with CPU skinning (three instances,
/// each reading its own rows of the transform buffer; full meshes, which
/// the CPU yardstick draws) differ in at most `MAX_DIFFERING` of the
/// pixels either covers.
fn assert_gpu_skinning_matches_the_cpu(dir: &Path, label: &str, name: &str, arguments: &[&str]) {
    let mut gpu_args = arguments.to_vec();
    // The CPU-skinning yardstick casts no shadow map.
    gpu_args.extend(["--instances", "3", "--lod", "off", "--shadows", "blob"]);
    let gpu = render(dir, &format!("{name}_gpu"), &gpu_args);
    let mut cpu_args = gpu_args.clone();
    cpu_args.push("--cpu-skinning");
    let cpu = render(dir, &format!("{name}_cpu"), &cpu_args);
    let differing = differing_pixels(&gpu, &cpu, LEVELS);
    let covered = covered_pixels(&gpu).max(covered_pixels(&cpu));
    assert!(covered > 1000, "{label}: nothing drawn");
    let fraction = differing as f64 / covered as f64;
    println!("{label}: {differing} of {covered} pixels differ");
    assert!(
        fraction <= MAX_DIFFERING,
        "{label}: {differing} pixels ({fraction:.4}) differ"
    );
}

#[test]
fn skinning_moves_the_mesh() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("skinning_moves");
    let mesh = [assets().join("crowdling.md5mesh").display().to_string()];
    let bind_pose = render(&dir, "bind_pose", &args(&mesh, &[]));
    let files = mesh_and("walk");
    let walking = render(&dir, "walking", &args(&files, &["--time", "0.25"]));
    // A broken skinning path (identity transforms, wrong rows, zero weights)
    // draws the bind pose, or nothing.
    let differing = differing_pixels(&bind_pose, &walking, LEVELS);
    assert!(
        differing > 2000,
        "the walk looks like the bind pose ({differing} pixels differ)"
    );
    // And different moments of the clip differ from each other.
    let later = render(&dir, "later", &args(&files, &["--time", "0.75"]));
    assert!(differing_pixels(&walking, &later, LEVELS) > 1000);
}

#[test]
fn dual_quaternion_and_skeleton_overlay_render_clean() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("dqs_overlay");
    let files = mesh_and("wave");
    let lbs = render(&dir, "lbs", &args(&files, &["--time", "1.0"]));
    let dqs = render(
        &dir,
        "dqs",
        &args(&files, &["--time", "1.0", "--skinning", "dqs"]),
    );
    // Same joints, same pose: the blends only differ where joints bend.
    let differing = differing_pixels(&lbs, &dqs, LEVELS);
    assert!(
        differing < lbs.width() as usize * lbs.height() as usize / 20,
        "{differing}"
    );
    let overlay = render(
        &dir,
        "skeleton",
        &args(&files, &["--time", "1.0", "--skeleton"]),
    );
    assert!(
        differing_pixels(&lbs, &overlay, LEVELS) > 100,
        "no skeleton lines drawn"
    );
}

#[test]
fn a_missing_texture_gives_one_warning_and_a_grey_material() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("missing_texture");
    // The mesh alone, away from its textures/ folder.
    let mesh = dir.join("crowdling.md5mesh");
    std::fs::copy(assets().join("crowdling.md5mesh"), &mesh).unwrap();
    let png = dir.join("grey.png");
    let output = common::md5crowd_validated(&[
        mesh.to_str().unwrap(),
        "--headless",
        "--width",
        "160",
        "--height",
        "120",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for shader in ["textures/crowdling_body", "textures/crowdling_head"] {
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains(&format!("\"{shader}\"")))
            .collect();
        assert_eq!(warnings.len(), 1, "{stderr}");
        // It says what was looked for, and where.
        let file_name = shader.rsplit('/').next().unwrap();
        assert!(
            warnings[0].contains(file_name) && warnings[0].contains(dir.to_str().unwrap()),
            "{}",
            warnings[0]
        );
    }
}

#[test]
fn wireframe_draws_the_edges_only() {
    // Vulkan with fillModeNonSolid, or skip (CI: fail).
    if !wireframe_or_skip() {
        return;
    }
    let dir = scratch_dir("wireframe");
    // One sample a pixel: with more, a line grazing a pixel tints it, and
    // every pixel of a small dense mesh is grazed (render_msaa draws the
    // wireframe at every count).
    let filled = render(
        &dir,
        "filled",
        &["--locomotion", "off", "--ground", "off", "--msaa", "1"],
    );
    let edges = render(
        &dir,
        "edges",
        &[
            "--locomotion",
            "off",
            "--ground",
            "off",
            "--wireframe",
            "--msaa",
            "1",
        ],
    );
    let (filled, edges) = (covered_pixels(&filled), covered_pixels(&edges));
    assert!(
        edges > filled / 10 && edges < filled * 9 / 10,
        "{edges} pixels of edges against {filled} filled"
    );
}

/// The demo command with no display to open a window on (a server, ssh, CI)
/// renders the window's crowd headless into md5crowd.png in the working
/// directory and says so, instead of failing.
#[test]
fn the_demo_without_a_display_renders_md5crowd_png() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("no_display");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args(["--validate", "--width", "320", "--height", "180"])
        .current_dir(&dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("md5crowd runs");
    assert_validated(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering 64 instances headless into md5crowd.png"),
        "{stderr}"
    );
    let image = image::open(dir.join("md5crowd.png"))
        .expect("md5crowd.png in the working directory")
        .to_rgba8();
    assert_eq!(image.dimensions(), (320, 180));
    assert!(covered_pixels(&image) > 0, "the crowd is in the picture");
}

/// `--channel` works on a character given by files: the start-up log says
/// each channel's joints, and a joint the mesh lacks is a warning naming
/// the option.
#[test]
fn channels_given_on_the_command_line_resolve_on_the_skeleton() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("channels_cli");
    let (_, log) = common::render_with_log(
        &dir,
        "channels",
        &[
            "--channel",
            "torso=*spine_1",
            "--channel",
            "legs=*origin -*spine_1 nosuch",
        ],
    );
    // The crowdling: spine_1 and its 12 descendants; origin, pelvis and
    // the legs' 8 joints.
    assert!(
        log.contains("model 1: channels torso (13 joints), legs (10 joints)"),
        "{log}"
    );
    assert!(
        log.contains(
            "--channel legs=*origin -*spine_1 nosuch: channel 'legs': no joint is named 'nosuch'"
        ),
        "{log}"
    );
}

/// Morph targets (issue 59) through the whole program: the skinned face
/// character (tests/common/gltf_fixtures.rs `morph_face`), its Smile and
/// Blink animated by every clip, morphed and skinned by crowd.vert as the
/// CPU yardstick morphs and skins it. Held at 0 by `--morph`, the face is
/// back to its base shape and the picture moves (so the morph is seen).
#[test]
fn morphed_faces_are_drawn_as_the_cpu_reference_draws_them() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("gpu_vs_cpu_morph");
    let path = dir.join("face.glb");
    std::fs::write(&path, common::gltf_fixtures::morph_face_character()).unwrap();
    let face = [path.display().to_string()];
    // Close on the heads: the crowd of three seen from the front, the grid
    // the same whatever the morphs' reach.
    let close = [
        "--clip",
        "idle",
        "--spacing",
        "40",
        "--camera",
        "160,0,62:0,0,62:30",
    ];
    for (time, skinning) in [("0.5", "lbs"), ("1.4", "dqs")] {
        let mut common = vec!["--time", time, "--skinning", skinning];
        common.extend(close);
        assert_gpu_skinning_matches_the_cpu(
            &dir,
            &format!("morphed face {skinning} at {time}s"),
            &format!("face_{time}"),
            &args(&face, &common),
        );
    }
    let mut smiling = vec!["--time", "0.5", "--instances", "3"];
    smiling.extend(close);
    let mut still = smiling.clone();
    still.extend(["--morph", "Smile=0", "--morph", "Blink=0"]);
    let morphed = render(&dir, "smiling", &args(&face, &smiling));
    let held = render(&dir, "still", &args(&face, &still));
    let differing = differing_pixels(&morphed, &held, LEVELS);
    let covered = covered_pixels(&morphed);
    println!("Smile and Blink at 0 move {differing} of {covered} pixels");
    // The faces move, the bodies stay.
    assert!(
        differing > 50 && differing * 4 < covered,
        "the faces alone move: {differing} of {covered} pixels"
    );
}
