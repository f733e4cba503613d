//! One file per pass: its pipeline and how it records. The renderer owns
//! the shared descriptor sets and calls the passes in order: cull, write
//! draws, animate, crowd draw, skeleton overlay.

pub mod animate;
pub mod crowd_draw;
pub mod cull;
pub mod draws;
pub mod pyramid;
pub mod skeleton_overlay;
