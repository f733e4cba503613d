//! Generates md5crowd's sample character, the crowdling: a mesh, four clips
//! and two textures; with `--low-poly`, the crowdling as other tools export
//! characters (low poly: welded, flat-shaded, split at uv seams, with
//! duplicate vertices; and in many small meshes), with the same clips.
//!
//! ```text
//! cargo run --release --example make_character -- [OUT_DIR]
//! cargo run --release --example make_character -- --low-poly OUT_DIR
//! ```
//!
//! OUT_DIR defaults to the crate's `assets/`; tests/formats/assets.rs checks that the
//! shipped files are exactly what this writes.

mod character;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let low_poly = args.first().is_some_and(|a| a == "--low-poly");
    if low_poly {
        args.remove(0);
    }
    let dir = match (args.pop(), low_poly) {
        (Some(dir), _) if args.is_empty() => PathBuf::from(dir),
        (None, false) => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets")),
        _ => {
            eprintln!("usage: make_character [OUT_DIR] | make_character --low-poly OUT_DIR");
            return ExitCode::from(2);
        }
    };
    let written = if low_poly {
        character::low_poly::write_low_poly(&dir)
    } else {
        character::write_all(&dir)
    };
    match written {
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
