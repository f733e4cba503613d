//! Loose files, found the way the game finds them on a case-insensitive
//! file system: each component of a path may differ in case on disk, and
//! a game folder unpacked from several archives can hold both `models/`
//! and `Models/`, so every folder that matches is searched, the one
//! spelled exactly first.

use std::fs;
use std::path::{Path, PathBuf};

/// The file `components` names under `root`: in each folder the folders
/// name ([`find_folders`]), its file name as written, else in any case.
pub(super) fn find(root: &Path, components: &[&str]) -> Option<PathBuf> {
    let (file_name, folders) = components.split_last()?;
    find_folders(root, folders)
        .iter()
        .find_map(|folder| pick_in(folder, file_name))
}

/// The files directly in the folders `components` names under `root`
/// whose extension is `extension` (any case), each name once (the first
/// folder's), in no particular order.
pub(super) fn list(root: &Path, components: &[&str], extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for folder in find_folders(root, components) {
        for name in entries(&folder) {
            let path = folder.join(&name);
            let matches = Path::new(&name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(extension));
            let seen = files.iter().any(|f| {
                f.file_name()
                    .is_some_and(|f| f.eq_ignore_ascii_case(name.as_str()))
            });
            if matches && !seen && path.is_file() {
                files.push(path);
            }
        }
    }
    files
}

/// The file `name` in `folder`, as written or else in any case.
fn pick_in(folder: &Path, name: &str) -> Option<PathBuf> {
    let exact = folder.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    entries(folder)
        .into_iter()
        .filter(|entry| entry.eq_ignore_ascii_case(name))
        .map(|entry| folder.join(entry))
        .find(|path| path.is_file())
}

/// The names in `folder`, sorted; none when it cannot be read.
fn entries(folder: &Path) -> Vec<String> {
    let listed = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let Ok(entries) = fs::read_dir(listed) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// Every folder `root/components...` names when each component may match
/// in any case: the exact path first, then the others in sorted order.
fn find_folders(root: &Path, components: &[&str]) -> Vec<PathBuf> {
    let mut folders = vec![root.to_path_buf()];
    for component in components {
        folders = folders
            .iter()
            .flat_map(|folder| child_folders(folder, component))
            .collect();
    }
    folders
}

/// The folders `name` inside `parent`: as written first, then those that
/// differ only in case, sorted.
fn child_folders(parent: &Path, name: &str) -> Vec<PathBuf> {
    let exact = parent.join(name);
    let mut folders = Vec::new();
    if exact.is_dir() {
        folders.push(exact.clone());
    }
    if name == ".." {
        return folders;
    }
    folders.extend(
        entries(parent)
            .into_iter()
            .filter(|entry| entry.eq_ignore_ascii_case(name))
            .map(|entry| parent.join(entry))
            .filter(|path| *path != exact && path.is_dir()),
    );
    folders
}

/// The folder `name` inside `parent`, as written or else in any case.
pub fn child_folder(parent: &Path, name: &str) -> Option<PathBuf> {
    child_folders(parent, name).into_iter().next()
}
