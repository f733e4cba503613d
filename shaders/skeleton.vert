#version 450
// One endpoint of a joint-to-parent line. The skeleton is drawn as a rigid
// line mesh: each endpoint sits at a joint's bind-pose position and is
// skinned 100% to that joint, which lands it where the joint is posed
// (skinning transform = pose * inverse bind pose).

#include "poses.glsl"
#include "scene.glsl"

layout(location = 0) in vec3 in_bind_position; // model space
layout(location = 1) in uint in_joint;

layout(set = 0, binding = 1) readonly buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
// cull.comp's compacted lists of the instances that passed, one region per
// level of detail (see crowd_compute.glsl). Draws are instanced over a
// region: gl_InstanceIndex (which counts from firstInstance) is a slot here.
layout(set = 0, binding = 3) readonly buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};

void main() {
    uint instance = visible_instances[gl_InstanceIndex];
    SkinningTransform t = joint_transform(instance, in_joint);
    vec3 posed = quat_rotate(t.rotation, in_bind_position) + t.translation.xyz;
    gl_Position = frame.view_projection * vec4(place_instance(instances[instance], posed), 1.0);
}
