//! Finding a material's images the way the game does: a reference such as
//! `models/Monsters/imp/imp_d.tga` names an image whose case may differ
//! (the game folder matches paths in any case), whose extension may be
//! left out or be another of the image formats, and which may ship
//! precompressed as `dds/models/monsters/imp/imp_d.dds`.

use std::path::Path;

use crate::vfs::{GameFile, Vfs};

/// Image formats a reference may name or leave out, in the order they are
/// tried (the game tries `.tga` first, then `.jpg`).
pub(super) const IMAGE_EXTENSIONS: [&str; 4] = ["tga", "png", "jpg", "jpeg"];

/// The image `reference` names in `game`, the first found of:
/// 1. its precompressed copy, the reference under `dds/` with `.dds` for
///    its extension (the game's `ImageProgramStringToCompressedFileName`),
///    unless a plain image (2) is in a source searched before it: the game
///    takes the newer of the two, and an image that overrides a shipped
///    one (a loose file, a mod's, a later archive's) is the newer;
/// 2. the reference as written, then with each of [`IMAGE_EXTENSIONS`] in
///    place of (or added to) its extension;
/// 3. the reference with `.dds` in place of its extension, beside it
///    (where mods put their precompressed images).
///
/// An absolute reference is a file system path, not a game one.
pub(super) fn find_image(game: &Vfs, reference: &str) -> Option<GameFile> {
    let reference = reference.replace('\\', "/");
    if reference.starts_with('/') {
        return find_image(
            &Vfs::folder(Path::new("/")),
            reference.trim_start_matches('/'),
        );
    }
    let (folder, file_name) = match reference.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), reference.as_str()),
    };
    if file_name.is_empty() {
        return None;
    }
    let stem = strip_image_extension(file_name);
    let precompressed = game.find_ranked(&format!("dds/{folder}{stem}.dds"));
    let plain = candidate_names(file_name)
        .iter()
        .find_map(|name| game.find_ranked(&format!("{folder}{name}")));
    match (precompressed, plain) {
        (Some((dds_rank, dds)), Some((plain_rank, _))) if dds_rank <= plain_rank => Some(dds),
        (_, Some((_, plain))) => Some(plain),
        (Some((_, dds)), None) => Some(dds),
        (None, None) => game.find(&format!("{folder}{stem}.dds")),
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
