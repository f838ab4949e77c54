//! Frisian draughts and frysk! (frisian from a start of five men each): the 10x10 dark-square
//! board of international draughts, with captures in eight directions, capture by value
//! and a limit on a king's quiet moves.
//!
//! The rules are the Frisian draughts federation's (Dambûn Frysk Spul / KNDB, "Official
//! Rules for Frisian Draughts", 2011); the article is cited beside each rule:
//!
//! - Art. 4, 6: 20 men each on squares 1–20 (Black) and 31–50 (White); White moves first.
//! - Art. 7: a man steps one square diagonally forward; it captures in any of eight
//!   directions, diagonally and along files and ranks ("man – enemy piece – empty square",
//!   on the dark squares: straight up a file the next dark square is two rows away, along a
//!   rank it is the next dark square of the row), and goes on capturing along other lines.
//! - Art. 8: a man is crowned only when its move (step or whole capture) ends on the far
//!   row; passing over it during a capture does not crown it.
//! - Art. 9: a king's simple moves go along the diagonals only, any distance; its captures
//!   go in all eight directions, any distance, landing on any empty square beyond.
//! - Captured pieces stay on the board until the capture is over and are jumped only once
//!   (as in international draughts).
//! - Art. 11: the capture of the highest value is compulsory; a king is worth more than one
//!   man and less than two, so that n kings are worth more than 2n−1 men and less than 2n
//!   men (counted here as a man 1, a king 2 − 1/64). Of captures of equal value, one made
//!   by a king is compulsory.
//! - Art. 12 (the "three king moves" rule): while a player still has men, one king may not
//!   make more than three simple (non-capturing) moves in a row; a capture (with any piece)
//!   or a move of another piece frees it. The count is part of the position ([`KingMoves`]):
//!   positions that differ in it are different positions (hash key, equality).
//!
//! The draw rules (2 kings against 1 king, 1 king against 1 king) are in the variant's
//! [`DrawRules`](super::DrawRules), applied by [`super::game`].
//!
//! Squares are international's (1 = b10 … 50 = i1), in the same ghost-square bit layout,
//! so the evaluation and notation of the 10x10 board serve unchanged.

use super::bits::Bits;
use super::board::{Board, Move, MoveList, Setup, SetupError};
use super::capture::{CaptureSink, Path};
use super::geometry::DiagonalGeometry;
use super::variant::{Color, Variant};
use super::zobrist::KEYS;

const GEO: DiagonalGeometry = DiagonalGeometry::new(10, false, false);
const BOARD: u64 = GEO.board as u64;
const TOP_ROW: u64 = GEO.top_row as u64;
const BOTTOM_ROW: u64 = GEO.bottom_row as u64;

/// The eight directions: the four diagonals numbered as in [`super::geometry`] (up is
/// toward square 1), then up a file, left and right along a rank, down a file.
pub const UP_LEFT: usize = 0;
pub const UP_RIGHT: usize = 1;
pub const DOWN_LEFT: usize = 2;
pub const DOWN_RIGHT: usize = 3;
pub const UP: usize = 4;
pub const LEFT: usize = 5;
pub const RIGHT: usize = 6;
pub const DOWN: usize = 7;

/// (file, rank) steps of the directions; an orthogonal step skips the light square between.
const STEPS: [(i32, i32); 8] = [
    (-1, 1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (0, 2),
    (-2, 0),
    (2, 0),
    (0, -2),
];

/// The direction opposite to `d`.
#[inline(always)]
const fn reverse(d: usize) -> usize {
    if d < 4 { 3 - d } else { 11 - d }
}

/// Whether walking in `d` goes toward lower bit indices (then the nearest piece of a set on
/// a ray is its highest bit).
#[inline(always)]
const fn falling(d: usize) -> bool {
    matches!(d, UP_LEFT | UP_RIGHT | UP | LEFT)
}

/// `RAYS[d][bit]`: every square from `bit` (exclusive) to the edge in direction `d`.
static RAYS: [[u64; 64]; 8] = rays();

const fn rays() -> [[u64; 64]; 8] {
    let mut rays = [[0u64; 64]; 8];
    let mut bit = 0;
    while bit < 64 {
        if BOARD & (1u64 << bit) != 0 {
            let (f0, r0) = GEO.coords(bit);
            let mut d = 0;
            while d < 8 {
                let (mut f, mut r) = (f0 as i32, r0 as i32);
                let mut ray = 0u64;
                loop {
                    f += STEPS[d].0;
                    r += STEPS[d].1;
                    if f < 0 || r < 1 || f > 9 || r > 10 {
                        break;
                    }
                    match GEO.bit_at(f as u32, r as u32) {
                        Some(b) => ray |= 1u64 << b,
                        None => break,
                    }
                }
                rays[d][bit as usize] = ray;
                d += 1;
            }
        }
        bit += 1;
    }
    rays
}

/// The first square of each row (left) and the last (right), for steps along a rank.
const fn row_edges() -> (u64, u64) {
    let (mut left, mut right) = (0u64, 0u64);
    let mut n = 0;
    while n < 50 {
        let bit = GEO.bit_of_square[n + 1] as u64;
        if n % 5 == 0 {
            left |= 1 << bit;
        }
        if n % 5 == 4 {
            right |= 1 << bit;
        }
        n += 1;
    }
    (left, right)
}
const LEFT_EDGE: u64 = row_edges().0;
const RIGHT_EDGE: u64 = row_edges().1;

/// One step of every square in `b` in direction `d`, off-board results dropped.
#[inline(always)]
fn step(b: u64, d: usize) -> u64 {
    (match d {
        UP_LEFT => b >> 6,
        UP_RIGHT => b >> 5,
        DOWN_LEFT => b << 5,
        DOWN_RIGHT => b << 6,
        // Two rows of five squares and their ghost bit: a file is 11 bits per step.
        UP => b >> 11,
        DOWN => b << 11,
        LEFT => (b & !LEFT_EDGE) >> 1,
        _ => (b & !RIGHT_EDGE) << 1,
    }) & BOARD
}

#[inline(always)]
fn nearest(set: u64, d: usize) -> u32 {
    if falling(d) { set.msb() } else { set.lsb() }
}

/// The empty squares a flying piece on `sq` sees in direction `d`, and the first occupied
/// square if any.
#[inline(always)]
fn open_ray(d: usize, sq: u32, occ: u64) -> (u64, Option<u32>) {
    let ray = RAYS[d][sq as usize];
    let blockers = ray & occ;
    if blockers == 0 {
        (ray, None)
    } else {
        let b = nearest(blockers, d);
        (ray ^ (RAYS[d][b as usize] | 1u64 << b), Some(b))
    }
}

/// Whether a king on `sq` can capture one of `targets` (Art. 9: eight directions).
#[inline(always)]
fn king_can_capture(sq: u32, occ: u64, targets: u64) -> bool {
    (0..8).any(|d| match open_ray(d, sq, occ).1 {
        Some(b) => targets.has(b) && step(1u64 << b, d) & !occ & BOARD != 0,
        None => false,
    })
}

/// The value of a capture (Art. 11) as an integer that orders captures as the rule book
/// does: a man counts 64, a king 127 (2 − 1/64 men; a side has at most 20 kings, so n kings
/// stay above 2n − 1 men), doubled, plus one when a king captures (the tie-break).
#[inline(always)]
pub fn capture_value(captured: u64, kings: u64, by_king: bool) -> u64 {
    let k = (captured & kings).count() as u64;
    let men = captured.count() as u64 - k;
    (((men + 2 * k) * 64 - k) << 1) | by_king as u64
}

/// Art. 12: the king of each side that has made simple moves in a row, and how many (0 to
/// 3). Kept canonical (all zero when the count is zero, or when the side has no men, for
/// whom the rule does not apply) so equal positions compare and hash equal.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct KingMoves {
    /// Per colour (White, Black): the number of simple moves in a row of the king on `square`.
    pub count: [u8; 2],
    pub square: [u8; 2],
}

/// Simple moves one king may make in a row while its side has men (Art. 12).
pub const KING_MOVE_LIMIT: u8 = 3;

/// A frisian position; `FRYSK` selects frysk!'s start (the rules are the same).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FrisianPosition<const FRYSK: bool> {
    white: u64,
    black: u64,
    kings: u64,
    side: Color,
    king_moves: KingMoves,
}

/// Frisian draughts from the 20-men start.
pub type FrisianBoard = FrisianPosition<false>;
/// frysk!: frisian from five men each on the back rows (squares 1–5 and 46–50).
pub type FryskBoard = FrisianPosition<true>;

/// Collects captures keeping only those of the highest value (Art. 11). `DEDUP`: a capture
/// with the same start, end and captured set as one listed is the same move (the `drop`
/// convention); without it every route is a move of its own (`keep`).
struct ValueCollect<'a, const DEDUP: bool> {
    out: &'a mut Vec<Move<u64>>,
    best: u64,
    kings: u64,
}

impl<const DEDUP: bool> CaptureSink<u64> for ValueCollect<'_, DEDUP> {
    #[inline(always)]
    fn add(&mut self, mv: Move<u64>, _path: &Path) {
        let v = capture_value(mv.captured, self.kings, self.kings.has(mv.from as u32));
        if v < self.best {
            return;
        }
        if v > self.best {
            self.out.clear();
            self.best = v;
        }
        if DEDUP && self.out.contains(&mv) {
            return;
        }
        self.out.push(mv);
    }
}

impl<const FRYSK: bool> FrisianPosition<FRYSK> {
    /// The king-move counts (Art. 12).
    pub fn king_moves(&self) -> KingMoves {
        self.king_moves
    }

    /// The same position with the king of `color` on `square` having made `count` simple
    /// moves in a row (for setting up positions the rule applies to); `None` if there is no
    /// king of that colour there or `count` is over the limit.
    pub fn with_king_moves(&self, color: Color, square: u32, count: u8) -> Option<Self> {
        let bit = Self::bit_of_square(square)?;
        let mine = self.pieces(color) & self.kings;
        if !mine.has(bit) || count > KING_MOVE_LIMIT {
            return None;
        }
        let mut p = *self;
        p.king_moves.count[color as usize] = count;
        p.king_moves.square[color as usize] = if count == 0 { 0 } else { bit as u8 };
        p.canonical();
        Some(p)
    }

    #[inline(always)]
    fn me_opp(&self) -> (u64, u64) {
        match self.side {
            Color::White => (self.white, self.black),
            Color::Black => (self.black, self.white),
        }
    }

    #[inline(always)]
    fn promo_row(c: Color) -> u64 {
        match c {
            Color::White => TOP_ROW,
            Color::Black => BOTTOM_ROW,
        }
    }

    /// The king of the side to move that may make no more simple moves (Art. 12), if any.
    #[inline(always)]
    fn frozen_king(&self) -> u64 {
        let i = self.side as usize;
        if self.king_moves.count[i] >= KING_MOVE_LIMIT {
            1u64 << self.king_moves.square[i]
        } else {
            0
        }
    }

    /// Zero the count of a side without men (the rule is not theirs) or whose counted king
    /// is gone.
    #[inline(always)]
    fn canonical(&mut self) {
        for (i, pieces) in [self.white, self.black].into_iter().enumerate() {
            let men = pieces & !self.kings;
            let k = self.king_moves.count[i];
            if k > 0 && (men == 0 || !(pieces & self.kings).has(self.king_moves.square[i] as u32)) {
                self.king_moves.count[i] = 0;
                self.king_moves.square[i] = 0;
            }
        }
    }

    /// The Zobrist part of the king-move counts (keys the pieces' 10x10 bits never use).
    #[inline(always)]
    fn counts_key(&self) -> u64 {
        let mut h = 0;
        for i in 0..2 {
            let n = self.king_moves.count[i] as usize;
            if n > 0 {
                h ^= KEYS[2 * i][64 + n] ^ KEYS[2 * i + 1][64 + self.king_moves.square[i] as usize];
            }
        }
        h
    }

    /// Men that can start a capture (Art. 7: eight directions).
    #[inline(always)]
    fn capturing_men(men: u64, opp: u64, empty: u64) -> u64 {
        let mut from = 0;
        for d in 0..8 {
            from |= step(step(empty, reverse(d)) & opp, reverse(d));
        }
        from & men
    }

    fn generate_captures<S: CaptureSink<u64>>(&self, sink: &mut S) {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let empty = BOARD & !occ;
        for from in Self::capturing_men(me & !self.kings, opp, empty).squares() {
            let mut path = Path::new(from);
            self.man_captures(sink, from, from, occ ^ 1u64 << from, opp, 0, &mut path);
        }
        for from in (me & self.kings).squares() {
            let occ = occ ^ 1u64 << from;
            if !king_can_capture(from, occ, opp) {
                continue;
            }
            let mut path = Path::new(from);
            self.king_captures(sink, from, from, occ, opp, 0, &mut path);
        }
    }

    /// A man's capture from `at` with `captured` already jumped (they stay on the board as
    /// blockers: `occ` keeps them) (Art. 7).
    #[allow(clippy::too_many_arguments)]
    fn man_captures<S: CaptureSink<u64>>(
        &self,
        sink: &mut S,
        from: u32,
        at: u32,
        occ: u64,
        opp: u64,
        captured: u64,
        path: &mut Path,
    ) {
        let targets = opp & !captured;
        let empty = BOARD & !occ;
        let mut extended = false;
        for d in 0..8 {
            let mid = step(1u64 << at, d) & targets;
            let land = step(mid, d) & empty;
            if land == 0 {
                continue;
            }
            extended = true;
            let l = land.lsb();
            path.push(l);
            self.man_captures(sink, from, l, occ, opp, captured | mid, path);
            path.pop();
        }
        if !extended && captured != 0 {
            let mv = Move {
                from: from as u8,
                to: at as u8,
                // Art. 8: crowned only where the whole move ends.
                promote: Self::promo_row(self.side).has(at),
                captured,
            };
            sink.add(mv, path);
        }
    }

    /// A king's capture from `at` (Art. 9): eight directions, any distance, any landing
    /// square beyond; where some landing squares let the capture go on, only those are
    /// taken (a capture that stops where it could go on takes less, and Art. 11 forbids it).
    #[allow(clippy::too_many_arguments)]
    fn king_captures<S: CaptureSink<u64>>(
        &self,
        sink: &mut S,
        from: u32,
        at: u32,
        occ: u64,
        opp: u64,
        captured: u64,
        path: &mut Path,
    ) {
        let targets = opp & !captured;
        let mut extended = false;
        for d in 0..8 {
            let b = match open_ray(d, at, occ).1 {
                Some(b) if targets.has(b) => b,
                _ => continue,
            };
            let (land, _) = open_ray(d, b, occ);
            if land == 0 {
                continue;
            }
            extended = true;
            let now = captured | 1u64 << b;
            let rest = opp & !now;
            let mut going_on = 0u64;
            for l in land.squares() {
                if king_can_capture(l, occ, rest) {
                    going_on |= 1u64 << l;
                }
            }
            if going_on != 0 {
                for l in going_on.squares() {
                    path.push(l);
                    self.king_captures(sink, from, l, occ, opp, now, path);
                    path.pop();
                }
            } else {
                for l in land.squares() {
                    path.push(l);
                    let mv = Move {
                        from: from as u8,
                        to: l as u8,
                        promote: false,
                        captured: now,
                    };
                    sink.add(mv, path);
                    path.pop();
                }
            }
        }
        if !extended && captured != 0 {
            let mv = Move {
                from: from as u8,
                to: at as u8,
                promote: false,
                captured,
            };
            sink.add(mv, path);
        }
    }

    fn generate_quiet(&self, out: &mut MoveList<u64>) {
        let (me, _) = self.me_opp();
        let occ = self.white | self.black;
        let empty = BOARD & !occ;
        let men = me & !self.kings;
        let promo = Self::promo_row(self.side);
        let forward = match self.side {
            Color::White => [UP_LEFT, UP_RIGHT],
            Color::Black => [DOWN_LEFT, DOWN_RIGHT],
        };
        for d in forward {
            for to in (step(men, d) & empty).squares() {
                let from = step(1u64 << to, reverse(d)).lsb();
                out.push(Move {
                    from: from as u8,
                    to: to as u8,
                    promote: promo.has(to),
                    captured: 0,
                });
            }
        }
        // Art. 9: simple king moves along the diagonals only; Art. 12: not a fourth in a row.
        for from in (me & self.kings & !self.frozen_king()).squares() {
            for d in 0..4 {
                for to in open_ray(d, from, occ).0.squares() {
                    out.push(Move {
                        from: from as u8,
                        to: to as u8,
                        promote: false,
                        captured: 0,
                    });
                }
            }
        }
    }

    fn moves_into<const DEDUP: bool>(&self, out: &mut MoveList<u64>) {
        out.clear();
        if self.has_capture() {
            let mut sink = ValueCollect::<DEDUP> {
                out,
                best: 0,
                kings: self.kings,
            };
            self.generate_captures(&mut sink);
        } else {
            self.generate_quiet(out);
        }
    }

    /// Every legal move once per route (the `keep` convention of the perft tables: equal
    /// captures by different routes counted apart).
    pub fn generate_routes(&self, out: &mut MoveList<u64>) {
        self.moves_into::<false>(out)
    }
}

/// Perft in the `keep` convention (one move per capture route); `generate_perft`, and so
/// [`crate::perft::perft`], counts in the `drop` convention.
pub fn perft_routes<const FRYSK: bool>(pos: &FrisianPosition<FRYSK>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    pos.generate_routes(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft_routes(&pos.play(m), depth - 1))
        .sum()
}

impl<const FRYSK: bool> Board for FrisianPosition<FRYSK> {
    type B = u64;
    const VARIANT: Variant = if FRYSK {
        Variant::Frysk
    } else {
        Variant::Frisian
    };

    fn start() -> Self {
        // Art. 4: 20 men each on 1–20 and 31–50; frysk!: 5 each on the back rows.
        let per_side = if FRYSK { 5 } else { 20 };
        let (mut white, mut black) = (0u64, 0u64);
        for n in 1..=per_side {
            black |= 1u64 << GEO.bit_of_square[n];
            white |= 1u64 << GEO.bit_of_square[51 - n];
        }
        FrisianPosition {
            white,
            black,
            kings: 0,
            side: Color::White,
            king_moves: KingMoves::default(),
        }
    }

    #[inline(always)]
    fn side(&self) -> Color {
        self.side
    }
    #[inline(always)]
    fn white(&self) -> u64 {
        self.white
    }
    #[inline(always)]
    fn black(&self) -> u64 {
        self.black
    }
    #[inline(always)]
    fn kings(&self) -> u64 {
        self.kings
    }

    fn generate(&self, out: &mut MoveList<u64>) {
        self.moves_into::<true>(out)
    }

    fn has_capture(&self) -> bool {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let empty = BOARD & !occ;
        if Self::capturing_men(me & !self.kings, opp, empty) != 0 {
            return true;
        }
        (me & self.kings)
            .squares()
            .any(|k| king_can_capture(k, occ ^ 1u64 << k, opp))
    }

    #[inline]
    fn play(&self, mv: &Move<u64>) -> Self {
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let (mut me, mut opp) = self.me_opp();
        me = (me ^ from) | to;
        opp &= !mv.captured;
        let was_king = self.kings & from != 0;
        let mut kings = self.kings & !mv.captured;
        if was_king || mv.promote {
            kings = (kings & !from) | to;
        }
        let (white, black) = match self.side {
            Color::White => (me, opp),
            Color::Black => (opp, me),
        };
        // Art. 12: a simple king move counts on for the same king and starts at one for
        // another; a capture or a man's move frees the side's kings.
        let mut km = self.king_moves;
        let i = self.side as usize;
        if was_king && !mv.is_capture() {
            let same = km.count[i] > 0 && km.square[i] == mv.from;
            km.count[i] = if same { km.count[i] + 1 } else { 1 };
            km.square[i] = mv.to;
        } else {
            km.count[i] = 0;
            km.square[i] = 0;
        }
        let mut p = FrisianPosition {
            white,
            black,
            kings,
            side: self.side.opposite(),
            king_moves: km,
        };
        p.canonical();
        p
    }

    #[inline(always)]
    fn pass(&self) -> Self {
        FrisianPosition {
            side: self.side.opposite(),
            ..*self
        }
    }

    fn capture_search<S: CaptureSink<u64>>(&self, sink: &mut S) {
        self.generate_captures(sink)
    }

    fn from_setup(setup: &Setup) -> Result<Self, SetupError> {
        let (white, black, kings) = setup.bitboards(Self::promo_row, Self::square_of_bit)?;
        Ok(FrisianPosition {
            white,
            black,
            kings,
            side: setup.side,
            king_moves: KingMoves::default(),
        })
    }

    fn square_count() -> u32 {
        50
    }
    fn bit_of_square(n: u32) -> Option<u32> {
        (1..=50)
            .contains(&n)
            .then(|| GEO.bit_of_square[n as usize] as u32)
    }
    fn square_of_bit(bit: u32) -> u32 {
        GEO.square_of_bit[bit as usize] as u32
    }
    fn coords(bit: u32) -> (u32, u32) {
        GEO.coords(bit)
    }
    fn bit_at(file: u32, rank: u32) -> Option<u32> {
        GEO.bit_at(file, rank)
    }
    fn promotion_row(color: Color) -> u64 {
        Self::promo_row(color)
    }

    fn state_key(&self) -> u64 {
        self.counts_key()
    }
    #[inline]
    fn state_key_after(&self, mv: &Move<u64>) -> u64 {
        self.counts_key() ^ self.play(mv).counts_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bitboard steps agree with the rays built from coordinates.
    #[test]
    fn steps_are_the_first_square_of_each_ray() {
        for bit in (0..64).filter(|&b| BOARD.has(b)) {
            for (d, rays) in RAYS.iter().enumerate() {
                let ray = rays[bit as usize];
                let first = if ray == 0 { 0 } else { 1u64 << nearest(ray, d) };
                assert_eq!(step(1u64 << bit, d), first, "bit {bit} direction {d}");
            }
        }
        // Square 28 is e5: up its file e7 (18) and e9 (8), down e3 (38) and e1 (48); along
        // its rank 26, 27 to the left and 29, 30 to the right.
        let b = |n: u32| FrisianBoard::bit_of_square(n).unwrap();
        let sq =
            |ray: u64| -> Vec<u32> { ray.squares().map(FrisianBoard::square_of_bit).collect() };
        assert_eq!(sq(RAYS[UP][b(28) as usize]), [8, 18]);
        assert_eq!(sq(RAYS[DOWN][b(28) as usize]), [38, 48]);
        assert_eq!(sq(RAYS[LEFT][b(28) as usize]), [26, 27]);
        assert_eq!(sq(RAYS[RIGHT][b(28) as usize]), [29, 30]);
    }

    #[test]
    fn value_orders_as_article_11() {
        let kings = 0b1111_1111u64;
        let v = |men: u32, k: u32| {
            let captured = ((1u64 << k) - 1) | (((1u64 << men) - 1) << 8);
            capture_value(captured, kings, false)
        };
        for n in 1..=8 {
            assert!(
                v(2 * n - 1, 0) < v(0, n),
                "{n} kings beat {} men",
                2 * n - 1
            );
            assert!(v(0, n) < v(2 * n, 0), "{} men beat {n} kings", 2 * n);
        }
        // A king and a man: more than two men, less than three or than two kings.
        assert!(v(2, 0) < v(1, 1) && v(1, 1) < v(3, 0) && v(1, 1) < v(0, 2));
        assert!(capture_value(1, kings, false) < capture_value(1, kings, true));
        assert!(capture_value(1, kings, true) < capture_value(3 << 8, kings, false));
    }
}
