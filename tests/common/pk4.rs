//! pk4 archives as the game's tools make them: zip files of deflated (or
//! stored) entries, written here with the `zip` crate's writer, never with
//! md5crowd's code; and a game folder of many archives for the start-up
//! figure (tests and examples/game_folder_startup.rs).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// Writes `path` holding `files` (name, bytes), each deflated.
pub fn write_pk4(path: &Path, files: &[(&str, &[u8])]) {
    let files: Vec<(&str, &[u8], CompressionMethod)> = files
        .iter()
        .map(|&(name, bytes)| (name, bytes, CompressionMethod::Deflated))
        .collect();
    write_pk4_with(path, &files);
}

/// Writes `path` holding `files` (name, bytes, how each is stored).
pub fn write_pk4_with(path: &Path, files: &[(&str, &[u8], CompressionMethod)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut zip = ZipWriter::new(File::create(path).unwrap());
    for &(name, bytes, method) in files {
        let options = SimpleFileOptions::default().compression_method(method);
        zip.start_file(name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// A base folder in `base` of `archives` archives (`pak000.pk4`...)
/// holding `entries` files in all, named like a game's (folders of
/// textures, models, sounds; about 45 characters a path), each a few dozen
/// bytes, stored. Returns one path from each archive.
pub fn write_big_game(base: &Path, archives: usize, entries: usize) -> Vec<String> {
    const FOLDERS: [&str; 4] = [
        "textures/base_wall",
        "models/monsters/imp",
        "sound/ed/marscity",
        "dds/models/characters/male_npc",
    ];
    let per_archive = entries.div_ceil(archives);
    let mut samples = Vec::new();
    for archive in 0..archives {
        let path = base.join(format!("pak{archive:03}.pk4"));
        let mut zip = ZipWriter::new(std::io::BufWriter::new(File::create(&path).unwrap()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        let first = archive * per_archive;
        for entry in first..(first + per_archive).min(entries) {
            let folder = FOLDERS[entry % FOLDERS.len()];
            let name = format!("{folder}/sub{:02}/file_{entry:06}.tga", entry % 37);
            zip.start_file(name.as_str(), options).unwrap();
            zip.write_all(format!("contents of {name}").as_bytes())
                .unwrap();
            if entry == first {
                samples.push(name);
            }
        }
        zip.finish().unwrap();
    }
    samples
}
