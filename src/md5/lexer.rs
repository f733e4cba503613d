//! Tokens of the md5 text format.
//!
//! The format has four kinds of token: bare words, quoted strings, the
//! brackets `{ } ( )`, and the end of the file. Keywords and numbers are both
//! bare words: the grammar always knows which one it expects next, so the
//! parser decides how to read a word (and can then say "expected a number but
//! found 'vert'" instead of the lexer guessing). `//` starts a comment that runs
//! to the end of the line, anywhere except inside a string.
//!
//! Tokens borrow their text from the input and carry only a byte offset: a
//! 10 MB file is a few million tokens, and the line and column that an error
//! message needs are computed from the offset only when an error happens.

use super::error::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// A run of characters up to whitespace, a bracket, a quote or `//`.
    Word,
    /// A quoted string; the token's text is what lies between the quotes.
    Str,
    /// One of `{ } ( )`; the token's text is that character.
    Bracket,
    EndOfFile,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
    /// Byte offset of the token's first character (for a string, its opening quote).
    pub offset: usize,
}

impl Token<'_> {
    pub fn is_bracket(&self, bracket: &str) -> bool {
        self.kind == TokenKind::Bracket && self.text == bracket
    }
}

/// A string that reached the end of its line without a closing quote.
#[derive(Debug)]
pub(super) struct UnterminatedString {
    pub offset: usize,
}

const BYTE_ORDER_MARK: char = '\u{feff}';

pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Self {
        // Editors on Windows like to prepend a byte-order mark; it is not content.
        let pos = if text.starts_with(BYTE_ORDER_MARK) {
            BYTE_ORDER_MARK.len_utf8()
        } else {
            0
        };
        Self { text, pos }
    }

    /// Bytes not yet consumed: an upper bound on what the rest of the file can hold.
    pub fn remaining_bytes(&self) -> usize {
        self.text.len() - self.pos
    }

    pub fn next_token(&mut self) -> Result<Token<'a>, UnterminatedString> {
        self.skip_whitespace_and_comments();
        let start = self.pos;
        let Some(&first) = self.text.as_bytes().get(start) else {
            return Ok(self.token(TokenKind::EndOfFile, start, start));
        };
        match first {
            b'{' | b'}' | b'(' | b')' => {
                self.pos += 1;
                Ok(self.token(TokenKind::Bracket, start, start + 1))
            }
            b'"' => self.string(start),
            _ => Ok(self.word(start)),
        }
    }

    /// The 1-based line and character column of a byte offset.
    pub fn location(&self, offset: usize) -> Location {
        let before = &self.text[..offset];
        let first_line_start = if self.text.starts_with(BYTE_ORDER_MARK) {
            BYTE_ORDER_MARK.len_utf8().min(offset)
        } else {
            0
        };
        let line_start = before
            .rfind('\n')
            .map_or(first_line_start, |newline| newline + 1);
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let column = before[line_start..].chars().count() + 1;
        Location {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

    fn token(&self, kind: TokenKind, start: usize, end: usize) -> Token<'a> {
        Token {
            kind,
            text: &self.text[start..end],
            offset: start,
        }
    }

    fn skip_whitespace_and_comments(&mut self) {
        let bytes = self.text.as_bytes();
        loop {
            match bytes.get(self.pos) {
                // `\r` of CRLF line ends is whitespace like any other.
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.pos = bytes[self.pos..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(bytes.len(), |newline| self.pos + newline);
                }
                _ => return,
            }
        }
    }

    /// md5 strings have no escapes and never span lines.
    fn string(&mut self, quote: usize) -> Result<Token<'a>, UnterminatedString> {
        let bytes = self.text.as_bytes();
        let body = quote + 1;
        match bytes[body..].iter().position(|&b| b == b'"' || b == b'\n') {
            Some(len) if bytes[body + len] == b'"' => {
                self.pos = body + len + 1;
                Ok(Token {
                    kind: TokenKind::Str,
                    text: &self.text[body..body + len],
                    offset: quote,
                })
            }
            _ => Err(UnterminatedString { offset: quote }),
        }
    }

    fn word(&mut self, start: usize) -> Token<'a> {
        let bytes = self.text.as_bytes();
        let mut end = start;
        while let Some(&b) = bytes.get(end) {
            let ends_word = b.is_ascii_whitespace()
                || matches!(b, b'{' | b'}' | b'(' | b')' | b'"')
                || (b == b'/' && bytes.get(end + 1) == Some(&b'/'));
            if ends_word {
                break;
            }
            end += 1;
        }
        // Every byte that ends a word is ASCII, so `end` is a char boundary.
        self.pos = end;
        self.token(TokenKind::Word, start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(TokenKind, &str, Location)> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token().expect("no unterminated string");
            out.push((token.kind, token.text, lexer.location(token.offset)));
            if token.kind == TokenKind::EndOfFile {
                return out;
            }
        }
    }

    fn at(line: u32, column: u32) -> Location {
        Location { line, column }
    }

    #[test]
    fn words_strings_and_brackets_with_positions() {
        use TokenKind::*;
        assert_eq!(
            tokens("joints {\n\t\"origin\"\t-1 ( 0 -1.5e3 .5 )\n}"),
            vec![
                (Word, "joints", at(1, 1)),
                (Bracket, "{", at(1, 8)),
                (Str, "origin", at(2, 2)),
                (Word, "-1", at(2, 11)),
                (Bracket, "(", at(2, 14)),
                (Word, "0", at(2, 16)),
                (Word, "-1.5e3", at(2, 18)),
                (Word, ".5", at(2, 25)),
                (Bracket, ")", at(2, 28)),
                (Bracket, "}", at(3, 1)),
                (EndOfFile, "", at(3, 2)),
            ]
        );
    }

    #[test]
    fn brackets_and_quotes_end_words_without_spaces() {
        let kinds: Vec<_> = tokens("(1 2)\"a\"b{}")
            .into_iter()
            .map(|(_, text, _)| text)
            .collect();
        assert_eq!(kinds, ["(", "1", "2", ")", "a", "b", "{", "}", ""]);
    }

    #[test]
    fn comments_run_to_end_of_line_but_not_inside_strings() {
        let texts: Vec<_> = tokens("a // b c\n\"d // e\"// f\r\ng//h\n// only\n")
            .into_iter()
            .map(|(_, text, _)| text)
            .collect();
        assert_eq!(texts, ["a", "d // e", "g", ""]);
    }

    #[test]
    fn single_slash_is_part_of_a_word() {
        assert_eq!(tokens("a/b")[0].1, "a/b");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let toks = tokens("\"héllo\" x\r\n\ty");
        assert_eq!(toks[1].2, at(1, 9));
        assert_eq!(toks[2].2, at(2, 2));
    }

    #[test]
    fn unterminated_string_points_at_its_quote() {
        for text in ["a \"open", "a \"open\nclosed\""] {
            let mut lexer = Lexer::new(text);
            lexer.next_token().unwrap();
            let error = lexer.next_token().unwrap_err();
            assert_eq!(error.offset, 2, "{text:?}");
        }
    }
}
