// The push constants of the crowd's draws (crowd.vert, impostor.vert).
#ifndef DRAW_CONSTANTS_GLSL
#define DRAW_CONSTANTS_GLSL

// Twin of Rust's gpu::shader_types::DrawConstants.
layout(push_constant) uniform DrawConstants {
    uint skinning_mode;  // SKINNING_LINEAR, SKINNING_DUAL_QUATERNION or SKINNING_NONE
    uint instance_count; // the stride of the visible lists' regions: level = slot / count
    uint show_lod;       // 1: tint each instance by its level of detail
    // 0: the camera's picture (frame.view_projection); c + 1: shadow
    // cascade c's depth (frame.cull_views[c + 1].view_projection).
    uint view;
    // 1: the vertices are the bind pose's, and morph targets move them
    // before skinning; 0: the bind pose unskinned, or vertices the CPU
    // skinned (and morphed) already.
    uint morphed;
} draw;

#endif
