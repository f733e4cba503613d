#version 450
// The weighted blend targets (weighted_blend.glsl), averaged over each
// pixel's samples, laid over the picture: the weighted average colour with
// coverage 1 - what shows through, by Blend::Over. A sample's sums are
// linear in what it holds, so averaging them first gives a single layer's
// edge the coverage its samples had.

layout(set = 0, binding = 0) uniform sampler2D weighted_colors;
layout(set = 0, binding = 1) uniform sampler2D weights;

layout(location = 0) out vec4 out_color;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 colors = texelFetch(weighted_colors, pixel, 0);
    float weight = texelFetch(weights, pixel, 0).r;
    float coverage = 1.0 - colors.a;
    // No BLEND fragment here: the picture stays as it is, bit for bit.
    if (weight <= 0.0) {
        discard;
    }
    out_color = vec4(colors.rgb / weight, coverage);
}
