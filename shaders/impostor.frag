#version 450
// One impostor texel, lit as crowd.frag lights a mesh: albedo under the
// instance's skin times its tint, the baked normal turned into the world
// by the quad's frame, and the depth the texel had, so impostors hide each
// other and meshes as meshes would and the depth pyramid sees them.
// - Doom 3's texels: Lambert and ambient (the atlas keeps no specular map).
// - Where the atlas keeps surfaces (a model with other materials), its
//   metallic-roughness texels take pbr.glsl's BRDF, seen from the point
//   the texel's depth puts on the line of sight, its unlit texels their
//   albedo alone, and both their baked emission. A texel of a mip level
//   that averages several models takes each one's colour by its share.
// Impostors receive no shadow, whatever their model.

#include "impostor.glsl"
#include "impostor_band.glsl"
#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
// The model's atlas (gpu::impostor_atlas), a layer per slot (a clip it
// holds): per skin, albedo and coverage (sRGB; rgb premultiplied by
// coverage); then the normals and depths, premultiplied alike.
layout(set = 1, binding = 0) uniform sampler2DArray albedo_maps[MAX_SKINS];
layout(set = 1, binding = 1) uniform sampler2DArray normal_depth_map;
// Metallic, roughness, occlusion (times the metallic-roughness share), and
// that share; emission (sRGB) and the unlit share: premultiplied alike.
layout(set = 1, binding = 2) uniform sampler2DArray surface_map;
layout(set = 1, binding = 3) uniform sampler2DArray emission_map;

layout(location = 0) in vec2 in_cell_uv;
layout(location = 1) flat in uvec2 in_cell;
layout(location = 2) flat in vec3 in_tint;
layout(location = 3) flat in uint in_skin;
layout(location = 4) in vec3 in_world_position;
layout(location = 5) flat in vec3 in_right;
layout(location = 6) flat in vec3 in_up;
layout(location = 7) flat in vec4 in_towards_radius;
layout(location = 8) flat in float in_fade;

#include "skins.glsl"

vec4 albedo_texel(vec3 uv) { SAMPLE_SKIN(albedo_maps, uv) }

layout(location = 0) out vec4 out_color;

// Several samples a pixel: the pipeline turns alpha into coverage.
layout(constant_id = 1) const bool ALPHA_TO_COVERAGE = false;
// The model's atlas keeps surfaces and emission (ImpostorLayout::surfaces).
layout(constant_id = 2) const bool SURFACES = false;

#include "pbr.glsl"

// The texel's colour where the atlas keeps surfaces: `doom3` (its Doom 3
// shading) weighed by Doom 3's share, the metallic-roughness and unlit
// shadings by theirs, plus the emission. `base` is the tinted albedo.
vec3 surface_color(vec3 doom3, vec3 base, vec3 uv, float coverage, vec3 normal, vec3 point) {
    vec4 surface = texture(surface_map, uv);
    vec4 emission = texture(emission_map, uv) / coverage;
    float metallic_roughness = surface.a / coverage;
    float unlit = emission.a;
    vec3 color = doom3 * max(1.0 - metallic_roughness - unlit, 0.0) + base * unlit + emission.rgb;
    if (surface.a > 0.0) {
        vec3 mro = surface.rgb / surface.a;
        PbrSurface s = PbrSurface(base, mro.x, mro.y, mro.z);
        vec3 to_eye = normalize(frame.camera_position.xyz - point);
        vec3 lit = sun_reflectance(s, normal, to_eye, frame.light_direction.xyz) * frame.light_color.rgb;
        vec3 ambient = ambient_reflectance(s, normal, to_eye, frame.ambient_color.rgb);
        color += (lit + ambient) * metallic_roughness;
    }
    return color;
}

void main() {
    // In the band around the switch, the mesh has the other pixels.
    if (!impostor_keeps(gl_FragCoord.xy, in_fade)) {
        discard;
    }
    vec3 uv = atlas_uv(in_cell, in_cell_uv, textureSize(normal_depth_map, 0).xy);
    vec4 albedo = albedo_texel(uv);
    float coverage = albedo.a;
    // The silhouette is where the texels are half covered, where the
    // mesh's is at every mip level. With several samples a pixel, alpha to
    // coverage gives the pixel as many as lie inside that outline: the
    // coverage's distance from one half, in pixels, sharpened to a
    // one-pixel ramp. With one, the pixels covered half or more.
    float inside = (coverage - 0.5) / max(fwidth(coverage), 1e-4) + 0.5;
    if (ALPHA_TO_COVERAGE ? (inside <= 0.0 || coverage <= 0.0) : coverage < 0.5) {
        discard;
    }
    vec4 normal_depth = texture(normal_depth_map, uv) / coverage;
    vec3 seen = normal_depth.xyz * 2.0 - 1.0;
    vec3 towards = in_towards_radius.xyz;
    vec3 normal = normalize(seen.x * in_right + seen.y * in_up + seen.z * towards);
    vec3 surface = in_world_position + towards * (normal_depth.w * 2.0 - 1.0) * in_towards_radius.w;
    vec4 clip = frame.view_projection * vec4(surface, 1.0);
    gl_FragDepth = clip.z / clip.w;
    float lambert = max(dot(normal, frame.light_direction.xyz), 0.0);
    vec3 light = frame.ambient_color.rgb + frame.light_color.rgb * lambert;
    vec3 base = albedo.rgb / coverage * in_tint;
    vec3 color = base * light;
    if (SURFACES) {
        color = surface_color(color, base, uv, coverage, normal, surface);
    }
    // Alpha is coverage, never written (the pipeline masks it out).
    out_color = vec4(color, ALPHA_TO_COVERAGE ? clamp(inside, 0.0, 1.0) : 1.0);
}
