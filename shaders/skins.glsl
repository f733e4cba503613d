// Sampling one element of a sampler array per instance skin, for
// crowd.frag (material.glsl) and impostor.frag. The including shader
// declares `flat in uint in_skin`.
#ifndef SKINS_GLSL
#define SKINS_GLSL

// Pipeline constant: the skins in use, so that a crowd of one skin (the
// usual case) samples element 0 with no branch at all.
layout(constant_id = 0) const uint SKIN_COUNT = 1u;

// The element of `maps` for the instance's skin. Indexing a sampler array
// by a value that varies within a draw needs descriptor indexing
// (shaderSampledImageArrayNonUniformIndexing), which not every device has
// (lavapipe lacks it), so each branch names its element with a constant;
// branches past SKIN_COUNT fold away when the pipeline is made. The skin
// is flat per instance, so a quad (one primitive) never diverges and the
// implicit derivatives stay defined.
#define SKIN_BRANCH(s, maps, uv)              \
    if (SKIN_COUNT > s && in_skin == s) {     \
        return texture(maps[s], uv);          \
    }
#define SAMPLE_SKIN(maps, uv)                                              \
    SKIN_BRANCH(1u, maps, uv) SKIN_BRANCH(2u, maps, uv)                    \
    SKIN_BRANCH(3u, maps, uv) SKIN_BRANCH(4u, maps, uv)                    \
    SKIN_BRANCH(5u, maps, uv) SKIN_BRANCH(6u, maps, uv)                    \
    SKIN_BRANCH(7u, maps, uv)                                              \
    return texture(maps[0], uv);

#endif
