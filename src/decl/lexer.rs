//! Tokens as id Tech 4's lexer reads declaration files (`idLexer` with the
//! declaration manager's flags): whitespace and `//`, `/* */` comments
//! between tokens; `"strings"` without escape characters, joined across
//! lines by a backslash (`"a" \ "b"` is `ab`); `'literals'`; numbers
//! (`16.5`; a minus sign is punctuation of its own, as in the game); names
//! of letters, digits and `_`, which may hold and start with the path
//! characters `/ \ : .` (`models/md5/monsters/imp/imp.md5mesh` is one
//! token); every other character is punctuation of one character.

/// What kind of token: the parsers need to tell a quoted `"}"` from a
/// closing brace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Name,
    Number,
    /// `"..."` or `'...'`, without the quotes.
    Quoted,
    Punctuation,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
    /// 1-based.
    pub line: u32,
}

impl Token {
    /// Whether this is the punctuation `c` (a quoted `"{"` is not).
    pub fn is_punctuation(&self, c: char) -> bool {
        self.kind == TokenKind::Punctuation
            && self.text.len() == c.len_utf8()
            && self.text.starts_with(c)
    }

    /// Whether this is the keyword `word`, compared as the game compares
    /// declaration keywords: ignoring case.
    pub fn is_word(&self, word: &str) -> bool {
        self.kind == TokenKind::Name && self.text.eq_ignore_ascii_case(word)
    }
}

/// The tokens of `text`, and a warning (line, message) for each string
/// that runs into a newline or the end of the text (the string ends
/// there, as the rest of the text still parses) and for a `/*` comment
/// that is never closed.
pub fn tokenize(text: &str) -> (Vec<Token>, Vec<(u32, String)>) {
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        warnings: Vec::new(),
    };
    let mut tokens = Vec::new();
    while let Some(token) = lexer.next_token() {
        tokens.push(token);
    }
    (tokens, lexer.warnings)
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: u32,
    warnings: Vec<(u32, String)>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments; an unclosed `/*` runs to the end.
    fn skip_space(&mut self) {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c <= ' ' => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let line = self.line;
                    self.bump();
                    self.bump();
                    while self.peek(0).is_some()
                        && (self.peek(0), self.peek(1)) != (Some('*'), Some('/'))
                    {
                        self.bump();
                    }
                    if self.peek(0).is_none() {
                        let warning = "'/*' comment is never closed".to_owned();
                        self.warnings.push((line, warning));
                    }
                    self.bump();
                    self.bump();
                }
                _ => return,
            }
        }
    }

    fn next_token(&mut self) -> Option<Token> {
        self.skip_space();
        let line = self.line;
        let c = self.peek(0)?;
        let starts_number =
            c.is_ascii_digit() || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit()));
        let (kind, text) = if starts_number {
            (TokenKind::Number, self.number())
        } else if c == '"' || c == '\'' {
            (TokenKind::Quoted, self.quoted(c))
        } else if c.is_ascii_alphabetic() || matches!(c, '_' | '/' | '\\' | '.') {
            (TokenKind::Name, self.name())
        } else {
            self.bump();
            (TokenKind::Punctuation, c.to_string())
        };
        Some(Token { kind, text, line })
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool, text: &mut String) {
        while let Some(c) = self.peek(0).filter(|&c| keep(c)) {
            text.push(c);
            self.bump();
        }
    }

    fn name(&mut self) -> String {
        let mut text = String::new();
        self.take_while(
            |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '\\' | ':' | '.'),
            &mut text,
        );
        text
    }

    /// Digits and dots, then an exponent (`1e-3`) or hexadecimal digits
    /// (`0x1F`) where present.
    fn number(&mut self) -> String {
        let mut text = String::new();
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            self.take_while(|c| c.is_ascii_hexdigit() || c == 'x' || c == 'X', &mut text);
            return text;
        }
        self.take_while(|c| c.is_ascii_digit() || c == '.', &mut text);
        let exponent_digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let exponent = matches!(self.peek(0), Some('e' | 'E'))
            && (exponent_digit(self.peek(1))
                || (matches!(self.peek(1), Some('+' | '-')) && exponent_digit(self.peek(2))));
        if exponent {
            text.extend(self.bump());
            text.extend(self.bump());
            self.take_while(|c| c.is_ascii_digit(), &mut text);
        }
        text
    }

    fn quoted(&mut self, quote: char) -> String {
        let mut text = String::new();
        let line = self.line;
        self.bump();
        loop {
            match self.peek(0) {
                None | Some('\n') => {
                    self.warnings
                        .push((line, "a string without its closing quote".to_owned()));
                    return text;
                }
                Some(c) if c == quote => {
                    self.bump();
                    if quote != '"' || !self.joins_next_string() {
                        return text;
                    }
                }
                Some(c) => {
                    text.push(c);
                    self.bump();
                }
            }
        }
    }

    /// After a closing `"`: whether a backslash and another string follow
    /// (then positioned inside that string), as long strings continue on
    /// the next line in the game's files. Otherwise nothing is consumed.
    fn joins_next_string(&mut self) -> bool {
        let (at, line, warnings) = (self.at, self.line, self.warnings.len());
        self.skip_space();
        if self.peek(0) == Some('\\') {
            self.bump();
            self.skip_space();
            if self.peek(0) == Some('"') {
                self.bump();
                return true;
            }
        }
        self.at = at;
        self.line = line;
        // What the look-ahead warned about is warned again when read.
        self.warnings.truncate(warnings);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<(TokenKind, String)> {
        let (tokens, warnings) = tokenize(text);
        assert!(warnings.is_empty(), "{warnings:?}");
        tokens.into_iter().map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn paths_are_names_and_minus_is_punctuation() {
        use TokenKind::*;
        assert_eq!(
            texts("mesh models/md5/monsters/imp/imp.md5mesh offset ( 0 -12.5 .5 )"),
            [
                (Name, "mesh".into()),
                (Name, "models/md5/monsters/imp/imp.md5mesh".into()),
                (Name, "offset".into()),
                (Punctuation, "(".into()),
                (Number, "0".into()),
                (Punctuation, "-".into()),
                (Number, "12.5".into()),
                (Number, ".5".into()),
                (Punctuation, ")".into()),
            ]
        );
        assert_eq!(
            texts("channel torso ( *Waist -Chest )"),
            [
                (Name, "channel".into()),
                (Name, "torso".into()),
                (Punctuation, "(".into()),
                (Punctuation, "*".into()),
                (Name, "Waist".into()),
                (Punctuation, "-".into()),
                (Name, "Chest".into()),
                (Punctuation, ")".into()),
            ]
        );
        assert_eq!(
            texts("1e-3 0x1F 2guys"),
            [
                (Number, "1e-3".into()),
                (Number, "0x1F".into()),
                (Number, "2".into()),
                (Name, "guys".into()),
            ]
        );
    }

    #[test]
    fn comments_and_strings() {
        use TokenKind::*;
        let text = "// a comment\n\"model\" /* two\nlines */ \"monster_demon_imp\" 'lit' \"a \\b\"\n\"x\" \\\n \"y\" \"\"";
        assert_eq!(
            texts(text),
            [
                (Quoted, "model".into()),
                (Quoted, "monster_demon_imp".into()),
                (Quoted, "lit".into()),
                (Quoted, "a \\b".into()),
                (Quoted, "xy".into()),
                (Quoted, "".into()),
            ]
        );
        let (tokens, _) = tokenize(text);
        assert_eq!(
            tokens.iter().map(|t| t.line).collect::<Vec<_>>(),
            [2, 3, 3, 3, 4, 5]
        );
    }

    #[test]
    fn an_unclosed_string_ends_at_its_line_with_a_warning() {
        let (tokens, warnings) = tokenize("\"model\" \"imp\n}");
        assert_eq!(tokens.len(), 3);
        assert_eq!(tokens[1].text, "imp");
        assert!(tokens[2].is_punctuation('}'));
        assert_eq!(
            warnings,
            [(1, "a string without its closing quote".to_owned())]
        );
        let (tokens, warnings) = tokenize("a\n/* never closed");
        assert_eq!(tokens.len(), 1);
        assert_eq!(warnings, [(2, "'/*' comment is never closed".to_owned())]);
        // Looking past a string for a `\` to join does not warn twice.
        let (_, warnings) = tokenize("\"a\" /* never closed");
        assert_eq!(warnings, [(1, "'/*' comment is never closed".to_owned())]);
    }
}
