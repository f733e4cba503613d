#version 450
// GPU animation shaped for a CPU driver: one invocation per instance the
// cull pass gave a palette row this phase (dispatched indirectly, for those
// only: the instances showing a shared pose take no lane),
// walking the instance's joints in order: sample its clip (and, while it
// fades in, the fade's starting clips, and the clips of its layers) at their
// local times, blend, run the
// joint hierarchy, and write joint quaternion + translation skinning
// transforms for crowd.vert. Lanes of a SIMD CPU driver are instances, so
// every lane reads and computes alike, with no barrier. The same jobs, in
// the same order, as src/crowd/animate.rs.

#include "animate.glsl"

// A lane per instance (draws.comp's dispatch divides by this size).
layout(local_size_x = 64) in;

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
    PosedInstance posed;
    if (!posed_instance_at(gl_GlobalInvocationID.x, posed)) {
        return;
    }
    uint first = posed.first;
    uint joint_count = posed.model.joint_count;
    InstanceSampling sampling = instance_sampling(instance_animations[posed.instance], joint_count);

    // A CPU driver runs what a branch guards, masked, for every lane of the
    // group whether it takes the branch or not, and blending in a fade's
    // start or laying layers over the clip samples more clips: inside the
    // walk below it would cost every instance at every joint. A loop,
    // though, runs as long as its longest lane needs. So a fading or
    // layered lane first parks every joint's local pose in the joint's own
    // row, in a loop that is empty for the other lanes, and the walk reads
    // it with one load.
    bool parked = sampling.weight < 1.0 || plays_layers(posed.instance);
    uint parked_joints = parked ? joint_count : 0u;
    for (uint joint = 0u; joint < parked_joints; ++joint) {
        JointPose local = layered_pose(posed.instance, posed.model, joint, local_pose(sampling, joint));
        store_pose(first + joint, local);
    }

    // Sampling, blending, local-to-model and the skinning transform in one
    // walk (parents come first): each transform is written once, and a
    // child reads its parent's model pose from the invocation's own array,
    // indexed alike in every lane, instead of back from memory. Joints past
    // the array park their model pose in their own row for their children,
    // and become skinning transforms in a second walk.
    for (uint joint = 0u; joint < joint_count; ++joint) {
        JointPose local = parked ? stored_pose(first + joint) : sample_joint(sampling.current, joint);
        JointPose inverse_bind = skeleton_joint(posed.model, joint);
        int parent = parent_of(inverse_bind);
        JointPose model = parent >= 0 ? pose_then(model_pose(first, uint(parent)), local) : local;
        if (joint < LOCAL_JOINTS) {
            model_poses[joint] = model;
            store_pose(first + joint, pose_then(model, inverse_bind));
        } else {
            store_pose(first + joint, model);
        }
    }
    for (uint joint = LOCAL_JOINTS; joint < joint_count; ++joint) {
        store_pose(first + joint,
                   pose_then(stored_pose(first + joint), skeleton_joint(posed.model, joint)));
    }
    uint weights = morph_weight_count(posed.instance);
    for (uint w = 0u; w < weights; ++w) {
        store_morph_weight(posed.instance, w);
    }
}
