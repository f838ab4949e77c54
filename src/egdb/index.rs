//! Where each english endgame position lives in the database: material slices and a
//! combinatorial index within each slice.
//!
//! Positions are handled in *square space*: a `u32` mask whose bit `i` is square `i + 1`
//! of the rule book (1 = b8, Black's side; 32 = g1, White's back row). A slice is one
//! material balance (men and kings of each colour); within it, a position's index is
//!
//! ```text
//! ((((black_men * W + white_men) * K + white_kings) * L + black_kings) * 2 + side
//! ```
//!
//! where each part is the colex rank of a set of squares: the men among the 28 squares a
//! man of that colour may stand on, the white kings among the squares the men leave empty,
//! the black kings among the squares left after that. Men of both colours may be ranked
//! onto the same square; those few indices are invalid and never looked up.

use crate::rules::{Board, Color, English, Position};

/// The english board type.
pub type Pos = Position<English>;

/// Playable squares on the 8x8 board.
pub const SQUARES: usize = 32;
/// Squares a man of one colour may stand on (all but its promotion row).
const MAN_SQUARES: usize = 28;
/// The largest piece count a slice is indexed for.
pub const MAX_PIECES: usize = 6;

/// `BINOM[n][k]` = n choose k, for n ≤ 32 and k ≤ MAX_PIECES.
const BINOM: [[u64; MAX_PIECES + 1]; SQUARES + 1] = {
    let mut t = [[0u64; MAX_PIECES + 1]; SQUARES + 1];
    let mut n = 0;
    while n <= SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

#[inline(always)]
fn binom(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// One material balance, indexed by colour (`Color::White as usize` = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    pub men: [u8; 2],
    pub kings: [u8; 2],
}

impl Slice {
    pub fn pieces(&self) -> usize {
        (self.men[0] + self.men[1] + self.kings[0] + self.kings[1]) as usize
    }

    /// Pieces of one colour.
    pub fn side_pieces(&self, c: Color) -> usize {
        (self.men[c as usize] + self.kings[c as usize]) as usize
    }

    /// A dense number for tables of slices (every count below 7).
    pub fn id(&self) -> usize {
        let d = MAX_PIECES + 1;
        ((self.men[0] as usize * d + self.kings[0] as usize) * d + self.men[1] as usize) * d
            + self.kings[1] as usize
    }

    /// Slice ids are below this.
    pub const ID_LIMIT: usize = (MAX_PIECES + 1).pow(4);

    /// (black men, white men, white kings, black kings) radices of the index.
    fn radices(&self) -> [u64; 4] {
        let [wm, bm] = [self.men[0] as usize, self.men[1] as usize];
        let [wk, bk] = [self.kings[0] as usize, self.kings[1] as usize];
        let free = SQUARES - wm - bm;
        [
            binom(MAN_SQUARES, bm),
            binom(MAN_SQUARES, wm),
            binom(free, wk),
            binom(free - wk, bk),
        ]
    }

    /// Number of indices (both sides to move, invalid ones included).
    pub fn size(&self) -> u64 {
        self.radices().iter().product::<u64>() * 2
    }

    /// Every slice with exactly `n` pieces and at least one piece a side, in the order a
    /// database must be built: fewer men first, because a promotion turns a man into a
    /// king and so leads to a slice with the same piece count and one man fewer.
    pub fn with_pieces(n: usize) -> Vec<Slice> {
        let mut out = Vec::new();
        for men in 0..=n {
            for wm in 0..=men {
                let bm = men - wm;
                for wk in 0..=(n - men) {
                    let bk = n - men - wk;
                    let s = Slice {
                        men: [wm as u8, bm as u8],
                        kings: [wk as u8, bk as u8],
                    };
                    if s.side_pieces(Color::White) > 0 && s.side_pieces(Color::Black) > 0 {
                        out.push(s);
                    }
                }
            }
        }
        out
    }
}

/// A position in square space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Squares {
    pub white: u32,
    pub black: u32,
    pub kings: u32,
    pub side: Color,
}

impl Squares {
    /// The same position with the colours exchanged and the board turned half a circle
    /// (square n becomes 33 - n), so the other side is to move: english is symmetric, so
    /// the value is the same.
    pub fn flipped(&self) -> Squares {
        Squares {
            white: self.black.reverse_bits(),
            black: self.white.reverse_bits(),
            kings: self.kings.reverse_bits(),
            side: self.side.opposite(),
        }
    }

    pub fn slice(&self) -> Slice {
        let count = |m: u32| m.count_ones() as u8;
        Slice {
            men: [
                count(self.white & !self.kings),
                count(self.black & !self.kings),
            ],
            kings: [
                count(self.white & self.kings),
                count(self.black & self.kings),
            ],
        }
    }
}

/// Square-space tables of the 8x8 board.
pub struct Geometry {
    /// Board bit of each square.
    bit_of: [u32; SQUARES],
    /// Square of each board bit (255: not a square).
    square_of_bit: [u8; 64],
    /// The squares a man of each colour may stand on, ascending.
    man_squares: [[u8; MAN_SQUARES]; 2],
    /// A square's place in `man_squares` (255: a man cannot stand there).
    man_place: [[u8; SQUARES]; 2],
    /// Diagonal neighbours: `[square][direction]`, directions up-left, up-right,
    /// down-left, down-right (up = toward Black's side, where White's men go); 255 off
    /// the board.
    pub neighbour: [[u8; 4]; SQUARES],
}

impl Geometry {
    pub fn new() -> Geometry {
        let mut g = Geometry {
            bit_of: [0; SQUARES],
            square_of_bit: [255; 64],
            man_squares: [[0; MAN_SQUARES]; 2],
            man_place: [[255; SQUARES]; 2],
            neighbour: [[255; 4]; SQUARES],
        };
        for s in 0..SQUARES {
            let bit = Pos::bit_of_square(s as u32 + 1).expect("32 squares");
            g.bit_of[s] = bit;
            g.square_of_bit[bit as usize] = s as u8;
        }
        for c in [Color::White, Color::Black] {
            let promo = Pos::promotion_row(c);
            let mut n = 0;
            for s in 0..SQUARES {
                if promo & (1u64 << g.bit_of[s]) == 0 {
                    g.man_squares[c as usize][n] = s as u8;
                    g.man_place[c as usize][s] = n as u8;
                    n += 1;
                }
            }
            assert_eq!(n, MAN_SQUARES);
        }
        for s in 0..SQUARES {
            let (f, r) = Pos::coords(g.bit_of[s]);
            for (d, (df, dr)) in [(-1i32, 1i32), (1, 1), (-1, -1), (1, -1)]
                .iter()
                .enumerate()
            {
                let (nf, nr) = (f as i32 + df, r as i32 + dr);
                if nf >= 0
                    && nr >= 0
                    && let Some(bit) = Pos::bit_at(nf as u32, nr as u32)
                {
                    g.neighbour[s][d] = g.square_of_bit[bit as usize];
                }
            }
        }
        g
    }

    /// The directions a man of `c` moves in (White's men go up, toward square 1).
    pub fn forward(c: Color) -> [usize; 2] {
        match c {
            Color::White => [0, 1],
            Color::Black => [2, 3],
        }
    }

    fn to_board(&self, mask: u32) -> u64 {
        let mut b = 0u64;
        let mut m = mask;
        while m != 0 {
            b |= 1u64 << self.bit_of[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        b
    }

    fn mask_of_board(&self, b: u64) -> u32 {
        let mut mask = 0u32;
        let mut m = b;
        while m != 0 {
            mask |= 1u32 << self.square_of_bit[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        mask
    }

    pub fn position(&self, s: &Squares) -> Pos {
        Pos::from_parts(
            self.to_board(s.white),
            self.to_board(s.black),
            self.to_board(s.kings),
            s.side,
        )
    }

    pub fn squares(&self, p: &Pos) -> Squares {
        Squares {
            white: self.mask_of_board(p.white()),
            black: self.mask_of_board(p.black()),
            kings: self.mask_of_board(p.kings()),
            side: p.side(),
        }
    }

    /// The index of `s` within its slice.
    pub fn index(&self, s: &Squares) -> u64 {
        let slice = s.slice();
        let r = slice.radices();
        let wm = s.white & !s.kings;
        let bm = s.black & !s.kings;
        let wk = s.white & s.kings;
        let bk = s.black & s.kings;
        let rank_men = |mask: u32, c: Color| {
            colex(mask, |sq| self.man_place[c as usize][sq as usize] as usize)
        };
        let men = wm | bm;
        let rank_bm = rank_men(bm, Color::Black);
        let rank_wm = rank_men(wm, Color::White);
        // A king's place among the squares still empty when it is set down.
        let rank_wk = colex(wk, |sq| (!men & ((1u32 << sq) - 1)).count_ones() as usize);
        let taken = men | wk;
        let rank_bk = colex(bk, |sq| (!taken & ((1u32 << sq) - 1)).count_ones() as usize);
        ((((rank_bm * r[1] + rank_wm) * r[2] + rank_wk) * r[3] + rank_bk) << 1)
            | (s.side == Color::Black) as u64
    }

    /// The position at `index` of `slice`, or None if the index puts two men on one
    /// square.
    pub fn decode(&self, slice: &Slice, index: u64) -> Option<Squares> {
        let r = slice.radices();
        let side = if index & 1 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut i = index >> 1;
        let rank_bk = i % r[3];
        i /= r[3];
        let rank_wk = i % r[2];
        i /= r[2];
        let rank_wm = i % r[1];
        let rank_bm = i / r[1];
        let men_mask = |rank: u64, k: u8, c: Color| {
            let mut mask = 0u32;
            for place in uncolex(rank, k as usize) {
                mask |= 1u32 << self.man_squares[c as usize][place];
            }
            mask
        };
        let bm = men_mask(rank_bm, slice.men[1], Color::Black);
        let wm = men_mask(rank_wm, slice.men[0], Color::White);
        if bm & wm != 0 {
            return None;
        }
        let wk = nth_empty_squares(bm | wm, uncolex(rank_wk, slice.kings[0] as usize));
        let bk = nth_empty_squares(bm | wm | wk, uncolex(rank_bk, slice.kings[1] as usize));
        Some(Squares {
            white: wm | wk,
            black: bm | bk,
            kings: wk | bk,
            side,
        })
    }
}

impl Default for Geometry {
    fn default() -> Self {
        Self::new()
    }
}

/// Colex rank of a set: the sum of C(place_i, i + 1) over its places in ascending order.
#[inline(always)]
fn colex(mut mask: u32, place: impl Fn(u32) -> usize) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while mask != 0 {
        rank += binom(place(mask.trailing_zeros()), i);
        mask &= mask - 1;
        i += 1;
    }
    rank
}

/// The `k` places (ascending order not guaranteed) of colex rank `rank`.
#[inline(always)]
fn uncolex(mut rank: u64, k: usize) -> impl Iterator<Item = usize> {
    let mut places = [0usize; MAX_PIECES];
    let mut p = SQUARES;
    for i in (1..=k).rev() {
        // The largest place p with C(p, i) <= rank.
        p -= 1;
        while binom(p, i) > rank {
            p -= 1;
        }
        places[i - 1] = p;
        rank -= binom(p, i);
    }
    places.into_iter().take(k)
}

/// The squares that are the given places among the squares not in `taken`.
#[inline(always)]
fn nth_empty_squares(taken: u32, places: impl Iterator<Item = usize>) -> u32 {
    let mut mask = 0;
    for place in places {
        let mut free = !taken;
        for _ in 0..place {
            free &= free - 1;
        }
        mask |= 1u32 << free.trailing_zeros();
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_index_decodes_to_a_position_that_indexes_back() {
        let g = Geometry::new();
        for n in 2..=3 {
            for slice in Slice::with_pieces(n) {
                let mut valid = 0;
                for i in 0..slice.size() {
                    if let Some(s) = g.decode(&slice, i) {
                        assert_eq!(s.slice(), slice);
                        assert_eq!(g.index(&s), i, "{slice:?} {s:?}");
                        let p = g.position(&s);
                        assert_eq!(g.squares(&p), s);
                        valid += 1;
                    }
                }
                assert!(valid > 0);
            }
        }
    }

    #[test]
    fn slices_come_fewer_men_first() {
        let s = Slice::with_pieces(3);
        // 2+1 pieces with both sides present: men 0..=3 distributed; every slice once.
        assert_eq!(
            s.len(),
            s.iter().collect::<std::collections::HashSet<_>>().len()
        );
        for w in s.windows(2) {
            let men = |x: &Slice| x.men[0] + x.men[1];
            assert!(men(&w[0]) <= men(&w[1]));
        }
    }

    #[test]
    fn neighbours_match_the_rule_book() {
        let g = Geometry::new();
        // Square 1 (b8): down-left is 5 (a7), down-right 6 (c7); nothing above.
        assert_eq!(g.neighbour[0], [255, 255, 4, 5]);
        // Square 32 (g1): up-left 27 (f2), up-right 28 (h2).
        assert_eq!(g.neighbour[31], [26, 27, 255, 255]);
    }
}
