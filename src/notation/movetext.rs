//! Moves as text: numeric (`32-28`, `28x19`, `47x38x24x13x36`), letter–number (`c3-d4`,
//! `e3:c5`, `c3:e5:g7`), the Hub capture form (`28x19x23`: from, to, captured) and the
//! russian short form (`cd4`).
//!
//! Reading matches the text against the legal moves, so every form is accepted where it
//! names exactly one move; writing gives the full route only when two legal captures share
//! start and end (PDN's rule).

use std::fmt;

use super::echo::echo;
use super::square::{parse_square, square_name};
use crate::rules::{AnyMove, Bits, Board, Move, Notation, Variant};

/// Why move text was not read as a move. Callers that branch on the kind (a PDN reader
/// that looks ahead to settle an ambiguity, a referee that calls a move illegal) match on
/// it; the message is its `Display`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveTextError {
    /// The text is no move in any notation (the reason, with the text quoted).
    Malformed(String),
    /// A well-formed move that names no legal move.
    Illegal {
        /// The move as written (escaped for display).
        text: String,
        /// What the position allows: "a capture is compulsory", "7 legal moves".
        hint: String,
    },
    /// It names several legal moves.
    Ambiguous {
        text: String,
        /// Each of them with its full route, in the notation the text was written in.
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveTextError::Malformed(why) => f.write_str(why),
            MoveTextError::Illegal { text, hint } => write!(f, "illegal move '{text}' ({hint})"),
            MoveTextError::Ambiguous { text, candidates } => write!(
                f,
                "ambiguous move '{text}': it could be {}",
                candidates.join(" or ")
            ),
        }
    }
}

impl std::error::Error for MoveTextError {}

/// For the callers that only pass the message on.
impl From<MoveTextError> for String {
    fn from(e: MoveTextError) -> String {
        e.to_string()
    }
}

/// The separator between squares: `-` for moves, `x` (numeric) or `:` (letter) for captures.
fn capture_separator(notation: Notation) -> &'static str {
    match notation {
        Notation::Numeric => "x",
        Notation::Letter => ":",
    }
}

/// Write `mv` (legal in `pos`, whose legal moves are `legal`) in PDN style.
pub fn format_move<P: Board>(
    pos: &P,
    mv: &Move<P::B>,
    legal: &[Move<P::B>],
    notation: Notation,
) -> String {
    let name = |b: u32| square_name::<P>(b, notation);
    if !mv.is_capture() {
        return format!("{}-{}", name(mv.from as u32), name(mv.to as u32));
    }
    let sep = capture_separator(notation);
    let ambiguous = legal
        .iter()
        .any(|m| m.from == mv.from && m.to == mv.to && m.captured != mv.captured);
    if ambiguous {
        let route = pos.routes(mv).into_iter().next().unwrap_or_default();
        let names: Vec<String> = route.into_iter().map(name).collect();
        names.join(sep)
    } else {
        format!("{}{sep}{}", name(mv.from as u32), name(mv.to as u32))
    }
}

/// Write `mv` with every landing square (`c3:e5:g7`), whatever the ambiguity.
pub fn format_route<P: Board>(pos: &P, mv: &Move<P::B>, notation: Notation) -> String {
    let name = |b: u32| square_name::<P>(b, notation);
    if !mv.is_capture() {
        return format!("{}-{}", name(mv.from as u32), name(mv.to as u32));
    }
    let route = pos.routes(mv).into_iter().next().unwrap_or_default();
    let names: Vec<String> = route.into_iter().map(name).collect();
    names.join(capture_separator(notation))
}

/// The Hub form: `32-28`, or `28x19x23` (from, to, then the captured squares by number).
pub fn format_hub_move<P: Board>(mv: &Move<P::B>) -> String {
    let from = P::square_of_bit(mv.from as u32);
    let to = P::square_of_bit(mv.to as u32);
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let mut caps: Vec<u32> = mv.captured.squares().map(P::square_of_bit).collect();
    caps.sort_unstable();
    let mut s = format!("{from}x{to}");
    for c in caps {
        s.push('x');
        s.push_str(&c.to_string());
    }
    s
}

/// The Hub form of a move of `variant` given as an [`AnyMove`] (a protocol edge writing
/// the engine's typed answer).
pub fn format_hub_any(variant: Variant, mv: &AnyMove) -> String {
    crate::with_board!(variant, P => format_hub_move::<P>(&Move {
        from: mv.from,
        to: mv.to,
        promote: mv.promote,
        captured: <P as Board>::B::from_u128(mv.captured),
    }))
}

/// Split move text into square tokens. Separators: `-`, `x`, `X`, `:`, and spaces after
/// them (`1- 6` occurs in real files). Four or more digits with no separator (`3228`) are
/// read as two-digit squares.
fn tokens(text: &str) -> Result<Vec<String>, MoveTextError> {
    tokens_of(text).map_err(MoveTextError::Malformed)
}

fn tokens_of(text: &str) -> Result<Vec<String>, String> {
    let t = text.trim();
    let shown = echo(t);
    if t.is_empty() {
        return Err("empty move".into());
    }
    if t.len() >= 4 && t.len().is_multiple_of(2) && t.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(t
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect());
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in t.chars() {
        match c {
            '-' | 'x' | 'X' | ':' | '×' => {
                if cur.trim().is_empty() {
                    return Err(format!(
                        "'{shown}' has a separator with no square before it"
                    ));
                }
                out.push(cur.trim().to_string());
                cur.clear();
            }
            c if c.is_ascii_alphanumeric() => cur.push(c),
            c if c.is_whitespace() && cur.trim().is_empty() && !out.is_empty() => {}
            c => {
                return Err(format!(
                    "unexpected character '{}' in move '{shown}'",
                    echo(&c.to_string())
                ));
            }
        }
    }
    if cur.trim().is_empty() {
        return Err(format!("'{shown}' ends with a separator"));
    }
    out.push(cur.trim().to_string());
    if out.len() == 1 {
        // Letter–number squares run together (`f6e5`): split where a letter follows a digit.
        let t = &out[0];
        let cuts: Vec<usize> = t
            .char_indices()
            .zip(t.chars().skip(1))
            .filter(|((_, a), b)| a.is_ascii_digit() && b.is_ascii_alphabetic())
            .map(|((i, _), _)| i + 1)
            .collect();
        if !cuts.is_empty() {
            let mut parts = Vec::new();
            let mut start = 0;
            for c in cuts {
                parts.push(t[start..c].to_string());
                start = c;
            }
            parts.push(t[start..].to_string());
            return Ok(parts);
        }
    }
    Ok(out)
}

/// Read a move in any accepted form and match it to one legal move.
pub fn parse_move<P: Board>(
    pos: &P,
    text: &str,
    legal: &[Move<P::B>],
) -> Result<Move<P::B>, MoveTextError> {
    let toks = tokens(text)?;
    let shown = echo(text.trim());
    let mut candidates: Vec<Move<P::B>> = Vec::new();
    let add = |m: Move<P::B>, c: &mut Vec<Move<P::B>>| {
        if !c.contains(&m) {
            c.push(m);
        }
    };
    // The russian short form: a file letter and the destination square (`cd4`).
    if toks.len() == 1 {
        let t = &toks[0];
        let b = t.as_bytes();
        // (Letters only, `HELP`, is no square at all: the error below says what a move is.)
        if b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1].is_ascii_alphabetic()
            && b[2..].iter().any(u8::is_ascii_digit)
        {
            let file = (b[0].to_ascii_lowercase() - b'a') as u32;
            let to = parse_square::<P>(&t[1..])
                .map_err(|e| MoveTextError::Malformed(format!("move '{shown}': {e}")))?;
            for m in legal {
                if m.to as u32 == to && P::coords(m.from as u32).0 == file {
                    add(*m, &mut candidates);
                }
            }
            return pick::<P>(pos, text, candidates, legal);
        }
        return Err(MoveTextError::Malformed(format!(
            "'{shown}' is not a move (expected from-to such as 32-28 or c3-d4)"
        )));
    }
    let squares: Vec<u32> = toks
        .iter()
        .map(|t| parse_square::<P>(t))
        .collect::<Result<_, _>>()
        .map_err(|e| MoveTextError::Malformed(format!("move '{shown}': {e}")))?;
    let (from, to) = (squares[0], squares[1]);
    for m in legal {
        if m.from as u32 != from {
            continue;
        }
        if squares.len() == 2 {
            if m.to as u32 == to {
                add(*m, &mut candidates);
            }
            continue;
        }
        // Hub form: from, to, captured squares in any order.
        if m.to as u32 == to {
            let mut caps = P::B::ZERO;
            for &s in &squares[2..] {
                caps |= P::B::bit(s);
            }
            if caps == m.captured && m.captured.count() as usize == squares.len() - 2 {
                add(*m, &mut candidates);
                continue;
            }
        }
        // Full route: every landing square in order.
        if m.to as u32 == *squares.last().expect("two squares or more")
            && pos.routes(m).contains(&squares)
        {
            add(*m, &mut candidates);
        }
    }
    pick::<P>(pos, text, candidates, legal)
}

fn pick<P: Board>(
    pos: &P,
    text: &str,
    candidates: Vec<Move<P::B>>,
    legal: &[Move<P::B>],
) -> Result<Move<P::B>, MoveTextError> {
    match candidates.len() {
        1 => Ok(candidates[0]),
        0 => {
            let hint = if legal.is_empty() {
                "there are no legal moves".to_string()
            } else if legal[0].is_capture() {
                "a capture is compulsory".to_string()
            } else {
                let n = legal.len();
                format!("{n} legal move{}", if n == 1 { "" } else { "s" })
            };
            Err(MoveTextError::Illegal {
                text: echo(text.trim()),
                hint,
            })
        }
        _ => {
            // Answer in the notation the move was written in.
            let letters = text
                .chars()
                .any(|c| c.is_ascii_alphabetic() && c != 'x' && c != 'X');
            let notation = if letters {
                Notation::Letter
            } else {
                Notation::Numeric
            };
            Err(MoveTextError::Ambiguous {
                text: echo(text.trim()),
                candidates: candidates
                    .iter()
                    .map(|m| format_route(pos, m, notation))
                    .collect(),
            })
        }
    }
}
