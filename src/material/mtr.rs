//! The `.mtr` files of Doom 3 (and Quake 4, Prey): a forgiving parser, on
//! the declaration files' lexer, that keeps, of each material, only the
//! three images a lit surface needs.
//!
//! A file is a list of declarations. `name { ... }`, optionally preceded by
//! the word `material`, is a material; `type name { ... }` (`table`, `skin`,
//! `particle`, `sound`, `guide`...) is something else and is skipped whole.
//! Inside a material the maps come in two forms, the keyword one
//! (`diffusemap IMAGE`, `bumpmap IMAGE`, `specularmap IMAGE`) and the stage
//! one (`{ blend diffusemap  map IMAGE }`); every other keyword, expression
//! and stage is skipped. An IMAGE is a path or an image program such as
//! `addnormals(models/x/x_local, heightmap(models/x/x_h, 4))`.
//!
//! Nothing here is fatal: a syntax error is a warning `file:line: what`
//! and parsing goes on, as the game itself does.

use crate::decl::lexer::{self, TokenKind};

/// An image reference as the file writes it, not yet looked up on disk.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum MapRef {
    Image(String),
    /// `heightmap(IMAGE, scale)`: a normal map derived from a height map.
    HeightMap {
        image: String,
        scale: f32,
    },
}

/// One material block: its name as written and the line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MaterialDecl {
    pub name: String,
    pub line: u32,
    pub diffuse: Option<MapRef>,
    pub normal: Option<MapRef>,
    pub specular: Option<MapRef>,
}

#[derive(Debug, Default)]
pub(super) struct ParsedFile {
    pub materials: Vec<MaterialDecl>,
    /// `file:line: what`, in file order.
    pub warnings: Vec<String>,
}

/// Parses one `.mtr` file; `file` is how warnings name it.
pub(super) fn parse(text: &str, file: &str) -> ParsedFile {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (read, lexer_warnings) = lexer::tokenize(text);
    let warnings = lexer_warnings
        .into_iter()
        .map(|(line, what)| format!("{file}:{line}: {what}"))
        .collect();
    let mut parser = Parser {
        tokens: tokens(&read),
        pos: 0,
        file,
        parsed: ParsedFile {
            materials: Vec::new(),
            warnings,
        },
    };
    parser.file_body();
    parser.parsed
}

// ---------------------------------------------------------------------------
// Tokens: the declaration files' lexer's (`decl::lexer`, id Tech 4's
// `idLexer`), so a `-` ends a name as in the game, seen as what a material
// needs of them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A name or a number: paths, keywords and numbers alike.
    Word,
    /// A quoted string; the text is what lies between the quotes.
    Str,
    /// One character of punctuation: `{ } ( ) ,` and the like.
    Punct,
    End,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
    line: u32,
}

impl Token<'_> {
    fn is(&self, punct: &str) -> bool {
        self.kind == Kind::Punct && self.text == punct
    }

    /// A word or a quoted string: something that can name a material or an image.
    fn is_name(&self) -> bool {
        matches!(self.kind, Kind::Word | Kind::Str)
    }

    fn is_keyword(&self, keyword: &str) -> bool {
        self.kind == Kind::Word && self.text.eq_ignore_ascii_case(keyword)
    }
}

/// `read` as the parser sees it, ending with an `End` token.
fn tokens(read: &[lexer::Token]) -> Vec<Token<'_>> {
    let mut tokens: Vec<Token> = read
        .iter()
        .map(|token| Token {
            kind: match token.kind {
                TokenKind::Name | TokenKind::Number => Kind::Word,
                TokenKind::Quoted => Kind::Str,
                TokenKind::Punctuation => Kind::Punct,
            },
            text: &token.text,
            line: token.line,
        })
        .collect();
    tokens.push(Token {
        kind: Kind::End,
        text: "",
        line: read.last().map_or(1, |token| token.line),
    });
    tokens
}

// ---------------------------------------------------------------------------
// Declarations

/// Declaration types other than `material` that the game's decl files hold
/// (Doom 3, Quake 4, Prey); `type name { ... }` with one of these is skipped
/// quietly. A first word that contains no `/` is taken as a type too.
const OTHER_DECLS: &[&str] = &[
    "table",
    "skin",
    "particle",
    "sound",
    "guide",
    "fx",
    "entitydef",
    "mapdef",
    "model",
    "articulatedfigure",
    "pda",
    "email",
    "video",
    "audio",
    "materialtype",
    "lipsync",
    "playback",
    "effect",
];

/// A map slot of a material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Diffuse,
    Normal,
    Specular,
}

impl Slot {
    fn from_keyword(word: &str) -> Option<Slot> {
        [
            ("diffusemap", Slot::Diffuse),
            ("bumpmap", Slot::Normal),
            ("specularmap", Slot::Specular),
        ]
        .into_iter()
        .find(|(keyword, _)| word.eq_ignore_ascii_case(keyword))
        .map(|(_, slot)| slot)
    }
}

impl MaterialDecl {
    fn slot(&mut self, slot: Slot) -> &mut Option<MapRef> {
        match slot {
            Slot::Diffuse => &mut self.diffuse,
            Slot::Normal => &mut self.normal,
            Slot::Specular => &mut self.specular,
        }
    }
}

/// An image program as written: `name` or `function(argument, ...)`;
/// numbers are `Image`s too (the function decides what an argument means).
#[derive(Debug)]
enum Program<'a> {
    Image(&'a str),
    Call {
        function: &'a str,
        args: Vec<Program<'a>>,
        line: u32,
    },
}

struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    file: &'a str,
    parsed: ParsedFile,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Token<'a> {
        self.tokens[self.pos]
    }

    /// The next token; the end token is returned again and again.
    fn next(&mut self) -> Token<'a> {
        let token = self.tokens[self.pos];
        if token.kind != Kind::End {
            self.pos += 1;
        }
        token
    }

    fn warn(&mut self, line: u32, what: impl std::fmt::Display) {
        let warning = format!("{}:{line}: {what}", self.file);
        self.parsed.warnings.push(warning);
    }

    fn file_body(&mut self) {
        loop {
            let token = self.next();
            match token.kind {
                Kind::End => return,
                Kind::Punct if token.is("{") => {
                    self.warn(token.line, "a '{' block without a name; skipped");
                    self.skip_block(token);
                }
                Kind::Punct => self.warn(token.line, format!("unexpected '{}'", token.text)),
                Kind::Word | Kind::Str => self.declaration(token),
            }
        }
    }

    /// After the first word of a declaration.
    fn declaration(&mut self, first: Token<'a>) {
        let next = self.peek();
        if next.is("{") {
            self.next();
            self.material(first, next);
        } else if first.is_keyword("material") && next.is_name() {
            self.next();
            let open = self.peek();
            if open.is("{") {
                self.next();
                self.material(next, open);
            } else {
                self.warn(
                    open.line,
                    format!("expected '{{' after 'material {}'", next.text),
                );
            }
        } else if next.is_name()
            && first.kind == Kind::Word
            && (OTHER_DECLS
                .iter()
                .any(|t| first.text.eq_ignore_ascii_case(t))
                || !first.text.contains('/'))
        {
            self.next();
            self.other_declaration(first, next);
        } else {
            self.warn(
                first.line,
                format!("'{}' is not followed by a '{{' block; skipped", first.text),
            );
        }
    }

    /// `type name [( ... )] { ... }`, skipped whole; a `guide` without a
    /// block (Quake 4: `guide NAME template(ARGS)`) is one line.
    fn other_declaration(&mut self, kind: Token<'a>, name: Token<'a>) {
        log::debug!(
            "{}:{}: skipping {} {}",
            self.file,
            kind.line,
            kind.text,
            name.text
        );
        if self.peek().is("(") {
            let open = self.next();
            self.skip_parens(open);
        }
        if self.peek().is("{") {
            let open = self.next();
            self.skip_block(open);
        } else {
            if !kind.is_keyword("guide") {
                self.warn(
                    name.line,
                    format!("expected '{{' after '{} {}'", kind.text, name.text),
                );
            }
            self.skip_rest_of_line(name.line);
        }
    }

    /// The body of a material, after its `{`.
    fn material(&mut self, name: Token<'a>, open: Token<'a>) {
        let mut decl = MaterialDecl {
            name: name.text.to_owned(),
            line: name.line,
            diffuse: None,
            normal: None,
            specular: None,
        };
        loop {
            let token = self.next();
            match token.kind {
                Kind::End => {
                    self.warn(
                        open.line,
                        format!("material {}: '{{' is never closed", decl.name),
                    );
                    break;
                }
                Kind::Punct if token.is("}") => break,
                Kind::Punct if token.is("{") => self.stage(&mut decl, token),
                Kind::Punct if token.is("(") => self.skip_parens(token),
                Kind::Punct => {}
                Kind::Word => {
                    if let Some(slot) = Slot::from_keyword(token.text) {
                        let map = self.map(token);
                        self.assign(&mut decl, slot, map, token.line);
                    } else if token.is_keyword("renderbump") || token.is_keyword("renderbumpflat") {
                        // A whole-line command for the offline normal-map baker.
                        self.skip_rest_of_line(token.line);
                    }
                }
                Kind::Str => {}
            }
        }
        self.parsed.materials.push(decl);
    }

    /// A stage, after its `{`: one of the three maps when it has a
    /// `blend diffusemap|bumpmap|specularmap` and a `map`; else skipped.
    fn stage(&mut self, decl: &mut MaterialDecl, open: Token<'a>) {
        let mut blend: Option<Option<Slot>> = None;
        let mut map: Option<MapRef> = None;
        loop {
            let token = self.next();
            match token.kind {
                Kind::End => {
                    self.warn(open.line, "stage '{' is never closed");
                    break;
                }
                Kind::Punct if token.is("}") => break,
                Kind::Punct if token.is("{") => self.skip_block(token),
                Kind::Punct if token.is("(") => self.skip_parens(token),
                Kind::Word if token.is_keyword("blend") => {
                    let mode = self.peek();
                    if mode.is_name() {
                        self.next();
                        blend = Some(Slot::from_keyword(mode.text));
                    } else {
                        self.warn(token.line, "expected a blend mode after 'blend'");
                    }
                }
                Kind::Word if token.is_keyword("map") => map = self.map(token),
                _ => {}
            }
        }
        match (blend, map) {
            (Some(Some(slot)), Some(map)) => self.assign(decl, slot, Some(map), open.line),
            (Some(Some(_)), None) => self.warn(
                open.line,
                format!("material {}: a blend stage without a 'map'", decl.name),
            ),
            _ => {}
        }
    }

    /// The first definition of a map wins, as in the game.
    fn assign(&mut self, decl: &mut MaterialDecl, slot: Slot, map: Option<MapRef>, line: u32) {
        let Some(map) = map else { return };
        let current = decl.slot(slot);
        if current.is_none() {
            *current = Some(map);
        } else {
            log::debug!(
                "{}:{line}: material {}: a second {slot:?} map, ignored",
                self.file,
                decl.name
            );
        }
    }

    /// The IMAGE after a `diffusemap`, `bumpmap`, `specularmap` or `map`.
    fn map(&mut self, keyword: Token<'a>) -> Option<MapRef> {
        let program = self.program(keyword)?;
        self.map_ref(&program)
    }

    fn program(&mut self, after: Token<'a>) -> Option<Program<'a>> {
        let token = self.peek();
        if !token.is_name() {
            self.warn(
                after.line,
                format!("expected an image after '{}'", after.text),
            );
            return None;
        }
        self.next();
        if token.kind == Kind::Str || !self.peek().is("(") {
            return Some(Program::Image(token.text));
        }
        let open = self.next();
        let mut args = Vec::new();
        loop {
            let next = self.peek();
            if next.is(")") {
                self.next();
                break;
            }
            if next.is(",") {
                self.next();
                continue;
            }
            if next.kind == Kind::End || next.is("{") || next.is("}") {
                self.warn(open.line, format!("'(' of {}( is never closed", token.text));
                break;
            }
            match self.program(open) {
                Some(arg) => args.push(arg),
                None => break,
            }
        }
        Some(Program::Call {
            function: token.text,
            args,
            line: token.line,
        })
    }

    /// `addnormals(a, ...)` is `a`; `heightmap(b, s)` derives a normal map;
    /// any other program is its first image argument.
    fn map_ref(&mut self, program: &Program<'a>) -> Option<MapRef> {
        let (function, args, line) = match program {
            Program::Image(path) => return Some(MapRef::Image((*path).to_owned())),
            Program::Call {
                function,
                args,
                line,
            } => (*function, args, *line),
        };
        if function.eq_ignore_ascii_case("heightmap") {
            let Some(image) = args.first().and_then(first_image) else {
                self.warn(line, "heightmap( without an image");
                return None;
            };
            let scale = match args.get(1) {
                Some(Program::Image(number)) => number.parse::<f32>().ok(),
                _ => None,
            };
            let scale = scale.unwrap_or_else(|| {
                self.warn(line, "heightmap( without a numeric scale; using 1");
                1.0
            });
            return Some(MapRef::HeightMap {
                image: image.to_owned(),
                scale,
            });
        }
        if !function.eq_ignore_ascii_case("addnormals") {
            log::debug!(
                "{}:{line}: image program {function}(: using its first image",
                self.file
            );
        }
        match args.first() {
            Some(first) => self.map_ref(first),
            None => {
                self.warn(line, format!("{function}( without an image"));
                None
            }
        }
    }

    /// Consumes up to the `}` matching `open` (already consumed).
    fn skip_block(&mut self, open: Token<'a>) {
        let mut depth = 1;
        loop {
            let token = self.next();
            match token.kind {
                Kind::End => {
                    self.warn(open.line, "'{' is never closed");
                    return;
                }
                Kind::Punct if token.is("{") => depth += 1,
                Kind::Punct if token.is("}") => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Consumes up to the `)` matching `open`; stops before a brace, which
    /// no expression holds.
    fn skip_parens(&mut self, open: Token<'a>) {
        let mut depth = 1;
        loop {
            let token = self.peek();
            if token.kind == Kind::End || token.is("{") || token.is("}") {
                self.warn(open.line, "'(' is never closed");
                return;
            }
            self.next();
            if token.is("(") {
                depth += 1;
            } else if token.is(")") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    /// Consumes the tokens left on `line` (and the parentheses they open),
    /// stopping before a brace.
    fn skip_rest_of_line(&mut self, line: u32) {
        loop {
            let token = self.peek();
            if token.line != line || token.kind == Kind::End || token.is("{") || token.is("}") {
                return;
            }
            self.next();
            if token.is("(") {
                self.skip_parens(token);
            }
        }
    }
}

fn first_image<'a>(program: &Program<'a>) -> Option<&'a str> {
    match program {
        Program::Image(path) => Some(path),
        Program::Call { args, .. } => args.first().and_then(first_image),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(path: &str) -> Option<MapRef> {
        Some(MapRef::Image(path.to_owned()))
    }

    fn only(parsed: &ParsedFile) -> &MaterialDecl {
        assert_eq!(parsed.materials.len(), 1, "{:?}", parsed.materials);
        &parsed.materials[0]
    }

    #[test]
    fn comments_are_skipped_and_lines_kept() {
        let parsed = parse(
            "// one\n/* two\nthree */ m{\"c d\"(e,f) diffusemap models/x/y_d.tga //c\n}",
            "a.mtr",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let m = only(&parsed);
        assert_eq!((m.name.as_str(), m.line), ("m", 3));
        assert_eq!(m.diffuse, image("models/x/y_d.tga"));
    }

    /// As id Tech 4's lexer reads them (dhewm3 `idLexer::ReadName`, without
    /// `LEXFL_ONLYSTRINGS`): a `-` is punctuation of its own, so it ends a
    /// name, and `//` inside a path is part of it. The game reads a
    /// heightmap's scale as one token (`R_ParseImageProgram_r`), so `-4` is
    /// no scale there either.
    #[test]
    fn a_minus_ends_a_name_as_in_the_game() {
        let parsed = parse(
            "m {\n diffusemap models/a-b.tga\n specularmap models/s//c\n \
             bumpmap heightmap(models/h, -4)\n}",
            "l.mtr",
        );
        let m = only(&parsed);
        assert_eq!(m.diffuse, image("models/a"));
        assert_eq!(m.specular, image("models/s//c"));
        assert_eq!(
            m.normal,
            Some(MapRef::HeightMap {
                image: "models/h".to_owned(),
                scale: 1.0
            })
        );
        assert_eq!(
            parsed.warnings,
            [
                "l.mtr:4: expected an image after '('",
                "l.mtr:4: heightmap( without a numeric scale; using 1"
            ]
        );
        // A material named with a dash is read up to it, as the game's
        // declaration manager reads it: the name, then no `{`.
        let parsed = parse("textures/a-b { diffusemap x }", "n.mtr");
        assert_eq!(
            parsed.warnings,
            [
                "n.mtr:1: 'textures/a' is not followed by a '{' block; skipped",
                "n.mtr:1: unexpected '-'"
            ]
        );
        assert_eq!(only(&parsed).name, "b");
    }

    #[test]
    fn keyword_syntax() {
        let parsed = parse(
            "models/imp/imp\n{\n  noshadows\n  qer_editorimage models/imp/imp_e.tga\n  \
             DiffuseMap models/imp/imp_d.tga\n  bumpmap addnormals(models/imp/imp_local, \
             heightmap(models/imp/imp_h, 4))\n  specularmap models/imp/imp_s\n}\n",
            "a.mtr",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let imp = only(&parsed);
        assert_eq!(imp.name, "models/imp/imp");
        assert_eq!(imp.line, 1);
        assert_eq!(imp.diffuse, image("models/imp/imp_d.tga"));
        assert_eq!(imp.normal, image("models/imp/imp_local"));
        assert_eq!(imp.specular, image("models/imp/imp_s"));
    }

    #[test]
    fn stage_syntax_with_the_material_keyword() {
        let parsed = parse(
            "material models/guy {\n twosided\n { blend bumpmap map heightmap(models/guy_h, 6) }\n \
             { blend add map models/guy_glow rgb 0.5 * sinTable[time] }\n \
             {\n  blend diffusemap\n  map \"models/guy d.tga\"\n  alpha (parm3 - 0.2)\n }\n \
             { blend specularmap map makeintensity(models/guy_s) }\n}",
            "b.mtr",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let guy = only(&parsed);
        assert_eq!(guy.name, "models/guy");
        assert_eq!(guy.diffuse, image("models/guy d.tga"));
        assert_eq!(
            guy.normal,
            Some(MapRef::HeightMap {
                image: "models/guy_h".to_owned(),
                scale: 6.0
            })
        );
        assert_eq!(guy.specular, image("models/guy_s"));
    }

    #[test]
    fn tables_and_other_declarations_are_skipped() {
        let parsed = parse(
            "table sinTable { { 0, 1, 0, -1 } }\n\
             table clampy { clamp { 0, 1 } }\n\
             skin models/x_skin { models/x models/y }\n\
             guide textures/q4/wall generic_shader( textures/q4/wall )\n\
             particle smoke { { count 4 material textures/smoke } }\n\
             textures/wall { diffusemap textures/wall_d }",
            "c.mtr",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let wall = only(&parsed);
        assert_eq!(wall.name, "textures/wall");
        assert_eq!(wall.line, 6);
        assert_eq!(wall.diffuse, image("textures/wall_d"));
    }

    #[test]
    fn renderbump_is_a_whole_line() {
        let parsed = parse(
            "m {\n renderbump -size 256 256 -aa 2 models/m_local.tga models/m_hi.lwo\n \
             diffusemap models/m_d\n}",
            "d.mtr",
        );
        let m = only(&parsed);
        assert_eq!(m.diffuse, image("models/m_d"));
        assert_eq!(m.normal, None);
    }

    #[test]
    fn the_first_map_of_a_kind_wins_and_other_blends_are_ignored() {
        let parsed = parse(
            "m { { blend blend map models/decal } diffusemap models/a \
             { blend diffusemap map models/b } { map models/c } }",
            "e.mtr",
        );
        assert_eq!(only(&parsed).diffuse, image("models/a"));
    }

    #[test]
    fn an_unclosed_material_at_the_end_is_kept_with_a_warning() {
        let parsed = parse(
            "first { diffusemap a }\n\nsecond {\n diffusemap b\n",
            "f.mtr",
        );
        assert_eq!(parsed.materials.len(), 2);
        assert_eq!(parsed.materials[1].diffuse, image("b"));
        assert_eq!(
            parsed.warnings,
            ["f.mtr:3: material second: '{' is never closed"]
        );
    }

    #[test]
    fn syntax_errors_are_warnings_with_file_and_line() {
        let parsed = parse(
            "}\n\
             good { diffusemap }\n\
             { stray }\n\
             other { bumpmap addnormals(models/n, heightmap(models/h, 2)\n}\n\
             after { specularmap models/s }\n\
             /* never closed",
            "g.mtr",
        );
        assert_eq!(
            parsed.warnings,
            [
                "g.mtr:7: '/*' comment is never closed",
                "g.mtr:1: unexpected '}'",
                "g.mtr:2: expected an image after 'diffusemap'",
                "g.mtr:3: a '{' block without a name; skipped",
                "g.mtr:4: '(' of addnormals( is never closed",
            ]
        );
        let names: Vec<&str> = parsed.materials.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["good", "other", "after"]);
        assert_eq!(parsed.materials[0].diffuse, None);
        assert_eq!(parsed.materials[1].normal, image("models/n"));
        assert_eq!(parsed.materials[2].specular, image("models/s"));
    }

    #[test]
    fn a_word_without_a_slash_before_a_name_is_a_declaration_type() {
        let parsed = parse(
            "mystery thing { diffusemap x }
m { }",
            "k.mtr",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(only(&parsed).name, "m");
    }

    #[test]
    fn a_stray_path_before_a_material_is_reported() {
        let parsed = parse("textures/lost\ntextures/found { diffusemap x }", "h.mtr");
        assert_eq!(
            parsed.warnings,
            ["h.mtr:1: 'textures/lost' is not followed by a '{' block; skipped"]
        );
        assert_eq!(only(&parsed).name, "textures/found");
    }

    #[test]
    fn unclosed_quotes_end_at_the_line() {
        let parsed = parse("m {\n diffusemap \"models/q.tga\n}", "i.mtr");
        assert_eq!(
            parsed.warnings,
            ["i.mtr:2: a string without its closing quote"]
        );
        assert_eq!(only(&parsed).diffuse, image("models/q.tga"));
    }

    #[test]
    fn other_programs_give_their_first_image() {
        let parsed = parse(
            "m { diffusemap downsize(makealpha(models/a), 2) specularmap heightmap(models/h) }",
            "j.mtr",
        );
        let m = only(&parsed);
        assert_eq!(m.diffuse, image("models/a"));
        assert_eq!(
            m.specular,
            Some(MapRef::HeightMap {
                image: "models/h".to_owned(),
                scale: 1.0
            })
        );
        assert_eq!(
            parsed.warnings,
            ["j.mtr:1: heightmap( without a numeric scale; using 1"]
        );
    }
}
