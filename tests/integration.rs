//! Every integration test but two, in one binary: the crate is linked and
//! tests/common compiled once, not once per file. The tests are grouped by
//! what they exercise, and a group runs alone by its module path
//! (`cargo test --release --test integration gpu::`):
//!
//! - `formats`: what the loaders read and the generators write (md5, glTF,
//!   DDS, declarations, game folders, materials, LOD chains), mostly on the
//!   CPU;
//! - `cli`: the command line as users type it (errors, `inspect`, `bench`,
//!   game folders, mixed crowds);
//! - `gpu`: the GPU passes against their CPU references, and headless
//!   renders under the validation layer;
//! - `window`: real windows on a virtual X server, driven by xdotool.
//!
//! Two tests keep binaries of their own, for state that is the process's:
//! tests/driver_lifetime.rs counts the process's threads, descriptors and
//! mapped libraries, and tests/md5_mutation.rs installs a global allocator.
//!
//! The tests run on parallel threads of one process, so each writes only
//! into its own `common::scratch_dir` and starts its own X server
//! (`common::VirtualDisplay`); none changes the environment or the working
//! directory.

mod cli;
mod common;
mod formats;
mod gpu;
mod window;
