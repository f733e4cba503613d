//! md5crowd: Doom 3 md5 characters skinned on the GPU, drawn as crowds.
//!
//! Data flows one way: [`md5`] (the file format) -> [`model`] (conversion) ->
//! [`anim`] and [`skin`] (the CPU runtime model and reference jobs) -> `gpu`
//! (buffers and passes). The runtime never imports the file format; the box in
//! [`bounds`] is the one type both sides share.

pub mod anim;
pub mod app;
pub mod bounds;
pub mod crowd;
pub mod decl;
pub mod gpu;
pub mod inspect;
pub mod material;
pub mod md5;
pub mod model;
pub mod skin;
