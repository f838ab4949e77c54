//! PDN FEN (`W:W31-50:B1-20`) and the Hub position string (`Wbbb…eww`).
//!
//! Parsing goes text -> [`Setup`] (unchecked) -> position (validated), and every error says
//! what is wrong and at which column of the text.

use std::fmt;

use super::echo::echo;
use super::square::{parse_square, square_name};
use crate::rules::{Bits, Board, Color, Notation, Setup, SetupError};

/// A rejected position text: what is wrong, and where (1-based column, when known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    pub message: String,
    pub column: Option<usize>,
}

impl PositionError {
    fn at(column: usize, message: impl Into<String>) -> Self {
        PositionError {
            message: message.into(),
            column: Some(column),
        }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "{} (at column {c})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PositionError {}

pub(crate) fn setup_error(e: SetupError, name: impl Fn(u32) -> String) -> PositionError {
    PositionError {
        message: match e {
            SetupError::SquareTwice(sq) => format!("square {} is given twice", name(sq)),
            SetupError::ManOnPromotionRow { color, square } => format!(
                "a {} man on square {} stands on its promotion row (it should be a king)",
                color.name(),
                name(square)
            ),
        },
        column: None,
    }
}

fn validate<P: Board>(setup: &Setup) -> Result<P, PositionError> {
    P::from_setup(setup).map_err(|e| {
        setup_error(e, |sq| {
            let bit = P::bit_of_square(sq).unwrap_or(0);
            let letter = square_name::<P>(bit, Notation::Letter);
            format!("{sq} ({letter})")
        })
    })
}

/// Parse a PDN FEN: side to move (`W`, `B`, or `?` for the variant's first mover), then
/// colour groups in either order, each a comma list of squares (`K` marks a king, `31-50`
/// is a range of numbers); letter–number squares on any board; a trailing `.` is accepted.
pub fn parse_fen<P: Board>(text: &str) -> Result<P, PositionError> {
    let setup = parse_fen_setup::<P>(text)?;
    validate(&setup)
}

/// [`parse_fen`], except that a man standing on its own crowning row is read as a king
/// (problem collections write such setups and mean a king); returns the square numbers so
/// crowned, for the caller to warn about. Every other fault is an error as in `parse_fen`.
pub fn parse_fen_crowning<P: Board>(text: &str) -> Result<(P, Vec<u32>), PositionError> {
    let mut setup = parse_fen_setup::<P>(text)?;
    let mut crowned = Vec::new();
    loop {
        match P::from_setup(&setup) {
            Ok(pos) => return Ok((pos, crowned)),
            Err(SetupError::ManOnPromotionRow { color, square }) if !crowned.contains(&square) => {
                let bit = P::bit_of_square(square);
                let list = match color {
                    Color::White => &mut setup.white,
                    Color::Black => &mut setup.black,
                };
                for entry in list.iter_mut().filter(|e| Some(e.0) == bit) {
                    entry.1 = true;
                }
                crowned.push(square);
            }
            Err(_) => return validate(&setup).map(|pos| (pos, crowned)),
        }
    }
}

fn parse_fen_setup<P: Board>(text: &str) -> Result<Setup, PositionError> {
    // Work on (column, char) pairs so errors can point into the original text.
    let trimmed_end = text.trim_end();
    let body = trimmed_end.strip_suffix('.').unwrap_or(trimmed_end);
    let body = body.trim_end();
    let lead = body.len() - body.trim_start().len();
    let body_trim = body.trim_start();
    if body_trim.is_empty() {
        return Err(PositionError::at(1, "empty FEN"));
    }
    let unquoted = body_trim
        .strip_prefix('"')
        .and_then(|b| b.strip_suffix('"'))
        .unwrap_or(body_trim);
    let base = lead + (body_trim.len() - unquoted.len()) / 2;
    let mut groups = Vec::new();
    let mut start = 0;
    for (i, c) in unquoted.char_indices() {
        if c == ':' {
            groups.push((base + start, &unquoted[start..i]));
            start = i + 1;
        }
    }
    groups.push((base + start, &unquoted[start..]));

    let (col0, side_text) = groups[0];
    let side = match side_text.trim() {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        "?" => P::VARIANT.first_to_move(),
        other => {
            return Err(PositionError::at(
                col0 + 1,
                format!(
                    "FEN must start with the side to move W or B, found '{}'",
                    echo(other)
                ),
            ));
        }
    };
    if groups.len() > 3 {
        return Err(PositionError::at(
            groups[3].0,
            "FEN has more than two colour groups",
        ));
    }
    let mut setup = Setup {
        side,
        white: Vec::new(),
        black: Vec::new(),
    };
    let mut seen = [false, false];
    for &(col, group) in &groups[1..] {
        let lead = group.len() - group.trim_start().len();
        let g = group.trim();
        let col = col + lead + 1;
        let mut chars = g.chars();
        let color = match chars.next() {
            Some('W') | Some('w') => Color::White,
            Some('B') | Some('b') => Color::Black,
            Some(c) => {
                return Err(PositionError::at(
                    col,
                    format!(
                        "a colour group must start with W or B, found '{}'",
                        echo(&c.to_string())
                    ),
                ));
            }
            None => return Err(PositionError::at(col, "empty colour group")),
        };
        let idx = (color == Color::Black) as usize;
        if seen[idx] {
            return Err(PositionError::at(
                col,
                format!("the {} pieces are given twice", color.name()),
            ));
        }
        seen[idx] = true;
        let list = if color == Color::White {
            &mut setup.white
        } else {
            &mut setup.black
        };
        let items = &g[1..];
        let mut item_start = 0;
        for piece in items.split(',') {
            let item_col = col + 1 + item_start;
            item_start += piece.len() + 1;
            let lead = piece.len() - piece.trim_start().len();
            let p = piece.trim();
            if p.is_empty() {
                if items.trim().is_empty() {
                    continue; // an empty group: no pieces of this colour
                }
                return Err(PositionError::at(item_col, "empty square in the list"));
            }
            // Only a capital K marks a king: a lowercase k is the k-file of 12x12 boards.
            let (king, sq) = match p.strip_prefix('K') {
                Some(rest) => (true, rest.trim_start()),
                None => (false, p),
            };
            let at = item_col + lead;
            if let Some((a, b)) = sq.split_once('-') {
                let range = |t: &str| -> Result<u32, PositionError> {
                    t.trim().parse::<u32>().map_err(|_| {
                        PositionError::at(
                            at,
                            format!("'{}' is not a range of square numbers", echo(sq)),
                        )
                    })
                };
                let (lo, hi) = (range(a)?, range(b)?);
                if lo > hi {
                    return Err(PositionError::at(
                        at,
                        format!("range '{}' runs backwards", echo(sq)),
                    ));
                }
                for n in lo..=hi {
                    let bit = P::bit_of_square(n).ok_or_else(|| {
                        PositionError::at(
                            at,
                            format!(
                                "range '{}' leaves the board (squares are 1-{})",
                                echo(sq),
                                P::square_count()
                            ),
                        )
                    })?;
                    list.push((bit, king));
                }
            } else {
                let bit = parse_square::<P>(sq).map_err(|m| PositionError::at(at, m))?;
                list.push((bit, king));
            }
        }
    }
    Ok(setup)
}

/// Write a FEN with plain square lists (no ranges, which many readers lack), white first.
pub fn write_fen<P: Board>(pos: &P, notation: Notation) -> String {
    let setup = pos.to_setup();
    let side = if setup.side == Color::White { "W" } else { "B" };
    let group = |tag: &str, list: &[(u32, bool)]| {
        let mut items: Vec<(u32, bool)> = list.to_vec();
        items.sort_by_key(|&(b, _)| P::square_of_bit(b));
        let names: Vec<String> = items
            .iter()
            .map(|&(b, k)| {
                format!(
                    "{}{}",
                    if k { "K" } else { "" },
                    square_name::<P>(b, notation)
                )
            })
            .collect();
        format!("{tag}{}", names.join(","))
    };
    format!(
        "{side}:{}:{}",
        group("W", &setup.white),
        group("B", &setup.black)
    )
}

/// Parse the Hub position string: the side to move, then one character per square in
/// numeric order (`w`/`b` men, `W`/`B` kings, `e` empty).
pub fn parse_hub_position<P: Board>(text: &str) -> Result<P, PositionError> {
    let t = text.trim();
    let n = P::square_count() as usize;
    let chars: Vec<char> = t.chars().collect();
    if chars.len() != n + 1 {
        return Err(PositionError {
            message: format!(
                "the position string has the wrong length: {} characters, where {} needs {} \
                 (the side to move, then one letter for each of its {n} squares)",
                chars.len(),
                P::VARIANT,
                n + 1
            ),
            column: None,
        });
    }
    let side = match chars[0] {
        'W' | 'w' => Color::White,
        'B' | 'b' => Color::Black,
        c => {
            return Err(PositionError::at(
                1,
                format!(
                    "the side to move must be W or B, found '{}'",
                    echo(&c.to_string())
                ),
            ));
        }
    };
    let mut setup = Setup {
        side,
        white: Vec::new(),
        black: Vec::new(),
    };
    for (i, &c) in chars[1..].iter().enumerate() {
        let bit = P::bit_of_square(i as u32 + 1).expect("square in range");
        match c {
            'w' => setup.white.push((bit, false)),
            'W' => setup.white.push((bit, true)),
            'b' => setup.black.push((bit, false)),
            'B' => setup.black.push((bit, true)),
            'e' | '.' | '-' => {}
            other => {
                return Err(PositionError::at(
                    i + 2,
                    format!(
                        "unknown square character '{}' (expected w, b, W, B or e)",
                        echo(&other.to_string())
                    ),
                ));
            }
        }
    }
    validate(&setup)
}

pub fn write_hub_position<P: Board>(pos: &P) -> String {
    let mut s = String::with_capacity(P::square_count() as usize + 1);
    s.push(if pos.side() == Color::White { 'W' } else { 'B' });
    let k = pos.kings();
    for n in 1..=P::square_count() {
        let b = P::bit_of_square(n).expect("square in range");
        let c = if pos.white().has(b) {
            if k.has(b) { 'W' } else { 'w' }
        } else if pos.black().has(b) {
            if k.has(b) { 'B' } else { 'b' }
        } else {
            'e'
        };
        s.push(c);
    }
    s
}

/// Read a position given as a PDN FEN, a Hub position string, or `start`.
pub fn parse_position<P: Board>(text: &str) -> Result<P, PositionError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("start") {
        return Ok(P::start());
    }
    // A Hub position string of the wrong length is still one (a side letter and square
    // letters only, no colon): say that its length is wrong rather than that it is a bad FEN.
    if !t.contains(':') && looks_like_hub_position(t) {
        return parse_hub_position(t);
    }
    parse_fen(t)
}

/// `W` or `B` followed by square letters only (`w b W B e . -`), at least one of them.
fn looks_like_hub_position(t: &str) -> bool {
    let mut chars = t.chars();
    matches!(chars.next(), Some('W' | 'B' | 'w' | 'b'))
        && t.len() > 1
        && chars.all(|c| matches!(c, 'w' | 'b' | 'W' | 'B' | 'e' | '.' | '-'))
}
