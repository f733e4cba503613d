//! What the mesh and anim grammars share: reading typed values from the token
//! stream, and errors that point at the token that broke a rule and say what
//! was expected there.

use std::num::IntErrorKind;

use glam::{Quat, Vec2, Vec3};

use super::error::Md5Error;
use super::lexer::{Lexer, Token, TokenKind};
use super::quat_from_xyz;

pub(super) type Result<T> = std::result::Result<T, Md5Error>;

/// Error messages quote at most this many characters of a token.
const QUOTED_TOKEN_CHARS: usize = 40;

pub(super) struct Parser<'a> {
    lexer: Lexer<'a>,
    file: &'a str,
}

impl<'a> Parser<'a> {
    pub fn new(text: &'a str, file: &'a str) -> Self {
        Self {
            lexer: Lexer::new(text),
            file,
        }
    }

    pub fn next(&mut self) -> Result<Token<'a>> {
        self.lexer.next_token().map_err(|e| {
            self.error_at(
                e.offset,
                "unterminated string: no closing '\"' on this line",
            )
        })
    }

    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> Md5Error {
        Md5Error {
            file: self.file.to_owned(),
            location: Some(self.lexer.location(offset)),
            message: message.into(),
        }
    }

    pub fn error(&self, token: &Token, message: impl Into<String>) -> Md5Error {
        self.error_at(token.offset, message)
    }

    /// `expected` names what the grammar wanted where `token` is.
    pub fn unexpected(&self, token: &Token, expected: &str) -> Md5Error {
        let message = match token.kind {
            TokenKind::EndOfFile => format!("unexpected end of file, expected {expected}"),
            _ => format!("expected {expected} but found {}", describe(token)),
        };
        self.error(token, message)
    }

    /// How many entries a header count may reserve room for: never more than
    /// the rest of the file could hold at `min_entry_bytes` each, so a forged
    /// `numverts 4000000000` costs nothing until the entries really appear.
    pub fn capacity(&self, count: u32, min_entry_bytes: usize) -> usize {
        usize::try_from(count)
            .unwrap_or(usize::MAX)
            .min(self.lexer.remaining_bytes() / min_entry_bytes)
    }

    /// `MD5Version 10` and the commandline; returns the commandline.
    pub fn header(&mut self) -> Result<String> {
        let first = self.next()?;
        match (first.kind, first.text) {
            (TokenKind::Word, "MD5Version") => {}
            (TokenKind::EndOfFile, _) => {
                return Err(self.error(&first, "empty file, expected 'MD5Version 10'"))
            }
            _ => {
                let found = describe(&first);
                return Err(self.error(
                    &first,
                    format!("not an md5 file: expected 'MD5Version' but found {found}"),
                ));
            }
        }
        let (version, token) = self.int()?;
        if version != 10 {
            return Err(self.error(
                &token,
                format!("unsupported MD5Version {version}, expected 10"),
            ));
        }
        self.keyword("commandline")?;
        Ok(self.string()?.to_owned())
    }

    pub fn keyword(&mut self, word: &str) -> Result<Token<'a>> {
        self.keyword_described(word, || format!("'{word}'"))
    }

    /// Like [`Self::keyword`], with `expected` saying more than the word itself
    /// (which entry of a counted list was due, say).
    pub fn keyword_described(
        &mut self,
        word: &str,
        expected: impl FnOnce() -> String,
    ) -> Result<Token<'a>> {
        let token = self.next()?;
        if token.kind == TokenKind::Word && token.text == word {
            Ok(token)
        } else {
            Err(self.unexpected(&token, &expected()))
        }
    }

    pub fn bracket(&mut self, bracket: &str) -> Result<Token<'a>> {
        self.bracket_described(bracket, || format!("'{bracket}'"))
    }

    pub fn bracket_described(
        &mut self,
        bracket: &str,
        expected: impl FnOnce() -> String,
    ) -> Result<Token<'a>> {
        let token = self.next()?;
        if token.is_bracket(bracket) {
            Ok(token)
        } else {
            Err(self.unexpected(&token, &expected()))
        }
    }

    pub fn end_of_file(&mut self, expected: impl FnOnce() -> String) -> Result<()> {
        let token = self.next()?;
        match token.kind {
            TokenKind::EndOfFile => Ok(()),
            _ => Err(self.unexpected(&token, &expected())),
        }
    }

    pub fn string(&mut self) -> Result<&'a str> {
        self.string_described(|| "a quoted string".to_owned())
    }

    pub fn string_described(&mut self, expected: impl FnOnce() -> String) -> Result<&'a str> {
        let token = self.next()?;
        match token.kind {
            TokenKind::Str => Ok(token.text),
            _ => Err(self.unexpected(&token, &expected())),
        }
    }

    pub fn int(&mut self) -> Result<(i64, Token<'a>)> {
        let token = self.next()?;
        Ok((self.int_of(&token)?, token))
    }

    pub fn int_of(&self, token: &Token) -> Result<i64> {
        if token.kind != TokenKind::Word {
            return Err(self.unexpected(token, "an integer"));
        }
        token
            .text
            .parse()
            .map_err(|e: std::num::ParseIntError| match e.kind() {
                IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => self.error(
                    token,
                    format!("integer {} is out of range", describe(token)),
                ),
                _ => self.unexpected(token, "an integer"),
            })
    }

    /// A non-negative integer that fits in `u32`; `what` names it in errors.
    pub fn count(&mut self, what: &str) -> Result<(u32, Token<'a>)> {
        let (value, token) = self.int()?;
        if value < 0 {
            return Err(self.error(
                &token,
                format!("{what} must not be negative, found {value}"),
            ));
        }
        let value = u32::try_from(value)
            .map_err(|_| self.error(&token, format!("{what} {value} is too large")))?;
        Ok((value, token))
    }

    /// The index that numbers an entry of a list (`vert 7 ...`): it must equal
    /// the entry's position, which rules out gaps, duplicates and reordering.
    pub fn entry_index(&mut self, what: &str, expected: u32) -> Result<()> {
        let (value, token) = self.int()?;
        if value == i64::from(expected) {
            Ok(())
        } else {
            Err(self.error(
                &token,
                format!(
                    "expected {what} index {expected} but found {value} (indices count up from 0)"
                ),
            ))
        }
    }

    /// A joint's parent index: -1 for a root, otherwise an earlier joint, so
    /// that walking the joints in order always meets a parent before its children.
    pub fn parent(&mut self, joint: u32) -> Result<Option<u32>> {
        let (value, token) = self.int()?;
        if value == -1 {
            return Ok(None);
        }
        match u32::try_from(value) {
            Ok(parent) if parent < joint => Ok(Some(parent)),
            _ if joint == 0 => Err(self.error(
                &token,
                format!("joint 0 has parent {value}, expected -1 (the first joint is a root)"),
            )),
            _ => Err(self.error(
                &token,
                format!(
                    "joint {joint} has parent {value}, expected -1 or a joint index below {joint}"
                ),
            )),
        }
    }

    pub fn float(&mut self) -> Result<f32> {
        let token = self.next()?;
        self.float_of(&token)
    }

    pub fn float_of(&self, token: &Token) -> Result<f32> {
        if token.kind != TokenKind::Word {
            return Err(self.unexpected(token, "a number"));
        }
        match token.text.parse::<f32>() {
            Ok(value) if value.is_finite() => Ok(value),
            // Rust also parses "inf" and "nan"; a literal without letters
            // other than the exponent's became infinite by overflowing.
            Ok(_)
                if token
                    .text
                    .bytes()
                    .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') =>
            {
                Err(self.unexpected(token, "a finite number"))
            }
            Ok(_) => Err(self.error(
                token,
                format!(
                    "number {} is out of range for a 32-bit float",
                    describe(token)
                ),
            )),
            Err(_) => Err(self.unexpected(token, "a number")),
        }
    }

    /// `( x y )`
    pub fn vec2(&mut self) -> Result<Vec2> {
        self.bracket("(")?;
        let v = Vec2::new(self.float()?, self.float()?);
        self.bracket(")")?;
        Ok(v)
    }

    /// `( x y z )`
    pub fn vec3(&mut self) -> Result<Vec3> {
        self.vec3_described(|| "'('".to_owned())
    }

    /// `( x y z )`, with `expected` describing the opening bracket.
    pub fn vec3_described(&mut self, expected: impl FnOnce() -> String) -> Result<Vec3> {
        self.bracket_described("(", expected)?;
        let v = Vec3::new(self.float()?, self.float()?, self.float()?);
        self.bracket(")")?;
        Ok(v)
    }

    /// `( x y z )` of a unit quaternion whose `w` the format leaves out.
    pub fn orientation(&mut self) -> Result<Quat> {
        let xyz = self.vec3()?;
        Ok(quat_from_xyz(xyz.x, xyz.y, xyz.z))
    }
}

/// A token as an error message quotes it.
fn describe(token: &Token) -> String {
    let text = match token.text.char_indices().nth(QUOTED_TOKEN_CHARS) {
        Some((cut, _)) => format!("{}...", &token.text[..cut]),
        None => token.text.to_owned(),
    };
    match token.kind {
        TokenKind::Word | TokenKind::Bracket => format!("'{text}'"),
        TokenKind::Str => format!("string \"{text}\""),
        TokenKind::EndOfFile => "end of file".to_owned(),
    }
}
