//! `skin NAME { [model PATH] ... FROM TO ... }`: material remaps
//! (`idDeclSkin`). A surface whose material is FROM draws with TO instead;
//! the first remap that matches wins, and `*` as FROM matches every
//! material. `model PATH` lines name the meshes the skin is meant for (the
//! game's editors list them); they restrict nothing.

use super::cursor::{BodyError, Cursor};
use super::lexer::Token;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remap {
    /// `None`: `*`, every material.
    pub from: Option<String>,
    pub to: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkinBody {
    pub models: Vec<String>,
    pub remaps: Vec<Remap>,
}

impl SkinBody {
    /// The material a surface of `material` draws with under this skin.
    /// Material names compare as the game's do: ignoring case, `\` the
    /// same as `/`.
    pub fn remap<'a>(&'a self, material: &'a str) -> &'a str {
        self.remaps
            .iter()
            .find(|r| {
                r.from
                    .as_deref()
                    .is_none_or(|from| same_material(from, material))
            })
            .map_or(material, |r| &r.to)
    }
}

fn same_material(a: &str, b: &str) -> bool {
    let normal = |c: u8| {
        if c == b'\\' {
            b'/'
        } else {
            c.to_ascii_lowercase()
        }
    };
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| normal(x) == normal(y))
}

pub fn parse_skin(body: &[Token], end_line: u32) -> Result<SkinBody, BodyError> {
    let mut cursor = Cursor::new(body, end_line);
    let mut skin = SkinBody::default();
    while let Some(from) = cursor.next() {
        let to = cursor.expect(&format!("what '{}' becomes", from.text))?;
        if from.is_word("model") {
            skin.models.push(to.text.clone());
        } else {
            skin.remaps.push(Remap {
                from: (from.text != "*").then(|| from.text.clone()),
                to: to.text.clone(),
            });
        }
    }
    Ok(skin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::lexer::tokenize;

    #[test]
    fn remaps_in_order_with_a_wildcard() {
        let body = r#"
	model	models/md5/monsters/imp/imp.md5mesh
	models/monsters/imp/imp			models/monsters/imp/imp_red
	"models/monsters/imp/IMP_eyes"	models/monsters/imp/eyes_red
	*								textures/common/nodraw
	models/monsters/imp/teeth		models/monsters/imp/never
"#;
        let skin = parse_skin(&tokenize(body).0, 7).unwrap();
        assert_eq!(skin.models, ["models/md5/monsters/imp/imp.md5mesh"]);
        assert_eq!(skin.remaps.len(), 4);
        assert_eq!(
            skin.remap("models/monsters/imp/imp"),
            "models/monsters/imp/imp_red"
        );
        assert_eq!(
            skin.remap("Models\\Monsters\\Imp\\Imp_Eyes"),
            "models/monsters/imp/eyes_red"
        );
        // The wildcard comes before the teeth's own remap.
        assert_eq!(
            skin.remap("models/monsters/imp/teeth"),
            "textures/common/nodraw"
        );
        let plain = parse_skin(&tokenize("a b").0, 1).unwrap();
        assert_eq!(plain.remap("c"), "c");
    }

    #[test]
    fn a_material_with_no_replacement_is_an_error() {
        let error = parse_skin(&tokenize("a b\n c").0, 3).unwrap_err();
        assert_eq!(error.line, 3);
        assert_eq!(
            error.message,
            "the declaration ends where what 'c' becomes was expected"
        );
    }
}
