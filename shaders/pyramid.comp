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

void main() {
    uint level = pyramid_constants.level;
    uvec4 this_level = pyramid_levels[level];
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    if (texel.x >= int(this_level.x) || texel.y >= int(this_level.y)) {
        return;
    }
    float farthest = 1.0;
    if (level == 0u) {
        // The 2x2 depth texels under this one in one gather (a sampler
        // call is what costs on a CPU driver). Nearest and clamped to the
        // edge: past an odd edge the gather repeats the edge texel, which is
        // under this one anyway.
        vec2 centre = vec2(texel * 2 + 1) / vec2(textureSize(depth, 0));
        vec4 four = textureGather(depth, centre, 0);
        farthest = min(min(four.x, four.y), min(four.z, four.w));
    } else {
        uvec4 size_below = pyramid_levels[level - 1u];
        for (int dy = 0; dy < 2; ++dy) {
            for (int dx = 0; dx < 2; ++dx) {
                ivec2 child = texel * 2 + ivec2(dx, dy);
                if (child.x < int(size_below.x) && child.y < int(size_below.y)) {
                    farthest = min(farthest, pyramid_texel(level - 1u, child));
                }
            }
        }
    }
    pyramid_texel(level, texel) = farthest;
}
