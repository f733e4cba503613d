#version 450
// The farthest of each pixel's depth samples (the smallest, with reverse
// Z), for a device that resolves no depth attachment to its MIN: the depth
// pyramid built from it then stays conservative, hiding nothing that any
// sample of a pixel could see. textureSamples reads the count from the
// image, so one pipeline serves every sample count.
// CPU reference: src/crowd/occlusion.rs (farthest_samples).

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 2, binding = 0) uniform sampler2DMS depth_samples;
layout(set = 2, binding = 1, r32f) uniform writeonly image2D farthest_depth;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, imageSize(farthest_depth)))) {
        return;
    }
    float farthest = 1.0;
    int samples = textureSamples(depth_samples);
    for (int s = 0; s < samples; ++s) {
        farthest = min(farthest, texelFetch(depth_samples, pixel, s).r);
    }
    imageStore(farthest_depth, pixel, vec4(farthest));
}
