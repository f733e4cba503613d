#version 450
// The crowd's BLEND meshes (crowd_surface.glsl shades them) into the
// weighted blend targets, in any order (weighted_blend.glsl).

#include "crowd_surface.glsl"
#include "weighted_blend.glsl"

layout(location = 0) out vec4 out_weighted_colors;
layout(location = 1) out vec4 out_weights;

void main() {
    vec4 surface = crowd_surface();
    float weight = blend_weight(surface.a, gl_FragCoord.z);
    // Alpha is what the blend multiplies by (1 - alpha): what shows through.
    out_weighted_colors = vec4(surface.rgb * surface.a * weight, surface.a);
    out_weights = vec4(surface.a * weight, 0.0, 0.0, surface.a);
}
