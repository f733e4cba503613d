#version 450
// Diffuse texture lit by one directional light plus ambient (Lambert).

#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
layout(set = 1, binding = 0) uniform sampler2D diffuse;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec3 in_tint;

layout(location = 0) out vec4 out_color;

void main() {
    vec3 normal = normalize(in_normal);
    float lambert = max(dot(normal, frame.light_direction.xyz), 0.0);
    vec3 albedo = texture(diffuse, in_uv).rgb * in_tint;
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert;
    // The attachment is sRGB: the hardware encodes this linear value.
    out_color = vec4(albedo * light, 1.0);
}
