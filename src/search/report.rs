//! What a search tells its caller: the progress after each iteration and the result.

use std::time::Duration;

use crate::rules::{AnyMove, Bits, Move};

use super::score::Score;

/// Progress after each iteration (one per MultiPV line).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1 for the best line.
    pub multipv: usize,
    pub score: Score,
    /// Nodes of all threads.
    pub nodes: u64,
    pub time: Duration,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation, its moves typed (each front end writes them in its
    /// protocol's form).
    pub pv_moves: Vec<AnyMove>,
    /// The same in the variant's notation (or the one set in the options), for people.
    pub pv: Vec<String>,
    /// Permille of the hash table written by this search.
    pub hashfull: u32,
}

/// The end of a search: exactly one per `go`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Done {
    /// The move to play; `None` when the game is over (no legal move).
    pub best_move: Option<AnyMove>,
    /// The expected reply.
    pub ponder_move: Option<AnyMove>,
    /// `best_move` and `ponder_move` in the variant's notation (or the one set in the
    /// options), for people.
    pub best_text: Option<String>,
    pub ponder_text: Option<String>,
    pub score: Option<Score>,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
}

impl Done {
    /// The move to play as a move of the position searched, whose legal moves are
    /// `legal`; `None` if there is none or it is not one of them.
    pub fn best_among<B: Bits>(&self, legal: &[Move<B>]) -> Option<Move<B>> {
        Move::among(self.best_move.as_ref()?, legal)
    }
}
