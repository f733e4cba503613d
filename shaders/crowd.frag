#version 450
// The crowd's opaque and masked meshes (crowd_surface.glsl shades them).

#include "crowd_surface.glsl"

layout(location = 0) out vec4 out_color;

void main() {
    // The attachment is sRGB: the hardware encodes this linear value.
    out_color = crowd_surface();
}
