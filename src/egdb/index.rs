//! Where each endgame position lives in a database: material slices and a combinatorial
//! index within each slice, for any board of the rules core with at most 64 squares.
//!
//! Positions are handled in *square space*: a `u64` mask whose bit `i` is square `i + 1`
//! of the variant's rule book. A slice is one material balance (men and kings of each
//! colour); within it, a position's index is
//!
//! ```text
//! ((((black_men * W + white_men) * K + white_kings) * L + black_kings) * 2 + side
//! ```
//!
//! where each part is the colex rank of a set of squares: the men among the squares a man
//! of that colour may stand on (all but its promotion row), the white kings among the
//! squares the men leave empty, the black kings among the squares left after that. Men of
//! both colours may be ranked onto the same square; those few indices are invalid and
//! never looked up.
//!
//! Everything board-specific is read once from the rules core into a [`Geometry`]: the
//! square numbering, the promotion rows, the half turn of the board (which, with the
//! colours exchanged, maps a position to one of the same value: the databases store White
//! to move only), and the quiet moves a piece can have come by ([`Geometry::unmoves`]),
//! found by asking the move generator, so flying kings and turkish's orthogonal moves
//! need no code of their own here.

use crate::rules::{Bits, Board, Color, English, Goal, Move, Position, TurkishPosition, Variant};
#[cfg(test)]
use crate::rules::{International, Italian, Russian};

/// The english board type (the tests' and the old API's).
pub type Pos = Position<English>;

/// The most playable squares a database board may have (square masks are `u64`).
pub const MAX_SQUARES: usize = 64;
/// The largest piece count a slice is indexed for.
pub const MAX_PIECES: usize = 7;

/// `BINOM[n][k]` = n choose k, for n ≤ 64 and k ≤ MAX_PIECES.
const BINOM: [[u64; MAX_PIECES + 1]; MAX_SQUARES + 1] = {
    let mut t = [[0u64; MAX_PIECES + 1]; MAX_SQUARES + 1];
    let mut n = 0;
    while n <= MAX_SQUARES {
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

/// A board the database can be built for: the rules core's board types whose positions
/// are their pieces and side to move alone (frisian's king-move counts are not), built
/// from bitboards without checks.
pub trait EgdbBoard: Board {
    fn from_bits(white: Self::B, black: Self::B, kings: Self::B, side: Color) -> Self;
}

impl<R: crate::rules::Rules> EgdbBoard for Position<R> {
    #[inline(always)]
    fn from_bits(white: R::B, black: R::B, kings: R::B, side: Color) -> Self {
        Position::from_parts(white, black, kings, side)
    }
}

impl EgdbBoard for TurkishPosition {
    #[inline(always)]
    fn from_bits(white: u64, black: u64, kings: u64, side: Color) -> Self {
        TurkishPosition::from_parts(white, black, kings, side)
    }
}

/// Why `variant` has no database, if it has none.
pub fn unsupported(variant: Variant) -> Option<String> {
    let why = match variant {
        Variant::Frisian | Variant::Frysk => {
            "its positions carry king-move counts beyond the pieces"
        }
        Variant::Canadian => "its 72 squares exceed the 64 a database board may have",
        _ if variant.goal() != Goal::Normal => "its goal is not the normal one",
        _ => return None,
    };
    Some(format!("{variant} has no endgame database: {why}"))
}

/// The variants with a database, for messages.
pub fn supported_names() -> String {
    crate::rules::ALL_VARIANTS
        .iter()
        .filter(|v| unsupported(**v).is_none())
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Run `$body` with `$P` bound to the board type of `$variant`, a variant with a
/// database (the caller checks with [`unsupported`]); others panic.
#[macro_export]
macro_rules! with_egdb_board {
    ($variant:expr, $P:ident => $body:expr) => {
        $crate::with_egdb_board!(@each $variant, $P, $body;
            English International Russian Brazilian Killer Italian Pool Czech Spanish Thai)
    };
    (@each $variant:expr, $P:ident, $body:expr; $($d:ident)*) => {{
        use $crate::rules::Variant as V;
        match $variant {
            $(V::$d => {
                type $P = $crate::rules::Position<$crate::rules::$d>;
                $body
            })*
            V::Turkish => {
                type $P = $crate::rules::TurkishPosition;
                $body
            }
            v => panic!("{v} has no endgame database"),
        }
    }};
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

    /// A dense number for tables of slices (every count at most [`MAX_PIECES`]).
    pub fn id(&self) -> usize {
        let d = MAX_PIECES + 1;
        ((self.men[0] as usize * d + self.kings[0] as usize) * d + self.men[1] as usize) * d
            + self.kings[1] as usize
    }

    /// Slice ids are below this.
    pub const ID_LIMIT: usize = (MAX_PIECES + 1).pow(4);

    /// The slice's name in messages and file names: white men, kings, black men, kings.
    pub fn name(&self) -> String {
        format!(
            "{}{}{}{}",
            self.men[0], self.kings[0], self.men[1], self.kings[1]
        )
    }

    /// Whether a move of either side in this slice can reach a position of `to` (a
    /// capture, a man crowned, or both): the side that moves keeps its pieces, but for at
    /// most one man crowned, and the other side loses any of its. Quiet moves within the
    /// slice do not count. The builder keeps a slice's values in full only while a slice
    /// still to build reaches it.
    pub fn reaches(&self, to: &Slice) -> bool {
        to != self
            && [Color::White, Color::Black].into_iter().any(|c| {
                let (m, o) = (c as usize, c.opposite() as usize);
                let crowned = self.men[m] as i32 - to.men[m] as i32;
                (crowned == 0 || crowned == 1)
                    && to.kings[m] as i32 == self.kings[m] as i32 + crowned
                    && to.men[o] <= self.men[o]
                    && to.kings[o] <= self.kings[o]
            })
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
    pub white: u64,
    pub black: u64,
    pub kings: u64,
    pub side: Color,
}

impl Squares {
    pub fn slice(&self) -> Slice {
        let count = |m: u64| m.count_ones() as u8;
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

/// A quiet move a piece may have come by to a square: from `from`, over the squares of
/// `between` (which must be empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmove {
    pub from: u8,
    pub between: u64,
}

/// Square-space tables of one variant's board, read from its rules core.
pub struct Geometry {
    pub variant: Variant,
    /// Playable squares.
    pub squares: usize,
    /// Board bit of each square.
    bit_of: [u8; MAX_SQUARES],
    /// Square of each board bit (255: not a square).
    square_of_bit: [u8; 128],
    /// The squares a man of each colour may stand on, ascending, and how many.
    man_squares: [[u8; MAX_SQUARES]; 2],
    pub man_count: [usize; 2],
    /// A square's place in `man_squares` (255: a man cannot stand there).
    man_place: [[u8; MAX_SQUARES]; 2],
    /// The square a square becomes when the board is turned half a circle.
    turn: [u8; MAX_SQUARES],
    /// `[colour][king][square]`: the quiet moves (no capture, no crowning) by which a
    /// piece of that colour and kind can have reached the square on an empty board.
    /// Built only for the builder (see [`Geometry::with_unmoves`]).
    unmoves: Vec<Vec<Unmove>>,
}

impl Geometry {
    /// The tables of `P`'s board (no un-moves: see [`Geometry::with_unmoves`]).
    pub fn of<P: EgdbBoard>() -> Geometry {
        let n = P::square_count() as usize;
        assert!(n <= MAX_SQUARES, "{} squares", n);
        let mut g = Geometry {
            variant: P::VARIANT,
            squares: n,
            bit_of: [0; MAX_SQUARES],
            square_of_bit: [255; 128],
            man_squares: [[0; MAX_SQUARES]; 2],
            man_count: [0; 2],
            man_place: [[255; MAX_SQUARES]; 2],
            turn: [0; MAX_SQUARES],
            unmoves: Vec::new(),
        };
        for s in 0..n {
            let bit = P::bit_of_square(s as u32 + 1).expect("every square has a bit");
            g.bit_of[s] = bit as u8;
            g.square_of_bit[bit as usize] = s as u8;
        }
        for c in [Color::White, Color::Black] {
            let promo = P::promotion_row(c);
            let mut k = 0;
            for s in 0..n {
                if !promo.has(g.bit_of[s] as u32) {
                    g.man_squares[c as usize][k] = s as u8;
                    g.man_place[c as usize][s] = k as u8;
                    k += 1;
                }
            }
            g.man_count[c as usize] = k;
        }
        // The half turn: (file, rank) to the file and rank as far from the other edges.
        let coords: Vec<(u32, u32)> = (0..n).map(|s| P::coords(g.bit_of[s] as u32)).collect();
        let (f0, f1) = (
            coords.iter().map(|c| c.0).min().unwrap(),
            coords.iter().map(|c| c.0).max().unwrap(),
        );
        let (r0, r1) = (
            coords.iter().map(|c| c.1).min().unwrap(),
            coords.iter().map(|c| c.1).max().unwrap(),
        );
        for (s, &(f, r)) in coords.iter().enumerate() {
            let bit = P::bit_at(f0 + f1 - f, r0 + r1 - r).expect("the board turns onto itself");
            g.turn[s] = g.square_of_bit[bit as usize];
        }
        // Turned, each colour's promotion row is the other's.
        for s in 0..n {
            assert_eq!(
                g.man_place[0][s] == 255,
                g.man_place[1][g.turn[s] as usize] == 255,
                "{}: the promotion rows do not turn onto each other",
                P::VARIANT
            );
        }
        g
    }

    /// [`Geometry::of`] with the un-move tables the builder needs: for every colour, kind
    /// and square, the quiet moves the move generator gives a lone piece toward it, and
    /// for each the squares that block it (those where an extra piece takes the move away).
    pub fn with_unmoves<P: EgdbBoard>() -> Geometry {
        let mut g = Geometry::of::<P>();
        let n = g.squares;
        g.unmoves = vec![Vec::new(); 2 * 2 * n];
        let mut moves = Vec::new();
        let mut blocked = Vec::new();
        for c in [Color::White, Color::Black] {
            for king in [false, true] {
                for from in 0..n {
                    if !king && g.man_place[c as usize][from] == 255 {
                        continue;
                    }
                    let alone = Squares {
                        white: if c == Color::White { 1 << from } else { 0 },
                        black: if c == Color::Black { 1 << from } else { 0 },
                        kings: if king { 1 << from } else { 0 },
                        side: c,
                    };
                    let pos: P = g.position(&alone);
                    pos.generate(&mut moves);
                    for m in moves.iter().filter(|m| !m.is_capture() && !m.promote) {
                        let to = g.square_of_bit[m.to as usize] as usize;
                        let mut between = 0u64;
                        for b in (0..n).filter(|&b| b != from && b != to) {
                            // A king of the same colour on `b`: it may stand anywhere.
                            let with = Squares {
                                white: alone.white | if c == Color::White { 1 << b } else { 0 },
                                black: alone.black | if c == Color::Black { 1 << b } else { 0 },
                                kings: alone.kings | 1 << b,
                                side: c,
                            };
                            let p: P = g.position(&with);
                            p.generate(&mut blocked);
                            if !blocked.iter().any(|x| same_quiet(x, m)) {
                                between |= 1 << b;
                            }
                        }
                        g.unmoves[(c as usize * 2 + king as usize) * n + to].push(Unmove {
                            from: from as u8,
                            between,
                        });
                    }
                }
            }
        }
        g
    }

    /// The quiet moves by which a piece of colour `c` (a king or not) can have come to
    /// `square` (see [`Geometry::with_unmoves`]).
    #[inline(always)]
    pub fn unmoves(&self, c: Color, king: bool, square: usize) -> &[Unmove] {
        &self.unmoves[(c as usize * 2 + king as usize) * self.squares + square]
    }

    /// Whether a man of colour `c` may stand on `square`.
    #[inline(always)]
    pub fn man_may_stand(&self, c: Color, square: usize) -> bool {
        self.man_place[c as usize][square] != 255
    }

    #[inline(always)]
    fn turn_mask(&self, mut m: u64) -> u64 {
        let mut out = 0;
        while m != 0 {
            out |= 1u64 << self.turn[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        out
    }

    /// The same position with the colours exchanged and the board turned half a circle,
    /// so the other side is to move: the database variants' rules treat the colours
    /// alike (a test checks it for each), so the value is the same.
    #[inline(always)]
    pub fn flipped(&self, s: &Squares) -> Squares {
        Squares {
            white: self.turn_mask(s.black),
            black: self.turn_mask(s.white),
            kings: self.turn_mask(s.kings),
            side: s.side.opposite(),
        }
    }

    #[inline(always)]
    fn to_board<B: Bits>(&self, mut mask: u64) -> B {
        let mut b = B::ZERO;
        while mask != 0 {
            b |= B::bit(self.bit_of[mask.trailing_zeros() as usize] as u32);
            mask &= mask - 1;
        }
        b
    }

    #[inline(always)]
    fn mask_of_board<B: Bits>(&self, b: B) -> u64 {
        let mut mask = 0u64;
        let mut m = b.to_u128();
        while m != 0 {
            mask |= 1u64 << self.square_of_bit[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        mask
    }

    /// The board bit of square `s` (from 0).
    #[inline(always)]
    pub fn board_bit<B: Bits>(&self, s: usize) -> B {
        B::bit(self.bit_of[s] as u32)
    }

    #[inline(always)]
    pub fn position<P: EgdbBoard>(&self, s: &Squares) -> P {
        P::from_bits(
            self.to_board(s.white),
            self.to_board(s.black),
            self.to_board(s.kings),
            s.side,
        )
    }

    #[inline(always)]
    pub fn squares<P: Board>(&self, p: &P) -> Squares {
        Squares {
            white: self.mask_of_board(p.white()),
            black: self.mask_of_board(p.black()),
            kings: self.mask_of_board(p.kings()),
            side: p.side(),
        }
    }

    /// (black men, white men, white kings, black kings) radices of a slice's index.
    pub fn radices(&self, slice: &Slice) -> [u64; 4] {
        let [wm, bm] = [slice.men[0] as usize, slice.men[1] as usize];
        let [wk, bk] = [slice.kings[0] as usize, slice.kings[1] as usize];
        let free = self.squares - wm - bm;
        [
            binom(self.man_count[1], bm),
            binom(self.man_count[0], wm),
            binom(free, wk),
            binom(free - wk, bk),
        ]
    }

    /// Number of indices of a slice (both sides to move, invalid ones included).
    pub fn size(&self, slice: &Slice) -> u64 {
        self.radices(slice).iter().product::<u64>() * 2
    }

    /// The index of `s` within its slice.
    #[inline]
    pub fn index(&self, s: &Squares) -> u64 {
        self.index_with(&self.radices(&s.slice()), s)
    }

    /// The index of `s` given its slice's [`radices`](Self::radices): for the many
    /// positions of one slice that the builder's sweeps index.
    #[inline]
    pub fn index_with(&self, r: &[u64; 4], s: &Squares) -> u64 {
        let wm = s.white & !s.kings;
        let bm = s.black & !s.kings;
        let wk = s.white & s.kings;
        let bk = s.black & s.kings;
        let rank_men = |mask: u64, c: Color| {
            colex(mask, |sq| self.man_place[c as usize][sq as usize] as usize)
        };
        let rank_bm = rank_men(bm, Color::Black);
        let rank_wm = rank_men(wm, Color::White);
        let (rank_wk, rank_bk) = self.king_ranks(wm | bm, wk, bk);
        ((((rank_bm * r[1] + rank_wm) * r[2] + rank_wk) * r[3] + rank_bk) << 1)
            | (s.side == Color::Black) as u64
    }

    /// The kings' digits of [`index_with`](Self::index_with): White's kings `wk` and
    /// Black's `bk` beside the men `men`. Each king's place is its place among the
    /// squares still empty when it is set down, the men first, then White's kings.
    #[inline]
    pub fn king_ranks(&self, men: u64, wk: u64, bk: u64) -> (u64, u64) {
        let rank_wk = colex(wk, |sq| (!men & ((1u64 << sq) - 1)).count_ones() as usize);
        let taken = men | wk;
        let rank_bk = colex(bk, |sq| (!taken & ((1u64 << sq) - 1)).count_ones() as usize);
        (rank_wk, rank_bk)
    }

    /// The squares of `k` kings whose digit is `rank`, set down on the squares not in
    /// `taken` (the inverse of [`king_ranks`](Self::king_ranks) for one colour).
    #[inline]
    pub fn kings_of_rank(&self, taken: u64, k: usize, rank: u64) -> u64 {
        nth_empty_squares(taken, uncolex(rank, k, self.squares))
    }

    /// The squares of `k` men of colour `c` whose index digit is `rank` (see
    /// [`index_with`](Self::index_with)).
    pub fn men_of_rank(&self, c: Color, k: usize, rank: u64) -> u64 {
        let mut mask = 0u64;
        for place in uncolex(rank, k, self.squares) {
            mask |= 1u64 << self.man_squares[c as usize][place];
        }
        mask
    }

    /// The position at `index` of `slice`, or None if the index puts two men on one
    /// square.
    pub fn decode(&self, slice: &Slice, index: u64) -> Option<Squares> {
        let r = self.radices(slice);
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
        let bm = self.men_of_rank(Color::Black, slice.men[1] as usize, rank_bm);
        let wm = self.men_of_rank(Color::White, slice.men[0] as usize, rank_wm);
        if bm & wm != 0 {
            return None;
        }
        let wk = self.kings_of_rank(bm | wm, slice.kings[0] as usize, rank_wk);
        let bk = self.kings_of_rank(bm | wm | wk, slice.kings[1] as usize, rank_bk);
        Some(Squares {
            white: wm | wk,
            black: bm | bk,
            kings: wk | bk,
            side,
        })
    }
}

/// Whether two moves are the same quiet move.
fn same_quiet<B: Bits>(a: &Move<B>, b: &Move<B>) -> bool {
    a.from == b.from && a.to == b.to && !a.is_capture() && !a.promote
}

/// Colex rank of a set: the sum of C(place_i, i + 1) over its places in ascending order.
#[inline(always)]
fn colex(mut mask: u64, place: impl Fn(u32) -> usize) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while mask != 0 {
        rank += binom(place(mask.trailing_zeros()), i);
        mask &= mask - 1;
        i += 1;
    }
    rank
}

/// The `k` places, in ascending order, of colex rank `rank`, below `n`.
///
/// Each place is found by a binary search of the binomials rather than a walk down from
/// `n`: decoding is a third of a build's time (every index of a slice is decoded in the
/// first pass, every settled one again in the sweeps), and a walk takes up to 64 steps
/// on the 8x8 orthogonal board where a search takes six.
#[inline(always)]
fn uncolex(mut rank: u64, k: usize, n: usize) -> impl Iterator<Item = usize> {
    let mut places = [0usize; MAX_PIECES];
    // The place found last bounds the next from above: C(above, i) > rank.
    let mut above = n;
    for i in (1..=k).rev() {
        let p = if i == 1 {
            rank as usize
        } else {
            // The largest p below `above` with C(p, i) <= rank; C(i - 1, i) = 0.
            let (mut lo, mut hi) = (i - 1, above);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if binom(mid, i) <= rank {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        places[i - 1] = p;
        rank -= binom(p, i);
        above = p;
    }
    places.into_iter().take(k)
}

/// The square of the `n`th (from 0) set bit of `x`, which has more than `n` set bits:
/// halves, quarters and eighths counted off, then at most seven bits cleared.
#[inline(always)]
fn select(mut x: u64, mut n: u32) -> u32 {
    let mut base = 0;
    for width in [32, 16, 8] {
        let low = (x & ((1u64 << width) - 1)).count_ones();
        if n >= low {
            n -= low;
            x >>= width;
            base += width;
        }
    }
    for _ in 0..n {
        x &= x - 1;
    }
    base + x.trailing_zeros()
}

/// The squares that are the given places among the squares not in `taken`.
#[inline(always)]
fn nth_empty_squares(taken: u64, places: impl Iterator<Item = usize>) -> u64 {
    let free = !taken;
    let mut mask = 0;
    for place in places {
        mask |= 1u64 << select(free, place as u32);
    }
    mask
}

/// The board types the tests of this module and of the builder run on: one of each
/// kind (short kings, short kings with italian's turned board, flying kings on 8x8 and
/// 10x10, orthogonal).
#[cfg(test)]
pub(crate) fn test_geometries() -> Vec<Geometry> {
    vec![
        Geometry::with_unmoves::<Pos>(),
        Geometry::with_unmoves::<Position<Italian>>(),
        Geometry::with_unmoves::<Position<Russian>>(),
        Geometry::with_unmoves::<Position<International>>(),
        Geometry::with_unmoves::<TurkishPosition>(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_and_uncolex_agree_with_their_plain_definitions() {
        // select: the nth set bit, against clearing the lowest n bits one by one.
        let mut rng = crate::rng::XorShift64::new(crate::rng::GOLDEN);
        for _ in 0..2000 {
            let x = rng.next_u64();
            for n in 0..x.count_ones() {
                let mut plain = x;
                for _ in 0..n {
                    plain &= plain - 1;
                }
                assert_eq!(select(x, n), plain.trailing_zeros(), "{x:#x} {n}");
            }
        }
        // uncolex inverts colex for every rank of up to 3 of 64 places, and samples of
        // more: the places ascending, distinct and below n.
        for k in 1..=MAX_PIECES {
            let all = binom(64, k);
            let step = if k <= 3 { 1 } else { (all / 50_000) | 1 };
            for rank in (0..all).step_by(step as usize) {
                let places: Vec<usize> = uncolex(rank, k, 64).collect();
                assert!(places.windows(2).all(|w| w[0] < w[1]), "{places:?}");
                assert!(places.iter().all(|&p| p < 64));
                let mask = places.iter().fold(0u64, |m, &p| m | 1 << p);
                assert_eq!(colex(mask, |sq| sq as usize), rank, "k {k}");
            }
        }
    }

    #[test]
    fn every_valid_index_decodes_to_a_position_that_indexes_back() {
        for g in test_geometries() {
            for n in 2..=3 {
                for slice in Slice::with_pieces(n) {
                    let mut valid = 0;
                    // Every index of the small slices, a stride through the large ones.
                    let size = g.size(&slice);
                    let step = (size / 200_000).max(1);
                    for i in (0..size).step_by(step as usize) {
                        if let Some(s) = g.decode(&slice, i) {
                            assert_eq!(s.slice(), slice);
                            assert_eq!(g.index(&s), i, "{} {slice:?} {s:?}", g.variant);
                            valid += 1;
                        }
                    }
                    assert!(valid > 0);
                }
            }
        }
    }

    #[test]
    fn board_round_trips_and_half_turns() {
        fn check<P: EgdbBoard>() {
            let g = Geometry::of::<P>();
            let slice = Slice {
                men: [1, 1],
                kings: [1, 1],
            };
            for i in (0..g.size(&slice)).step_by(9973) {
                let Some(s) = g.decode(&slice, i) else {
                    continue;
                };
                let p: P = g.position(&s);
                assert_eq!(g.squares(&p), s);
                assert_eq!(g.flipped(&g.flipped(&s)), s);
                assert_eq!(g.flipped(&s).slice().men, [1, 1]);
            }
        }
        check::<Pos>();
        check::<Position<Italian>>();
        check::<Position<International>>();
        check::<TurkishPosition>();
    }

    #[test]
    fn slices_come_fewer_men_first() {
        let s = Slice::with_pieces(3);
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
    fn unmoves_follow_the_move_generator() {
        // English: a white man on 14 (c5) came from 17 (b4) or 18 (d4): men move up.
        let g = Geometry::with_unmoves::<Pos>();
        let from: Vec<u8> = g
            .unmoves(Color::White, false, 13)
            .iter()
            .map(|u| u.from + 1)
            .collect();
        assert_eq!(from, [17, 18]);
        // International: a king on 46 (a1) came along the long diagonal from as far as
        // 5 (j10), over every square between.
        let g = Geometry::with_unmoves::<Position<International>>();
        let far = g
            .unmoves(Color::White, true, 45)
            .iter()
            .find(|u| u.from == 4)
            .expect("the long diagonal");
        assert_eq!(far.between.count_ones(), 8);
        // Turkish: a king on a1 came along the first rank or the a-file: 14 squares.
        let g = Geometry::with_unmoves::<TurkishPosition>();
        assert_eq!(g.unmoves(Color::White, true, 0).len(), 14);
    }

    #[test]
    fn the_supported_variants_are_stated() {
        assert!(unsupported(Variant::Frisian).unwrap().contains("king-move"));
        assert!(unsupported(Variant::Canadian).unwrap().contains("72"));
        assert!(unsupported(Variant::Losing).is_some());
        assert!(unsupported(Variant::Turkish).is_none());
        assert!(supported_names().contains("international"));
    }
}
