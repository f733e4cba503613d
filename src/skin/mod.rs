//! The skinned mesh (bind-pose vertices, normals, tangents and per-vertex joint
//! influences) and the CPU references of linear blend and dual quaternion skinning
//! that the GPU vertex shader is tested against.
//!
//! Nothing here reads files: `crate::model` converts md5 meshes, using the
//! plain-data steps exported here (`select_influences`, `smooth_normals`,
//! `tangents`), and the LOD chain and GPU order added at load (`lod_chain`,
//! `LodSurface`, `LodLevel`, `ShortChain`, `SkinnedMesh::build_lods`,
//! `SkinnedMesh::optimize_for_gpu`).

mod body_parts;
mod cpu_skinning;
mod influences;
mod layered_radius;
mod lod;
mod lod_influences;
mod lod_shadow;
mod morph;
mod pose_bounds;
mod skinned_mesh;
mod surface_distance;
mod vertex_color;

pub use body_parts::{BodyParts, MAX_BODY_PARTS};
pub use cpu_skinning::{skin_vertices, SkinningMethod, SurfaceVertex};
pub use influences::{select_influences, InfluenceLimit, TruncationReport, MAX_INFLUENCES};
pub use layered_radius::layered_radius;
pub use lod::{
    coarsest_target, level_ratio, lod_chain, LodChain, LodLevel, ShortChain, COARSEST_MAX_FRACTION,
    COARSEST_TRIANGLES, LEVEL_RATIO, MAX_LODS,
};
pub use lod_influences::{
    affine_transforms, sampled_poses, skin_position_by_steps, INFLUENCE_ERROR_SHARE,
    INFLUENCE_STEPS, MAX_SAMPLED_POSES,
};
pub use lod_shadow::LodSurface;
pub use morph::{morph_reach, morphed_vertex, same_offsets, MorphTarget, MORPH_EPSILON};
pub use pose_bounds::{clip_pose_bounds, skinned_part_bounds, ClipPartBounds};
pub use skinned_mesh::{smooth_normals, tangents, SkinnedMesh};
pub use surface_distance::{point_triangle_distance_squared, ReferenceSurface};
pub use vertex_color::VertexColor;
