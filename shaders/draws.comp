#version 450
// Turns cull.comp's per-level counts into the indirect draws: for every mesh
// and level, instanceCount = the level's count and firstInstance = the start
// of its region of the visible lists; then the skeleton overlay's draws, one
// per level. With occlusion culling the early phase's draws cover what the
// early cull appended, and the late phase's (a second set of commands) what
// the late cull appended after them. One small workgroup: the commands are few.

#include "crowd_compute.glsl"

layout(local_size_x = 64) in;

// Which animate kernel the dispatch is for (passes::draws::create_draws):
// animate.comp poses ANIMATE_WORKGROUP_SIZE instances a workgroup,
// animate_joints.comp one.
layout(constant_id = 0) const bool ANIMATE_WORKGROUP_PER_INSTANCE = false;
const uint ANIMATE_INSTANCES_PER_WORKGROUP = ANIMATE_WORKGROUP_PER_INSTANCE ? 1u : ANIMATE_WORKGROUP_SIZE;

layout(set = 0, binding = 6) buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};
// Per phase (early or all, then late): a VkDrawIndexedIndirectCommand (5
// words) per mesh and level, mesh-major, then the skeleton overlay's
// VkDrawIndirectCommand (4 words, padded to 5) per level. After both
// phases' commands, a VkDispatchIndirectCommand per phase (padded to 4
// words): animate.comp's workgroups, enough for the palette rows the phase
// handed out.
layout(set = 0, binding = 7) buffer DrawCommands {
    uint draw_words[];
};

void main() {
    uint lods = constants.lod_count;
    uint mesh_commands = constants.mesh_count * lods;
    uint per_phase = mesh_commands + lods;
    bool late = constants.phase == PHASE_LATE;
    for (uint command = gl_LocalInvocationID.x; command < per_phase; command += 64u) {
        uint lod = command % lods;
        uint before = late ? early_counts[lod] : 0u;
        uint word = ((late ? per_phase : 0u) + command) * 5u;
        draw_words[word + 1u] = lod_counts[lod] - before;
        // firstInstance is word 4 of an indexed command, word 3 of the overlay's.
        draw_words[word + (command < mesh_commands ? 4u : 3u)] = lod * constants.instance_count + before;
    }
    if (gl_LocalInvocationID.x == 0u) {
        // The palette rows this phase handed out (animate.glsl's
        // posed_instance_at); CPU animation dispatches no animate pass.
        uint rows = min(palette_rows_wanted, constants.palette_rows);
        uint posed = rows - (late ? min(early_rows_wanted, constants.palette_rows) : 0u);
        uint word = 2u * per_phase * 5u + (late ? 4u : 0u);
        draw_words[word] = (posed + ANIMATE_INSTANCES_PER_WORKGROUP - 1u)
            / ANIMATE_INSTANCES_PER_WORKGROUP;
        draw_words[word + 1u] = 1u;
        draw_words[word + 2u] = 1u;
    }
    // Every invocation has read the counts before the early ones are kept.
    barrier();
    if (!late && gl_LocalInvocationID.x < lods) {
        early_counts[gl_LocalInvocationID.x] = lod_counts[gl_LocalInvocationID.x];
    }
    if (!late && gl_LocalInvocationID.x == 0u) {
        early_rows_wanted = palette_rows_wanted;
    }
}
