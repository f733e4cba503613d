//! md5crowd: Doom 3 md5 characters skinned on the GPU, drawn as crowds.
//!
//! Data flows one way: [`md5`] (the file format) -> [`anim`] and [`skin`] (the
//! CPU runtime model and reference jobs) -> `gpu` (buffers and passes).

pub mod anim;
pub mod app;
pub mod crowd;
pub mod gpu;
pub mod inspect;
pub mod md5;
pub mod model;
pub mod skin;
