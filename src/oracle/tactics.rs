//! Test positions with a known best move ("shots" and only moves), read from a TSV file:
//! `variant <tab> fen <tab> best moves <tab> comment`, where the best moves are separated
//! by spaces (any one of them solves the position) in any notation the variant reads.
//! Blank lines and lines starting with `#` are skipped.
//!
//! A comment that starts with `proof dN` (`proof d7: ...`) claims that the position is
//! proved by [`super::proof`] at depth N for its single best move: [`prove`] checks it.

use crate::notation::{format_hub_move, format_move, parse_move, parse_position};
use crate::rules::{AnyMove, Board, Goal, Move, Variant};
use crate::with_board;

use super::proof;
use crate::search::engine::Engine;
use crate::search::limits::Limits;

/// One test position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    /// Line in the file (1-based).
    pub line: usize,
    pub variant: Variant,
    pub fen: String,
    /// The solutions, Hub form (for people).
    pub solutions: Vec<String>,
    /// The same as moves, to compare with the engine's.
    pub solution_moves: Vec<AnyMove>,
    pub comment: String,
    /// The depth of the proof claimed by the comment (`proof dN` at its start).
    pub proof_depth: Option<u32>,
}

/// The depth claimed by a comment starting with `proof dN` (followed by the end, a space,
/// `:` or `;`); an error if the comment starts with `proof` but not in that form.
pub fn proof_depth(comment: &str) -> Result<Option<u32>, String> {
    let Some(rest) = comment.strip_prefix("proof") else {
        return Ok(None);
    };
    let bad = || format!("malformed proof claim '{comment}' (expected 'proof dN: ...')");
    let rest = rest.strip_prefix(" d").ok_or_else(bad)?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if end == 0 || !(rest[end..].is_empty() || rest[end..].starts_with([':', ';', ' '])) {
        return Err(bad());
    }
    match rest[..end].parse::<u32>() {
        Ok(d) if (1..=64).contains(&d) => Ok(Some(d)),
        _ => Err(format!(
            "proof depth in '{comment}' must be between 1 and 64"
        )),
    }
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
        let (solutions, solution_moves) =
            with_board!(variant, P => solutions::<P>(&fen, fields[2]))
                .map_err(|e| format!("line {n}: {e}"))?;
        if fields.len() > 4 {
            return Err(format!(
                "line {n}: {} tab-separated fields, expected at most 4",
                fields.len()
            ));
        }
        let comment = fields.get(3).map_or("", |c| c.trim()).to_string();
        let proof_depth = proof_depth(&comment).map_err(|e| format!("line {n}: {e}"))?;
        if proof_depth.is_some() && solutions.len() != 1 {
            return Err(format!(
                "line {n}: a proved position has exactly one best move, {} given",
                solutions.len()
            ));
        }
        out.push(Tactic {
            line: n,
            variant,
            fen,
            solutions,
            solution_moves,
            comment,
            proof_depth,
        });
    }
    Ok(out)
}

/// The solutions named by `moves` in `fen`: Hub text and moves.
fn solutions<P: Board>(fen: &str, moves: &str) -> Result<(Vec<String>, Vec<AnyMove>), String> {
    let pos: P = parse_position(fen).map_err(|e| format!("invalid position '{fen}': {e}"))?;
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let sols: Vec<Move<P::B>> = moves
        .split_whitespace()
        .map(|m| parse_move(&pos, m, &legal))
        .collect::<Result<_, _>>()?;
    if sols.is_empty() {
        return Err("no best move given".into());
    }
    Ok((
        sols.iter().map(format_hub_move::<P>).collect(),
        sols.iter().map(Move::erase).collect(),
    ))
}

/// Search `t` under `limits` with `engine` (fresh table); the engine's move (typed: the
/// caller writes it as it likes), and whether it solves the position.
pub fn solve(
    engine: &mut Engine,
    t: &Tactic,
    limits: Limits,
) -> Result<(Option<AnyMove>, bool), String> {
    engine.set_position(t.variant, &t.fen, &[])?;
    engine.new_game();
    let done = engine.think(limits, |_| {});
    let ok = done
        .best_move
        .is_some_and(|b| t.solution_moves.contains(&b));
    Ok((done.best_move, ok))
}

/// The prover's verdict on one position of the file.
#[derive(Clone, Debug)]
pub struct ProofCheck {
    pub proved: bool,
    pub depth: u32,
    /// Legal moves in the position.
    pub legal: usize,
    /// The key move in the variant's notation, and its proved value: the gain over the
    /// material before (`>= +2`, or an upper bound when it failed), king 3 then king 1.
    pub key: String,
    pub key_value: String,
    /// The best other try and its bound (`<= +0` when it gains nothing).
    pub best_other: Option<(String, String)>,
    /// The other moves that were not shown to gain nothing, with their bounds.
    pub refuting: Vec<(String, String)>,
    pub nodes: u64,
}

/// Re-prove `t` with the independent prover at the depth its comment claims. An error when
/// the position cannot be checked: no `proof dN` claim, or a variant where material means
/// nothing (losing draughts).
pub fn prove(t: &Tactic) -> Result<ProofCheck, String> {
    let depth = t
        .proof_depth
        .ok_or("the comment claims no proof (no 'proof dN' at its start)")?;
    if t.variant.goal() == Goal::Losing {
        return Err(format!("{} cannot be proved by material", t.variant));
    }
    with_board!(t.variant, P => prove_with::<P>(t, depth))
}

fn prove_with<P: Board>(t: &Tactic, depth: u32) -> Result<ProofCheck, String> {
    let pos: P = parse_position(&t.fen).map_err(|e| format!("invalid position: {e}"))?;
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let key = parse_move(&pos, &t.solutions[0], &legal)?;
    let p = proof::prove(&pos, &key, depth);
    let name = |m: &Move<P::B>| format_move(&pos, m, &legal, P::VARIANT.default_notation());
    let described = |(m, b): &(Move<P::B>, proof::Bound)| (name(m), b.describe(p.before));
    Ok(ProofCheck {
        proved: p.proved(),
        depth,
        legal: legal.len(),
        key: name(&key),
        key_value: format!(
            "{} (pieces {})",
            p.key_value.describe(p.before),
            p.key_pieces.describe(p.pieces_before)
        ),
        best_other: p.best_other().as_ref().map(described),
        refuting: p.refuting().iter().map(described).collect(),
        nodes: p.nodes,
    })
}
