#version 450
// The composite of single-sample weighted blend targets.

#include "blend_composite.glsl"
