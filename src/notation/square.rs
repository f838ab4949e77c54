//! Square names: numbers (`32`) and letter–number (`c3`) on every board.

use super::echo::echo;
use crate::rules::{Board, Notation};

/// The name of the square at `bit`.
pub fn square_name<P: Board>(bit: u32, notation: Notation) -> String {
    match notation {
        Notation::Numeric => P::square_of_bit(bit).to_string(),
        Notation::Letter => {
            let (file, rank) = P::coords(bit);
            format!("{}{}", (b'a' + file as u8) as char, rank)
        }
    }
}

/// Read a square in either notation; the error says why the text is not a square here.
pub fn parse_square<P: Board>(text: &str) -> Result<u32, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty square".into());
    }
    let shown = echo(t);
    if t.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = t
            .parse()
            .map_err(|_| format!("square '{shown}' is out of range"))?;
        return P::bit_of_square(n).ok_or_else(|| {
            format!(
                "square '{shown}' is not on the board (squares are 1-{})",
                P::square_count()
            )
        });
    }
    let file_char = t.as_bytes()[0].to_ascii_lowercase();
    if file_char.is_ascii_lowercase()
        && let rank_text = &t[1..]
        && !rank_text.is_empty()
        && rank_text.bytes().all(|b| b.is_ascii_digit())
    {
        let width = P::VARIANT.width();
        let file = (file_char - b'a') as u32;
        let rank: u32 = rank_text.parse().unwrap_or(0);
        if file >= width || rank == 0 || rank > width {
            return Err(format!(
                "square '{shown}' is not on a {width}x{width} board"
            ));
        }
        return P::bit_at(file, rank)
            .ok_or_else(|| format!("square '{shown}' is a light square (not playable)"));
    }
    Err(format!(
        "'{shown}' is not a square (expected a number or a letter-number name like c3)"
    ))
}
