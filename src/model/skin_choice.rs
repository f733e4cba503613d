//! A skin to draw a model with: a declaration's material remaps, named.
//! The game's declarations give them (`crate::game::Game::skin`); the
//! model resolves its meshes' materials under each.

use std::fmt;

use crate::decl::SkinBody;

/// The word `--skin` and `--skins` take for a mesh's own materials.
pub const DEFAULT_SKIN: &str = "default";

/// A skin to draw a crowd with: a name and its material remaps (none for
/// [`DEFAULT_SKIN`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinChoice {
    pub name: String,
    pub body: SkinBody,
}

impl SkinChoice {
    /// The mesh's own materials.
    pub fn default_skin() -> SkinChoice {
        SkinChoice {
            name: DEFAULT_SKIN.to_owned(),
            body: SkinBody::default(),
        }
    }

    /// The material a surface declared with `material` draws with.
    pub fn remap<'a>(&'a self, material: &'a str) -> &'a str {
        self.body.remap(material)
    }
}

impl fmt::Display for SkinChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
