#version 450
// GPU animation shaped for a GPU: one workgroup per instance the cull pass
// gave a palette row this phase (dispatched indirectly, for those only), its lanes
// over the instance's joints. Lanes sample neighbouring joints, so their
// clip frames are neighbouring texels, and write neighbouring palette
// entries. The hierarchy is resolved level by level: a level's joints read
// their parents' model poses from shared memory, written the level before,
// so each skinning transform comes from the same operations in the same
// order as in animate.comp and the CPU reference (src/crowd/animate.rs),
// and is written once. Skeletons up to SHARED_JOINTS joints;
// gpu::passes::animate gives larger ones to animate.comp.

#include "animate.glsl"

layout(local_size_x = 64) in;
const uint JOINT_LANES = gl_WorkGroupSize.x;

// The most joints kept in shared memory: passes::animate::SHARED_JOINTS,
// a multiple of JOINT_LANES, set when the pipeline is made.
layout(constant_id = 0) const uint SHARED_JOINTS = 256u;
const uint JOINTS_PER_LANE = SHARED_JOINTS / JOINT_LANES;

shared JointPose model_poses[SHARED_JOINTS];
// The deepest joint's number of ancestors.
shared uint deepest;

void main() {
    PosedInstance posed;
    // The same for every lane: the barriers below are reached by all or none.
    if (!posed_instance_at(gl_WorkGroupID.x, posed)) {
        return;
    }
    uint first = posed.first;
    uint joint_count = posed.model.joint_count;
    InstanceSampling sampling = instance_sampling(instance_animations[posed.instance], joint_count);
    bool layered = plays_layers(posed.instance);
    uint lane = gl_LocalInvocationID.x;
    if (lane == 0u) {
        deepest = 0u;
    }
    barrier();

    // Lane l owns joints l, l + JOINT_LANES, ...: their inverse bind poses
    // and depths.
    JointPose inverse_bind[JOINTS_PER_LANE];
    uint depth[JOINTS_PER_LANE];
    for (uint k = 0u; k < JOINTS_PER_LANE; ++k) {
        uint joint = lane + k * JOINT_LANES;
        depth[k] = 0u;
        if (joint < joint_count) {
            inverse_bind[k] = skeleton_joint(posed.model, joint);
            depth[k] = joint_depth(posed.model, joint);
            atomicMax(deepest, depth[k]);
        }
    }
    barrier();

    uint levels = deepest + 1u;
    for (uint level = 0u; level < levels; ++level) {
        for (uint k = 0u; k < JOINTS_PER_LANE; ++k) {
            uint joint = lane + k * JOINT_LANES;
            if (joint < joint_count && depth[k] == level) {
                JointPose local = local_pose(sampling, joint);
                if (layered) {
                    local = layered_pose(posed.instance, posed.model, joint, local);
                }
                int parent = parent_of(inverse_bind[k]);
                JointPose model = parent >= 0 ? pose_then(model_poses[parent], local) : local;
                model_poses[joint] = model;
                store_pose(first + joint, pose_then(model, inverse_bind[k]));
            }
        }
        // The level's model poses are in shared memory before the next reads them.
        barrier();
    }
    uint weights = morph_weight_count(posed.instance);
    for (uint w = lane; w < weights; w += JOINT_LANES) {
        store_morph_weight(posed.instance, w);
    }
}
