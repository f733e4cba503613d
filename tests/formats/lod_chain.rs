//! LOD chains built at load (`skin::lod`): the shipped character's chain, the
//! vertex cache and fetch ordering that must not change what is drawn, and
//! synthetic grids and tubes where simplification can be checked by hand.

use crate::common;

use common::shipped_mesh;

use std::collections::HashMap;
use std::time::Instant;

use glam::{Vec2, Vec3};
use md5crowd::md5;
use md5crowd::model::{skeleton_from_md5, skinned_mesh_from_md5, Model};
use md5crowd::skin::{
    coarsest_target, lod_chain, point_triangle_distance_squared, InfluenceLimit, LodChain,
    LodLevel, LodSurface, ShortChain, SkinnedMesh, TruncationReport, VertexColor, MAX_INFLUENCES,
    MAX_LODS,
};

/// The shipped meshes as `skinned_mesh_from_md5` gives them: file order,
/// no chain.
fn plain_meshes() -> Vec<SkinnedMesh> {
    let md5 = md5::read_mesh_file(&shipped_mesh()).unwrap();
    let skeleton = skeleton_from_md5(&md5);
    md5.meshes
        .iter()
        .map(|m| skinned_mesh_from_md5(m, &skeleton, InfluenceLimit::Four))
        .collect()
}

fn loaded_model() -> Model {
    Model::load(&shipped_mesh(), &[], InfluenceLimit::Four).unwrap()
}

/// Everything the GPU reads for one vertex, as bits: two vertices with the
/// same record draw and skin alike.
type Record = Vec<u32>;

fn record(mesh: &SkinnedMesh, v: u32) -> Record {
    let v = v as usize;
    let mut r = Vec::with_capacity(32);
    r.extend(mesh.positions[v].to_array().map(f32::to_bits));
    r.extend(mesh.normals[v].to_array().map(f32::to_bits));
    r.extend(mesh.tangents[v].to_array().map(f32::to_bits));
    r.extend(mesh.uvs[v].to_array().map(f32::to_bits));
    r.extend(mesh.joints[v].map(u32::from));
    r.extend(mesh.weights[v].map(f32::to_bits));
    r
}

/// A level's triangles as vertex-record triples, each rotated to start at its
/// smallest record (rotation keeps the winding; sorting would not), counted.
fn triangle_multiset(mesh: &SkinnedMesh, indices: &[u32]) -> HashMap<[Record; 3], usize> {
    let mut set = HashMap::new();
    for tri in indices.chunks_exact(3) {
        let corners = [0, 1, 2].map(|i| record(mesh, tri[i]));
        let first = (0..3).min_by(|&a, &b| corners[a].cmp(&corners[b])).unwrap();
        let rotated = [0, 1, 2].map(|i| corners[(first + i) % 3].clone());
        *set.entry(rotated).or_insert(0) += 1;
    }
    set
}

/// The invariants every chain keeps, whatever the mesh.
fn check_chain(lods: &[LodLevel], indices: &[u32], vertex_count: usize, what: &str) {
    assert!(
        !lods.is_empty() && lods.len() <= MAX_LODS,
        "{what}: {}",
        lods.len()
    );
    assert_eq!(lods[0].indices, indices, "{what}: LOD 0 is the mesh");
    assert_eq!(lods[0].error, 0.0, "{what}");
    for (k, lod) in lods.iter().enumerate() {
        assert_eq!(lod.indices.len() % 3, 0, "{what} LOD {k}");
        assert!(
            lod.indices.iter().all(|&i| (i as usize) < vertex_count),
            "{what} LOD {k}: an index past the shared vertices"
        );
        if k > 0 {
            let tri = |t: &[u32]| t[0] != t[1] && t[1] != t[2] && t[0] != t[2];
            assert!(
                lod.indices.chunks_exact(3).all(tri),
                "{what} LOD {k}: degenerate triangle"
            );
        }
    }
    for (k, pair) in lods.windows(2).enumerate() {
        assert!(
            pair[1].triangle_count() < pair[0].triangle_count(),
            "{what}: LOD {} has {} triangles, LOD {k} {}",
            k + 1,
            pair[1].triangle_count(),
            pair[0].triangle_count()
        );
        assert!(
            pair[1].error >= pair[0].error,
            "{what}: errors decrease at LOD {}",
            k + 1
        );
    }
}

/// The chain of a mesh whose vertex `v` is moved by joint `joint_of(v)`
/// alone.
fn chain_of(
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[Vec2],
    indices: &[u32],
    joint_of: impl Fn(usize) -> u16,
) -> LodChain {
    let joints: Vec<[u16; MAX_INFLUENCES]> = (0..positions.len())
        .map(|v| {
            let mut joints = [0; MAX_INFLUENCES];
            joints[0] = joint_of(v);
            joints
        })
        .collect();
    let mut one_joint = [0.0; MAX_INFLUENCES];
    one_joint[0] = 1.0;
    let weights = vec![one_joint; positions.len()];
    let colors = vec![VertexColor::WHITE; positions.len()];
    let surface = LodSurface {
        positions,
        normals,
        uvs,
        colors: &colors,
        joints: &joints,
        weights: &weights,
    };
    lod_chain(&surface, indices)
}

/// The chain of a mesh moved by one joint.
fn chain(positions: &[Vec3], normals: &[Vec3], uvs: &[Vec2], indices: &[u32]) -> Vec<LodLevel> {
    chain_of(positions, normals, uvs, indices, |_| 0).levels
}

fn chain_text(lods: &[LodLevel]) -> String {
    lods.iter()
        .map(|l| format!("{} ({:.3})", l.triangle_count(), l.error))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn shipped_character_chain_shrinks_to_a_few_dozen_triangles() {
    let model = loaded_model();
    assert_eq!(model.meshes.len(), 2);
    for mesh in &model.meshes {
        let lods = &mesh.lods;
        check_chain(lods, &mesh.indices, mesh.vertex_count(), &mesh.shader);
        assert!(lods.len() >= 4, "{}: {}", mesh.shader, chain_text(lods));
        let (full, last) = (lods[0].triangle_count(), lods.last().unwrap());
        assert!(
            last.triangle_count() * 10 <= full,
            "{}: coarsest {} of {full}",
            mesh.shader,
            last.triangle_count()
        );
        assert!(last.triangle_count() <= coarsest_target(full));
        assert!(last.error > 0.0);
        println!("{}: {}", mesh.shader, chain_text(lods));
    }
    // A character a few pixels high: a few dozen triangles in all.
    let coarsest: usize = model
        .meshes
        .iter()
        .map(|m| m.lods.last().unwrap().triangle_count())
        .sum();
    assert!((12..=96).contains(&coarsest), "{coarsest}");
}

#[test]
fn gpu_order_draws_and_skins_the_same_surface() {
    let model = loaded_model();
    for (plain, loaded) in plain_meshes().iter().zip(&model.meshes) {
        // The same vertices (no new ones, none lost), reordered.
        assert_eq!(loaded.vertex_count(), plain.vertex_count());
        let mut a: Vec<Record> = (0..plain.vertex_count() as u32)
            .map(|v| record(plain, v))
            .collect();
        let mut b: Vec<Record> = (0..loaded.vertex_count() as u32)
            .map(|v| record(loaded, v))
            .collect();
        assert_ne!(a, b, "{}: the fetch order moved nothing", plain.shader);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{}: a vertex's streams came apart", plain.shader);

        // LOD 0 is the file's triangles, winding included, every corner with
        // its own joints and weights.
        assert_eq!(
            triangle_multiset(loaded, &loaded.indices),
            triangle_multiset(plain, &plain.indices),
            "{}",
            plain.shader
        );

        // Every level is the chain of the plain mesh, renumbered: ordering
        // for the GPU (after the chain was built) kept each level valid.
        let mut unordered = plain.clone();
        unordered.build_lods();
        assert_eq!(unordered.lods.len(), loaded.lods.len());
        for (k, (u, l)) in unordered.lods.iter().zip(&loaded.lods).enumerate() {
            assert_eq!(u.error, l.error);
            assert_eq!(
                triangle_multiset(&unordered, &u.indices),
                triangle_multiset(loaded, &l.indices),
                "{} LOD {k}",
                plain.shader
            );
        }
    }
}

#[test]
fn coarser_levels_read_a_prefix_of_the_vertices() {
    for mesh in loaded_model().meshes {
        // Vertices in order of first use, coarsest level first: the levels
        // from k down use exactly the first n vertices.
        for k in (0..mesh.lods.len()).rev() {
            let mut used = vec![false; mesh.vertex_count()];
            for lod in &mesh.lods[k..] {
                for &i in &lod.indices {
                    used[i as usize] = true;
                }
            }
            let n = used.iter().filter(|&&u| u).count();
            assert!(used[..n].iter().all(|&u| u), "{} LOD {k}", mesh.shader);
        }
    }
}

#[test]
fn vertex_cache_order_transforms_fewer_vertices() {
    let model = loaded_model();
    for (plain, loaded) in plain_meshes().iter().zip(&model.meshes) {
        let acmr = |m: &SkinnedMesh, indices: &[u32]| {
            meshopt::analyze_vertex_cache(indices, m.vertex_count(), 16, 0, 0).acmr
        };
        let (before, after) = (acmr(plain, &plain.indices), acmr(loaded, &loaded.indices));
        println!("{}: ACMR {before:.3} -> {after:.3}", plain.shader);
        assert!(after < before, "{}: {before} -> {after}", plain.shader);
        // Vertex fetch, 64-byte vertices: LOD 0 stays near perfect (md5's own
        // order already was), while the coarsest level, which a crowd draws
        // most, reads a short run at the start of the buffer instead of
        // vertices strewn across it.
        let fetch = |m: &SkinnedMesh, indices: &[u32]| {
            meshopt::analyze_vertex_fetch(indices, m.vertex_count(), 64).bytes_fetched
        };
        let (before, after) = (fetch(plain, &plain.indices), fetch(loaded, &loaded.indices));
        println!("{}: LOD 0 bytes fetched {before} -> {after}", plain.shader);
        assert!(after as f32 <= before as f32 * 1.05, "{before} -> {after}");
        let mut unordered = plain.clone();
        unordered.build_lods();
        let span = |indices: &[u32]| {
            let (min, max) = (indices.iter().min().unwrap(), indices.iter().max().unwrap());
            max - min + 1
        };
        let (before, after) = (
            span(&unordered.lods.last().unwrap().indices),
            span(&loaded.lods.last().unwrap().indices),
        );
        println!(
            "{}: coarsest level's vertex range {before} -> {after}",
            plain.shader
        );
        assert!(after < before, "{before} -> {after}");
    }
}

/// A `columns` x `rows` grid of quads in the z = 0 plane, 1 unit apart, uv =
/// xy / size, facing +z (clockwise from +z, as md5). With `seam_at`, the
/// vertices of that column are doubled: the right-hand triangles use copies
/// with u shifted by 0.5, as a uv chart boundary in md5 does.
struct Grid {
    positions: Vec<Vec3>,
    uvs: Vec<Vec2>,
    indices: Vec<u32>,
    /// Right of the seam (the copies and everything past it).
    right_chart: Vec<bool>,
}

fn grid(columns: u32, rows: u32, seam_at: Option<u32>) -> Grid {
    let mut g = Grid {
        positions: Vec::new(),
        uvs: Vec::new(),
        indices: Vec::new(),
        right_chart: Vec::new(),
    };
    let size = columns.max(rows) as f32;
    let mut ids = HashMap::new();
    let mut vertex = |x: u32, y: u32, right: bool, g: &mut Grid| -> u32 {
        let right = right && seam_at.is_some_and(|s| x >= s);
        *ids.entry((x, y, right)).or_insert_with(|| {
            g.positions.push(Vec3::new(x as f32, y as f32, 0.0));
            let shift = if right { 0.5 } else { 0.0 };
            g.uvs
                .push(Vec2::new(x as f32 / size * 0.5 + shift, y as f32 / size));
            g.right_chart.push(right);
            g.positions.len() as u32 - 1
        })
    };
    for y in 0..rows {
        for x in 0..columns {
            let right = seam_at.is_some_and(|s| x >= s);
            let [a, b, c, d] = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
                .map(|(x, y)| vertex(x, y, right, &mut g));
            // Clockwise seen from +z.
            g.indices.extend([a, d, c, a, c, b]);
        }
    }
    g
}

/// Outward face normal of a clockwise triangle, length twice its area.
fn face(positions: &[Vec3], t: &[u32]) -> Vec3 {
    let [a, b, c] = [0, 1, 2].map(|i| positions[t[i] as usize]);
    (c - a).cross(b - a)
}

#[test]
fn a_flat_grid_simplifies_without_error_and_keeps_its_winding_and_area() {
    let g = grid(40, 40, None);
    let normals = vec![Vec3::Z; g.positions.len()];
    let lods = chain(&g.positions, &normals, &g.uvs, &g.indices);
    check_chain(&lods, &g.indices, g.positions.len(), "grid");
    println!("grid: {}", chain_text(&lods));
    // The middle levels (edge collapses on a plane with linear uvs) lose
    // nothing: no error, the same area, every triangle still facing +z.
    let middle = &lods[1..lods.len() - 1];
    assert!(!middle.is_empty(), "{}", chain_text(&lods));
    for lod in middle {
        // Position error is zero; what remains is the uv and normal
        // quadrics' rounding, tiny against the 40-unit grid.
        assert!(lod.error < 0.05, "{}", chain_text(&lods));
        let area: f32 = lod
            .indices
            .chunks_exact(3)
            .map(|t| face(&g.positions, t).z * 0.5)
            .sum();
        assert!((area - 1600.0).abs() < 0.5, "area {area}");
        // Collapses on a plane may leave a sliver of three collinear border
        // vertices (zero area), never a flipped triangle.
        assert!(lod
            .indices
            .chunks_exact(3)
            .all(|t| face(&g.positions, t).z >= 0.0));
    }
    let last = lods.last().unwrap();
    assert!(last.triangle_count() <= coarsest_target(3200));
}

#[test]
fn a_uv_seam_is_never_crossed() {
    // Two charts meet at x = 20: a triangle with corners from both would
    // stretch the texture across the atlas.
    let g = grid(40, 40, Some(20));
    let normals = vec![Vec3::Z; g.positions.len()];
    let lods = chain(&g.positions, &normals, &g.uvs, &g.indices);
    check_chain(&lods, &g.indices, g.positions.len(), "seamed grid");
    println!("seamed grid: {}", chain_text(&lods));
    assert!(lods.len() >= 3);
    // Sloppy simplification (the last level) ignores seams by design.
    for (k, lod) in lods[..lods.len() - 1].iter().enumerate() {
        for t in lod.indices.chunks_exact(3) {
            let charts = t.iter().map(|&i| g.right_chart[i as usize]);
            let right = charts.clone().filter(|&r| r).count();
            assert!(right == 0 || right == 3, "LOD {k} crosses the seam: {t:?}");
        }
    }
}

/// The grid with every triangle on vertices of its own, as a converter
/// writes a flat-shaded mesh; `uv_island`: each triangle also in a texture
/// cell of its own (a lightmap-style unwrap, a seam at every edge), else its
/// corners keep the grid's uvs.
fn unwelded(g: &Grid, uv_island: bool) -> (Vec<Vec3>, Vec<Vec2>, Vec<u32>) {
    let (mut positions, mut uvs, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    for (t, tri) in g.indices.chunks_exact(3).enumerate() {
        let cell = Vec2::new((t % 64) as f32, (t / 64) as f32) / 64.0;
        for &v in tri {
            indices.push(positions.len() as u32);
            positions.push(g.positions[v as usize]);
            let uv = g.uvs[v as usize];
            uvs.push(if uv_island { cell + uv / 64.0 } else { uv });
        }
    }
    (positions, uvs, indices)
}

#[test]
fn an_unwelded_grid_gets_the_welded_grids_chain() {
    let g = grid(24, 24, Some(12));
    let normals = vec![Vec3::Z; g.positions.len()];
    let welded = chain(&g.positions, &normals, &g.uvs, &g.indices);
    let (positions, uvs, indices) = unwelded(&g, false);
    let normals = vec![Vec3::Z; positions.len()];
    let lods = chain(&positions, &normals, &uvs, &indices);
    check_chain(&lods, &indices, positions.len(), "unwelded grid");
    println!("unwelded grid: {}", chain_text(&lods));
    let counts = |lods: &[LodLevel]| lods.iter().map(|l| l.triangle_count()).collect::<Vec<_>>();
    assert_eq!(counts(&lods), counts(&welded), "{}", chain_text(&lods));
    // Each level is drawn from one copy of each vertex, as the welded grid
    // (its seam included) has them.
    for lod in &lods[1..] {
        let mut used = lod.indices.clone();
        used.sort_unstable();
        used.dedup();
        let distinct: HashMap<[u32; 4], u32> = used
            .iter()
            .map(|&v| {
                let (p, uv) = (positions[v as usize], uvs[v as usize]);
                ([p.x, p.y, uv.x, uv.y].map(f32::to_bits), v)
            })
            .collect();
        assert_eq!(
            used.len(),
            distinct.len(),
            "a level uses two copies of a vertex"
        );
    }
}

#[test]
fn a_grid_split_at_every_edge_still_simplifies() {
    // No vertex shared and every triangle its own uv island: under
    // meshoptimizer's default rules no vertex may move (each has six
    // attribute sets), so the chain collapses across the seams.
    let g = grid(24, 24, None);
    let (positions, uvs, indices) = unwelded(&g, true);
    let normals = vec![Vec3::Z; positions.len()];
    let lods = chain_of(&positions, &normals, &uvs, &indices, |_| 0);
    check_chain(&lods.levels, &indices, positions.len(), "islands");
    println!("islands: {}", chain_text(&lods.levels));
    assert_eq!(lods.short, None);
    assert!(lods.levels.len() >= 5, "{}", chain_text(&lods.levels));
    // Collapses across seams keep the plane: no triangle flips, and the
    // area stays, but for the border, which frays by a few cells where
    // vertices on it and on several islands move along it (the welded
    // grid's border keeps its line).
    for lod in &lods.levels[1..lods.levels.len() - 1] {
        let area: f32 = (lod.indices.chunks_exact(3))
            .map(|t| face(&positions, t).z * 0.5)
            .sum();
        println!(
            "  {} triangles: area {area}, error {}",
            lod.triangle_count(),
            lod.error
        );
        assert!(
            (lod.indices.chunks_exact(3)).all(|t| face(&positions, t).z >= 0.0),
            "a flipped triangle"
        );
        assert!(area > 576.0 * 0.9, "area {area}");
        assert!(lod.error <= 3.0, "{}", chain_text(&lods.levels));
    }
}

#[test]
fn copies_with_other_influences_stop_the_chain_and_say_so() {
    // Every triangle on its own vertices and its own joint: the copies at a
    // position move apart once animated, so none of them may merge.
    let g = grid(16, 16, None);
    let (positions, uvs, indices) = unwelded(&g, false);
    let normals = vec![Vec3::Z; positions.len()];
    let lods = chain_of(&positions, &normals, &uvs, &indices, |v| (v / 3) as u16);
    check_chain(
        &lods.levels,
        &indices,
        positions.len(),
        "a joint a triangle",
    );
    let short = lods.short.expect("a short chain");
    let note = short.to_string();
    println!("{}: {note}", chain_text(&lods.levels));
    assert!(
        matches!(
            short,
            ShortChain::Stuck {
                stuck_at: 512,
                split: 287,
                ..
            }
        ),
        "{short:?}"
    );
    assert!(note.contains("where copies differ in influences"), "{note}");
}

/// An open tube along z: `around` segments, `along` rings, radius 10,
/// 100 long, clockwise seen from outside; the uv seam at angle 0 is a
/// doubled column of vertices, as md5 has it.
fn tube(around: u32, along: u32) -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec2>, Vec<u32>) {
    let (mut positions, mut normals, mut uvs, mut indices) = (vec![], vec![], vec![], vec![]);
    let columns = around + 1;
    for j in 0..=along {
        for i in 0..columns {
            let angle = i as f32 / around as f32 * std::f32::consts::TAU;
            let n = Vec3::new(angle.cos(), angle.sin(), 0.0);
            positions.push(n * 10.0 + Vec3::Z * (j as f32 / along as f32 * 100.0));
            normals.push(n);
            uvs.push(Vec2::new(i as f32 / around as f32, j as f32 / along as f32));
        }
    }
    for j in 0..along {
        for i in 0..around {
            let v = |i: u32, j: u32| j * columns + i;
            let [a, b, c, d] = [v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)];
            // Clockwise seen from outside (checked in the tube test).
            indices.extend([a, c, b, a, d, c]);
        }
    }
    // The seam's copies share position and normal bit for bit, as md5's do.
    for j in 0..=along {
        let (first, copy) = ((j * columns) as usize, (j * columns + around) as usize);
        positions[copy] = positions[first];
        normals[copy] = normals[first];
    }
    (positions, normals, uvs, indices)
}

/// Largest distance from the samples to the nearest point of a surface.
fn farthest(samples: &[Vec3], positions: &[Vec3], indices: &[u32]) -> f32 {
    samples
        .iter()
        .map(|&p| {
            indices
                .chunks_exact(3)
                .map(|t| {
                    let corners = [0, 1, 2].map(|i| positions[t[i] as usize]);
                    point_triangle_distance_squared(p, &corners).sqrt()
                })
                .fold(f32::MAX, f32::min)
        })
        .fold(0.0, f32::max)
}

#[test]
fn a_tube_keeps_close_to_its_surface_within_the_reported_error() {
    let (positions, normals, uvs, indices) = tube(48, 32);
    // The tube's faces point outwards (the convention the chain keeps).
    for t in indices.chunks_exact(3) {
        let centre = t.iter().map(|&i| positions[i as usize]).sum::<Vec3>() / 3.0;
        assert!(face(&positions, t).dot(centre.truncate().extend(0.0)) > 0.0);
    }
    let lods = chain(&positions, &normals, &uvs, &indices);
    check_chain(&lods, &indices, positions.len(), "tube");
    println!("tube: {}", chain_text(&lods));
    assert!(lods.len() >= 5, "{}", chain_text(&lods));
    // Triangle centres: off the vertices.
    let samples: Vec<Vec3> = indices
        .chunks_exact(3)
        .map(|t| t.iter().map(|&i| positions[i as usize]).sum::<Vec3>() / 3.0)
        .collect();
    for (k, lod) in lods.iter().enumerate().skip(1) {
        // Both ways: LOD 0 from the level, and the level from LOD 0.
        let out = farthest(&samples, &positions, &lod.indices);
        let level_samples: Vec<Vec3> = lod
            .indices
            .chunks_exact(3)
            .map(|t| t.iter().map(|&i| positions[i as usize]).sum::<Vec3>() / 3.0)
            .collect();
        let back = farthest(&level_samples, &positions, &indices);
        let distance = out.max(back);
        println!(
            "  LOD {k}: {} tris, error {:.3}, measured {distance:.3}",
            lod.triangle_count(),
            lod.error
        );
        // The error is measured from samples that include these (and the
        // vertices and edge midpoints), so it is at least this distance; and
        // it is that measure, not an estimate several times larger (the
        // finer level's error, when larger, stands instead).
        assert!(
            distance <= lod.error + 1e-4,
            "LOD {k}: {distance} vs {}",
            lod.error
        );
        assert!(
            lod.error <= (1.5 * distance).max(lods[k - 1].error),
            "LOD {k}: {distance} vs {}",
            lod.error
        );
        if k < lods.len() - 1 {
            // Edge collapses keep every face facing out.
            for t in lod.indices.chunks_exact(3) {
                let centre = t.iter().map(|&i| positions[i as usize]).sum::<Vec3>() / 3.0;
                assert!(face(&positions, t).dot(centre.truncate().extend(0.0)) > 0.0);
            }
        }
    }
}

/// A tube as a skinned mesh, two joints blended along its length.
fn skinned_tube(around: u32, along: u32) -> SkinnedMesh {
    let (positions, normals, uvs, indices) = tube(around, along);
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for p in &positions {
        let t = ((p.z / 100.0 * 255.0).round() / 255.0).clamp(0.0, 1.0);
        let mut j = [0u16; MAX_INFLUENCES];
        let mut w = [0.0; MAX_INFLUENCES];
        (j[0], j[1], w[0], w[1]) = (0, 1, 1.0 - t, t);
        joints.push(j);
        weights.push(w);
    }
    let tangents = md5crowd::skin::tangents(&positions, &normals, &uvs, &indices);
    SkinnedMesh {
        morph_targets: Vec::new(),
        shader: "tube".into(),
        lods: vec![LodLevel {
            indices: indices.clone(),
            error: 0.0,
            influences: MAX_INFLUENCES,
        }],
        positions,
        normals,
        tangents,
        colors: vec![VertexColor::WHITE; uvs.len()],
        uvs,
        joints,
        weights,
        indices,
        short_chain: None,
        limit: InfluenceLimit::Four,
        truncation: TruncationReport::default(),
    }
}

#[test]
fn a_dense_tube_spreads_its_levels_down_to_the_coarsest() {
    // About 100,000 triangles: 8 levels, evenly spaced.
    let mut mesh = skinned_tube(256, 196);
    let plain = mesh.clone();
    let start = Instant::now();
    mesh.build_lods();
    let built = start.elapsed();
    mesh.optimize_for_gpu();
    let optimized = start.elapsed() - built;
    println!(
        "dense tube ({} tris): chain {:.1} ms, GPU order {:.1} ms: {}",
        plain.triangle_count(),
        built.as_secs_f64() * 1e3,
        optimized.as_secs_f64() * 1e3,
        chain_text(&mesh.lods)
    );
    check_chain(&mesh.lods, &mesh.indices, mesh.vertex_count(), "dense tube");
    assert_eq!(mesh.lods.len(), MAX_LODS, "{}", chain_text(&mesh.lods));
    let last = mesh.lods.last().unwrap().triangle_count();
    assert!(last <= coarsest_target(plain.triangle_count()), "{last}");
    assert_eq!(
        triangle_multiset(&mesh, &mesh.indices),
        triangle_multiset(&plain, &plain.indices)
    );
}

#[test]
fn tiny_and_empty_meshes_keep_lod_0() {
    let (positions, normals, uvs) = (
        vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        vec![Vec3::Z; 3],
        vec![Vec2::ZERO, Vec2::X, Vec2::Y],
    );
    let lods = chain(&positions, &normals, &uvs, &[0, 2, 1]);
    assert_eq!(lods.len(), 1);
    assert_eq!(
        chain_of(&positions, &normals, &uvs, &[0, 2, 1], |_| 0).short,
        Some(ShortChain::TooFewTriangles { triangles: 1 })
    );
    check_chain(&lods, &[0, 2, 1], 3, "one triangle");
    let lods = chain(&[], &[], &[], &[]);
    assert_eq!(
        lods,
        vec![LodLevel {
            indices: vec![],
            error: 0.0,
            influences: MAX_INFLUENCES,
        }]
    );
}

#[test]
fn load_time_with_the_chain() {
    // Reported, not asserted: the chain and GPU ordering on top of parsing.
    let path = shipped_mesh();
    let mut times: Vec<f64> = (0..11)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(Model::load(&path, &[], InfluenceLimit::Four).unwrap());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!("Model::load (crowdling): median {:.2} ms", times[5]);
}
