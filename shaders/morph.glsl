// Morph targets in the vertex shader: each vertex's list of the targets
// that move it (gpu::morph_data), scaled by its instance's weights, which
// the animate pass wrote this frame. Set 0 of the crowd's draws.
#ifndef MORPH_GLSL
#define MORPH_GLSL

#include "skinning.glsl"

// Twin of Rust's gpu::morph_data::MorphEntry: one target's offsets of one
// vertex at weight 1.
struct MorphEntry {
    vec4 position; // xyz; w: the target's weight among its model's, as uint bits
    vec4 normal;   // xyz
    vec4 tangent;  // xyz
};

// Per instance, frame.morph_stride weights (animate.glsl's morph_weight).
layout(set = 0, binding = 19) readonly buffer MorphWeights {
    float morph_weights[];
};
// Per vertex of the shared streams (gl_VertexIndex counts the draw's
// vertex offset in): its first entry and how many.
layout(set = 0, binding = 20) readonly buffer MorphRanges {
    uvec2 morph_ranges[];
};
layout(set = 0, binding = 21) readonly buffer MorphEntries {
    MorphEntry morph_entries[];
};

// skin::morphed_vertex: the bind-pose vertex plus each target's offsets
// times the instance's weight for it. The directions stay unnormalised:
// skinning's result is normalised once, after.
SkinnedPoint morphed(SkinnedPoint bind, uint instance, uint vertex) {
    uvec2 range = morph_ranges[vertex];
    uint row = instance * frame.morph_stride;
    for (uint e = range.x; e < range.x + range.y; ++e) {
        MorphEntry entry = morph_entries[e];
        float weight = morph_weights[row + floatBitsToUint(entry.position.w)];
        bind.position += entry.position.xyz * weight;
        bind.normal += entry.normal.xyz * weight;
        bind.tangent += entry.tangent.xyz * weight;
    }
    return bind;
}

#endif
