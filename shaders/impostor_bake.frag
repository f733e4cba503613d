#version 450
// One texel of an impostor atlas (gpu::impostor_atlas). crowd.vert has
// skinned the model at a baked frame, turned it so its cell's view
// direction faces the bake camera, and placed it in its cell of the atlas,
// which an orthographic camera looking down that direction's ring of
// elevation covers. The texel keeps, in up to four images at once:
// - albedo: the base colour (material.glsl: map x vertex colour) under the
//   instance's skin, with full coverage in alpha (tints and light apply
//   when drawn);
// - normal and depth: the shading normal in the view's own frame (right,
//   up, towards the eye) and the depth along the view (0 at the far side
//   of the model's sphere, 1 at its near side), each as x * 0.5 + 0.5;
// - surface: a metallic-roughness texel's metallic, roughness and
//   occlusion, and 1 in alpha (Doom 3's and unlit texels keep zeros);
// - emission: a metallic-roughness texel's emission (x strength), and 1 in
//   alpha for an unlit texel.
// The last two only where the model has materials other than Doom 3's
// (ImpostorLayout::surfaces); elsewhere they have no attachment and what
// is written there is discarded. Every image is cleared to zero, so the
// mips (averages) hold each value times the coverage, and the surface
// times the metallic-roughness share: impostor.frag divides by them.

#include "scene.glsl"

layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec3 in_tint;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec3 in_world_position;
layout(location = 5) flat in uint in_skin;
layout(location = 7) in vec4 in_color_shortfall; // 1 - vertex colour

#include "material.glsl"

// The material's alpha mode (constant 0 is skins.glsl's SKIN_COUNT). MASK:
// its cut cells stay empty in the atlas, as crowd.frag leaves them. BLEND:
// a share of its texels as large as its alpha is kept, in an ordered
// dither; the atlas's mips and the impostor's filtering average them into
// the blend of the surface over what is behind it (an eye decal over skin),
// or into partial coverage where nothing is behind (a hair card's edge).
// Every image of a kept texel is the surface's, so each stays consistent.
layout(constant_id = 1) const uint ALPHA_MODE = ALPHA_OPAQUE;
// How the mesh is shaded (material::ShadingModel), as crowd.frag's
// SHADING_MODEL.
layout(constant_id = 2) const uint SHADING_MODEL = SHADING_DOOM3;

layout(location = 0) out vec4 out_albedo;
layout(location = 1) out vec4 out_normal_depth;
layout(location = 2) out vec4 out_surface;
layout(location = 3) out vec4 out_emission;

// A 4x4 Bayer matrix's threshold at `texel`: alpha a keeps round(16 a) of
// every 16 texels, spread evenly.
float dither_threshold(ivec2 texel) {
    const float bayer[16] = float[16](0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0,
                                      3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0);
    return (bayer[(texel.y & 3) * 4 + (texel.x & 3)] + 0.5) / 16.0;
}

void main() {
    vec4 base = base_color(in_uv);
    if (ALPHA_MODE == ALPHA_MASK && !mask_keeps(base.a)) {
        discard;
    }
    if (ALPHA_MODE == ALPHA_BLEND && base.a <= dither_threshold(ivec2(gl_FragCoord.xy))) {
        discard;
    }
    // The bake's instances are white: tints apply when drawn.
    out_albedo = vec4(base.rgb * in_tint, 1.0);
    vec3 normal = shading_normal(in_normal, in_tangent, in_uv);
    // The bake camera's axes are the rows of its orthographic projection:
    // x along its right, y down the image, z towards the eye.
    mat4 m = frame.view_projection;
    vec3 right = normalize(vec3(m[0][0], m[1][0], m[2][0]));
    vec3 down = normalize(vec3(m[0][1], m[1][1], m[2][1]));
    vec3 towards = normalize(vec3(m[0][2], m[1][2], m[2][2]));
    vec3 seen = vec3(dot(normal, right), -dot(normal, down), dot(normal, towards));
    // Orthographic: the depth is the camera's z row applied to the point.
    float depth = dot(vec4(m[0][2], m[1][2], m[2][2], m[3][2]), vec4(in_world_position, 1.0));
    out_normal_depth = vec4(seen * 0.5 + 0.5, depth);
    bool metallic_roughness = SHADING_MODEL == SHADING_METALLIC_ROUGHNESS;
    out_surface = metallic_roughness ? vec4(metallic_roughness_occlusion(in_uv), 1.0) : vec4(0.0);
    vec3 emitted = metallic_roughness ? texture(emissive_map, in_uv).rgb : vec3(0.0);
    out_emission = vec4(emitted, SHADING_MODEL == SHADING_UNLIT ? 1.0 : 0.0);
}
