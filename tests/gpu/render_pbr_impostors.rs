//! Impostors of glTF materials shade as their meshes do: the atlas keeps
//! each texel's shading model, metallic, roughness, occlusion and emission,
//! and impostor.frag shades them with crowd.frag's BRDF (pbr.glsl).
//! Characters are drawn past the crossfade band, where only the impostor
//! shows, at `--lod-bias` 4 so that the impostor is large enough for its
//! texels to be compared with the mesh's pixels.

use crate::common;

use common::material_fixtures::{self, GRID};
use glam::{Mat4, Vec3};
use md5crowd::crowd;
use md5crowd::material::brdf::{self, PbrLight, PbrSurface};
use md5crowd::model::Model;
use md5crowd::shared_constants::IMPOSTOR_BAND_WIDTH;

use super::gpu_crowd::{camera_view, view_projection, Harness, HEIGHT, WIDTH};
use super::render_pbr::{
    distance, levels, one_instance, panel_boxes, panel_point, pixel_of, rgb, spheres, stored,
    texel, Sphere,
};

/// The pixels an impostor may be off by (it is drawn a texel per 4 pixels).
const LOD_BIAS: f32 = 4.0;

/// A camera `azimuth` radians round from `model`'s front (glTF's +Z, md5's
/// +X) and `rise` of the way up (0: level) from which its one instance at
/// the origin is past the band, an impostor alone, looking at its sphere's
/// centre; and the eye.
fn past_the_band(model: &Model, (azimuth, rise): (f32, f32)) -> (Mat4, Vec3) {
    let layout = model.impostor_layout(crowd::IMPOSTOR_MEMORY_BUDGET);
    let fov = 0.5;
    let params = camera_view(view_projection(Vec3::Z, Vec3::X, fov), Some(LOD_BIAS)).lod;
    // uses_impostor's rule solved for the sphere's nearest point.
    let switch = layout.error() * params.pixels_per_unit / params.threshold;
    let distance = switch * (1.0 + IMPOSTOR_BAND_WIDTH + 0.05) + layout.sphere.radius;
    let centre = layout.sphere.centre;
    let towards = Vec3::new(azimuth.cos(), azimuth.sin(), rise).normalize();
    let eye = centre + towards * distance;
    (view_projection(eye, centre, fov), eye)
}

/// The picture of `harness`'s crowd through `view` with meshes at level 0
/// and with impostors at [`LOD_BIAS`], each drawn alone; asserts that the
/// second is all impostors.
fn meshes_and_impostors(harness: &mut Harness, view: Mat4) -> (Vec<u8>, Vec<u8>) {
    harness.lod_bias = 0.0;
    let meshes = harness.render_picture(view, 0.0);
    harness.impostors = true;
    harness.lod_bias = LOD_BIAS;
    let impostors = harness.render_picture(view, 0.0);
    assert_eq!(harness.impostor_instances(), [0], "drawn as its impostor");
    (meshes, impostors)
}

/// Per column of the grid (a metallic, every roughness), how far its mean
/// colour as an impostor is from its mean colour as a mesh: the largest
/// channel's difference, in levels. Averaged over the pixels within 70% of
/// a sphere's radius on screen of the column's middle that both pictures
/// cover, so that the outlines, which the bake's coarser level and the
/// atlas's texels move, weigh little. Columns, not spheres: the atlas
/// keeps the grid's columns where the meshes are, not quite its rows (a
/// squash that the impostor of this model had before its shading changed).
fn column_differences(
    view: Mat4,
    spheres: &[Sphere],
    (meshes, impostors): (&[u8], &[u8]),
) -> Vec<f32> {
    let background = rgb(meshes, (0, 0));
    spheres
        .chunks(GRID)
        .next()
        .expect("a row of spheres")
        .iter()
        .map(|sphere| {
            let centre = pixel_of(view, sphere.centre);
            let side = pixel_of(view, sphere.centre + Vec3::Y * sphere.radius);
            let reach = (0.7 * centre.0.abs_diff(side.0) as f32) as u32;
            let (mut sums, mut count) = ([Vec3::ZERO; 2], 0);
            for y in 0..HEIGHT {
                for x in centre.0 - reach..=centre.0 + reach {
                    let seen = [rgb(meshes, (x, y)), rgb(impostors, (x, y))];
                    if seen.contains(&background) {
                        continue;
                    }
                    for (sum, pixel) in sums.iter_mut().zip(seen) {
                        *sum += Vec3::from(levels(pixel));
                    }
                    count += 1;
                }
            }
            assert!(
                count >= 25,
                "the column at {centre:?} is on screen: {count} pixels"
            );
            let [mesh, impostor] = sums.map(|sum| sum / count as f32);
            distance(
                impostor.to_array().map(|c| c.round() as u8),
                mesh.to_array(),
            )
        })
        .collect()
}

/// The sphere grid (metallic 0..1 by roughness 0..1) as its impostor and
/// as its mesh, from two baked views: each column's mean colour. On
/// lavapipe they differ by 6.14 levels on average over the 10 columns and
/// 16.43 at most; drawn with the Doom 3 impostor shading every model had
/// before (Lambert and ambient from the albedo), by 37.76 and 62.71.
#[test]
fn metallic_roughness_impostors_shade_as_their_meshes() {
    if !common::vulkan_or_skip() {
        return;
    }
    let test = "pbr_impostor_sphere_grid";
    let dir = common::scratch_dir(test);
    let glb = material_fixtures::sphere_grid();
    let (model, mut harness) = one_instance(&format!("{test}_model"), &glb);
    let spheres = spheres(&model);
    let mut differences = Vec::new();
    // From two baked views: between views, the impostor's flat picture and
    // the wall seen in perspective move the columns apart.
    for (azimuth, rise) in [(0.0f32, 0.0), (22.5f32.to_radians(), 0.0)] {
        let (view, _) = past_the_band(&model, (azimuth, rise));
        harness.impostors = false;
        let (meshes, impostors) = meshes_and_impostors(&mut harness, view);
        for (name, picture) in [("meshes", &meshes), ("impostors", &impostors)] {
            let image = image::RgbaImage::from_raw(WIDTH, HEIGHT, picture.clone()).unwrap();
            let file = format!("azimuth_{azimuth:.2}_rise_{rise:.2}_{name}.png");
            image.save(dir.join(file)).unwrap();
        }
        let these = column_differences(view, &spheres, (&meshes, &impostors));
        println!("azimuth {azimuth:.2}, rise {rise:.2}: each column's mean colour apart by {these:.1?} levels");
        differences.extend(these);
    }
    println!("pictures in {}", dir.display());
    let mean = differences.iter().sum::<f32>() / differences.len() as f32;
    let most = differences.iter().copied().fold(0.0, f32::max);
    println!("columns' mean colours apart: {mean:.2} levels on average, {most:.2} at most");
    assert!(mean <= 10.0 && most <= 20.0, "{mean:.2} {most:.2}");
    harness.finish();
}

/// An emissive-only black panel's impostor shows its emission x strength
/// (plus a black dielectric's faint reflection), and an unlit panel's its
/// base colour, in the sun and out of it, as their meshes do
/// (render_pbr's `masks_sides_emission_and_unlit_draw_as_their_materials_say`).
/// The emissive panel is 1.57 levels off on lavapipe; with the Doom 3
/// impostor shading it was black, 232 levels off.
#[test]
fn emissive_and_unlit_impostors_show_their_colours() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("pbr_impostor_panels", &material_fixtures::panels());
    let boxes = panel_boxes(&model, &material_fixtures::PANELS);
    let (emissive, unlit) = (boxes[3], boxes[4]);
    let (view, eye) = past_the_band(&model, (0.0, 0.0));
    let (_, impostors) = meshes_and_impostors(&mut harness, view);
    let at = |picture: &[u8], b, u, v| rgb(picture, pixel_of(view, panel_point(b, u, v)));
    let light = PbrLight {
        direction: harness.sun,
        color: Vec3::ONE,
        ambient: Vec3::splat(0.3),
        visibility: 1.0,
    };
    let black = PbrSurface {
        base_color: Vec3::ZERO,
        metallic: 0.0,
        roughness: 1.0,
        occlusion: 1.0,
    };
    let emitted = Vec3::from(material_fixtures::EMISSIVE_FACTOR)
        .map(|c| texel(c * material_fixtures::EMISSIVE_STRENGTH, true));
    let to_eye = (eye - panel_point(emissive, 0.5, 0.5)).normalize();
    let glow = stored(brdf::shade(&black, &light, Vec3::X, to_eye) + emitted);
    let seen = at(&impostors, emissive, 0.5, 0.5);
    println!(
        "emissive: impostor {seen:?}, expected {glow:?}: {:.2} levels",
        distance(seen, glow)
    );
    assert!(distance(seen, glow) <= 3.0, "{seen:?} {glow:?}");
    let base = Vec3::from_slice(&material_fixtures::UNLIT_COLOR[..3]).map(|c| texel(c, true));
    let lit_unlit = at(&impostors, unlit, 0.5, 0.5);
    println!("unlit: impostor {lit_unlit:?}, expected {:?}", stored(base));
    assert!(distance(lit_unlit, stored(base)) <= 2.0, "{lit_unlit:?}");
    harness.sun = Vec3::new(-harness.sun.x, harness.sun.y, -harness.sun.z);
    let picture = harness.render_picture(view, 0.0);
    assert_eq!(
        at(&picture, unlit, 0.5, 0.5),
        lit_unlit,
        "unlit ignores the sun"
    );
    harness.finish();
}

/// An eye decal at alpha 0.5 over skin, past the band: its impostor shows,
/// over the decal, the average of the two colours (the bake keeps half of
/// the decal's texels, which the filtering averages), not the decal alone,
/// and the skin beside it as it is.
#[test]
fn a_blend_decals_impostor_is_the_average_of_the_decal_and_the_skin() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("pbr_impostor_decal", &material_fixtures::eye_decal());
    let boxes = panel_boxes(&model, &["skin", "decal"]);
    let (skin, decal) = (boxes[0], boxes[1]);
    let (view, _) = past_the_band(&model, (0.0, 0.0));
    let (_, impostors) = meshes_and_impostors(&mut harness, view);
    // The mean over the decal's middle, a whole number of dither periods
    // on screen whatever their phase.
    let steps = 12;
    let mean = (0..steps * steps)
        .map(|k| {
            let (u, v) = (k % steps, k / steps);
            let (u, v) = (
                0.2 + 0.6 * u as f32 / steps as f32,
                0.2 + 0.6 * v as f32 / steps as f32,
            );
            Vec3::from(levels(rgb(
                &impostors,
                pixel_of(view, panel_point(decal, u, v)),
            )))
        })
        .sum::<Vec3>()
        / (steps * steps) as f32;
    let linear = |c: [f32; 4]| Vec3::new(c[0], c[1], c[2]).map(|v| texel(v, true));
    let alpha = texel(material_fixtures::DECAL_COLOR[3], false);
    let decal_color = linear(material_fixtures::DECAL_COLOR);
    let skin_color = linear(material_fixtures::SKIN_COLOR);
    // The atlas averages stored (sRGB) texels in linear light, as the
    // attachment blends.
    let expected = stored(decal_color * alpha + skin_color * (1.0 - alpha));
    let opaque = stored(decal_color);
    let off = |a: Vec3, b: [f32; 3]| (a - Vec3::from(b)).abs().max_element();
    println!(
        "decal impostor: mean {mean}, expected {expected:?} ({:.1} levels), opaque decal {opaque:?} ({:.1} levels)",
        off(mean, expected),
        off(mean, opaque)
    );
    assert!(off(mean, expected) <= 8.0, "{mean} against {expected:?}");
    let beside = rgb(&impostors, pixel_of(view, panel_point(skin, 0.5, 0.1)));
    assert!(distance(beside, stored(skin_color)) <= 3.0, "{beside:?}");
    harness.finish();
}
