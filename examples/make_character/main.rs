//! Generates md5crowd's sample character, the crowdling: a mesh, four clips
//! and two textures.
//!
//! ```text
//! cargo run --release --example make_character -- [OUT_DIR]
//! ```
//!
//! OUT_DIR defaults to the crate's `assets/`; tests/assets.rs checks that the
//! shipped files are exactly what this writes.

mod character;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets")));
    match character::write_all(&dir) {
        Ok(files) => {
            for file in files {
                println!("{}", dir.join(file).display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "make_character: cannot write into {}: {error}",
                dir.display()
            );
            ExitCode::FAILURE
        }
    }
}
