// What both animate kernels share: the bindings they read and write, which
// instance a phase appended n-th, and how one joint of an instance is
// sampled. animate.comp runs an instance per invocation (CPU drivers),
// animate_joints.comp an instance per workgroup, its lanes over the joints
// (GPUs); gpu::passes::animate picks one. The CPU reference of both is
// src/crowd/animate.rs.
#ifndef ANIMATE_GLSL
#define ANIMATE_GLSL

#include "crowd_compute.glsl"

layout(set = 0, binding = 1) readonly buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) readonly buffer InstanceAnimations {
    InstanceAnimation instance_animations[];
};
layout(set = 0, binding = 3) readonly buffer Clips {
    ClipInfo clips[];
};
// Local (parent-relative) poses, every frame of every clip,
// JOINT_POSE_TEXELS each (gpu::shader_types::GpuJointPose): the rotation,
// then the translation (w unused). Clips and skeleton
// are texel buffers rather than storage buffers: a texel fetch moves a
// whole vec4 (see gpu::resources::TexelBuffer).
layout(set = 0, binding = 4) uniform samplerBuffer clip_poses;
// SKELETON_JOINT_TEXELS per joint (gpu::shader_types::SkeletonJoint): the inverse
// bind pose's rotation, then its translation with the parent's index in w
// (-1 for roots; a parent always comes before its children), then in x the
// joint's depth (its number of ancestors).
layout(set = 0, binding = 5) uniform samplerBuffer skeleton;
// Read for its posed list: the instance cull.comp gave each palette row.
// Instances showing a shared pose (animation level of detail, a palette too
// small this frame, a model without clips) have no row and are not posed.
layout(set = 0, binding = 6) readonly buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};
// Per instance, where its transforms are: for a posed instance, the first
// of the palette rows cull.comp handed it.
layout(set = 0, binding = 10) readonly buffer PoseSources {
    uint pose_sources[];
};
// The skinning palette: a row per joint of each posed instance, the skinning
// transforms (and, in animate.comp, first a fading instance's fade-start
// poses, then in its walk the model poses of joints past the ones it keeps).
layout(set = 0, binding = 8) buffer SkinningTransforms {
    SkinningTransform skinning_transforms[];
};

// The joints each layer channel of each model reaches, a bit per joint
// (anim::Channels::layer_masks): model m's channel c is the
// (joint_count + 31) / 32 words from its first_layer_mask + c times that.
layout(set = 0, binding = 19) readonly buffer LayerMasks {
    uint layer_masks[];
};

// An instance cull.comp handed palette rows to: which, its first row, and
// its model.
struct PosedInstance {
    uint instance;
    uint first;
    CrowdModel model;
};

// The instance this phase gave palette rows n-th (the late phase's follow
// the early phase's); false past the instances the phase posed.
bool posed_instance_at(uint n, out PosedInstance posed) {
    uint before = constants.phase == PHASE_LATE ? early_posed_count : 0u;
    if (before + n >= posed_count) {
        return false;
    }
    uint instance = posed_instance(before + n);
    posed = PosedInstance(instance, pose_sources[instance] & ~IMPOSTOR_BAND,
                          models[instances[instance].model]);
    return true;
}

JointPose clip_pose(uint pose) {
    int texel = int(JOINT_POSE_TEXELS * pose);
    return JointPose(texelFetch(clip_poses, texel), texelFetch(clip_poses, texel + 1));
}

// The joint's inverse bind pose, its parent's index (among its model's
// joints) in the translation's w.
JointPose skeleton_joint(CrowdModel model, uint joint) {
    int texel = int(SKELETON_JOINT_TEXELS * (model.first_joint + joint));
    return JointPose(texelFetch(skeleton, texel), texelFetch(skeleton, texel + 1));
}

int parent_of(JointPose skeleton_joint) {
    return int(skeleton_joint.translation.w);
}

uint joint_depth(CrowdModel model, uint joint) {
    return uint(texelFetch(skeleton, int(SKELETON_JOINT_TEXELS * (model.first_joint + joint)) + 2).x);
}

// Where an instance's clips are sampled at the frame's time, and how they
// blend (crowd::animate_instance).
struct InstanceSampling {
    FramePair current;
    FramePair previous;
    FramePair older;
    float weight;      // of the current clip against the fade's start
    float from_weight; // of previous_clip against older_clip in that start
};

InstanceSampling instance_sampling(InstanceAnimation animation, uint joint_count) {
    float scaled_time = frame.time * animation.rate;
    return InstanceSampling(
        frame_pair(clips[animation.clip], scaled_time + animation.phase, joint_count),
        frame_pair(clips[animation.previous_clip], scaled_time + animation.previous_phase,
                   joint_count),
        frame_pair(clips[animation.older_clip], scaled_time + animation.older_phase,
                   joint_count),
        crossfade_weight(animation, frame.time, frame.blend_time),
        animation.from_weight);
}

JointPose sample_joint(FramePair pair, uint joint) {
    return blend_pose(clip_pose(pair.first + joint), clip_pose(pair.next + joint), pair.alpha);
}

// The pose the joint's fade started from: previous_clip's, itself blended
// with older_clip's where that fade was still under way.
JointPose fade_start(InstanceSampling sampling, uint joint) {
    JointPose from = sample_joint(sampling.previous, joint);
    if (sampling.from_weight < 1.0) {
        from = blend_pose(sample_joint(sampling.older, joint), from, sampling.from_weight);
    }
    return from;
}

// The joint's local pose: its clip sampled and, while fading in, blended
// with the fade's start.
JointPose local_pose(InstanceSampling sampling, uint joint) {
    JointPose local = sample_joint(sampling.current, joint);
    if (sampling.weight < 1.0) {
        local = blend_pose(fade_start(sampling, joint), local, sampling.weight);
    }
    return local;
}

// One clip of a layer at the joint: its local pose or, for an additive
// layer, that pose's difference from the clip's first frame
// (anim::additive_difference).
JointPose layer_clip_pose(uint clip_index, float time, bool additive, uint joint_count, uint joint) {
    ClipInfo clip = clips[clip_index];
    JointPose pose = sample_joint(frame_pair(clip, time, joint_count), joint);
    if (additive) {
        JointPose first = clip_pose(clip.first_pose + joint);
        vec4 first_inverse = vec4(-first.rotation.xyz, first.rotation.w);
        pose = JointPose(normalize(quat_mul(first_inverse, pose.rotation)),
                         vec4(pose.translation.xyz - first.translation.xyz, 0.0));
    }
    return pose;
}

// crowd::animate_instance's layers over `local`, the joint's base pose:
// each layer whose channel holds the joint, sampled at its own time (and
// blended from its previous clip while it fades), overrides the pose
// beneath by its weight or adds its difference scaled by it
// (anim::apply_layer).
JointPose layered_pose(uint instance, CrowdModel model, uint joint, JointPose local) {
    uint mask_words = (model.joint_count + 31u) / 32u;
    for (uint l = 0u; l < MAX_LAYERS; ++l) {
        InstanceLayer layer = instance_layers[instance * MAX_LAYERS + l];
        if (layer.weight <= 0.0) {
            continue;
        }
        uint channel = layer.channel_and_mode & ~LAYER_ADDITIVE;
        uint word = layer_masks[model.first_layer_mask + channel * mask_words + joint / 32u];
        if ((word & (1u << (joint % 32u))) == 0u) {
            continue;
        }
        bool additive = (layer.channel_and_mode & LAYER_ADDITIVE) != 0u;
        JointPose over = layer_clip_pose(layer.clip, frame.time * layer.rate + layer.phase,
                                         additive, model.joint_count, joint);
        float fade = layer_crossfade_weight(layer, frame.time, frame.blend_time);
        if (fade < 1.0) {
            JointPose from = layer_clip_pose(layer.previous_clip,
                                             frame.time * layer.rate + layer.previous_phase,
                                             additive, model.joint_count, joint);
            over = blend_pose(from, over, fade);
        }
        if (additive) {
            vec4 scaled = nlerp_shortest(vec4(0.0, 0.0, 0.0, 1.0), over.rotation, layer.weight);
            local = JointPose(normalize(quat_mul(local.rotation, scaled)),
                              vec4(local.translation.xyz + over.translation.xyz * layer.weight, 0.0));
        } else {
            local = blend_pose(local, over, layer.weight);
        }
    }
    return local;
}

// Every clip's morph weight rows, frame.morph_stride weights each
// (gpu::morph_data::append_clip_rows): from its first_morph_row, a row of
// 1s for the weights it animates, then a row per frame.
layout(set = 0, binding = 20) readonly buffer ClipMorphRows {
    float clip_morph_rows[];
};
// Per instance, frame.morph_stride weights: what crowd.vert scales each
// morph target by.
layout(set = 0, binding = 21) writeonly buffer MorphWeights {
    float morph_weights[];
};

// The morph weights the instance's model has room for: frame.morph_stride,
// or none for a model without morph targets.
uint morph_weight_count(uint instance) {
    bool morphs = clips[instance_animations[instance].clip].first_morph_row != MORPH_NONE;
    return morphs ? frame.morph_stride : 0u;
}

// anim::sample_morph_weights of one weight: the clip's two rows around
// clip time `time`, blended. An additive layer takes the difference from
// the clip's first frame (crowd::morph_weights).
float clip_morph_weight(uint clip_index, float time, uint w, bool additive) {
    ClipInfo clip = clips[clip_index];
    uint stride = frame.morph_stride;
    FramePair frames = frame_pair(clip, time, 1u);
    uint first_frame = (clip.first_morph_row + 1u) * stride + w;
    float a = clip_morph_rows[first_frame + (frames.first - clip.first_pose) * stride];
    float b = clip_morph_rows[first_frame + (frames.next - clip.first_pose) * stride];
    float weight = mix(a, b, frames.alpha);
    return additive ? weight - clip_morph_rows[first_frame] : weight;
}

// crowd::morph_weights of one weight: the instance's clip, blended from
// the fade's start as its joints are, then each layer whose clip animates
// the weight overrides it by the layer's weight or adds its difference.
float morph_weight(uint instance, uint w) {
    InstanceAnimation animation = instance_animations[instance];
    float scaled_time = frame.time * animation.rate;
    float weight = clip_morph_weight(animation.clip, scaled_time + animation.phase, w, false);
    float fade = crossfade_weight(animation, frame.time, frame.blend_time);
    if (fade < 1.0) {
        float from = clip_morph_weight(animation.previous_clip,
                                       scaled_time + animation.previous_phase, w, false);
        if (animation.from_weight < 1.0) {
            float older = clip_morph_weight(animation.older_clip,
                                            scaled_time + animation.older_phase, w, false);
            from = mix(older, from, animation.from_weight);
        }
        weight = mix(from, weight, fade);
    }
    uint stride = frame.morph_stride;
    for (uint l = 0u; l < MAX_LAYERS; ++l) {
        InstanceLayer layer = instance_layers[instance * MAX_LAYERS + l];
        if (layer.weight <= 0.0
            || clip_morph_rows[clips[layer.clip].first_morph_row * stride + w] == 0.0) {
            continue;
        }
        bool additive = (layer.channel_and_mode & LAYER_ADDITIVE) != 0u;
        float over = clip_morph_weight(layer.clip, frame.time * layer.rate + layer.phase, w,
                                       additive);
        float layer_fade = layer_crossfade_weight(layer, frame.time, frame.blend_time);
        if (layer_fade < 1.0) {
            float from = clip_morph_weight(layer.previous_clip,
                                           frame.time * layer.rate + layer.previous_phase, w,
                                           additive);
            over = mix(from, over, layer_fade);
        }
        weight = additive ? weight + over * layer.weight : mix(weight, over, layer.weight);
    }
    return weight;
}

void store_morph_weight(uint instance, uint w) {
    morph_weights[instance * frame.morph_stride + w] = morph_weight(instance, w);
}

void store_pose(uint index, JointPose pose) {
    skinning_transforms[index] = SkinningTransform(pose.rotation, pose.translation);
}

#endif
