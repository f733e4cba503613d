//! `model NAME { ... }`: the game's model declarations
//! (`idDeclModelDef::Parse`), naming a character's mesh, its clips, an
//! offset and a skin.
//!
//! Statements, in order: `mesh PATH`, `anim NAME FILE [, FILE ...] [{ ... }]`
//! (the block of frame commands and flags is skipped), `offset ( x y z )`,
//! `skin NAME`, `channel NAME ( joints )` (skipped), `inherit NAME` (the
//! parent's mesh, clips, offset and skin replace everything so far; later
//! statements add to them or override them), `remove NAME` (drops the
//! inherited clips named NAME, or whose name is NAME and digits: `remove
//! pain` drops `pain1` and `pain2`, the game's random variants). A clip
//! declared again after `inherit` replaces the inherited one in place; one
//! declared twice in the model itself too, with a warning (the game
//! rejects such a model). Any other word is an error, and the model is
//! skipped, as the game defaults it.

use glam::Vec3;

use super::cursor::{unexpected, BodyError, Cursor};
use super::lexer::Token;

/// A clip as a model declaration names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnimDecl {
    pub name: String,
    /// One file or more (the game plays several in sync); md5crowd plays
    /// the first.
    pub files: Vec<String>,
}

impl AnimDecl {
    /// The file md5crowd plays.
    pub fn file(&self) -> &str {
        &self.files[0]
    }

    /// The name without its trailing digits: the game picks at random
    /// among `pain1`, `pain2`, ... and `remove pain` drops them all.
    fn alias(&self) -> &str {
        self.name.trim_end_matches(|c: char| c.is_ascii_digit())
    }
}

/// One statement of a model's body, with its line for warnings.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub line: u32,
    pub what: StatementKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    Inherit(String),
    Mesh(String),
    Anim(AnimDecl),
    Remove(String),
    Offset(Vec3),
    Skin(String),
}

/// The statements of a model's body (its tokens between the braces);
/// `end_line` is the closing brace's line.
pub fn parse_model(body: &[Token], end_line: u32) -> Result<Vec<Statement>, BodyError> {
    let mut cursor = Cursor::new(body, end_line);
    let mut statements = Vec::new();
    while let Some(keyword) = cursor.next() {
        let word = keyword.text.to_ascii_lowercase();
        let what = match word.as_str() {
            "inherit" => StatementKind::Inherit(cursor.expect("a model name")?.text.clone()),
            "skin" => StatementKind::Skin(cursor.expect("a skin name")?.text.clone()),
            "remove" => StatementKind::Remove(cursor.expect("an anim name")?.text.clone()),
            "mesh" => {
                let path = cursor.expect("an .md5mesh path")?;
                if !path.text.to_ascii_lowercase().ends_with(".md5mesh") {
                    return Err(unexpected(path, "an .md5mesh path"));
                }
                StatementKind::Mesh(path.text.clone())
            }
            "anim" => StatementKind::Anim(parse_anim(&mut cursor)?),
            "offset" => {
                cursor.expect_punctuation('(', "offset")?;
                let mut offset = [0.0; 3];
                for value in &mut offset {
                    *value = cursor.number("a number in offset ( x y z )")?;
                }
                cursor.expect_punctuation(')', "offset ( x y z")?;
                StatementKind::Offset(Vec3::from_array(offset))
            }
            "channel" => {
                cursor.expect("a channel name")?;
                cursor.expect_punctuation('(', "the channel's name")?;
                while !cursor.eat(')') {
                    cursor.expect("')' closing the channel's joints")?;
                }
                continue;
            }
            _ => {
                return Err(unexpected(
                    keyword,
                    "a model statement (mesh, anim, offset, skin, channel, inherit, remove)",
                ))
            }
        };
        statements.push(Statement {
            line: keyword.line,
            what,
        });
    }
    Ok(statements)
}

/// After `anim`: the name, files separated by commas, an optional block.
fn parse_anim(cursor: &mut Cursor) -> Result<AnimDecl, BodyError> {
    let name = cursor.expect("an anim name")?;
    let mut anim = AnimDecl {
        name: name.text.clone(),
        files: Vec::new(),
    };
    if anim.alias().is_empty() {
        return Err(unexpected(name, "an anim name that is not only digits"));
    }
    loop {
        anim.files
            .push(cursor.expect("an .md5anim path")?.text.clone());
        if !cursor.eat(',') {
            break;
        }
    }
    if cursor.eat('{') {
        cursor.skip_block();
    }
    Ok(anim)
}

/// A model with its inherits applied: what it names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelContents {
    pub mesh: Option<String>,
    pub anims: Vec<AnimDecl>,
    pub offset: Vec3,
    pub skin: Option<String>,
}

/// Applies `statements` in order. `parent(name)` gives an inherited
/// model's contents, or the warning to give instead (an unknown name, a
/// cycle); warnings are (line, message).
pub fn apply(
    statements: &[Statement],
    mut parent: impl FnMut(&str) -> Result<ModelContents, String>,
) -> (ModelContents, Vec<(u32, String)>) {
    let mut contents = ModelContents::default();
    let mut warnings = Vec::new();
    // The clips before this index came from the parent.
    let mut inherited = 0;
    for statement in statements {
        let line = statement.line;
        match &statement.what {
            StatementKind::Inherit(name) => match parent(name) {
                Ok(copy) => {
                    contents = copy;
                    inherited = contents.anims.len();
                }
                Err(warning) => warnings.push((line, warning)),
            },
            StatementKind::Mesh(path) => contents.mesh = Some(path.clone()),
            StatementKind::Offset(offset) => contents.offset = *offset,
            StatementKind::Skin(skin) => contents.skin = Some(skin.clone()),
            StatementKind::Anim(anim) => {
                match contents.anims.iter().position(|a| a.name == anim.name) {
                    Some(i) => {
                        if i >= inherited {
                            warnings.push((
                                line,
                                format!(
                                    "anim '{}' is declared twice; the later one is used",
                                    anim.name
                                ),
                            ));
                        }
                        contents.anims[i] = anim.clone();
                    }
                    None => contents.anims.push(anim.clone()),
                }
            }
            StatementKind::Remove(name) => {
                let before = contents.anims.len();
                let mut index = 0;
                contents.anims.retain(|a| {
                    index += 1;
                    index > inherited || (a.name != *name && a.alias() != name)
                });
                let removed = before - contents.anims.len();
                inherited -= removed;
                if removed == 0 {
                    warnings.push((line, format!("no inherited anim '{name}' to remove")));
                }
            }
        }
    }
    (contents, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::lexer::tokenize;

    fn statements(text: &str) -> Result<Vec<Statement>, BodyError> {
        let (tokens, warnings) = tokenize(text);
        assert!(warnings.is_empty());
        parse_model(&tokens, 99)
    }

    #[test]
    fn a_model_body_as_the_game_writes_it() {
        let body = r#"
	mesh							models/md5/monsters/imp/imp.md5mesh
	channel torso					( *Waist )
	channel legs					( origin Body Body2 *Hips -*Waist SPINNER )
	offset							( 0 0 -4.5 )
	skin							skins/monsters/imp_red

	anim af_pose					models/md5/monsters/imp/af_pose.md5anim
	anim sight1						models/md5/monsters/imp/sight.md5anim {
		frame 16					sound_voice snd_sight
		frame 30					call overrideLegs
	}
	anim walk						models/md5/monsters/imp/walk1.md5anim,
									models/md5/monsters/imp/walk1_sync.md5anim {
		random_cycle_start
		frame 9						sound_body snd_footstep
	}
"#;
        let parsed = statements(body).unwrap();
        let (contents, warnings) = apply(&parsed, |_| unreachable!());
        assert!(warnings.is_empty());
        assert_eq!(
            contents.mesh.as_deref(),
            Some("models/md5/monsters/imp/imp.md5mesh")
        );
        assert_eq!(contents.offset, Vec3::new(0.0, 0.0, -4.5));
        assert_eq!(contents.skin.as_deref(), Some("skins/monsters/imp_red"));
        let anims: Vec<(&str, &[String])> = contents
            .anims
            .iter()
            .map(|a| (a.name.as_str(), a.files.as_slice()))
            .collect();
        assert_eq!(anims.len(), 3);
        assert_eq!(anims[1].0, "sight1");
        assert_eq!(contents.anims[2].files.len(), 2);
        assert_eq!(
            contents.anims[2].file(),
            "models/md5/monsters/imp/walk1.md5anim"
        );
        assert_eq!(parsed[0].line, 2);
    }

    #[test]
    fn errors_name_their_line() {
        let error = |text| statements(text).unwrap_err();
        assert_eq!(
            error("mesh a.md5mesh\n  anim walk walk.md5anim\n  turn 90"),
            BodyError {
                line: 3,
                message: "expected a model statement (mesh, anim, offset, skin, channel, inherit, remove), found 'turn'".into()
            }
        );
        assert_eq!(error("mesh models/imp.lwo").line, 1);
        assert_eq!(
            error("offset ( 0 x 0 )").message,
            "expected a number in offset ( x y z ), found 'x'"
        );
        assert_eq!(
            error("\n anim walk").message,
            "the declaration ends where an .md5anim path was expected"
        );
        assert_eq!(error("\n anim walk").line, 99);
        assert_eq!(
            error("anim 12 a.md5anim").message,
            "expected an anim name that is not only digits, found '12'"
        );
    }

    #[test]
    fn inherit_replaces_what_came_before_and_remove_drops_variants() {
        let parent = statements(
            "mesh parent.md5mesh offset ( 1 2 3 )
             anim idle idle.md5anim anim pain1 pain1.md5anim anim pain2 pain2.md5anim
             anim walk walk.md5anim",
        )
        .unwrap();
        let (parent, _) = apply(&parent, |_| unreachable!());
        let child = statements(
            "skin lost anim lost lost.md5anim
             inherit parent
             remove pain
             anim walk walk_fast.md5anim
             anim run run.md5anim
             remove run
             remove nothing",
        )
        .unwrap();
        let (contents, warnings) = apply(&child, |name| {
            assert_eq!(name, "parent");
            Ok(parent.clone())
        });
        assert_eq!(contents.mesh.as_deref(), Some("parent.md5mesh"));
        assert_eq!(contents.offset, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(contents.skin, None, "inherit replaced it");
        let names: Vec<(&str, &str)> = contents
            .anims
            .iter()
            .map(|a| (a.name.as_str(), a.file()))
            .collect();
        assert_eq!(
            names,
            [
                ("idle", "idle.md5anim"),
                ("walk", "walk_fast.md5anim"),
                ("run", "run.md5anim")
            ]
        );
        assert_eq!(
            warnings,
            [
                (6, "no inherited anim 'run' to remove".to_owned()),
                (7, "no inherited anim 'nothing' to remove".to_owned()),
            ]
        );
        let (_, warnings) = apply(&child, |_| Err("no such parent".into()));
        assert_eq!(warnings[0], (2, "no such parent".to_owned()));
    }
}
