#version 450
// GPU animation shaped for a CPU driver: one invocation per instance the
// cull pass appended this phase (dispatched indirectly, for those only),
// walking the instance's joints in order: sample its clip (and, while it
// fades in, the fade's starting clips) at their local times, blend, run the
// joint hierarchy, and write joint quaternion + translation skinning
// transforms for crowd.vert. Lanes of a SIMD CPU driver are instances, so
// every lane reads and computes alike, with no barrier. The same jobs, in
// the same order, as src/crowd/animate.rs.

#include "animate.glsl"

layout(local_size_x = ANIMATE_WORKGROUP_SIZE) in;

JointPose stored_pose(uint index) {
    SkinningTransform t = skinning_transforms[index];
    return JointPose(t.rotation, t.translation);
}

// Model-space poses of the instance's first LOCAL_JOINTS joints, as the
// walk below computes them.
const uint LOCAL_JOINTS = 256u;
JointPose model_poses[LOCAL_JOINTS];

JointPose model_pose(uint first, uint joint) {
    return joint < LOCAL_JOINTS ? model_poses[joint] : stored_pose(first + joint);
}

void main() {
    uint instance;
    uint first;
    if (!appended_instance(gl_GlobalInvocationID.x, instance, first)) {
        return;
    }
    InstanceSampling sampling = instance_sampling(instance_animations[instance]);

    // Sampling, blending, local-to-model and the skinning transform in one
    // walk (parents come first): each transform is written once, and a
    // child reads its parent's model pose from the invocation's own array,
    // indexed alike in every lane, instead of back from memory. Joints past
    // the array park their model pose in their own row for their children,
    // and become skinning transforms in a second walk.
    for (uint joint = 0u; joint < constants.joint_count; ++joint) {
        JointPose local = local_pose(sampling, joint);
        JointPose inverse_bind = skeleton_joint(joint);
        int parent = parent_of(inverse_bind);
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
