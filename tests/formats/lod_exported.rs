//! Levels of detail for characters as other tools export them (the
//! generator's `low_poly` fixtures, md5mesh text written the way converters
//! write it): flat-shaded with no vertex shared, split at every uv seam,
//! with duplicate vertices and degenerate triangles, and in 60 small meshes.
//! Each gets a full chain, and drawn with LOD on, a crowd of them looks like
//! the full meshes.

use crate::common;
use crate::common::character;

use std::collections::HashMap;

use md5crowd::bounds::Bounds;
use md5crowd::inspect::{summed_lods, LodReport};
use md5crowd::md5;
use md5crowd::model::{skeleton_from_md5, skinned_mesh_from_md5};
use md5crowd::skin::{InfluenceLimit, SkinnedMesh};

use character::low_poly;

/// The meshes of an md5mesh text, converted and given their chains as
/// `Model::load` does.
fn loaded(file: &str, text: &str) -> Vec<SkinnedMesh> {
    let md5 = md5::parse_mesh(text, file).unwrap_or_else(|e| panic!("{e}"));
    let skeleton = skeleton_from_md5(&md5);
    md5.meshes
        .iter()
        .map(|m| {
            let mut mesh = skinned_mesh_from_md5(m, &skeleton, InfluenceLimit::Four);
            mesh.build_lods();
            mesh
        })
        .collect()
}

fn chain_text(lods: &[LodReport]) -> String {
    lods.iter()
        .map(|l| format!("{} ({:.2})", l.tris, l.error))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first level's error may be at most this fraction of the
/// character's height.
const FIRST_LEVEL_ERROR: f32 = 0.02;

#[test]
fn exported_characters_get_full_chains() {
    let mut chains = HashMap::new();
    let mut short = Vec::new();
    for (file, text) in low_poly::exported() {
        let meshes = loaded(file, &text);
        let lods = summed_lods(&meshes);
        let chain = chain_text(&lods);
        println!("{file} ({} meshes): {chain}", meshes.len());
        let bounds = (meshes.iter().flat_map(|m| &m.positions))
            .fold(Bounds::EMPTY, |b, &p| b.union(Bounds::point(p)));
        let height = bounds.max.z - bounds.min.z;
        let full = lods[0].tris as f32;
        let fits = lods.len() >= 4
            && lods[1].tris as f32 <= 0.7 * full
            && lods[1].error <= FIRST_LEVEL_ERROR * height
            && lods.last().unwrap().tris as f32 <= 0.15 * full;
        if !fits {
            short.push(format!("{file}: {chain}"));
        }
        for (i, mesh) in meshes.iter().enumerate() {
            if let Some(note) = mesh.short_chain {
                short.push(format!("{file} mesh {i}: {note}"));
            }
        }
        chains.insert(file, lods);
    }
    assert!(short.is_empty(), "{short:#?}");
    // The splits are invisible to the simplifier: the flat-shaded export
    // gets the welded export's levels, the duplicated one levels of the
    // same sizes (its LOD 0 counts its degenerate triangles, whose corners
    // and centres, measured against, can tip a level's choice between two
    // candidates).
    let welded = &chains[low_poly::WELDED];
    assert_eq!(&chains[low_poly::FLAT], welded);
    let sizes = |lods: &[LodReport]| lods[1..].iter().map(|l| l.tris).collect::<Vec<_>>();
    assert_eq!(sizes(&chains[low_poly::DUPLICATES]), sizes(welded));
}

/// 100 flat-shaded characters in the overview, drawn from the generator's
/// files (clips and textures included). At 480x270 the back rows are a few
/// dozen pixels high, where the coarser levels take over (at 1280x720 all
/// 100 stay at full detail).
fn flat_crowd(dir: &std::path::Path, lod: &str, weld: &str) -> image::RgbaImage {
    let png = dir.join(format!("lod_{lod}_weld_{weld}.png"));
    let mesh = dir.join(low_poly::FLAT);
    let walk = dir.join("walk.md5anim");
    common::md5crowd_validated(&[
        "--weld",
        weld,
        mesh.to_str().unwrap(),
        walk.to_str().unwrap(),
        "--headless",
        "--width",
        "480",
        "--height",
        "270",
        "--screenshot",
        png.to_str().unwrap(),
        "--instances",
        "100",
        "--view",
        "overview",
        "--locomotion",
        "off",
        "--time",
        "1.5",
        "--lod",
        lod,
    ]);
    image::open(&png).unwrap().to_rgba8()
}

/// Pixels that differ at all, and the fraction of the picture that
/// differs by more than 10% (printed).
fn compared(a: &image::RgbaImage, b: &image::RgbaImage) -> (usize, f64) {
    let changed = common::differing_pixels(a, b, 0);
    let differing = common::differing_pixels(a, b, 25);
    let fraction = differing as f64 / f64::from(a.width() * a.height());
    println!(
        "{changed} pixels changed, {differing} ({:.3}%) by more than 10%",
        fraction * 100.0
    );
    (changed, fraction)
}

#[test]
fn lod_keeps_the_flat_shaded_crowds_picture() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("lod_exported");
    low_poly::write_low_poly(&dir).expect("the generator writes into a temp dir");
    let (on, off) = (flat_crowd(&dir, "on", "on"), flat_crowd(&dir, "off", "on"));
    let (changed, fraction) = compared(&on, &off);
    assert!(changed > 0, "no character was drawn at a coarser level");
    assert!(fraction <= 0.01, "{fraction}");
}

#[test]
fn welding_makes_the_exporters_copies_one_vertex() {
    let welded_vertices = |file: &str, text: &str| {
        let mut meshes = loaded(file, text);
        let triangles: usize = meshes.iter().map(SkinnedMesh::triangle_count).sum();
        for mesh in &mut meshes {
            mesh.weld();
            mesh.build_lods();
        }
        assert_eq!(
            meshes
                .iter()
                .map(SkinnedMesh::triangle_count)
                .sum::<usize>(),
            triangles,
            "{file}: welding keeps every triangle"
        );
        meshes.iter().map(SkinnedMesh::vertex_count).sum::<usize>()
    };
    let exported: HashMap<&str, String> = low_poly::exported().into_iter().collect();
    let welded = welded_vertices(low_poly::WELDED, &exported[low_poly::WELDED]);
    let flat = &exported[low_poly::FLAT];
    let unwelded: usize = loaded(low_poly::FLAT, flat)
        .iter()
        .map(SkinnedMesh::vertex_count)
        .sum();
    println!("flat-shaded: {unwelded} vertices, {welded} welded");
    assert!(unwelded >= 3 * welded, "{unwelded} against {welded}");
    assert_eq!(welded_vertices(low_poly::FLAT, flat), welded);
    assert_eq!(
        welded_vertices(low_poly::DUPLICATES, &exported[low_poly::DUPLICATES]),
        welded
    );
}

#[test]
fn welding_keeps_the_flat_shaded_crowds_picture() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("weld_exported");
    low_poly::write_low_poly(&dir).expect("the generator writes into a temp dir");
    let (welded, as_written) = (
        flat_crowd(&dir, "off", "on"),
        flat_crowd(&dir, "off", "off"),
    );
    let (_, fraction) = compared(&welded, &as_written);
    // Only the tangents differ (averaged over the welded triangles).
    assert!(fraction <= 0.001, "{fraction}");
}
