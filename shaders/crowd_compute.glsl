// The descriptor set cull.comp and animate.comp share (set 0 of the "crowd
// compute" pipeline layout). Each shader declares the bindings it uses.
#ifndef CROWD_COMPUTE_GLSL
#define CROWD_COMPUTE_GLSL

#include "animation.glsl"
#include "scene.glsl"
#include "skinning.glsl"

layout(set = 0, binding = 0) uniform Frame {
    FrameUniforms frame;
};

// Twin of Rust's gpu::shader_types::CrowdComputeConstants.
layout(push_constant) uniform CrowdComputeConstants {
    uint instance_count;
    uint joint_count;
    uint clip_count;          // 0: the model has no clips and stands in its bind pose
    uint lod_count;           // levels of detail of the model, 1 to MAX_LODS
    uint mesh_count;          // md5 meshes drawn: one indirect draw per mesh and level
    uint phase;               // PHASE_*: which part of the frame's culling this is
    // GPU animation: the rows of this frame slot's skinning palette, which
    // cull.comp hands out to the instances it draws; PALETTE_PER_INSTANCE:
    // CPU animation, which uploads every instance's transforms at its own
    // rows (instance * joint_count).
    uint palette_rows;
    // Occlusion boxes (body parts) per clip frame in cull.comp's frame_bounds.
    uint part_count;
} constants;

const uint PALETTE_PER_INSTANCE = 0xffffffffu;

// The instance skinning palette row `row` poses: the posed list follows the
// levels' regions of the visible lists. A macro, as it reads the block.
#define posed_instance(row) visible_instances[constants.lod_count * constants.instance_count + (row)]

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
