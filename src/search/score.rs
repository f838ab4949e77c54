//! The score a search reports, from the side to move's view, and the words people read
//! (the Hub's numbers are written at the Hub's edge, `hub::protocol::hub_score`).

use crate::rules::{Bits, Board, Move};

use super::search::{EGDB_EVAL_RANGE, EGDB_WIN, MATE, MATE_BOUND};

/// A score as reported to the user, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-men (100 = one man).
    Eval(i32),
    /// The game ends this many plies from now: positive if the side to move wins,
    /// negative if it loses.
    GameEnd(i32),
    /// The endgame database calls the position won (positive) or lost (negative) for the
    /// side to move; the size is the number of plies along the principal variation to
    /// the first position the database holds (at least 1; 1 where the line is unknown).
    Database(i32),
}

impl Score {
    pub(super) fn from_internal(s: i32) -> Score {
        if s.abs() >= MATE_BOUND {
            Score::GameEnd(s.signum() * (MATE - s.abs()))
        } else if s.abs() >= EGDB_WIN - EGDB_EVAL_RANGE {
            // Only a database result reaches this band (see `EGDB_WIN`).
            Score::Database(s.signum())
        } else {
            Score::Eval(s)
        }
    }
}

impl std::fmt::Display for Score {
    /// `+0.15` (men), `win in 7 plies` / `loss in 6 plies`, `database win` /
    /// `database loss`; always from the side to move's view.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Score::Eval(c) => write!(f, "{:+.2}", c as f64 / 100.0),
            Score::GameEnd(1) => write!(f, "win in 1 ply"),
            Score::GameEnd(-1) => write!(f, "loss in 1 ply"),
            Score::GameEnd(n) if n > 0 => write!(f, "win in {n} plies"),
            Score::GameEnd(n) => write!(f, "loss in {} plies", -n),
            Score::Database(n) if n > 0 => write!(f, "database win"),
            Score::Database(_) => write!(f, "database loss"),
        }
    }
}

/// Plies along `pv` from `pos` to the first position with at most `max_pieces` pieces
/// (the first the database holds), at least 1; the whole line when none is reached.
pub(super) fn plies_to_database<P: Board>(pos: &P, pv: &[Move<P::B>], max_pieces: usize) -> i32 {
    let mut p = *pos;
    for (i, mv) in pv.iter().enumerate() {
        if (p.white() | p.black()).count() as usize <= max_pieces {
            return (i as i32).max(1);
        }
        p = p.play(mv);
    }
    (pv.len() as i32).max(1)
}
