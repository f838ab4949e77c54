//! Where finished capture sequences go: the move list (with the maximum-capture rule and
//! duplicate merging) or a route finder for notation.

use super::bits::Bits;
use super::board::Move;

/// The landing squares of the capture being built, start square first.
pub struct Path {
    squares: [u8; 48],
    len: usize,
}

impl Path {
    #[inline(always)]
    pub fn new(start: u32) -> Self {
        let mut squares = [0u8; 48];
        squares[0] = start as u8;
        Path { squares, len: 1 }
    }
    #[inline(always)]
    pub fn push(&mut self, sq: u32) {
        // A capture sequence takes at most one step per enemy piece (at most 30 on 12x12),
        // so the array cannot overflow.
        self.squares[self.len] = sq as u8;
        self.len += 1;
    }
    #[inline(always)]
    pub fn pop(&mut self) {
        self.len -= 1;
    }
    pub fn squares(&self) -> impl Iterator<Item = u32> + '_ {
        self.squares[..self.len].iter().map(|&s| s as u32)
    }
}

/// Receives every complete capture sequence the generator finds.
pub trait CaptureSink<B: Bits> {
    /// The sink counts every route (no duplicate merging): the generator then leaves out
    /// the routes that only differ by where a king paused on a straight line.
    const EVERY_ROUTE: bool = false;
    fn add(&mut self, mv: Move<B>, path: &Path);
}

/// Collects captures into a move list.
///
/// `MAX`: keep only the sequences taking the most pieces. `DEDUP`: a capture with the same
/// start, end, captured set and promotion as one already listed is the same move (dropped);
/// Turkish perft counts every path and turns this off.
pub struct Collect<'a, B, const MAX: bool, const DEDUP: bool> {
    pub out: &'a mut Vec<Move<B>>,
    pub best: u32,
}

impl<'a, B: Bits, const MAX: bool, const DEDUP: bool> Collect<'a, B, MAX, DEDUP> {
    #[inline(always)]
    pub fn new(out: &'a mut Vec<Move<B>>) -> Self {
        Collect { out, best: 0 }
    }
}

impl<B: Bits, const MAX: bool, const DEDUP: bool> CaptureSink<B> for Collect<'_, B, MAX, DEDUP> {
    const EVERY_ROUTE: bool = !DEDUP;
    #[inline(always)]
    fn add(&mut self, mv: Move<B>, _path: &Path) {
        if MAX {
            let n = mv.captured.count();
            if n < self.best {
                return;
            }
            if n > self.best {
                self.out.clear();
                self.best = n;
            }
        }
        if DEDUP && self.out.contains(&mv) {
            return;
        }
        self.out.push(mv);
    }
}

/// Collects the routes that play one given move.
pub struct Routes<B> {
    pub target: Move<B>,
    pub routes: Vec<Vec<u32>>,
}

impl<B: Bits> CaptureSink<B> for Routes<B> {
    fn add(&mut self, mv: Move<B>, path: &Path) {
        if mv == self.target {
            let route: Vec<u32> = path.squares().collect();
            if !self.routes.contains(&route) {
                self.routes.push(route);
            }
        }
    }
}
