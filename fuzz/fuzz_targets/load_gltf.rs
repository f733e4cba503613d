//! Arbitrary bytes as a .glb or .gltf: an error or a model, never a
//! panic, and no allocation larger than the bytes justify. Seed it with
//! assets/gltf/Fox.glb and its quantized, meshopt and Draco copies
//! (`cargo +nightly fuzz run load_gltf ../assets/gltf
//! ../tests/fixtures/gltf`); decode_compressed aims at the decoders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5crowd::gltf::GltfFile;
use md5crowd::model::{LoadOptions, Model};
use md5crowd::vfs::GameFile;

fuzz_target!(|data: &[u8]| {
    // No folder: a file naming a .bin or image beside it is an error or a
    // warning, and nothing outside the input is read.
    if let Ok(file) = GltfFile::from_bytes("fuzz.glb", data, None) {
        let _ = Model::from_gltf(&file, &GameFile::loose("fuzz.glb"), &LoadOptions::default());
    }
});
