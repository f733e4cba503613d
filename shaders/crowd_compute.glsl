// The descriptor set cull.comp and animate.comp share (set 0 of the "crowd
// compute" pipeline layout). Each shader declares the bindings it uses.
#ifndef CROWD_COMPUTE_GLSL
#define CROWD_COMPUTE_GLSL

#include "animation.glsl"
#include "crowd_model.glsl"
#include "scene.glsl"
#include "skinning.glsl"

layout(set = 0, binding = 0) uniform Frame {
    FrameUniforms frame;
};

// Twin of Rust's gpu::shader_types::CrowdComputeConstants.
layout(push_constant) uniform CrowdComputeConstants {
    uint instance_count;
    uint model_count;         // 1 to MAX_MODELS
    uint lod_count;           // the most levels of detail any model has, 1 to MAX_LODS
    uint mesh_count;          // md5 meshes drawn, every model's: one indirect draw per mesh and level
    uint phase;               // PHASE_*: which part of the frame's culling this is
    // GPU animation: the rows (joint transforms) of this frame slot's
    // skinning palette, which cull.comp hands out to the instances it
    // draws, as many to each as its model has joints; PALETTE_PER_INSTANCE:
    // CPU animation, which uploads every instance's transforms at its own
    // rows (CrowdModel::first_transform).
    uint palette_rows;
    uint impostors;           // 1: cull.comp draws distant instances as impostors
} constants;

const uint PALETTE_PER_INSTANCE = 0xffffffffu;

layout(set = 0, binding = 13) readonly buffer Models {
    CrowdModel models[];
};

// The instance skinning palette rows were handed out to, n-th: the posed
// list follows the levels' regions of the visible lists and the impostor
// list. Macros, as they read the block.
#define posed_instance(n) visible_instances[(constants.lod_count + 1u) * constants.instance_count + (n)]

// The impostor list's region follows the levels': an impostor instance's
// slot among its model's, n-th.
#define impostor_instance(model, n) \
    visible_instances[constants.lod_count * constants.instance_count + (model).first_instance + (n)]

// Without occlusion culling one phase culls and draws everything; with it,
// the early phase draws what was visible last frame and the late phase,
// after the depth pyramid, tests everything and draws what newly passed.
const uint PHASE_ALL = 0u;
const uint PHASE_EARLY = 1u;
const uint PHASE_LATE = 2u;

// animate.comp's invocations per workgroup, one instance each.
const uint ANIMATE_WORKGROUP_SIZE = 64u;
// animate_joints.comp's invocations per workgroup (one instance), each over
// a joint at a time.
const uint JOINT_LANES = 64u;

#endif
