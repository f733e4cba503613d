//! md5crowd: Doom 3 md5 characters skinned on the GPU, drawn as crowds.
//!
//! # Where to start reading
//!
//! Data flows one way, and the modules follow it:
//!
//! 1. [`md5`]: the file format only (lexer, parsers with `file:line:col`
//!    errors, a writer). Nothing downstream imports it.
//! 2. [`model`]: [`model::Model::load`] turns files into the runtime model;
//!    its `convert` module is the only code that sees both sides.
//! 3. [`anim`] and [`skin`]: CPU animation and skinning jobs (sampling,
//!    blending, local-to-model, [`skin::skin_vertices`]), the level-of-detail
//!    chain, and the references every GPU pass is tested against.
//! 4. [`crowd`]: crowd layout and the CPU references of the compute passes
//!    (culling, LOD choice, occlusion, agents, crowd animation).
//! 5. [`gpu`]: Vulkan, split by lifetime ([`gpu::model_resources`],
//!    [`gpu::crowd_resources`], [`gpu::frame`]), one frame loop
//!    ([`gpu::frame_loop`]), one file per pass ([`gpu::passes`]); shaders
//!    are in `shaders/`, compiled by `build.rs`.
//! 6. [`app`]: the command line: window, headless PNG, `bench`.
//!
//! `docs/architecture.md` in the repository follows a joint from md5 text to
//! `gl_Position` with links into this code. [`material`] resolves an md5
//! `shader` to image files; every file is read through [`vfs`] (a game
//! folder's loose files and its pk4 archives), and [`game`] turns id Tech 4
//! declarations into files to load; [`inspect`] is `md5crowd inspect`; [`synthetic`] writes the many-joint
//! character the tests and `bench --suite` use. The box in
//! [`bounds`] is the one type both the format and the runtime share.

pub mod anim;
pub mod app;
pub mod bounds;
pub mod crowd;
pub mod decl;
pub mod game;
pub mod gpu;
pub mod inspect;
pub mod material;
pub mod md5;
pub mod model;
pub mod skin;
pub mod synthetic;
pub mod vfs;
