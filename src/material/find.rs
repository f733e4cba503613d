//! Finding files the way the game does on a case-insensitive file system:
//! a reference such as `models/Monsters/imp/imp_d.tga` names a file whose
//! case may differ on disk, whose extension may be left out or be another
//! of the image formats, and whose folders may differ in case too.

use std::fs;
use std::path::{Path, PathBuf};

/// Image formats a reference may name or leave out, in the order they are
/// tried (the game tries `.tga` first, then `.jpg`).
pub(super) const IMAGE_EXTENSIONS: [&str; 4] = ["tga", "png", "jpg", "jpeg"];

/// What [`find_image`] found.
#[derive(Debug, PartialEq)]
pub(super) enum Found {
    File(PathBuf),
    /// Only a `.dds` (Doom 3 BFG), which cannot be decoded here.
    Dds(PathBuf),
    Missing,
}

/// The file `reference` names under `root`. Its folders may differ in
/// case ([`find_folders`], the exact one first); in each, its file name is
/// tried as written, then with each of [`IMAGE_EXTENSIONS`] in place of (or
/// added to) its extension, each name exactly and then in any case. An
/// absolute reference ignores `root`.
pub(super) fn find_image(root: &Path, reference: &str) -> Found {
    let reference = reference.replace('\\', "/");
    let root = if reference.starts_with('/') {
        Path::new("/")
    } else if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    let mut components: Vec<&str> = reference
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let Some(file_name) = components.pop() else {
        return Found::Missing;
    };
    let stem = strip_image_extension(file_name);
    let candidates = candidate_names(file_name);
    let dds = format!("{stem}.dds");
    let folders = find_folders(root, &components);
    let listings: Vec<Vec<String>> = folders.iter().map(|folder| list(folder)).collect();
    let mut folders = folders.iter().zip(&listings);
    if let Some(path) = folders.clone().find_map(|(folder, listing)| {
        candidates
            .iter()
            .find_map(|candidate| pick_in(folder, listing, candidate))
    }) {
        return Found::File(path);
    }
    match folders.find_map(|(folder, listing)| pick_in(folder, listing, &dds)) {
        Some(path) => Found::Dds(path),
        None => Found::Missing,
    }
}

/// `name` as written, then its stem with each image extension.
pub(super) fn candidate_names(name: &str) -> Vec<String> {
    let stem = strip_image_extension(name);
    let mut names = vec![name.to_owned()];
    for extension in IMAGE_EXTENSIONS {
        let candidate = format!("{stem}.{extension}");
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&candidate)) {
            names.push(candidate);
        }
    }
    names
}

/// `name` without a trailing image extension (`.tga`, `.dds`...), any case.
fn strip_image_extension(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, extension))
            if !stem.is_empty()
                && IMAGE_EXTENSIONS
                    .iter()
                    .chain(&["dds"])
                    .any(|e| extension.eq_ignore_ascii_case(e)) =>
        {
            stem
        }
        _ => name,
    }
}

/// The file `name` in `folder` (whose entries are `listing`), as written or
/// else in any case.
fn pick_in(folder: &Path, listing: &[String], name: &str) -> Option<PathBuf> {
    let exact = folder.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    listing
        .iter()
        .filter(|entry| entry.eq_ignore_ascii_case(name))
        .map(|entry| folder.join(entry))
        .find(|path| path.is_file())
}

/// The names in `folder`, sorted; none when it cannot be read.
fn list(folder: &Path) -> Vec<String> {
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

/// The entries of `folder` named `name` in any case, sorted.
fn matching_entries(folder: &Path, name: &str) -> Vec<PathBuf> {
    list(folder)
        .into_iter()
        .filter(|entry| entry.eq_ignore_ascii_case(name))
        .map(|entry| folder.join(entry))
        .collect()
}

/// Every folder `root/components...` names when each component may match
/// in any case (a game folder unpacked from several archives can hold both
/// `models/` and `Models/`): the exact path first, then the others in
/// sorted order.
pub(super) fn find_folders(root: &Path, components: &[&str]) -> Vec<PathBuf> {
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
    if name == "." || name == ".." {
        return folders;
    }
    folders.extend(
        matching_entries(parent, name)
            .into_iter()
            .filter(|path| *path != exact && path.is_dir()),
    );
    folders
}

/// The folder `name` inside `parent`, as written or else in any case.
pub(super) fn child_folder(parent: &Path, name: &str) -> Option<PathBuf> {
    child_folders(parent, name).into_iter().next()
}

/// A material or shader name as the game compares them: lower case,
/// forward slashes, without a file extension.
pub(super) fn canonical_name(name: &str) -> String {
    let name = name.replace('\\', "/").to_ascii_lowercase();
    let file_start = name.rfind('/').map_or(0, |slash| slash + 1);
    match name[file_start..].rfind('.') {
        Some(dot) if dot > 0 => name[..file_start + dot].to_owned(),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_swap_or_add_the_extension() {
        assert_eq!(
            candidate_names("imp_d.tga"),
            ["imp_d.tga", "imp_d.png", "imp_d.jpg", "imp_d.jpeg"]
        );
        assert_eq!(
            candidate_names("imp_d"),
            ["imp_d", "imp_d.tga", "imp_d.png", "imp_d.jpg", "imp_d.jpeg"]
        );
        assert_eq!(
            candidate_names("imp.DDS"),
            ["imp.DDS", "imp.tga", "imp.png", "imp.jpg", "imp.jpeg"]
        );
        assert_eq!(
            candidate_names("v1.5_skin"),
            [
                "v1.5_skin",
                "v1.5_skin.tga",
                "v1.5_skin.png",
                "v1.5_skin.jpg",
                "v1.5_skin.jpeg"
            ]
        );
    }

    #[test]
    fn canonical_names_ignore_case_slashes_and_extension() {
        assert_eq!(canonical_name("Models\\Imp\\IMP.tga"), "models/imp/imp");
        assert_eq!(canonical_name("models/v1.5/imp"), "models/v1.5/imp");
        assert_eq!(canonical_name("models/imp/.hidden"), "models/imp/.hidden");
    }
}
