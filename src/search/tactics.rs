//! Test positions with a known best move ("shots" and only moves), read from a TSV file:
//! `variant <tab> fen <tab> best moves <tab> comment`, where the best moves are separated
//! by spaces (any one of them solves the position) in any notation the variant reads.
//! Blank lines and lines starting with `#` are skipped.

use crate::notation::{format_hub_move, parse_move, parse_position};
use crate::rules::{Board, Variant};
use crate::with_board;

use super::engine::Engine;
use super::limits::Limits;

/// One test position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    /// Line in the file (1-based).
    pub line: usize,
    pub variant: Variant,
    pub fen: String,
    /// The solutions, Hub form (as the engine reports its move).
    pub solutions: Vec<String>,
    pub comment: String,
}

/// Read a tactics file; the error names the line.
pub fn parse(text: &str) -> Result<Vec<Tactic>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        if fields.len() < 3 {
            return Err(format!(
                "line {n}: expected variant, fen and best moves separated by tabs"
            ));
        }
        let variant: Variant = fields[0]
            .trim()
            .parse()
            .map_err(|e| format!("line {n}: {e}"))?;
        let fen = fields[1].trim().to_string();
        let solutions = with_board!(variant, P => solutions::<P>(&fen, fields[2]))
            .map_err(|e| format!("line {n}: {e}"))?;
        out.push(Tactic {
            line: n,
            variant,
            fen,
            solutions,
            comment: fields.get(3).map_or("", |c| c.trim()).to_string(),
        });
    }
    Ok(out)
}

fn solutions<P: Board>(fen: &str, moves: &str) -> Result<Vec<String>, String> {
    let pos: P = parse_position(fen).map_err(|e| format!("invalid position '{fen}': {e}"))?;
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let sols: Vec<String> = moves
        .split_whitespace()
        .map(|m| parse_move(&pos, m, &legal).map(|mv| format_hub_move::<P>(&mv)))
        .collect::<Result<_, _>>()?;
    if sols.is_empty() {
        return Err("no best move given".into());
    }
    Ok(sols)
}

/// Search `t` under `limits` with `engine` (fresh table); the engine's move, and whether it
/// solves the position.
pub fn solve(
    engine: &mut Engine,
    t: &Tactic,
    limits: Limits,
) -> Result<(Option<String>, bool), String> {
    engine.set_position(t.variant, &t.fen, &[])?;
    engine.new_game();
    let done = engine.think(limits, |_| {});
    let ok = done.best.as_ref().is_some_and(|b| t.solutions.contains(b));
    Ok((done.best, ok))
}
