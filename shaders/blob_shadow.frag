#version 450
// Darkens the ground under a character: strongest under the feet, gone at
// the shadow's rim. Blended over the ground (src alpha, one minus src alpha).

layout(location = 0) in vec2 in_offset;

layout(location = 0) out vec4 out_color;

const float DARKNESS = 0.7;

void main() {
    float r = length(in_offset);
    float coverage = DARKNESS * (1.0 - smoothstep(0.35, 1.0, r));
    out_color = vec4(0.0, 0.0, 0.0, coverage);
}
