//! The crowd: where each character stands, which clip it plays and how, and
//! the CPU path that animates everyone (the reference for the GPU `animate`
//! pass, and `--animate cpu`).

mod agents;
mod anim_lod;
mod animate;
mod cull;
mod impostor;
mod impostor_slots;
mod layer_track;
mod morph_weights;
mod occlusion;
mod pose_mixed;
mod spawn;

pub use agents::{
    agent_state, lanes_radius, lay_out_lanes, Agent, AgentLane, Gait, GaitSwitch, LocomotionTable,
    SpeedSegment, LANE_SPACING, MAX_GAITS, MAX_GAIT_SWITCHES, PROFILE_PERIOD, PROFILE_SEGMENTS,
};
pub use anim_lod::{
    caster_pose, shared_pose, shared_pose_count, shared_pose_index, CasterPose, SharedPoses,
    SHARED_POSE_RATE,
};
pub use animate::{animate_crowd, animate_instance, Animated};
pub use cull::{
    clip_spheres, instance_bounds, instance_box, instance_sphere, select_lod, BoundingSphere,
    CullView, Frustum, LodParams, Projection,
};
pub use impostor::{
    bake_morph_weights, bake_poses, dominant_clip, impostor_cell, impostor_fade, uses_impostor,
    view_direction, view_index, AtlasImage, ImpostorLayout, FADE_IMPOSTOR, FADE_SWITCH,
    IMPOSTOR_AZIMUTHS, IMPOSTOR_CELL_TEXELS, IMPOSTOR_ERROR_TEXELS, IMPOSTOR_FRAMES_PER_CLIP,
    IMPOSTOR_MAX_SLOTS, IMPOSTOR_MEMORY_BUDGET, IMPOSTOR_RINGS, IMPOSTOR_RING_STEP_DEGREES,
};
pub use impostor_slots::{AtlasSlots, BakeUnits, IDLE_FRAMES_BEFORE_EVICTION, IMPOSTOR_UNBAKED};
pub use layer_track::{assign_layers, InstanceLayers, LayerRecipe, LayerTrack, MAX_LAYERS};
pub use morph_weights::{crowd_morph_weights, morph_weights};
pub use occlusion::{pyramid_levels, screen_rect, DepthPyramid, PyramidLevel, MAX_PYRAMID_LEVELS};
pub use pose_mixed::{pose_mixed_crowd, CrowdPoses, ModelToPose};
pub use spawn::{
    assign_skins, mix_counts, spawn_crowd, spawn_mixed_crowd, CrowdLayout, Instance, SplitMix64,
};
