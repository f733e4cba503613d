//! Alpha MASK (issue 58): the cut is where texture alpha x vertex alpha
//! crosses the material's own `alphaCutoff`
//! (`material_fixtures::cutoff_panel`); past the colour pass, a standing
//! checker plane (`material_fixtures::checker_plane`) lets the sun through
//! its cut cells onto the ground, its impostor is baked with the cells cut,
//! and what lies behind a cut cell is not culled as occluded. Each of those
//! tests draws the same plane written OPAQUE beside it, where the holes
//! must vanish.

use crate::common;

use common::material_fixtures::{
    checker_plane, cutoff_panel, CheckerPlane, CHECKER_CELLS, CUTOFF, CUTOFF_COLUMN_ALPHAS,
    UPPER_VERTEX_ALPHA,
};
use std::path::Path;

use glam::{Mat4, Vec3, Vec4};
use md5crowd::crowd::Instance;
use md5crowd::gpu::frame_loop::Shadows;
use md5crowd::material::brdf;
use md5crowd::model::Model;

use super::gpu_crowd::{camera_view, view_projection, Harness, HEIGHT, WIDTH};
use super::render_pbr::{distance, levels, load_glb, one_instance, panel_point, pixel_of, rgb};

/// The plane written with alpha mode MASK, and written OPAQUE.
const MODES: [(&str, CheckerPlane); 2] = [
    ("mask", CheckerPlane::Mask),
    ("opaque", CheckerPlane::Opaque),
];
/// The same, and MASK at a cutoff of 0.3 over alphas 0.4 and 0.2 (the same
/// cells kept; a cut at 0.5 would cut them all): the shadow casters and the
/// impostor bake cut at the material's cutoff.
const MODES_AND_LOW_CUTOFF: [(&str, CheckerPlane); 3] = [
    ("mask", CheckerPlane::Mask),
    ("mask_cutoff_0_3", CheckerPlane::MaskAtLowCutoff),
    ("opaque", CheckerPlane::Opaque),
];

/// The plane's box (one instance at the origin: model space is the world).
fn plane_box(model: &Model) -> (Vec3, Vec3) {
    model.meshes[0].positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(low, high), &p| (low.min(p), high.max(p)),
    )
}

/// Keeps `picture` as `dir/name.png` for a look.
fn keep(dir: &Path, name: &str, picture: &[u8]) {
    let image = image::RgbaImage::from_raw(WIDTH, HEIGHT, picture.to_vec()).unwrap();
    image.save(dir.join(format!("{name}.png"))).unwrap();
}

/// Whether checker cell (`x`, `y`), counted from the texture's top left,
/// is cut (alpha 0).
fn cut(x: u32, y: u32) -> bool {
    (x + y) % 2 == 1
}

/// A MASK panel cut at 0.3 whose upper half is painted vertex alpha 0.5 and
/// whose texture alpha steps across the cutoff column by column: at the
/// middle of every column of both halves, at 1 and 4 samples, the panel is
/// drawn exactly where the CPU twin (`brdf::base_color`'s alpha against
/// `brdf::mask_keeps`) keeps it. A cutoff folded into the texture (0.3
/// sent to 0.5) and then multiplied by the vertex alpha would cut the upper
/// half's 0.65 and 0.8 columns, which the glTF specification keeps
/// (0.325, 0.4 >= 0.3).
#[test]
fn a_mask_cuts_where_texture_times_vertex_alpha_crosses_its_cutoff() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (model, mut harness) = one_instance("mask_cutoff", &cutoff_panel());
    let panel = plane_box(&model);
    let centre = panel_point(panel, 0.5, 0.5);
    let camera = view_projection(centre + Vec3::X * 60.0, centre, 0.5);
    let columns = CUTOFF_COLUMN_ALPHAS.len();
    // As the file holds them: texture alpha in bytes, vertex alpha in shorts.
    let texel = |column: usize| (CUTOFF_COLUMN_ALPHAS[column] * 255.0).round() / 255.0;
    let upper = (UPPER_VERTEX_ALPHA * 65535.0).round() / 65535.0;
    let halves = [(0.25, upper), (0.75, 1.0)];
    let dir = common::scratch_dir("mask_cutoff_pictures");
    for samples in [1, 4] {
        harness.set_samples(samples);
        let picture = harness.render_picture(camera, 0.0);
        keep(&dir, &format!("{samples}x"), &picture);
        let background = levels(rgb(&picture, (0, 0)));
        let mut kept = 0;
        for (v, vertex_alpha) in halves {
            for column in 0..columns {
                let u = (column as f32 + 0.5) / columns as f32;
                let seen = rgb(&picture, pixel_of(camera, panel_point(panel, u, v)));
                let white = |alpha| Vec4::new(1.0, 1.0, 1.0, alpha);
                let alpha = brdf::base_color(white(texel(column)), white(vertex_alpha)).w;
                let keeps = brdf::mask_keeps(alpha, CUTOFF);
                println!(
                    "{samples}x: texture {:.3} x vertex {vertex_alpha:.3} = {alpha:.3}: \
                     CPU {}, GPU {seen:?}",
                    texel(column),
                    if keeps { "kept" } else { "cut" },
                );
                if keeps {
                    assert_eq!(seen, [255; 3], "{samples}x: {alpha} is kept, white");
                    kept += 1;
                } else {
                    assert!(
                        distance(seen, background) <= 2.0,
                        "{samples}x: {alpha} is cut: {seen:?}, the background {background:?}"
                    );
                }
            }
        }
        println!("{samples}x: {kept} of {} column middles kept", 2 * columns);
    }
    harness.finish();
}

/// Where a pixel lies in the plane's shadow, by the CPU's reckoning.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Sunlight {
    /// Well inside a cell's shadow (its middle 60% each way): the sun
    /// passes the plane there when the cell is cut.
    Through { cut: bool },
    /// Away from the plane's shadow by a tenth of its size or more.
    Outside,
    /// Near a cell's edge or the shadow's, where the shadow map's
    /// filtering blurs.
    Edge,
}

/// Where the ray through pixel `(x, y)`'s centre meets the ground (z = 0),
/// if in front of the camera (reverse Z: depth 1 is the near plane).
fn ground_point(inverse: Mat4, (x, y): (u32, u32)) -> Option<Vec3> {
    let ndc = |i: u32, n: u32| (i as f32 + 0.5) / n as f32 * 2.0 - 1.0;
    let point = |depth: f32| {
        let h = inverse * Vec4::new(ndc(x, WIDTH), ndc(y, HEIGHT), depth, 1.0);
        h.truncate() / h.w
    };
    let (near, far) = (point(1.0), point(0.5));
    let t = near.z / (near.z - far.z);
    (t > 0.0).then(|| near + (far - near) * t)
}

/// The CPU reference of the masked shadow: the ground point `ground` traced
/// back towards the sun onto the plane (facing +X at its box's x), and the
/// checker cell it meets there.
fn sunlight(ground: Vec3, towards_sun: Vec3, (low, high): (Vec3, Vec3)) -> Sunlight {
    let on_plane = ground + towards_sun * ((low.x - ground.x) / towards_sun.x);
    // Texture coordinates: u along +Y, v down from the top (`panel_point`).
    let u = (on_plane.y - low.y) / (high.y - low.y) * CHECKER_CELLS as f32;
    let v = (high.z - on_plane.z) / (high.z - low.z) * CHECKER_CELLS as f32;
    let cells = CHECKER_CELLS as f32;
    let margin = cells * 0.1;
    if u < -margin || v < -margin || u > cells + margin || v > cells + margin {
        return Sunlight::Outside;
    }
    let inside = |c: f32| (0.0..cells).contains(&c) && (0.2..=0.8).contains(&c.fract());
    match inside(u) && inside(v) {
        true => Sunlight::Through {
            cut: cut(u as u32, v as u32),
        },
        false => Sunlight::Edge,
    }
}

/// Pixels of each kind and how many of them the shadow map darkened.
#[derive(Default, Debug)]
struct ShadowTally {
    kept: (usize, usize),
    cut: (usize, usize),
    outside: (usize, usize),
}

impl ShadowTally {
    fn shares(&self) -> [f64; 3] {
        [self.kept, self.cut, self.outside].map(|(pixels, dark)| dark as f64 / pixels.max(1) as f64)
    }
}

/// The checker plane's shadow on the ground under a sun 45 degrees up in
/// front of it, seen from above and behind the shadow (the plane itself
/// out of sight past it). The GPU's shadow is shadowmask.py's rule: the
/// ground pixels drawn with the shadow map darker by over 15% than the
/// same frame without. MASK: the kept cells' shadows are dark, the cut
/// cells' lit; OPAQUE, the same plane's cut cells shade the ground too.
/// With crowd_shadow.frag keeping every fragment the MASK plane's cut
/// cells are dark as OPAQUE's.
#[test]
fn a_masked_planes_shadow_has_holes_where_its_cells_are_cut() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("mask_shadow_pictures");
    let towards_sun = Vec3::new(1.0, 0.0, 1.0).normalize();
    let mut tallies = Vec::new();
    for (name, written) in MODES_AND_LOW_CUTOFF {
        let (model, mut harness) =
            one_instance(&format!("mask_shadow_{name}"), &checker_plane(written));
        let plane = plane_box(&model);
        harness.ground = true;
        harness.sun = towards_sun;
        // The shadow's middle: the plane's middle pushed down along the sun.
        let middle = (plane.0 + plane.1) / 2.0;
        let target = middle - towards_sun * (middle.z / towards_sun.z);
        let camera = view_projection(target + Vec3::new(-50.0, 0.0, 120.0), target, 0.6);
        harness.shadows = Shadows::Off;
        let unlit = harness.render_picture(camera, 0.0);
        harness.shadows = Shadows::Map;
        let lit = harness.render_picture(camera, 0.0);
        harness.finish();
        keep(&dir, &format!("{name}_shadows_off"), &unlit);
        keep(&dir, &format!("{name}_shadows_on"), &lit);
        let luminance = |[r, g, b]: [u8; 3]| {
            0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)
        };
        let inverse = camera.inverse();
        let mut tally = ShadowTally::default();
        for p in (0..HEIGHT).flat_map(|y| (0..WIDTH).map(move |x| (x, y))) {
            let Some(ground) = ground_point(inverse, p) else {
                continue;
            };
            let dark = luminance(rgb(&lit, p)) < 0.85 * luminance(rgb(&unlit, p)) - 2.0;
            let count = match sunlight(ground, towards_sun, plane) {
                Sunlight::Through { cut: false } => &mut tally.kept,
                Sunlight::Through { cut: true } => &mut tally.cut,
                Sunlight::Outside => &mut tally.outside,
                Sunlight::Edge => continue,
            };
            count.0 += 1;
            count.1 += usize::from(dark);
        }
        println!(
            "{name}: darkened {} of {} pixels under kept cells, {} of {} under cut cells, \
             {} of {} outside the shadow; pictures in {}",
            tally.kept.1,
            tally.kept.0,
            tally.cut.1,
            tally.cut.0,
            tally.outside.1,
            tally.outside.0,
            dir.display()
        );
        tallies.push(tally);
    }
    let (masks, opaque) = (&tallies[..2], &tallies[2]);
    for (mask, (name, _)) in masks.iter().zip(MODES_AND_LOW_CUTOFF) {
        assert!(
            mask.kept.0 >= 500 && mask.cut.0 >= 500,
            "{name}: the cells' shadows are in view: {mask:?}"
        );
        let [kept, through_cut, outside] = mask.shares();
        assert!(kept >= 0.95, "{name}: kept cells shade {kept:.3}");
        assert!(
            through_cut <= 0.02,
            "{name}: cut cells shade {through_cut:.3}"
        );
        assert!(outside <= 0.01, "{name}: {outside:.3} shaded outside");
    }
    let [kept, through_cut, _] = opaque.shares();
    assert!(
        kept >= 0.95 && through_cut >= 0.95,
        "OPAQUE shades every cell: {kept:.3} {through_cut:.3}"
    );
}

/// The checker plane past the impostor switch (1.3 times its distance, at
/// `--lod-bias 3`, so that the impostor is large), seen square on from the
/// atlas's first view: drawn as an impostor alone. Written MASK, the
/// background shows at every cut cell's middle; written OPAQUE, the plane
/// does; the kept cells' middles are the same in both within 3 levels.
#[test]
fn a_masked_impostor_shows_the_background_through_its_cut_cells() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("mask_impostor_pictures");
    let lod_bias = 3.0;
    let fov = 0.25;
    let mut pictures = Vec::new();
    let mut plane = (Vec3::ZERO, Vec3::ZERO);
    let mut camera = Mat4::IDENTITY;
    for (name, written) in MODES_AND_LOW_CUTOFF {
        let (model, mut harness) =
            one_instance(&format!("mask_impostor_{name}"), &checker_plane(written));
        plane = plane_box(&model);
        let layout = model.impostor_layout(md5crowd::crowd::IMPOSTOR_MEMORY_BUDGET);
        let params = camera_view(view_projection(Vec3::Z, Vec3::X, fov), Some(lod_bias)).lod;
        // uses_impostor's rule solved for the sphere's nearest point.
        let switch = layout.error() * params.pixels_per_unit / params.threshold;
        let centre = layout.sphere.centre;
        // In front of the plane (+X, the atlas's view 0), level with it.
        let eye = centre + Vec3::X * (1.3 * switch + layout.sphere.radius);
        camera = view_projection(eye, centre, fov);
        harness.lod_bias = lod_bias;
        harness.impostors = true;
        let picture = harness.render_picture(camera, 0.0);
        assert_eq!(
            harness.drawn_as_impostors_and_meshes(),
            (1, 0),
            "{name}: an impostor alone"
        );
        harness.finish();
        keep(&dir, name, &picture);
        pictures.push(picture);
    }
    let (masks, opaque) = (&pictures[..2], &pictures[2]);
    let background = levels(rgb(opaque, (0, 0)));
    let cells = CHECKER_CELLS as f32;
    let middle = |x: u32, y: u32| {
        let at = |i: u32| (i as f32 + 0.5) / cells;
        pixel_of(camera, panel_point(plane, at(x), at(y)))
    };
    let (left, right) = (middle(0, 0).0, middle(CHECKER_CELLS - 1, 0).0);
    let cell_pixels = (right - left) as f32 / (cells - 1.0);
    println!("a checker cell is {cell_pixels:.1} pixels wide");
    assert!(cell_pixels >= 8.0, "{cell_pixels} pixels a cell");
    for (mask, (name, _)) in masks.iter().zip(MODES_AND_LOW_CUTOFF) {
        let (mut worst_kept, mut cut_cells) = (0.0f32, 0);
        for (x, y) in (0..CHECKER_CELLS).flat_map(|y| (0..CHECKER_CELLS).map(move |x| (x, y))) {
            let p = middle(x, y);
            let (seen, solid) = (rgb(mask, p), rgb(opaque, p));
            println!("{name} cell {x},{y}: {seen:?}, OPAQUE {solid:?}");
            assert!(distance(solid, background) > 20.0, "OPAQUE covers {x},{y}");
            if cut(x, y) {
                assert!(
                    distance(seen, background) <= 2.0,
                    "{name}: cut cell {x},{y}: {seen:?}, the background {background:?}"
                );
                cut_cells += 1;
            } else {
                worst_kept = worst_kept.max(distance(seen, levels(solid)));
            }
        }
        println!(
            "{name}: {cut_cells} cut cells show the background; kept cells differ by {worst_kept} levels"
        );
        assert!(
            worst_kept <= 3.0,
            "{name}: kept cells differ by {worst_kept} levels"
        );
    }
}

/// Only kept fragments occlude: a second checker plane far behind the
/// first (40 times as far from the eye), small enough on screen to lie
/// inside one of the first's cut cells, is seen through it with occlusion
/// culling on; written OPAQUE, the first plane hides it and the cull drops
/// it. The depth pyramid is built from what crowd.frag's discard left.
#[test]
fn a_character_behind_a_masked_planes_hole_is_not_culled() {
    if !common::vulkan_or_skip() {
        return;
    }
    let mut seen_behind = Vec::new();
    for (name, mode) in MODES {
        let model = load_glb(&format!("mask_occlusion_{name}"), &checker_plane(mode));
        let plane = plane_box(&model);
        let (x, y) = (2, 1);
        assert!(cut(x, y));
        let cells = CHECKER_CELLS as f32;
        let hole = panel_point(plane, (x as f32 + 0.5) / cells, (y as f32 + 0.5) / cells);
        let eye = hole + Vec3::X * 40.0;
        // The far plane's middle on the ray through the hole.
        let middle = (plane.0 + plane.1) / 2.0;
        let mut behind = Instance::settled(0, 0.0);
        behind.position = hole - Vec3::X * 1600.0 - middle;
        let crowd = vec![Instance::settled(0, 0.0), behind];
        let mut harness = Harness::with_crowd(vec![model], crowd, None);
        harness.show_skeleton = false;
        harness.lod_bias = 0.0;
        harness.occlusion = true;
        let camera = view_projection(eye, hole, 0.5);
        // A frame first draws the last one's visible set untested: the
        // third is the first whose cull judged both planes by a pyramid.
        let visible: Vec<Vec<u32>> = (0..3).map(|_| harness.render(camera, 0.0)).collect();
        harness.finish();
        println!("{name}: visible, frame by frame: {visible:?}");
        assert!(visible[2].contains(&0), "{name}: the near plane is drawn");
        seen_behind.push(visible[2].contains(&1));
    }
    assert_eq!(
        seen_behind,
        [true, false],
        "the far plane is drawn through the MASK hole, culled behind OPAQUE"
    );
}
