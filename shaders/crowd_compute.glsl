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

// Twin of Rust's gpu::passes::cull::CrowdComputeConstants.
layout(push_constant) uniform CrowdComputeConstants {
    uint instance_count;
    uint joint_count;
    uint clip_count;          // 0: the model has no clips and stands in its bind pose
    uint draw_command_count;  // indirect commands whose instanceCount culling fills
} constants;

#endif
