#version 450
// A material's three maps lit by one directional key light plus ambient:
// the diffuse map (Lambert), the normal map (tangent space, bending the
// normal both terms use) and the specular map (Blinn-Phong). A material
// without a normal map gets a flat one and without a specular map a black
// one, so it shades as plain Lambert (as in Doom 3: no map, no specular).

#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
layout(set = 1, binding = 0) uniform sampler2D diffuse_map;  // sRGB
layout(set = 1, binding = 1) uniform sampler2D normal_map;   // UNORM
layout(set = 1, binding = 2) uniform sampler2D specular_map; // UNORM

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec3 in_tint;
layout(location = 3) in vec4 in_tangent; // xyz along +u, w handedness
layout(location = 4) in vec3 in_world_position;

layout(location = 0) out vec4 out_color;

// Doom 3 surfaces are matte plastic-like; one exponent for every material,
// as its interaction shader had.
const float SPECULAR_EXPONENT = 24.0;

// Texels store a direction with 128 meaning 0, so the flat texel
// (128, 128, 255) decodes to exactly +Z and changes nothing.
vec3 tangent_space_normal(vec3 texel) {
    return (texel * 255.0 - 128.0) / 127.0;
}

void main() {
    vec3 normal = normalize(in_normal);
    // Interpolation bends the tangent off the normal: square it up again.
    vec3 tangent = in_tangent.xyz - normal * dot(normal, in_tangent.xyz);
    if (dot(tangent, tangent) > 1e-12) {
        tangent = normalize(tangent);
        // Green runs along +v (down the image), as Doom 3's bitangent does
        // and as crate::material derives normal maps from height maps.
        vec3 bitangent = cross(normal, tangent) * in_tangent.w;
        vec3 mapped = tangent_space_normal(texture(normal_map, in_uv).xyz);
        normal = normalize(tangent * mapped.x + bitangent * mapped.y + normal * mapped.z);
    }
    vec3 to_light = frame.light_direction.xyz;
    float lambert = max(dot(normal, to_light), 0.0);
    vec3 albedo = texture(diffuse_map, in_uv).rgb * in_tint;
    vec3 to_eye = normalize(frame.camera_position.xyz - in_world_position);
    vec3 halfway = normalize(to_light + to_eye);
    float highlight = lambert > 0.0 ? pow(max(dot(normal, halfway), 0.0), SPECULAR_EXPONENT) : 0.0;
    vec3 specular = texture(specular_map, in_uv).rgb * highlight;
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert;
    // The attachment is sRGB: the hardware encodes this linear value.
    out_color = vec4(albedo * light + frame.light_color.rgb * specular, 1.0);
}
