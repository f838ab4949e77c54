//! Move ordering: the transposition-table move first, then captures by what they take,
//! then the killers of the ply, promotions, and the rest by history.

use crate::rules::{Bits, Board, Move};

use super::history::History;
use super::tt::PackedMove;

const TT_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 26;
const PROMOTION: i32 = 1 << 25;

/// Two quiet moves per ply that recently caused a cut-off.
pub type Killers<B> = [Move<B>; 2];

/// Remember `mv` as a killer (most recent first). Killers are quiet, so the default move
/// (no capture, from = to = 0) can never match a real one.
#[inline(always)]
pub fn add_killer<B: Bits>(k: &mut Killers<B>, mv: &Move<B>) {
    if k[0] != *mv {
        k[1] = k[0];
        k[0] = *mv;
    }
}

/// Fill `scores` for `moves` (same length).
#[inline]
pub fn score_moves<P: Board>(
    pos: &P,
    moves: &[Move<P::B>],
    scores: &mut Vec<i32>,
    tt_move: PackedMove,
    killers: &Killers<P::B>,
    history: &History,
) {
    scores.clear();
    let tt_index = tt_move.find(moves);
    let side = pos.side();
    let kings = pos.kings();
    for (i, m) in moves.iter().enumerate() {
        let s = if Some(i) == tt_index {
            TT_MOVE
        } else if m.is_capture() {
            // More pieces first, kings count extra (every move of the list is a capture).
            CAPTURE + 64 * m.captured.count() as i32 + 16 * (m.captured & kings).count() as i32
        } else if *m == killers[0] {
            KILLER + 1
        } else if *m == killers[1] {
            KILLER
        } else if m.promote {
            PROMOTION
        } else {
            history.get(side, m)
        };
        scores.push(s);
    }
}

/// Move the best-scored move of `moves[from..]` to `from` (selection sort step: cheap
/// when a cut-off comes early, which is the common case).
#[inline(always)]
pub fn pick_next<B: Copy>(moves: &mut [Move<B>], scores: &mut [i32], from: usize) {
    let mut best = from;
    for i in from + 1..moves.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    moves.swap(from, best);
    scores.swap(from, best);
}

/// Whether the ordering put `mv` among the killers (these are not reduced as much).
#[inline(always)]
pub fn is_killer<B: Bits>(k: &Killers<B>, mv: &Move<B>) -> bool {
    k[0] == *mv || k[1] == *mv
}
