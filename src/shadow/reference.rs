//! CPU reference for sun shadows cast on the ground plane z = 0.
//!
//! The GPU darkens the ground pixels that lie in a character's shadow. This module
//! finds the same pixels independently: each skinned triangle is projected along the
//! sun's rays onto the ground, and a camera pixel is in shadow when the ground point
//! it sees lies inside any projected triangle. Occlusion of the ground by the casters
//! themselves is not modelled, so a comparison with a rendered image should leave out
//! the pixels the character covers.

use glam::{Mat4, Vec2, Vec3};

/// Upper bound on the triangle grid's cells along each ground axis, so the bin table
/// stays small however far apart the projected triangles are.
const MAX_CELLS_PER_AXIS: usize = 256;

/// Where a world point lands on the ground (z = 0) when pushed along the sun's rays,
/// away from the sun.
///
/// `towards_sun` points from the ground towards the sun; it need not be unit length
/// but must have positive z. A point with z <= 0 is already on or under the ground and
/// casts no shadow of its own, so it stays where it is, at z = 0. With a sun at or below
/// the horizon (`towards_sun.z <= 0`) no finite landing point exists; the point is then
/// dropped straight down instead. A sun barely above the horizon can give non-finite
/// coordinates, which [`ground_shadow_mask`] ignores.
pub fn project_onto_ground(point: Vec3, towards_sun: Vec3) -> Vec3 {
    if point.z <= 0.0 || towards_sun.z <= 0.0 {
        return Vec3::new(point.x, point.y, 0.0);
    }
    let landing = point - towards_sun * (point.z / towards_sun.z);
    Vec3::new(landing.x, landing.y, 0.0)
}

/// The camera pixels, `width` x `height` row by row from the top, whose ground point
/// (where the ray through the pixel centre meets z = 0 in front of the camera) lies
/// inside the shadow that `triangles` (world space) cast onto the ground under a sun in
/// direction `towards_sun`: the union of the triangles projected along the sun onto the
/// ground.
///
/// `camera_view_projection` maps world space to Vulkan clip space with reverse-Z
/// (depth 1 at the near plane) and +Y down. Pixels whose ray does not meet the ground in
/// front of the camera are false, as is every pixel when the sun is not above the
/// horizon or the matrix cannot be inverted. Degenerate or non-finite triangles cast
/// nothing. The mask is empty when `width * height` does not fit in `usize`.
pub fn ground_shadow_mask(
    triangles: &[[Vec3; 3]],
    towards_sun: Vec3,
    camera_view_projection: Mat4,
    width: u32,
    height: u32,
) -> Vec<bool> {
    let Some(pixel_count) = (width as usize).checked_mul(height as usize) else {
        return Vec::new();
    };
    let mut mask = vec![false; pixel_count];
    let determinant = camera_view_projection.determinant();
    let sun_above_horizon = towards_sun.z > 0.0;
    if pixel_count == 0 || !sun_above_horizon || !(determinant != 0.0 && determinant.is_finite()) {
        return mask;
    }
    let clip_to_world = camera_view_projection.inverse();
    let shadow_triangles = triangles
        .iter()
        .filter_map(|triangle| GroundTriangle::new(triangle, towards_sun))
        .collect();
    let Some(grid) = TriangleGrid::new(shadow_triangles) else {
        return mask;
    };
    let ndc_per_pixel = Vec2::new(2.0 / width as f32, 2.0 / height as f32);
    for (row, mask_row) in mask.chunks_mut(width as usize).enumerate() {
        let ndc_y = (row as f32 + 0.5) * ndc_per_pixel.y - 1.0;
        for (column, shadowed) in mask_row.iter_mut().enumerate() {
            let ndc = Vec2::new((column as f32 + 0.5) * ndc_per_pixel.x - 1.0, ndc_y);
            *shadowed = ground_point(&clip_to_world, ndc).is_some_and(|point| grid.covers(point));
        }
    }
    mask
}

/// Intersection over union of two masks of the same size; 1.0 when both are empty.
///
/// Should the lengths differ, the shorter mask counts as false where it has no entries.
pub fn iou(a: &[bool], b: &[bool]) -> f32 {
    let (longer, shorter) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut intersection = 0usize;
    let mut union = 0usize;
    for (index, &in_longer) in longer.iter().enumerate() {
        let in_shorter = shorter.get(index).copied().unwrap_or(false);
        intersection += usize::from(in_longer && in_shorter);
        union += usize::from(in_longer || in_shorter);
    }
    if union == 0 {
        1.0
    } else {
        intersection as f32 / union as f32
    }
}

/// Where the ray through a point on the screen (in NDC) meets the ground in front of the
/// camera, if it does.
fn ground_point(clip_to_world: &Mat4, ndc: Vec2) -> Option<Vec2> {
    // Depth 1 is the near plane and 0.5 lies beyond it, so the ray starts in front of
    // the eye and runs away from it.
    let near = clip_to_world.project_point3(ndc.extend(1.0));
    let farther = clip_to_world.project_point3(ndc.extend(0.5));
    let direction = farther - near;
    let along = -near.z / direction.z;
    // NaN (a ray lying in the ground) is not in front; a ray parallel to the ground
    // above it gives an infinite hit, which the finiteness check rejects.
    let in_front = along >= 0.0;
    if !in_front {
        return None;
    }
    let hit = near + direction * along;
    hit.is_finite().then(|| hit.truncate())
}

/// A shadow triangle on the ground, its corners counter-clockwise so that a point is
/// inside exactly when it is left of, or on, every edge.
struct GroundTriangle {
    corners: [Vec2; 3],
    min: Vec2,
    max: Vec2,
}

impl GroundTriangle {
    fn new(triangle: &[Vec3; 3], towards_sun: Vec3) -> Option<Self> {
        let [a, b, c] = triangle.map(|corner| project_onto_ground(corner, towards_sun).truncate());
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            return None;
        }
        let min = a.min(b).min(c);
        let max = a.max(b).max(c);
        let extent = (max - min).max_element();
        let twice_area = (b - a).perp_dot(c - a);
        // Relative to the triangle's size, so slivers that are lines up to rounding
        // are dropped rather than lighting up pixels along them.
        let has_area = twice_area.abs() > f32::EPSILON * extent * extent;
        if !has_area {
            return None;
        }
        let corners = if twice_area > 0.0 {
            [a, b, c]
        } else {
            [a, c, b]
        };
        Some(Self { corners, min, max })
    }

    /// Inclusive of the edges, so triangles sharing an edge leave no crack between them.
    fn contains(&self, point: Vec2) -> bool {
        let [a, b, c] = self.corners;
        (b - a).perp_dot(point - a) >= 0.0
            && (c - b).perp_dot(point - b) >= 0.0
            && (a - c).perp_dot(point - c) >= 0.0
    }
}

/// Shadow triangles binned into a uniform grid over their joint ground bounds, so each
/// ground point is tested only against the triangles whose bounds reach its cell.
struct TriangleGrid {
    triangles: Vec<GroundTriangle>,
    min: Vec2,
    max: Vec2,
    cell_size: f32,
    columns: usize,
    rows: usize,
    /// Indices into `triangles`, one list per cell, row by row.
    cells: Vec<Vec<usize>>,
}

impl TriangleGrid {
    fn new(triangles: Vec<GroundTriangle>) -> Option<Self> {
        let first = triangles.first()?;
        let (mut min, mut max) = (first.min, first.max);
        for triangle in &triangles {
            min = min.min(triangle.min);
            max = max.max(triangle.max);
        }
        let size_of = |triangle: &GroundTriangle| (triangle.max - triangle.min).max_element();
        let mut sizes: Vec<f32> = triangles.iter().map(size_of).collect();
        let middle = sizes.len() / 2;
        let (_, &mut median_size, _) = sizes.select_nth_unstable_by(middle, f32::total_cmp);
        // Cells about as wide as a typical triangle keep both the number of cells a
        // triangle spans and the number of triangles per cell small.
        let cell_size = median_size.max((max - min).max_element() / MAX_CELLS_PER_AXIS as f32);
        if !(cell_size > 0.0 && cell_size.is_finite()) {
            return None;
        }
        let cells_along = |span: f32| ((span / cell_size) as usize + 1).min(MAX_CELLS_PER_AXIS);
        let (columns, rows) = (cells_along(max.x - min.x), cells_along(max.y - min.y));
        let cells = vec![Vec::new(); columns * rows];
        let mut grid = Self {
            triangles,
            min,
            max,
            cell_size,
            columns,
            rows,
            cells,
        };
        for index in 0..grid.triangles.len() {
            let (first_column, first_row) = grid.cell_of(grid.triangles[index].min);
            let (last_column, last_row) = grid.cell_of(grid.triangles[index].max);
            for row in first_row..=last_row {
                for column in first_column..=last_column {
                    grid.cells[row * columns + column].push(index);
                }
            }
        }
        Some(grid)
    }

    /// Column and row of the cell holding a point, clamped onto the grid; monotonic, so a
    /// point inside a triangle's bounds falls in one of the cells its bounds span.
    fn cell_of(&self, point: Vec2) -> (usize, usize) {
        let cell = (point - self.min) / self.cell_size;
        let column = (cell.x as usize).min(self.columns - 1);
        (column, (cell.y as usize).min(self.rows - 1))
    }

    fn covers(&self, point: Vec2) -> bool {
        if !(point.cmpge(self.min).all() && point.cmple(self.max).all()) {
            return false;
        }
        let (column, row) = self.cell_of(point);
        let candidates = &self.cells[row * self.columns + column];
        candidates
            .iter()
            .any(|&index| self.triangles[index].contains(point))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: u32 = 256;
    const SQUARE_HEIGHT: f32 = 50.0;
    const CENTRE: Vec2 = Vec2::splat(SIZE as f32 / 2.0);

    fn camera(eye: Vec3, target: Vec3, up: Vec3) -> Mat4 {
        let mut projection = Mat4::perspective_infinite_reverse_rh(45f32.to_radians(), 1.0, 1.0);
        projection.y_axis.y = -projection.y_axis.y;
        projection * Mat4::look_at_rh(eye, target, up)
    }

    fn camera_looking_down() -> Mat4 {
        camera(Vec3::new(0.0, 0.0, 500.0), Vec3::ZERO, Vec3::Y)
    }

    fn pixel_of(view_projection: Mat4, point: Vec3) -> Vec2 {
        let ndc = view_projection.project_point3(point);
        Vec2::new(ndc.x * 0.5 + 0.5, ndc.y * 0.5 + 0.5) * SIZE as f32
    }

    /// Counter-clockwise corners of a horizontal square.
    fn square_corners(centre: Vec2, half_width: f32, height: f32) -> [Vec3; 4] {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(x, y)| (centre + Vec2::new(x, y) * half_width).extend(height))
    }

    fn square(centre: Vec2, half_width: f32, height: f32) -> [[Vec3; 3]; 2] {
        let [a, b, c, d] = square_corners(centre, half_width, height);
        [[a, b, c], [a, c, d]]
    }

    fn sun_at_elevation(degrees: f32) -> Vec3 {
        let elevation = degrees.to_radians();
        Vec3::new(elevation.cos(), 0.0, elevation.sin())
    }

    fn count(mask: &[bool]) -> f32 {
        mask.iter().filter(|&&shadowed| shadowed).count() as f32
    }

    fn centroid(mask: &[bool]) -> Vec2 {
        let pixels = (0..mask.len()).filter(|&index| mask[index]);
        let sum: Vec2 = pixels
            .map(|index| Vec2::new((index as u32 % SIZE) as f32, (index as u32 / SIZE) as f32))
            .sum();
        assert!(count(mask) > 0.0, "mask is empty");
        sum / count(mask) + 0.5
    }

    fn square_shadow(towards_sun: Vec3) -> Vec<bool> {
        let square = square(Vec2::ZERO, 100.0, SQUARE_HEIGHT);
        ground_shadow_mask(&square, towards_sun, camera_looking_down(), SIZE, SIZE)
    }

    /// Checks the mask covers, within 1%, the pixel area of a ground polygon's image.
    fn assert_covers_image(mask: &[bool], view_projection: Mat4, ground_corners: &[Vec3]) {
        let pixels: Vec<Vec2> = ground_corners
            .iter()
            .map(|&p| pixel_of(view_projection, p))
            .collect();
        let edges = pixels.iter().zip(pixels.iter().cycle().skip(1));
        let area = edges.map(|(a, b)| a.perp_dot(*b)).sum::<f32>().abs() / 2.0;
        let covered = count(mask);
        assert!((covered - area).abs() < 0.01 * area, "{covered} vs {area}");
    }

    #[test]
    fn projection_lands_height_over_tan_elevation_away_from_the_sun() {
        let sun = sun_at_elevation(30.0);
        let landing = project_onto_ground(Vec3::new(3.0, 7.0, 50.0), sun);
        let expected = Vec3::new(3.0 - 50.0 / 30f32.to_radians().tan(), 7.0, 0.0);
        assert!(landing.distance(expected) < 1e-3, "{landing} vs {expected}");
        let on_ground = Vec3::new(-4.0, 9.0, 0.0);
        assert_eq!(project_onto_ground(on_ground, sun), on_ground);
        let underground = project_onto_ground(Vec3::new(1.0, 2.0, -5.0), sun);
        assert_eq!(underground, Vec3::new(1.0, 2.0, 0.0));
    }

    #[test]
    fn overhead_sun_shadow_matches_the_squares_image() {
        let mask = square_shadow(Vec3::Z);
        let ground_corners = square_corners(Vec2::ZERO, 100.0, 0.0);
        assert_covers_image(&mask, camera_looking_down(), &ground_corners);
        let centroid = centroid(&mask);
        assert!(centroid.distance(CENTRE) < 1.0, "{centroid}");
    }

    #[test]
    fn low_sun_moves_the_shadow_away_from_the_sun() {
        let view_projection = camera_looking_down();
        let offset = Vec3::new(-SQUARE_HEIGHT / 30f32.to_radians().tan(), 0.0, 0.0);
        let expected = pixel_of(view_projection, offset) - pixel_of(view_projection, Vec3::ZERO);
        assert!(expected.x < -10.0, "world -X is not image left: {expected}");
        let moved = centroid(&square_shadow(sun_at_elevation(30.0)));
        let shift = moved - centroid(&square_shadow(Vec3::Z));
        assert!(shift.distance(expected) < 2.0, "{shift} vs {expected}");
    }

    #[test]
    fn mirroring_the_sun_mirrors_the_shadow() {
        let sun = sun_at_elevation(30.0);
        let east = square_shadow(sun);
        let west = square_shadow(Vec3::new(-sun.x, sun.y, sun.z));
        let (east_offset, west_offset) = (centroid(&east) - CENTRE, centroid(&west) - CENTRE);
        assert!(east_offset.x.abs() > 10.0, "unmoved: {east_offset}");
        let mirrored = Vec2::new(-west_offset.x, west_offset.y);
        assert!(
            east_offset.distance(mirrored) < 1.0,
            "{east_offset} {west_offset}"
        );
        assert!(iou(&east, &west) < 0.5);
    }

    #[test]
    fn a_lone_triangle_shadows_its_own_image_whichever_way_it_winds() {
        let view_projection = camera_looking_down();
        let [a, b, c] =
            [(-100.0, -80.0), (90.0, -40.0), (-20.0, 100.0)].map(|(x, y)| Vec3::new(x, y, 30.0));
        let forwards = ground_shadow_mask(&[[a, b, c]], Vec3::Z, view_projection, SIZE, SIZE);
        assert_covers_image(
            &forwards,
            view_projection,
            &[a, b, c].map(|p| p.with_z(0.0)),
        );
        let backwards = ground_shadow_mask(&[[a, c, b]], Vec3::Z, view_projection, SIZE, SIZE);
        assert_eq!(backwards, forwards);
        // A line through a pixel's own ground point, where an edge test is exactly zero.
        let on_line = ground_point(&view_projection.inverse(), Vec2::splat(1.0 / SIZE as f32))
            .expect("the middle pixel sees the ground");
        let line = [0.0, 10.0, 20.0].map(|step| (on_line + Vec2::new(0.0, step)).extend(30.0));
        let degenerate = ground_shadow_mask(&[line], Vec3::Z, view_projection, SIZE, SIZE);
        assert_eq!(count(&degenerate), 0.0);
    }

    #[test]
    fn binning_finds_what_testing_every_triangle_finds() {
        let mut seed = 7u64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / 16_777_216.0
        };
        let triangles: Vec<[Vec3; 3]> = (0..400)
            .map(|_| {
                let centre = Vec3::new(random() - 0.5, random() - 0.5, random() / 3.0) * 300.0;
                [(); 3].map(|_| centre + Vec3::new(random(), random(), random()) * 30.0 - 15.0)
            })
            .collect();
        let sun = Vec3::new(0.4, -0.3, 0.8);
        let view_projection = camera(Vec3::new(0.0, -300.0, 250.0), Vec3::ZERO, Vec3::Z);
        let mask = ground_shadow_mask(&triangles, sun, view_projection, SIZE, SIZE);
        let shadows: Vec<_> = triangles
            .iter()
            .filter_map(|t| GroundTriangle::new(t, sun))
            .collect();
        let clip_to_world = view_projection.inverse();
        let exhaustive: Vec<bool> = (0..SIZE * SIZE)
            .map(|index| {
                let pixel = Vec2::new((index % SIZE) as f32, (index / SIZE) as f32);
                let ndc = (pixel + 0.5) * (2.0 / SIZE as f32) - 1.0;
                let ground = ground_point(&clip_to_world, ndc);
                ground.is_some_and(|point| shadows.iter().any(|shadow| shadow.contains(point)))
            })
            .collect();
        assert!(count(&exhaustive) > 1000.0);
        assert!(mask == exhaustive, "IoU {}", iou(&mask, &exhaustive));
    }

    #[test]
    fn iou_counts_shared_pixels_over_covered_pixels() {
        let a = [true, true, false, false];
        assert_eq!(iou(&a, &a), 1.0);
        assert_eq!(iou(&a, &[false, false, true, true]), 0.0);
        assert!((iou(&a, &[false, true, true, false]) - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(iou(&[false; 4], &[false; 4]), 1.0);
    }

    #[test]
    fn shadows_behind_the_camera_or_under_the_sky_are_not_seen() {
        // Level with the horizon: the top half of the image is sky, whose rays meet the
        // ground only behind the eye.
        let (eye, ahead) = (Vec3::new(0.0, 0.0, 100.0), Vec3::new(1000.0, 0.0, 100.0));
        let view_projection = camera(eye, ahead, Vec3::Z);
        let behind = square(Vec2::new(-300.0, 0.0), 200.0, 10.0);
        let mask = ground_shadow_mask(&behind, Vec3::Z, view_projection, SIZE, SIZE);
        assert_eq!(count(&mask), 0.0);
        let everywhere = square(Vec2::ZERO, 1.0e6, 10.0);
        let mask = ground_shadow_mask(&everywhere, Vec3::Z, view_projection, SIZE, SIZE);
        let (sky, ground) = mask.split_at(mask.len() / 2);
        assert_eq!((count(sky), count(ground)), (0.0, ground.len() as f32));
    }
}
