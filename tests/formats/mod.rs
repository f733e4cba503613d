//! What the loaders read and the generators write: md5 and glTF files,
//! DDS images, declarations, game folders and their materials, the shipped
//! character, LOD chains and clips. Mostly on the CPU; a few check what
//! they read by drawing it.

mod assets;
mod channels;
mod clip_playback;
mod dds;
mod decl;
mod game_folder;
mod gltf_fixtures;
mod gltf_khronos;
mod gltf_load;
mod gltf_materials;
mod gltf_morph;
mod ground_speed;
mod lod_chain;
mod lod_exported;
mod many_joints;
mod materials;
mod md5_parse;
mod runtime_reference;
