//! How far apart two surfaces are: the measure a level of detail's error is
//! (`super::lod`). Nearest-point queries go through a uniform grid of the
//! triangles: measuring the shipped character's chain (both candidates of
//! every level) takes tens of milliseconds, brute force took 0.6 s.

use glam::{IVec3, Vec3};

/// A full-detail surface prepared once for measuring its simplified levels
/// against: its triangles in a grid, and its sample points.
#[derive(Clone)]
pub struct ReferenceSurface {
    grid: TriangleGrid,
    /// The surface's vertices and triangle centres (without the centres the
    /// shipped character's chain measures in 40% less time, and its body's
    /// 64-triangle level 2.5% nearer than it is).
    samples: Vec<Vec3>,
}

impl ReferenceSurface {
    pub fn new(positions: &[Vec3], indices: &[u32]) -> ReferenceSurface {
        let mut used = vec![false; positions.len()];
        for &i in indices {
            if let Some(used) = used.get_mut(i as usize) {
                *used = true;
            }
        }
        let grid = TriangleGrid::new(triangles(positions, indices));
        let vertices = positions
            .iter()
            .zip(&used)
            .filter(|(_, &u)| u)
            .map(|(&p, _)| p);
        let centres = grid.triangles.iter().map(|&[a, b, c]| (a + b + c) / 3.0);
        let samples = vertices.chain(centres).collect();
        ReferenceSurface { grid, samples }
    }

    /// How far `coarse` (over the same `positions`) and this surface are
    /// apart: this surface's samples to the nearest point of `coarse`, and
    /// `coarse`'s triangle centres and edge midpoints to the nearest point of
    /// this surface (a coarse level's corners are vertices of the full
    /// surface, so it strays farthest inside its triangles and along its
    /// edges). A sampled Hausdorff distance: it can only under-state the true
    /// one, by less than the spacing of the samples. Infinite when exactly
    /// one of the two has no triangles.
    pub fn distance_to(&mut self, positions: &[Vec3], coarse: &[u32]) -> f32 {
        let mut coarse = TriangleGrid::new(triangles(positions, coarse));
        match (self.grid.triangles.is_empty(), coarse.triangles.is_empty()) {
            (true, true) => return 0.0,
            (true, false) | (false, true) => return f32::INFINITY,
            (false, false) => {}
        }
        let coarse_samples: Vec<Vec3> = (coarse.triangles.iter())
            .flat_map(|&[a, b, c]| {
                [
                    (a + b + c) / 3.0,
                    (a + b) * 0.5,
                    (b + c) * 0.5,
                    (c + a) * 0.5,
                ]
            })
            .collect();
        let outward = (self.samples.iter())
            .map(|&p| coarse.distance_squared(p))
            .fold(0.0, f32::max);
        let inward = (coarse_samples.iter())
            .map(|&p| self.grid.distance_squared(p))
            .fold(0.0, f32::max);
        outward.max(inward).sqrt()
    }
}

/// The corners of each triangle of `indices` (out-of-range indices read as
/// the origin: the distance is a measure, not a validator).
fn triangles(positions: &[Vec3], indices: &[u32]) -> Vec<[Vec3; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| [0, 1, 2].map(|i| positions.get(t[i] as usize).copied().unwrap_or(Vec3::ZERO)))
        .collect()
}

/// The most cells along one axis: the grids here hold a few thousand
/// triangles, and a coarse level a few dozen large ones.
const MAX_CELLS_PER_AXIS: i32 = 64;

/// The most (cell, triangle) entries a grid keeps per triangle: a grid whose
/// triangles would overlap more cells than that gets larger cells.
const MAX_CELLS_PER_TRIANGLE: usize = 32;

/// Triangles bucketed by the grid cells their bounding boxes overlap.
#[derive(Clone)]
pub struct TriangleGrid {
    triangles: Vec<[Vec3; 3]>,
    origin: Vec3,
    cell: f32,
    cells: IVec3,
    /// `cell_triangles[cell_start[c]..cell_start[c + 1]]` overlap cell `c`.
    cell_start: Vec<u32>,
    cell_triangles: Vec<u32>,
    /// The query that last tested each triangle: a triangle overlapping
    /// several cells is tested once per query.
    tested_by: Vec<u32>,
    query: u32,
    /// Each triangle's bounding box: most triangles a query meets are
    /// rejected by their box, no nearer than the nearest point found.
    boxes: Vec<(Vec3, Vec3)>,
}

impl TriangleGrid {
    /// A grid of about one cell per triangle over the triangles' bounding
    /// box, coarser where large triangles would each land in many cells.
    pub fn new(triangles: Vec<[Vec3; 3]>) -> TriangleGrid {
        let boxes: Vec<(Vec3, Vec3)> = (triangles.iter())
            .map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2])))
            .collect();
        let (low, high) = boxes.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(low, high), &(l, h)| (low.min(l), high.max(h)),
        );
        let (low, high) = if low.cmple(high).all() {
            (low, high)
        } else {
            (Vec3::ZERO, Vec3::ZERO)
        };
        // Flat or thin meshes: give every axis some depth, so the volume per
        // triangle (and so the cell size) stays meaningful.
        let extent = (high - low).max(Vec3::splat((high - low).max_element() * 0.01 + 1e-6));
        let per_triangle = extent.x * extent.y * extent.z / triangles.len().max(1) as f32;
        let mut grid = TriangleGrid {
            tested_by: vec![u32::MAX; triangles.len()],
            triangles,
            boxes,
            origin: low,
            cell: per_triangle.cbrt(),
            cells: IVec3::ONE,
            cell_start: Vec::new(),
            cell_triangles: Vec::new(),
            query: 0,
        };
        // Whatever the file's triangles, the lists stay within a budget.
        let budget = grid.triangles.len() * MAX_CELLS_PER_TRIANGLE;
        loop {
            grid.cell = grid
                .cell
                .max(extent.max_element() / MAX_CELLS_PER_AXIS as f32);
            grid.cells = (extent / grid.cell)
                .ceil()
                .as_ivec3()
                .clamp(IVec3::ONE, IVec3::splat(MAX_CELLS_PER_AXIS));
            let overlaps: usize = (grid.boxes.iter())
                .map(|&(l, h)| (grid.cell_of(h) - grid.cell_of(l) + 1).as_uvec3())
                .map(|span| span.x as usize * span.y as usize * span.z as usize)
                .sum();
            if overlaps <= budget || grid.cells == IVec3::ONE {
                break;
            }
            grid.cell *= 2.0;
        }
        // Counting sort of (cell, triangle) pairs: count, prefix-sum, fill.
        let cell_count = (grid.cells.x * grid.cells.y * grid.cells.z) as usize;
        let mut counts = vec![0u32; cell_count + 1];
        grid.for_each_overlap(|cell, _| counts[cell] += 1);
        let mut start = 0;
        for count in &mut counts {
            let here = *count;
            *count = start;
            start += here;
        }
        let mut fill = counts.clone();
        let mut cell_triangles = vec![0u32; start as usize];
        grid.for_each_overlap(|cell, triangle| {
            cell_triangles[fill[cell] as usize] = triangle;
            fill[cell] += 1;
        });
        grid.cell_start = counts;
        grid.cell_triangles = cell_triangles;
        grid
    }

    fn for_each_overlap(&self, mut visit: impl FnMut(usize, u32)) {
        for (i, &(low, high)) in self.boxes.iter().enumerate() {
            let (low, high) = (self.cell_of(low), self.cell_of(high));
            for z in low.z..=high.z {
                for y in low.y..=high.y {
                    for x in low.x..=high.x {
                        visit(self.cell_index(IVec3::new(x, y, z)), i as u32);
                    }
                }
            }
        }
    }

    /// The cell holding `p`, clamped into the grid.
    fn cell_of(&self, p: Vec3) -> IVec3 {
        ((p - self.origin) / self.cell)
            .floor()
            .as_ivec3()
            .clamp(IVec3::ZERO, self.cells - 1)
    }

    fn cell_index(&self, c: IVec3) -> usize {
        ((c.z * self.cells.y + c.y) * self.cells.x + c.x) as usize
    }

    /// Squared distance from `p` to the nearest point of any triangle
    /// (infinite without triangles). First the nearest shell of cells around
    /// `p`'s that holds a triangle bounds the answer; then every cell nearer
    /// than that bound is searched.
    pub fn distance_squared(&mut self, p: Vec3) -> f32 {
        self.query = self.query.wrapping_add(1);
        let centre = self.cell_of(p);
        let widest = (centre.max(self.cells - 1 - centre)).max_element();
        let mut best = f32::INFINITY;
        for ring in 0..=widest {
            self.for_each_shell_cell(centre, ring, |grid, cell| {
                grid.test_cell(cell, p, &mut best)
            });
            if best.is_finite() {
                break;
            }
        }
        if !best.is_finite() {
            return best;
        }
        let reach = Vec3::splat(best.sqrt());
        let (low, high) = (self.cell_of(p - reach), self.cell_of(p + reach));
        for z in low.z..=high.z {
            for y in low.y..=high.y {
                for x in low.x..=high.x {
                    let cell = IVec3::new(x, y, z);
                    let cell_low = self.origin + cell.as_vec3() * self.cell;
                    let outside = (cell_low - p).max(p - cell_low - self.cell).max(Vec3::ZERO);
                    if outside.length_squared() < best {
                        self.test_cell(self.cell_index(cell), p, &mut best);
                    }
                }
            }
        }
        best
    }

    /// Lowers `best` to the squared distance from `p` to any triangle of
    /// `cell` nearer than it (each triangle tested once per query).
    fn test_cell(&mut self, cell: usize, p: Vec3, best: &mut f32) {
        let range = self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize;
        for &triangle in &self.cell_triangles[range] {
            let triangle = triangle as usize;
            if self.tested_by[triangle] == self.query {
                continue;
            }
            self.tested_by[triangle] = self.query;
            let (low, high) = self.boxes[triangle];
            let outside = (low - p).max(p - high).max(Vec3::ZERO);
            if outside.length_squared() < *best {
                *best = best.min(point_triangle_distance_squared(
                    p,
                    &self.triangles[triangle],
                ));
            }
        }
    }

    /// Calls `visit` with every in-grid cell exactly `ring` steps
    /// (Chebyshev) from `centre`.
    fn for_each_shell_cell(
        &mut self,
        centre: IVec3,
        ring: i32,
        mut visit: impl FnMut(&mut Self, usize),
    ) {
        let low = (centre - ring).max(IVec3::ZERO);
        let high = (centre + ring).min(self.cells - 1);
        for z in low.z..=high.z {
            for y in low.y..=high.y {
                // Inside the shell's z and y faces only its two x ends lie
                // on the shell.
                let face = (z - centre.z).abs() == ring || (y - centre.y).abs() == ring;
                let step = if face { 1 } else { (2 * ring).max(1) as usize };
                for x in (centre.x - ring..=centre.x + ring).step_by(step) {
                    if x >= low.x && x <= high.x {
                        let index = self.cell_index(IVec3::new(x, y, z));
                        visit(self, index);
                    }
                }
            }
        }
    }
}

/// Squared distance from `p` to the nearest point of triangle `t` (Ericson,
/// Real-Time Collision Detection, 5.1.5).
pub fn point_triangle_distance_squared(p: Vec3, [a, b, c]: &[Vec3; 3]) -> f32 {
    let (a, b, c) = (*a, *b, *c);
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return p.distance_squared(a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return p.distance_squared(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return p.distance_squared(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return p.distance_squared(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return p.distance_squared(a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return p.distance_squared(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    p.distance_squared(a + ab * (vb * denom) + ac * (vc * denom))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(triangles: &[[Vec3; 3]], p: Vec3) -> f32 {
        triangles
            .iter()
            .map(|t| point_triangle_distance_squared(p, t))
            .fold(f32::INFINITY, f32::min)
    }

    /// A deterministic scatter of small and large triangles, some far apart.
    fn scattered_triangles(count: usize) -> Vec<[Vec3; 3]> {
        let mut state = 12345u32;
        let mut next = move || {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let mut point = |scale: f32| Vec3::new(next(), next(), next()) * scale;
        (0..count)
            .map(|i| {
                let a = point(100.0);
                let size = if i % 7 == 0 { 40.0 } else { 3.0 };
                [a, a + point(size), a + point(size)]
            })
            .collect()
    }

    #[test]
    fn the_grid_finds_the_nearest_triangle() {
        for count in [1, 2, 20, 500] {
            let triangles = scattered_triangles(count);
            let mut grid = TriangleGrid::new(triangles.clone());
            for (i, p) in scattered_triangles(300).iter().flatten().enumerate() {
                // Inside the box and far outside it.
                let p = if i % 5 == 0 { *p * 3.0 - 150.0 } else { *p };
                let (fast, exact) = (grid.distance_squared(p), brute_force(&triangles, p));
                assert!(
                    (fast - exact).abs() <= 1e-3 * exact.max(1.0),
                    "{count} triangles at {p}: {fast} against {exact}"
                );
            }
        }
    }

    #[test]
    fn large_overlapping_triangles_stay_within_the_budget() {
        // Every triangle spans the whole box: one cell per triangle would
        // put each in every cell (n squared entries).
        let triangles: Vec<[Vec3; 3]> = (0..2000)
            .map(|i| {
                let t = i as f32 / 2000.0;
                [
                    Vec3::ZERO,
                    Vec3::new(100.0, 100.0 * t, 0.0),
                    Vec3::new(0.0, 100.0, 100.0 * t),
                ]
            })
            .collect();
        let mut grid = TriangleGrid::new(triangles.clone());
        assert!(grid.cell_triangles.len() <= 2000 * MAX_CELLS_PER_TRIANGLE);
        for p in scattered_triangles(40).iter().flatten() {
            let (fast, exact) = (grid.distance_squared(*p), brute_force(&triangles, *p));
            assert!((fast - exact).abs() <= 1e-3 * exact.max(1.0), "{p}");
        }
    }

    #[test]
    fn a_flat_surface_gets_a_grid_too() {
        let triangles = vec![
            [Vec3::ZERO, Vec3::X * 10.0, Vec3::Y * 10.0],
            [Vec3::X * 10.0, Vec3::new(10.0, 10.0, 0.0), Vec3::Y * 10.0],
        ];
        let mut grid = TriangleGrid::new(triangles);
        assert_eq!(grid.distance_squared(Vec3::new(5.0, 5.0, 2.0)), 4.0);
        assert_eq!(grid.distance_squared(Vec3::new(13.0, 14.0, 0.0)), 25.0);
    }

    #[test]
    fn point_triangle_distance_by_region() {
        let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let d = |p: Vec3| point_triangle_distance_squared(p, &t).sqrt();
        assert_eq!(d(Vec3::new(0.25, 0.25, 2.0)), 2.0); // inside, above
        assert_eq!(d(Vec3::new(-3.0, -4.0, 0.0)), 5.0); // past vertex a
        assert_eq!(d(Vec3::new(0.5, -1.0, 0.0)), 1.0); // past edge ab
        assert!((d(Vec3::new(1.0, 1.0, 0.0)) - 0.5f32.sqrt()).abs() < 1e-6); // past bc
    }

    #[test]
    fn a_missing_part_is_measured() {
        // Two unit squares 10 apart; the coarse level keeps one.
        let positions = [0.0, 10.0].map(|x| {
            [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)].map(|(a, b)| Vec3::new(x + a, b, 0.0))
        });
        let positions: Vec<Vec3> = positions.concat();
        let full = [0, 3, 2, 0, 2, 1, 4, 7, 6, 4, 6, 5];
        let mut surface = ReferenceSurface::new(&positions, &full);
        assert!(surface.distance_to(&positions, &full) < 1e-6);
        let far = surface.distance_to(&positions, &full[..6]);
        assert!((far - 10.0).abs() < 1e-5, "{far}"); // (11, 0) to (1, 0)
    }
}
