// Per-frame and per-instance data shared by the passes that draw the crowd.
#ifndef SCENE_GLSL
#define SCENE_GLSL

// MAX_LODS, MAX_SKINS, MAX_MODELS, ...
#include "shared_constants.glsl"

// The visible lists (cull.comp's output): the count of each model's level
// (model-major: [model * MAX_LODS + level]), the counts the early phase of
// occlusion culling left, the skinning palette rows (joint transforms) the
// frame's drawn instances wanted (GPU animation; counted past the
// palette's end, so the CPU learns how far to grow it), the instances
// given rows (the posed list's length, and what the early phase left of
// it), the instances of each model drawn as impostors (what the early
// phase left, and those drawn as meshes too: the band around the switch),
// then one region of instance_count slots per level, one for
// the impostors and the posed list. A crowd holds
// its instances sorted by model, so inside level l's region (at
// l * instance_count) model m's instances take the slots from its first
// instance on: an indirect draw of model m at level l starts at
// firstInstance = l * instance_count + first_instance(m).
// The header is Rust's gpu::shader_types::VisibleHeader.
#define VISIBLE_INSTANCES_BLOCK                \
    uint lod_counts[MAX_MODELS * MAX_LODS];    \
    uint early_counts[MAX_MODELS * MAX_LODS];  \
    uint palette_rows_wanted;                  \
    uint posed_count;                          \
    uint early_posed_count;                    \
    uint padding;                              \
    uint impostor_counts[MAX_MODELS];          \
    uint early_impostor_counts[MAX_MODELS];    \
    uint band_counts[MAX_MODELS];              \
    uint visible_instances[];

// Twin of Rust's gpu::shader_types::GpuCullView (CPU reference:
// crowd::CullView): what a cull dispatch judges instances by, as
// niagara's CullData: the camera, or an orthographic view such as a sun's.
struct CullView {
    // World (Z up) to Vulkan clip space, reverse Z: the camera's
    // view_projection, or the one frozen culling keeps.
    mat4 view_projection;
    // The frustum as six planes (xyz: inward unit normal, w: distance),
    // extracted on the CPU from view_projection.
    vec4 frustum_planes[6];
    // x: pixels per model unit at clip w = 1 (P[1][1] * height / 2; an
    // orthographic view's w is 1 everywhere); y: the projected error a
    // level may have, in pixels (0: always level 0); z: the near plane's
    // distance (clip w at depth 1; 0 orthographic); w: the largest
    // projected radius, in pixels, that shares its clip's pose (animation
    // level of detail; 0: off).
    vec4 lod_params;
    // Homogeneous: the eye (w 1), or the direction towards the viewer of
    // an orthographic view (w 0): impostors show the view nearest it.
    vec4 eye;
    vec2 viewport_size;    // pixels: where the occlusion test's screen rectangles land
    uint orthographic;     // 1: clip w is 1 everywhere, no near plane in w
    uint padding;
};

// Twin of Rust's gpu::shader_types::FrameUniforms.
struct FrameUniforms {
    mat4 view_projection;  // world (Z up) to Vulkan clip space, reverse Z
    // The views cull.comp judges by (level of detail, occlusion, animation
    // LOD, impostor cells): the camera's at 0, then each shadow cascade's.
    CullView cull_views[CULL_VIEWS];
    vec4 light_direction;  // xyz: unit vector towards the light
    vec4 light_color;      // rgb, linear
    vec4 ambient_color;    // rgb, linear
    vec4 camera_position;  // xyz: the eye in world space, for specular highlights
    float time;            // seconds, the clock every instance's clip runs on
    float blend_time;      // seconds a crossfade between clips lasts
    // Morph weights per instance in MorphWeights (the most any model has;
    // 0: no model has morph targets, and nothing is morphed).
    uint morph_stride;
    float padding;
    // The ground pass (ground.glsl), in model units: x the size of a ground
    // cell (the largest model's height), y, z, w unused; then each model's
    // contact shadow radius (about its footprint), model m's at
    // shadow_radii[m / 4][m % 4].
    vec4 ground;
    vec4 shadow_radii[MAX_MODELS / 4u];
    // Shadow maps (shadows.glsl): per cascade, where its slice of the
    // camera's view ends (distance in front of the eye) and the world
    // size of one of its texels; x the cascades drawn (0: no shadow map),
    // y 1 to tint what each cascade covers, z, w unused.
    vec4 shadow_far;
    vec4 shadow_texel_size;
    uvec4 shadow_params;
};

// Twin of Rust's gpu::shader_types::CrowdInstance.
struct CrowdInstance {
    vec4 placement; // xyz: world position of the model origin; w: yaw about +Z, radians
    vec3 tint;      // multiplies the diffuse texture
    uint skin;      // which of its model's skins remaps its materials, < MAX_SKINS
    uint model;     // which of the crowd's models it is (CrowdModel)
    uint padding[3];
};

// Instances turn about +Z only: crowds stand upright.
vec3 rotate_yaw(float yaw, vec3 v) {
    float c = cos(yaw);
    float s = sin(yaw);
    return vec3(c * v.x - s * v.y, s * v.x + c * v.y, v.z);
}

vec3 place_instance(CrowdInstance instance, vec3 model_point) {
    return rotate_yaw(instance.placement.w, model_point) + instance.placement.xyz;
}

#endif
