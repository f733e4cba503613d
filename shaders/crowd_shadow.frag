#version 450
// The shadow casters of a MASK material: depth only where crowd.frag keeps
// the surface (alpha remapped to cut at 0.5 when decoded), so cut-outs let
// the sun through. Opaque casters have no fragment shader at all.

#include "scene.glsl"

layout(location = 1) in vec2 in_uv;
layout(location = 5) flat in uint in_skin;
layout(location = 7) in vec4 in_color_shortfall; // 1 - vertex colour

#include "material.glsl"

void main() {
    if (base_color(in_uv).a < 0.5) {
        discard;
    }
}
