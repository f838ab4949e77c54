//! What real files mean plainly but write loosely, settled once a game's variant is known:
//!
//! - **A capture written by its start and end only** (`10x26`) where two routes with
//!   different captured men lead there: old english files do this, and the moves after it
//!   decide which was played. Each candidate is tried against the rest of its line; the
//!   one under which the line replays furthest is kept (in [`PdnMove::decided`]) with a
//!   warning. When the rest fits several alike, the move stays ambiguous and checking
//!   reports it.
//! - **A man on its own crowning row** in a FEN tag or a `/FEN/` setup (problem collections):
//!   read as a king, with a warning, the FEN rewritten so everything after reads it so.
//!
//! `--strict` on the command line refuses games with warnings.

use super::game::{Game, Line, PdnMove, Warning};
use super::lexer::Pos;
use crate::notation::{format_hub_move, format_route, parse_fen_crowning, parse_move, write_fen};
use crate::rules::{Board, Move, Notation};
use crate::with_board;

/// Resolutions the look-ahead of one ambiguous move may spend: captures that stay ambiguous
/// further on branch again, and a pathological file must not make reading slow.
const LOOKAHEAD_BUDGET: usize = 20_000;

/// Settle `game` in place (its variant must be final).
pub fn settle(game: &mut Game) {
    with_board!(game.variant, P => settle_with::<P>(game))
}

fn settle_with<P: Board>(game: &mut Game) {
    let mut warnings = Vec::new();
    let start = match &mut game.fen {
        None => Some(P::start()),
        Some((fen, pos)) => crowned_fen::<P>(fen, *pos, game.number, "FEN tag", &mut warnings),
    };
    if let Some(start) = start {
        settle_line(&start, &mut game.main_line, game.number, 1, &mut warnings);
    }
    game.warnings.extend(warnings);
}

/// The position of a FEN, a man on its crowning row read as a king (the FEN text rewritten,
/// with a warning); `None` if it is not a position at all (checking reports that).
fn crowned_fen<P: Board>(
    fen: &mut String,
    at: Pos,
    game: usize,
    what: &str,
    warnings: &mut Vec<Warning>,
) -> Option<P> {
    let (pos, crowned) = parse_fen_crowning::<P>(fen).ok()?;
    if !crowned.is_empty() {
        let names: Vec<String> = crowned
            .iter()
            .map(|&sq| {
                let bit = P::bit_of_square(sq).unwrap_or(0);
                let letter = crate::notation::square_name::<P>(bit, Notation::Letter);
                format!("{sq} ({letter})")
            })
            .collect();
        let (men, verb, kings) = if names.len() == 1 {
            ("man", "stands", "a king")
        } else {
            ("men", "stand", "kings")
        };
        warnings.push(Warning {
            game,
            pos: at,
            message: format!(
                "{what}: the {men} on {} {verb} on the crowning row, read as {kings}",
                names.join(", ")
            ),
        });
        *fen = write_fen(&pos, Notation::Numeric);
    }
    Some(pos)
}

/// The legal moves of `pos` that `text` can mean.
fn candidates<P: Board>(pos: &P, text: &str, legal: &[Move<P::B>]) -> Vec<Move<P::B>> {
    if let Ok(mv) = parse_move(pos, text, legal) {
        return vec![mv];
    }
    // Not one move: which of them would it be alone?
    legal
        .iter()
        .filter(|&&mv| parse_move(pos, text, &[mv]).is_ok())
        .copied()
        .collect()
}

fn settle_line<P: Board>(
    start: &P,
    line: &mut Line,
    game: usize,
    first_ply: usize,
    warnings: &mut Vec<Warning>,
) {
    let mut pos = Some(*start);
    let mut legal = Vec::new();
    for i in 0..line.moves.len() {
        let ply = first_ply + i;
        let (done, rest) = line.moves.split_at_mut(i + 1);
        let m = &mut done[i];
        let before = match &mut m.setup {
            Some((fen, at)) => crowned_fen::<P>(fen, *at, game, "setup", warnings),
            None => pos,
        };
        let Some(before) = before else {
            // Nothing to replay from; a later setup may give a position again.
            pos = None;
            continue;
        };
        for v in &mut m.variations {
            settle_line(&before, v, game, ply, warnings);
        }
        before.generate(&mut legal);
        let fits = candidates(&before, &m.text, &legal);
        pos = match fits.len() {
            0 => None,
            1 => Some(before.play(&fits[0])),
            _ => decide(&before, m, &fits, rest, game, ply, warnings),
        };
    }
}

/// Pick the one of `fits` under which the moves after `m` replay furthest.
fn decide<P: Board>(
    before: &P,
    m: &mut PdnMove,
    fits: &[Move<P::B>],
    rest: &[PdnMove],
    game: usize,
    ply: usize,
    warnings: &mut Vec<Warning>,
) -> Option<P> {
    let mut budget = LOOKAHEAD_BUDGET;
    let reach: Vec<usize> = fits
        .iter()
        .map(|mv| replayable(&before.play(mv), rest, &mut budget))
        .collect();
    let best = *reach.iter().max().expect("two moves or more");
    let mut winners = fits.iter().zip(&reach).filter(|(_, r)| **r == best);
    let (chosen, _) = winners.next().expect("the best one");
    if winners.next().is_some() {
        // The rest fits more than one: checking reports the move as ambiguous.
        return None;
    }
    let route = |mv: &Move<P::B>| format_route(before, mv, Notation::Numeric);
    let all: Vec<String> = fits.iter().map(route).collect();
    let others: Vec<String> = fits
        .iter()
        .zip(&reach)
        .filter(|(mv, _)| *mv != chosen)
        .map(|(mv, r)| format!("{r} after {}", route(mv)))
        .collect();
    let n = rest.len();
    warnings.push(Warning {
        game,
        pos: m.pos,
        message: format!(
            "ply {ply}: '{}' could be {}; read as {}, under which {best} of the {n} moves \
             after it replay ({})",
            m.text,
            all.join(" or "),
            route(chosen),
            others.join(", ")
        ),
    });
    m.decided = Some(format_hub_move::<P>(chosen));
    Some(before.play(chosen))
}

/// How many of `moves` replay from `pos` (a setup ends the count: what follows it no
/// longer depends on `pos`); an ambiguous move counts the better of its readings.
fn replayable<P: Board>(pos: &P, moves: &[PdnMove], budget: &mut usize) -> usize {
    let mut pos = *pos;
    let mut legal = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        if m.setup.is_some() || *budget == 0 {
            return i;
        }
        *budget -= 1;
        pos.generate(&mut legal);
        let fits = candidates(&pos, &m.text, &legal);
        match fits.len() {
            0 => return i,
            1 => pos = pos.play(&fits[0]),
            // Another ambiguous move: the better of its readings.
            _ => {
                let deeper = fits
                    .iter()
                    .map(|mv| replayable(&pos.play(mv), &moves[i + 1..], budget))
                    .max()
                    .unwrap_or(0);
                return i + 1 + deeper;
            }
        }
    }
    moves.len()
}
