//! Reading a declaration's body token by token, for the parsers of each
//! type.

use super::lexer::{Token, TokenKind};
use super::scan::closing_brace;

/// Where a body stops making sense: the declaration is skipped with this
/// as its warning.
#[derive(Debug, PartialEq, Eq)]
pub struct BodyError {
    pub line: u32,
    pub message: String,
}

pub struct Cursor<'a> {
    tokens: &'a [Token],
    at: usize,
    /// The line of the declaration's closing brace, for "ended early".
    end_line: u32,
}

impl<'a> Cursor<'a> {
    pub fn new(tokens: &'a [Token], end_line: u32) -> Self {
        Self {
            tokens,
            at: 0,
            end_line,
        }
    }

    pub fn next(&mut self) -> Option<&'a Token> {
        let token = self.tokens.get(self.at)?;
        self.at += 1;
        Some(token)
    }

    pub fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.at)
    }

    /// The next token, which must be there: `what` says what it should
    /// have been.
    pub fn expect(&mut self, what: &str) -> Result<&'a Token, BodyError> {
        self.next().ok_or_else(|| BodyError {
            line: self.end_line,
            message: format!("the declaration ends where {what} was expected"),
        })
    }

    /// Consumes the punctuation `c` if it comes next.
    pub fn eat(&mut self, c: char) -> bool {
        let next = self.peek().is_some_and(|t| t.is_punctuation(c));
        self.at += usize::from(next);
        next
    }

    /// The punctuation `c`, which must come next.
    pub fn expect_punctuation(&mut self, c: char, after: &str) -> Result<(), BodyError> {
        let token = self.expect(&format!("'{c}' after {after}"))?;
        if token.is_punctuation(c) {
            Ok(())
        } else {
            Err(unexpected(token, &format!("'{c}' after {after}")))
        }
    }

    /// A number, with the game's minus sign as a token of its own.
    pub fn number(&mut self, what: &str) -> Result<f32, BodyError> {
        let negative = self.eat('-');
        let token = self.expect(what)?;
        let value = (token.kind == TokenKind::Number)
            .then(|| token.text.parse::<f32>().ok())
            .flatten()
            .ok_or_else(|| unexpected(token, what))?;
        Ok(if negative { -value } else { value })
    }

    /// Skips a `{ ... }` block whose `{` was just read.
    pub fn skip_block(&mut self) {
        self.at =
            closing_brace(self.tokens, self.at - 1).map_or(self.tokens.len(), |close| close + 1);
    }
}

/// "expected WHAT, found 'TOKEN'" at the token's line.
pub fn unexpected(token: &Token, what: &str) -> BodyError {
    BodyError {
        line: token.line,
        message: format!("expected {what}, found '{}'", token.text),
    }
}
