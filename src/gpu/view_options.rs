//! The per-frame view options: the switches a frame is drawn with that
//! cost no rebuild, and how the sun's shadows are drawn. The frame loop
//! takes them in each frame's [`super::frame_loop::FrameInput`].

use glam::Mat4;

use crate::skin::SkinningMethod;

/// Per-frame switches that cost no rebuild.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewOptions {
    pub skinning: SkinningMethod,
    pub show_skeleton: bool,
    /// Triangle edges only, where
    /// [`Context::wireframe`](super::Context::wireframe) allows.
    pub wireframe: bool,
    /// Scales the projected error a level of detail may have
    /// (`cull::LOD_PIXEL_ERROR` pixels at 1; `None`: every instance at
    /// level 0).
    pub lod_bias: Option<f32>,
    /// Tint instances by their level of detail.
    pub show_lod: bool,
    /// Coarse levels skin with the fewer influences per vertex they keep
    /// (`skin::lod_influences`); off: every level reads all of them (the
    /// same levels are chosen, so on / off compares the skinning alone).
    pub lod_influences: bool,
    /// Two-phase occlusion culling against a depth pyramid; leaves the
    /// image as it is, draws fewer instances where some hide others.
    pub occlusion: bool,
    /// Record the per-frame compute work only (cull, animate) and draw
    /// nothing: what `bench --compute-only` times.
    pub compute_only: bool,
    /// Animation level of detail (GPU animation only): distant instances
    /// show their clip's shared pose for the moment instead of their own.
    pub anim_lod: bool,
    /// Each run of a mesh's levels of detail that share a pipeline is one
    /// indirect call, where
    /// [`Context::multi_draw_indirect`](super::Context::multi_draw_indirect)
    /// allows; off: a call per level. The same draws either way.
    pub multi_draw: bool,
    /// The crowd walks its lanes (the agent pass places and times every
    /// instance) over the ground; off: it stands where the grid put it.
    pub locomotion: bool,
    /// The ground under the crowd, walking or not; off, a standing crowd
    /// is drawn in the void.
    pub ground: bool,
    /// Past the level-of-detail chain, instances whose impostor atlas
    /// resolves them are drawn as impostors (GPU or CPU animation, level
    /// of detail on).
    pub impostors: bool,
    /// Frozen culling: the view-projection the cull pass keeps judging by
    /// (frustum, level of detail, animation LOD) while the view moves on,
    /// so what it drops can be watched from outside. Occlusion is off
    /// meanwhile: the depth pyramid is the live view's.
    pub frozen_cull: Option<Mat4>,
    /// How the sun's shadows are drawn.
    pub shadows: Shadows,
    /// Tint what each shadow cascade covers.
    pub shadow_cascade_colors: bool,
    /// Morph targets move their characters' vertices, by weights the
    /// animate pass samples; off, every character shows its base shape
    /// (what `bench --morphs` compares).
    pub morphs: bool,
}

/// How the sun's shadows are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shadows {
    /// Cascaded shadow maps: every character casts on the ground, on the
    /// others and on itself (GPU or CPU animation; the renderer's
    /// cascades, [`super::renderer::RendererDesc::shadow_cascades`]).
    Map,
    /// A dark disc on the ground under each character.
    Blob,
    #[default]
    Off,
}

impl Default for ViewOptions {
    /// Level of detail on at a one-pixel error, the rest off.
    fn default() -> ViewOptions {
        ViewOptions {
            skinning: SkinningMethod::Linear,
            show_skeleton: false,
            wireframe: false,
            lod_bias: Some(1.0),
            show_lod: false,
            lod_influences: true,
            occlusion: true,
            compute_only: false,
            anim_lod: true,
            multi_draw: true,
            locomotion: false,
            ground: false,
            impostors: true,
            frozen_cull: None,
            shadows: Shadows::Off,
            shadow_cascade_colors: false,
            morphs: true,
        }
    }
}
