// The animation data animate.comp samples, and the jobs it runs. Each
// function mirrors one in src/anim/ (named in its comment); the CPU versions
// are the reference that tests compare this shader against.
#ifndef ANIMATION_GLSL
#define ANIMATION_GLSL

#include "quaternion.glsl"
// SHARED_POSE_RATE.
#include "shared_constants.glsl"

// anim::JointPose. Clips hold theirs as two texels (Rust's
// gpu::shader_types::GpuJointPose): the rotation, then the translation.
struct JointPose {
    vec4 rotation;    // unit quaternion
    vec4 translation; // xyz, w unused
};

// Twin of Rust's gpu::shader_types::ClipInfo.
// Clip indices count every model's clips, model after model.
struct ClipInfo {
    uint first_pose;       // clip_poses[first_pose + frame * joint_count + joint]
    uint frame_count;
    float frame_rate;
    uint looping;
    // Animation LOD: the clip's shared poses, one per SHARED_POSE_RATE-th of
    // a second of clip time, start at shared_poses[shared_first].
    uint shared_first;
    uint shared_count;
    // Its first frame's occlusion boxes in cull.comp's frame_bounds (its
    // model's part_count boxes a frame).
    uint first_bounds;
    // Its morph weights' rows in clip_morph_weights (MORPH_NONE: its model
    // has no morph targets): first a row of 1s for the weights it
    // animates, then a row per frame, each frame.morph_stride weights.
    uint first_morph_row;
    vec4 bounding_sphere;  // xyz centre, w radius: around the union of the frame bounds
    vec4 bounds_min;       // xyz: the union of the frame bounds as a box, model space
    vec4 bounds_max;
};

// Twin of Rust's gpu::shader_types::InstanceAnimation (crowd::Instance).
// Each clip slot has its own phase: its local time is time * rate + phase.
// Shown: blend(from, clip, crossfade_weight), where the fade's starting
// pose from = blend(older_clip, previous_clip, from_weight).
struct InstanceAnimation {
    uint clip;
    uint previous_clip;    // == clip when the instance never switched
    uint older_clip;
    float blend_start;     // global time the fade began
    float phase;
    float previous_phase;
    float older_phase;
    float from_weight;     // 1: the fade starts from previous_clip alone
    float rate;
    uint padding[3];
};

// Twin of Rust's gpu::shader_types::GpuInstanceLayer (crowd::LayerTrack):
// a clip laid over an instance's base clip on one of its model's channels.
// Its local time is time * rate + phase; while it fades in, blended from
// previous_clip's by its crossfade weight. Weight 0: no layer.
struct InstanceLayer {
    uint clip;
    uint previous_clip;    // == clip when the layer never switched
    uint channel_and_mode; // the channel (0: the whole body), | LAYER_ADDITIVE
    float blend_start;
    float phase;
    float previous_phase;
    float weight;
    float rate;
};

// crowd::LayerTrack::blend_weight.
float layer_crossfade_weight(InstanceLayer layer, float time, float blend_time) {
    if (layer.clip == layer.previous_clip || blend_time <= 0.0) {
        return 1.0;
    }
    return clamp((time - layer.blend_start) / blend_time, 0.0, 1.0);
}

// JointPose::then: `parent` applied after `child`.
JointPose pose_then(JointPose parent, JointPose child) {
    return JointPose(normalize(quat_mul(parent.rotation, child.rotation)),
                     vec4(quat_rotate(parent.rotation, child.translation.xyz) + parent.translation.xyz, 0.0));
}

// sampling::nlerp_shortest.
vec4 nlerp_shortest(vec4 a, vec4 b, float t) {
    if (dot(a, b) < 0.0) {
        b = -b;
    }
    return normalize(a * (1.0 - t) + b * t);
}

// sampling::blend_poses for one joint.
JointPose blend_pose(JointPose a, JointPose b, float weight) {
    return JointPose(nlerp_shortest(a.rotation, b.rotation, weight),
                     vec4(mix(a.translation.xyz, b.translation.xyz, weight), 0.0));
}

// Where a clip is sampled: the first pose of the two frames around the time,
// and how far between them.
struct FramePair {
    uint first;
    uint next;
    float alpha;
};

// sampling::frame_position.
FramePair frame_pair(ClipInfo clip, float time, uint joint_count) {
    uint last = clip.frame_count > 0u ? clip.frame_count - 1u : 0u;
    float duration = float(last) / clip.frame_rate;
    if (last == 0u || duration <= 0.0) {
        return FramePair(clip.first_pose, clip.first_pose, 0.0);
    }
    // Rust's rem_euclid: always in [0, duration).
    time = clip.looping != 0u ? time - duration * floor(time / duration) : clamp(time, 0.0, duration);
    float position = time * clip.frame_rate;
    uint frame = min(uint(floor(position)), last);
    uint next = min(frame + 1u, last);
    return FramePair(clip.first_pose + frame * joint_count,
                     clip.first_pose + next * joint_count,
                     clamp(position - float(frame), 0.0, 1.0));
}

// sampling::frame_position's first frame: the frame whose box
// (cull.comp's frame_bounds) holds the pose at clip time `time`.
uint frame_at(ClipInfo clip, float time) {
    return frame_pair(clip, time, 1u).first - clip.first_pose;
}

// crowd::shared_pose: which of `clip`'s shared poses an instance at clip
// time `time` shows (the time wrapped or clamped as the clip plays it).
uint shared_pose_index(ClipInfo clip, float time) {
    uint last = clip.frame_count > 0u ? clip.frame_count - 1u : 0u;
    float duration = float(last) / clip.frame_rate;
    if (duration > 0.0) {
        time = clip.looping != 0u ? time - duration * floor(time / duration) : clamp(time, 0.0, duration);
    } else {
        time = 0.0;
    }
    return min(uint(floor(time * SHARED_POSE_RATE)), clip.shared_count - 1u);
}

// crowd::Instance::blend_weight.
float crossfade_weight(InstanceAnimation instance, float time, float blend_time) {
    if (instance.clip == instance.previous_clip || blend_time <= 0.0) {
        return 1.0;
    }
    return clamp((time - instance.blend_start) / blend_time, 0.0, 1.0);
}

#endif
