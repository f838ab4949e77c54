//! Static evaluation: a score in centi-men (100 = one man) from the side to move's view.
//!
//! One evaluation per variant family: [`diagonal`] serves every diagonal board (short or
//! flying kings, any size, normal, breakthrough and losing goals, each with its own weights
//! file) and [`orthogonal`] serves turkish. Weights come from `tuning/weights/` (see
//! [`weights`]); the families turn them into per-square bitboard masks once, when a
//! search starts, so evaluating is a few dozen shifts and popcounts.

pub mod diagonal;
pub mod endgame;
pub mod orthogonal;
pub mod weights;

pub use weights::Weights;

use crate::rules::Board;

/// A board type the search can evaluate.
pub trait Evaluate: Board {
    /// Masks and weights precomputed for one variant.
    type Tables: Send + Sync + 'static;
    fn build_tables(w: &Weights) -> Self::Tables;
    /// The score of `self` for the side to move, in centi-men.
    fn evaluate(&self, t: &Self::Tables) -> i32;
}

/// The evaluation of one variant, ready to use.
pub struct Evaluator<P: Evaluate> {
    tables: P::Tables,
}

impl<P: Evaluate> Evaluator<P> {
    /// With the weights embedded in the binary for `P`'s variant.
    pub fn new() -> Self {
        Self::with_weights(&Weights::embedded(P::VARIANT))
    }
    pub fn with_weights(w: &Weights) -> Self {
        Evaluator {
            tables: P::build_tables(w),
        }
    }
    #[inline(always)]
    pub fn evaluate(&self, pos: &P) -> i32 {
        pos.evaluate(&self.tables)
    }
}

impl<P: Evaluate> Default for Evaluator<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// Chebyshev distance between two (file, rank) squares: king steps on an empty board.
#[inline(always)]
pub(crate) fn distance(a: (u8, u8), b: (u8, u8)) -> i32 {
    (a.0 as i32 - b.0 as i32)
        .abs()
        .max((a.1 as i32 - b.1 as i32).abs())
}
