// What the ground pass's shaders share: the plane the crowd stands on.
#ifndef GROUND_GLSL
#define GROUND_GLSL

#include "scene.glsl"

// Characters stand on z = 0 (md5 soles are at the model origin's height).
// Shadows float a little above it so they never fight the plane in depth.
const float SHADOW_LIFT = 0.05;

// The ground's square, in units of its checker cells around the origin:
// far enough that it meets the horizon fog before its edge.
const float GROUND_CELLS = 160.0;

#endif
