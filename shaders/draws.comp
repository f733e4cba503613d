#version 450
// Turns cull.comp's per-model, per-level counts into the indirect draws:
// for every mesh and level, instanceCount = its model's count at the level
// and firstInstance = the start of the model's part of the level's region of
// the visible lists; then the skeleton overlay's draws, one per model and
// level. With occlusion culling the early phase's draws cover what the
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
// words) per mesh and level, mesh-major (every model's meshes, model after
// model), then the skeleton overlay's VkDrawIndirectCommand (4 words,
// padded to 5) per model and level, then the impostors' per model. After both phases' commands, a
// VkDispatchIndirectCommand per phase (padded to 4 words): animate.comp's
// workgroups, enough for the instances the phase gave palette rows.
layout(set = 0, binding = 7) buffer DrawCommands {
    uint draw_words[];
};

// Which model draw `draw` (one of its meshes) belongs to.
uint model_of_draw(uint draw) {
    uint model = 0u;
    while (model + 1u < constants.model_count && models[model + 1u].first_draw <= draw) {
        ++model;
    }
    return model;
}

void main() {
    uint lods = constants.lod_count;
    uint mesh_commands = constants.mesh_count * lods;
    uint level_commands = mesh_commands + constants.model_count * lods;
    uint per_phase = level_commands + constants.model_count;
    bool late = constants.phase == PHASE_LATE;
    // The impostors' draws, one VkDrawIndirectCommand per model (padded to
    // 5 words), its instances from its first slot of the impostor list.
    for (uint model = gl_LocalInvocationID.x; model < constants.model_count; model += 64u) {
        uint before = late ? early_impostor_counts[model] : 0u;
        uint word = ((late ? per_phase : 0u) + level_commands + model) * 5u;
        draw_words[word + 1u] = impostor_counts[model] - before;
        draw_words[word + 3u] = lods * constants.instance_count + models[model].first_instance + before;
    }
    for (uint command = gl_LocalInvocationID.x; command < level_commands; command += 64u) {
        uint lod = command % lods;
        bool mesh = command < mesh_commands;
        uint model = mesh ? model_of_draw(command / lods) : (command - mesh_commands) / lods;
        uint counter = model * MAX_LODS + lod;
        uint before = late ? early_counts[counter] : 0u;
        uint word = ((late ? per_phase : 0u) + command) * 5u;
        draw_words[word + 1u] = lod_counts[counter] - before;
        // firstInstance is word 4 of an indexed command, word 3 of the overlay's.
        draw_words[word + (mesh ? 4u : 3u)] =
            lod * constants.instance_count + models[model].first_instance + before;
    }
    if (gl_LocalInvocationID.x == 0u) {
        // The instances this phase posed (animate.glsl's posed_instance_at);
        // CPU animation dispatches no animate pass.
        uint posed = posed_count - (late ? early_posed_count : 0u);
        uint word = 2u * per_phase * 5u + (late ? 4u : 0u);
        draw_words[word] = (posed + ANIMATE_INSTANCES_PER_WORKGROUP - 1u)
            / ANIMATE_INSTANCES_PER_WORKGROUP;
        draw_words[word + 1u] = 1u;
        draw_words[word + 2u] = 1u;
    }
    // Every invocation has read the counts before the early ones are kept.
    barrier();
    if (!late) {
        for (uint counter = gl_LocalInvocationID.x; counter < MAX_MODELS * MAX_LODS; counter += 64u) {
            early_counts[counter] = lod_counts[counter];
        }
        for (uint model = gl_LocalInvocationID.x; model < MAX_MODELS; model += 64u) {
            early_impostor_counts[model] = impostor_counts[model];
        }
        if (gl_LocalInvocationID.x == 0u) {
            early_posed_count = posed_count;
        }
    }
}
