//! Every constant the shaders share with Rust, defined once, here.
//!
//! build.rs includes this file and writes each entry of [`GLSL`] as a GLSL
//! `const` into `shared_constants.glsl`, which the shaders `#include` (the
//! file exists only in the build's output directory; build.rs serves it to
//! the compiler). The Rust names are re-exported where their subject lives
//! (`skin::MAX_LODS`, `crowd::IMPOSTOR_AZIMUTHS`, ...). niagara's
//! `config.h`, included by both its C++ and its GLSL, is the model.
//!
//! The file stands alone (no `crate::` paths): build.rs compiles it too.

/// A value as GLSL spells it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GlslValue {
    Uint(u32),
    Int(i32),
    Float(f32),
}

impl GlslValue {
    /// The declaration of `name` with this value.
    pub fn declaration(self, name: &str) -> String {
        match self {
            // Bit masks read better in hex; counts and sizes in decimal.
            GlslValue::Uint(value) if value > 0xffff => format!("const uint {name} = {value:#x}u;"),
            GlslValue::Uint(value) => format!("const uint {name} = {value}u;"),
            GlslValue::Int(value) => format!("const int {name} = {value};"),
            // `{:?}` keeps a decimal point (30.0), which GLSL needs for a float.
            GlslValue::Float(value) => format!("const float {name} = {value:?};"),
        }
    }
}

/// One entry of [`GLSL`]: its name, value and the doc comment GLSL repeats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharedConstant {
    pub name: &'static str,
    pub value: GlslValue,
    pub doc: &'static str,
}

macro_rules! glsl_value {
    (u32, $value:expr) => {
        GlslValue::Uint($value)
    };
    // Rust lengths and indices; every one fits a uint (checked in tests).
    (usize, $value:expr) => {
        GlslValue::Uint($value as u32)
    };
    (i32, $value:expr) => {
        GlslValue::Int($value)
    };
    (f32, $value:expr) => {
        GlslValue::Float($value)
    };
}

/// Defines each constant for Rust and lists it in [`GLSL`] for the shaders.
macro_rules! shared_constants {
    ($($(#[doc = $doc:literal])+ $name:ident: $ty:tt = $value:expr;)+) => {
        $($(#[doc = $doc])+ pub const $name: $ty = $value;)+

        /// Every constant above, for build.rs to write as GLSL.
        pub const GLSL: &[SharedConstant] = &[$(SharedConstant {
            name: stringify!($name),
            value: glsl_value!($ty, $name),
            doc: concat!($($doc, "\n"),+),
        }),+];
    };
}

shared_constants! {
    // ---- The crowd's limits: array sizes of the visible lists and samplers.

    /// Models a crowd may mix: the visible lists keep a count per model and
    /// level.
    MAX_MODELS: usize = 16;
    /// Skins a crowd may be drawn with: the length of crowd.frag's sampler
    /// arrays, 3 * 8 = 24 per stage, inside the 32 lavapipe allows.
    MAX_SKINS: usize = 8;
    /// The most levels a mesh has, level 0 included (the visible lists hold
    /// one region each).
    MAX_LODS: usize = 8;

    // ---- Materials (material::Shading): crowd.frag's pipeline constants.

    /// Shading model: Doom 3's diffuse, normal and specular maps.
    SHADING_DOOM3: u32 = 0;
    /// Shading model: the glTF specification's metallic-roughness BRDF.
    SHADING_METALLIC_ROUGHNESS: u32 = 1;
    /// Shading model: KHR_materials_unlit, base colour alone.
    SHADING_UNLIT: u32 = 2;
    /// Alpha mode: alpha ignored.
    ALPHA_OPAQUE: u32 = 0;
    /// Alpha mode: cut at the cutoff, which the base colour's alpha was
    /// remapped to meet at 0.5 when decoded.
    ALPHA_MASK: u32 = 1;
    /// Alpha mode: blended over what is behind.
    ALPHA_BLEND: u32 = 2;
    /// The metallic-roughness ambient is a sky-to-ground hemisphere: the
    /// frame's ambient colour from straight up, this share of it from
    /// straight down.
    HEMISPHERE_GROUND_SHARE: f32 = 0.5;
    /// The least perceptual roughness shaded (Filament's): GGX at 0 is a
    /// delta, undefined where the half vector meets the normal.
    MIN_ROUGHNESS: f32 = 0.045;
    /// The camera's near plane lies at this share of the distance from the
    /// eye to the target: reverse-Z depth is `NEAR_PLANE_SHARE x target
    /// distance / distance`.
    NEAR_PLANE_SHARE: f32 = 0.01;
    /// Weighted blended transparency weighs a fragment by its alpha times
    /// (target distance / distance) squared, clamped to these bounds: nearer
    /// layers dominate where layers overlap, and no sum leaves half-float
    /// range (McGuire and Bavoil's bounds).
    BLEND_WEIGHT_MIN: f32 = 0.01;
    /// The largest weighted-blend weight (see `BLEND_WEIGHT_MIN`).
    BLEND_WEIGHT_MAX: f32 = 3000.0;

    // ---- Pose sources: where an instance's skinning transforms come from.

    /// A pose source with this bit is an index into the shared poses of
    /// animation level of detail rather than into the skinning palette.
    SHARED_POSE: u32 = 0x8000_0000;
    /// The pose source of an instance drawn as an impostor alone: it has no
    /// skinning transforms (its cell is in the impostor cells).
    IMPOSTOR_POSE: u32 = 0x4000_0000;
    /// A mesh's pose source with this bit: the instance is in the band
    /// around the impostor switch, drawn as its impostor too, and its mesh
    /// keeps only the pixels its fade leaves it.
    IMPOSTOR_BAND: u32 = 0x2000_0000;
    /// `palette_rows` of the compute constants with CPU animation, which
    /// uploads every instance's transforms at its own rows.
    PALETTE_PER_INSTANCE: u32 = u32::MAX;
    /// Shared poses per second of clip time: distant instances move at this
    /// rate.
    SHARED_POSE_RATE: f32 = 30.0;

    // ---- Layers: clips laid over an instance's base clip.

    /// Layers an instance plays over its base clip at most
    /// (`crowd::LayerTrack`).
    MAX_LAYERS: usize = 3;
    /// A layer's `mask_and_mode` with this bit adds its clip's difference
    /// from its first frame; without, it overrides its channel's joints.
    LAYER_ADDITIVE: u32 = 0x8000_0000;

    // ---- Morph targets: weights per instance, offsets per vertex.

    /// `ClipInfo::first_morph_row` of a clip whose model has no morph
    /// targets: animate writes no weights for its instances.
    MORPH_NONE: u32 = u32::MAX;

    // ---- Texel records: what the animate kernels fetch per joint.

    /// Texels (4 floats each) of a clip frame's joint pose in `clip_poses`:
    /// the rotation, then the translation.
    JOINT_POSE_TEXELS: usize = 2;
    /// Texels of a joint in `skeleton`: the inverse bind rotation, its
    /// translation with the parent's index in w, then the joint's depth.
    SKELETON_JOINT_TEXELS: usize = 3;

    // ---- Skinning modes (DrawConstants::skinning_mode).

    /// Linear blend skinning: blend the transformed points.
    SKINNING_LINEAR: u32 = 0;
    /// Dual quaternion skinning: blend the transforms, transform once.
    SKINNING_DUAL_QUATERNION: u32 = 1;
    /// The bind pose, unskinned: the ideal the benchmark compares against.
    SKINNING_NONE: u32 = 2;

    // ---- Culling phases (CrowdComputeConstants::phase).

    /// Without occlusion culling, one phase culls and draws everything.
    PHASE_ALL: u32 = 0;
    /// Occlusion culling's first phase: draw what was visible last frame.
    PHASE_EARLY: u32 = 1;
    /// Occlusion culling's second phase, after the depth pyramid: test
    /// everything, draw what newly passed.
    PHASE_LATE: u32 = 2;
    /// A shadow cascade's cull, after the camera's first: keep what meets
    /// the cascade, with the pose the camera drew it in (or its clip's
    /// shared pose), and write no visibility history.
    PHASE_SHADOW: u32 = 3;

    // ---- Views: the camera, then the sun's shadow cascades.

    /// Shadow cascades at most: cull views 1 to this are theirs.
    MAX_SHADOW_CASCADES: usize = 4;
    /// Cull views in the frame's uniforms: the camera's (view 0), then a
    /// shadow cascade's each.
    CULL_VIEWS: usize = 5;

    // ---- Indirect commands, in 32-bit words (their Vulkan structs).

    /// A `VkDrawIndexedIndirectCommand`; the overlay's and impostors'
    /// `VkDrawIndirectCommand` (4 words) are padded to it.
    DRAW_COMMAND_WORDS: u32 = 5;
    /// `instanceCount`'s word in both kinds of draw command.
    INSTANCE_COUNT_WORD: u32 = 1;
    /// `firstInstance`'s word in a `VkDrawIndexedIndirectCommand`.
    INDEXED_FIRST_INSTANCE_WORD: u32 = 4;
    /// `firstInstance`'s word in a `VkDrawIndirectCommand`.
    FIRST_INSTANCE_WORD: u32 = 3;
    /// A `VkDispatchIndirectCommand`, padded to 16 bytes.
    DISPATCH_COMMAND_WORDS: u32 = 4;

    // ---- Occlusion culling.

    /// log2 of the texels a box's screen rectangle spans at the level it
    /// is tested at: 16 to 32 texels across, fine enough to find the gaps
    /// between characters. The GPU stops at the first texel drawn behind a
    /// box, so a visible box reads few of them.
    OCCLUSION_TEXELS_LOG2: i32 = 5;
    /// Levels a depth pyramid may have: enough for a 65536-pixel image.
    MAX_PYRAMID_LEVELS: usize = 16;

    // ---- Impostors: the atlas's layout and when an impostor is drawn.

    /// View directions around the character per ring (22.5 degrees apart).
    IMPOSTOR_AZIMUTHS: u32 = 16;
    /// Rings of elevation: 0, 30 and 60 degrees above the horizon, the
    /// street view's eye height and the overview's 28-degree pitch each
    /// within 15 degrees of one.
    IMPOSTOR_RINGS: u32 = 3;
    /// Degrees of elevation between rings.
    IMPOSTOR_RING_STEP_DEGREES: f32 = 30.0;
    /// Texels along a cell's side, across the model's sphere.
    IMPOSTOR_CELL_TEXELS: u32 = 32;
    /// The error an impostor counts as, in texels of its atlas, for the
    /// level rule: 0.6 puts the switch where a texel projects to 5/6 of a
    /// pixel. Measured on 4096 shipped characters at 1920x1080, overview,
    /// against meshes, the pixels differing by more than 10% were 3.4% at
    /// 0.5 (a texel a pixel), 2.4% at 0.6 and 1.2% at 0.75; view and frame
    /// steps matter less (docs/impostors.md).
    IMPOSTOR_ERROR_TEXELS: f32 = 0.6;
    /// Frames baked of each clip, spread evenly over its duration, whatever
    /// the number of clips: a slot of the atlas (a layer of its images)
    /// holds one clip's, a row each.
    IMPOSTOR_FRAMES_PER_CLIP: u32 = 12;
    /// In the slot table cull.comp reads (a slot per clip): the clip is not
    /// baked, so its instances are drawn as meshes.
    IMPOSTOR_UNBAKED: u32 = u32::MAX;
    /// An impostor's word in the impostor cells: its cell,
    /// `view + IMPOSTOR_VIEWS * row`, below this bit, and its fade (0 to
    /// 255: the share of its pixels the impostor keeps from the mesh) from
    /// this bit up.
    IMPOSTOR_FADE_SHIFT: u32 = 24;
    /// The fade of an instance drawn as an impostor alone (0: a mesh
    /// alone; between: both, in the band around the switch).
    IMPOSTOR_FADE_FULL: u32 = 255;
    /// The fade at the switch itself: past it, an instance whose clip is
    /// not baked yet is drawn as a mesh at its coarsest level.
    IMPOSTOR_FADE_SWITCH: u32 = 128;
    /// Half the band around the impostor switch, a share of the switch's
    /// distance: from (1 - this) to (1 + this) times that distance, a
    /// character is drawn both ways, its pixels dithered between mesh and
    /// impostor in proportion, so it fades over many frames instead of
    /// changing at once.
    IMPOSTOR_BAND_WIDTH: f32 = 0.15;

    // ---- Locomotion (agents.comp).

    /// Clips locomotion chooses between: the idle clip and up to three
    /// moving ones.
    MAX_GAITS: usize = 4;
    /// Pieces of the speed profile.
    PROFILE_SEGMENTS: usize = 8;
    /// Clip switches one period of the profile can hold: each of its four
    /// speed changes crosses at most `MAX_GAITS - 1` midpoints, but two of
    /// them span only the stand/walk one.
    MAX_GAIT_SWITCHES: usize = 8;
    /// Seconds of one period of the speed profile.
    PROFILE_PERIOD: f32 = 29.0;
    /// Even shares of the stride the inverse distance curve is sampled at,
    /// about two per frame of the shipped walk; the table holds one more
    /// (both ends): 64 floats, an array bytemuck can upload.
    DISTANCE_CURVE_SAMPLES: usize = 63;
}

/// The GLSL include: every constant of [`GLSL`] with its doc comment.
pub fn glsl_include() -> String {
    let mut text = String::from(
        "// Generated by build.rs from src/shared_constants.rs: edit the constants there.\n\
         #ifndef SHARED_CONSTANTS_GLSL\n#define SHARED_CONSTANTS_GLSL\n",
    );
    for constant in GLSL {
        text.push('\n');
        for line in constant.doc.lines() {
            text.push_str(&format!("//{line}\n"));
        }
        text.push_str(&constant.value.declaration(constant.name));
        text.push('\n');
    }
    text.push_str("\n#endif\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_fits_its_glsl_type_and_names_are_unique() {
        let names: std::collections::HashSet<_> = GLSL.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), GLSL.len());
        // usize constants pass through `as u32`: none may wrap.
        for (name, value) in [
            ("MAX_MODELS", MAX_MODELS),
            ("MAX_SKINS", MAX_SKINS),
            ("MAX_LODS", MAX_LODS),
            ("JOINT_POSE_TEXELS", JOINT_POSE_TEXELS),
            ("SKELETON_JOINT_TEXELS", SKELETON_JOINT_TEXELS),
            ("MAX_PYRAMID_LEVELS", MAX_PYRAMID_LEVELS),
            ("MAX_GAITS", MAX_GAITS),
            ("PROFILE_SEGMENTS", PROFILE_SEGMENTS),
            ("MAX_GAIT_SWITCHES", MAX_GAIT_SWITCHES),
            ("DISTANCE_CURVE_SAMPLES", DISTANCE_CURVE_SAMPLES),
        ] {
            let entry = GLSL.iter().find(|c| c.name == name).unwrap();
            assert_eq!(entry.value, GlslValue::Uint(u32::try_from(value).unwrap()));
        }
    }

    #[test]
    fn declarations_are_glsl() {
        assert_eq!(
            GlslValue::Uint(IMPOSTOR_POSE).declaration("IMPOSTOR_POSE"),
            "const uint IMPOSTOR_POSE = 0x40000000u;"
        );
        assert_eq!(
            GlslValue::Float(SHARED_POSE_RATE).declaration("SHARED_POSE_RATE"),
            "const float SHARED_POSE_RATE = 30.0;"
        );
        assert_eq!(
            GlslValue::Int(OCCLUSION_TEXELS_LOG2).declaration("OCCLUSION_TEXELS_LOG2"),
            "const int OCCLUSION_TEXELS_LOG2 = 5;"
        );
        let include = glsl_include();
        assert!(include.contains("// Texels along a cell's side, across the model's sphere.\nconst uint IMPOSTOR_CELL_TEXELS = 32u;"), "{include}");
    }

    #[test]
    fn the_command_words_are_vulkans() {
        use ash::vk;
        use std::mem::{offset_of, size_of};
        let word = size_of::<u32>();
        assert_eq!(
            DRAW_COMMAND_WORDS as usize * word,
            size_of::<vk::DrawIndexedIndirectCommand>()
        );
        assert!(size_of::<vk::DrawIndirectCommand>() <= DRAW_COMMAND_WORDS as usize * word);
        assert_eq!(
            INSTANCE_COUNT_WORD as usize * word,
            offset_of!(vk::DrawIndexedIndirectCommand, instance_count)
        );
        assert_eq!(
            INSTANCE_COUNT_WORD as usize * word,
            offset_of!(vk::DrawIndirectCommand, instance_count)
        );
        assert_eq!(
            INDEXED_FIRST_INSTANCE_WORD as usize * word,
            offset_of!(vk::DrawIndexedIndirectCommand, first_instance)
        );
        assert_eq!(
            FIRST_INSTANCE_WORD as usize * word,
            offset_of!(vk::DrawIndirectCommand, first_instance)
        );
        assert!(size_of::<vk::DispatchIndirectCommand>() <= DISPATCH_COMMAND_WORDS as usize * word);
    }
}
