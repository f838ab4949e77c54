//! The evaluation of frisian and frysk!: the diagonal evaluation of the 10x10 board (the
//! same squares in the same bit layout) with frisian's own weights (`frisian.txt`: a king
//! worth less than two men, as the capture rule counts it).
//!
//! What it does not see: the orthogonal captures (threats along files and ranks count for
//! nothing until the search finds them), the king-move limit, and frysk!'s smaller army
//! (the tables taper by international's 40 pieces, so a frysk! position is scored as an
//! ending from the start).

use crate::rules::frisian::FrisianPosition;
use crate::rules::{Board, International, Position};

use super::diagonal::DiagonalTables;
use super::{Evaluate, Features, Weights};

/// The international position with the same pieces (the king-move counts dropped).
#[inline(always)]
fn as_international<const FRYSK: bool>(p: &FrisianPosition<FRYSK>) -> Position<International> {
    Position::from_parts(p.white(), p.black(), p.kings(), p.side())
}

impl<const FRYSK: bool> Evaluate for FrisianPosition<FRYSK> {
    type Tables = DiagonalTables<u64>;

    fn build_tables(w: &Weights) -> DiagonalTables<u64> {
        Position::<International>::build_tables(w)
    }
    #[inline]
    fn evaluate(&self, t: &DiagonalTables<u64>) -> i32 {
        as_international(self).evaluate(t)
    }
    fn trace(&self, t: &DiagonalTables<u64>) -> Option<Features> {
        as_international(self).trace(t)
    }
}
