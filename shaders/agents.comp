#version 450
// Locomotion, one invocation per instance: moves the agent along its lane
// to where it is at frame.time, faces it the way it walks, and picks the
// clip its speed calls for, played so its feet cover the ground it does.
// A moving clip's time follows the distance walked through its distance
// curve, so a planted foot stays put whatever speed the clip slides it at.
// Writes the placement cull.comp, animate.comp and the vertex shaders read,
// and the frame slot's instance animation. The state is a closed form of
// time, so nothing is carried from frame to frame. CPU reference:
// src/crowd/agents.rs (each function here names its twin).
//
// RETURN_HOME: instead, puts everyone back where they stand without
// locomotion (once, when it is switched off).

#include "crowd_compute.glsl"

layout(local_size_x = 64) in;

layout(constant_id = 0) const bool RETURN_HOME = false;

// MAX_GAITS, PROFILE_SEGMENTS, MAX_GAIT_SWITCHES, PROFILE_PERIOD and
// DISTANCE_CURVE_SAMPLES come from shared_constants.glsl.

// Twin of Rust's gpu::shader_types::GpuSpeedSegment (agents::SpeedSegment).
struct SpeedSegment {
    float start_time;      // seconds into the period
    float start_distance;  // walked from the period's start to start_time
    float start_speed;
    float acceleration;
};

// Twin of Rust's gpu::shader_types::GpuGaitSwitch (agents::GaitSwitch).
struct GaitSwitch {
    float time;            // seconds into the period
    uint from_gait;
    uint to_gait;
    uint padding;
};

// Twin of Rust's gpu::shader_types::GpuLocomotionTable (agents::LocomotionTable).
struct LocomotionTable {
    uvec4 gait_clips;      // slowest first; an idle clip (speed 0) leads
    vec4 gait_speeds;      // ground speed, model units per second
    vec4 gait_headings;    // direction of travel in model space, radians from +X
    vec4 gait_strides;     // ground the feet cover in a cycle (anim::DistanceCurve)
    SpeedSegment segments[PROFILE_SEGMENTS];
    GaitSwitch switches[MAX_GAIT_SWITCHES];
    uint gait_count;
    uint switch_count;
    float period_distance; // walked in one period
    float padding;
    // Per gait (anim::DistanceCurve::times): the clip time by which its
    // feet have covered each share of the stride, both ends included; the
    // last is the clip's duration.
    float gait_curves[MAX_GAITS][DISTANCE_CURVE_SAMPLES + 1u];
};

// Twin of Rust's gpu::shader_types::GpuAgentLane (agents::AgentLane).
struct AgentLane {
    vec4 home;             // xyz, w yaw: the placement without locomotion
    vec2 centre;
    float radius;
    float start_angle;     // where the agent is at its clock's 0
    float direction;       // +1 counter-clockwise, -1 clockwise
    float time_offset;     // where in the profile the lane's clock starts
    float phase;           // seeded clip phase, seconds
    float padding;
};

layout(set = 0, binding = 1) buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) buffer InstanceAnimations {
    InstanceAnimation instance_animations[];
};
layout(set = 0, binding = 11) readonly buffer AgentLanes {
    // One per model (CrowdModel), its gaits' clips counted as clips[] does.
    LocomotionTable locomotion[MAX_MODELS];
    AgentLane lanes[];
};

// LocomotionTable::walked: distance walked and speed at the lane's clock.
vec2 walked(uint model, float local_time) {
    float cycles = floor(local_time / PROFILE_PERIOD);
    float in_period = local_time - cycles * PROFILE_PERIOD;
    uint s = 0u;
    for (uint i = PROFILE_SEGMENTS; i > 0u; --i) {
        if (locomotion[model].segments[i - 1u].start_time <= in_period) {
            s = i - 1u;
            break;
        }
    }
    SpeedSegment segment = locomotion[model].segments[s];
    float since = in_period - segment.start_time;
    float speed = segment.start_speed + segment.acceleration * since;
    float distance = cycles * locomotion[model].period_distance + segment.start_distance
                     + since * (segment.start_speed + 0.5 * segment.acceleration * since);
    return vec2(distance, speed);
}

// LocomotionTable::last_switch: the gait playing, the one before it, and
// when the switch was (lane clock).
struct Switched {
    uint gait;
    uint previous_gait;
    float time;
};

Switched last_switch(uint model, float local_time) {
    if (locomotion[model].switch_count == 0u) {
        return Switched(0u, 0u, 0.0);
    }
    float cycles = floor(local_time / PROFILE_PERIOD);
    float in_period = local_time - cycles * PROFILE_PERIOD;
    for (uint i = locomotion[model].switch_count; i > 0u; --i) {
        GaitSwitch s = locomotion[model].switches[i - 1u];
        if (s.time <= in_period) {
            return Switched(s.to_gait, s.from_gait, cycles * PROFILE_PERIOD + s.time);
        }
    }
    GaitSwitch s = locomotion[model].switches[locomotion[model].switch_count - 1u];
    return Switched(s.to_gait, s.from_gait, (cycles - 1.0) * PROFILE_PERIOD + s.time);
}

// DistanceCurve::clip_time: the clip time by which gait g's feet have
// covered `distance` from the clip's start.
float matched_time(uint model, uint g, float distance) {
    float duration = locomotion[model].gait_curves[g][DISTANCE_CURVE_SAMPLES];
    float strides = distance / locomotion[model].gait_strides[g];
    float cycles = floor(strides);
    float at = (strides - cycles) * float(DISTANCE_CURVE_SAMPLES);
    // `at` can round up to the last sample: the table's last piece.
    uint i = min(uint(at), DISTANCE_CURVE_SAMPLES - 1u);
    float t0 = locomotion[model].gait_curves[g][i];
    float t1 = locomotion[model].gait_curves[g][i + 1u];
    return cycles * duration + t0 + (t1 - t0) * (at - float(i));
}

// The clip time that keeps gait g's feet on the ground (agent_state's
// clip_time): the seeded phase is a head start in the clip's seconds.
float clip_time(uint model, uint g, float distance, float time, float phase) {
    float speed = locomotion[model].gait_speeds[g];
    return speed > 0.0 ? matched_time(model, g, distance + phase * speed) : time + phase;
}

void main() {
    uint id = gl_GlobalInvocationID.x;
    if (id >= constants.instance_count) {
        return;
    }
    AgentLane lane = lanes[id];
    if (RETURN_HOME) {
        instances[id].placement = lane.home;
        return;
    }
    uint model = instances[id].model;
    // A model without a walk cycle stands where it was put.
    if (locomotion[model].gait_count == 0u) {
        return;
    }
    float time = frame.time;
    float local_time = time + lane.time_offset;
    vec2 walk = walked(model, local_time);
    float distance = walk.x;
    float circumference = 6.28318530718 * lane.radius;
    float around = distance - circumference * floor(distance / circumference);
    float angle = lane.start_angle + lane.direction * (around / lane.radius);
    float heading = angle + lane.direction * 1.57079632679;
    Switched switched = last_switch(model, local_time);
    float phase = clip_time(model, switched.gait, distance, time, lane.phase);
    float previous_phase = clip_time(model, switched.previous_gait, distance, time, lane.phase);
    uint clip = locomotion[model].gait_clips[switched.gait];
    uint previous_clip = locomotion[model].gait_clips[switched.previous_gait];

    vec3 position = vec3(lane.centre + lane.radius * vec2(cos(angle), sin(angle)), 0.0);
    instances[id].placement = vec4(position, heading - locomotion[model].gait_headings[switched.gait]);
    instance_animations[id] = InstanceAnimation(clip, previous_clip, previous_clip,
                                                switched.time - lane.time_offset, phase,
                                                previous_phase, previous_phase, 1.0, 0.0,
                                                uint[3](0u, 0u, 0u));
}
