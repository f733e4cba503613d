#version 450
// An impostor's shadow: its atlas cell seen from the sun, depth only into
// a shadow cascade. The texels covered half or more cast (impostor.frag's
// outline at one sample a pixel), each at the depth it was baked with, so
// the shadow has its character's outline and relief, and the ground under
// a field of impostors is shaded as under their meshes.

#include "impostor.glsl"
#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
layout(set = 1, binding = 0) uniform sampler2DArray albedo_maps[MAX_SKINS];
layout(set = 1, binding = 1) uniform sampler2DArray normal_depth_map;

layout(location = 0) in vec2 in_cell_uv;
layout(location = 1) flat in uvec2 in_cell;
layout(location = 3) flat in uint in_skin;
layout(location = 4) in vec3 in_world_position;
layout(location = 7) flat in vec4 in_towards_radius;
layout(location = 9) flat in uint in_view;

#include "skins.glsl"

vec4 albedo_texel(vec3 uv) { SAMPLE_SKIN(albedo_maps, uv) }

void main() {
    vec3 uv = atlas_uv(in_cell, in_cell_uv, textureSize(normal_depth_map, 0).xy);
    float coverage = albedo_texel(uv).a;
    if (coverage < 0.5) {
        discard;
    }
    float depth = texture(normal_depth_map, uv).w / coverage;
    vec3 towards = in_towards_radius.xyz;
    vec3 surface = in_world_position + towards * (depth * 2.0 - 1.0) * in_towards_radius.w;
    vec4 clip = frame.cull_views[in_view].view_projection * vec4(surface, 1.0);
    gl_FragDepth = clip.z / clip.w;
}
