#version 450
// Frustum culling, one invocation per instance: keeps the instances whose
// bounding sphere is not entirely outside a frustum plane, appends their ids
// to the visible list and counts them into every indirect draw command.
// CPU reference: src/crowd/cull.rs.

#include "crowd_compute.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 1) readonly buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) readonly buffer InstanceAnimations {
    InstanceAnimation instance_animations[];
};
layout(set = 0, binding = 3) readonly buffer Clips {
    ClipInfo clips[];
};
// cull.comp's compacted list of the instances that passed, in no particular
// order. Draws are instanced over it: gl_InstanceIndex is a slot here.
layout(set = 0, binding = 6) buffer VisibleInstances {
    uint visible_count;
    uint visible_instances[];
};
// VkDrawIndexedIndirectCommand (5 words) per mesh, then the skeleton
// overlay's VkDrawIndirectCommand (4 words, padded to 5): instanceCount is
// word 1 of each.
layout(set = 0, binding = 7) buffer DrawCommands {
    uint draw_words[];
};

// cull::BoundingSphere::union.
vec4 sphere_union(vec4 a, vec4 b) {
    vec3 offset = b.xyz - a.xyz;
    float distance = length(offset);
    if (distance + b.w <= a.w) {
        return a;
    }
    if (distance + a.w <= b.w) {
        return b;
    }
    float radius = (distance + a.w + b.w) * 0.5;
    return vec4(a.xyz + offset * ((radius - a.w) / distance), radius);
}

void main() {
    uint instance = gl_GlobalInvocationID.x;
    if (instance >= constants.instance_count) {
        return;
    }
    // cull::instance_sphere. Without clips, clips[0] holds the bind pose's sphere.
    InstanceAnimation animation = instance_animations[instance];
    vec4 sphere = clips[animation.clip].bounding_sphere;
    if (animation.previous_clip != animation.clip) {
        sphere = sphere_union(sphere, clips[animation.previous_clip].bounding_sphere);
    }
    CrowdInstance placed = instances[instance];
    vec3 centre = place_instance(placed, sphere.xyz);

    for (uint i = 0u; i < 6u; ++i) {
        vec4 plane = frame.frustum_planes[i];
        if (dot(plane.xyz, centre) + plane.w < -sphere.w) {
            return;
        }
    }
    uint slot = atomicAdd(visible_count, 1u);
    visible_instances[slot] = instance;
    for (uint command = 0u; command < constants.draw_command_count; ++command) {
        atomicAdd(draw_words[command * 5u + 1u], 1u);
    }
}
