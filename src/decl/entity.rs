//! `entityDef NAME { "key" "value" ... }`: the game's entity declarations
//! (`idDeclEntityDef::Parse`). Keys are quoted and compared ignoring case;
//! a key given twice keeps its later value (with a warning). Keys starting
//! with "inherit" name parents, whose keys (their own parents' included)
//! fill in the keys this one lacks, the first parent listed first.

use super::cursor::{unexpected, BodyError, Cursor};
use super::lexer::{Token, TokenKind};

/// Key-value pairs in the order written, inherited ones after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys(Vec<(String, String)>);

impl Keys {
    /// The value of `key`, ignoring case.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Sets `key` unless it has a value.
    fn set_default(&mut self, key: &str, value: &str) {
        if self.get(key).is_none() {
            self.0.push((key.to_owned(), value.to_owned()));
        }
    }
}

/// An entityDef's own keys (without its "inherit" keys) and the parents
/// those name, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntityBody {
    pub keys: Keys,
    pub parents: Vec<(u32, String)>,
}

/// Reads an entityDef's body; warnings (line, message) for keys given
/// twice.
pub fn parse_entity(
    body: &[Token],
    end_line: u32,
) -> Result<(EntityBody, Vec<(u32, String)>), BodyError> {
    let mut cursor = Cursor::new(body, end_line);
    let mut parsed = EntityBody::default();
    let mut warnings = Vec::new();
    while let Some(key) = cursor.next() {
        if key.kind != TokenKind::Quoted {
            return Err(unexpected(key, "a quoted key"));
        }
        let value = cursor.expect(&format!("a value for \"{}\"", key.text))?;
        if key
            .text
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("inherit"))
        {
            parsed.parents.push((key.line, value.text.clone()));
            continue;
        }
        let keys = &mut parsed.keys.0;
        match keys
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(&key.text))
        {
            Some((_, old)) => {
                warnings.push((
                    key.line,
                    format!("\"{}\" is given twice; the later value is used", key.text),
                ));
                *old = value.text.clone();
            }
            None => keys.push((key.text.clone(), value.text.clone())),
        }
    }
    Ok((parsed, warnings))
}

/// `body`'s keys with its parents' filled in; `parent(name)` gives a
/// parent's full keys, or the warning to give instead.
pub fn inherit(
    body: &EntityBody,
    mut parent: impl FnMut(&str) -> Result<Keys, String>,
) -> (Keys, Vec<(u32, String)>) {
    let mut keys = body.keys.clone();
    let mut warnings = Vec::new();
    for (line, name) in &body.parents {
        match parent(name) {
            Ok(parent_keys) => {
                for (key, value) in parent_keys.iter() {
                    keys.set_default(key, value);
                }
            }
            Err(warning) => warnings.push((*line, warning)),
        }
    }
    (keys, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::lexer::tokenize;

    fn parse(text: &str) -> Result<(EntityBody, Vec<(u32, String)>), BodyError> {
        parse_entity(&tokenize(text).0, 9)
    }

    #[test]
    fn keys_parents_and_repeats() {
        let (body, warnings) = parse(
            r#"
	"inherit"				"monster_default"
	"model"					"monster_demon_imp"
	"Model"					"monster_demon_imp_v2"
	"inherit2"				"char_base"
	"editor_usage"			"Imp. " \
							"Throws fire."
"#,
        )
        .unwrap();
        assert_eq!(body.keys.get("MODEL"), Some("monster_demon_imp_v2"));
        assert_eq!(body.keys.get("editor_usage"), Some("Imp. Throws fire."));
        assert_eq!(body.keys.get("inherit"), None);
        assert_eq!(
            body.parents,
            [
                (2, "monster_default".to_owned()),
                (5, "char_base".to_owned())
            ]
        );
        assert_eq!(
            warnings,
            [(
                4,
                "\"Model\" is given twice; the later value is used".to_owned()
            )]
        );
        let (keys, warnings) = inherit(&body, |name| match name {
            "monster_default" => Ok(Keys(vec![
                ("model".into(), "default.md5mesh".into()),
                ("health".into(), "100".into()),
            ])),
            _ => Err(format!("unknown '{name}'")),
        });
        assert_eq!(keys.get("model"), Some("monster_demon_imp_v2"));
        assert_eq!(keys.get("health"), Some("100"));
        assert_eq!(warnings, [(5, "unknown 'char_base'".to_owned())]);
    }

    #[test]
    fn unquoted_keys_and_missing_values_are_errors() {
        assert_eq!(
            parse("\"model\" \"imp\"\n model \"imp\"").unwrap_err(),
            BodyError {
                line: 2,
                message: "expected a quoted key, found 'model'".into()
            }
        );
        assert_eq!(
            parse("\"model\"").unwrap_err(),
            BodyError {
                line: 9,
                message: "the declaration ends where a value for \"model\" was expected".into()
            }
        );
    }
}
