//! A declaration file cut into declarations, as id Tech 4's declaration
//! manager does (`idDeclFile::LoadAndParse`): `TYPE NAME { ... }`, braces
//! matched over tokens, so a quoted `"}"` closes nothing. A file's folder
//! gives a type to declarations written without one (`NAME { ... }` is an
//! entityDef in a `.def`, a skin in a `.skin`). The bodies of the types read
//! here are kept as tokens for their own parsers; every other declaration
//! is skipped whole. A syntax error is a warning, and the scan goes on with
//! the next token, as the game does.

use super::lexer::{tokenize, Token, TokenKind};
use super::{DeclKind, Origin};

/// Declaration types of Doom 3 (engine and game) that are read only to be
/// skipped, besides those in [`DeclKind`].
const SKIPPED_TYPES: &[&str] = &[
    "table",
    "material",
    "sound",
    "mapDef",
    "fx",
    "particle",
    "articulatedFigure",
    "pda",
    "email",
    "video",
    "audio",
    "export",
];

/// A declaration of a type read here, its body's tokens between (not
/// holding) its braces.
#[derive(Debug)]
pub struct RawDecl {
    pub kind: DeclKind,
    pub name: String,
    pub origin: Origin,
    pub body: Vec<Token>,
    /// The line of the closing brace.
    pub end_line: u32,
}

/// What a type word names: a type read here, or one skipped.
enum Type {
    Read(DeclKind),
    Skipped,
}

fn type_named(word: &Token) -> Option<Type> {
    if word.kind != TokenKind::Name {
        return None;
    }
    let read = [DeclKind::Model, DeclKind::Entity, DeclKind::Skin];
    if let Some(&kind) = read.iter().find(|k| word.is_word(k.type_word())) {
        Some(Type::Read(kind))
    } else {
        SKIPPED_TYPES
            .iter()
            .any(|t| word.is_word(t))
            .then_some(Type::Skipped)
    }
}

/// The type of declarations written without one in a file at `origin`,
/// by its extension (the game's declaration folders: `def/*.def`,
/// `skins/*.skin`, `materials/*.mtr`).
fn default_type(origin: &str) -> Option<Type> {
    let lower = origin.to_ascii_lowercase();
    if lower.ends_with(".def") {
        Some(Type::Read(DeclKind::Entity))
    } else if lower.ends_with(".skin") {
        Some(Type::Read(DeclKind::Skin))
    } else if lower.ends_with(".mtr") {
        Some(Type::Skipped)
    } else {
        None
    }
}

/// The declarations of `text`, read from `origin`; warnings as (line,
/// message).
pub fn scan(origin: &str, text: &str) -> (Vec<RawDecl>, Vec<(u32, String)>) {
    let (tokens, mut warnings) = tokenize(text);
    let mut decls = Vec::new();
    let mut at = 0;
    while let Some(first) = tokens.get(at) {
        if first.is_punctuation('{') {
            warnings.push((
                first.line,
                "a '{' with no declaration type and name before it".into(),
            ));
            match closing_brace(&tokens, at) {
                Some(close) => at = close + 1,
                None => break,
            }
            continue;
        }
        let (kind, name_at) = match type_named(first) {
            Some(kind) => (kind, at + 1),
            // `WORD NAME {`: a declaration type not read here (another
            // game's); skipped without a word.
            None if tokens.get(at + 2).is_some_and(|t| t.is_punctuation('{'))
                && !tokens[at + 1].is_punctuation('{') =>
            {
                (Type::Skipped, at + 1)
            }
            None => match default_type(origin) {
                Some(kind) => (kind, at),
                None => {
                    warnings.push((
                        first.line,
                        format!("'{}' is no declaration type", first.text),
                    ));
                    at += 1;
                    continue;
                }
            },
        };
        let Some(name) = tokens.get(name_at) else {
            warnings.push((
                first.line,
                format!("'{}' at the end of the file", first.text),
            ));
            break;
        };
        if name.is_punctuation('{') {
            warnings.push((
                name.line,
                format!("a declaration of type '{}' with no name", first.text),
            ));
            match closing_brace(&tokens, name_at) {
                Some(close) => at = close + 1,
                None => break,
            }
            continue;
        }
        let open_at = name_at + 1;
        match tokens.get(open_at) {
            Some(open) if open.is_punctuation('{') => {}
            Some(other) => {
                warnings.push((
                    other.line,
                    format!(
                        "expected '{{' after '{}', found '{}'",
                        name.text, other.text
                    ),
                ));
                at = open_at + 1;
                continue;
            }
            None => {
                warnings.push((name.line, format!("'{}' at the end of the file", name.text)));
                break;
            }
        }
        let Some(close) = closing_brace(&tokens, open_at) else {
            warnings.push((
                tokens[open_at].line,
                format!("the '{{' of '{}' is never closed", name.text),
            ));
            break;
        };
        if let Type::Read(kind) = kind {
            decls.push(RawDecl {
                kind,
                name: name.text.clone(),
                origin: Origin {
                    source: origin.to_owned(),
                    line: first.line,
                },
                body: tokens[open_at + 1..close].to_vec(),
                end_line: tokens[close].line,
            });
        }
        at = close + 1;
    }
    (decls, warnings)
}

/// The index of the `}` that closes the `{` at `open`.
pub fn closing_brace(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        if token.is_punctuation('{') {
            depth += 1;
        } else if token.is_punctuation('}') {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(decls: &[RawDecl]) -> Vec<(DeclKind, &str, u32)> {
        decls
            .iter()
            .map(|d| (d.kind, d.name.as_str(), d.origin.line))
            .collect()
    }

    #[test]
    fn types_are_read_skipped_or_given_by_the_folder() {
        let text = "\
table sinTable { { 0, 1 } }
model monster_imp {
    mesh imp.md5mesh
}
export fred { options -prefix IMP_ }
monster_default {
    \"}\" \"{\"
}
skin skins/imp_red { * textures/red }
newType thing { }
";
        let (decls, warnings) = scan("def/imp.def", text);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            names(&decls),
            [
                (DeclKind::Model, "monster_imp", 2),
                (DeclKind::Entity, "monster_default", 6),
                (DeclKind::Skin, "skins/imp_red", 9),
            ]
        );
        assert_eq!(decls[1].body.len(), 2);
        // In a .skin, a declaration with no type is a skin.
        let (decls, _) = scan("skins/imp.skin", "imp_blue { * textures/blue }");
        assert_eq!(names(&decls), [(DeclKind::Skin, "imp_blue", 1)]);
    }

    #[test]
    fn syntax_errors_warn_and_the_scan_goes_on() {
        let text = "\
{ \"stray\" \"braces\" }
model broken mesh x.md5mesh }
entityDef {
}
model fine { mesh fine.md5mesh }
entityDef last {
";
        let (decls, warnings) = scan("def/errors.def", text);
        assert_eq!(names(&decls), [(DeclKind::Model, "fine", 5)]);
        assert_eq!(
            warnings,
            [
                (
                    1,
                    "a '{' with no declaration type and name before it".to_owned()
                ),
                (2, "expected '{' after 'broken', found 'mesh'".to_owned()),
                // `x.md5mesh }` read as an entityDef named x.md5mesh.
                (2, "expected '{' after 'x.md5mesh', found '}'".to_owned()),
                (
                    3,
                    "a declaration of type 'entityDef' with no name".to_owned()
                ),
                (6, "the '{' of 'last' is never closed".to_owned()),
            ]
        );
        // Outside a declaration folder nothing has a default type.
        let (decls, warnings) = scan("notes.txt", "hello model m { mesh m.md5mesh }");
        assert_eq!(names(&decls), [(DeclKind::Model, "m", 1)]);
        assert_eq!(warnings, [(1, "'hello' is no declaration type".to_owned())]);
    }
}
