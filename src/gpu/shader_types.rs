//! Every Rust twin of a GLSL declaration, in one place: the structs the
//! shaders read from buffers, the push-constant blocks and the vertex
//! streams. GLSL is the source of truth; `layout_tests` holds each twin to
//! what the compiler laid out. Conversions from the runtime types sit beside
//! their twin.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::anim::{self, JointPose};
use crate::crowd::{self, Instance};
use crate::material::Shading;
use crate::shared_constants::{
    JOINT_POSE_TEXELS, PHASE_ALL, PHASE_EARLY, PHASE_LATE, PHASE_SHADOW, SKELETON_JOINT_TEXELS,
    SKINNING_DUAL_QUATERNION, SKINNING_LINEAR, SKINNING_NONE,
};
use crate::skin::{SkinningMethod, VertexColor, MAX_LODS};

use super::resources::TEXEL_BYTES;

pub use super::instance_animation::{GpuInstanceLayer, InstanceAnimation};
/// The runtime's skinning transform is laid out as GLSL's `SkinningTransform`
/// (shaders/skinning.glsl): the CPU reference writes what the GPU reads.
pub use crate::anim::SkinningTransform;

/// Twin of `CullView` in shaders/scene.glsl: [`crowd::CullView`] as
/// cull.comp reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCullView {
    pub view_projection: Mat4,
    /// Inward unit normal and distance per plane (`crowd::Frustum`).
    pub frustum_planes: [Vec4; 6],
    /// [`crowd::LodParams`]: pixels per unit at clip w = 1, the pixel
    /// threshold, the near plane; w: the largest projected radius, in
    /// pixels, that shares its clip's pose (0: animation level of detail
    /// off).
    pub lod_params: Vec4,
    /// Homogeneous: the eye, or an orthographic view's direction to it.
    pub eye: Vec4,
    pub viewport_size: Vec2,
    /// 1 for [`crowd::Projection::Orthographic`].
    pub orthographic: u32,
    pub padding: u32,
}

impl GpuCullView {
    /// `view`, with animation level of detail sharing poses up to
    /// `shared_pose_radius` pixels (0: off).
    pub fn new(view: &crowd::CullView, shared_pose_radius: f32) -> GpuCullView {
        GpuCullView {
            view_projection: view.view_projection,
            frustum_planes: view.frustum.planes,
            lod_params: view.lod.to_vec4().with_w(shared_pose_radius),
            eye: view.eye,
            viewport_size: view.viewport,
            orthographic: (view.projection == crowd::Projection::Orthographic).into(),
            padding: 0,
        }
    }
}

/// Twin of `FrameUniforms` in shaders/scene.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameUniforms {
    pub view_projection: Mat4,
    /// What cull.comp judges by: the camera's view (or the frozen
    /// camera's, [`crate::gpu::frame_loop::ViewOptions::frozen_cull`]),
    /// then each shadow cascade's; filled in by the renderer.
    pub cull_views: [GpuCullView; CULL_VIEWS],
    pub light_direction: Vec4,
    pub light_color: Vec4,
    pub ambient_color: Vec4,
    /// xyz: the eye, world space (specular highlights); w unused.
    pub camera_position: Vec4,
    pub time: f32,
    pub blend_time: f32,
    /// The morph weights each instance has room for (`GpuModel::morph_stride`).
    pub morph_stride: u32,
    pub padding: f32,
    /// x: ground cell size, in model units; filled in by the renderer from
    /// the largest model's size.
    pub ground: Vec4,
    /// Each model's contact shadow radius, model m's at `[m / 4][m % 4]`;
    /// filled in by the renderer from each model's size.
    pub shadow_radii: [Vec4; MAX_MODELS / 4],
    /// Per shadow cascade, where its slice of the camera's view ends
    /// (distance in front of the eye).
    pub shadow_far: [f32; MAX_SHADOW_CASCADES],
    /// Per shadow cascade, the world size of one of its texels.
    pub shadow_texel_size: [f32; MAX_SHADOW_CASCADES],
    /// x: the cascades drawn (0: no shadow map); y: 1 tints what each
    /// cascade covers; z, w unused.
    pub shadow_params: [u32; 4],
}

pub use crate::shared_constants::{
    CULL_VIEWS, IMPOSTOR_BAND, IMPOSTOR_FADE_SHIFT, IMPOSTOR_POSE, LAYER_ADDITIVE, MAX_LAYERS,
    MAX_MODELS, MAX_SHADOW_CASCADES, MAX_SKINS, PALETTE_PER_INSTANCE, SHARED_POSE,
};

/// Twin of `CrowdModel` in shaders/crowd_compute.glsl: one model of the
/// crowd, where its data sits in the buffers every model shares and which
/// instances (sorted by model) are its.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CrowdModel {
    pub joint_count: u32,
    /// Its skeleton's first joint in the skeleton texel buffer.
    pub first_joint: u32,
    /// 0: it stands in its bind pose, its one entry of the clip table.
    pub clip_count: u32,
    pub lod_count: u32,
    /// Occlusion boxes per clip frame (`Model::body_part_count`).
    pub part_count: u32,
    pub first_instance: u32,
    pub instance_count: u32,
    /// Its meshes' indirect draws, among every model's.
    pub first_draw: u32,
    pub draw_count: u32,
    /// CPU animation: where its instances' transforms start, instance-major.
    pub first_transform: u32,
    /// Its clips' first entry in the clip table.
    pub first_clip: u32,
    /// Its layer channels' masks in the layer masks buffer
    /// ([`super::animation_data::AnimationData::layer_masks`]), a word
    /// index.
    pub first_layer_mask: u32,
    /// The error of each of its levels of detail, in model units: level l
    /// is `lod_errors[l / 4][l % 4]`.
    pub lod_errors: [Vec4; 2],
    /// Its impostor atlas's sphere ([`crowd::ImpostorLayout::sphere`]),
    /// model space: xyz centre, w radius; w 0 when it has no atlas.
    pub impostor_sphere: Vec4,
    /// xyz: [`crowd::ImpostorLayout::half_size`]; w: the radius round
    /// its origin that any pose its layers mix stays in
    /// ([`crate::skin::layered_radius`]).
    pub impostor_half_size: Vec4,
}

/// Twin of `CrowdInstance` in shaders/scene.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CrowdInstance {
    /// xyz: world position of the model origin; w: yaw about +Z in radians.
    pub placement: Vec4,
    /// Multiplies the diffuse texture.
    pub tint: Vec3,
    /// Which of its model's skins (`Model::skins`) it is drawn with.
    pub skin: u32,
    /// Which of the crowd's models it is ([`CrowdModel`]); a crowd holds
    /// its instances sorted by model.
    pub model: u32,
    pub padding: [u32; 3],
}

impl From<&Instance> for CrowdInstance {
    fn from(i: &Instance) -> Self {
        CrowdInstance {
            placement: i.position.extend(i.yaw),
            tint: i.tint.truncate(),
            skin: i.skin,
            model: i.model,
            padding: [0; 3],
        }
    }
}

/// A clip frame's joint pose as the animate kernels fetch it from the
/// `clip_poses` texel buffer (`clip_pose` in shaders/animate.glsl):
/// [`JOINT_POSE_TEXELS`] texels, the rotation, then the translation (w
/// unused).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuJointPose {
    pub rotation: [f32; 4],
    pub translation: [f32; 4],
}

// The stride the shaders fetch at is the shared constant: a record that
// grows or shrinks must change it, or this fails to compile.
const _: () = assert!(size_of::<GpuJointPose>() == JOINT_POSE_TEXELS * TEXEL_BYTES);

impl From<JointPose> for GpuJointPose {
    fn from(pose: JointPose) -> Self {
        GpuJointPose {
            rotation: pose.rotation.to_array(),
            translation: pose.translation.extend(0.0).to_array(),
        }
    }
}

/// Twin of `ClipInfo` in shaders/animation.glsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ClipInfo {
    pub first_pose: u32,
    pub frame_count: u32,
    pub frame_rate: f32,
    pub looping: u32,
    /// Animation LOD: the clip's shared poses start at this transform in
    /// the shared-poses buffer, one per 1 / `SHARED_POSE_RATE` s of clip time.
    pub shared_first: u32,
    pub shared_count: u32,
    /// Its first frame's occlusion boxes in the frame bounds buffer.
    pub first_bounds: u32,
    /// Its morph weights' rows (`gpu::morph_data`), or `MORPH_NONE`.
    pub first_morph_row: u32,
    /// xyz centre, w radius.
    pub bounding_sphere: [f32; 4],
    /// xyz: the union of the frame bounds as a box, in model space; the
    /// occlusion test's tighter bound.
    pub bounds_min: [f32; 4],
    pub bounds_max: [f32; 4],
}

/// Twin of `FrameBounds` in shaders/cull.comp: one frame's box
/// (`Clip::bounds`, the mesh posed from that frame to the next), model
/// space, xyz.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameBounds {
    pub min: [f32; 4],
    pub max: [f32; 4],
}

/// A joint as the animate kernels fetch it from the `skeleton` texel
/// buffer (`skeleton_joint` and `joint_depth` in shaders/animate.glsl):
/// [`SKELETON_JOINT_TEXELS`] texels, the inverse bind pose's rotation, its
/// translation with the parent's index in w, and the joint's depth. Which
/// texel holds what is checked by the GPU == CPU animation tests: a parent
/// or depth read from the wrong place poses the skeleton wrongly.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkeletonJoint {
    pub inverse_bind_rotation: [f32; 4],
    pub inverse_bind_translation: [f32; 3],
    /// -1 for roots. Floats, exact for any joint count a buffer can hold.
    pub parent: f32,
    /// How many ancestors: the level animate_joints.comp poses it at.
    pub depth: f32,
    pub padding: [f32; 3],
}

const _: () = assert!(size_of::<SkeletonJoint>() == SKELETON_JOINT_TEXELS * TEXEL_BYTES);

/// Twin of `CrowdComputeConstants` in shaders/crowd_compute.glsl, pushed for
/// both cull.comp and animate.comp.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CrowdComputeConstants {
    pub instance_count: u32,
    pub model_count: u32,
    /// The most levels any model has.
    pub lod_count: u32,
    /// Which part of a two-phase frame this is: see [`CullPhase`].
    pub phase: u32,
    /// GPU animation: the rows (joint transforms) of the frame slot's
    /// skinning palette, which cull.comp hands out to the instances it
    /// draws; [`PALETTE_PER_INSTANCE`] with CPU animation.
    pub palette_rows: u32,
    /// 1: cull.comp draws instances past the level-of-detail chain as
    /// impostors.
    pub impostors: u32,
    /// Which of the frame's cull views the dispatch judges by: 0 the
    /// camera, c + 1 shadow cascade c.
    pub view: u32,
    /// Which set of draw commands draws.comp writes
    /// ([`super::draw_commands::DrawCommandLayout`]).
    pub command_set: u32,
    /// Where draws.comp writes the indirect commands.
    pub draw_commands: GpuDrawCommandLayout,
}

/// Twin of `DrawCommandLayout` in shaders/crowd_compute.glsl: what
/// [`super::draw_commands::DrawCommandLayout::gpu`] tells draws.comp, in
/// commands (and words for the dispatch).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuDrawCommandLayout {
    /// A phase's first skeleton overlay command, after its meshes'.
    pub first_overlay: u32,
    /// A phase's first impostor command, after the overlay's.
    pub first_impostor: u32,
    /// Commands per phase.
    pub per_phase: u32,
    /// The word where the animate dispatches start, after both phases'.
    pub first_dispatch_word: u32,
}

/// Twin of the header of `VISIBLE_INSTANCES_BLOCK` in shaders/scene.glsl:
/// what the visible lists start with, reset each frame and read back.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct VisibleHeader {
    /// Instances of each model appended to each level's list this frame,
    /// `[model * MAX_LODS + level]`.
    pub lod_counts: [u32; MAX_MODELS * MAX_LODS],
    /// What the early phase of occlusion culling left in `lod_counts`.
    pub early_counts: [u32; MAX_MODELS * MAX_LODS],
    /// Skinning palette rows (joint transforms) the drawn instances wanted
    /// (GPU animation), counted on past the palette's end.
    pub palette_rows_wanted: u32,
    /// Instances given palette rows: the posed list's length.
    pub posed_count: u32,
    /// What the early phase of occlusion culling left in `posed_count`:
    /// the late phase's animate dispatch poses the instances after it.
    pub early_posed_count: u32,
    pub padding: u32,
    /// Instances of each model drawn as impostors this frame.
    pub impostor_counts: [u32; MAX_MODELS],
    /// What the early phase left in `impostor_counts`.
    pub early_impostor_counts: [u32; MAX_MODELS],
    /// Of each model's impostors, those drawn as meshes too: the band
    /// around the switch.
    pub band_counts: [u32; MAX_MODELS],
}

impl Default for VisibleHeader {
    fn default() -> Self {
        Zeroable::zeroed()
    }
}

impl VisibleHeader {
    /// Instances of model `model` in the visible lists, per level.
    pub fn model_counts(&self, model: usize) -> &[u32] {
        &self.lod_counts[model * MAX_LODS..(model + 1) * MAX_LODS]
    }

    /// Instances drawn as impostors, every model's.
    pub fn impostor_instances(&self) -> u32 {
        self.impostor_counts.iter().sum()
    }
}

/// The phases of a frame with occlusion culling (`PHASE_*` in
/// crowd_compute.glsl): draw what was visible last frame, build the depth
/// pyramid, then test everything against it and draw what newly passed.
/// Without occlusion culling one phase does it all. A shadow cascade's
/// cull is a phase of its own, after the camera's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum CullPhase {
    All = PHASE_ALL,
    Early = PHASE_EARLY,
    Late = PHASE_LATE,
    Shadow = PHASE_SHADOW,
}

/// Twin of `SpeedSegment` in shaders/agents.comp ([`crowd::SpeedSegment`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSpeedSegment {
    pub start_time: f32,
    pub start_distance: f32,
    pub start_speed: f32,
    pub acceleration: f32,
}

/// Twin of `GaitSwitch` in shaders/agents.comp ([`crowd::GaitSwitch`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuGaitSwitch {
    pub time: f32,
    pub from_gait: u32,
    pub to_gait: u32,
    pub padding: u32,
}

/// Twin of `LocomotionTable` in shaders/agents.comp
/// ([`crowd::LocomotionTable`]): the head of the agent lanes buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuLocomotionTable {
    pub gait_clips: [u32; crowd::MAX_GAITS],
    pub gait_speeds: [f32; crowd::MAX_GAITS],
    pub gait_headings: [f32; crowd::MAX_GAITS],
    pub gait_strides: [f32; crowd::MAX_GAITS],
    pub segments: [GpuSpeedSegment; crowd::PROFILE_SEGMENTS],
    pub switches: [GpuGaitSwitch; crowd::MAX_GAIT_SWITCHES],
    pub gait_count: u32,
    pub switch_count: u32,
    pub period_distance: f32,
    pub padding: f32,
    /// Per gait, its [`anim::DistanceCurve::times`].
    pub gait_curves: [[f32; anim::DISTANCE_CURVE_SAMPLES + 1]; crowd::MAX_GAITS],
}

impl GpuLocomotionTable {
    /// `table` as agents.comp reads it, its gaits' clips counted from
    /// `first_clip` (its model's first in the clip table). `None`, a model
    /// without gaits, has no gaits: agents.comp leaves its instances where
    /// they stand.
    pub fn new(table: Option<&crowd::LocomotionTable>, first_clip: u32) -> Self {
        let Some(table) = table else {
            return Zeroable::zeroed();
        };
        let gait = |i: usize| table.gaits.get(i).copied();
        GpuLocomotionTable {
            gait_clips: std::array::from_fn(|i| gait(i).map_or(0, |g| first_clip + g.clip)),
            gait_speeds: std::array::from_fn(|i| gait(i).map_or(0.0, |g| g.speed)),
            gait_headings: std::array::from_fn(|i| gait(i).map_or(0.0, |g| g.heading)),
            gait_strides: std::array::from_fn(|i| gait(i).map_or(0.0, |g| g.curve.stride)),
            segments: table.segments.map(|s| GpuSpeedSegment {
                start_time: s.start_time,
                start_distance: s.start_distance,
                start_speed: s.start_speed,
                acceleration: s.acceleration,
            }),
            switches: std::array::from_fn(|i| {
                table
                    .switches
                    .get(i)
                    .map_or(GpuGaitSwitch::default(), |s| GpuGaitSwitch {
                        time: s.time,
                        from_gait: s.from_gait,
                        to_gait: s.to_gait,
                        padding: 0,
                    })
            }),
            gait_count: table.gaits.len() as u32,
            switch_count: table.switches.len() as u32,
            period_distance: table.period_distance,
            padding: 0.0,
            gait_curves: std::array::from_fn(|i| {
                gait(i).map_or([0.0; anim::DISTANCE_CURVE_SAMPLES + 1], |g| g.curve.times)
            }),
        }
    }
}

/// Twin of `AgentLane` in shaders/agents.comp: a [`crowd::AgentLane`] and
/// where the instance stands without locomotion.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAgentLane {
    /// xyz, w yaw: the placement locomotion returns the instance to when it
    /// is switched off.
    pub home: Vec4,
    pub centre: Vec2,
    pub radius: f32,
    pub start_angle: f32,
    pub direction: f32,
    pub time_offset: f32,
    pub phase: f32,
    pub padding: f32,
}

impl GpuAgentLane {
    pub fn new(lane: &crowd::AgentLane, home: &CrowdInstance) -> GpuAgentLane {
        GpuAgentLane {
            home: home.placement,
            centre: lane.centre,
            radius: lane.radius,
            start_angle: lane.start_angle,
            direction: lane.direction,
            time_offset: lane.time_offset,
            phase: lane.phase,
            padding: 0.0,
        }
    }
}

/// Twin of crowd.vert's `DrawConstants` push constant block.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct DrawConstants {
    pub skinning_mode: u32,
    /// The stride of the visible lists' regions, one per level of detail.
    pub instance_count: u32,
    /// 1: tint each instance by its level of detail.
    pub show_lod: u32,
    /// 0: the camera's picture; c + 1: shadow cascade c's depth.
    pub view: u32,
    /// 1: morph targets move the bind-pose vertices before skinning.
    pub morphed: u32,
}

impl DrawConstants {
    /// `skinning` `None` draws the bind pose unskinned (the benchmark's ideal).
    pub fn new(
        skinning: Option<SkinningMethod>,
        instance_count: u32,
        show_lod: bool,
    ) -> DrawConstants {
        let skinning_mode = match skinning {
            Some(SkinningMethod::Linear) => SKINNING_LINEAR,
            Some(SkinningMethod::DualQuaternion) => SKINNING_DUAL_QUATERNION,
            None => SKINNING_NONE,
        };
        DrawConstants {
            skinning_mode,
            instance_count,
            show_lod: show_lod.into(),
            view: 0,
            morphed: skinning.is_some().into(),
        }
    }
}

/// Twin of `MaterialConstants` in shaders/material.glsl: what a material
/// holds beside its maps.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct MaterialConstants {
    /// MASK: a base colour alpha below this is cut ([`Shading::alpha_cutoff`]).
    pub alpha_cutoff: f32,
    /// std140 lays each element of an array out at 16 bytes.
    pub padding: [f32; 3],
}

impl From<&Shading> for MaterialConstants {
    fn from(shading: &Shading) -> MaterialConstants {
        MaterialConstants {
            alpha_cutoff: shading.alpha_cutoff,
            padding: [0.0; 3],
        }
    }
}

/// Twin of the `Material` uniform block in shaders/material.glsl: a draw's
/// material constants under each skin, as its map arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct MaterialBlock {
    pub constants_of_skin: [MaterialConstants; MAX_SKINS],
}

/// Stream 0 (`in_position`, `in_normal`, `in_tangent` of crowd.vert) is the
/// CPU skinning reference's output type: the yardstick path uploads what it
/// skinned as it is.
pub use crate::skin::SurfaceVertex;

/// Stream 1: `in_uv`, `in_joints0` (u16, read as uvec4), `in_weights0`
/// (unorm8, read as vec4: the weights are already multiples of 1/255),
/// `in_color` (unorm16, read as vec4: `skin::VertexColor` says why 16
/// bits). Static, so the CPU-skinning yardstick keeps it as it is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SkinVertex {
    pub uv: Vec2,
    pub joints: [u16; 4],
    pub weights: [u8; 4],
    pub color: VertexColor,
}

/// Stream 2: `in_joints1`, `in_weights1`, the influences 5 to 8.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ExtraInfluences {
    pub joints: [u16; 4],
    pub weights: [u8; 4],
}

/// skeleton.vert's input: one end of a joint-to-parent line.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkeletonVertex {
    pub bind_position: Vec3,
    pub joint: u32,
}
