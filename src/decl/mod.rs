//! id Tech 4 declarations: the text files with which Doom 3 (and Quake 4,
//! Prey, The Dark Mod) names its characters. Text in, data out; no files
//! are read here: the caller hands over each file's text and where it came
//! from ([`DeclSource`]).
//!
//! Three declaration types are read, wherever they appear:
//! - `model NAME { ... }` (in `def/*.def`): a mesh, named clips, an offset,
//!   a skin and channels (`model.rs` lists the statements);
//! - `entityDef NAME { "key" "value" ... }` (in `def/*.def`, where a
//!   declaration with no type is one): of its keys, "model" (a model
//!   declaration's name, or an .md5mesh path) and "skin" matter here;
//! - `skin NAME { FROM TO ... }` (in `skins/*.skin`, where a declaration
//!   with no type is one): material remaps.
//!
//! Every other declaration (materials, particles, sounds, `export`
//! blocks, and types of other games) is skipped by matching its braces.
//! Names compare ignoring case. When a name is declared twice for one
//! type, the first declaration read (that parses) is used and the later
//! one is a warning, as in the game: hand over sources in the order the
//! game reads them. `inherit` chains resolve once every file is read
//! (`inherit.rs`), a cycle being a warning. A syntax error is a warning
//! "source:line: message", logged and kept in [`DeclSet::warnings`], and
//! the declaration holding it is skipped; reading goes on with the next
//! declaration.

mod cursor;
mod entity;
mod inherit;
pub(crate) mod lexer;
mod model;
mod names;
mod read;
mod scan;
mod skin;

use std::collections::HashMap;
use std::fmt;

use glam::Vec3;

pub use entity::Keys;
pub use model::{AnimDecl, ChannelDecl, ChannelJoint, DeclaredChannel, ModelContents};
pub use skin::{Remap, SkinBody};

/// One declaration file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclSource {
    /// Where the text came from, as warnings and listings name it:
    /// `pak000.pk4/def/imp.def` or a file path. Its extension gives
    /// declarations written without a type theirs (`.def`: entityDef,
    /// `.skin`: skin).
    pub origin: String,
    pub text: String,
}

impl DeclSource {
    pub fn new(origin: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            origin: origin.into(),
            text: text.into(),
        }
    }

    /// Game files are not all UTF-8 (Latin-1 letters in comments and
    /// strings): such bytes read as U+FFFD, which no name needed here
    /// holds.
    pub fn from_bytes(origin: impl Into<String>, bytes: &[u8]) -> Self {
        Self::new(origin, String::from_utf8_lossy(bytes))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclKind {
    Model,
    Entity,
    Skin,
}

impl DeclKind {
    /// The word that starts such a declaration: "model", "entityDef",
    /// "skin".
    pub fn type_word(self) -> &'static str {
        match self {
            DeclKind::Model => "model",
            DeclKind::Entity => "entityDef",
            DeclKind::Skin => "skin",
        }
    }
}

/// Where a declaration starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The [`DeclSource::origin`] it was read from.
    pub source: String,
    /// 1-based.
    pub line: u32,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}", self.source, self.line)
    }
}

/// A model declaration with its inherits applied.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelDecl {
    pub name: String,
    pub origin: Origin,
    pub contents: ModelContents,
}

/// An entityDef with its inherited keys filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityDef {
    pub name: String,
    pub origin: Origin,
    pub keys: Keys,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skin {
    pub name: String,
    pub origin: Origin,
    pub body: SkinBody,
}

/// What a name gives to draw: an md5 mesh, its clips in the order
/// declared, an offset, a skin and channels.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedModel {
    /// The declarations followed, from the name asked for to the model
    /// declaration that names the mesh: an entityDef then its model, an
    /// entityDef alone (its "model" key an .md5mesh path), or a model.
    pub chain: Vec<(DeclKind, String, Origin)>,
    pub mesh: String,
    pub anims: Vec<AnimDecl>,
    /// Added to the model's positions (the game moves the mesh by it
    /// relative to the entity's origin).
    pub offset: Vec3,
    /// The entityDef's "skin" if it has one, else the model's `skin`.
    pub skin: Option<String>,
    /// The model's channels, in the order first declared (none for an
    /// entityDef whose "model" is an .md5mesh).
    pub channels: Vec<DeclaredChannel>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("no model or entityDef is named '{name}'{}", suggestions(.closest))]
    Unknown { name: String, closest: Vec<String> },
    #[error("entityDef '{name}' ({origin}) has no \"model\" key")]
    NoModelKey { name: String, origin: Origin },
    #[error("entityDef '{name}' ({origin}): its \"model\" '{model}' is neither a model declaration nor an .md5mesh")]
    NotMd5 {
        name: String,
        origin: Origin,
        model: String,
    },
    #[error("model '{name}' ({origin}) names no mesh")]
    NoMesh { name: String, origin: Origin },
}

fn suggestions(closest: &[String]) -> String {
    if closest.is_empty() {
        String::new()
    } else {
        format!("; the closest names: {}", closest.join(", "))
    }
}

/// A declaration as [`DeclSet::iter`] lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Declared<'a> {
    pub kind: DeclKind,
    pub name: &'a str,
    pub origin: &'a Origin,
    /// What it draws, or why it draws nothing (most entityDefs are not
    /// characters: they have no "model" key or a static one).
    pub model: Result<ResolvedModel, ResolveError>,
}

/// Every model, entityDef and skin of a game, resolved.
#[derive(Clone, Debug, Default)]
pub struct DeclSet {
    models: Vec<ModelDecl>,
    entities: Vec<EntityDef>,
    skins: Vec<Skin>,
    /// By kind and lower-case name: the index in its list.
    index: HashMap<(DeclKind, String), usize>,
    /// "source:line: message", in the order found.
    warnings: Vec<String>,
}

impl DeclSet {
    /// Reads `sources` in order (the first declaration of a name is used),
    /// then resolves inherits. Never fails: problems are
    /// [`warnings`](Self::warnings), each also logged.
    pub fn parse(sources: impl IntoIterator<Item = DeclSource>) -> DeclSet {
        let mut reading = read::Reading::default();
        for source in sources {
            reading.source(&source);
        }
        reading.finish()
    }

    /// Each warning as "source:line: message", in the order found.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn find(&self, kind: DeclKind, name: &str) -> Option<usize> {
        self.index.get(&(kind, name.to_lowercase())).copied()
    }

    pub fn model(&self, name: &str) -> Option<&ModelDecl> {
        self.find(DeclKind::Model, name).map(|i| &self.models[i])
    }

    pub fn entity(&self, name: &str) -> Option<&EntityDef> {
        self.find(DeclKind::Entity, name).map(|i| &self.entities[i])
    }

    pub fn skin(&self, name: &str) -> Option<&Skin> {
        self.find(DeclKind::Skin, name).map(|i| &self.skins[i])
    }

    /// Every skin, in the order read.
    pub fn skins(&self) -> impl Iterator<Item = &Skin> {
        self.skins.iter()
    }

    /// Up to `count` skin names closest to `name` (see `names.rs`): for
    /// "no such skin" messages.
    pub fn closest_skin_names(&self, name: &str, count: usize) -> Vec<String> {
        names::closest(name, self.skins.iter().map(|s| s.name.as_str()), count)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// What `name` draws: an entityDef of that name (the game spawns
    /// those; they often share their model's name), else a model
    /// declaration.
    pub fn resolve_model(&self, name: &str) -> Result<ResolvedModel, ResolveError> {
        if let Some(entity) = self.entity(name) {
            self.resolve_entity(entity)
        } else if let Some(model) = self.model(name) {
            resolve_model_decl(model, Vec::new(), None)
        } else {
            Err(ResolveError::Unknown {
                name: name.to_owned(),
                closest: self.closest_names(name, 5),
            })
        }
    }

    fn resolve_entity(&self, entity: &EntityDef) -> Result<ResolvedModel, ResolveError> {
        let chain = vec![(DeclKind::Entity, entity.name.clone(), entity.origin.clone())];
        let skin = entity.keys.get("skin").filter(|s| !s.is_empty());
        let Some(model) = entity.keys.get("model").filter(|m| !m.is_empty()) else {
            return Err(ResolveError::NoModelKey {
                name: entity.name.clone(),
                origin: entity.origin.clone(),
            });
        };
        if let Some(decl) = self.model(model) {
            resolve_model_decl(decl, chain, skin)
        } else if model.to_ascii_lowercase().ends_with(".md5mesh") {
            Ok(ResolvedModel {
                chain,
                mesh: model.to_owned(),
                anims: Vec::new(),
                offset: Vec3::ZERO,
                skin: skin.map(str::to_owned),
                channels: Vec::new(),
            })
        } else {
            Err(ResolveError::NotMd5 {
                name: entity.name.clone(),
                origin: entity.origin.clone(),
                model: model.to_owned(),
            })
        }
    }

    /// Up to `count` names that [`resolve_model`](Self::resolve_model)
    /// accepts, closest to `name` first (see `names.rs`): for "no such
    /// model" messages.
    pub fn closest_names(&self, name: &str, count: usize) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let drawable = self
            .entities
            .iter()
            .map(|e| e.name.as_str())
            .chain(self.models.iter().map(|m| m.name.as_str()))
            .filter(|n| seen.insert(n.to_lowercase()) && self.resolve_model(n).is_ok());
        names::closest(name, drawable, count)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Every model declaration, then every entityDef, in the order read,
    /// with what each draws (for listings: keep those whose `model` is
    /// `Ok`).
    pub fn iter(&self) -> impl Iterator<Item = Declared<'_>> {
        let models = self.models.iter().map(|m| Declared {
            kind: DeclKind::Model,
            name: &m.name,
            origin: &m.origin,
            model: resolve_model_decl(m, Vec::new(), None),
        });
        let entities = self.entities.iter().map(|e| Declared {
            kind: DeclKind::Entity,
            name: &e.name,
            origin: &e.origin,
            model: self.resolve_entity(e),
        });
        models.chain(entities)
    }
}

/// `decl` at the end of `chain`; `skin` overrides the model's.
fn resolve_model_decl(
    decl: &ModelDecl,
    mut chain: Vec<(DeclKind, String, Origin)>,
    skin: Option<&str>,
) -> Result<ResolvedModel, ResolveError> {
    let contents = &decl.contents;
    let Some(mesh) = &contents.mesh else {
        return Err(ResolveError::NoMesh {
            name: decl.name.clone(),
            origin: decl.origin.clone(),
        });
    };
    chain.push((DeclKind::Model, decl.name.clone(), decl.origin.clone()));
    Ok(ResolvedModel {
        chain,
        mesh: mesh.clone(),
        anims: contents.anims.clone(),
        offset: contents.offset,
        skin: skin.map(str::to_owned).or_else(|| contents.skin.clone()),
        channels: contents.channels.clone(),
    })
}
