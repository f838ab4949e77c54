//! The evaluation of turkish draughts: all 64 squares, men moving forward and sideways,
//! orthogonal flying kings. Same terms as the diagonal family where they make sense, on a
//! plain 8x8 `u64` (bit = rank * 8 + file, a1 = 0).

use crate::rules::geometry::{EAST, NORTH, SOUTH, WEST, reverse};
use crate::rules::turkish::{open_ray, step as shifted};
use crate::rules::{Bits, Board, Color, TurkishPosition};

use super::endgame::{self, Ending, Material};
use super::{Evaluate, Weights, distance};

/// Masks and weights for turkish.
pub struct OrthogonalTables {
    w: Weights,
    /// `planes[c][k]`: squares whose row from colour `c`'s side has bit `k` set.
    planes: [[u64; 3]; 2],
    back: [u64; 2],
    far_half: [u64; 2],
    runaway_zone: [u64; 2],
    /// The file ahead and the neighbouring files ahead (pieces there can stop or take).
    cone: [[u64; 64]; 2],
    rows_left: [[u8; 64]; 2],
    centre: u64,
    side_files: u64,
    rim: u64,
    left: u64,
    /// Pieces on the board at the start.
    start_pieces: i32,
}

#[inline(always)]
fn ahead(c: Color) -> usize {
    match c {
        Color::White => NORTH,
        Color::Black => SOUTH,
    }
}

fn side_terms(t: &OrthogonalTables, c: Color, men: u64, kings: u64, occ: u64) -> i32 {
    let w = &t.w;
    let ci = c as usize;
    let empty = !occ;
    let mut s = 0;
    if men != 0 {
        let p = &t.planes[ci];
        let rows = (men & p[0]).count() + 2 * (men & p[1]).count() + 4 * (men & p[2]).count();
        s += w.tempo * rows as i32;
        s += w.back_rank * (men & t.back[ci]).count() as i32;
        s += w.centre_man * (men & t.centre).count() as i32;
        s += w.edge_man * (men & t.side_files).count() as i32;
        let mut movers = 0;
        for d in [ahead(c), WEST, EAST] {
            let steps = shifted(men, d) & empty;
            s += w.man_mobility * steps.count() as i32;
            movers |= shifted(steps, reverse(d));
        }
        s += w.man_blocked * (men & !movers).count() as i32;
        let backed = men & shifted(men, ahead(c));
        s += w.outpost * (backed & t.far_half[ci]).count() as i32;
        let wings = 2 * (men & t.left).count() as i32 - men.count() as i32;
        s += w.balance * wings.abs();
        for sq in (men & t.runaway_zone[ci]).squares() {
            if t.cone[ci][sq as usize] & occ == 0 {
                s += w.runaway - w.runaway_row * t.rows_left[ci][sq as usize] as i32;
            }
        }
    }
    if kings != 0 {
        s += w.centre_king * (kings & t.centre).count() as i32;
        s += w.king_edge * (kings & t.rim).count() as i32;
        for k in kings.squares() {
            let moves: u32 = (0..4).map(|d| open_ray(d, k, occ).0.count()).sum();
            if moves == 0 {
                s += w.king_trapped;
            }
            s += w.king_mobility * (moves as i32).min(w.king_mobility_cap);
        }
    }
    s
}

impl Evaluate for TurkishPosition {
    type Tables = OrthogonalTables;

    fn build_tables(w: &Weights) -> OrthogonalTables {
        let mut t = OrthogonalTables {
            w: w.clone(),
            planes: [[0; 3]; 2],
            back: [0; 2],
            far_half: [0; 2],
            runaway_zone: [0; 2],
            cone: [[0; 64]; 2],
            rows_left: [[0; 64]; 2],
            centre: 0,
            side_files: 0,
            rim: 0,
            left: 0,
            start_pieces: 2 * Self::start().white().count() as i32,
        };
        for sq in 0..64u32 {
            let (file, rank) = (sq % 8, sq / 8);
            let bit = 1u64 << sq;
            for c in [Color::White, Color::Black] {
                let ci = c as usize;
                let r = if c == Color::White { rank } else { 7 - rank };
                for (k, plane) in t.planes[ci].iter_mut().enumerate() {
                    if (r >> k) & 1 == 1 {
                        *plane |= bit;
                    }
                }
                if r == 0 {
                    t.back[ci] |= bit;
                }
                if r >= 4 {
                    t.far_half[ci] |= bit;
                }
                t.rows_left[ci][sq as usize] = (7 - r) as u8;
                if r >= 4 {
                    t.runaway_zone[ci] |= bit;
                }
                for o in 0..64u32 {
                    let (f2, rank2) = (o % 8, o / 8);
                    let r2 = if c == Color::White { rank2 } else { 7 - rank2 };
                    if r2 > r && file.abs_diff(f2) <= 1 {
                        t.cone[ci][sq as usize] |= 1 << o;
                    }
                }
            }
            if (2..=5).contains(&file) && (2..=5).contains(&rank) {
                t.centre |= bit;
            }
            if file == 0 || file == 7 {
                t.side_files |= bit;
            }
            if file == 0 || file == 7 || rank == 0 || rank == 7 {
                t.rim |= bit;
            }
            if file < 4 {
                t.left |= bit;
            }
        }
        t
    }

    #[inline]
    fn evaluate(&self, t: &OrthogonalTables) -> i32 {
        let w = &t.w;
        let (white, black, kings) = (self.white(), self.black(), self.kings());
        let occ = white | black;
        let (wm, wk, bm, bk) = (white & !kings, white & kings, black & !kings, black & kings);
        let m = Material::of(white, black, kings);
        let material = w.man * (m.men[0] as i32 - m.men[1] as i32)
            + w.king * (m.kings[0] as i32 - m.kings[1] as i32)
            + w.king_first * ((m.kings[0] > 0) as i32 - (m.kings[1] > 0) as i32);
        let mut score = material + side_terms(t, Color::White, wm, wk, occ)
            - side_terms(t, Color::Black, bm, bk, occ);
        // Orthogonal kings behave like short ones here: an extra king is a win to drive home.
        let ending = endgame::classify(&m, false, |_| false);
        if let Ending::Chase(strong) = ending {
            let (hunters, prey) = if strong == Color::White {
                (wk, bk)
            } else {
                (bk, wk)
            };
            let at = |sq: u32| ((sq % 8) as u8, (sq / 8) as u8);
            let target = at(prey.lsb());
            let gap: i32 = hunters.squares().map(|h| distance(at(h), target)).sum();
            score += if strong == Color::White { 1 } else { -1 } * w.king_chase * gap;
        }
        if material.abs() >= w.man {
            let gone = t.start_pieces - occ.count() as i32;
            score += material.signum() * w.trade_ahead * gone / t.start_pieces;
        }
        score = endgame::scale(score, ending, w);
        if self.side() == Color::White {
            score
        } else {
            -score
        }
    }
}
