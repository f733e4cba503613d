#version 450
// A material's three maps lit by one directional key light plus ambient:
// the diffuse map (Lambert), the normal map (tangent space, bending the
// normal both terms use) and the specular map (Blinn-Phong). A material
// without a normal map gets a flat one and without a specular map a black
// one, so it shades as plain Lambert (as in Doom 3: no map, no specular).

#include "impostor_band.glsl"
#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec3 in_tint;
layout(location = 3) in vec4 in_tangent; // xyz along +u, w handedness
layout(location = 4) in vec3 in_world_position;
layout(location = 5) flat in uint in_skin;
layout(location = 6) flat in float in_fade;

#include "material.glsl"
#include "shadows.glsl"

layout(location = 0) out vec4 out_color;

// Doom 3 surfaces are matte plastic-like; one exponent for every material,
// as its interaction shader had.
const float SPECULAR_EXPONENT = 24.0;

void main() {
    // In the band around the switch, the impostor has these pixels.
    if (impostor_keeps(gl_FragCoord.xy, in_fade)) {
        discard;
    }
    vec3 normal = shading_normal(in_normal, in_tangent, in_uv);
    vec3 to_light = frame.light_direction.xyz;
    float lambert = max(dot(normal, to_light), 0.0);
    vec3 albedo = diffuse_texel(in_uv).rgb * in_tint;
    vec3 to_eye = normalize(frame.camera_position.xyz - in_world_position);
    vec3 halfway = normalize(to_light + to_eye);
    float highlight = lambert > 0.0 ? pow(max(dot(normal, halfway), 0.0), SPECULAR_EXPONENT) : 0.0;
    // Lifted along the geometric normal: the normal map's bends are
    // finer than a shadow texel.
    float sun = sun_visibility(in_world_position, normalize(in_normal));
    vec3 specular = specular_texel(in_uv).rgb * highlight * sun;
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert * sun;
    albedo *= cascade_tint(in_world_position);
    // The attachment is sRGB: the hardware encodes this linear value.
    out_color = vec4(albedo * light + frame.light_color.rgb * specular, 1.0);
}
