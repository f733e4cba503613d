//! One file per pass: its pipeline and how it records. The renderer owns
//! the shared descriptor sets and calls the passes in order.

pub mod crowd_draw;
pub mod skeleton_overlay;
