#version 450
// One impostor (src/crowd/impostor.rs): a quad over the instance's impostor
// sphere, facing the eye (or a shadow cascade's sun), showing the atlas
// cell cull.comp chose for it. Drawn instanced over the impostor list, as the 4
// corners of a triangle strip.

#include "crowd_model.glsl"
#include "impostor.glsl"
#include "scene.glsl"

layout(set = 0, binding = 1) readonly buffer Instances {
    CrowdInstance instances[];
};
layout(set = 0, binding = 2) uniform Frame {
    FrameUniforms frame;
};
layout(set = 0, binding = 3) readonly buffer VisibleInstances {
    VISIBLE_INSTANCES_BLOCK
};
layout(set = 0, binding = 7) readonly buffer ImpostorCells {
    uint impostor_cells[];
};
layout(set = 0, binding = 6) readonly buffer Models {
    CrowdModel models[];
};

#include "draw_constants.glsl"

// --show-lod: past crowd.vert's level tints, pink.
const vec3 IMPOSTOR_TINT = vec3(1.0, 0.5, 0.75);

layout(location = 0) out vec2 out_cell_uv;       // 0..1 across the cell, y down
layout(location = 1) flat out uvec2 out_cell;     // the cell's column (view) and row (frame)
layout(location = 2) flat out vec3 out_tint;
layout(location = 3) flat out uint out_skin;
layout(location = 4) out vec3 out_world_position; // on the quad
// The quad's frame in the world, as the baked view's (right, up, towards
// the eye), and the sphere's radius: what the texels' normals and depths
// are measured in.
layout(location = 5) flat out vec3 out_right;
layout(location = 6) flat out vec3 out_up;
layout(location = 7) flat out vec4 out_towards_radius;
layout(location = 8) flat out float out_fade; // its share of the pixels
layout(location = 9) flat out uint out_view;  // DrawConstants::view

void main() {
    uint instance = visible_instances[gl_InstanceIndex];
    CrowdInstance placed = instances[instance];
    CrowdModel model = models[placed.model];
    uint cell = impostor_cells[instance] & ((1u << IMPOSTOR_FADE_SHIFT) - 1u);
    vec3 centre = place_instance(placed, model.impostor_sphere.xyz);
    float radius = model.impostor_sphere.w;
    // Towards the view's eye: the camera, or a shadow cascade's sun.
    CullView view = frame.cull_views[draw.view];
    vec3 towards = normalize(view.eye.xyz - centre * view.eye.w);
    // Level, as the bake's right is: from the azimuth, which stays defined
    // straight overhead.
    float azimuth = abs(towards.x) + abs(towards.y) > 0.0 ? atan(towards.y, towards.x) : 0.0;
    vec3 right = vec3(-sin(azimuth), cos(azimuth), 0.0);
    vec3 up = cross(towards, right);
    // The quad covers what the model's box can project to from this
    // elevation, not the whole cell: most of a cell around a standing
    // character is empty, and a fragment there is still shaded (then
    // discarded). Across: the box's horizontal half-diagonal; up and down:
    // its half-height tilted, plus that half-diagonal tilted the other way.
    vec3 half_size = model.impostor_half_size.xyz;
    float across = min(length(half_size.xy), radius);
    float tilt = clamp(towards.z, 0.0, 1.0);
    float tall = min(half_size.z * sqrt(1.0 - tilt * tilt) + across * tilt, radius);
    vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1)) * 2.0 - 1.0;
    vec2 extent = corner * vec2(across, tall);
    vec3 world = centre + extent.x * right + extent.y * up;
    mat4 view_projection = draw.view == 0u ? frame.view_projection : view.view_projection;
    gl_Position = view_projection * vec4(world, 1.0);
    out_cell_uv = extent / radius * vec2(0.5, -0.5) + 0.5;
    out_cell = uvec2(cell % IMPOSTOR_VIEWS, cell / IMPOSTOR_VIEWS);
    out_tint = draw.show_lod != 0u ? IMPOSTOR_TINT : placed.tint;
    out_skin = placed.skin;
    out_world_position = world;
    out_right = right;
    out_up = up;
    out_towards_radius = vec4(towards, radius);
    out_fade = float(impostor_cells[instance] >> IMPOSTOR_FADE_SHIFT) / float(IMPOSTOR_FADE_FULL);
    out_view = draw.view;
}
