//! The meshopt and Draco decoders behind documents that are otherwise
//! sound: the input's first byte picks the fox through gltfpack -cc or
//! through glTF-Transform's draco (tests/fixtures/gltf), the rest
//! overwrites the start of its binary chunk, where the compressed views
//! lie. An error or a model, never a panic, and no allocation larger than
//! the bytes justify (`cargo +nightly fuzz run decode_compressed`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5crowd::gltf::GltfFile;
use md5crowd::model::{LoadOptions, Model};
use md5crowd::vfs::GameFile;

const MESHOPT: &[u8] = include_bytes!("../../tests/fixtures/gltf/Fox.gltfpack-cc.glb");
const DRACO: &[u8] = include_bytes!("../../tests/fixtures/gltf/Fox.draco.glb");

fuzz_target!(|data: &[u8]| {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    let mut glb = if pick % 2 == 0 { MESHOPT } else { DRACO }.to_vec();
    let json_length = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    // The BIN chunk's data follows the JSON chunk and its own 8-byte header.
    let start = 20 + json_length + 8;
    let length = stream.len().min(glb.len() - start);
    glb[start..start + length].copy_from_slice(&stream[..length]);
    if let Ok(file) = GltfFile::from_bytes("fuzz.glb", &glb, None) {
        let _ = Model::from_gltf(&file, &GameFile::loose("fuzz.glb"), &LoadOptions::default());
    }
});
