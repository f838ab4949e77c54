//! The evaluation of the diagonal variants (english, international, russian, brazilian,
//! canadian, killer, breakthrough, losing): one code path, switched by the variant's rule
//! constants and fed by its weights file.
//!
//! Terms are computed for each colour from bitboards (shifts along the ghost-square
//! layout, popcounts over masks built once from the board geometry) and the black total
//! is subtracted from the white one.

use crate::rules::geometry::{DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, reverse};
use crate::rules::{Bits, Board, Color, Goal, Position, Rules};

use super::endgame::{self, Ending, Material};
use super::{Evaluate, Weights, distance};

/// Masks and weights for one diagonal variant.
pub struct DiagonalTables<B> {
    w: Weights,
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

/// The positional terms of colour `c`.
#[inline(always)]
fn side_terms<R: Rules>(
    t: &DiagonalTables<R::B>,
    c: Color,
    men: R::B,
    kings: R::B,
    occ: R::B,
    empty: R::B,
) -> i32 {
    let w = &t.w;
    let ci = c as usize;
    let mut s = 0;
    if men.any() {
        let p = &t.planes[ci];
        let rows = (men & p[0]).count()
            + 2 * (men & p[1]).count()
            + 4 * (men & p[2]).count()
            + 8 * (men & p[3]).count();
        s += w.tempo * rows as i32;
        s += w.back_rank * (men & t.back[ci]).count() as i32;
        s += w.centre_man * (men & t.centre).count() as i32;
        s += w.edge_man * (men & t.side_files).count() as i32;

        let [d1, d2] = forward(c);
        let steps1 = shifted::<R>(men, d1) & empty;
        let steps2 = shifted::<R>(men, d2) & empty;
        s += w.man_mobility * (steps1.count() + steps2.count()) as i32;
        let movers = shifted::<R>(steps1, reverse(d1)) | shifted::<R>(steps2, reverse(d2));
        s += w.man_blocked * (men & !movers).count() as i32;

        // Backed by men on both squares behind it.
        let backed = men & shifted::<R>(men, d1) & shifted::<R>(men, d2);
        s += w.outpost * (backed & t.far_half[ci]).count() as i32;

        let wings = (men & t.left).count() as i32 - (men & t.right).count() as i32;
        s += w.balance * wings.abs();

        for sq in (men & t.runaway_zone[ci]).squares() {
            if (t.cone[ci][sq as usize] & occ).is_empty() {
                s += w.runaway - w.runaway_row * t.rows_left[ci][sq as usize] as i32;
            }
        }
    }
    if kings.any() {
        s += w.centre_king * (kings & t.centre).count() as i32;
        s += w.king_edge * (kings & t.rim).count() as i32;
        s += w.king_main_diagonal * (kings & t.long_diagonal).count() as i32;
        for k in kings.squares() {
            let moves = if R::FLYING_KINGS {
                (0..4).map(|d| reach::<R>(d, k, occ).count()).sum::<u32>()
            } else {
                (0..4)
                    .map(|d| (shifted::<R>(R::B::bit(k), d) & empty).count())
                    .sum::<u32>()
            };
            if moves == 0 {
                s += w.king_trapped;
            }
            s += w.king_mobility * (moves as i32).min(w.king_mobility_cap);
        }
    }
    s
}

impl<R: Rules> Evaluate for Position<R> {
    type Tables = DiagonalTables<R::B>;

    fn build_tables(w: &Weights) -> DiagonalTables<R::B> {
        let width = R::GEO.width;
        let zero = R::B::ZERO;
        let mut t = DiagonalTables {
            w: w.clone(),
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
        };
        let bits: Vec<u32> = (0..128).filter(|&b| (R::GEO.board >> b) & 1 == 1).collect();
        // Row from colour c's back row (0) to its promotion row (width - 1).
        let row = |c: Color, rank: u32| match c {
            Color::White => rank - 1,
            Color::Black => width - rank,
        };
        for &b in &bits {
            let bit = R::B::bit(b);
            let (file, rank) = Self::coords(b);
            t.coords[b as usize] = (file as u8, rank as u8);
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
                    let (f2, rank2) = Self::coords(o);
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
        t
    }

    #[inline]
    fn evaluate(&self, t: &DiagonalTables<R::B>) -> i32 {
        let w = &t.w;
        let (white, black, kings) = (self.white(), self.black(), self.kings());
        let occ = white | black;
        let empty = mask::<R>() & !occ;
        let (wm, wk, bm, bk) = (white & !kings, white & kings, black & !kings, black & kings);
        let m = Material {
            men: [wm.count(), bm.count()],
            kings: [wk.count(), bk.count()],
        };
        let mut score = w.man * (m.men[0] as i32 - m.men[1] as i32)
            + w.king * (m.kings[0] as i32 - m.kings[1] as i32);
        let material = score;
        score += side_terms::<R>(t, Color::White, wm, wk, occ, empty)
            - side_terms::<R>(t, Color::Black, bm, bk, occ, empty);

        if R::GOAL == Goal::Normal {
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
                score += sign * w.king_chase * gap;
            }
            if material.abs() >= w.man.abs() {
                // Trading pieces when ahead brings the win closer.
                let gone = t.start_pieces - occ.count() as i32;
                score += material.signum() * w.trade_ahead * gone / t.start_pieces;
            }
            score = endgame::scale(score, ending, w);
        }
        if self.side() == Color::White {
            score
        } else {
            -score
        }
    }
}
