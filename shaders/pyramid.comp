#version 450
// One level of the depth pyramid: each texel is the farthest depth (the
// smallest, with reverse Z) of the 2x2 texels below it, level 0 reading the
// depth target itself. Levels are ceil(below / 2) in size and the texels
// past an odd edge are simply absent, so texel (x, y) of level L covers
// exactly the pixels [x, x + 1) * 2^(L+1) by [y, y + 1) * 2^(L+1), clipped
// to the image: every pixel is under exactly one texel of every level.
// CPU reference: src/crowd/occlusion.rs.

#include "pyramid.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 1, binding = 0) uniform sampler2D depth;
layout(set = 1, binding = 1) buffer DepthPyramid {
    PYRAMID_BLOCK
};

layout(push_constant) uniform PyramidConstants {
    uint level;
} pyramid_constants;

float below(uint level, ivec2 texel) {
    if (level == 0u) {
        return texelFetch(depth, texel, 0).r;
    }
    return pyramid_texel(level - 1u, texel);
}

void main() {
    uint level = pyramid_constants.level;
    uvec4 size_below = level == 0u ? uvec4(textureSize(depth, 0), 0u, 0u) : pyramid_levels[level - 1u];
    uvec4 this_level = pyramid_levels[level];
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    if (texel.x >= int(this_level.x) || texel.y >= int(this_level.y)) {
        return;
    }
    float farthest = 1.0;
    for (int dy = 0; dy < 2; ++dy) {
        for (int dx = 0; dx < 2; ++dx) {
            ivec2 child = texel * 2 + ivec2(dx, dy);
            if (child.x < int(size_below.x) && child.y < int(size_below.y)) {
                farthest = min(farthest, below(level, child));
            }
        }
    }
    pyramid_texel(level, texel) = farthest;
}
