#version 450
// Turns cull.comp's per-model, per-level counts into the indirect draws:
// for every mesh and level, instanceCount = its model's count at the level
// and firstInstance = the start of the model's part of the level's region of
// the visible lists; then the skeleton overlay's draws, one per model and
// level. With occlusion culling the early phase's draws cover what the
// early cull appended, and the late phase's (a second set of commands) what
// the late cull appended after them; each shadow cascade has a set of its
// own. One small workgroup: the commands are few.

#include "crowd_compute.glsl"

layout(local_size_x = 64) in;

// Instances one workgroup of the animate kernel poses
// (passes::animate::Kernel::instances_per_workgroup): animate.comp's
// workgroup size, or one for animate_joints.comp.
layout(constant_id = 0) const uint ANIMATE_INSTANCES_PER_WORKGROUP = 1u;

layout(set = 0, binding = 6) buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};
// Laid out as constants.draw_commands says (crowd_compute.glsl).
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
    DrawCommandLayout commands = constants.draw_commands;
    uint lods = constants.lod_count;
    bool late = constants.phase == PHASE_LATE;
    bool shadow = constants.phase == PHASE_SHADOW;
    uint first_command = constants.command_set * commands.per_phase;
    // The impostors' draws, one VkDrawIndirectCommand per model, its
    // instances from its first slot of the impostor list.
    for (uint model = gl_LocalInvocationID.x; model < constants.model_count; model += gl_WorkGroupSize.x) {
        uint before = late ? early_impostor_counts[model] : 0u;
        uint word = (first_command + commands.first_impostor + model) * DRAW_COMMAND_WORDS;
        draw_words[word + INSTANCE_COUNT_WORD] = impostor_counts[model] - before;
        draw_words[word + FIRST_INSTANCE_WORD] =
            lods * constants.instance_count + models[model].first_instance + before;
    }
    // The meshes' indexed draws and the overlay's draws, a command per level.
    for (uint command = gl_LocalInvocationID.x; command < commands.first_impostor; command += gl_WorkGroupSize.x) {
        uint lod = command % lods;
        bool mesh = command < commands.first_overlay;
        uint model = mesh ? model_of_draw(command / lods) : (command - commands.first_overlay) / lods;
        uint counter = model * MAX_LODS + lod;
        uint before = late ? early_counts[counter] : 0u;
        uint word = (first_command + command) * DRAW_COMMAND_WORDS;
        draw_words[word + INSTANCE_COUNT_WORD] = lod_counts[counter] - before;
        draw_words[word + (mesh ? INDEXED_FIRST_INSTANCE_WORD : FIRST_INSTANCE_WORD)] =
            lod * constants.instance_count + models[model].first_instance + before;
    }
    if (gl_LocalInvocationID.x == 0u && !shadow) {
        // The instances this phase posed (animate.glsl's posed_instance_at);
        // CPU animation dispatches no animate pass.
        uint posed = posed_count - (late ? early_posed_count : 0u);
        uint word = commands.first_dispatch_word + (late ? DISPATCH_COMMAND_WORDS : 0u);
        draw_words[word] = (posed + ANIMATE_INSTANCES_PER_WORKGROUP - 1u)
            / ANIMATE_INSTANCES_PER_WORKGROUP;
        draw_words[word + 1u] = 1u;
        draw_words[word + 2u] = 1u;
    }
    // Every invocation has read the counts before the early ones are kept.
    barrier();
    if (!late && !shadow) {
        for (uint counter = gl_LocalInvocationID.x; counter < MAX_MODELS * MAX_LODS; counter += gl_WorkGroupSize.x) {
            early_counts[counter] = lod_counts[counter];
        }
        for (uint model = gl_LocalInvocationID.x; model < MAX_MODELS; model += gl_WorkGroupSize.x) {
            early_impostor_counts[model] = impostor_counts[model];
        }
        if (gl_LocalInvocationID.x == 0u) {
            early_posed_count = posed_count;
        }
    }
}
