#version 450
// A matte ground under the key light: a faint checker of character-sized
// cells with thin lines between them, so motion over it reads, fading into
// the background colour with distance. The patterns are filtered by their
// screen-space footprint (fwidth), so far cells blend to their average
// instead of shimmering.

#include "ground.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};

#include "shadows.glsl"

layout(location = 0) in vec3 in_world_position;

layout(location = 0) out vec4 out_color;

const vec3 GROUND_ALBEDO = vec3(0.20, 0.21, 0.19);
const float CHECKER_CONTRAST = 0.08;
const float LINE_DARKENING = 0.25;
// The clear colour (gpu::targets::CLEAR_COLOR), linear: where the ground
// fades to.
const vec3 HORIZON = vec3(0.02, 0.025, 0.035);
// Cells over which the fog takes about two thirds of the ground's colour:
// half the plane, so the ground under a crowd seen from afar (and the
// shadows on it) still shows, and the plane's edge is gone in the haze.
const float HAZE_CELLS = 0.5 * GROUND_CELLS;

// +1 / -1 in alternating cells, box-filtered over `width` cells.
float filtered_checker(vec2 p, vec2 width) {
    // The integral of a square wave is a triangle wave.
    vec2 triangle_a = abs(fract((p - 0.5 * width) * 0.5) - 0.5);
    vec2 triangle_b = abs(fract((p + 0.5 * width) * 0.5) - 0.5);
    vec2 square = 2.0 * (triangle_a - triangle_b) / width;
    return square.x * square.y;
}

// 1 on the lines between cells, 0 between them, anti-aliased.
float grid_lines(vec2 p, vec2 width) {
    vec2 from_line = abs(fract(p - 0.5) - 0.5) / max(width, vec2(1e-4));
    return 1.0 - clamp(min(from_line.x, from_line.y) - 0.5, 0.0, 1.0);
}

void main() {
    float cell = frame.ground.x;
    vec2 p = in_world_position.xy / cell;
    vec2 width = max(fwidth(p), vec2(1e-4));
    // Patterns smaller than a pixel average out.
    float fade_patterns = clamp(1.5 - max(width.x, width.y), 0.0, 1.0);
    float checker = filtered_checker(p, width) * CHECKER_CONTRAST;
    float line = grid_lines(p, width * 1.5) * LINE_DARKENING * fade_patterns;
    vec3 albedo = GROUND_ALBEDO * (1.0 + checker) * (1.0 - line);
    float lambert = max(frame.light_direction.z, 0.0);
    float sun = sun_visibility(in_world_position, vec3(0.0, 0.0, 1.0));
    albedo *= cascade_tint(in_world_position);
    vec3 lit = albedo * (frame.ambient_color.rgb + frame.light_color.rgb * lambert * sun);
    float distance_in_cells = length(in_world_position - frame.camera_position.xyz) / cell;
    // Exponential fog: the ground darkens gradually towards the horizon
    // and is gone (under 1%) at the plane's edge.
    float haze = 1.0 - exp(-distance_in_cells / HAZE_CELLS);
    out_color = vec4(mix(lit, HORIZON, haze), 1.0);
}
