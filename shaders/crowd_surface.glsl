// A crowd mesh's surface, shared by crowd.frag (opaque, masked) and
// crowd_blended.frag (BLEND): a mesh's material, lit by one directional key
// light plus ambient, in the model its pipeline was made for
// (material::Shading):
// - Doom 3's: the diffuse map (Lambert), the normal map (tangent space,
//   bending the normal both terms use) and the specular map (Blinn-Phong).
//   A material without a normal map gets a flat one and without a
//   specular map a black one, so it shades as plain Lambert (as in Doom 3:
//   no map, no specular).
// - glTF's metallic-roughness (pbr.glsl), with emission and occlusion.
// - Unlit: the base colour, untouched by light and shadow.

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
layout(location = 7) in vec4 in_color_shortfall; // 1 - vertex colour
layout(location = 6) flat in float in_fade;

// Pipeline constants (constant 0 is skins.glsl's SKIN_COUNT).
layout(constant_id = 1) const uint SHADING_MODEL = SHADING_DOOM3;
layout(constant_id = 2) const uint ALPHA_MODE = ALPHA_OPAQUE;
// Both faces drawn: a back face is lit with its frame turned round.
layout(constant_id = 3) const bool DOUBLE_SIDED = false;
// The target is multisampled and MASK cuts through alpha-to-coverage.
layout(constant_id = 4) const bool ALPHA_TO_COVERAGE = false;

#include "material.glsl"
#include "pbr.glsl"
#include "shadows.glsl"

// Doom 3 surfaces are matte plastic-like; one exponent for every material,
// as its interaction shader had.
const float SPECULAR_EXPONENT = 24.0;

vec3 doom3_color(vec3 normal, vec3 albedo) {
    vec3 to_light = frame.light_direction.xyz;
    float lambert = max(dot(normal, to_light), 0.0);
    vec3 to_eye = normalize(frame.camera_position.xyz - in_world_position);
    vec3 halfway = normalize(to_light + to_eye);
    float highlight = lambert > 0.0 ? pow(max(dot(normal, halfway), 0.0), SPECULAR_EXPONENT) : 0.0;
    // Lifted along the geometric normal: the normal map's bends are
    // finer than a shadow texel.
    float sun = sun_visibility(in_world_position, normalize(in_normal));
    vec3 specular = specular_texel(in_uv).rgb * highlight * sun;
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert * sun;
    albedo *= cascade_tint(in_world_position);
    return albedo * light + frame.light_color.rgb * specular;
}

vec3 metallic_roughness_color(vec3 normal, vec3 geometric_normal, vec3 base_color) {
    vec3 mro = metallic_roughness_occlusion(in_uv);
    PbrSurface surface = PbrSurface(base_color * cascade_tint(in_world_position), mro.x, mro.y,
                                    mro.z);
    vec3 to_eye = normalize(frame.camera_position.xyz - in_world_position);
    float sun = sun_visibility(in_world_position, geometric_normal);
    vec3 lit = sun_reflectance(surface, normal, to_eye, frame.light_direction.xyz) * sun
             * frame.light_color.rgb;
    vec3 ambient = ambient_reflectance(surface, normal, to_eye, frame.ambient_color.rgb);
    return lit + ambient + texture(emissive_map, in_uv).rgb;
}

// The coverage of a MASK fragment whose base colour alpha is `alpha` under
// alpha-to-coverage: sharpened to a pixel's width around the material's
// cutoff, so the edge takes intermediate coverage and the inside stays
// whole.
float coverage_around_cutoff(float alpha) {
    float cutoff = material_constants().alpha_cutoff;
    return clamp((alpha - cutoff) / max(fwidth(alpha), 1e-4) + 0.5, 0.0, 1.0);
}

// The fragment's colour (linear) and alpha in its material's shading and
// alpha mode; fragments a mask cuts, or the impostor's band keeps, are
// discarded.
vec4 crowd_surface() {
    // In the band around the switch, the impostor has these pixels.
    if (impostor_keeps(gl_FragCoord.xy, in_fade)) {
        discard;
    }
    vec4 base = base_color(in_uv);
    float alpha = 1.0;
    if (ALPHA_MODE == ALPHA_MASK) {
        alpha = ALPHA_TO_COVERAGE ? coverage_around_cutoff(base.a) : base.a;
        if (ALPHA_TO_COVERAGE ? alpha < 1.0 / 255.0 : !mask_keeps(base.a)) {
            discard;
        }
    } else if (ALPHA_MODE == ALPHA_BLEND) {
        alpha = base.a;
    }
    vec3 albedo = base.rgb * in_tint;
    if (SHADING_MODEL == SHADING_UNLIT) {
        return vec4(albedo, alpha);
    }
    bool flipped = DOUBLE_SIDED && !gl_FrontFacing;
    vec3 interpolated = flipped ? -in_normal : in_normal;
    vec3 normal = shading_normal(interpolated, flipped ? -in_tangent : in_tangent, in_uv);
    if (SHADING_MODEL == SHADING_METALLIC_ROUGHNESS) {
        return vec4(metallic_roughness_color(normal, normalize(interpolated), albedo), alpha);
    }
    return vec4(doom3_color(normal, albedo), alpha);
}
