#version 450
// Culling and level-of-detail choice, one invocation per instance: keeps
// the instances whose bounding sphere is not entirely outside a frustum
// plane (and, in the late phase of occlusion culling, not hidden behind the
// depth pyramid), picks the coarsest level whose error projects to at most
// lod_params.y pixels, and appends the instance to that level's visible
// list (its model's region of it): one atomic per visible instance. Past
// the chain, when its impostor atlas resolves it, it goes to the impostor
// list instead, with its atlas cell as its pose source. It also says where each drawn
// instance's skinning transforms are (its pose source): a shared pose, or
// with GPU animation a row of the skinning palette it hands out, one more
// atomic, writing the instance at that row of the posed list, which the
// animate pass runs over. draws.comp turns the counts into indirect draws.
// Each dispatch judges by one view (frame.cull_views[constants.view]): the
// camera's, or in the shadow phase a sun cascade's, which keeps casters
// into its own lists in the poses the camera's first cull gave them
// (docs/shadows.md).
// CPU references: src/crowd/cull.rs, src/crowd/occlusion.rs,
// src/crowd/anim_lod.rs, src/crowd/impostor.rs.

#include "crowd_compute.glsl"
#include "impostor.glsl"
#include "pyramid.glsl"

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
// Per frame of every clip and body part, the box around the part posed
// anywhere between that frame and the next, as min, max: part p of frame f
// of a clip at first_bounds + f * part_count + p, part_count its model's
// (Model::part_bounds).
struct FrameBounds {
    vec4 min;
    vec4 max;
};
layout(set = 0, binding = 12) readonly buffer ClipFrameBounds {
    FrameBounds frame_bounds[];
};
layout(set = 0, binding = 6) buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};

// Per instance, 1 when it was visible at the end of the last frame: the
// early phase draws those, the late phase rewrites them.
layout(set = 0, binding = 9) buffer Visibility {
    uint visible_last_frame[];
};
// Per instance, where its skinning transforms are (see poses.glsl); with
// GPU animation written for the instances drawn this frame only.
layout(set = 0, binding = 10) buffer PoseSources {
    uint pose_sources[];
};
// Per clip of the clip table, the slot of its model's atlas it is baked
// in, or IMPOSTOR_UNBAKED (crowd::AtlasSlots::table).
layout(set = 0, binding = 14) readonly buffer ImpostorSlots {
    uint impostor_slots[];
};
// Per clip of the clip table, nonzero when an instance wanted it as an
// impostor this frame: read back, so the CPU bakes what is wanted and
// keeps what is in use (crowd::AtlasSlots::want).
layout(set = 0, binding = 15) buffer ImpostorRequests {
    uint impostor_requests[];
};
// Per instance drawn as an impostor: its cell, and its fade from
// IMPOSTOR_FADE_SHIFT up (impostor.vert; crowd.vert for the band's meshes).
layout(set = 0, binding = 16) writeonly buffer ImpostorCells {
    uint impostor_cells[];
};
// The camera's pose sources, which a shadow cascade's cull reads (its own
// go to PoseSources): a caster the camera drew casts in the same pose.
layout(set = 0, binding = 17) readonly buffer CameraPoseSources {
    uint camera_pose_sources[];
};
layout(set = 1, binding = 1) readonly buffer DepthPyramid {
    PYRAMID_BLOCK
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

// CullView::clip_w: a world-space point's distance in front of a
// perspective's eye, 1 in an orthographic view.
float cull_w(CullView view, vec3 point) {
    mat4 m = view.view_projection;
    return dot(vec4(point, 1.0), vec4(m[0].w, m[1].w, m[2].w, m[3].w));
}

// CullView::nearest: what a level's error is divided by, seen at the
// sphere's nearest point; 0 when the sphere reaches a perspective's near
// plane.
float nearest_w(CullView view, vec3 centre, float radius) {
    if (view.orthographic != 0u) {
        return 1.0;
    }
    float nearest = cull_w(view, centre) - radius;
    return nearest > view.lod_params.z ? nearest : 0.0;
}

// cull::select_lod: the coarsest level whose error, seen at the sphere's
// nearest point, stays within the threshold. A sphere reaching the near
// plane gets level 0.
uint select_lod(CullView view, vec3 centre, float radius, CrowdModel model) {
    float nearest = nearest_w(view, centre, radius);
    if (nearest <= 0.0) {
        return 0u;
    }
    uint lod = 0u;
    for (uint level = 1u; level < model.lod_count; ++level) {
        float error = model.lod_errors[level / 4u][level % 4u];
        if (error * view.lod_params.x > view.lod_params.y * nearest) {
            break;
        }
        lod = level;
    }
    return lod;
}

// impostor::impostor_fade: past the chain, the impostor, where its atlas's
// error (ImpostorLayout::error) projects to the threshold; across the band
// around that distance, faded in from 0 (a mesh alone) to IMPOSTOR_FADE_FULL (an
// impostor alone).
uint impostor_fade(CullView view, vec3 centre, float radius, CrowdModel model) {
    float error = IMPOSTOR_ERROR_TEXELS * 2.0 * model.impostor_sphere.w / float(IMPOSTOR_CELL_TEXELS);
    float nearest = nearest_w(view, centre, radius);
    if (constants.impostors == 0u || error <= 0.0 || nearest <= 0.0 || view.lod_params.y <= 0.0) {
        return 0u;
    }
    float switch_distance = error * view.lod_params.x / view.lod_params.y;
    float share = (nearest / switch_distance - (1.0 - IMPOSTOR_BAND_WIDTH)) / (2.0 * IMPOSTOR_BAND_WIDTH);
    return uint(clamp(share, 0.0, 1.0) * float(IMPOSTOR_FADE_FULL) + 0.5);
}

// impostor::dominant_clip: mid-crossfade, whichever clip weighs more.
bool shows_current_clip(InstanceAnimation animation) {
    return crossfade_weight(animation, frame.time, frame.blend_time) >= 0.5;
}

// impostor::impostor_cell: the view nearest the direction from the image's
// centre to the cull view's eye, in the instance's frame, and the frame
// nearest its dominant clip's time, in the rows of the slot `slot` that
// clip is baked in.
uint impostor_cell(CullView view, CrowdInstance placed, InstanceAnimation animation,
                   CrowdModel model, uint slot) {
    vec3 centre = place_instance(placed, model.impostor_sphere.xyz);
    vec3 to_eye = rotate_yaw(-placed.placement.w, view.eye.xyz - centre * view.eye.w);
    bool current = shows_current_clip(animation);
    uint clip = current ? animation.clip : animation.previous_clip;
    float phase = current ? animation.phase : animation.previous_phase;
    uint shown = impostor_frame(clips[clip], frame.time * animation.rate + phase,
                                IMPOSTOR_FRAMES_PER_CLIP);
    uint row = slot * IMPOSTOR_FRAMES_PER_CLIP + shown;
    return row * IMPOSTOR_VIEWS + impostor_view(to_eye);
}

// occlusion::DepthPyramid::is_occluded: even the box's nearest corner is
// farther than the farthest depth drawn in the screen rectangle its corners
// span. A box reaching the near plane is never occluded. Perspective
// views only: the camera's is the one with a depth pyramid.
bool occluded(CullView view, vec3 bounds_min, vec3 bounds_max, CrowdInstance placed) {
    float near = view.lod_params.z;
    vec2 low = vec2(3.0e38);
    vec2 high = vec2(-3.0e38);
    float nearest_w = 3.0e38;
    for (uint i = 0u; i < 8u; ++i) {
        vec3 corner = vec3((i & 1u) != 0u ? bounds_max.x : bounds_min.x,
                           (i & 2u) != 0u ? bounds_max.y : bounds_min.y,
                           (i & 4u) != 0u ? bounds_max.z : bounds_min.z);
        vec4 clip = view.view_projection * vec4(place_instance(placed, corner), 1.0);
        if (clip.w <= near) {
            return false;
        }
        low = min(low, clip.xy / clip.w);
        high = max(high, clip.xy / clip.w);
        nearest_w = min(nearest_w, clip.w);
    }
    vec2 size = view.viewport_size;
    low = max((low * 0.5 + 0.5) * size, vec2(0.0));
    high = min((high * 0.5 + 0.5) * size, size);
    // Its sphere met the frustum, but the box is off screen.
    if (high.x <= low.x || high.y <= low.y) {
        return true;
    }
    float extent = max(max(high.x - low.x, high.y - low.y), 1.0);
    int last_level = 0;
    while (last_level + 1 < int(MAX_PYRAMID_LEVELS) && pyramid_levels[last_level + 1].x != 0u) {
        ++last_level;
    }
    // The level where the rectangle spans 16 to 32 texels: fine enough to
    // find the gaps between characters, and a visible box stops at the
    // first texel drawn behind it (so only hidden ones read them all).
    int level = clamp(int(ceil(log2(extent))) - OCCLUSION_TEXELS_LOG2, 0, last_level);
    uvec4 this_level = pyramid_levels[level];
    uint shift = uint(level) + 1u;
    uvec2 last_texel = this_level.xy - 1u;
    uvec2 first = min(uvec2(low) >> shift, last_texel);
    uvec2 last = min(uvec2(high) >> shift, last_texel);
    // The depth of the box's nearest corner (reverse Z: near / w).
    float box_depth = near / nearest_w;
    for (uint y = first.y; y <= last.y; ++y) {
        for (uint x = first.x; x <= last.x; ++x) {
            if (pyramid_texel(level, ivec2(x, y)) <= box_depth) {
                return false;
            }
        }
    }
    return true;
}

// The pose animation level of detail shares among the instances playing
// `animation`'s clip at this moment (crowd::shared_pose), as a pose source.
uint shared_pose(InstanceAnimation animation, CrowdModel model) {
    ClipInfo clip = clips[animation.clip];
    float clip_time = frame.time * animation.rate + animation.phase;
    return SHARED_POSE
        | (clip.shared_first + shared_pose_index(clip, clip_time) * model.joint_count);
}

// GPU animation: where the transforms of an instance this phase draws (or
// a shadow cascade will cast) are. A model without clips stands in its
// bind pose, its one shared pose; a distant instance not crossfading shows
// its clip's shared pose (animation level of detail), unless it plays
// layers (`layered`, read once by main) or its model has morph targets
// (whose weights the animate pass writes per posed instance): no shared
// pose has those. Any other gets the
// next rows of the skinning palette, one per joint of its model, so the
// palette grows with what is drawn and casts, not with the crowd. Past the
// palette's rows it shows the shared pose after all, and the count it
// leaves tells the CPU how many rows the frame wanted.
uint drawn_pose_source(CullView view, uint instance, InstanceAnimation animation,
                       CrowdModel model, vec3 centre, float radius, bool layered) {
    if (model.clip_count == 0u) {
        return SHARED_POSE | clips[animation.clip].shared_first;
    }
    bool own_pose = layered || clips[animation.clip].first_morph_row != MORPH_NONE;
    if (view.lod_params.w > 0.0 && !own_pose
        && crossfade_weight(animation, frame.time, frame.blend_time) >= 1.0
        && nearest_w(view, centre, radius) > 0.0
        && radius * view.lod_params.x <= view.lod_params.w * cull_w(view, centre)) {
        return shared_pose(animation, model);
    }
    uint first = atomicAdd(palette_rows_wanted, model.joint_count);
    if (first + model.joint_count > constants.palette_rows) {
        return shared_pose(animation, model);
    }
    posed_instance(atomicAdd(posed_count, 1u)) = instance;
    return first;
}

// cull::Frustum::intersects_sphere.
bool meets_frustum(CullView view, vec3 centre, float radius) {
    for (uint i = 0u; i < 6u; ++i) {
        vec4 plane = view.frustum_planes[i];
        if (dot(plane.xyz, centre) + plane.w < -radius) {
            return false;
        }
    }
    return true;
}

// impostor::shadow_impostor_slot: where a shadow caster's impostor is
// baked when the camera shows it past the switch (IMPOSTOR_UNBAKED: it
// casts as a mesh).
uint shadow_impostor_slot(InstanceAnimation animation, CrowdModel model, vec3 centre, float radius) {
    if (impostor_fade(frame.cull_views[0], centre, radius, model) < IMPOSTOR_FADE_SWITCH) {
        return IMPOSTOR_UNBAKED;
    }
    uint clip = shows_current_clip(animation) ? animation.clip : animation.previous_clip;
    return impostor_slots[clip];
}

// Whether a shadow cascade will keep the instance as a mesh caster this
// frame, which then needs a pose from the camera's cull whether the camera
// draws it or not (crowd::caster_pose): the tests the cascades' own culls
// make, on the same views.
bool casts_as_mesh(InstanceAnimation animation, CrowdModel model, vec3 centre, float radius) {
    bool kept = false;
    for (uint c = 0u; c < frame.shadow_params.x && !kept; ++c) {
        kept = meets_frustum(frame.cull_views[c + 1u], centre, radius);
    }
    return kept && shadow_impostor_slot(animation, model, centre, radius) == IMPOSTOR_UNBAKED;
}

void main() {
    uint instance = gl_GlobalInvocationID.x;
    if (instance >= constants.instance_count) {
        return;
    }
    CullView view = frame.cull_views[constants.view];
    // cull::instance_sphere: every clip the instance's pose can come from.
    // Without clips, clips[0] holds the bind pose's sphere.
    InstanceAnimation animation = instance_animations[instance];
    bool switched = animation.previous_clip != animation.clip;
    CrowdInstance placed = instances[instance];
    CrowdModel model = models[placed.model];
    // Layers mix clips joint by joint: such a pose stays within the
    // model's layered radius round its origin, not within a clip's bounds.
    bool layered = plays_layers(instance);
    vec4 sphere = clips[animation.clip].bounding_sphere;
    if (layered) {
        sphere = vec4(0.0, 0.0, 0.0, model.impostor_half_size.w);
    } else if (switched) {
        sphere = sphere_union(sphere, clips[animation.previous_clip].bounding_sphere);
        sphere = sphere_union(sphere, clips[animation.older_clip].bounding_sphere);
    }
    vec3 centre = place_instance(placed, sphere.xyz);
    // CPU animation poses every instance at its own rows, and CPU skinning
    // draws every instance, culled or not.
    bool per_instance = constants.palette_rows == PALETTE_PER_INSTANCE;
    if (per_instance) {
        pose_sources[instance] = model.first_transform
            + (instance - model.first_instance) * model.joint_count;
    }

    // The camera's first (or only) phase poses every mesh caster of the
    // frame's cascades: those it draws as it draws them, the others as it
    // would have (a palette row, or its clip's shared pose far away), so a
    // shadow has its character's exact pose whether the camera shows it,
    // hides it or looks away; occlusion culling changes no shadow.
    bool poses_casters = !per_instance
        && (constants.phase == PHASE_ALL || constants.phase == PHASE_EARLY);
    if (!meets_frustum(view, centre, sphere.w)) {
        if (constants.phase == PHASE_ALL || constants.phase == PHASE_LATE) {
            visible_last_frame[instance] = 0u;
        }
        if (poses_casters && casts_as_mesh(animation, model, centre, sphere.w)) {
            pose_sources[instance] = drawn_pose_source(view, instance, animation, model, centre, sphere.w, layered);
        }
        return;
    }
    // A shadow caster, with no occlusion and no history. Past the camera's
    // impostor switch, with its clip baked, it casts as the camera shows
    // it: from its atlas, the cell that faces the sun; else as a mesh, at
    // the level its cascade's texel size asks for.
    if (constants.phase == PHASE_SHADOW) {
        uint impostor_slot = shadow_impostor_slot(animation, model, centre, sphere.w);
        if (impostor_slot != IMPOSTOR_UNBAKED) {
            uint cell = impostor_cell(view, placed, animation, model, impostor_slot);
            impostor_cells[instance] = cell | (IMPOSTOR_FADE_FULL << IMPOSTOR_FADE_SHIFT);
            impostor_instance(model, atomicAdd(impostor_counts[placed.model], 1u)) = instance;
            return;
        }
        if (!per_instance) {
            // Posed by the camera's first cull (casts_as_mesh).
            pose_sources[instance] = camera_pose_sources[instance] & ~IMPOSTOR_BAND;
        }
        uint lod = select_lod(view, centre, sphere.w, model);
        uint slot = atomicAdd(lod_counts[placed.model * MAX_LODS + lod], 1u);
        visible_instances[lod * constants.instance_count + model.first_instance + slot] = instance;
        return;
    }
    bool drawn_early = visible_last_frame[instance] != 0u;
    bool draw = true;
    if (constants.phase == PHASE_EARLY) {
        draw = drawn_early;
    } else if (constants.phase == PHASE_LATE) {
        // cull::instance_bounds: settled on its clip, per body part the
        // boxes of the frames it is between at its own time and at its
        // shared pose's; switched, the whole swing of every clip of the fade;
        // layered, the box round its layered radius.
        ClipInfo clip = clips[animation.clip];
        bool by_parts = !switched && !layered && clip.frame_count > 0u;
        uint a = 0u;
        uint b = 0u;
        if (by_parts) {
            float own = frame.time * animation.rate + animation.phase;
            float shared_time = float(shared_pose_index(clip, own)) / SHARED_POSE_RATE;
            a = clip.first_bounds + frame_at(clip, own) * model.part_count;
            b = clip.first_bounds + frame_at(clip, shared_time) * model.part_count;
        }
        vec3 whole_min = clip.bounds_min.xyz;
        vec3 whole_max = clip.bounds_max.xyz;
        if (layered) {
            whole_min = -sphere.www;
            whole_max = sphere.www;
        } else if (switched) {
            whole_min = min(whole_min, min(clips[animation.previous_clip].bounds_min.xyz,
                                           clips[animation.older_clip].bounds_min.xyz));
            whole_max = max(whole_max, max(clips[animation.previous_clip].bounds_max.xyz,
                                           clips[animation.older_clip].bounds_max.xyz));
        }
        // Visible when any of its boxes is. One call of occluded() in a
        // loop, not one per branch: lavapipe runs a branch's body for every
        // lane, taken or not, and a loop only as long as its longest lane.
        uint boxes = by_parts ? model.part_count : 1u;
        bool visible = false;
        for (uint part = 0u; part < boxes && !visible; ++part) {
            vec3 bounds_min = whole_min;
            vec3 bounds_max = whole_max;
            if (by_parts) {
                FrameBounds at_a = frame_bounds[a + part];
                FrameBounds at_b = frame_bounds[b + part];
                bounds_min = min(at_a.min.xyz, at_b.min.xyz);
                bounds_max = max(at_a.max.xyz, at_b.max.xyz);
            }
            visible = !occluded(view, bounds_min, bounds_max, placed);
        }
        visible_last_frame[instance] = visible ? 1u : 0u;
        draw = visible && !drawn_early;
    } else {
        visible_last_frame[instance] = 1u;
    }
    // The early and late phases draw disjoint sets, and neither phase
    // overwrites the pose source of an instance the other drew.
    // An impostor needs no skinning transforms: its pose source is its
    // atlas cell, and it takes no palette row.
    // Faded at all, it wants its clip baked; until it is, it stays a
    // mesh, past the switch at the coarsest level.
    uint fade = draw ? impostor_fade(view, centre, sphere.w, model) : 0u;
    uint impostor_slot = IMPOSTOR_UNBAKED;
    if (fade > 0u) {
        uint clip = shows_current_clip(animation) ? animation.clip : animation.previous_clip;
        // Read first: most instances find the flag set, and a store to
        // one word from every lane would queue them all.
        if (impostor_requests[clip] == 0u) {
            impostor_requests[clip] = 1u;
        }
        impostor_slot = impostor_slots[clip];
    }
    bool as_impostor = impostor_slot != IMPOSTOR_UNBAKED;
    bool as_mesh = draw && (!as_impostor || fade < IMPOSTOR_FADE_FULL);
    if (as_impostor) {
        uint cell = impostor_cell(view, placed, animation, model, impostor_slot);
        impostor_cells[instance] = cell | (fade << IMPOSTOR_FADE_SHIFT);
        impostor_instance(model, atomicAdd(impostor_counts[placed.model], 1u)) = instance;
        if (!as_mesh) {
            pose_sources[instance] = IMPOSTOR_POSE;
        } else {
            atomicAdd(band_counts[placed.model], 1u);
        }
    }
    if (!as_mesh && !as_impostor && poses_casters && casts_as_mesh(animation, model, centre, sphere.w)) {
        pose_sources[instance] = drawn_pose_source(view, instance, animation, model, centre, sphere.w, layered);
    }
    if (as_mesh) {
        uint band = as_impostor ? IMPOSTOR_BAND : 0u;
        if (!per_instance) {
            // A caster in view that the early phase did not draw was posed
            // by it for the cascades (the same test on the same inputs):
            // drawn now, it keeps that pose, so an instance takes at most
            // one pose a frame and the posed list never outgrows the crowd.
            bool posed_early = constants.phase == PHASE_LATE && !drawn_early
                && casts_as_mesh(animation, model, centre, sphere.w);
            uint source = posed_early
                ? pose_sources[instance]
                : drawn_pose_source(view, instance, animation, model, centre, sphere.w, layered);
            pose_sources[instance] = source | band;
        } else {
            pose_sources[instance] |= band;
        }
        bool past_switch = fade >= IMPOSTOR_FADE_SWITCH;
        uint lod = past_switch && !as_impostor ? model.lod_count - 1u : select_lod(view, centre, sphere.w, model);
        uint slot = atomicAdd(lod_counts[placed.model * MAX_LODS + lod], 1u);
        visible_instances[lod * constants.instance_count + model.first_instance + slot] = instance;
    }
}
