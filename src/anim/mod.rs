//! The CPU animation runtime, as small jobs with explicit inputs and outputs
//! (in the spirit of ozz-animation): a clip is sampled into local poses,
//! poses are blended, the hierarchy turns local poses into model-space ones,
//! and model poses times the inverse bind pose give the skinning transforms
//! that the vertex shader consumes. The GPU `animate` pass runs the same jobs;
//! these are its reference.
//!
//! Nothing here reads files: skeletons and clips are converted from md5 in
//! `crate::model`, as ozz-animation keeps its offline conversion apart from
//! the runtime.

mod channels;
mod clip;
mod distance_curve;
mod ground_speed;
mod joint_pose;
mod layers;
mod local_to_model;
mod looping;
mod morph;
mod sampling;
mod skeleton;
mod skinning_transform;

pub use channels::{
    ChannelSpec, ChannelSpecError, ChannelWarning, Channels, JointReach, JointTerm, TermEffect,
    MAX_CHANNELS, WHOLE_BODY, WHOLE_BODY_NAME,
};
pub use clip::Clip;
pub use distance_curve::{distance_curve, DistanceCurve, DISTANCE_CURVE_SAMPLES};
pub use ground_speed::{
    ground_motion, remove_root_motion, GroundMotion, GroundMotionSource, CONTACT_TOLERANCE,
    ROOT_MOTION_FRACTION, STILL_FRACTION, SUPPORT_TOLERANCE,
};
pub use joint_pose::JointPose;
pub use layers::{additive_difference, apply_layer, apply_layers, JointMask, Layer, LayerMode};
pub use local_to_model::local_to_model;
pub use looping::{
    close_loop, closing_step_ratio, loops_by_rule, LoopOverrides, CLOSING_STEP_MARGIN,
    LOOPING_WORDS, MOTION_WORDS, ONE_SHOT_WORDS, POSTURE_WORDS, TRANSITION_WORDS,
};
pub use morph::{blend_weights, sample_morph_weights, ClipMorphs, HeldMorph, Morphs};
pub use sampling::{blend_poses, frame_position, nlerp_shortest, sample_clip};
pub use skeleton::Skeleton;
pub use skinning_transform::{skinning_transforms, SkinningTransform};
