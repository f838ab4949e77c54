//! The evaluation of the diagonal variants (english, international, russian, brazilian,
//! canadian, killer, breakthrough, losing): one code path, switched by the variant's rule
//! constants and fed by its weights file.
//!
//! Terms are computed for each colour from bitboards (shifts along the ghost-square
//! layout, popcounts over masks built once from the board geometry) and the black total
//! is subtracted from the white one.
//!
//! Every term reaches the score through a [`Sink`]: the search's sink multiplies by the
//! weight as it goes (as fast as writing the products out), the tuner's sink records the
//! counts instead, so the evaluation is a dot product of those features and the weights
//! (checked by `tests/eval_features.rs`). Terms counted in `1/D` (D = the pieces at the
//! start) — the tables tapered by the number of pieces on the board, and `trade_ahead` —
//! are summed apart and divided once.

use crate::rules::geometry::{DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, reverse};
use crate::rules::{Bits, Board, Color, Goal, Position, Rules};

use super::endgame::{self, Ending, Material};
use super::rectangles;
use super::weights::{PATTERN_STATES, PATTERN_UNIT, TABLES, pattern_phases};
use super::{Evaluate, Features, Term, Weights, distance};

const SCALARS: usize = Weights::NAMES.len();

/// Where the evaluation's terms go: multiplied into a score, or recorded as features.
/// Counts are from White's view (Black's terms come negated).
trait Sink<B> {
    /// The tuner's sink: it records the patterns of 8x8 boards even while their values
    /// are all zero (so they can be fitted from nothing).
    const TRACING: bool;
    /// `count` of scalar term `term`, in whole units.
    fn add(&mut self, term: Term, count: i32);
    /// `count` of `term` in units of `1/D`.
    fn add_fine(&mut self, term: Term, count: i32);
    /// The per-square tables for `pieces` (men, or kings when `king`) of colour `c`,
    /// tapered by `phase` (pieces on the board, at most D); `sign` is +1 for White.
    fn squares(&mut self, king: bool, c: Color, pieces: B, phase: i32, sign: i32);
    /// The pattern windows (`shifts`, see [`window_shifts`]) over the `white` and `black`
    /// pieces (ghost-layout bits), with `phase` as for the tables.
    fn patterns(&mut self, shifts: &[[u32; 4]], white: u64, black: u64, phase: i32);
    /// The rectangles (10x10 boards) over the `white` and `black` men (ghost-layout
    /// bits), with `phase` as for the tables.
    fn rectangles(&mut self, white: u64, black: u64, phase: i32);
}

/// The search's sink: the score itself.
struct Score<'a, B> {
    t: &'a DiagonalTables<B>,
    coarse: i32,
    fine: i32,
    /// The patterns, in 1/(start pieces · PATTERN_UNIT) centi-men (see `Features::dot`).
    patterns: i32,
}

impl<B: Bits> Sink<B> for Score<'_, B> {
    const TRACING: bool = false;
    #[inline(always)]
    fn add(&mut self, term: Term, count: i32) {
        self.coarse += self.t.wv[term as usize] * count;
    }
    #[inline(always)]
    fn add_fine(&mut self, term: Term, count: i32) {
        self.fine += self.t.wv[term as usize] * count;
    }
    #[inline(always)]
    fn squares(&mut self, king: bool, c: Color, pieces: B, phase: i32, sign: i32) {
        if !self.t.has_tables || (!king && self.t.men_in_rectangles) {
            return;
        }
        let table = &self.t.pst[king as usize][c as usize];
        let (mut open, mut end) = (0, 0);
        for sq in pieces.squares() {
            let (o, e) = table[sq as usize];
            open += o;
            end += e;
        }
        self.fine += sign * (open * phase + end * (self.t.start_pieces - phase));
    }
    #[inline(always)]
    fn patterns(&mut self, shifts: &[[u32; 4]], white: u64, black: u64, phase: i32) {
        // One read per window: the table holds White's value of the configuration less
        // Black's value of the same squares seen from his side (see `board_patterns`).
        let (mut open, mut end) = (0, 0);
        for (w, s) in shifts.iter().enumerate() {
            let index =
                BASE3[window_bits(white, s)] as usize + 2 * BASE3[window_bits(black, s)] as usize;
            let [o, e] = self.t.patterns[w * PATTERN_STATES + index];
            open += o as i32;
            end += e as i32;
        }
        self.patterns += if self.t.pattern_phases == 1 {
            open * self.t.start_pieces
        } else {
            open * phase + end * (self.t.start_pieces - phase)
        };
    }
    #[inline(always)]
    fn rectangles(&mut self, white: u64, black: u64, phase: i32) {
        let (mut open, mut end) = (0, 0);
        for w in 0..rectangles::WINDOWS {
            let (i, sign) = rectangles::entry(w, white, black);
            let [o, e] = self.t.rectangles[i];
            open += sign * o as i32;
            end += sign * e as i32;
        }
        self.patterns += open * phase + end * (self.t.start_pieces - phase);
    }
}

/// The tuner's sink: counts per parameter.
struct Tracer<'a, B> {
    t: &'a DiagonalTables<B>,
    f: Features,
}

impl<B: Bits> Sink<B> for Tracer<'_, B> {
    const TRACING: bool = true;
    fn rectangles(&mut self, white: u64, black: u64, phase: i32) {
        let base = Weights::NAMES.len() + TABLES.len() * self.t.squares + self.t.w.patterns.len();
        let per_phase = rectangles::TABLES * rectangles::STATES;
        let end = self.t.start_pieces - phase;
        for w in 0..rectangles::WINDOWS {
            let (i, sign) = rectangles::entry(w, white, black);
            let i = base + i;
            if phase != 0 {
                self.f.sparse_fine.push((i as u32, sign * phase));
            }
            if end != 0 {
                self.f
                    .sparse_fine
                    .push(((i + per_phase) as u32, sign * end));
            }
        }
    }
    fn add(&mut self, term: Term, count: i32) {
        self.f.coarse[term as usize] += count;
    }
    fn add_fine(&mut self, term: Term, count: i32) {
        self.f.fine[term as usize] += count;
    }
    fn squares(&mut self, king: bool, c: Color, pieces: B, phase: i32, sign: i32) {
        let n = self.t.squares;
        let base = Weights::NAMES.len() + 2 * n * king as usize;
        for sq in pieces.squares() {
            let i = base + self.t.own_index[c as usize][sq as usize] as usize;
            self.f.fine[i] += sign * phase;
            self.f.fine[i + n] += sign * (self.t.start_pieces - phase);
        }
    }
    fn patterns(&mut self, shifts: &[[u32; 4]], white: u64, black: u64, phase: i32) {
        let base = Weights::NAMES.len() + TABLES.len() * self.t.squares;
        let n = shifts.len();
        let end = self.t.start_pieces - phase;
        for w in 0..n {
            // White sees the board as numbered, so its window `w` is the board's; Black
            // sees it turned half a circle: his window `w` is the board's window
            // `n - 1 - w` with the square order reversed.
            let r = &shifts[n - 1 - w];
            let views = [
                (
                    BASE3[window_bits(white, &shifts[w])]
                        + 2 * BASE3[window_bits(black, &shifts[w])],
                    1,
                ),
                (
                    BASE3_REVERSED[window_bits(black, r)]
                        + 2 * BASE3_REVERSED[window_bits(white, r)],
                    -1,
                ),
            ];
            for (index, sign) in views {
                let i = (base + w * PATTERN_STATES + index as usize) as u32;
                if self.t.pattern_phases == 1 {
                    self.f.sparse_coarse.push((i, sign));
                } else {
                    let e = i + (n * PATTERN_STATES) as u32;
                    self.f.sparse_fine.push((i, sign * phase));
                    self.f.sparse_fine.push((e, sign * end));
                }
            }
        }
    }
}

/// Masks and weights for one diagonal variant.
pub struct DiagonalTables<B> {
    w: Weights,
    /// The scalar weights indexed by [`Term`].
    wv: [i32; SCALARS],
    /// `pst[king][colour][bit]`: the (opening, endgame) table values of a piece there.
    pst: [[[(i32, i32); 128]; 2]; 2],
    /// Whether any table value is non-zero (else the tables are skipped).
    has_tables: bool,
    /// Each bit's square index (0-based) from each colour's own view.
    own_index: [[u8; 128]; 2],
    /// Playable squares.
    squares: usize,
    /// `planes[c][k]`: squares whose row, counted from colour `c`'s back row, has bit `k`
    /// set; the sum of the men's rows is then four weighted popcounts.
    planes: [[B; 4]; 2],
    /// Each colour's own back row.
    back: [B; 2],
    /// The half of the board nearer to the opponent, per colour.
    far_half: [B; 2],
    /// Squares close enough to promotion for the runaway test.
    runaway_zone: [B; 2],
    /// `cone[c][sq]`: every square a man of `c` on `sq` could pass on its way to promotion.
    cone: [[B; 128]; 2],
    /// Rows still to go to promotion, per colour and square.
    rows_left: [[u8; 128]; 2],
    centre: B,
    side_files: B,
    rim: B,
    left: B,
    right: B,
    long_diagonal: B,
    /// (file, rank) per bit.
    coords: [(u8, u8); 128],
    /// Pieces on the board at the start.
    start_pieces: i32,
    /// The pattern values per board window and configuration (see `board_patterns`),
    /// (opening, endgame) as i16: half the cache lines of i32 for a table read at random
    /// once per window and evaluation.
    patterns: Vec<[i16; 2]>,
    /// 1 (one value per configuration) or 2 (opening and endgame, tapered).
    pattern_phases: usize,
    /// Whether any pattern value is non-zero (else the patterns are skipped).
    has_patterns: bool,
    /// The rectangle tables (see [`rectangles`]), (opening, endgame) per entry; empty
    /// when the weights have none.
    rectangles: Vec<[i16; 2]>,
    /// Whether any rectangle value is non-zero (else they are skipped).
    has_rectangles: bool,
    /// Whether the men's per-square values are folded into `rectangles` (see
    /// [`rectangles::fold_square_values`]): the search then reads them with the
    /// rectangles instead of adding them up man by man, and the score is the same.
    men_in_rectangles: bool,
}

/// Base-3 value of each `x` below `N = 2^k` (bit `j` is digit `j`): the index of a
/// window of `k` squares whose pieces of one colour are `x` and the rest empty. `reversed`
/// reads bit `j` as digit `k - 1 - j`, the same window seen from the other side of the
/// board. The 4x4 windows have 8 squares, the rectangles 12.
pub(super) const fn base3_table<const N: usize>(reversed: bool) -> [u32; N] {
    let k = N.trailing_zeros();
    let mut t = [0u32; N];
    let mut x = 0;
    while x < N {
        let mut v = 0u32;
        let mut j = 0;
        while j < k {
            let digit = if reversed { k - 1 - j } else { j };
            if (x >> j) & 1 == 1 {
                v += 3u32.pow(digit);
            }
            j += 1;
        }
        t[x] = v;
        x += 1;
    }
    t
}
const BASE3: [u32; 256] = base3_table(false);
const BASE3_REVERSED: [u32; 256] = base3_table(true);

/// Bit shifts of the four rows of each 4x4 window of a `width`-wide ghost layout (board
/// rows of `width / 2` squares in consecutive bits, a ghost bit after every two rows), for
/// the `N = (width / 2 - 1)^2` windows: window `w` covers rows `2 * (w / k)` to `+3`
/// (`k = width / 2 - 1` windows a row) and, in each of them, the squares `w % k` and
/// `w % k + 1` of the row (the two dark squares of columns `2 * (w % k)` to `+3`).
const fn window_shifts<const N: usize>(width: u32) -> [[u32; 4]; N] {
    let h = width / 2;
    let k = (h - 1) as usize;
    let mut t = [[0u32; 4]; N];
    let mut w = 0;
    while w < N {
        let mut i = 0;
        while i < 4 {
            let row = 2 * (w / k) as u32 + i as u32;
            t[w][i] = h * row + row / 2 + (w % k) as u32;
            i += 1;
        }
        w += 1;
    }
    t
}
const WINDOWS_8: [[u32; 4]; 9] = window_shifts(8);
const WINDOWS_10: [[u32; 4]; 16] = window_shifts(10);

/// The pattern windows of a board `width` wide (none on 12x12, whose bitboards are wider
/// than a `u64`).
const fn windows(width: u32) -> &'static [[u32; 4]] {
    match width {
        8 => &WINDOWS_8,
        10 => &WINDOWS_10,
        _ => &[],
    }
}

/// The pieces of `b` (a ghost-layout bitboard) in the window with row shifts `s`, as 8
/// bits: rows from the top of the board (square 1's side), left square first.
#[inline(always)]
fn window_bits(b: u64, s: &[u32; 4]) -> usize {
    (((b >> s[0]) & 3)
        | (((b >> s[1]) & 3) << 2)
        | (((b >> s[2]) & 3) << 4)
        | (((b >> s[3]) & 3) << 6)) as usize
}

/// The search's pattern table, per board window and configuration (`index =
/// BASE3[white bits] + 2 * BASE3[black bits]`): White's value of window `w` in that
/// configuration less Black's value of the same squares, which Black sees as his window
/// `n - 1 - w` read backwards with the colours swapped. One read per window then gives
/// what two reads of the per-side values would.
fn board_patterns(w: &Weights, n: usize, phases: usize) -> Vec<[i16; 2]> {
    let values = &w.patterns;
    let mut out = vec![[0i16; 2]; n * PATTERN_STATES];
    if values.is_empty() {
        return out;
    }
    for b in 0..n {
        for index in 0..PATTERN_STATES {
            let (mut white, mut black, mut x) = (0usize, 0usize, index);
            for j in 0..8 {
                match x % 3 {
                    1 => white |= 1 << j,
                    2 => black |= 1 << j,
                    _ => {}
                }
                x /= 3;
            }
            let seen_by_black = (BASE3_REVERSED[black] + 2 * BASE3_REVERSED[white]) as usize;
            let entry = &mut out[b * PATTERN_STATES + index];
            for (p, value) in entry.iter_mut().enumerate().take(phases) {
                let set = |window: usize| (p * n + window) * PATTERN_STATES;
                let v = values[set(b) + index] - values[set(n - 1 - b) + seen_by_black];
                *value = v.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
            }
        }
    }
    out
}

/// The search's rectangle tables: (opening, endgame) per entry, in 16 bits (the
/// values are within ±PATTERN_LIMIT centi-men); none when `w` has no rectangles.
fn rectangle_entries(w: &Weights) -> Vec<[i16; 2]> {
    let per_phase = rectangles::TABLES * rectangles::STATES;
    if w.rectangles.len() != rectangles::PARAMS {
        return Vec::new();
    }
    let clamp = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    (0..per_phase)
        .map(|k| [clamp(w.rectangles[k]), clamp(w.rectangles[per_phase + k])])
        .collect()
}

/// The board's squares.
#[inline(always)]
fn mask<R: Rules>() -> R::B {
    R::B::from_u128(R::GEO.board)
}

/// Every square of `b` moved one step in direction `d` (off-board results dropped).
#[inline(always)]
fn shifted<R: Rules>(b: R::B, d: usize) -> R::B {
    let s = R::GEO.shift[d];
    (if d < 2 { b >> s } else { b << s }) & mask::<R>()
}

/// Empty squares a flying king on `sq` reaches in direction `d`.
#[inline(always)]
fn reach<R: Rules>(d: usize, sq: u32, occ: R::B) -> R::B {
    let ray = R::B::from_u128(R::GEO.rays[d][sq as usize]);
    let blockers = ray & occ;
    if blockers.is_empty() {
        return ray;
    }
    // Up (d < 2) walks toward bit 0, so the nearest blocker is the highest bit.
    let b = if d < 2 {
        blockers.msb()
    } else {
        blockers.lsb()
    };
    ray & !(R::B::from_u128(R::GEO.rays[d][b as usize]) | R::B::bit(b))
}

/// The directions a man of colour `c` moves in.
#[inline(always)]
fn forward(c: Color) -> [usize; 2] {
    match c {
        Color::White => [UP_LEFT, UP_RIGHT],
        Color::Black => [DOWN_LEFT, DOWN_RIGHT],
    }
}

/// The positional terms of colour `c`, into `sink` with `sign` (+1 White, -1 Black).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn side_terms<R: Rules, S: Sink<R::B>>(
    t: &DiagonalTables<R::B>,
    sink: &mut S,
    c: Color,
    sign: i32,
    men: R::B,
    kings: R::B,
    occ: R::B,
    empty: R::B,
    phase: i32,
) {
    let ci = c as usize;
    if men.any() {
        let p = &t.planes[ci];
        let rows = (men & p[0]).count()
            + 2 * (men & p[1]).count()
            + 4 * (men & p[2]).count()
            + 8 * (men & p[3]).count();
        sink.add(Term::tempo, sign * rows as i32);
        sink.add(Term::back_rank, sign * (men & t.back[ci]).count() as i32);
        sink.add(Term::centre_man, sign * (men & t.centre).count() as i32);
        sink.add(Term::edge_man, sign * (men & t.side_files).count() as i32);

        let [d1, d2] = forward(c);
        let steps1 = shifted::<R>(men, d1) & empty;
        let steps2 = shifted::<R>(men, d2) & empty;
        sink.add(
            Term::man_mobility,
            sign * (steps1.count() + steps2.count()) as i32,
        );
        let movers = shifted::<R>(steps1, reverse(d1)) | shifted::<R>(steps2, reverse(d2));
        sink.add(Term::man_blocked, sign * (men & !movers).count() as i32);

        // Backed by men on both squares behind it.
        let backed = men & shifted::<R>(men, d1) & shifted::<R>(men, d2);
        sink.add(
            Term::outpost,
            sign * (backed & t.far_half[ci]).count() as i32,
        );

        let wings = (men & t.left).count() as i32 - (men & t.right).count() as i32;
        sink.add(Term::balance, sign * wings.abs());

        for sq in (men & t.runaway_zone[ci]).squares() {
            if (t.cone[ci][sq as usize] & occ).is_empty() {
                sink.add(Term::runaway, sign);
                sink.add(
                    Term::runaway_row,
                    -sign * t.rows_left[ci][sq as usize] as i32,
                );
            }
        }
        sink.squares(false, c, men, phase, sign);
    }
    if kings.any() {
        sink.add(Term::centre_king, sign * (kings & t.centre).count() as i32);
        sink.add(Term::king_edge, sign * (kings & t.rim).count() as i32);
        sink.add(
            Term::king_main_diagonal,
            sign * (kings & t.long_diagonal).count() as i32,
        );
        let mut trapped = 0;
        let mut mobility = 0;
        for k in kings.squares() {
            let moves = if R::FLYING_KINGS {
                (0..4).map(|d| reach::<R>(d, k, occ).count()).sum::<u32>()
            } else {
                (0..4)
                    .map(|d| (shifted::<R>(R::B::bit(k), d) & empty).count())
                    .sum::<u32>()
            };
            trapped += (moves == 0) as i32;
            mobility += (moves as i32).min(t.w.king_mobility_cap);
        }
        sink.add(Term::king_trapped, sign * trapped);
        sink.add(Term::king_mobility, sign * mobility);
        sink.squares(true, c, kings, phase, sign);
    }
}

/// Every term of `pos` into `sink`, from White's view; returns the ending class (whose
/// scaling the caller applies).
#[inline(always)]
fn terms<R: Rules, S: Sink<R::B>>(
    pos: &Position<R>,
    t: &DiagonalTables<R::B>,
    sink: &mut S,
) -> Ending {
    let w = &t.w;
    let (white, black, kings) = (pos.white(), pos.black(), pos.kings());
    let occ = white | black;
    let empty = mask::<R>() & !occ;
    let (wm, wk, bm, bk) = (white & !kings, white & kings, black & !kings, black & kings);
    let m = Material::of(white, black, kings);
    let men = m.men[0] as i32 - m.men[1] as i32;
    let kings_up = m.kings[0] as i32 - m.kings[1] as i32;
    sink.add(Term::man, men);
    sink.add(Term::king, kings_up);
    // A side's first king counts apart: it is what stops most wins.
    let first_king = (m.kings[0] > 0) as i32 - (m.kings[1] > 0) as i32;
    sink.add(Term::king_first, first_king);
    let material = w.man * men + w.king * kings_up;
    let pieces = occ.count() as i32;
    let phase = pieces.min(t.start_pieces);
    side_terms::<R, S>(t, sink, Color::White, 1, wm, wk, occ, empty, phase);
    side_terms::<R, S>(t, sink, Color::Black, -1, bm, bk, occ, empty, phase);
    let shifts = windows(R::GEO.width);
    if t.has_patterns || (S::TRACING && !shifts.is_empty()) {
        let (w, b) = (white.to_u128() as u64, black.to_u128() as u64);
        sink.patterns(shifts, w, b, phase);
    }
    // The rectangles read men only; their tables exist on 10x10 boards alone.
    if t.has_rectangles || (S::TRACING && !t.rectangles.is_empty()) {
        sink.rectangles(wm.to_u128() as u64, bm.to_u128() as u64, phase);
    }

    if R::GOAL != Goal::Normal {
        return Ending::Normal;
    }
    let ending = endgame::classify(&m, R::FLYING_KINGS, |lone| {
        let k = if lone == Color::White { wk } else { bk };
        (k & t.long_diagonal).any()
    });
    if let Ending::Chase(strong) = ending {
        let (hunters, prey) = if strong == Color::White {
            (wk, bk)
        } else {
            (bk, wk)
        };
        let target = t.coords[prey.lsb() as usize];
        let gap: i32 = hunters
            .squares()
            .map(|h| distance(t.coords[h as usize], target))
            .sum();
        let sign = if strong == Color::White { 1 } else { -1 };
        sink.add(Term::king_chase, sign * gap);
    }
    if material.abs() >= w.man.abs() {
        // Trading pieces when ahead brings the win closer. Who is ahead is decided with
        // the current man and king values (the tuner keeps that choice).
        let gone = t.start_pieces - pieces;
        sink.add_fine(Term::trade_ahead, material.signum() * gone);
    }
    ending
}

impl<R: Rules> Evaluate for Position<R> {
    type Tables = DiagonalTables<R::B>;

    fn build_tables(w: &Weights) -> DiagonalTables<R::B> {
        let width = R::GEO.width;
        let zero = R::B::ZERO;
        let squares = R::GEO.squares as usize;
        assert_eq!(w.squares(), squares, "weights for another board size");
        let mut wv = [0; SCALARS];
        wv.copy_from_slice(&w.scalars());
        let mut t = DiagonalTables {
            // The rectangles are read from `rectangles` below.
            w: w.without_rectangles(),
            wv,
            pst: [[[(0, 0); 128]; 2]; 2],
            has_tables: w.has_square_tables(),
            own_index: [[0; 128]; 2],
            squares,
            planes: [[zero; 4]; 2],
            back: [zero; 2],
            far_half: [zero; 2],
            runaway_zone: [zero; 2],
            cone: [[zero; 128]; 2],
            rows_left: [[0; 128]; 2],
            centre: zero,
            side_files: zero,
            rim: zero,
            left: zero,
            right: zero,
            long_diagonal: zero,
            coords: [(0, 0); 128],
            start_pieces: 2 * Self::start().white().count() as i32,
            patterns: board_patterns(w, windows(width).len(), pattern_phases(squares)),
            pattern_phases: pattern_phases(squares),
            has_patterns: w.has_patterns() && !windows(width).is_empty(),
            rectangles: rectangle_entries(w),
            has_rectangles: w.has_rectangles() && width == 10,
            men_in_rectangles: false,
        };
        let bits: Vec<u32> = (0..128).filter(|&b| (R::GEO.board >> b) & 1 == 1).collect();
        // Row from colour c's back row (0) to its promotion row (width - 1).
        let row = |c: Color, rank: u32| match c {
            Color::White => rank - 1,
            Color::Black => width - rank,
        };
        for &b in &bits {
            let bit = R::B::bit(b);
            // The plain board's files and numbers: a turned board (italian, spanish) is
            // evaluated as the plain one seen in a mirror, which its rules are the same on.
            let (file, rank) = R::GEO.plain_coords(b);
            t.coords[b as usize] = (file as u8, rank as u8);
            // White sees the board as numbered; Black sees it turned half a circle.
            let number = R::GEO.plain_square(b) as usize;
            for (ci, own) in [number - 1, squares - number].into_iter().enumerate() {
                t.own_index[ci][b as usize] = own as u8;
                for king in [false, true] {
                    let k = 2 * king as usize;
                    let [open, end] = [w.tables()[k], w.tables()[k + 1]];
                    t.pst[king as usize][ci][b as usize] = (open[own], end[own]);
                }
            }
            for c in [Color::White, Color::Black] {
                let ci = c as usize;
                let r = row(c, rank);
                for (k, plane) in t.planes[ci].iter_mut().enumerate() {
                    if (r >> k) & 1 == 1 {
                        *plane |= bit;
                    }
                }
                if r == 0 {
                    t.back[ci] |= bit;
                }
                if r >= width / 2 {
                    t.far_half[ci] |= bit;
                }
                let left = width - 1 - r;
                t.rows_left[ci][b as usize] = left as u8;
                if left < width / 2 {
                    t.runaway_zone[ci] |= bit;
                }
                for &o in &bits {
                    let (f2, rank2) = R::GEO.plain_coords(o);
                    let r2 = row(c, rank2);
                    if r2 > r && file.abs_diff(f2) <= r2 - r {
                        t.cone[ci][b as usize] |= R::B::bit(o);
                    }
                }
            }
            let mid = width / 2;
            if (mid - 2..=mid + 1).contains(&file) && (mid - 1..=mid + 2).contains(&rank) {
                t.centre |= bit;
            }
            if file == 0 || file == width - 1 {
                t.side_files |= bit;
            }
            if file == 0 || file == width - 1 || rank == 1 || rank == width {
                t.rim |= bit;
            }
            if file < mid {
                t.left |= bit;
            } else {
                t.right |= bit;
            }
            if file + 1 == rank {
                t.long_diagonal |= bit;
            }
        }
        // The rectangles, read at every evaluation anyway, can carry the men's per-square
        // values: in the units of the patterns (the same tapering, PATTERN_UNIT to a
        // centi-man), so the score comes out the same.
        if t.has_rectangles && t.has_tables {
            let pst = t.pst[0][Color::White as usize];
            let value = |bit: u32| {
                let (o, e) = pst[bit as usize];
                [o * PATTERN_UNIT, e * PATTERN_UNIT]
            };
            t.men_in_rectangles = rectangles::fold_square_values(&mut t.rectangles, value);
        }
        t
    }

    #[inline]
    fn evaluate(&self, t: &DiagonalTables<R::B>) -> i32 {
        let mut sink = Score {
            t,
            coarse: 0,
            fine: 0,
            patterns: 0,
        };
        let ending = terms(self, t, &mut sink);
        // As `Features::dot` computes it, so that the tuner's features give this exactly.
        let mut score = sink.coarse
            + (sink.fine * PATTERN_UNIT + sink.patterns) / (t.start_pieces * PATTERN_UNIT);
        if R::GOAL == Goal::Normal {
            score = endgame::scale(score, ending, &t.w);
        }
        if self.side() == Color::White {
            score
        } else {
            -score
        }
    }

    fn trace(&self, t: &DiagonalTables<R::B>) -> Option<Features> {
        let n = Weights::NAMES.len() + TABLES.len() * t.squares;
        let mut sink = Tracer {
            t,
            f: Features::new(n, t.start_pieces),
        };
        let ending = terms(self, t, &mut sink);
        let mut f = sink.f;
        f.linear = R::GOAL != Goal::Normal || endgame::unscaled(ending, &t.w);
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{International, Variant};

    #[test]
    fn men_folded_into_the_rectangles_score_as_added_up_one_by_one() {
        type P = Position<International>;
        let w = Weights::embedded(Variant::International);
        assert!(w.has_rectangles(), "the built-in weights have rectangles");
        let folded = P::build_tables(&w);
        assert!(folded.men_in_rectangles);
        let mut plain = P::build_tables(&w);
        plain.rectangles = rectangle_entries(&w);
        plain.men_in_rectangles = false;
        let (mut x, mut list, mut checked) = (7u64, Vec::new(), 0);
        for _ in 0..40 {
            let mut pos = P::start();
            for _ in 0..150 {
                assert_eq!(pos.evaluate(&folded), pos.evaluate(&plain));
                checked += 1;
                pos.generate(&mut list);
                if list.is_empty() {
                    break;
                }
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos = pos.play(&list[(x >> 33) as usize % list.len()]);
            }
        }
        assert!(checked > 3000, "{checked}");
    }
}
