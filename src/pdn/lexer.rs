//! PDN text to tokens: tag pairs, comments, variations, move numbers, moves, NAGs, move
//! strengths, setups and results, each with the line and column where it starts.
//!
//! The lexer is lenient where real files are sloppy (`1- 6`, `12.32-28`, `3228`, CRLF, a
//! byte-order mark, unescaped quotes inside a tag value) and strict where leniency would
//! silently swallow text (an unclosed comment or tag, a nested `{`).

use std::collections::VecDeque;
use std::fmt;

/// A place in the PDN text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `[Name "value"]`, the value unescaped.
    Tag {
        name: String,
        value: String,
    },
    /// `{...}`, the text between the braces as written.
    Comment(String),
    VariationStart,
    VariationEnd,
    /// `$12`.
    Nag(u32),
    /// `!`, `?!`, or a parenthesised strength such as `(!?)`, kept as written.
    Strength(String),
    /// `/W:W31-50:B1-20/`: the FEN between the slashes.
    Setup(String),
    /// `12.` (`ellipsis` false) or `12...` (true).
    MoveNumber {
        number: u32,
        ellipsis: bool,
    },
    /// Move text as read, with lenient spacing removed (`1- 6` becomes `1-6`).
    Move(String),
    /// `1-0`, `0-1`, `1/2-1/2`, `*`, `2-0`, `0-2`, `1-1`, `0-0` (`½-½` is read as `1/2-1/2`).
    Result(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub pos: Pos,
}

/// A lexical error: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub pos: Pos,
    pub message: String,
}

pub const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"];

/// Characters that end a word (a move, number or result) in move text.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || "{}()[]$;\"%".contains(c)
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | 'x' | 'X' | ':' | '×')
}

pub struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: usize,
    column: usize,
    /// Only whitespace so far on this line (a `%` here starts a line comment).
    line_start: bool,
    pending: VecDeque<Token>,
}

impl Lexer {
    pub fn new(text: &str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Lexer {
            chars: text.chars().collect(),
            i: 0,
            line: 1,
            column: 1,
            line_start: true,
            pending: VecDeque::new(),
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
            self.line_start = true;
        } else {
            self.column += 1;
            if !c.is_whitespace() {
                self.line_start = false;
            }
        }
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn skip_to_line_end(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    /// The next token, or `None` at the end of the text.
    pub fn next_token(&mut self) -> Result<Option<Token>, LexError> {
        if let Some(t) = self.pending.pop_front() {
            return Ok(Some(t));
        }
        loop {
            self.skip_whitespace();
            let pos = self.pos();
            let Some(c) = self.peek() else {
                return Ok(None);
            };
            let kind = match c {
                // `%` at the start of a line (PDN's escape) and `;` (PGN's rest-of-line
                // comment) hide the rest of the line.
                '%' if self.line_start => {
                    self.skip_to_line_end();
                    continue;
                }
                ';' => {
                    self.skip_to_line_end();
                    continue;
                }
                '[' => self.tag()?,
                '{' => self.comment()?,
                '(' => self.open_paren(),
                ')' => {
                    self.bump();
                    TokenKind::VariationEnd
                }
                '$' => self.nag()?,
                '/' => self.setup()?,
                '*' => {
                    self.bump();
                    TokenKind::Result("*".into())
                }
                c if c == '!' || c == '?' => {
                    let mut s = String::new();
                    while let Some(c @ ('!' | '?')) = self.peek() {
                        s.push(c);
                        self.bump();
                    }
                    TokenKind::Strength(s)
                }
                c if c.is_alphanumeric() || c == '½' || c == '.' => {
                    self.word(pos)?;
                    match self.pending.pop_front() {
                        Some(t) => return Ok(Some(t)),
                        None => continue,
                    }
                }
                c => {
                    return Err(LexError {
                        pos,
                        message: format!("unexpected character '{c}' in the move text"),
                    });
                }
            };
            return Ok(Some(Token { kind, pos }));
        }
    }

    fn tag(&mut self) -> Result<TokenKind, LexError> {
        let open = self.pos();
        self.bump(); // [
        self.skip_inline_space();
        let mut name = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '_' {
                name.push(c);
                self.bump();
            } else {
                break;
            }
        }
        if name.is_empty() {
            return Err(LexError {
                pos: self.pos(),
                message: "a tag must start with its name, as in [Event \"...\"]".into(),
            });
        }
        self.skip_inline_space();
        if self.peek() != Some('"') {
            return Err(LexError {
                pos: self.pos(),
                message: format!("tag {name}: expected a quoted value"),
            });
        }
        self.bump();
        let mut value = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(unclosed_tag(&name, open));
            };
            match c {
                '\n' => return Err(unclosed_tag(&name, open)),
                '\\' if matches!(self.peek_at(1), Some('"' | '\\')) => {
                    self.bump();
                    value.push(self.bump().expect("peeked"));
                }
                '"' => {
                    // The closing quote is the one followed by `]`; any other quote is
                    // taken literally (files write `"The "Big" Match"`).
                    let mut k = 1;
                    while matches!(self.peek_at(k), Some(' ' | '\t')) {
                        k += 1;
                    }
                    if self.peek_at(k) == Some(']') {
                        for _ in 0..=k {
                            self.bump();
                        }
                        return Ok(TokenKind::Tag { name, value });
                    }
                    value.push('"');
                    self.bump();
                }
                c => {
                    value.push(c);
                    self.bump();
                }
            }
        }
    }

    fn skip_inline_space(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
    }

    fn comment(&mut self) -> Result<TokenKind, LexError> {
        let open = self.pos();
        self.bump(); // {
        let mut text = String::new();
        loop {
            let here = self.pos();
            match self.bump() {
                None => {
                    return Err(LexError {
                        pos: open,
                        message: "comment '{' is never closed".into(),
                    });
                }
                Some('}') => return Ok(TokenKind::Comment(text)),
                Some('{') => {
                    return Err(LexError {
                        pos: here,
                        message: format!(
                            "nested '{{' inside a comment (the comment opened at {open}); \
                             PDN comments cannot be nested"
                        ),
                    });
                }
                Some(c) => text.push(c),
            }
        }
    }

    /// `(` opens a variation, unless it only holds a move strength: `(!?)`, `(!!)`.
    fn open_paren(&mut self) -> TokenKind {
        let mut k = 1;
        let mut strength = String::new();
        while let Some(c) = self.peek_at(k) {
            match c {
                '!' | '?' => strength.push(c),
                ' ' | '\t' => {}
                _ => break,
            }
            k += 1;
        }
        if !strength.is_empty() && self.peek_at(k) == Some(')') {
            for _ in 0..=k {
                self.bump();
            }
            return TokenKind::Strength(format!("({strength})"));
        }
        self.bump();
        TokenKind::VariationStart
    }

    fn nag(&mut self) -> Result<TokenKind, LexError> {
        let pos = self.pos();
        self.bump(); // $
        let mut digits = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            digits.push(c);
            self.bump();
        }
        digits
            .parse::<u32>()
            .map(TokenKind::Nag)
            .map_err(|_| LexError {
                pos,
                message: "'$' must be followed by a NAG number such as $12".into(),
            })
    }

    fn setup(&mut self) -> Result<TokenKind, LexError> {
        let open = self.pos();
        self.bump(); // /
        let mut text = String::new();
        loop {
            match self.peek() {
                Some('/') => {
                    self.bump();
                    return Ok(TokenKind::Setup(text.trim().to_string()));
                }
                Some('\n') | None => {
                    return Err(LexError {
                        pos: open,
                        message: "setup '/' is not closed by a second '/' on the same line".into(),
                    });
                }
                Some(c) => {
                    text.push(c);
                    self.bump();
                }
            }
        }
    }

    /// A word of move text: move numbers, moves (with a strength glued on), results. Pushes
    /// its tokens (possibly none, possibly two: `12.32-28`) onto `pending`.
    fn word(&mut self, pos: Pos) -> Result<(), LexError> {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if is_delimiter(c) {
                break;
            }
            w.push(c);
            self.bump();
        }
        // `1- 6`, `28x 19`: a word ending in a separator continues after the blanks.
        while w.ends_with(is_separator) {
            let save = (self.i, self.line, self.column, self.line_start);
            self.skip_inline_space();
            if self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                while let Some(c) = self.peek() {
                    if is_delimiter(c) {
                        break;
                    }
                    w.push(c);
                    self.bump();
                }
            } else {
                (self.i, self.line, self.column, self.line_start) = save;
                break;
            }
        }
        self.classify(w, pos)
    }

    fn classify(&mut self, word: String, pos: Pos) -> Result<(), LexError> {
        let push = |s: &mut Self, kind: TokenKind, column: usize| {
            s.pending.push_back(Token {
                kind,
                pos: Pos {
                    line: pos.line,
                    column,
                },
            })
        };
        if word == "½-½" {
            push(self, TokenKind::Result("1/2-1/2".into()), pos.column);
            return Ok(());
        }
        if RESULTS.contains(&word.as_str()) {
            push(self, TokenKind::Result(word), pos.column);
            return Ok(());
        }
        // Dots alone (`1. ... 9-14`) only say "black to move".
        if word.chars().all(|c| c == '.') {
            return Ok(());
        }
        let mut rest: &str = &word;
        let mut column = pos.column;
        // A move number: digits then dots, possibly with the move glued on (`12.32-28`).
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let dots = rest[digits..].chars().take_while(|&c| c == '.').count();
        if digits > 0 && dots > 0 {
            let number = rest[..digits].parse::<u32>().map_err(|_| LexError {
                pos,
                message: format!("move number '{}' is too large", &rest[..digits]),
            })?;
            push(
                self,
                TokenKind::MoveNumber {
                    number,
                    ellipsis: dots >= 2,
                },
                column,
            );
            rest = &rest[digits + dots..];
            column += digits + dots;
            if rest.is_empty() {
                return Ok(());
            }
        } else if digits > 0 && digits == rest.len() && digits <= 3 {
            // A bare small number: a move number without its dot (lenient).
            let number = rest.parse::<u32>().expect("at most three digits");
            push(
                self,
                TokenKind::MoveNumber {
                    number,
                    ellipsis: false,
                },
                column,
            );
            return Ok(());
        }
        let strength_len = rest
            .chars()
            .rev()
            .take_while(|&c| c == '!' || c == '?')
            .count();
        let (text, strength) = rest.split_at(rest.len() - strength_len);
        if !looks_like_move(text) {
            return Err(LexError {
                pos: Pos {
                    line: pos.line,
                    column,
                },
                message: format!(
                    "'{rest}' is not a move, move number or result (text in move text \
                     belongs in a {{comment}})"
                ),
            });
        }
        push(self, TokenKind::Move(text.to_string()), column);
        if !strength.is_empty() {
            let c = column + text.chars().count();
            push(self, TokenKind::Strength(strength.to_string()), c);
        }
        Ok(())
    }
}

fn unclosed_tag(name: &str, open: Pos) -> LexError {
    LexError {
        pos: open,
        message: format!("tag {name} is not closed by '\"]' on its line"),
    }
}

/// The shape of a move: squares (numbers or letter–number) joined by `-`, `x`, `:`, or
/// run together (`3228`, `f6e5`, the russian `cd4`). Whether it is legal is decided later,
/// against the position.
fn looks_like_move(t: &str) -> bool {
    let first_ok = t.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    let last_ok = t.chars().last().is_some_and(|c| c.is_ascii_digit());
    let chars_ok = t
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || is_separator(c));
    let no_double_separator = !t
        .chars()
        .zip(t.chars().skip(1))
        .any(|(a, b)| is_separator(a) && is_separator(b));
    first_ok && last_ok && chars_ok && no_double_separator
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let mut lx = Lexer::new(text);
        let mut out = Vec::new();
        while let Some(t) = lx.next_token().unwrap() {
            out.push(t.kind);
        }
        out
    }

    #[test]
    fn strengths_in_parentheses_are_not_variations() {
        assert_eq!(
            kinds("19-23(!?!!!) (18-23)"),
            vec![
                TokenKind::Move("19-23".into()),
                TokenKind::Strength("(!?!!!)".into()),
                TokenKind::VariationStart,
                TokenKind::Move("18-23".into()),
                TokenKind::VariationEnd,
            ]
        );
    }

    #[test]
    fn glued_numbers_spaced_hyphens_and_results() {
        assert_eq!(
            kinds("12.32-28!? 12... 1- 6 1/2-1/2"),
            vec![
                TokenKind::MoveNumber {
                    number: 12,
                    ellipsis: false
                },
                TokenKind::Move("32-28".into()),
                TokenKind::Strength("!?".into()),
                TokenKind::MoveNumber {
                    number: 12,
                    ellipsis: true
                },
                TokenKind::Move("1-6".into()),
                TokenKind::Result("1/2-1/2".into()),
            ]
        );
    }
}
