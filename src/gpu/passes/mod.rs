//! One file per pass: its pipeline and how it records. The renderer owns
//! the shared descriptor sets and calls the passes in order: cull, animate,
//! crowd draw, skeleton overlay.

pub mod animate;
pub mod crowd_draw;
pub mod cull;
pub mod skeleton_overlay;
