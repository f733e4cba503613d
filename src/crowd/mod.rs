//! The crowd: where each character stands, which clip it plays and how, and
//! the CPU path that animates everyone (the reference for the GPU `animate`
//! pass, and `--animate cpu`).

mod animate;
mod cull;
mod spawn;

pub use animate::{animate_crowd, animate_instance};
pub use cull::{clip_spheres, instance_sphere, BoundingSphere, Frustum};
pub use spawn::{spawn_crowd, CrowdLayout, Instance, SplitMix64};
