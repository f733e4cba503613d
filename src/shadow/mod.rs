//! Sun shadows, CPU side: the cascades fitted to the camera's view
//! ([`cascades`]), and the reference the shadow maps are tested against:
//! a character's triangles projected along the sun onto the ground
//! ([`mod@reference`]). The GPU side is `gpu::shadow_map` and the shadow cull
//! (`cull.comp`'s `PHASE_SHADOW`).

pub mod cascades;
pub mod reference;

pub use cascades::{fit_cascades, sun_angles, sun_direction, Cascade, CascadeDesc};
