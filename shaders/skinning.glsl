// Skinning with rigid joint transforms (rotation + translation, no scale:
// md5 joints have none). Two blends of the same influences:
// - linear blend skinning (LBS): blend the transformed points. Cheap; joints
//   that twist collapse the skin ("candy wrapper").
// - dual quaternion skinning (DQS): blend the transforms as unit dual
//   quaternions, then transform once. Keeps volume at twisting joints.
#ifndef SKINNING_GLSL
#define SKINNING_GLSL

#include "quaternion.glsl"

// Twin of Rust's anim::SkinningTransform: model-space pose times inverse bind
// pose. A bind-pose point p lands at quat_rotate(rotation, p) + translation.xyz.
struct SkinningTransform {
    vec4 rotation;    // unit quaternion
    vec4 translation; // xyz, w unused
};

// SHARED_POSE (pose sources), SKINNING_LINEAR, _DUAL_QUATERNION and _NONE.
#include "shared_constants.glsl"

// A vertex's surface: its point and the directions normal mapping needs.
// Directions turn with the joints' rotations and ignore translations.
struct SkinnedPoint {
    vec3 position;
    vec3 normal;
    vec3 tangent; // along +u; the handedness (crowd.vert's in_tangent.w) is unchanged
};

SkinnedPoint rigid_transform(vec4 rotation, vec3 translation, SkinnedPoint bind) {
    return SkinnedPoint(quat_rotate(rotation, bind.position) + translation,
                        quat_rotate(rotation, bind.normal),
                        quat_rotate(rotation, bind.tangent));
}

// LBS, one influence at a time; start from a SkinnedPoint of zeros.
void linear_blend_add(inout SkinnedPoint sum, SkinningTransform t, float weight, SkinnedPoint bind) {
    SkinnedPoint moved = rigid_transform(t.rotation, t.translation.xyz, bind);
    sum.position += weight * moved.position;
    sum.normal += weight * moved.normal;
    sum.tangent += weight * moved.tangent;
}

// real = rotation, dual = 0.5 * translation * rotation (translation as a pure
// quaternion): the rigid transform "rotate, then translate".
struct DualQuaternion {
    vec4 real;
    vec4 dual;
};

DualQuaternion dual_quaternion(SkinningTransform t) {
    return DualQuaternion(t.rotation, 0.5 * quat_mul(vec4(t.translation.xyz, 0.0), t.rotation));
}

// q and -q are the same rotation, but blending across hemispheres takes the
// long way round (or cancels out). Every influence is flipped to the
// hemisphere of `pivot`, the first influence's rotation.
void dual_quaternion_add(inout DualQuaternion sum, SkinningTransform t, float weight, vec4 pivot) {
    DualQuaternion q = dual_quaternion(t);
    float signed_weight = dot(q.real, pivot) < 0.0 ? -weight : weight;
    sum.real += signed_weight * q.real;
    sum.dual += signed_weight * q.dual;
}

// Normalises the blend (its real part is a unit quaternion only before
// blending) and applies it.
SkinnedPoint dual_quaternion_apply(DualQuaternion blend, SkinnedPoint bind) {
    float len = length(blend.real);
    vec4 real = blend.real / len;
    vec4 dual = blend.dual / len;
    // translation = 2 * dual * conjugate(real), vector part.
    vec3 translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
    return rigid_transform(real, translation, bind);
}

#endif
