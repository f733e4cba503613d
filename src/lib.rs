//! md5crowd: Doom 3 md5 characters skinned on the GPU, drawn as crowds.
//!
//! # Where to start reading
//!
//! Data flows one way, and the modules follow it:
//!
//! 1. [`vfs`]: a game folder's files, loose and in pk4 archives. Every
//!    file is read through it, and only while loading.
//! 2. [`md5`] and [`decl`]: file formats only: md5 (lexer, parsers with
//!    `file:line:col` errors, a writer) and id Tech 4 declarations
//!    (`def/*.def`, `skins/*.skin`). Nothing past [`model`] and [`game`]
//!    imports them.
//! 3. [`game`]: a game folder opened once per run, its declarations turned
//!    into the [`model::Character`] to load and the [`model::SkinChoice`]s
//!    to draw it with (it uses [`model`]'s types; [`model`] never imports
//!    it). [`material`] resolves an md5 `shader` to the image files of its
//!    material (`.mtr` parsing, game-style lookup), reads and decodes them.
//! 4. [`model`]: [`model::Model::load`] turns files into the runtime model,
//!    each mesh's materials resolved and their images read at load; its
//!    `convert` module is the only code that sees both md5 structs and
//!    runtime types. No runtime type holds a file or folder.
//! 5. [`anim`] and [`skin`]: CPU animation and skinning jobs (sampling,
//!    blending, local-to-model, [`skin::skin_vertices`]), the level-of-detail
//!    chain, and the references every GPU pass is tested against.
//! 6. [`crowd`]: crowd layout and the CPU references of the compute passes
//!    (culling, LOD choice, occlusion, agents, crowd animation); [`shadow`]:
//!    the sun's shadow cascades and the shadows' CPU reference.
//! 7. [`gpu`]: Vulkan, split by lifetime ([`gpu::model_resources`],
//!    [`gpu::crowd_resources`], [`gpu::frame`]), one frame loop
//!    ([`gpu::frame_loop`]), one file per pass ([`gpu::passes`]); shaders
//!    are in `shaders/`, compiled by `build.rs`. It opens no file: the
//!    model's images arrive as bytes.
//! 8. [`app`]: the command line: window, headless PNG, `bench`; it opens
//!    each game folder once per run and loads the cast from it.
//!
//! `docs/architecture.md` in the repository follows a joint from md5 text to
//! `gl_Position` with links into this code. [`shared_constants`] holds every
//! constant Rust and the shaders share, once: build.rs writes it as GLSL. [`inspect`] is `md5crowd
//! inspect`; [`synthetic`] writes the many-joint character the tests and
//! `bench --suite` use. The box in [`bounds`] is the one type both the
//! format and the runtime share.

pub mod anim;
pub mod app;
pub mod bounds;
pub mod crowd;
pub mod decl;
pub mod game;
pub mod gltf;
pub mod gpu;
pub mod inspect;
pub mod material;
pub mod md5;
pub mod model;
pub mod shadow;
pub mod shared_constants;
pub mod skin;
pub mod synthetic;
pub mod vfs;
