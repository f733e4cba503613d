// The push constants of the crowd's draws (crowd.vert, impostor.vert).
#ifndef DRAW_CONSTANTS_GLSL
#define DRAW_CONSTANTS_GLSL

// Twin of Rust's gpu::shader_types::DrawConstants.
layout(push_constant) uniform DrawConstants {
    uint skinning_mode;  // SKINNING_LINEAR, SKINNING_DUAL_QUATERNION or SKINNING_NONE
    uint instance_count; // the stride of the visible lists' regions: level = slot / count
    uint show_lod;       // 1: tint each instance by its level of detail
} draw;

#endif
