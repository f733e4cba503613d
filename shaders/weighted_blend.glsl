// Weighted blended order-independent transparency (McGuire and Bavoil,
// JCGT 2013); CPU twin: material::weighted_blend. BLEND fragments write
// into two attachments with Blend::WeightedSum:
// - the first, RGBA16F: rgb sums premultiplied colours times their weight,
//   alpha multiplies what shows through (cleared to 1);
// - the second, R16F: sums alphas times their weight.
// The composite (blend_composite.frag) lays the weighted average colour
// over the picture with coverage 1 - what shows through. Sums and products
// do not depend on the order fragments arrive in.

#include "shared_constants.glsl"

// The weight of a fragment of `alpha` at reverse-Z `depth`: nearer layers
// dominate, as (camera target distance / distance) squared.
float blend_weight(float alpha, float depth) {
    float nearness = depth / NEAR_PLANE_SHARE;
    return alpha * clamp(nearness * nearness, BLEND_WEIGHT_MIN, BLEND_WEIGHT_MAX);
}
