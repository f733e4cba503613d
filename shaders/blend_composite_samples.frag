#version 450
// The composite of multisampled weighted blend targets.

#define MULTISAMPLED
#include "blend_composite.glsl"
