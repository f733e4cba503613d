#version 450
// GPU animation, one invocation per instance the cull pass appended this
// phase (dispatched indirectly, for those only): sample the instance's clip
// (and, while it fades in, the fade's starting clips) at their local times,
// blend, run the joint hierarchy,
// and write joint quaternion + translation skinning transforms for
// crowd.vert. The same jobs, in the same order, as src/crowd/animate.rs.

#include "crowd_compute.glsl"

layout(local_size_x = ANIMATE_WORKGROUP_SIZE) in;

layout(set = 0, binding = 2) readonly buffer InstanceAnimations {
    InstanceAnimation instance_animations[];
};
layout(set = 0, binding = 3) readonly buffer Clips {
    ClipInfo clips[];
};
// Local (parent-relative) poses, every frame of every clip, two texels
// each: the rotation, then the translation (w unused). Clips and skeleton
// are texel buffers rather than storage buffers: a texel fetch moves a
// whole vec4 (see gpu::resources::TexelBuffer).
layout(set = 0, binding = 4) uniform samplerBuffer clip_poses;
// Two texels per joint (gpu::shader_types::SkeletonJoint): the inverse bind
// pose's rotation, then its translation with the parent's index in w (-1
// for roots; a parent always comes before its children).
layout(set = 0, binding = 5) uniform samplerBuffer skeleton;
// cull.comp's compacted list of the instances that passed, in no particular
// order. Draws are instanced over it: gl_InstanceIndex is a slot here.
layout(set = 0, binding = 6) readonly buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};
// Per instance, where its transforms go: the first of the palette rows
// cull.comp gave it. Instances showing a shared pose (animation level of
// detail, a palette too small this frame, a model without clips) are skipped.
layout(set = 0, binding = 10) readonly buffer PoseSources {
    uint pose_sources[];
};
// The skinning palette: [row * joint_count + joint], the skinning
// transforms (and, during the walk, the model poses of joints past
// LOCAL_JOINTS).
layout(set = 0, binding = 8) buffer SkinningTransforms {
    SkinningTransform skinning_transforms[];
};

JointPose clip_pose(uint pose) {
    int texel = int(2u * pose);
    return JointPose(texelFetch(clip_poses, texel), texelFetch(clip_poses, texel + 1));
}

JointPose sample_joint(FramePair pair, uint joint) {
    return blend_pose(clip_pose(pair.first + joint), clip_pose(pair.next + joint), pair.alpha);
}

// The joint's inverse bind pose, its parent's index in the translation's w.
JointPose skeleton_joint(uint joint) {
    int texel = int(2u * joint);
    return JointPose(texelFetch(skeleton, texel), texelFetch(skeleton, texel + 1));
}

JointPose stored_pose(uint index) {
    SkinningTransform t = skinning_transforms[index];
    return JointPose(t.rotation, t.translation);
}

void store_pose(uint index, JointPose pose) {
    skinning_transforms[index] = SkinningTransform(pose.rotation, pose.translation);
}

// Model-space poses of the instance's first LOCAL_JOINTS joints, as the
// walk below computes them.
const uint LOCAL_JOINTS = 256u;
JointPose model_poses[LOCAL_JOINTS];

JointPose model_pose(uint first, uint joint) {
    return joint < LOCAL_JOINTS ? model_poses[joint] : stored_pose(first + joint);
}

void main() {
    // The n-th instance this phase appended, counting through the levels'
    // regions (the late phase's follow the early phase's in each region).
    bool late = constants.phase == PHASE_LATE;
    uint slot = gl_GlobalInvocationID.x;
    uint lod = 0u;
    while (lod < constants.lod_count) {
        uint before = late ? early_counts[lod] : 0u;
        uint appended = lod_counts[lod] - before;
        if (slot < appended) {
            slot += before;
            break;
        }
        slot -= appended;
        ++lod;
    }
    if (lod == constants.lod_count) {
        return;
    }
    uint instance = visible_instances[lod * constants.instance_count + slot];
    uint first = pose_sources[instance];
    if ((first & SHARED_POSE) != 0u) {
        return;
    }

    InstanceAnimation animation = instance_animations[instance];
    float scaled_time = frame.time * animation.rate;
    float weight = crossfade_weight(animation, frame.time, frame.blend_time);
    FramePair current = frame_pair(clips[animation.clip], scaled_time + animation.phase,
                                   constants.joint_count);
    FramePair previous = frame_pair(clips[animation.previous_clip],
                                    scaled_time + animation.previous_phase, constants.joint_count);
    FramePair older = frame_pair(clips[animation.older_clip], scaled_time + animation.older_phase,
                                 constants.joint_count);

    // Sampling, blending, local-to-model and the skinning transform in one
    // walk (parents come first): each transform is written once, and a
    // child reads its parent's model pose from the invocation's own array,
    // indexed alike in every lane, instead of back from memory. Joints past
    // the array park their model pose in their own row for their children,
    // and become skinning transforms in a second walk.
    for (uint joint = 0u; joint < constants.joint_count; ++joint) {
        JointPose local = sample_joint(current, joint);
        if (weight < 1.0) {
            JointPose from = sample_joint(previous, joint);
            if (animation.from_weight < 1.0) {
                from = blend_pose(sample_joint(older, joint), from, animation.from_weight);
            }
            local = blend_pose(from, local, weight);
        }
        JointPose inverse_bind = skeleton_joint(joint);
        int parent = int(inverse_bind.translation.w);
        JointPose model = parent >= 0 ? pose_then(model_pose(first, uint(parent)), local) : local;
        if (joint < LOCAL_JOINTS) {
            model_poses[joint] = model;
            store_pose(first + joint, pose_then(model, inverse_bind));
        } else {
            store_pose(first + joint, model);
        }
    }
    for (uint joint = LOCAL_JOINTS; joint < constants.joint_count; ++joint) {
        store_pose(first + joint, pose_then(stored_pose(first + joint), skeleton_joint(joint)));
    }
}
