// Per-frame and per-instance data shared by the passes that draw the crowd.
#ifndef SCENE_GLSL
#define SCENE_GLSL

// Twin of Rust's gpu::renderer::FrameUniforms.
struct FrameUniforms {
    mat4 view_projection;  // world (Z up) to Vulkan clip space, reverse Z
    vec4 light_direction;  // xyz: unit vector towards the light
    vec4 light_color;      // rgb, linear
    vec4 ambient_color;    // rgb, linear
    // The view frustum as six planes (xyz: inward unit normal, w: distance),
    // extracted on the CPU from view_projection for cull.comp.
    vec4 frustum_planes[6];
    float time;            // seconds, the clock every instance's clip runs on
    float blend_time;      // seconds a crossfade between clips lasts
    vec2 padding;          // to the 16-byte multiple std140 rounds the block to
};

// Twin of Rust's gpu::renderer::CrowdInstance.
struct CrowdInstance {
    vec4 placement; // xyz: world position of the model origin; w: yaw about +Z, radians
    vec4 tint;      // rgb multiplies the diffuse texture
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
