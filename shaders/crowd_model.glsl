// One model of a crowd: cull.comp, draws.comp and animate.comp read it,
// and impostor.vert its impostor sphere.
#ifndef CROWD_MODEL_GLSL
#define CROWD_MODEL_GLSL

// Twin of Rust's gpu::shader_types::CrowdModel: one model of the crowd,
// where its data sits in the buffers every model shares and which
// instances are its.
struct CrowdModel {
    uint joint_count;
    uint first_joint;      // its skeleton's first joint in `skeleton`
    uint clip_count;       // 0: it stands in its bind pose (its one clips[] entry)
    uint lod_count;        // its levels of detail, 1 to MAX_LODS
    uint part_count;       // occlusion boxes (body parts) per clip frame in frame_bounds
    uint first_instance;   // its instances: first_instance .. first_instance + instance_count
    uint instance_count;
    uint first_draw;       // its meshes' indirect draws: first_draw .. first_draw + draw_count
    uint draw_count;
    uint first_transform;  // CPU animation: its instances' transforms, instance-major, start here
    uint first_clip;       // its clips' first entry in clips[]
    uint first_layer_mask; // its layer channels' masks in LayerMasks (animate.glsl)
    // The error of each of its levels of detail, in model units: level l
    // is lod_errors[l / 4][l % 4]. Level 0's is 0.
    vec4 lod_errors[2];
    // Its impostor atlas's sphere, model space (ImpostorLayout::sphere):
    // xyz centre, w radius; w 0: it has no atlas.
    vec4 impostor_sphere;
    // xyz: half the size of the box the sphere is around
    // (ImpostorLayout::half_size), which a quad must cover. w: the radius
    // round its origin that any pose its layers can mix stays in
    // (skin::layered_radius).
    vec4 impostor_half_size;
};

#endif
