#version 450
// An impostor's shadow: its atlas cell seen from the sun, depth only into
// a shadow cascade. The texels covered half or more cast (impostor.frag's
// outline at one sample a pixel), so the shadow has its character's
// outline and the ground under a field of impostors is shaded as under
// their meshes. They cast at the quad's depth, through the sphere's centre
// facing the sun: the baked depth would add relief only impostors could
// receive, and they receive none, while writing gl_FragDepth costs the
// early depth test (a third of the cascade's time on lavapipe).

#include "impostor.glsl"

layout(set = 1, binding = 0) uniform sampler2DArray albedo_maps[MAX_SKINS];

layout(location = 0) in vec2 in_cell_uv;
layout(location = 1) flat in uvec2 in_cell;
layout(location = 3) flat in uint in_skin;

#include "skins.glsl"

vec4 albedo_texel(vec3 uv) { SAMPLE_SKIN(albedo_maps, uv) }

void main() {
    vec3 uv = atlas_uv(in_cell, in_cell_uv, textureSize(albedo_maps[0], 0).xy);
    if (albedo_texel(uv).a < 0.5) {
        discard;
    }
}
