// The band around the impostor switch (crowd::impostor_fade): an instance
// there is drawn both as its mesh and as its impostor, and each pixel goes
// to one of them by an ordered dither against the instance's fade, so the
// impostor's share of the pixels grows with the distance and a character
// crossing the switch changes a sixteenth of its pixels at a time.
// crowd.frag keeps the pixels impostor.frag leaves.
#ifndef IMPOSTOR_BAND_GLSL
#define IMPOSTOR_BAND_GLSL

// A 4x4 Bayer matrix: 16 thresholds, (k + 0.5) / 16, spread so that any
// share of them is spread evenly over the 4x4 block.
const uint BAND_DITHER[16] = uint[16](0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u,
                                      3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);

// Whether the impostor, rather than the mesh, keeps the pixel at
// `frag_coord` of an instance faded by `fade` (0: the mesh keeps every
// pixel, 1: the impostor does).
bool impostor_keeps(vec2 frag_coord, float fade) {
    uvec2 p = uvec2(frag_coord) & 3u;
    return (float(BAND_DITHER[p.y * 4u + p.x]) + 0.5) / 16.0 < fade;
}

#endif
