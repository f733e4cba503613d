//! The crowdling as other tools export characters (`exporters`): low poly
//! (a few hundred triangles, as low-poly game art is) welded, flat-shaded,
//! split at uv seams and with duplicates; and as shipped, cut into many small
//! meshes. tests/formats/lod_exported.rs builds levels of detail for them;
//! `make_character --low-poly DIR` writes them with the clips and textures,
//! for `md5crowd bench` and for looking at.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use md5crowd::md5::{write_anim, Mesh};

use super::body::{crowdling_surfaces, Detail};
use super::exporters::{cube_seams, md5mesh_text, per_face, pieces, with_duplicates};
use super::skeleton::Skeleton;
use super::{anim_export, checks, clips, mesh_export, textures};

/// As id's exporter writes: one vertex per position and uv.
pub const WELDED: &str = "lowpoly_welded.md5mesh";
/// Every triangle its own three vertices.
pub const FLAT: &str = "lowpoly_flat.md5mesh";
/// Cube-projected uvs, split at every seam.
pub const SEAMS: &str = "lowpoly_seams.md5mesh";
/// Every vertex twice, and degenerate triangles.
pub const DUPLICATES: &str = "lowpoly_duplicates.md5mesh";
/// The shipped crowdling in meshes of at most [`PIECE_TRIANGLES`].
pub const PIECES: &str = "pieces.md5mesh";

/// Triangles per mesh of [`PIECES`]: the shipped character in 60 meshes.
const PIECE_TRIANGLES: usize = 100;

const COMMANDLINE: &str = "make_character --low-poly (a converter's layout)";

/// Each file name above and its md5mesh text.
pub fn exported() -> Vec<(&'static str, String)> {
    let skeleton = Skeleton::crowdling();
    let low = low_poly_mesh(&skeleton);
    let shipped_surfaces = crowdling_surfaces(&skeleton, Detail::Shipped);
    let shipped = mesh_export::md5_mesh(&skeleton, &shipped_surfaces);
    let text = |meshes: Vec<Mesh>| md5mesh_text(COMMANDLINE, &low.joints, &meshes);
    let each = |export: fn(&Mesh) -> Mesh| text(low.meshes.iter().map(export).collect());
    vec![
        (WELDED, text(low.meshes.clone())),
        (FLAT, each(per_face)),
        (
            SEAMS,
            text(
                low.meshes
                    .iter()
                    .map(|m| cube_seams(m, &low.joints))
                    .collect(),
            ),
        ),
        (DUPLICATES, each(with_duplicates)),
        (
            PIECES,
            text(
                (shipped.meshes.iter())
                    .flat_map(|m| pieces(m, PIECE_TRIANGLES))
                    .collect(),
            ),
        ),
    ]
}

/// Writes [`exported`], the clips (posed for the low-poly mesh) and the
/// textures into `dir`; returns the written paths, relative to `dir`.
pub fn write_low_poly(dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (file, text) in exported() {
        fs::write(dir.join(file), text)?;
        written.push(PathBuf::from(file));
    }
    let skeleton = Skeleton::crowdling();
    let mesh = low_poly_mesh(&skeleton);
    for clip in &clips::CLIPS {
        let anim = anim_export::md5_anim(&skeleton, &mesh, clip);
        let file = PathBuf::from(format!("{}.md5anim", clip.name));
        fs::write(dir.join(&file), write_anim(&anim))?;
        written.push(file);
    }
    written.extend(textures::write_textures(dir).map_err(io::Error::other)?);
    Ok(written)
}

fn low_poly_mesh(skeleton: &Skeleton) -> md5crowd::md5::Md5Mesh {
    let surfaces = crowdling_surfaces(skeleton, Detail::LowPoly);
    checks::check_parts(&surfaces);
    mesh_export::md5_mesh(skeleton, &surfaces)
}
