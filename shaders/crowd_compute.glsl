// The descriptor set cull.comp and animate.comp share (set 0 of the "crowd
// compute" pipeline layout). Each shader declares the bindings it uses.
#ifndef CROWD_COMPUTE_GLSL
#define CROWD_COMPUTE_GLSL

#include "animation.glsl"
#include "crowd_model.glsl"
#include "scene.glsl"
#include "skinning.glsl"
// PALETTE_PER_INSTANCE, PHASE_ALL, PHASE_EARLY, PHASE_LATE.
#include "shared_constants.glsl"

layout(set = 0, binding = 0) uniform Frame {
    FrameUniforms frame;
};

// Where draws.comp writes each indirect command (Rust's
// gpu::draw_commands::DrawCommandLayout, whose `gpu()` fills this; twin of
// gpu::shader_types::GpuDrawCommandLayout). Per phase, in commands of
// DRAW_COMMAND_WORDS: a mesh's level's at mesh * lod_count + level, a
// model's overlay level's at first_overlay + model * lod_count + level,
// a model's impostors' at first_impostor + model; set n (CrowdComputeConstants::command_set: the
// early or only phase's 0, the late phase's 1, shadow cascade c's 2 + c)
// starts n * per_phase commands on. Then a dispatch per camera phase from
// first_dispatch_word, DISPATCH_COMMAND_WORDS apart.
struct DrawCommandLayout {
    uint first_overlay;
    uint first_impostor;
    uint per_phase;
    uint first_dispatch_word;
};

// Twin of Rust's gpu::shader_types::CrowdComputeConstants.
layout(push_constant) uniform CrowdComputeConstants {
    uint instance_count;
    uint model_count;         // 1 to MAX_MODELS
    uint lod_count;           // the most levels of detail any model has, 1 to MAX_LODS
    // PHASE_*: which part of the frame's culling this is. Without occlusion
    // culling one phase culls and draws everything; with it, the early
    // phase draws what was visible last frame and the late phase, after
    // the depth pyramid, tests everything and draws what newly passed.
    uint phase;
    // GPU animation: the rows (joint transforms) of this frame slot's
    // skinning palette, which cull.comp hands out to the instances it
    // draws, as many to each as its model has joints; PALETTE_PER_INSTANCE:
    // CPU animation, which uploads every instance's transforms at its own
    // rows (CrowdModel::first_transform).
    uint palette_rows;
    uint impostors;           // 1: cull.comp draws distant instances as impostors
    uint view;                // which of frame.cull_views this dispatch judges by: 0 the camera
    uint command_set;         // which set of draw commands draws.comp writes
    DrawCommandLayout draw_commands;
} constants;

layout(set = 0, binding = 13) readonly buffer Models {
    CrowdModel models[];
};

// Per instance, MAX_LAYERS layers over its base clip, in order
// (crowd::InstanceLayers; weight 0 past the ones it plays).
layout(set = 0, binding = 18) readonly buffer InstanceLayers {
    InstanceLayer instance_layers[];
};

// Whether the instance plays a layer over its base clip: its pose is then
// its own (no shared pose has its layers) and stays within its model's
// layered radius (CrowdModel::impostor_half_size.w) rather than its clips'
// bounds.
bool plays_layers(uint instance) {
    bool layered = false;
    for (uint l = 0u; l < MAX_LAYERS; ++l) {
        layered = layered || instance_layers[instance * MAX_LAYERS + l].weight > 0.0;
    }
    return layered;
}

// The instance skinning palette rows were handed out to, n-th: the posed
// list follows the levels' regions of the visible lists and the impostor
// list. Macros, as they read the block.
#define posed_instance(n) visible_instances[(constants.lod_count + 1u) * constants.instance_count + (n)]

// The impostor list's region follows the levels': an impostor instance's
// slot among its model's, n-th.
#define impostor_instance(model, n) \
    visible_instances[constants.lod_count * constants.instance_count + (model).first_instance + (n)]

#endif
