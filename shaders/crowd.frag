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
// The mesh's material under each of the crowd's skins (element s: skin
// s; the elements past the skins in use repeat the first).
layout(set = 1, binding = 0) uniform sampler2D diffuse_maps[MAX_SKINS];  // sRGB
layout(set = 1, binding = 1) uniform sampler2D normal_maps[MAX_SKINS];   // UNORM
layout(set = 1, binding = 2) uniform sampler2D specular_maps[MAX_SKINS]; // UNORM

// Pipeline constant: the skins in use, so that a crowd of one skin (the
// usual case) samples element 0 with no branch at all.
layout(constant_id = 0) const uint SKIN_COUNT = 1u;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec3 in_tint;
layout(location = 3) in vec4 in_tangent; // xyz along +u, w handedness
layout(location = 4) in vec3 in_world_position;
layout(location = 5) flat in uint in_skin;

// The element of `maps` for the instance's skin. Indexing a sampler array
// by a value that varies within a draw needs descriptor indexing
// (shaderSampledImageArrayNonUniformIndexing), which not every device has
// (lavapipe lacks it), so each branch names its element with a constant;
// branches past SKIN_COUNT fold away when the pipeline is made. The skin
// is flat per instance, so a quad (one primitive) never diverges and the
// implicit derivatives stay defined.
#define SKIN_BRANCH(s, maps, uv)              \
    if (SKIN_COUNT > s && in_skin == s) {     \
        return texture(maps[s], uv);          \
    }
#define SAMPLE_SKIN(maps, uv)                                              \
    SKIN_BRANCH(1u, maps, uv) SKIN_BRANCH(2u, maps, uv)                    \
    SKIN_BRANCH(3u, maps, uv) SKIN_BRANCH(4u, maps, uv)                    \
    SKIN_BRANCH(5u, maps, uv) SKIN_BRANCH(6u, maps, uv)                    \
    SKIN_BRANCH(7u, maps, uv)                                              \
    return texture(maps[0], uv);

vec4 diffuse_texel(vec2 uv) { SAMPLE_SKIN(diffuse_maps, uv) }
vec4 normal_texel(vec2 uv) { SAMPLE_SKIN(normal_maps, uv) }
vec4 specular_texel(vec2 uv) { SAMPLE_SKIN(specular_maps, uv) }

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
        vec3 mapped = tangent_space_normal(normal_texel(in_uv).xyz);
        normal = normalize(tangent * mapped.x + bitangent * mapped.y + normal * mapped.z);
    }
    vec3 to_light = frame.light_direction.xyz;
    float lambert = max(dot(normal, to_light), 0.0);
    vec3 albedo = diffuse_texel(in_uv).rgb * in_tint;
    vec3 to_eye = normalize(frame.camera_position.xyz - in_world_position);
    vec3 halfway = normalize(to_light + to_eye);
    float highlight = lambert > 0.0 ? pow(max(dot(normal, halfway), 0.0), SPECULAR_EXPONENT) : 0.0;
    vec3 specular = specular_texel(in_uv).rgb * highlight;
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert;
    // The attachment is sRGB: the hardware encodes this linear value.
    out_color = vec4(albedo * light + frame.light_color.rgb * specular, 1.0);
}
