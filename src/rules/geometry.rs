//! Board geometry: where each square lives in the bitboard, and the precomputed rays.
//!
//! Diagonal boards (8x8, 10x10, 12x12) use a *ghost-square* layout: the dark squares in
//! numeric order (square 1 is the top-left dark square seen from White, b8 / b10 / b12),
//! with one unused bit after every two rows. With `h = width / 2`, every diagonal step is
//! then a plain shift by `h` or `h + 1`, and stepping off the board lands on a ghost bit or
//! outside the board mask. 8x8 needs 35 bits, 10x10 54, 12x12 77 (a `u128`).
//!
//! The orthogonal Turkish board is a plain 8x8 `u64` with bit = rank * 8 + file (a1 = 0).
//!
//! All tables are computed by `const fn` at compile time and stored as `u128`.

/// A diagonal direction. Up is toward square 1 (Black's side), down toward White's side.
pub const UP_LEFT: usize = 0;
pub const UP_RIGHT: usize = 1;
pub const DOWN_LEFT: usize = 2;
pub const DOWN_RIGHT: usize = 3;

/// The direction opposite to `d` (for both the diagonal and the orthogonal numbering).
#[inline(always)]
pub const fn reverse(d: usize) -> usize {
    3 - d
}

/// Precomputed facts about one diagonal board size.
pub struct DiagonalGeometry {
    pub width: u32,
    /// The board turned a quarter (italian, spanish: a light square in each player's left
    /// corner, FID Regolamento Capo I art. 2.3). Inside, the position is the plain board seen
    /// in a mirror: the rays and shifts stay the plain ones (the rules are the same either
    /// way round), only the square numbers and the files a square shows are mirrored.
    pub turned: bool,
    /// Square 1 is on White's side (spanish: 1 = h1, numbered right to left, row by row up
    /// the board; the plain numbering turned half a circle).
    pub from_white: bool,
    /// Playable squares (width * width / 2).
    pub squares: u32,
    /// Valid bits.
    pub board: u128,
    /// Top row (White men promote here) and bottom row (Black men promote here).
    pub top_row: u128,
    pub bottom_row: u128,
    /// Shift amount per direction (up shifts right, down shifts left).
    pub shift: [u32; 4],
    /// rays[d][bit]: every square from `bit` (exclusive) to the edge in direction `d`.
    pub rays: [[u128; 128]; 4],
    /// bit index of square number n (1-based) at [n]; [0] unused.
    pub bit_of_square: [u8; 73],
    /// square number (1-based) of each bit, 0 for ghosts.
    pub square_of_bit: [u8; 128],
}

impl DiagonalGeometry {
    pub const fn new(width: u32, turned: bool, from_white: bool) -> Self {
        let h = width / 2;
        let squares = width * width / 2;
        let mut board = 0u128;
        let mut bit_of_square = [0u8; 73];
        let mut square_of_bit = [0u8; 128];
        let mut top_row = 0u128;
        let mut bottom_row = 0u128;
        let mut n = 0;
        while n < squares {
            let bit = n + n / width;
            board |= 1u128 << bit;
            // Turned: square n is the plain square at the other end of its row (FID art.
            // 2.4 numbers the turned board from its top-left dark square, a8).
            let m = if turned {
                (n / h) * h + (h - 1 - n % h)
            } else {
                n
            };
            let m = if from_white { squares - 1 - m } else { m };
            let named = m + m / width;
            bit_of_square[(n + 1) as usize] = named as u8;
            square_of_bit[named as usize] = (n + 1) as u8;
            if n < h {
                top_row |= 1u128 << bit;
            }
            if n >= squares - h {
                bottom_row |= 1u128 << bit;
            }
            n += 1;
        }
        let shift = [h + 1, h, h, h + 1];
        let mut rays = [[0u128; 128]; 4];
        let mut d = 0;
        while d < 4 {
            let mut b = 0;
            while b < 128 {
                if board & (1u128 << b) != 0 {
                    let mut ray = 0u128;
                    let mut cur = b as i32;
                    loop {
                        cur = if d < 2 {
                            cur - shift[d] as i32
                        } else {
                            cur + shift[d] as i32
                        };
                        if cur < 0 || cur >= 128 || board & (1u128 << cur) == 0 {
                            break;
                        }
                        ray |= 1u128 << cur;
                    }
                    rays[d][b] = ray;
                }
                b += 1;
            }
            d += 1;
        }
        DiagonalGeometry {
            width,
            turned,
            from_white,
            squares,
            board,
            top_row,
            bottom_row,
            shift,
            rays,
            bit_of_square,
            square_of_bit,
        }
    }

    /// (file, rank) of a bit as the board shows it: file 0 = a, rank 1 = White's back row.
    pub const fn coords(&self, bit: u32) -> (u32, u32) {
        let (file, rank) = self.plain_coords(bit);
        if self.turned {
            (self.width - 1 - file, rank)
        } else {
            (file, rank)
        }
    }

    /// The square number a bit has on the plain board (the inside view: the evaluation's
    /// tables and features are written for it, so a turned board shares a plain one's).
    pub const fn plain_square(&self, bit: u32) -> u32 {
        bit - bit / (self.width + 1) + 1
    }

    /// (file, rank) of a bit on the plain board (see [`Self::plain_square`]).
    pub const fn plain_coords(&self, bit: u32) -> (u32, u32) {
        let n = self.plain_square(bit) - 1;
        let h = self.width / 2;
        let row = n / h; // 0 = top row
        let idx = n % h;
        let file = if row.is_multiple_of(2) {
            2 * idx + 1
        } else {
            2 * idx
        };
        (file, self.width - row)
    }

    /// The bit at (file, rank), if that is a playable square.
    pub const fn bit_at(&self, file: u32, rank: u32) -> Option<u32> {
        if file >= self.width || rank == 0 || rank > self.width {
            return None;
        }
        let file = if self.turned {
            self.width - 1 - file
        } else {
            file
        };
        let row = self.width - rank;
        let dark = if row.is_multiple_of(2) {
            file % 2 == 1
        } else {
            file.is_multiple_of(2)
        };
        if !dark {
            return None;
        }
        let n = row * (self.width / 2) + file / 2;
        Some(n + n / self.width)
    }
}

pub static GEOMETRY_8: DiagonalGeometry = DiagonalGeometry::new(8, false, false);
pub static GEOMETRY_8_TURNED: DiagonalGeometry = DiagonalGeometry::new(8, true, false);
pub static GEOMETRY_8_SPANISH: DiagonalGeometry = DiagonalGeometry::new(8, true, true);
pub static GEOMETRY_10: DiagonalGeometry = DiagonalGeometry::new(10, false, false);
pub static GEOMETRY_12: DiagonalGeometry = DiagonalGeometry::new(12, false, false);

/// Orthogonal directions on the Turkish board, numbered so that `reverse` works.
pub const NORTH: usize = 0; // toward rank 8 (+8)
pub const WEST: usize = 1; // toward file a (-1)
pub const EAST: usize = 2; // toward file h (+1)
pub const SOUTH: usize = 3; // toward rank 1 (-8)

/// Orthogonal rays on the plain 8x8 board: `[direction][square]`.
pub static ORTHOGONAL_RAYS: [[u64; 64]; 4] = orthogonal_rays();

const fn orthogonal_rays() -> [[u64; 64]; 4] {
    let mut rays = [[0u64; 64]; 4];
    let steps: [(i32, i32); 4] = [(0, 1), (-1, 0), (1, 0), (0, -1)];
    let mut d = 0;
    while d < 4 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
            let mut ray = 0u64;
            loop {
                f += steps[d].0;
                r += steps[d].1;
                if f < 0 || f > 7 || r < 0 || r > 7 {
                    break;
                }
                ray |= 1u64 << (r * 8 + f);
            }
            rays[d][sq] = ray;
            sq += 1;
        }
        d += 1;
    }
    rays
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ghost_layout_matches_the_design_sizes() {
        assert_eq!(128 - GEOMETRY_8.board.leading_zeros(), 35);
        assert_eq!(128 - GEOMETRY_10.board.leading_zeros(), 54);
        assert_eq!(128 - GEOMETRY_12.board.leading_zeros(), 77);
    }

    #[test]
    fn square_names_follow_the_rule_book() {
        // english: b8 = 1, a1 = 29; international: 1 = b10, 46 = a1, 50 = i1.
        let g = &GEOMETRY_8;
        assert_eq!(g.coords(g.bit_of_square[1] as u32), (1, 8));
        assert_eq!(g.coords(g.bit_of_square[29] as u32), (0, 1));
        let g = &GEOMETRY_10;
        assert_eq!(g.coords(g.bit_of_square[1] as u32), (1, 10));
        assert_eq!(g.coords(g.bit_of_square[46] as u32), (0, 1));
        assert_eq!(g.coords(g.bit_of_square[50] as u32), (8, 1));
        // italian (FID art. 2.3, 2.4): 1 = a8, the dark corner on Black's right; 32 = h1,
        // White's; a1 is light.
        let g = &GEOMETRY_8_TURNED;
        assert_eq!(g.coords(g.bit_of_square[1] as u32), (0, 8));
        assert_eq!(g.coords(g.bit_of_square[4] as u32), (6, 8));
        assert_eq!(g.coords(g.bit_of_square[5] as u32), (1, 7));
        assert_eq!(g.coords(g.bit_of_square[32] as u32), (7, 1));
        assert_eq!(g.bit_at(0, 1), None);
        // spanish: 1 = h1, 4 = b1, 5 = g2, 32 = a8.
        let g = &GEOMETRY_8_SPANISH;
        assert_eq!(g.coords(g.bit_of_square[1] as u32), (7, 1));
        assert_eq!(g.coords(g.bit_of_square[4] as u32), (1, 1));
        assert_eq!(g.coords(g.bit_of_square[5] as u32), (6, 2));
        assert_eq!(g.coords(g.bit_of_square[32] as u32), (0, 8));
        for g in [
            &GEOMETRY_8,
            &GEOMETRY_8_TURNED,
            &GEOMETRY_8_SPANISH,
            &GEOMETRY_10,
            &GEOMETRY_12,
        ] {
            for n in 1..=g.squares {
                let bit = g.bit_of_square[n as usize] as u32;
                let (f, r) = g.coords(bit);
                assert_eq!(g.bit_at(f, r), Some(bit));
            }
        }
    }

    #[test]
    fn long_diagonal_has_full_length() {
        // a1 to the top-right corner on 10x10: 9 steps up-right from square 46.
        let g = &GEOMETRY_10;
        let a1 = g.bit_of_square[46] as usize;
        assert_eq!(g.rays[UP_RIGHT][a1].count_ones(), 9);
        assert_eq!(g.rays[UP_LEFT][a1], 0);
    }
}
