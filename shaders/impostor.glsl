// Impostors: the atlas a model's images are baked into and which of its
// cells an instance shows. CPU reference: src/crowd/impostor.rs.
#ifndef IMPOSTOR_GLSL
#define IMPOSTOR_GLSL

#include "animation.glsl"
// IMPOSTOR_AZIMUTHS, _RINGS, _RING_STEP_DEGREES, _CELL_TEXELS,
// _ERROR_TEXELS and IMPOSTOR_POSE.
#include "shared_constants.glsl"

const float IMPOSTOR_RING_STEP = radians(IMPOSTOR_RING_STEP_DEGREES);
const uint IMPOSTOR_VIEWS = IMPOSTOR_AZIMUTHS * IMPOSTOR_RINGS;

const float IMPOSTOR_TAU = 6.28318530718;

// impostor::view_direction: from the character towards the eye, model space.
vec3 impostor_view_direction(uint view) {
    float azimuth = float(view % IMPOSTOR_AZIMUTHS) * IMPOSTOR_TAU / float(IMPOSTOR_AZIMUTHS);
    float elevation = float(view / IMPOSTOR_AZIMUTHS) * IMPOSTOR_RING_STEP;
    return vec3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation));
}

// impostor::view_index: the nearest azimuth, then the nearest ring.
uint impostor_view(vec3 to_eye) {
    float step = IMPOSTOR_TAU / float(IMPOSTOR_AZIMUTHS);
    // atan(0, 0) is undefined in GLSL; Rust's atan2 gives 0.
    float angle = abs(to_eye.x) + abs(to_eye.y) > 0.0 ? atan(to_eye.y, to_eye.x) : 0.0;
    // floor(x + 0.5): round() may break ties either way.
    int azimuth = int(floor(angle / step + 0.5));
    uint around = uint(azimuth + int(IMPOSTOR_AZIMUTHS)) % IMPOSTOR_AZIMUTHS;
    float sine = clamp(to_eye.z / max(length(to_eye), 1e-30), -1.0, 1.0);
    uint ring = uint(clamp(floor(asin(sine) / IMPOSTOR_RING_STEP + 0.5), 0.0, float(IMPOSTOR_RINGS - 1u)));
    return ring * IMPOSTOR_AZIMUTHS + around;
}

// ImpostorLayout::frame_index: the nearest of a clip's `frames` baked
// frames to clip time `time`, wrapped or clamped as the clip plays it.
uint impostor_frame(ClipInfo clip, float time, uint frames) {
    uint last = clip.frame_count > 0u ? clip.frame_count - 1u : 0u;
    float duration = float(last) / clip.frame_rate;
    if (duration <= 0.0) {
        return 0u;
    }
    if (clip.looping != 0u) {
        float cycle = (time - duration * floor(time / duration)) / duration;
        return uint(floor(cycle * float(frames) + 0.5)) % frames;
    }
    float share = clamp(time, 0.0, duration) / duration;
    return uint(floor(share * float(frames - 1u) + 0.5));
}

// Where cell `cell` (its view's column, its frame's row: row r is frame
// r % IMPOSTOR_FRAMES_PER_CLIP of the slot, the layer, r /
// IMPOSTOR_FRAMES_PER_CLIP) has `cell_uv` (0..1 across it), in an atlas of
// `atlas_texels`.
vec3 atlas_uv(uvec2 cell, vec2 cell_uv, ivec2 atlas_texels) {
    vec2 cells = vec2(atlas_texels) / float(IMPOSTOR_CELL_TEXELS);
    uvec2 in_slot = uvec2(cell.x, cell.y % IMPOSTOR_FRAMES_PER_CLIP);
    return vec3((vec2(in_slot) + cell_uv) / cells, float(cell.y / IMPOSTOR_FRAMES_PER_CLIP));
}

#endif
