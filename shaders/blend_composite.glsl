// The weighted blend targets (weighted_blend.glsl) laid over the picture:
// the weighted average colour with coverage 1 - what shows through, by
// Blend::Over. blend_composite.frag reads single-sample targets;
// blend_composite_samples.frag (MULTISAMPLED) averages each pixel's samples
// itself, which gives the same as a resolve (a sample's sums are linear in
// what it holds, so a single layer's edge keeps its samples' coverage)
// without writing the averages out.

#ifdef MULTISAMPLED
layout(set = 0, binding = 0) uniform sampler2DMS weighted_colors;
layout(set = 0, binding = 1) uniform sampler2DMS weights;
// Samples a pixel of the scene's targets.
layout(constant_id = 0) const int SAMPLES = 4;
#else
layout(set = 0, binding = 0) uniform sampler2D weighted_colors;
layout(set = 0, binding = 1) uniform sampler2D weights;
const int SAMPLES = 1;
#endif

layout(location = 0) out vec4 out_color;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 colors = vec4(0.0);
    float weight = 0.0;
    for (int s = 0; s < SAMPLES; ++s) {
        colors += texelFetch(weighted_colors, pixel, s);
        weight += texelFetch(weights, pixel, s).r;
    }
    // No BLEND fragment here: the picture stays as it is, bit for bit.
    if (weight <= 0.0) {
        discard;
    }
    float coverage = 1.0 - colors.a / float(SAMPLES);
    out_color = vec4(colors.rgb / weight, coverage);
}
