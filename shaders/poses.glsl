// Where a drawn instance's skinning transforms are, as cull.comp decided:
// its own rows of SkinningTransforms (a palette row animate.comp wrote, or
// with CPU animation the rows of its index, uploaded), or, with animation
// level of detail, a pose shared by every distant instance playing the same
// clip at the same moment (computed once, at load). Set 0 of the draws.
#ifndef POSES_GLSL
#define POSES_GLSL

#include "skinning.glsl"

layout(set = 0, binding = 0) readonly buffer SkinningTransforms {
    // A row per joint: an instance's joint j at its pose source + j.
    SkinningTransform skinning_transforms[];
};
// Per instance: the first of its joints' transforms, in SkinningTransforms,
// or (with SHARED_POSE set) in SharedPoses; IMPOSTOR_BAND set, it is drawn
// as an impostor too.
layout(set = 0, binding = 4) readonly buffer PoseSources {
    uint pose_sources[];
};
layout(set = 0, binding = 5) readonly buffer SharedPoses {
    SkinningTransform shared_poses[];
};

SkinningTransform joint_transform(uint instance, uint joint) {
    // IMPOSTOR_BAND says how the mesh is drawn, not where its pose is.
    uint source = pose_sources[instance] & ~IMPOSTOR_BAND;
    if ((source & SHARED_POSE) != 0u) {
        return shared_poses[(source & ~SHARED_POSE) + joint];
    }
    return skinning_transforms[source + joint];
}

#endif
