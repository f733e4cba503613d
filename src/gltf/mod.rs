//! glTF 2.0 files, the format only (as `crate::md5` is for md5): the
//! document, its required extensions checked and its compressed parts
//! rewritten as plain glTF (`prepare`), then parsed and its indices
//! checked by the `gltf` crate; the buffers it names (a .glb's BIN chunk,
//! data URIs, files beside a .gltf) and those decoded from meshopt views
//! and Draco primitives;
//! accessors read with every bound checked ([`read_floats`],
//! [`read_integers`]); image bytes.
//! `crate::model`'s glTF conversion is the only code that turns this into
//! runtime types. Nothing here trusts a count in the file: every
//! allocation is bounded by bytes that were actually read.

mod accessor;
mod draco;
mod error;
mod file;
mod material_json;
mod meshopt;
mod prepare;

pub use accessor::{read_floats, read_integers, AccessorRead};
pub use error::GltfError;
pub use file::{GltfFile, ImageData};
pub use prepare::READ_EXTENSIONS;

/// md5crowd's units per glTF metre: Doom 3's unit is an inch (its player
/// is 74 units tall), so a glTF character stands at its real size among
/// md5 ones.
pub const UNITS_PER_METRE: f32 = 1.0 / 0.0254;

/// Whether `extension` (any case) names a glTF file.
pub fn is_gltf_extension(extension: &str) -> bool {
    extension.eq_ignore_ascii_case("glb") || extension.eq_ignore_ascii_case("gltf")
}
