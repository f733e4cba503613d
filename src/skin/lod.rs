//! Levels of detail, built once at load with meshoptimizer (the `meshopt`
//! crate): every level is an index list into the mesh's one vertex buffer, so
//! joints, weights, normals and uvs carry over untouched and a level costs
//! only its indices.
//!
//! The chain, per mesh: LOD 0 is the full mesh; each middle level asks the
//! attribute-aware simplifier (positions, normals and uvs) for
//! [`level_ratio`] (at most [`LEVEL_RATIO`]) of the previous level's
//! triangles, starting from that level (as meshoptimizer recommends for
//! smooth transitions) or from LOD 0, whichever lands closer to LOD 0; each
//! level's error is its measured distance to LOD 0; the last level is sloppy
//! simplification (a grid clustering that ignores topology, so it merges
//! what the edge collapser may not) down to [`coarsest_target`], a few dozen
//! triangles. [`SkinnedMesh::optimize_for_gpu`] then orders each level for
//! the vertex cache and the vertices for fetch, coarsest level first.
//!
//! The simplifier works on a shadow index buffer (`super::lod_shadow`):
//! vertices equal in position, uv and influences are one vertex to it, so a
//! mesh exported flat-shaded (no vertex shared), or with duplicates, gets the
//! chain its welded twin gets, while the vertex buffer and LOD 0 stay as the
//! file has them. Vertices at one position with different uvs (a uv seam)
//! are one vertex with two attribute sets to meshoptimizer, which collapses
//! them only along the seam, so the texture never tears; where that leaves
//! it stuck (a mesh split at every seam), permissive mode collapses across
//! seams, the uv weight pricing the texture's stretch.
//!
//! A chain that stops short of the coarsest target says why
//! ([`ShortChain`]): `inspect` and the start-up log name the mesh.

use std::fmt;

use glam::{Vec2, Vec3};
use meshopt::{SimplifyOptions, VertexDataAdapter};

use super::influences::MAX_INFLUENCES;
use super::lod_shadow::{LodSurface, ShadowMesh};
use super::skinned_mesh::SkinnedMesh;
use super::surface_distance::ReferenceSurface;

pub use crate::shared_constants::MAX_LODS;

/// A middle level aims at this fraction of the previous level's triangles
/// at most (niagara-style); see [`level_ratio`].
pub const LEVEL_RATIO: f32 = 0.6;

/// The coarsest level of a mesh aims at this many triangles (never more than
/// [`COARSEST_MAX_FRACTION`] of LOD 0): a character a few pixels high.
pub const COARSEST_TRIANGLES: usize = 32;

/// The coarsest level has at most this fraction of LOD 0's triangles.
pub const COARSEST_MAX_FRACTION: f32 = 0.1;

/// A level that keeps more than this fraction of the previous one's
/// triangles is no progress: the simplifier is stuck (seams, then borders
/// and topology; see `Simplifier::collapse`).
const MIN_PROGRESS: f32 = 0.95;

/// Attribute weights (meshoptimizer: a change of `1 / weight` in an attribute
/// over a distance costs like that distance in position, positions scaled to
/// unit extent). Unit normals: meshoptimizer suggests 0.5 to 1. Measured on
/// the shipped character, normals keep the coarse levels much closer to the
/// surface (body at 134 triangles: 2.6 units from LOD 0 with normals at 0.5,
/// 6.2 with no attributes); 1.0 came no closer and reports 1.5x the error.
const NORMAL_WEIGHT: f32 = 0.5;

/// uv weight = this / sqrt(mean uv area of a triangle) (meshoptimizer's
/// "reciprocal average density"). Light: seams already hold the texture in
/// place (and where they cannot, in permissive mode, this prices crossing
/// them); this keeps coarse levels from sliding uvs inside a chart (head at
/// 66 triangles: 90th percentile uv drift 0.04 against 0.18 without) for
/// little distance (body: within 15%). A scale of 1.0 costs distance and
/// reports 4x the error.
const UV_WEIGHT_SCALE: f32 = 0.1;

/// One level of detail of a [`SkinnedMesh`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LodLevel {
    /// Triangle list into the mesh's (shared) vertices, clockwise as md5's.
    pub indices: Vec<u32>,
    /// How far this level's surface strays from LOD 0's in the bind pose, in
    /// model units: measured ([`super::ReferenceSurface`]), never less than
    /// the finer levels'; 0 for LOD 0.
    pub error: f32,
    /// Joints per vertex this level is skinned with: the largest of each
    /// vertex's influences, renormalised (`skin::lod_influences`). All the
    /// mesh has ([`MAX_INFLUENCES`], clamped to its limit) until
    /// [`SkinnedMesh::choose_level_influences`] chooses.
    pub influences: usize,
}

impl LodLevel {
    /// LOD 0: the mesh's own triangles, no error, every influence.
    pub fn finest(indices: Vec<u32>) -> LodLevel {
        LodLevel {
            indices,
            error: 0.0,
            influences: MAX_INFLUENCES,
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// The triangle count the coarsest level of a `triangles`-triangle mesh aims
/// at: [`COARSEST_TRIANGLES`], but at most [`COARSEST_MAX_FRACTION`] of it.
pub fn coarsest_target(triangles: usize) -> usize {
    let fraction = (triangles as f32 * COARSEST_MAX_FRACTION) as usize;
    COARSEST_TRIANGLES.min(fraction)
}

/// The fraction each middle level aims at: [`LEVEL_RATIO`], or less when
/// [`MAX_LODS`] levels at that ratio would not come near the coarsest
/// target, so that dense meshes spread their levels evenly from LOD 0 to the
/// coarsest (the shipped body, 5,056 triangles: 0.49).
pub fn level_ratio(triangles: usize) -> f32 {
    let coarsest = coarsest_target(triangles).max(1) as f32;
    let even = (coarsest / triangles.max(1) as f32).powf(1.0 / (MAX_LODS - 1) as f32);
    LEVEL_RATIO.min(even)
}

/// A mesh's levels of detail, and why the chain stops short if it does.
#[derive(Clone, Debug, PartialEq)]
pub struct LodChain {
    pub levels: Vec<LodLevel>,
    pub short: Option<ShortChain>,
}

/// Why a chain stops before its coarsest target (`inspect` and the start-up
/// log print it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShortChain {
    /// Fewer than 10 triangles (degenerate ones not counted): LOD 0 alone.
    TooFewTriangles { triangles: usize },
    /// The edge collapser could not go below `stuck_at` of the mesh's
    /// `triangles`, even allowed across uv seams. Of the shadow mesh's
    /// `positions`, `border` lie on open borders (they only slide along
    /// them) and `split` are where vertices differ in influences (they only
    /// collapse along the seam they form). `sloppy`: grid clustering made a
    /// coarser level after it.
    Stuck {
        triangles: usize,
        stuck_at: usize,
        positions: usize,
        border: usize,
        split: usize,
        sloppy: bool,
    },
    /// Grid clustering found no level between none and `coarsest`
    /// triangles, where the chain aims at `target`.
    NoCoarserLevel { coarsest: usize, target: usize },
}

impl fmt::Display for ShortChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ShortChain::TooFewTriangles { triangles } => write!(
                f,
                "{triangles} triangle{}, too few for levels of detail (10 at least)",
                if triangles == 1 { "" } else { "s" }
            ),
            ShortChain::Stuck {
                triangles,
                stuck_at,
                positions,
                border,
                split,
                sloppy,
            } => {
                write!(
                    f,
                    "the simplifier stops at {stuck_at} of {triangles} triangles: \
                     {border} of the {positions} vertex positions lie on open borders"
                )?;
                if split > 0 {
                    write!(f, ", {split} where copies differ in influences")?;
                }
                if sloppy {
                    write!(f, "; grid clustering makes the coarsest level")?;
                }
                Ok(())
            }
            ShortChain::NoCoarserLevel { coarsest, target } => write!(
                f,
                "grid clustering finds no level under {coarsest} triangles \
                 (the coarsest level aims at {target})"
            ),
        }
    }
}

/// The LOD chain of one mesh (plain data; `normals` one per position).
/// `levels[0]` is `indices` itself with error 0; then fewer triangles and
/// non-decreasing errors each level, at most [`MAX_LODS`] levels, every one
/// made of the first vertex of each set of equal ones (`super::lod_shadow`);
/// the last (sloppy simplification, unless it finds nothing at or under the
/// target) has at most [`coarsest_target`] triangles. A mesh without
/// triangles gets one empty level; one of fewer than 10 (degenerate ones not
/// counted) keeps LOD 0 alone.
pub fn lod_chain(surface: &LodSurface, indices: &[u32]) -> LodChain {
    let mut lods = vec![LodLevel::finest(indices.to_vec())];
    let shadow = ShadowMesh::new(surface, indices);
    // What the eye sees: a flat-shaded mesh, or one with duplicates, aims at
    // the levels its welded twin gets.
    let triangles = shadow.indices.len() / 3;
    let coarsest = coarsest_target(triangles);
    if coarsest == 0 {
        let short = (!indices.is_empty()).then_some(ShortChain::TooFewTriangles { triangles });
        return LodChain {
            levels: lods,
            short,
        };
    }
    let ratio = level_ratio(triangles);
    let mut simplifier = Simplifier::new(surface, indices, &shadow);
    let mut stuck_at = None;

    // Middle levels, each at most `ratio` of the one before. A level whose
    // successor would be within 1.5x of the coarsest target is left to the
    // last step, so that the last step is a real reduction too.
    while lods.len() < MAX_LODS - 1 {
        let from = match lods.len() {
            1 => &shadow.indices,
            _ => &lods.last().expect("LOD 0").indices,
        };
        let target = (from.len() as f32 / 3.0 * ratio) as usize;
        if target * 2 <= coarsest * 3 {
            break;
        }
        let Some((next, distance)) = simplifier.collapse(from, target) else {
            // Borders, influence seams: the last step goes on.
            stuck_at = Some(from.len() / 3);
            break;
        };
        let error = lods.last().expect("LOD 0").error.max(distance);
        lods.push(LodLevel {
            indices: next,
            error,
            influences: MAX_INFLUENCES,
        });
    }

    // The coarsest level: sloppy simplification of LOD 0 itself (it sees all
    // of the surface, and measured closer to it than sloppy simplification of
    // the last middle level). Measuring matters most here: grid clustering
    // drops whole thin parts (a limb, a tube's end), which meshoptimizer's
    // estimate misses (a tube: 2 estimated, 12 measured). Where the grid
    // finds no level (a small closed part jumps from a few dozen triangles
    // to none), the edge collapser goes on to the target instead. Errors
    // never decrease along the chain, so a coarser level is never chosen
    // nearer.
    let coarsest_so_far = match lods.len() {
        1 => triangles,
        _ => lods.last().expect("LOD 0").triangle_count(),
    };
    let last = simplifier.sloppy(coarsest, coarsest_so_far).or_else(|| {
        let from = match lods.len() {
            1 => &shadow.indices,
            _ => &lods.last().expect("LOD 0").indices,
        };
        (stuck_at.is_none())
            .then(|| simplifier.collapse(from, coarsest))
            .flatten()
    });
    let reached = last.is_some();
    if let Some((indices, distance)) = last {
        let error = lods.last().expect("LOD 0").error.max(distance);
        lods.push(LodLevel {
            indices,
            error,
            influences: MAX_INFLUENCES,
        });
    }
    let short = match stuck_at {
        Some(stuck_at) => Some(ShortChain::Stuck {
            triangles,
            stuck_at,
            positions: shadow.positions,
            border: shadow.border_positions,
            split: shadow.split_positions,
            sloppy: reached,
        }),
        None if !reached => Some(ShortChain::NoCoarserLevel {
            coarsest: coarsest_so_far,
            target: coarsest,
        }),
        None => None,
    };
    LodChain {
        levels: lods,
        short,
    }
}

/// One mesh's simplification: the shadow mesh and the streams meshoptimizer
/// reads, and LOD 0 to measure every level against.
struct Simplifier<'a> {
    positions: &'a [Vec3],
    vertices: VertexDataAdapter<'a>,
    attributes: Vec<f32>,
    weights: [f32; ATTRIBUTES],
    shadow: &'a ShadowMesh,
    lod_0: ReferenceSurface,
    /// A copy for measuring on another core (queries keep per-triangle
    /// marks).
    lod_0_there: ReferenceSurface,
}

impl<'a> Simplifier<'a> {
    fn new(surface: &LodSurface<'a>, indices: &[u32], shadow: &'a ShadowMesh) -> Simplifier<'a> {
        let vertices = VertexDataAdapter::new(bytemuck::cast_slice(surface.positions), 12, 0)
            .expect("Vec3 positions are 12-byte vertices");
        let (attributes, weights) =
            simplification_attributes(surface.normals, surface.uvs, indices);
        let lod_0 = ReferenceSurface::new(surface.positions, indices);
        Simplifier {
            positions: surface.positions,
            vertices,
            attributes,
            weights,
            shadow,
            lod_0_there: lod_0.clone(),
            lod_0,
        }
    }

    /// Edge collapses down to `target` triangles and the level's measured
    /// distance to LOD 0; `None` when the simplifier is stuck (keeps more
    /// than [`MIN_PROGRESS`] of `from`).
    ///
    /// meshoptimizer allows two ways, and the level takes whichever lies
    /// closer to LOD 0: simplified from `from`, the previous level (nested,
    /// so neighbouring levels differ little; closer for the fine levels of
    /// the shipped character) or from LOD 0 itself (the whole surface to
    /// choose from; its body at 64 triangles: 3.9 units from LOD 0 against
    /// 6.6 nested). The error is measured, not estimated: meshoptimizer's
    /// estimates summed along the chain (as it advises for nested levels)
    /// came to 1 to 3.3x the distance, and its estimate also counts the
    /// normal and uv error, which the picture does not show as displacement.
    ///
    /// Seams first: by default the simplifier collapses the vertices at a uv
    /// seam only along the seam, so every triangle keeps one side's uvs and
    /// the texture never tears. Where that leaves it stuck (a vertex on three
    /// or more uv islands cannot move at all), permissive mode collapses
    /// across seams, the uv weight pricing the stretch: a mesh split at every
    /// uv seam still simplifies.
    fn collapse(&mut self, from: &[u32], target: usize) -> Option<(Vec<u32>, f32)> {
        let stuck = |level: &[u32]| {
            let kept = level.len() / 3;
            kept == 0 || kept as f32 > (from.len() / 3) as f32 * MIN_PROGRESS
        };
        [SimplifyOptions::None, SimplifyOptions::Permissive]
            .into_iter()
            .map(|options| self.closer_candidate(from, target, options))
            .find(|(level, _)| !stuck(level))
    }

    fn closer_candidate(
        &mut self,
        from: &[u32],
        target: usize,
        options: SimplifyOptions,
    ) -> (Vec<u32>, f32) {
        let simplify = |from: &[u32]| {
            meshopt::simplify_with_attributes_and_locks(
                from,
                &self.vertices,
                &self.attributes,
                &self.weights,
                ATTRIBUTES * size_of::<f32>(),
                &self.shadow.locks,
                target * 3,
                // No bound: the count decides, also where crossing seams
                // costs more than any bound in position units would allow.
                f32::MAX,
                // Sparse: the simplifier sees only the vertices the
                // triangles use; the copies the shadow buffer leaves out
                // would count as more attribute sets at their positions
                // and lock them.
                options | SimplifyOptions::Sparse,
                None,
            )
        };
        let positions = self.positions;
        let measured = |from: &[u32], lod_0: &mut ReferenceSurface| {
            let level = simplify(from);
            let distance = lod_0.distance_to(positions, &level);
            (level, distance)
        };
        let shadow = &self.shadow.indices;
        let (lod_0, lod_0_there) = (&mut self.lod_0, &mut self.lod_0_there);
        // Two independent candidates: one on another core.
        let (nested, direct) = std::thread::scope(|scope| {
            let direct = scope.spawn(|| measured(shadow, lod_0_there));
            let nested = measured(from, lod_0);
            (nested, direct.join().expect("simplifying LOD 0 panicked"))
        });
        if direct.1 < nested.1 {
            direct
        } else {
            nested
        }
    }

    /// Grid clustering of the whole shadow mesh to at most `target`
    /// triangles, if it finds a level under `coarsest_so_far`.
    fn sloppy(&mut self, target: usize, coarsest_so_far: usize) -> Option<(Vec<u32>, f32)> {
        let level =
            meshopt::simplify_sloppy(&self.shadow.indices, &self.vertices, target * 3, 1.0, None);
        let kept = level.len() / 3;
        (kept > 0 && kept < coarsest_so_far).then(|| {
            let distance = self.lod_0.distance_to(self.positions, &level);
            (level, distance)
        })
    }
}

/// Floats per vertex given to the simplifier: normal xyz, uv.
const ATTRIBUTES: usize = 5;

fn simplification_attributes(
    normals: &[Vec3],
    uvs: &[Vec2],
    indices: &[u32],
) -> (Vec<f32>, [f32; ATTRIBUTES]) {
    let attributes = normals
        .iter()
        .zip(uvs)
        .flat_map(|(n, uv)| [n.x, n.y, n.z, uv.x, uv.y])
        .collect();
    let triangles = indices.len() / 3;
    let uv_area: f32 = indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|i| uvs[t[i] as usize]);
            (b - a).perp_dot(c - a).abs() * 0.5
        })
        .sum();
    let mean_uv_area = uv_area / triangles.max(1) as f32;
    let uv_weight = if mean_uv_area > 0.0 {
        UV_WEIGHT_SCALE / mean_uv_area.sqrt()
    } else {
        0.0 // no uv mapping to keep
    };
    let n = NORMAL_WEIGHT;
    (attributes, [n, n, n, uv_weight, uv_weight])
}

impl SkinnedMesh {
    /// Builds [`SkinnedMesh::lods`] and [`SkinnedMesh::short_chain`] from
    /// the mesh's indices ([`lod_chain`]). Call before
    /// [`SkinnedMesh::optimize_for_gpu`], which orders the levels.
    pub fn build_lods(&mut self) {
        let chain = lod_chain(&self.lod_surface(), &self.indices);
        self.lods = chain.levels;
        self.short_chain = chain.short;
    }

    /// Orders every level's triangles for the post-transform vertex cache
    /// (meshoptimizer's `optimize_vertex_cache`; `indices` follows LOD 0),
    /// then the vertices for fetch: in order of first use by the levels
    /// concatenated coarsest first, so each coarser level reads a shorter
    /// prefix of the buffer (meshoptimizer's advice for LOD chains sharing
    /// vertices). Every vertex stream (one entry per vertex each) and every
    /// level is remapped alike, so the surface, winding and skinning are
    /// unchanged; vertices no level uses keep their relative order at the
    /// end. A mesh without `lods` is given LOD 0 first.
    pub fn optimize_for_gpu(&mut self) {
        let vertex_count = self.vertex_count();
        if self.lods.is_empty() {
            self.lods.push(LodLevel {
                indices: self.indices.clone(),
                error: 0.0,
                influences: MAX_INFLUENCES,
            });
        }
        debug_assert_eq!(self.lods[0].indices, self.indices);
        for lod in &mut self.lods {
            if !lod.indices.is_empty() {
                meshopt::optimize_vertex_cache_in_place(&mut lod.indices, vertex_count);
            }
        }
        self.indices.clone_from(&self.lods[0].indices);

        let order = fetch_order(
            self.lods.iter().rev().flat_map(|l| &l.indices),
            vertex_count,
        );
        let mut new_index = vec![0u32; vertex_count];
        for (new, &old) in order.iter().enumerate() {
            new_index[old as usize] = new as u32;
        }
        for index in self
            .indices
            .iter_mut()
            .chain(self.lods.iter_mut().flat_map(|l| l.indices.iter_mut()))
        {
            *index = new_index[*index as usize];
        }
        self.reorder_vertices(&order);
    }
}

/// Old vertex index for each new position: vertices in order of first use in
/// `indices`, then the unused ones. meshoptimizer's
/// `optimize_vertex_fetch_remap` orders the same way, but its Rust wrapper
/// truncates the table when some vertex is unused (md5 allows that).
fn fetch_order<'a>(indices: impl Iterator<Item = &'a u32>, vertex_count: usize) -> Vec<u32> {
    let mut placed = vec![false; vertex_count];
    let mut order = Vec::with_capacity(vertex_count);
    for &i in indices {
        if !std::mem::replace(&mut placed[i as usize], true) {
            order.push(i);
        }
    }
    order.extend((0..vertex_count as u32).filter(|&i| !placed[i as usize]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetch_order_is_first_use_then_unused() {
        assert_eq!(fetch_order([3, 1, 3, 0].iter(), 5), vec![3, 1, 0, 2, 4]);
    }

    #[test]
    fn coarsest_target_is_a_few_dozen_and_at_most_a_tenth() {
        assert_eq!(coarsest_target(5056), COARSEST_TRIANGLES);
        assert_eq!(coarsest_target(100), 10);
        assert_eq!(coarsest_target(9), 0);
    }

    #[test]
    fn no_triangles_one_empty_level() {
        let surface = LodSurface {
            positions: &[],
            normals: &[],
            uvs: &[],
            colors: &[],
            joints: &[],
            weights: &[],
        };
        let chain = lod_chain(&surface, &[]);
        let empty = LodLevel {
            influences: MAX_INFLUENCES,
            ..LodLevel::default()
        };
        assert_eq!(chain.levels, vec![empty]);
        assert_eq!(chain.short, None);
    }
}
