//! One file per pass: its pipeline and how it records. The renderer owns
//! the shared descriptor sets and calls the passes in order: agents (with
//! locomotion on), cull, write
//! draws, animate, ground (plane and contact shadows), crowd draw,
//! impostor draw, skeleton overlay; then the BLEND meshes into the weighted
//! blend targets and their composite over the picture.

pub mod agents;
pub mod animate;
pub mod blend_composite;
pub mod crowd_draw;
mod crowd_pipelines;
pub mod cull;
pub mod depth_resolve;
pub mod draws;
pub mod ground;
pub mod impostor_bake;
pub mod impostor_draw;
pub mod overlay;
pub mod pyramid;
pub mod skeleton_overlay;
