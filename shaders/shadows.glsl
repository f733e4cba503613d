// Sun shadows from the cascaded shadow map (gpu::shadow_map): how much of
// the key light reaches a surface point. Include after the Frame block.
#ifndef SHADOWS_GLSL
#define SHADOWS_GLSL

// Every cascade's depth, a layer each; compared with the receiver's
// (reverse Z: lit where at least as near the sun as the stored caster).
layout(set = 0, binding = 8) uniform sampler2DArrayShadow shadow_map;

// Casters seen from the cascades' colours (--shadow-debug): each cascade
// tints what it covers.
const vec3 CASCADE_TINTS[4] = vec3[4](vec3(1.0, 0.35, 0.35), vec3(0.35, 1.0, 0.35),
                                      vec3(0.35, 0.5, 1.0), vec3(1.0, 1.0, 0.3));

// The cascade whose slice of the camera's view holds `world_position`
// (frame.shadow_far: where each ends, as distances in front of the eye),
// or -1 past the last.
int shadow_cascade(vec3 world_position) {
    float w = (frame.view_projection * vec4(world_position, 1.0)).w;
    for (uint c = 0u; c < frame.shadow_params.x; ++c) {
        if (w < frame.shadow_far[c]) {
            return int(c);
        }
    }
    return -1;
}

// 1 where the sun reaches `world_position`, 0 in shadow, in between across
// a shadow's edge: 3x3 comparisons, each filtered over 2x2 texels where
// the format allows. The point moves off the surface along `normal` by a
// texel of its cascade so that a lit slope does not shadow itself.
float sun_visibility(vec3 world_position, vec3 normal) {
    int cascade = shadow_cascade(world_position);
    if (cascade < 0) {
        return 1.0;
    }
    float texel_world = frame.shadow_texel_size[cascade];
    vec3 lifted = world_position + normal * (1.5 * texel_world);
    vec4 clip = frame.cull_views[cascade + 1].view_projection * vec4(lifted, 1.0);
    vec2 uv = clip.xy * 0.5 + 0.5;
    float texel = 1.0 / float(textureSize(shadow_map, 0).x);
    float lit = 0.0;
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            lit += texture(shadow_map, vec4(uv + vec2(x, y) * texel, float(cascade), clip.z));
        }
    }
    return lit / 9.0;
}

// --shadow-debug: the cascade's tint, white past the last.
vec3 cascade_tint(vec3 world_position) {
    int cascade = shadow_cascade(world_position);
    return frame.shadow_params.y != 0u && cascade >= 0 ? CASCADE_TINTS[cascade] : vec3(1.0);
}

#endif
