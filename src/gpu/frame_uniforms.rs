//! A frame's uniforms: what the caller gives ([`SceneUniforms`]: camera,
//! light, clock) and what the renderer derives from it, the view options,
//! its targets and its models (the culls' views, the shadow cascades fitted
//! to the camera and their views).

use super::crowd_buffers::Animation;
use super::frame_loop::FrameInput;
use super::renderer::Renderer;
use super::shader_types::{
    FrameUniforms, GpuCullView, CULL_VIEWS, MAX_MODELS, MAX_SHADOW_CASCADES,
};
use super::view_options::{Shadows, ViewOptions};
use crate::crowd::{CullView, Frustum, LodParams};
use crate::shadow::{fit_cascades, Cascade, CascadeDesc};
use glam::{Mat4, Vec4, Vec4Swizzles};

/// What only the caller knows of a frame's [`FrameUniforms`]: the camera,
/// the light and the clock. The renderer derives the rest from the view
/// options, its targets and its models.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SceneUniforms {
    pub view_projection: Mat4,
    pub light_direction: Vec4,
    pub light_color: Vec4,
    pub ambient_color: Vec4,
    /// xyz: the eye, world space (specular highlights); w unused.
    pub camera_position: Vec4,
    /// Inward unit normal and distance per plane (`crowd::Frustum`) of
    /// `view_projection`; planes of zeros keep everything.
    pub frustum_planes: [Vec4; 6],
    pub time: f32,
    pub blend_time: f32,
    /// How far from the eye shadow maps begin and end: the near and far
    /// sides of what casts them (the cascades' texels go there); 0 and 0:
    /// the near plane, and [`SHADOW_DISTANCE_IN_HEIGHTS`] of the largest
    /// model.
    pub shadow_start: f32,
    pub shadow_distance: f32,
}

/// Where the caller does not say how far shadows reach
/// ([`SceneUniforms::shadow_distance`]), this many of the largest model's
/// heights in front of the eye: a street's length of characters.
pub const SHADOW_DISTANCE_IN_HEIGHTS: f32 = 60.0;

/// Between uniform (0) and logarithmic (1) cascade splits: mostly
/// logarithmic, as texels on screen shrink with the distance.
const SHADOW_SPLIT_LAMBDA: f32 = 0.75;

/// Animation level of detail shares poses among instances whose bounding
/// sphere projects to at most this radius, in pixels: a character under
/// about 30 pixels tall, where 30 poses a second and no crossfade detail
/// cannot be told from its own animation.
pub const ANIM_LOD_RADIUS: f32 = 16.0;

impl Renderer {
    /// The frame's uniforms: the caller's scene, and what the renderer
    /// derives. Culling judges by the frozen camera when there is one;
    /// the levels of detail are chosen for the target's height, and
    /// impostors face the camera drawing.
    pub(super) fn frame_uniforms(&self, input: &FrameInput) -> FrameUniforms {
        let scene = input.uniforms;
        let extent = self.targets.extent();
        let cull_view_projection = input.view.frozen_cull.unwrap_or(scene.view_projection);
        let mut cull = CullView::new(
            cull_view_projection,
            scene.camera_position.xyz().extend(1.0),
            (extent.width, extent.height),
            input.view.lod_bias,
        );
        if input.view.frozen_cull.is_none() {
            cull.frustum.planes = scene.frustum_planes;
        }
        let anim_lod = input.view.anim_lod && input.posed.animation() == Animation::Gpu;
        let shared_pose_radius = if anim_lod { ANIM_LOD_RADIUS } else { 0.0 };
        let mut cull_views = [GpuCullView::default(); CULL_VIEWS];
        cull_views[0] = GpuCullView::new(&cull, shared_pose_radius);
        let (mut shadow_far, mut shadow_texel_size) =
            ([0.0; MAX_SHADOW_CASCADES], [0.0; MAX_SHADOW_CASCADES]);
        let cascades = self.shadow_cascades(&scene, &input.view);
        for (c, cascade) in cascades.iter().enumerate() {
            cull_views[c + 1] = GpuCullView::new(
                &cascade_view(
                    cascade,
                    &scene,
                    input.view.lod_bias,
                    self.shadow_map.resolution,
                ),
                0.0,
            );
            shadow_far[c] = cascade.far_distance;
            shadow_texel_size[c] = cascade.texel_size;
        }
        let model = &self.model.model;
        let mut radii = [0.0; MAX_MODELS];
        for (radius, part) in radii.iter_mut().zip(&model.parts) {
            *radius = part.shadow_radius;
        }
        FrameUniforms {
            view_projection: scene.view_projection,
            cull_views,
            light_direction: scene.light_direction,
            light_color: scene.light_color,
            ambient_color: scene.ambient_color,
            camera_position: scene.camera_position,
            time: scene.time,
            blend_time: scene.blend_time,
            morph_stride: match input.view.morphs {
                true => model.morph_stride,
                false => 0,
            },
            padding: 0.0,
            ground: Vec4::new(model.ground_cell, 0.0, 0.0, 0.0),
            shadow_radii: bytemuck::cast(radii),
            shadow_far,
            shadow_texel_size,
            shadow_params: [
                cascades.len() as u32,
                u32::from(input.view.shadow_cascade_colors && !cascades.is_empty()),
                0,
                0,
            ],
        }
    }

    /// The shadow cascades a frame of `scene` seen with `view` draws,
    /// fitted to the camera's view (not a frozen cull's) for the sun the
    /// key light comes from; none without shadow maps or without a crowd
    /// that casts them.
    pub fn shadow_cascades(&self, scene: &SceneUniforms, view: &ViewOptions) -> Vec<Cascade> {
        let count = self.crowd.as_ref().map_or(0, |c| c.shape.shadow_cascades);
        if view.shadows != Shadows::Map || count == 0 || view.compute_only {
            return Vec::new();
        }
        let height = self.model.model.ground_cell;
        let near = LodParams::new(scene.view_projection, 1, None).near;
        fit_cascades(
            scene.view_projection,
            near,
            scene.light_direction.xyz(),
            // Raised arms and props reach past the tallest model's height.
            (0.0, 1.5 * height),
            &CascadeDesc {
                count,
                resolution: self.shadow_map.resolution,
                start_distance: scene.shadow_start
                    * nearest_depth_per_distance(scene.view_projection),
                max_distance: match scene.shadow_distance > 0.0 {
                    true => scene.shadow_distance,
                    false => SHADOW_DISTANCE_IN_HEIGHTS * height,
                },
                split_lambda: SHADOW_SPLIT_LAMBDA,
            },
        )
    }
}

/// What cascade `cascade`'s cull judges by: its orthographic view, the
/// casters whose shadows can land in its slice (its caster volume, inside
/// its box), its impostors seen from the sun, levels of detail by its
/// texels at `lod_bias`.
pub fn cascade_view(
    cascade: &Cascade,
    scene: &SceneUniforms,
    lod_bias: Option<f32>,
    resolution: u32,
) -> CullView {
    let towards_sun = scene.light_direction.xyz().normalize_or_zero().extend(0.0);
    let mut view = CullView::new(
        cascade.view_projection,
        towards_sun,
        (resolution, resolution),
        lod_bias,
    );
    view.frustum = Frustum {
        planes: cascade.caster_volume,
    };
    view
}

/// The least depth in front of the eye (clip w) of a point one unit from
/// it and in view of `view_projection`: the cosine of the half diagonal of
/// its field of view, the view's corner.
fn nearest_depth_per_distance(view_projection: Mat4) -> f32 {
    let tangent = |row: usize| 1.0 / view_projection.row(row).xyz().length().max(1e-6);
    1.0 / (1.0 + tangent(0).powi(2) + tangent(1).powi(2)).sqrt()
}
