//! The GPU passes against their CPU references, the renderer's lifetimes,
//! and headless renders under the validation layer (culling, LOD,
//! impostors, ground, materials, profiling, shadows, RenderDoc captures).

mod gpu_crowd;
mod gpu_renderer;
mod locomotion;
mod render_alpha_mask;
mod render_blend;
mod render_capture;
mod render_culling;
mod render_determinism;
mod render_ground;
mod render_headless;
mod render_impostors;
mod render_materials;
mod render_msaa;
mod render_pbr;
mod render_pbr_impostors;
mod render_profiling;
mod render_shadows;
