#version 450
// Skins one vertex of one crowd instance and places it in the world.

#include "poses.glsl"
#include "scene.glsl"

// Pipeline variant: the joints per vertex this level of detail is skinned
// with, the largest of each vertex's (sorted at load), renormalised; coarse
// levels keep fewer (src/skin/lod_influences.rs). Past 4 a second
// joints/weights pair is read; a model with 4 feeds locations 5 and 6 from
// the first pair, and they are never read.
layout(constant_id = 0) const uint INFLUENCES = 4u;

// Binding 0, rewritten per frame by the CPU-skinning yardstick.
layout(location = 0) in vec3 in_position; // bind pose, model space
layout(location = 1) in vec3 in_normal;
layout(location = 7) in vec4 in_tangent;  // xyz along +u, w handedness
// Binding 1, static.
layout(location = 2) in vec2 in_uv;
layout(location = 3) in uvec4 in_joints0;
layout(location = 4) in vec4 in_weights0; // unorm8, sum 1 with in_weights1
layout(location = 8) in vec4 in_color;    // unorm16, linear: glTF's COLOR_0, or white
// Binding 2 (or 1 again, see INFLUENCES).
layout(location = 5) in uvec4 in_joints1;
layout(location = 6) in vec4 in_weights1;

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
// Per instance drawn as an impostor, its cell and fade (cull.comp): a mesh
// in the band around the switch (IMPOSTOR_BAND) leaves its impostor the
// fade's share of its pixels.
layout(set = 0, binding = 7) readonly buffer ImpostorCells {
    uint impostor_cells[];
};

#include "draw_constants.glsl"
#include "morph.glsl"

// --show-lod: level 0 white, then warm to cold as detail drops.
const vec3 LOD_TINTS[MAX_LODS] = vec3[MAX_LODS](
    vec3(1.0, 1.0, 1.0), vec3(1.0, 0.85, 0.2), vec3(1.0, 0.45, 0.1), vec3(0.9, 0.15, 0.15),
    vec3(0.7, 0.2, 0.8), vec3(0.3, 0.35, 1.0), vec3(0.1, 0.8, 0.9), vec3(0.2, 0.9, 0.3));

layout(location = 0) out vec3 out_normal; // world space
layout(location = 1) out vec2 out_uv;
layout(location = 2) flat out vec3 out_tint;
layout(location = 3) out vec4 out_tangent; // world space xyz, w handedness
layout(location = 4) out vec3 out_world_position;
layout(location = 5) flat out uint out_skin;
layout(location = 6) flat out float out_fade; // the impostor's share of the pixels
// What the vertex colour takes from white, 1 - in_color: a white vertex
// (every md5 one) sends zeros, which interpolate to exactly zero on any
// rasterizer, so material.glsl's base_color stays the map's texel bit for
// bit; white itself, interpolated, could come out a rounding under 1.
layout(location = 7) out vec4 out_color_shortfall;

void main() {
    // Instanced over the visible list that cull.comp compacted.
    uint instance = visible_instances[gl_InstanceIndex];
    uint joints[8] = uint[8](in_joints0.x, in_joints0.y, in_joints0.z, in_joints0.w,
                             in_joints1.x, in_joints1.y, in_joints1.z, in_joints1.w);
    float weights[8] = float[8](in_weights0.x, in_weights0.y, in_weights0.z, in_weights0.w,
                                in_weights1.x, in_weights1.y, in_weights1.z, in_weights1.w);
    // skin::skin_position_by_steps: the kept weights scaled to sum to 1.
    float kept = 0.0;
    for (uint i = 0u; i < INFLUENCES; ++i) {
        kept += weights[i];
    }
    for (uint i = 0u; i < INFLUENCES; ++i) {
        weights[i] /= kept;
    }

    SkinnedPoint bind = SkinnedPoint(in_position, in_normal, in_tangent.xyz);
    if (draw.morphed != 0u && frame.morph_stride != 0u) {
        bind = morphed(bind, instance, uint(gl_VertexIndex));
    }
    SkinnedPoint skinned;
    if (draw.skinning_mode == SKINNING_NONE) {
        skinned = bind;
    } else if (draw.skinning_mode == SKINNING_DUAL_QUATERNION) {
        vec4 pivot = joint_transform(instance, joints[0]).rotation;
        DualQuaternion blend = DualQuaternion(vec4(0.0), vec4(0.0));
        for (uint i = 0u; i < INFLUENCES; ++i) {
            dual_quaternion_add(blend, joint_transform(instance, joints[i]), weights[i], pivot);
        }
        skinned = dual_quaternion_apply(blend, bind);
    } else {
        skinned = SkinnedPoint(vec3(0.0), vec3(0.0), vec3(0.0));
        for (uint i = 0u; i < INFLUENCES; ++i) {
            linear_blend_add(skinned, joint_transform(instance, joints[i]), weights[i], bind);
        }
    }

    CrowdInstance placed = instances[instance];
    vec3 world_position = place_instance(placed, skinned.position);
    mat4 view_projection = draw.view == 0u ? frame.view_projection
                                           : frame.cull_views[draw.view].view_projection;
    gl_Position = view_projection * vec4(world_position, 1.0);
    out_normal = rotate_yaw(placed.placement.w, skinned.normal);
    out_tangent = vec4(rotate_yaw(placed.placement.w, skinned.tangent), in_tangent.w);
    out_world_position = world_position;
    out_uv = in_uv;
    out_color_shortfall = 1.0 - in_color;
    uint lod = min(uint(gl_InstanceIndex) / max(draw.instance_count, 1u), MAX_LODS - 1u);
    out_tint = draw.show_lod != 0u ? LOD_TINTS[lod] : placed.tint;
    out_skin = placed.skin;
    bool band = (pose_sources[instance] & IMPOSTOR_BAND) != 0u;
    out_fade = band ? float(impostor_cells[instance] >> IMPOSTOR_FADE_SHIFT) / float(IMPOSTOR_FADE_FULL) : 0.0;
}
