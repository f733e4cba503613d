//! `model NAME { ... }`: the game's model declarations
//! (`idDeclModelDef::Parse`), naming a character's mesh, its clips, an
//! offset, a skin and its channels.
//!
//! Statements, in order: `mesh PATH`, `anim NAME FILE [, FILE ...] [{ ... }]`
//! (the block of frame commands and flags is skipped), `offset ( x y z )`,
//! `skin NAME`, `channel NAME ( JOINTS )` (a named set of joints that plays
//! its own clip: `*joint` is the joint and all below it, a bare name the
//! joint alone, and `-` before either takes it out of the set built so
//! far; `( )` is empty), `inherit NAME` (the parent's mesh, clips, offset,
//! skin and channels replace everything so far; later statements add to
//! them or override them), `remove NAME` (drops the inherited clips named
//! NAME, or whose name is NAME and digits: `remove pain` drops `pain1` and
//! `pain2`, the game's random variants). A clip or channel declared again
//! after `inherit` replaces the inherited one in place; one declared twice
//! in the model itself too, with a warning (the game rejects a model that
//! declares a clip twice).
//! Any other word is an error, and the model is skipped, as the game
//! defaults it.
//!
//! Which joints a channel's names are is known only with the mesh's
//! skeleton: `anim::Channels` resolves them, and names no joint has are
//! warnings there. Unlike the game, which knows five channels (`torso`,
//! `legs`, `head`, `eyelids`, and `all`, the whole body), any name but
//! `all` is taken.

use glam::Vec3;

use super::cursor::{unexpected, BodyError, Cursor};
use super::lexer::{Token, TokenKind};
use super::Origin;

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

/// `channel NAME ( JOINTS )`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDecl {
    pub name: String,
    pub joints: Vec<ChannelJoint>,
}

/// One word of a channel's joint list: `Waist`, `*Waist`, `-Waist`,
/// `-*Waist` (the game's lexer reads `-` and `*` as tokens of their own,
/// so `- * Waist` is the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelJoint {
    pub name: String,
    /// `*`: the joint and all its descendants.
    pub subtree: bool,
    /// `-`: out of the set built so far.
    pub removed: bool,
}

/// A channel of a resolved model and where it was written: inherited
/// channels were written in a parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredChannel {
    /// The model declaration whose body holds the `channel` line.
    pub model: String,
    /// The `channel` line.
    pub origin: Origin,
    pub channel: ChannelDecl,
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
    Channel(ChannelDecl),
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
            "channel" => StatementKind::Channel(parse_channel(&mut cursor)?),
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

/// After `channel`: the name, then the joints between parentheses.
fn parse_channel(cursor: &mut Cursor) -> Result<ChannelDecl, BodyError> {
    let name = cursor.expect("a channel name")?;
    if name.kind == TokenKind::Punctuation || name.text.eq_ignore_ascii_case("all") {
        // `all` is the whole body: the joints no channel claims.
        return Err(unexpected(name, "a channel name other than 'all'"));
    }
    cursor.expect_punctuation('(', "the channel's name")?;
    let mut channel = ChannelDecl {
        name: name.text.clone(),
        joints: Vec::new(),
    };
    while !cursor.eat(')') {
        let removed = cursor.eat('-');
        let subtree = cursor.eat('*');
        let what = "a joint name, '*' or '-' in the channel's joints, or ')' closing them";
        let joint = cursor.expect(what)?;
        if joint.kind == TokenKind::Punctuation {
            return Err(unexpected(joint, what));
        }
        channel.joints.push(ChannelJoint {
            name: joint.text.clone(),
            subtree,
            removed,
        });
    }
    Ok(channel)
}

/// A model with its inherits applied: what it names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelContents {
    pub mesh: Option<String>,
    pub anims: Vec<AnimDecl>,
    pub offset: Vec3,
    pub skin: Option<String>,
    /// In the order first declared: a channel declared again keeps its
    /// place (the game keeps each channel in a slot of its own).
    pub channels: Vec<DeclaredChannel>,
}

/// The model declaration whose statements [`apply`] applies.
pub struct Declaring<'a> {
    pub name: &'a str,
    /// Its [`super::DeclSource::origin`].
    pub source: &'a str,
}

/// Applies `statements` of `model` in order. `parent(name)` gives an
/// inherited model's contents, or the warning to give instead (an unknown
/// name, a cycle); warnings are (line, message).
pub fn apply(
    model: &Declaring,
    statements: &[Statement],
    mut parent: impl FnMut(&str) -> Result<ModelContents, String>,
) -> (ModelContents, Vec<(u32, String)>) {
    let mut contents = ModelContents::default();
    let mut warnings = Vec::new();
    // The clips before this index came from the parent.
    let mut inherited = 0;
    // And the channels before this one.
    let mut inherited_channels = 0;
    for statement in statements {
        let line = statement.line;
        match &statement.what {
            StatementKind::Inherit(name) => match parent(name) {
                Ok(copy) => {
                    contents = copy;
                    inherited = contents.anims.len();
                    inherited_channels = contents.channels.len();
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
            StatementKind::Channel(channel) => {
                let declared = DeclaredChannel {
                    model: model.name.to_owned(),
                    origin: Origin {
                        source: model.source.to_owned(),
                        line,
                    },
                    channel: channel.clone(),
                };
                let name = &channel.name;
                let channels = &mut contents.channels;
                match channels
                    .iter()
                    .position(|c| c.channel.name.eq_ignore_ascii_case(name))
                {
                    Some(i) => {
                        if i >= inherited_channels {
                            warnings.push((
                                line,
                                format!(
                                    "channel '{name}' is declared twice; the later one is used"
                                ),
                            ));
                        }
                        channels[i] = declared;
                    }
                    None => channels.push(declared),
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

    const IMP: Declaring = Declaring {
        name: "monster_demon_imp",
        source: "def/monster_demon_imp.def",
    };
    const PARENT: Declaring = Declaring {
        name: "parent",
        source: "def/parent.def",
    };
    const CHILD: Declaring = Declaring {
        name: "child",
        source: "def/child.def",
    };

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
        let (contents, warnings) = apply(&IMP, &parsed, |_| unreachable!());
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
        let channels: Vec<(&str, Vec<String>, u32)> = contents
            .channels
            .iter()
            .map(|c| (c.channel.name.as_str(), joints(&c.channel), c.origin.line))
            .collect();
        assert_eq!(
            channels,
            [
                ("torso", vec!["*Waist".to_owned()], 3),
                (
                    "legs",
                    ["origin", "Body", "Body2", "*Hips", "-*Waist", "SPINNER"]
                        .map(str::to_owned)
                        .into(),
                    4
                ),
            ]
        );
        assert_eq!(contents.channels[0].model, "monster_demon_imp");
        assert_eq!(
            contents.channels[1].origin.to_string(),
            "def/monster_demon_imp.def:4"
        );
    }

    /// A channel's joints written back as the file writes them.
    fn joints(channel: &ChannelDecl) -> Vec<String> {
        channel
            .joints
            .iter()
            .map(|j| {
                let minus = if j.removed { "-" } else { "" };
                let star = if j.subtree { "*" } else { "" };
                format!("{minus}{star}{}", j.name)
            })
            .collect()
    }

    #[test]
    fn channel_joints_as_the_lexer_splits_them() {
        let parsed = statements(
            "channel head ( ) // empty
             channel eyelids ( Leyelid\tReyelid \"quoted name\" 2 )
             channel torso ( - * Waist *Chest - Neck )",
        )
        .unwrap();
        let channels: Vec<(&str, Vec<String>)> = parsed
            .iter()
            .map(|s| match &s.what {
                StatementKind::Channel(c) => (c.name.as_str(), joints(c)),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            channels,
            [
                ("head", vec![]),
                (
                    "eyelids",
                    ["Leyelid", "Reyelid", "quoted name", "2"]
                        .map(str::to_owned)
                        .into()
                ),
                (
                    "torso",
                    ["-*Waist", "*Chest", "-Neck"].map(str::to_owned).into()
                ),
            ]
        );
        let error = |text| statements(text).unwrap_err();
        assert_eq!(
            error("mesh a.md5mesh\nchannel all ( *origin )"),
            BodyError {
                line: 2,
                message: "expected a channel name other than 'all', found 'all'".into()
            }
        );
        assert_eq!(
            error("channel ( Waist )").message,
            "expected a channel name other than 'all', found '('"
        );
        assert_eq!(
            error("channel torso *Waist").message,
            "expected '(' after the channel's name, found '*'"
        );
        let joint = "a joint name, '*' or '-' in the channel's joints, or ')' closing them";
        assert_eq!(
            error("channel torso (\n Waist,\n Chest )"),
            BodyError {
                line: 2,
                message: format!("expected {joint}, found ','")
            }
        );
        assert_eq!(
            error("channel torso ( *Waist - )").message,
            format!("expected {joint}, found ')'")
        );
        assert_eq!(
            error("channel torso ( *Waist\n").message,
            format!("the declaration ends where {joint} was expected")
        );
    }

    #[test]
    fn inherited_channels_are_replaced_in_place_and_new_ones_appended() {
        let parent = statements(
            "mesh parent.md5mesh
             channel torso ( *Waist )
             channel legs ( *origin -*Waist )",
        )
        .unwrap();
        let (parent, warnings) = apply(&PARENT, &parent, |_| unreachable!());
        assert!(warnings.is_empty());
        let child = statements(
            "channel lost ( Lost )
             inherit parent
             channel eyelids ( Leyelid Reyelid )
             channel TORSO ( *Chest )
             channel eyelids ( Leyelid )",
        )
        .unwrap();
        let (contents, warnings) = apply(&CHILD, &child, |_| Ok(parent.clone()));
        let channels: Vec<(&str, Vec<String>, String)> = contents
            .channels
            .iter()
            .map(|c| {
                let at = format!("{} {}", c.model, c.origin);
                (c.channel.name.as_str(), joints(&c.channel), at)
            })
            .collect();
        assert_eq!(
            channels,
            [
                (
                    "TORSO",
                    vec!["*Chest".to_owned()],
                    "child def/child.def:4".to_owned()
                ),
                (
                    "legs",
                    vec!["*origin".to_owned(), "-*Waist".to_owned()],
                    "parent def/parent.def:3".to_owned()
                ),
                (
                    "eyelids",
                    vec!["Leyelid".to_owned()],
                    "child def/child.def:5".to_owned()
                ),
            ]
        );
        assert_eq!(
            warnings,
            [(
                5,
                "channel 'eyelids' is declared twice; the later one is used".to_owned()
            )]
        );
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
        let (parent, _) = apply(&PARENT, &parent, |_| unreachable!());
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
        let (contents, warnings) = apply(&CHILD, &child, |name| {
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
        let (_, warnings) = apply(&CHILD, &child, |_| Err("no such parent".into()));
        assert_eq!(warnings[0], (2, "no such parent".to_owned()));
    }
}
