#version 450
// A soft round contact shadow under every instance, as wide as its model's
// footprint: a square on the ground around its position (six vertices from gl_VertexIndex, one instance per
// crowd instance). Instances outside the view cost six clipped vertices.

#include "ground.glsl"

layout(set = 0, binding = 1) readonly buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};

layout(location = 0) out vec2 out_offset; // -1..1 across the shadow

void main() {
    uint corner = uint[6](0u, 1u, 2u, 2u, 1u, 3u)[gl_VertexIndex];
    vec2 side = vec2(corner & 1u, corner >> 1u) * 2.0 - 1.0;
    CrowdInstance instance = instances[gl_InstanceIndex];
    float radius = frame.shadow_radii[instance.model / 4u][instance.model % 4u];
    vec3 world = vec3(instance.placement.xy + side * radius, SHADOW_LIFT);
    out_offset = side;
    gl_Position = frame.view_projection * vec4(world, 1.0);
}
