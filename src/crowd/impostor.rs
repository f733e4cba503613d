//! Impostors, CPU reference of cull.comp's choice: past its level-of-detail
//! chain a distant character is drawn as one quad showing an image of it,
//! baked on the GPU when first wanted (`gpu::impostor_atlas`), from the
//! view direction nearest the camera's and the frame nearest its clip time.
//! This module says what the atlas holds ([`ImpostorLayout`]), which
//! instances want their impostor ([`uses_impostor`]: the level rule of
//! [`super::select_lod`] with the atlas's own error), which clip they show
//! ([`dominant_clip`]; drawn as an impostor only once its atlas has that
//! clip baked, see [`super::AtlasSlots`]) and which cell each one shows
//! ([`impostor_cell`]).
//!
//! The atlas is a grid of square cells in layers, a column per view
//! direction, a row per frame and a layer (a slot) per clip it holds:
//! [`IMPOSTOR_AZIMUTHS`] directions around the character on each of
//! [`IMPOSTOR_RINGS`] rings of elevation, and [`IMPOSTOR_FRAMES_PER_CLIP`]
//! frames of the clip. docs/impostors.md says how these numbers were chosen.

use std::f32::consts::TAU;

use glam::Vec3;

use crate::anim::{Clip, JointPose, Skeleton, SkinningTransform};
use crate::bounds::Bounds;

use super::{animate_instance, Animated, BoundingSphere, CullView, Instance};

pub use crate::shared_constants::{
    IMPOSTOR_AZIMUTHS, IMPOSTOR_BAND_WIDTH, IMPOSTOR_CELL_TEXELS, IMPOSTOR_ERROR_TEXELS,
    IMPOSTOR_FRAMES_PER_CLIP, IMPOSTOR_RINGS, IMPOSTOR_RING_STEP_DEGREES,
};
/// Slots of an atlas at most: each is a layer of its images, and every
/// Vulkan device offers at least 256 layers.
pub const IMPOSTOR_MAX_SLOTS: u32 = 256;
/// Device memory all atlases may take together, shared evenly among a
/// crowd's models: each gets as many slots (clips baked at once) as its
/// share buys, at least one and at most its clips. The one budget of the
/// atlases; [`super::AtlasSlots`] says which clips fill the slots.
pub const IMPOSTOR_MEMORY_BUDGET: u64 = 256 << 20;
/// Bytes per texel of each of an atlas's images ([`AtlasImage`], RGBA8
/// all).
const BYTES_PER_TEXEL: u64 = 4;

/// One of an atlas's images, each with a layer per slot, every value
/// premultiplied by the texel's coverage: what a texel keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtlasImage {
    /// Albedo and coverage under skin `n` (sRGB).
    Albedo(u32),
    /// The normal in the view's frame and the depth along it.
    NormalDepth,
    /// Metallic, roughness and occlusion of the metallic-roughness
    /// texels, and their share (alpha): only [`ImpostorLayout::surfaces`].
    Surface,
    /// Emission (sRGB), and the share of unlit texels (alpha): only
    /// [`ImpostorLayout::surfaces`].
    Emission,
}

/// What a model's atlas holds and where: a slot per clip it can hold at
/// once, each a layer of its images.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorLayout {
    /// Frames of each clip: [`IMPOSTOR_FRAMES_PER_CLIP`].
    pub frames_per_clip: u32,
    /// The model's clips (a model without clips has one, its bind pose).
    pub clip_count: u32,
    /// Clips the atlas holds at once: each slot is a layer of every image.
    pub slots: u32,
    /// Layers of albedo, one per skin: tints and the per-instance skins
    /// apply at draw time, light too (from the baked normals).
    pub skins: u32,
    /// Whether each texel also keeps which model shades it and what
    /// metallic-roughness needs ([`AtlasImage::Surface`],
    /// [`AtlasImage::Emission`]): only a model with materials other than
    /// Doom 3's pays for them.
    pub surfaces: bool,
    /// In model space, around every pose of every clip: a cell is the
    /// square this sphere's diameter spans, centred on it, seen from the
    /// cell's direction; each texel's depth is measured from the centre.
    pub sphere: BoundingSphere,
    /// Half the size of the box the sphere is around (centred on it):
    /// what an impostor's quad needs to cover, narrower than the cell.
    pub half_size: Vec3,
}

impl ImpostorLayout {
    /// For a model with `clip_count` clips (0: its bind pose only) posed
    /// within the box `posed`, drawn with `skins` skins and, where
    /// `surfaces`, materials other than Doom 3's, whose atlas may take
    /// `budget` bytes.
    pub fn new(
        clip_count: usize,
        (skins, surfaces): (usize, bool),
        posed: Bounds,
        budget: u64,
    ) -> ImpostorLayout {
        let clip_count = clip_count.max(1) as u32;
        let mut layout = ImpostorLayout {
            frames_per_clip: IMPOSTOR_FRAMES_PER_CLIP,
            clip_count,
            slots: 1,
            skins: skins.max(1) as u32,
            surfaces,
            sphere: BoundingSphere::around(posed),
            half_size: (posed.max - posed.min) * 0.5,
        };
        let affordable = (budget / layout.slot_bytes()).clamp(1, u64::from(IMPOSTOR_MAX_SLOTS));
        layout.slots = clip_count.min(affordable as u32);
        layout
    }

    pub fn views(&self) -> u32 {
        IMPOSTOR_AZIMUTHS * IMPOSTOR_RINGS
    }

    /// Rows of the atlas: every slot's frames.
    pub fn frames(&self) -> u32 {
        self.frames_per_clip * self.slots
    }

    /// A slot's size in texels: a column of cells per view, a row per frame.
    pub fn extent(&self) -> (u32, u32) {
        (
            self.views() * IMPOSTOR_CELL_TEXELS,
            self.frames_per_clip * IMPOSTOR_CELL_TEXELS,
        )
    }

    /// Mip levels, down to a texel per cell: each level's cells stay
    /// aligned, so filtering never mixes two cells.
    pub fn mip_levels(&self) -> u32 {
        IMPOSTOR_CELL_TEXELS.ilog2() + 1
    }

    /// The atlas's images, in the order they are made, bound and baked:
    /// each skin's albedo, the normals and depths, then the surfaces and
    /// emission where kept.
    pub fn images(&self) -> Vec<AtlasImage> {
        let surfaces = [AtlasImage::Surface, AtlasImage::Emission];
        (0..self.skins)
            .map(AtlasImage::Albedo)
            .chain([AtlasImage::NormalDepth])
            .chain(surfaces.into_iter().filter(|_| self.surfaces))
            .collect()
    }

    /// Device memory of one slot, every mip level and image counted.
    pub fn slot_bytes(&self) -> u64 {
        let (width, height) = self.extent();
        let texels: u64 = (0..self.mip_levels())
            .map(|level| u64::from(width >> level) * u64::from(height >> level))
            .sum();
        texels * BYTES_PER_TEXEL * self.images().len() as u64
    }

    /// Device memory of the atlas: every slot.
    pub fn bytes(&self) -> u64 {
        self.slot_bytes() * u64::from(self.slots)
    }

    /// The impostor's error in model units, what [`uses_impostor`]
    /// projects: [`IMPOSTOR_ERROR_TEXELS`] texels.
    pub fn error(&self) -> f32 {
        IMPOSTOR_ERROR_TEXELS * 2.0 * self.sphere.radius / IMPOSTOR_CELL_TEXELS as f32
    }

    /// The clip time frame `frame` of a clip shows: a looping clip's frames
    /// split its cycle evenly (its end is its start again), a clip played
    /// once runs from its first pose to the last it holds.
    pub fn frame_time(&self, clip: &Clip, frame: u32) -> f32 {
        let duration = clip.duration();
        if clip.looping {
            duration * frame as f32 / self.frames_per_clip as f32
        } else if self.frames_per_clip > 1 {
            duration * frame as f32 / (self.frames_per_clip - 1) as f32
        } else {
            duration
        }
    }

    /// Which frame of `clip` shows clip time `time`: the nearest baked,
    /// the time wrapped or clamped as the clip plays it.
    pub fn frame_index(&self, clip: &Clip, time: f32) -> u32 {
        let duration = clip.duration();
        if duration <= 0.0 {
            return 0;
        }
        let frames = self.frames_per_clip;
        // Wrapped and rounded as impostor.glsl does, so the two agree.
        if clip.looping {
            let cycle = (time - duration * (time / duration).floor()) / duration;
            (cycle * frames as f32 + 0.5).floor() as u32 % frames
        } else {
            let share = time.clamp(0.0, duration) / duration;
            (share * frames.saturating_sub(1) as f32 + 0.5).floor() as u32
        }
    }

    /// The cell of view `view` and frame `frame` of the clip in slot
    /// `slot`: row `slot * frames_per_clip + frame`, layer `slot` of the
    /// images.
    pub fn cell(&self, view: u32, slot: u32, frame: u32) -> u32 {
        (slot * self.frames_per_clip + frame) * self.views() + view
    }
}

/// The skinning transforms of the rows of a slot holding clip `clip`,
/// `joints` per row, row after row: frame `k` at row `k`, posed at
/// [`ImpostorLayout::frame_time`]; a model without clips, its bind pose
/// (identities) in every row.
pub fn bake_poses(
    layout: &ImpostorLayout,
    skeleton: &Skeleton,
    clips: &[Clip],
    clip: u32,
) -> Vec<SkinningTransform> {
    let joints = skeleton.joint_count();
    let rows = layout.frames_per_clip as usize;
    let Some(played) = clips.get(clip as usize) else {
        return vec![SkinningTransform::from(JointPose::IDENTITY); rows * joints];
    };
    let mut poses = vec![SkinningTransform::default(); rows * joints];
    for (frame, pose) in poses.chunks_mut(joints.max(1)).enumerate() {
        let moment = Instance::settled(clip, layout.frame_time(played, frame as u32));
        animate_instance(
            Animated::unlayered(skeleton, clips),
            &moment,
            0.0,
            0.0,
            pose,
        );
    }
    poses
}

/// The morph weights of a slot's bake holding clip `clip`: per instance of
/// the bake's crowd (`instances`, instance `i` showing row
/// `(i / IMPOSTOR_AZIMUTHS) % frames_per_clip`), `stride` weights, those
/// of its row's frame ([`ImpostorLayout::frame_time`]); the defaults for a
/// model without clips.
pub fn bake_morph_weights(
    layout: &ImpostorLayout,
    (clips, defaults): (&[Clip], &[f32]),
    clip: u32,
    instances: u32,
    stride: usize,
) -> Vec<f32> {
    let rows = (0..layout.frames_per_clip).map(|frame| {
        let moment = match clips.get(clip as usize) {
            Some(played) => Instance::settled(clip, layout.frame_time(played, frame)),
            None => Instance::settled(clip, 0.0),
        };
        super::crowd_morph_weights(clips, defaults, &[moment], (0.0, 0.0), stride)
    });
    let rows: Vec<Vec<f32>> = rows.collect();
    (0..instances)
        .flat_map(|i| rows[((i / IMPOSTOR_AZIMUTHS) % layout.frames_per_clip) as usize].clone())
        .collect()
}

/// The unit direction, in model space, from the character towards the eye
/// that view `view` was baked from: views go around first (azimuth 0 along
/// +X, counter-clockwise seen from above), then up, ring by ring.
pub fn view_direction(view: u32) -> Vec3 {
    let azimuth = (view % IMPOSTOR_AZIMUTHS) as f32 * TAU / IMPOSTOR_AZIMUTHS as f32;
    let elevation = ((view / IMPOSTOR_AZIMUTHS) as f32 * IMPOSTOR_RING_STEP_DEGREES).to_radians();
    Vec3::new(
        elevation.cos() * azimuth.cos(),
        elevation.cos() * azimuth.sin(),
        elevation.sin(),
    )
}

/// The view nearest `to_eye`, a direction in model space from the
/// character towards the eye: the nearest azimuth, then the nearest ring
/// (an eye below the horizon gets the lowest).
pub fn view_index(to_eye: Vec3) -> u32 {
    // Rounded as floor(x + 0.5), as impostor.glsl does: GLSL's round()
    // may break ties either way.
    let step = TAU / IMPOSTOR_AZIMUTHS as f32;
    let azimuth = (to_eye.y.atan2(to_eye.x) / step + 0.5).floor() as i32;
    let around = azimuth.rem_euclid(IMPOSTOR_AZIMUTHS as i32) as u32;
    let length = to_eye.length().max(f32::MIN_POSITIVE);
    let elevation = (to_eye.z / length).clamp(-1.0, 1.0).asin().to_degrees();
    let ring = (elevation / IMPOSTOR_RING_STEP_DEGREES + 0.5)
        .floor()
        .clamp(0.0, (IMPOSTOR_RINGS - 1) as f32) as u32;
    ring * IMPOSTOR_AZIMUTHS + around
}

pub use crate::shared_constants::{
    IMPOSTOR_FADE_FULL as FADE_IMPOSTOR, IMPOSTOR_FADE_SWITCH as FADE_SWITCH,
};

/// cull.comp's choice for an instance whose world-space sphere is
/// `sphere`: how far it has faded from its mesh to its impostor, 0 (a mesh
/// alone) to [`FADE_IMPOSTOR`] (an impostor alone). The switch is
/// [`super::select_lod`]'s rule with the atlas's error (`layout_error`,
/// [`ImpostorLayout::error`]; 0: the model has no atlas): where it
/// projects to the pixels a level may be off. Across
/// [`IMPOSTOR_BAND_WIDTH`] of the switch's distance either side of it the
/// fade grows evenly with the distance; in between, both are drawn, each
/// keeping its share of the pixels. A sphere reaching the near plane never
/// fades.
pub fn impostor_fade(view: &CullView, sphere: BoundingSphere, layout_error: f32) -> u32 {
    let params = view.lod;
    let Some(nearest) = view.nearest(sphere) else {
        return 0;
    };
    if layout_error <= 0.0 || params.threshold <= 0.0 {
        return 0;
    }
    let switch = layout_error * params.pixels_per_unit / params.threshold;
    let share = (nearest / switch - (1.0 - IMPOSTOR_BAND_WIDTH)) / (2.0 * IMPOSTOR_BAND_WIDTH);
    (share.clamp(0.0, 1.0) * FADE_IMPOSTOR as f32 + 0.5) as u32
}

/// Whether an instance is past the switch ([`impostor_fade`] at least
/// [`FADE_SWITCH`]): where, its clip not baked yet, it is drawn as a mesh
/// at its coarsest level.
pub fn uses_impostor(view: &CullView, sphere: BoundingSphere, layout_error: f32) -> bool {
    impostor_fade(view, sphere, layout_error) >= FADE_SWITCH
}

/// The clip an impostor shows, and its phase: the instance's dominant
/// clip at `time` (mid-crossfade, whichever weighs more). Its atlas must
/// hold that clip, baked, for the instance to be drawn as an impostor.
pub fn dominant_clip(instance: &Instance, time: f32, blend_time: f32) -> (u32, f32) {
    if instance.blend_weight(time, blend_time) >= 0.5 {
        (instance.clip, instance.phase)
    } else {
        (instance.previous_clip, instance.previous_phase)
    }
}

/// The cell an impostor instance shows at `time`, seen from `view`'s eye
/// (a point, or an orthographic view's direction), its dominant clip ([`dominant_clip`]) baked in slot
/// `slot`: the view nearest the direction from its image's centre to the
/// eye, turned into the instance's frame, and the frame nearest the clip's
/// time.
pub fn impostor_cell(
    layout: &ImpostorLayout,
    instance: &Instance,
    clips: &[Clip],
    (time, blend_time): (f32, f32),
    view: &CullView,
    slot: u32,
) -> u32 {
    let (sin, cos) = instance.yaw.sin_cos();
    let c = layout.sphere.centre;
    let centre = instance.position + Vec3::new(c.x * cos - c.y * sin, c.x * sin + c.y * cos, c.z);
    let world = view.to_eye(centre);
    // The inverse of the instance's yaw.
    let to_eye = Vec3::new(
        world.x * cos + world.y * sin,
        -world.x * sin + world.y * cos,
        world.z,
    );
    let view = view_index(to_eye);
    let (clip, phase) = dominant_clip(instance, time, blend_time);
    let frame = clips.get(clip as usize).map_or(0, |c| {
        layout.frame_index(c, instance.clip_time(time, phase))
    });
    layout.cell(view, slot, frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec4};

    fn clip(frames: usize, looping: bool) -> Clip {
        Clip {
            morphs: Default::default(),
            name: "test".into(),
            frame_rate: 24.0,
            looping,
            frames: vec![vec![JointPose::IDENTITY]; frames],
            bounds: vec![Bounds::point(Vec3::ZERO); frames],
        }
    }

    /// A box 24 x 24 x 74 standing on the origin: a sphere of radius 40
    /// around (0, 0, 37).
    fn layout(clips: usize) -> ImpostorLayout {
        let posed = Bounds {
            min: Vec3::new(-12.0, -12.0, 0.0),
            max: Vec3::new(12.0, 12.0, 74.0),
        };
        ImpostorLayout::new(clips, (1, false), posed, IMPOSTOR_MEMORY_BUDGET)
    }

    #[test]
    fn a_slot_holds_a_clip_and_the_budget_buys_the_slots() {
        // One skin: 48 views x 12 frames of 32 x 32 texels a slot.
        let atlas = layout(4);
        assert_eq!((atlas.views(), atlas.frames_per_clip), (48, 12));
        assert_eq!(atlas.extent(), (1536, 384));
        assert_eq!(atlas.mip_levels(), 6);
        // 1536 x 384 texels and a third more for the mips, 8 bytes each.
        assert_eq!(atlas.slot_bytes(), 6_289_920);
        // The shipped character's 4 clips all fit: 24 MiB, as before.
        assert_eq!(atlas.slots, 4);
        assert_eq!(atlas.bytes(), 4 * 6_289_920);
        // No clip: one slot, its bind pose.
        assert_eq!(layout(0).slots, 1);
        assert_eq!(layout(0).clip_count, 1);
    }

    #[test]
    fn many_clips_keep_every_frame_and_share_the_budgets_slots() {
        for clips in [1, 10, 76, 500] {
            let atlas = layout(clips);
            assert_eq!(
                atlas.frames_per_clip, IMPOSTOR_FRAMES_PER_CLIP,
                "{clips} clips"
            );
            assert!(atlas.bytes() <= IMPOSTOR_MEMORY_BUDGET);
            assert!(atlas.slots >= 1 && atlas.slots <= clips as u32);
        }
        // 256 MiB buys 42 slots of 6 MiB: 76 clips take turns in them.
        assert_eq!(layout(76).slots, 42);
        // A budget smaller than a slot still buys one.
        let posed = Bounds::point(Vec3::ZERO);
        assert_eq!(ImpostorLayout::new(8, (1, false), posed, 1).slots, 1);
        // Two skins halve the slots.
        let two_skins = ImpostorLayout::new(500, (2, false), posed, IMPOSTOR_MEMORY_BUDGET);
        assert_eq!(two_skins.slots, 28);
    }

    #[test]
    fn only_a_model_with_other_materials_pays_for_surfaces_and_emission() {
        let posed = Bounds::point(Vec3::ZERO);
        let doom3 = ImpostorLayout::new(500, (1, false), posed, IMPOSTOR_MEMORY_BUDGET);
        let gltf = ImpostorLayout::new(500, (1, true), posed, IMPOSTOR_MEMORY_BUDGET);
        use AtlasImage::*;
        assert_eq!(doom3.images(), [Albedo(0), NormalDepth]);
        assert_eq!(gltf.images(), [Albedo(0), NormalDepth, Surface, Emission]);
        // Two more RGBA8 images: twice the bytes of a one-skin slot, half
        // the slots.
        assert_eq!(gltf.slot_bytes(), 2 * doom3.slot_bytes());
        assert_eq!((doom3.slots, gltf.slots), (42, 21));
    }

    #[test]
    fn each_view_direction_picks_its_own_view() {
        for view in 0..layout(1).views() {
            let direction = view_direction(view);
            assert!((direction.length() - 1.0).abs() < 1e-5);
            assert_eq!(view_index(direction), view);
            assert_eq!(view_index(direction * 1000.0), view);
        }
        // Behind, 180 degrees round: the opposite column of the same ring.
        assert_eq!(view_index(-Vec3::X), IMPOSTOR_AZIMUTHS / 2);
        // +Y is a quarter turn counter-clockwise from +X.
        assert_eq!(view_index(Vec3::Y), IMPOSTOR_AZIMUTHS / 4);
        // Below the horizon: the lowest ring; overhead: the highest.
        assert_eq!(view_index(Vec3::new(1.0, 0.0, -1.0)), 0);
        assert_eq!(
            view_index(Vec3::Z),
            (IMPOSTOR_RINGS - 1) * IMPOSTOR_AZIMUTHS
        );
        // Nearest, not floor: 10 degrees round is still view 0, 12 is view 1.
        let turned = |degrees: f32| {
            let a = degrees.to_radians();
            Vec3::new(a.cos(), a.sin(), 0.0)
        };
        assert_eq!(view_index(turned(10.0)), 0);
        assert_eq!(view_index(turned(12.0)), 1);
        assert_eq!(view_index(turned(-12.0)), IMPOSTOR_AZIMUTHS - 1);
    }

    #[test]
    fn frames_follow_the_clip_time_as_the_clip_plays_it() {
        let atlas = layout(1);
        // 25 frames at 24 fps: one second, 12 frames of 1/12 s.
        let looping = clip(25, true);
        assert_eq!(atlas.frame_index(&looping, 0.0), 0);
        assert_eq!(atlas.frame_index(&looping, 0.5), 6);
        assert_eq!(atlas.frame_index(&looping, 1.5), 6);
        // Near the end of the cycle the nearest frame is the first again.
        assert_eq!(atlas.frame_index(&looping, 0.99), 0);
        for frame in 0..atlas.frames_per_clip {
            let time = atlas.frame_time(&looping, frame);
            assert_eq!(atlas.frame_index(&looping, time), frame);
        }
        // Played once: the last frame is the last pose, held.
        let once = clip(25, false);
        assert_eq!(atlas.frame_time(&once, 11), 1.0);
        assert_eq!(atlas.frame_index(&once, 7.0), 11);
        assert_eq!(atlas.frame_index(&once, -1.0), 0);
        for frame in 0..atlas.frames_per_clip {
            let time = atlas.frame_time(&once, frame);
            assert_eq!(atlas.frame_index(&once, time), frame);
        }
        assert_eq!(atlas.frame_index(&clip(1, true), 3.0), 0);
    }

    #[test]
    fn the_cell_follows_the_yaw_the_eye_and_the_dominant_clip() {
        let atlas = layout(2);
        let clips = [clip(25, true), clip(25, true)];
        let mut instance = Instance::settled(1, 0.25);
        instance.position = Vec3::new(100.0, 0.0, 0.0);
        // Any camera: the cell needs only its eye.
        let view = CullView::new(
            Mat4::IDENTITY,
            Vec4::new(1100.0, 0.0, 37.0, 1.0),
            (1, 1),
            None,
        );
        // Facing the eye (+X): view 0, clip 1's frame 3 (0.25 s), in the
        // rows of the slot that holds clip 1.
        let cell = |instance: &Instance, slot| {
            impostor_cell(&atlas, instance, &clips, (0.0, 0.0), &view, slot)
        };
        assert_eq!(cell(&instance, 1), (12 + 3) * 48);
        assert_eq!(cell(&instance, 0), 3 * 48);
        // Turned a quarter counter-clockwise, the eye is on its right: the
        // view a quarter turn clockwise, 12 of 16.
        instance.yaw = TAU / 4.0;
        assert_eq!(cell(&instance, 1) % 48, 12);
        // Mid-fade from clip 0, the dominant clip wins.
        instance.yaw = 0.0;
        instance.previous_clip = 0;
        instance.previous_phase = 0.0;
        instance.blend_start = 0.0;
        assert_eq!(
            dominant_clip(&instance, 0.1, 1.0).0,
            0,
            "the fade's start weighs more"
        );
        assert_eq!(dominant_clip(&instance, 0.9, 1.0).0, 1);
    }

    #[test]
    fn impostors_begin_where_a_texel_projects_to_the_threshold() {
        let projection = Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 1.0);
        let view_projection = projection * Mat4::look_at_rh(Vec3::ZERO, -Vec3::Z, Vec3::Y);
        let eye = Vec4::W;
        let view = CullView::new(view_projection, eye, (720, 720), Some(1.0));
        let params = view.lod;
        let atlas = layout(1);
        let radius = atlas.sphere.radius;
        let sphere_at = |distance: f32| BoundingSphere {
            centre: Vec3::new(0.0, 0.0, -distance),
            radius,
        };
        // error * pixels_per_unit = threshold * nearest.
        let switch = atlas.error() * params.pixels_per_unit / params.threshold + radius;
        let error = atlas.error();
        assert!(!uses_impostor(&view, sphere_at(switch * 0.99), error));
        assert!(uses_impostor(&view, sphere_at(switch * 1.01), error));
        // No atlas, or level of detail off: never.
        assert!(!uses_impostor(&view, sphere_at(switch * 10.0), 0.0));
        // The band: a mesh alone well before the switch, an impostor alone
        // well past it, and between them a fade growing with the distance.
        let fade = |scale: f32| impostor_fade(&view, sphere_at(switch * scale), error);
        let band = |share: f32| (switch - radius) * (1.0 + share) + radius;
        assert_eq!(fade(0.5), 0);
        assert_eq!(
            fade(band(IMPOSTOR_BAND_WIDTH * 1.05) / switch),
            FADE_IMPOSTOR
        );
        assert_eq!(fade(band(-IMPOSTOR_BAND_WIDTH * 1.05) / switch), 0);
        let steps: Vec<u32> = (1..10)
            .map(|k| fade(band(IMPOSTOR_BAND_WIDTH * (k as f32 / 5.0 - 1.0)) / switch))
            .collect();
        assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
        assert!(
            steps.iter().all(|&f| f > 0 && f < FADE_IMPOSTOR),
            "{steps:?}"
        );
        let off = CullView::new(view_projection, eye, (720, 720), None);
        assert!(!uses_impostor(&off, sphere_at(switch * 10.0), error));
    }
}
