//! glTF materials drawn by crowd.frag against their CPU references
//! (`material::brdf`): a wall of spheres, metallic 0..1 by roughness 0..1,
//! each sphere's pixel nearest the eye within 3/255 of the BRDF there;
//! panels, alpha modes and sides; vertex colours multiplying the base
//! colour.

use crate::common;

use common::material_fixtures::{
    self, ColorEncoding, GRID, PAINTED_FACTOR, PAINTED_UNLIT_FACTOR, SPHERE_BASE_COLOR,
};
use glam::{Mat4, Vec3, Vec4};
use md5crowd::crowd::Instance;
use md5crowd::material::brdf::{self, PbrLight, PbrSurface};
use md5crowd::material::{srgb_encode, srgb_to_linear};
use md5crowd::model::{LoadOptions, Model};
use md5crowd::vfs::GameFile;

use super::gpu_crowd::{view_projection, Harness, HEIGHT, WIDTH};

/// A linear value as an sRGB attachment stores it, in levels, unrounded.
pub(super) fn linear_to_srgb(linear: f32) -> f32 {
    255.0 * srgb_encode(linear)
}

/// A factor as its 1x1 texel keeps it: 8 bits, sRGB-encoded or not.
pub(super) fn texel(factor: f32, srgb: bool) -> f32 {
    match srgb {
        true => srgb_to_linear(linear_to_srgb(factor).round() as u8),
        false => (factor * 255.0).round() / 255.0,
    }
}

/// `glb` written to test `test`'s folder and loaded.
pub(super) fn load_glb(test: &str, glb: &[u8]) -> Model {
    let path = common::scratch_dir(test).join("model.glb");
    std::fs::write(&path, glb).unwrap();
    Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap()
}

/// [`load_glb`], and a harness drawing
/// one instance of it at the origin, unturned (model space is the world),
/// at level 0 and without the skeleton overlay.
pub(super) fn one_instance(test: &str, glb: &[u8]) -> (Model, Harness) {
    let model = load_glb(test, glb);
    let mut harness =
        Harness::with_crowd(vec![model.clone()], vec![Instance::settled(0, 0.0)], None);
    harness.show_skeleton = false;
    harness.lod_bias = 0.0;
    (model, harness)
}

/// A sphere of the model: its material's factors, centre and radius.
pub(super) struct Sphere {
    metallic: f32,
    roughness: f32,
    pub(super) centre: Vec3,
    pub(super) radius: f32,
}

pub(super) fn spheres(model: &Model) -> Vec<Sphere> {
    let mut spheres = Vec::new();
    for row in 0..GRID {
        for column in 0..GRID {
            let name = material_fixtures::sphere_material_name(column, row);
            let mesh = model.meshes.iter().find(|m| m.shader == name).unwrap();
            let (low, high) = mesh.positions.iter().fold(
                (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
                |(low, high), &p| (low.min(p), high.max(p)),
            );
            let (metallic, roughness) = material_fixtures::sphere_factors(column, row);
            spheres.push(Sphere {
                metallic,
                roughness,
                centre: (low + high) / 2.0,
                radius: (high.x - low.x) / 2.0,
            });
        }
    }
    spheres
}

/// Where the ray from `eye` through pixel `(x, y)`'s centre meets `sphere`.
fn ray_hit(view_projection: Mat4, eye: Vec3, (x, y): (u32, u32), sphere: &Sphere) -> Option<Vec3> {
    let ndc = Vec4::new(
        (x as f32 + 0.5) / WIDTH as f32 * 2.0 - 1.0,
        (y as f32 + 0.5) / HEIGHT as f32 * 2.0 - 1.0,
        0.5,
        1.0,
    );
    let far = view_projection.inverse() * ndc;
    let direction = (far.truncate() / far.w - eye).normalize();
    let to_centre = sphere.centre - eye;
    let along = to_centre.dot(direction);
    let miss = to_centre.length_squared() - along * along;
    let half_chord = (sphere.radius * sphere.radius - miss).sqrt();
    (half_chord.is_finite()).then(|| eye + direction * (along - half_chord))
}

#[test]
fn a_sphere_grid_matches_the_brdf_at_every_centre() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("pbr_sphere_grid", &material_fixtures::sphere_grid());
    let spheres = spheres(&model);
    let grid_centre = spheres.iter().map(|s| s.centre).sum::<Vec3>() / spheres.len() as f32;
    // In front of the wall (glTF's +Z is md5's +X), a little above it.
    let eye = grid_centre + Vec3::new(160.0, 0.0, 10.0);
    let view = view_projection(eye, grid_centre, 0.35);
    let light = PbrLight {
        direction: harness.sun,
        color: Vec3::ONE,
        ambient: Vec3::splat(0.3),
        visibility: 1.0,
    };
    let picture = harness.render_picture(view, 0.0);
    let base_color = Vec3::from_slice(&SPHERE_BASE_COLOR[..3]).map(|c| texel(c, true));
    let mut worst = 0.0f32;
    for sphere in &spheres {
        let nearest = sphere.centre + (eye - sphere.centre).normalize() * sphere.radius;
        let clip = view * nearest.extend(1.0);
        let pixel = (
            ((clip.x / clip.w * 0.5 + 0.5) * WIDTH as f32) as u32,
            ((clip.y / clip.w * 0.5 + 0.5) * HEIGHT as f32) as u32,
        );
        let point = ray_hit(view, eye, pixel, sphere).expect("the centre pixel sees its sphere");
        let normal = (point - sphere.centre).normalize();
        let surface = PbrSurface {
            base_color,
            metallic: texel(sphere.metallic, false),
            roughness: texel(sphere.roughness, false),
            occlusion: 1.0,
        };
        let expected = brdf::shade(&surface, &light, normal, (eye - point).normalize());
        let at = ((pixel.1 * WIDTH + pixel.0) * 4) as usize;
        let got = &picture[at..at + 3];
        let error = (0..3)
            .map(|c| (f32::from(got[c]) - linear_to_srgb(expected[c])).abs())
            .fold(0.0, f32::max);
        println!(
            "metallic {:.2} roughness {:.2}: GPU {got:?}, CPU {:.1} {:.1} {:.1}: {error:.2} levels",
            sphere.metallic,
            sphere.roughness,
            linear_to_srgb(expected.x),
            linear_to_srgb(expected.y),
            linear_to_srgb(expected.z)
        );
        worst = worst.max(error);
    }
    println!("sphere grid: largest error {worst:.2} levels of 255");
    assert!(worst <= 3.0, "{worst:.2} levels off");
    harness.finish();
}

/// The picture's pixel under world point `point` through `view`.
pub(super) fn pixel_of(view: Mat4, point: Vec3) -> (u32, u32) {
    let clip = view * point.extend(1.0);
    (
        ((clip.x / clip.w * 0.5 + 0.5) * WIDTH as f32) as u32,
        ((clip.y / clip.w * 0.5 + 0.5) * HEIGHT as f32) as u32,
    )
}

pub(super) fn rgb(picture: &[u8], (x, y): (u32, u32)) -> [u8; 3] {
    let at = ((y * WIDTH + x) * 4) as usize;
    [picture[at], picture[at + 1], picture[at + 2]]
}

/// The largest channel difference, in levels.
pub(super) fn distance(a: [u8; 3], b: [f32; 3]) -> f32 {
    (0..3)
        .map(|c| (f32::from(a[c]) - b[c]).abs())
        .fold(0.0, f32::max)
}

pub(super) fn levels(rgb: [u8; 3]) -> [f32; 3] {
    rgb.map(f32::from)
}

/// A linear colour as the attachment stores it.
pub(super) fn stored(linear: Vec3) -> [f32; 3] {
    linear.to_array().map(linear_to_srgb)
}

/// The panels' boxes (model space = world: one instance at the origin), by
/// material name.
pub(super) fn panel_boxes(model: &Model, panels: &[&str]) -> Vec<(Vec3, Vec3)> {
    panels
        .iter()
        .map(|name| {
            let mesh = model.meshes.iter().find(|m| m.shader == *name).unwrap();
            mesh.positions.iter().fold(
                (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
                |(low, high), &p| (low.min(p), high.max(p)),
            )
        })
        .collect()
}

/// Where texture coordinate `uv` of a panel lies (glTF +X is md5 +Y, +Y is
/// +Z; v runs down).
pub(super) fn panel_point((low, high): (Vec3, Vec3), u: f32, v: f32) -> Vec3 {
    Vec3::new(
        (low.x + high.x) / 2.0,
        low.y + u * (high.y - low.y),
        high.z - v * (high.z - low.z),
    )
}

#[test]
fn masks_sides_emission_and_unlit_draw_as_their_materials_say() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("gltf_material_panels", &material_fixtures::panels());
    let boxes = panel_boxes(&model, &material_fixtures::PANELS);
    let [mask, away, double_sided, emissive, unlit] = boxes[..] else {
        unreachable!("five panels")
    };
    let centre = (boxes[0].0 + boxes[4].1) / 2.0;
    let eye = centre + Vec3::new(150.0, 0.0, 0.0);
    let view = view_projection(eye, centre, 0.5);
    let picture = harness.render_picture(view, 0.0);
    let background = levels(rgb(&picture, (0, 0)));
    let at = |b, u, v| rgb(&picture, pixel_of(view, panel_point(b, u, v)));
    let light = PbrLight {
        direction: harness.sun,
        color: Vec3::ONE,
        ambient: Vec3::splat(0.3),
        visibility: 1.0,
    };
    // MASK: the background shows through the cut cells, not the others.
    for cell in 0..16u32 {
        let (cx, cy) = (cell % 4, cell / 4);
        let seen = at(mask, (cx as f32 + 0.5) / 4.0, (cy as f32 + 0.5) / 4.0);
        let cut = (cx + cy) % 2 == 1;
        assert_eq!(
            distance(seen, background) <= 2.0,
            cut,
            "cell {cx},{cy}: {seen:?}"
        );
    }
    // One-sided from behind: nothing; double-sided: lit as its front.
    assert!(distance(at(away, 0.5, 0.5), background) <= 2.0);
    let to_eye = |b: (Vec3, Vec3)| (eye - panel_point(b, 0.5, 0.5)).normalize();
    let grey = PbrSurface {
        base_color: Vec3::splat(texel(0.5, true)),
        metallic: 1.0,
        roughness: 1.0,
        occlusion: 1.0,
    };
    let back = brdf::shade(&grey, &light, Vec3::X, to_eye(double_sided));
    let seen = at(double_sided, 0.5, 0.5);
    assert!(
        distance(seen, stored(back)) <= 3.0,
        "{seen:?} {:?}",
        stored(back)
    );
    // Emissive black: the BRDF's little reflection plus emission x strength.
    let black = PbrSurface {
        base_color: Vec3::ZERO,
        metallic: 0.0,
        ..grey
    };
    let emitted = Vec3::from(material_fixtures::EMISSIVE_FACTOR)
        .map(|c| texel(c * material_fixtures::EMISSIVE_STRENGTH, true));
    let glow = brdf::shade(&black, &light, Vec3::X, to_eye(emissive)) + emitted;
    let seen = at(emissive, 0.5, 0.5);
    assert!(
        distance(seen, stored(glow)) <= 3.0,
        "{seen:?} {:?}",
        stored(glow)
    );
    // Unlit: its base colour, with the sun in front and behind.
    let base = Vec3::from_slice(&material_fixtures::UNLIT_COLOR[..3]).map(|c| texel(c, true));
    let lit_unlit = at(unlit, 0.5, 0.5);
    assert!(distance(lit_unlit, stored(base)) <= 2.0, "{lit_unlit:?}");
    let lit_back = at(double_sided, 0.5, 0.5);
    harness.sun = Vec3::new(-harness.sun.x, harness.sun.y, -harness.sun.z);
    let picture = harness.render_picture(view, 0.0);
    let at = |b, u, v| rgb(&picture, pixel_of(view, panel_point(b, u, v)));
    assert_eq!(at(unlit, 0.5, 0.5), lit_unlit, "unlit ignores the sun");
    assert!(
        distance(at(double_sided, 0.5, 0.5), levels(lit_back)) > 10.0,
        "the sun moved"
    );
    harness.finish();
}

/// At 4 samples a pixel, the cut edges of a MASK material take
/// intermediate coverage (alpha-to-coverage); at 1, none do.
#[test]
fn mask_edges_are_antialiased_at_4x() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("gltf_mask_edges", &material_fixtures::panels());
    let mask = panel_boxes(&model, &material_fixtures::PANELS)[0];
    let centre = panel_point(mask, 0.5, 0.5);
    let eye = centre + Vec3::new(60.0, 0.0, 0.0);
    let view = view_projection(eye, centre, 0.5);
    let mut intermediate = Vec::new();
    for samples in [1, 4] {
        harness.set_samples(samples);
        let picture = harness.render_picture(view, 0.0);
        let background = levels(rgb(&picture, (0, 0)));
        let panel = levels(rgb(
            &picture,
            pixel_of(view, panel_point(mask, 0.125, 0.125)),
        ));
        // Inside the quad, away from its own (geometric) edges.
        let (x0, y0) = pixel_of(view, panel_point(mask, 0.02, 0.02));
        let (x1, y1) = pixel_of(view, panel_point(mask, 0.98, 0.98));
        let count = (y0 + 1..y1)
            .flat_map(|y| (x0 + 1..x1).map(move |x| (x, y)))
            .filter(|&p| {
                let seen = rgb(&picture, p);
                distance(seen, background) > 12.0 && distance(seen, panel) > 12.0
            })
            .count();
        println!("{samples} sample(s): {count} pixels between the panel and the background");
        intermediate.push(count);
    }
    assert_eq!(intermediate[0], 0, "one sample: cut or kept");
    assert!(intermediate[1] >= 40, "4x: {} edge pixels", intermediate[1]);
    harness.finish();
}

/// A BLEND decal at alpha 0.5 over skin is the average of the two (in
/// linear values, as the sRGB attachment blends), at 1 and 4 samples.
#[test]
fn a_blend_decal_is_the_average_of_itself_and_the_skin() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("gltf_blend_decal", &material_fixtures::eye_decal());
    let centre_of = |name: &str| {
        let mesh = model.meshes.iter().find(|m| m.shader == name).unwrap();
        mesh.positions.iter().sum::<Vec3>() / mesh.positions.len() as f32
    };
    let (skin, decal) = (centre_of("skin"), centre_of("decal"));
    let eye = skin + Vec3::new(60.0, 0.0, 0.0);
    let view = view_projection(eye, skin, 0.5);
    let linear = |c: [f32; 4]| Vec3::new(c[0], c[1], c[2]).map(|v| texel(v, true));
    let skin_color = linear(material_fixtures::SKIN_COLOR);
    let decal_color = linear(material_fixtures::DECAL_COLOR);
    let alpha = texel(material_fixtures::DECAL_COLOR[3], false);
    let expected = stored(decal_color * alpha + skin_color * (1.0 - alpha));
    for samples in [1, 4] {
        harness.set_samples(samples);
        let picture = harness.render_picture(view, 0.0);
        let seen = rgb(&picture, pixel_of(view, decal));
        // Beside the decal: the skin alone.
        let beside = rgb(&picture, pixel_of(view, skin + Vec3::new(0.0, 5.5, 5.5)));
        println!("{samples}x: decal over skin {seen:?}, expected {expected:?}; skin {beside:?}");
        assert!(distance(seen, expected) <= 3.0, "{samples}x: {seen:?}");
        assert!(
            distance(beside, stored(skin_color)) <= 2.0,
            "{samples}x: {beside:?}"
        );
    }
    harness.finish();
}

/// A thousand characters with a BLEND decal, looked at across the crowd so
/// that decals overlap: two frames of the same time are the same picture,
/// at 1 and 4 samples, under the validation layer.
#[test]
fn a_crowd_of_decals_draws_the_same_twice() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("gltf_blend_crowd");
    let path = dir.join("decal.glb");
    std::fs::write(&path, material_fixtures::eye_decal()).unwrap();
    for msaa in ["1", "4"] {
        let args = [
            common::arg(&path),
            "--instances",
            "1000",
            "--view",
            "street",
            "--time",
            "1",
            "--msaa",
            msaa,
        ];
        let first = common::render(&dir, &format!("first_{msaa}x"), &args);
        let second = common::render(&dir, &format!("second_{msaa}x"), &args);
        assert!(
            common::covered_pixels(&first) > 1000,
            "{msaa}x: nothing drawn"
        );
        assert_eq!(common::differing_pixels(&first, &second, 0), 0, "{msaa}x");
    }
}

/// What [`material_fixtures::painted_panels`] should show at each quarter
/// of each panel, linear, from the CPU twins (`brdf::base_color`, then
/// `brdf::shade` for the metallic-roughness panel), with COLOR_0 decoded
/// from `encoding`, over `background` (linear) where the BLEND panel lets
/// it through.
fn painted_expectation(
    encoding: ColorEncoding,
    light: &PbrLight,
    to_eye: impl Fn(usize, usize) -> Vec3,
    background: Vec3,
) -> Vec<[Vec3; 4]> {
    let factor = |f: [f32; 4]| Vec4::from(f).truncate().map(|c| texel(c, true)).extend(1.0);
    (0..material_fixtures::PAINTED.len())
        .map(|panel| {
            std::array::from_fn(|q| {
                let vertex = encoding.decoded(material_fixtures::PAINT[q]);
                match panel {
                    0 => {
                        let base = brdf::base_color(factor(PAINTED_FACTOR), vertex);
                        let surface = PbrSurface {
                            base_color: base.truncate(),
                            metallic: texel(material_fixtures::PAINTED_METALLIC, false),
                            roughness: texel(material_fixtures::PAINTED_ROUGHNESS, false),
                            occlusion: 1.0,
                        };
                        brdf::shade(&surface, light, Vec3::X, to_eye(panel, q))
                    }
                    1 => brdf::base_color(factor(PAINTED_UNLIT_FACTOR), vertex).truncate(),
                    _ => {
                        let base = brdf::base_color(factor(PAINTED_UNLIT_FACTOR), vertex);
                        base.truncate() * base.w + background * (1.0 - base.w)
                    }
                }
            })
        })
        .collect()
}

/// Vertex colours (COLOR_0 as Blender writes it, normalized unsigned
/// shorts) multiply the base colour of a metallic-roughness panel, an
/// unlit one and a BLEND one (whose vertex alpha lets the background
/// through): each quarter's centre within 3/255 of the CPU twins at 1 and
/// 4 samples. Without COLOR_0 the panels are their factors' colour, again
/// as the CPU says, and every quarter differs from its painted self.
#[test]
fn vertex_colours_multiply_the_base_colour() {
    if !common::vulkan_or_skip() {
        return;
    }
    let light = |harness: &Harness| PbrLight {
        direction: harness.sun,
        color: Vec3::ONE,
        ambient: Vec3::splat(0.3),
        visibility: 1.0,
    };
    let mut pictures = Vec::new();
    for encoding in [ColorEncoding::Unorm16Vec4, ColorEncoding::Absent] {
        let glb = material_fixtures::painted_panels(encoding);
        let (model, mut harness) = one_instance(&format!("vertex_colors_{encoding:?}"), &glb);
        let boxes = panel_boxes(&model, &material_fixtures::PAINTED);
        let centre = (boxes[0].0 + boxes[2].1) / 2.0;
        let eye = centre + Vec3::new(110.0, 0.0, 0.0);
        let view = view_projection(eye, centre, 0.5);
        let quarter_point = |panel: usize, q: usize| {
            let (u, v) = material_fixtures::quarter_uv(q);
            panel_point(boxes[panel], u, v)
        };
        let to_eye = |panel, q| (eye - quarter_point(panel, q)).normalize();
        for samples in [1, 4] {
            harness.set_samples(samples);
            let picture = harness.render_picture(view, 0.0);
            let background = levels(rgb(&picture, (0, 0))).map(|l| srgb_to_linear(l as u8));
            let expected =
                painted_expectation(encoding, &light(&harness), to_eye, background.into());
            let mut worst = 0.0f32;
            let mut seen = Vec::new();
            for (panel, quarters) in expected.iter().enumerate() {
                for (q, &linear) in quarters.iter().enumerate() {
                    let got = rgb(&picture, pixel_of(view, quarter_point(panel, q)));
                    let error = distance(got, stored(linear));
                    println!(
                        "{encoding:?} {samples}x {} quarter {q}: GPU {got:?}, CPU {:.1?}: {error:.2}",
                        material_fixtures::PAINTED[panel],
                        stored(linear)
                    );
                    worst = worst.max(error);
                    seen.push(got);
                }
            }
            println!("{encoding:?} {samples}x: largest error {worst:.2} levels of 255");
            assert!(
                worst <= 3.0,
                "{encoding:?} {samples}x: {worst:.2} levels off"
            );
            pictures.push(seen);
        }
        harness.finish();
    }
    // Painted against plain, sample count for sample count.
    for (painted, plain) in pictures[..2].iter().zip(&pictures[2..]) {
        let least = painted
            .iter()
            .zip(plain)
            .map(|(&a, &b)| distance(a, levels(b)))
            .fold(f32::MAX, f32::min);
        println!("painted against plain: every quarter differs by at least {least} levels");
        assert!(least >= 10.0, "a quarter kept its colour without COLOR_0");
    }
}
