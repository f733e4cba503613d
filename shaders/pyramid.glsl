// The depth pyramid as a storage buffer: a table of levels, then every
// level's texels row by row. A buffer rather than a mipmapped image: levels
// of any size, exact texel coverage, no view per level.
#ifndef PYRAMID_GLSL
#define PYRAMID_GLSL

// MAX_PYRAMID_LEVELS.
#include "shared_constants.glsl"

// pyramid_levels[l]: x = width, y = height, z = offset of its first texel
// in depth_pyramid, w = 0. Levels past the last have width 0.
#define PYRAMID_BLOCK                                \
    uvec4 pyramid_levels[MAX_PYRAMID_LEVELS];        \
    float depth_pyramid[];

// Texel `texel` (an ivec2) of level `level`; a macro, as it reads the block.
#define pyramid_texel(level, texel) \
    depth_pyramid[pyramid_levels[level].z + uint((texel).y) * pyramid_levels[level].x + uint((texel).x)]

#endif
