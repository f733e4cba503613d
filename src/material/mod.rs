//! From an md5 `shader` string to the image files of its material.
//!
//! In Doom 3 (and Quake 4, Prey) a mesh's shader names a *material*, such
//! as `models/monsters/imp/imp`, defined in a `materials/*.mtr` file of the
//! game folder; the material names a diffuse, a normal and a specular
//! image elsewhere in that folder. [`MaterialLibrary`] parses every `.mtr`
//! of a game folder ([`crate::vfs::Vfs`]: loose files and pk4 archives;
//! `mtr`) and resolves a shader to image files
//! ([`MaterialLibrary::resolve`]) the way the game would (`find`).
//! `read` reads the images a model draws with at load ([`MaterialMaps`]);
//! `decode` turns their bytes into pixels, `dds` reads precompressed ones,
//! and `texels` gives the levels the GPU takes. Everything here is
//! CPU-only; `gpu::texture` uploads the result.

pub mod brdf;
mod dds;
mod decode;
mod find;
mod mtr;
mod read;
mod shading;
mod texels;
pub mod weighted_blend;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use dds::{parse_dds, BlockFormat, DdsImage, DdsTexels};
pub use decode::{
    decode_image, encode_normal, fit_within, normal_map_from_height, normals_from_heights,
    srgb_encode, srgb_to_linear, DecodedImage, MapKind,
};
pub use read::{specular_of_specular_glossiness, ImageBytes, MaterialMaps, TexelTransform};
pub use shading::{AlphaMode, Shading, ShadingModel, ShadingVariant, DEFAULT_ALPHA_CUTOFF};
pub use texels::{map_texels, MapTexels};

use crate::vfs::{self, GameFile, Vfs};
use mtr::MapRef;

/// An image file to decode, and how.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageSource {
    File(GameFile),
    /// A height map from which a normal map is derived at decode time
    /// ([`normals_from_heights`]), with the material's bump scale.
    HeightMap {
        file: GameFile,
        scale: f32,
    },
}

impl ImageSource {
    pub fn file(&self) -> &GameFile {
        match self {
            ImageSource::File(file) | ImageSource::HeightMap { file, .. } => file,
        }
    }
}

/// A shader's image files. A map that is `None` is drawn with its kind's
/// default ([`MapKind::default_texel`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialImages {
    pub diffuse: Option<ImageSource>,
    pub normal: Option<ImageSource>,
    pub specular: Option<ImageSource>,
    /// Where the answer came from, for logs: the material's `file:line`,
    /// [`ORIGIN_IMPLICIT`], [`ORIGIN_MESH_FOLDER`] or [`ORIGIN_NONE`].
    pub origin: String,
    /// What could not be found, for the caller to log.
    pub warnings: Vec<String>,
}

/// No material of that name: the shader itself named an image in the game folder.
pub const ORIGIN_IMPLICIT: &str = "implicit";
/// The shader named an image relative to the mesh's folder (or its file name is there).
pub const ORIGIN_MESH_FOLDER: &str = "mesh folder";
/// Nothing was found.
pub const ORIGIN_NONE: &str = "none";

impl MaterialImages {
    pub fn get(&self, kind: MapKind) -> Option<&ImageSource> {
        match kind {
            MapKind::Diffuse => self.diffuse.as_ref(),
            MapKind::Normal => self.normal.as_ref(),
            MapKind::Specular => self.specular.as_ref(),
            // A .mtr names neither.
            MapKind::Emissive | MapKind::Occlusion => None,
        }
    }

    fn slot(&mut self, kind: MapKind) -> &mut Option<ImageSource> {
        match kind {
            MapKind::Diffuse => &mut self.diffuse,
            MapKind::Normal => &mut self.normal,
            MapKind::Specular => &mut self.specular,
            MapKind::Emissive | MapKind::Occlusion => {
                unreachable!("a .mtr material names only the first three maps")
            }
        }
    }
}

/// A material as parsed, its images not yet looked up.
#[derive(Clone, Debug)]
struct Material {
    /// `file:line` of its name.
    origin: String,
    maps: [(MapKind, Option<MapRef>); 3],
}

/// The materials of one game folder.
#[derive(Debug, Default)]
pub struct MaterialLibrary {
    game: Option<Vfs>,
    /// By `find::canonical_name`: lower case, no extension.
    materials: HashMap<String, Material>,
    /// How many `.mtr` files were read.
    mtr_files: usize,
    /// Every problem met while loading, `file:line: what` (already logged).
    pub warnings: Vec<String>,
}

impl MaterialLibrary {
    /// No game folder: shaders resolve only next to the mesh.
    pub fn empty() -> MaterialLibrary {
        MaterialLibrary::default()
    }

    /// The library for a mesh on disk: the game folder is `textures` when
    /// given (the `--textures DIR` option), else
    /// [`MaterialLibrary::base_folder_for`]; opened with its archives
    /// ([`Vfs::open_game`], whose warnings join the library's).
    pub fn for_mesh(mesh_path: &Path, textures: Option<&Path>) -> MaterialLibrary {
        match textures
            .map(Path::to_path_buf)
            .or_else(|| MaterialLibrary::base_folder_for(mesh_path))
        {
            Some(base) => {
                let (game, warnings) = Vfs::open_game(&base, None);
                let mut library = MaterialLibrary::from_vfs(&game);
                library.warnings.splice(0..0, warnings);
                library
            }
            None => MaterialLibrary::empty(),
        }
    }

    /// The game base folder a mesh belongs to: the nearest folder at or
    /// above the mesh's holding a `materials` folder (any case), else the
    /// parent of the nearest `models` folder on the mesh's path.
    pub fn base_folder_for(mesh_path: &Path) -> Option<PathBuf> {
        let absolute = std::path::absolute(mesh_path).unwrap_or_else(|_| mesh_path.to_path_buf());
        let folder = absolute.parent()?;
        if let Some(base) = folder
            .ancestors()
            .find(|dir| vfs::child_folder(dir, "materials").is_some())
        {
            return Some(base.to_path_buf());
        }
        folder
            .ancestors()
            .find(|dir| {
                dir.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.eq_ignore_ascii_case("models"))
            })
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    }

    /// [`MaterialLibrary::read`], and its summary logged
    /// ([`MaterialLibrary::log_summary`]).
    pub fn from_vfs(game: &Vfs) -> MaterialLibrary {
        let library = MaterialLibrary::read(game);
        library.log_summary();
        library
    }

    /// Parses the game's `materials/*.mtr` (in name order; the first
    /// definition of a name wins, as in the game). Problems are warnings,
    /// logged and kept in [`MaterialLibrary::warnings`]; a game without
    /// `materials/` still resolves implicit materials.
    pub fn read(game: &Vfs) -> MaterialLibrary {
        let files = game.list("materials", "mtr");
        let mut library = MaterialLibrary {
            game: Some(game.clone()),
            mtr_files: files.len(),
            ..MaterialLibrary::default()
        };
        for file in &files {
            let shown = file.to_string();
            let text = match file.read_text() {
                Ok(text) => text,
                Err(error) => {
                    library.warnings.push(format!("{shown}: {error}"));
                    continue;
                }
            };
            let parsed = mtr::parse(&text, &shown);
            library.warnings.extend(parsed.warnings);
            for decl in parsed.materials {
                library.add(decl, &shown);
            }
        }
        for warning in &library.warnings {
            log::warn!("{warning}");
        }
        library
    }

    /// Logs how many materials were read from how many `.mtr` files, and
    /// where: a start-up line, which the command line logs once the
    /// arguments have been checked (bad input is one error line).
    pub fn log_summary(&self) {
        if let Some(game) = &self.game {
            log::info!(
                "materials: {} from {} .mtr files in {game}",
                self.materials.len(),
                self.mtr_files,
            );
        }
    }

    fn add(&mut self, decl: mtr::MaterialDecl, file: &str) {
        let origin = format!("{file}:{}", decl.line);
        let key = find::canonical_name(&decl.name);
        if let Some(first) = self.materials.get(&key) {
            self.warnings.push(format!(
                "{origin}: material {} is already defined at {}; ignored",
                decl.name, first.origin
            ));
            return;
        }
        let material = Material {
            origin,
            maps: [
                (MapKind::Diffuse, decl.diffuse),
                (MapKind::Normal, decl.normal),
                (MapKind::Specular, decl.specular),
            ],
        };
        self.materials.insert(key, material);
    }

    /// The game folder's base folder.
    pub fn base(&self) -> Option<&Path> {
        self.game.as_ref().map(Vfs::base)
    }

    /// How many materials were defined.
    pub fn len(&self) -> usize {
        self.materials.len()
    }

    pub fn is_empty(&self) -> bool {
        self.materials.is_empty()
    }

    /// Whether a material of that name (any case, extension ignored) is defined.
    pub fn contains(&self, name: &str) -> bool {
        self.materials.contains_key(&find::canonical_name(name))
    }

    /// The images of `shader` for the mesh in `mesh`, first found of:
    /// 1. the material of that name, each of its images looked up in the
    ///    game folder (an image it names that is not there is a warning and
    ///    that map is `None`);
    /// 2. the implicit material: the shader itself as a diffuse image in
    ///    the game folder (the game's rule for undefined materials);
    /// 3. for a mesh on disk, the shader as an image path relative to the
    ///    mesh's folder, then its file name alone in that folder (md5 files
    ///    outside a game tree).
    ///
    /// Every lookup tolerates a missing or different image extension and a
    /// different case, and prefers a precompressed copy under `dds/` (see
    /// `find`). Warnings are kept in the result, for the caller to log.
    pub fn resolve(&self, shader: &str, mesh: &GameFile) -> MaterialImages {
        let mut images = MaterialImages::default();
        if let Some(game) = &self.game {
            if let Some(material) = self.materials.get(&find::canonical_name(shader)) {
                images.origin = material.origin.clone();
                for (kind, map) in &material.maps {
                    let Some(map) = map else { continue };
                    match self.find_map(game, shader, material, *kind, map) {
                        Ok(source) => *images.slot(*kind) = source,
                        Err(warning) => images.warnings.push(warning),
                    }
                }
                log::debug!("shader {shader}: material at {}: {images:?}", images.origin);
                return images;
            }
            if !shader.is_empty() {
                if let Some(file) = find::find_image(game, shader) {
                    images.diffuse = Some(ImageSource::File(file));
                    images.origin = ORIGIN_IMPLICIT.to_owned();
                    return images;
                }
            }
        }
        let folder = mesh.loose_path().map(|path| match path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        });
        let file_name = shader.rsplit(['/', '\\']).next().unwrap_or(shader);
        if let Some(folder) = folder.filter(|_| !shader.is_empty()) {
            let beside = Vfs::folder(folder);
            for reference in [shader, file_name] {
                if let Some(file) = find::find_image(&beside, reference) {
                    images.diffuse = Some(ImageSource::File(file));
                    images.origin = ORIGIN_MESH_FOLDER.to_owned();
                    return images;
                }
            }
        }
        let mut places = Vec::new();
        if let Some(game) = &self.game {
            places.push(format!("no material and no image {shader} in {game}"));
        }
        if let Some(folder) = folder {
            places.push(format!(
                "no image {shader} or {file_name} in {}",
                folder.display()
            ));
        }
        let warning = if shader.is_empty() {
            "an empty shader name; using a neutral grey material".to_owned()
        } else {
            format!(
                "shader \"{shader}\": {} (extension optional, any case); using a neutral grey material",
                places.join(", ")
            )
        };
        images.warnings.push(warning);
        images.origin = ORIGIN_NONE.to_owned();
        images
    }

    /// One map of a defined material in the game; `Ok(None)` for the
    /// game's built-in images (`_flat`, `_black`...), which the defaults
    /// stand for.
    fn find_map(
        &self,
        game: &Vfs,
        shader: &str,
        material: &Material,
        kind: MapKind,
        map: &MapRef,
    ) -> Result<Option<ImageSource>, String> {
        let reference = match map {
            MapRef::Image(reference)
            | MapRef::HeightMap {
                image: reference, ..
            } => reference,
        };
        if reference.starts_with('_') {
            log::debug!(
                "{}: material {shader}: {kind} map is the built-in {reference}; using the default",
                material.origin
            );
            return Ok(None);
        }
        match find::find_image(game, reference) {
            Some(file) => Ok(Some(match map {
                MapRef::Image(_) => ImageSource::File(file),
                MapRef::HeightMap { scale, .. } => ImageSource::HeightMap {
                    file,
                    scale: *scale,
                },
            })),
            None => Err(format!(
                "{}: material {shader}: {kind} map {reference} is not in {game} \
                 (extension optional, any case); left out",
                material.origin
            )),
        }
    }
}
