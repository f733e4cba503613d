//! The skinned mesh (bind-pose vertices, normals, tangents and per-vertex joint
//! influences) and the CPU reference of linear blend skinning that the GPU
//! vertex shader is tested against.

mod cpu_skinning;
mod influences;
mod skinned_mesh;

pub use cpu_skinning::skin_vertices;
pub use influences::{select_influences, InfluenceLimit, TruncationReport, MAX_INFLUENCES};
pub use skinned_mesh::SkinnedMesh;
