//! From an md5 `shader` string to the image files of its material.
//!
//! In Doom 3 (and Quake 4, Prey) a mesh's shader names a *material*, such
//! as `models/monsters/imp/imp`, defined in a `materials/*.mtr` file of the
//! game's base folder; the material names a diffuse, a normal and a
//! specular image elsewhere under that folder. [`MaterialLibrary`] finds
//! the base folder, parses every `.mtr` in it (`mtr`) and resolves a shader
//! to files on disk ([`MaterialLibrary::resolve`]) the way the game would on
//! a case-insensitive file system (`find`). `decode` turns those files into
//! pixels. Everything here is CPU-only; `gpu::texture` uploads the result.

mod decode;
mod find;
mod mtr;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use decode::{
    decode_image, decode_map, encode_normal, fit_within, normal_map_from_height,
    normals_from_heights, DecodedImage, MapKind,
};

use find::Found;
use mtr::MapRef;

/// An image file to decode, and how.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageSource {
    File(PathBuf),
    /// A height map from which a normal map is derived at decode time
    /// ([`normals_from_heights`]), with the material's bump scale.
    HeightMap {
        path: PathBuf,
        scale: f32,
    },
}

impl ImageSource {
    pub fn path(&self) -> &Path {
        match self {
            ImageSource::File(path) | ImageSource::HeightMap { path, .. } => path,
        }
    }
}

/// A shader's images on disk. A map that is `None` is drawn with its kind's
/// default ([`MapKind::default_texel`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialImages {
    pub diffuse: Option<ImageSource>,
    pub normal: Option<ImageSource>,
    pub specular: Option<ImageSource>,
    /// Where the answer came from, for logs: the material's `file:line`,
    /// [`ORIGIN_IMPLICIT`], [`ORIGIN_MESH_FOLDER`] or [`ORIGIN_NONE`].
    pub origin: String,
    /// What could not be found (already logged), for callers and tests.
    pub warnings: Vec<String>,
}

/// No material of that name: the shader itself named an image under the base folder.
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
        }
    }

    fn slot(&mut self, kind: MapKind) -> &mut Option<ImageSource> {
        match kind {
            MapKind::Diffuse => &mut self.diffuse,
            MapKind::Normal => &mut self.normal,
            MapKind::Specular => &mut self.specular,
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

/// The materials of one game base folder.
#[derive(Debug, Default)]
pub struct MaterialLibrary {
    base: Option<PathBuf>,
    /// By `find::canonical_name`: lower case, no extension.
    materials: HashMap<String, Material>,
    /// Every problem met while loading, `file:line: what` (already logged).
    pub warnings: Vec<String>,
}

impl MaterialLibrary {
    /// No base folder: shaders resolve only next to the mesh.
    pub fn empty() -> MaterialLibrary {
        MaterialLibrary::default()
    }

    /// The library for a mesh: the base folder is `textures` when given
    /// (the `--textures DIR` option), else [`MaterialLibrary::base_folder_for`].
    pub fn for_mesh(mesh_path: &Path, textures: Option<&Path>) -> MaterialLibrary {
        match textures
            .map(Path::to_path_buf)
            .or_else(|| MaterialLibrary::base_folder_for(mesh_path))
        {
            Some(base) => MaterialLibrary::load(&base),
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
            .find(|dir| find::child_folder(dir, "materials").is_some())
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

    /// Parses every `.mtr` file of `base/materials/` (in name order; the
    /// first definition of a name wins, as in the game). Problems are
    /// warnings, logged and kept in [`MaterialLibrary::warnings`]; a base
    /// without `materials/` still resolves implicit materials.
    pub fn load(base: &Path) -> MaterialLibrary {
        let mut library = MaterialLibrary {
            base: Some(base.to_path_buf()),
            ..MaterialLibrary::default()
        };
        let files = match find::child_folder(base, "materials") {
            Some(folder) => mtr_files(&folder, &mut library.warnings),
            None => Vec::new(),
        };
        for file in &files {
            let shown = file.display().to_string();
            let text = match std::fs::read(file) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
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
        log::info!(
            "materials: {} from {} .mtr files under {}",
            library.materials.len(),
            files.len(),
            base.display()
        );
        library
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

    pub fn base(&self) -> Option<&Path> {
        self.base.as_deref()
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

    /// The images of `shader` for the mesh at `mesh_path`, first found of:
    /// 1. the material of that name, each of its images looked up under the
    ///    base folder (an image it names that is not there is a warning and
    ///    that map is `None`);
    /// 2. the implicit material: the shader itself as a diffuse image under
    ///    the base folder (the game's rule for undefined materials);
    /// 3. the shader as an image path relative to the mesh's folder, then its
    ///    file name alone in that folder (md5 files outside a game tree).
    ///
    /// Every lookup tolerates a missing or different image extension and a
    /// different case (see `find`). Warnings are logged and kept in the result.
    pub fn resolve(&self, shader: &str, mesh_path: &Path) -> MaterialImages {
        let mut images = MaterialImages::default();
        if let Some(base) = &self.base {
            if let Some(material) = self.materials.get(&find::canonical_name(shader)) {
                images.origin = material.origin.clone();
                for (kind, map) in &material.maps {
                    let Some(map) = map else { continue };
                    match self.find_map(base, shader, material, *kind, map) {
                        Ok(source) => *images.slot(*kind) = source,
                        Err(warning) => {
                            log::warn!("{warning}");
                            images.warnings.push(warning);
                        }
                    }
                }
                log::debug!("shader {shader}: material at {}: {images:?}", images.origin);
                return images;
            }
            if !shader.is_empty() {
                if let Found::File(path) = find::find_image(base, shader) {
                    images.diffuse = Some(ImageSource::File(path));
                    images.origin = ORIGIN_IMPLICIT.to_owned();
                    return images;
                }
            }
        }
        let folder = match mesh_path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        let file_name = shader.rsplit(['/', '\\']).next().unwrap_or(shader);
        if !shader.is_empty() {
            for reference in [shader, file_name] {
                if let Found::File(path) = find::find_image(folder, reference) {
                    images.diffuse = Some(ImageSource::File(path));
                    images.origin = ORIGIN_MESH_FOLDER.to_owned();
                    return images;
                }
            }
        }
        let mut places = Vec::new();
        if let Some(base) = &self.base {
            places.push(format!(
                "no material and no image {shader} under {}",
                base.display()
            ));
        }
        places.push(format!(
            "no image {shader} or {file_name} in {}",
            folder.display()
        ));
        let warning = if shader.is_empty() {
            "an empty shader name; using a neutral grey material".to_owned()
        } else {
            format!(
                "shader \"{shader}\": {} (extension optional, any case); using a neutral grey material",
                places.join(", ")
            )
        };
        log::warn!("{warning}");
        images.warnings.push(warning);
        images.origin = ORIGIN_NONE.to_owned();
        images
    }

    /// One map of a defined material on disk; `Ok(None)` for the game's
    /// built-in images (`_flat`, `_black`...), which the defaults stand for.
    fn find_map(
        &self,
        base: &Path,
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
        let context = format!("{}: material {shader}: {kind} map", material.origin);
        match find::find_image(base, reference) {
            Found::File(path) => Ok(Some(match map {
                MapRef::Image(_) => ImageSource::File(path),
                MapRef::HeightMap { scale, .. } => ImageSource::HeightMap {
                    path,
                    scale: *scale,
                },
            })),
            Found::Dds(path) => Err(format!(
                "{context} {reference} is only a DDS file ({}), which is not supported; left out",
                path.display()
            )),
            Found::Missing => Err(format!(
                "{context} {reference} is not under {} (extension optional, any case); left out",
                base.display()
            )),
        }
    }
}

/// The `.mtr` files directly in `folder`, any case of the extension, by name.
fn mtr_files(folder: &Path, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) => {
            warnings.push(format!("{}: {error}", folder.display()));
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("mtr"))
                && path.is_file()
        })
        .collect();
    files.sort();
    files
}
