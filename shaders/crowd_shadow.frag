#version 450
// The shadow casters of a MASK material: depth only where crowd.frag keeps
// the surface at one sample (material.glsl's mask_keeps), so cut-outs let
// the sun through. Opaque casters have no fragment shader at all.

#include "scene.glsl"

layout(location = 1) in vec2 in_uv;
layout(location = 5) flat in uint in_skin;
layout(location = 7) in vec4 in_color_shortfall; // 1 - vertex colour

#include "material.glsl"

void main() {
    if (!mask_keeps(base_color(in_uv).a)) {
        discard;
    }
}
