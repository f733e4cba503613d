#version 450
// The ground plane: one large square at z = 0, two triangles made from
// gl_VertexIndex (no vertex buffer).

#include "ground.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};

layout(location = 0) out vec3 out_world_position;

void main() {
    // 0 1 2, 2 1 3: corners (-1,-1) (1,-1) (-1,1), (-1,1) (1,-1) (1,1).
    uint corner = uint[6](0u, 1u, 2u, 2u, 1u, 3u)[gl_VertexIndex];
    vec2 side = vec2(corner & 1u, corner >> 1u) * 2.0 - 1.0;
    vec3 world = vec3(side * GROUND_CELLS * frame.ground.x, 0.0);
    out_world_position = world;
    gl_Position = frame.view_projection * vec4(world, 1.0);
}
