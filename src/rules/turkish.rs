//! Turkish draughts: all 64 squares, orthogonal moves, flying kings, maximum capture, and
//! captured pieces removed one by one during the capture (so a king may cross a square it
//! has emptied, but may not turn back by 180° between two jumps).
//!
//! Bit = rank * 8 + file (a1 = 0, h8 = 63); square number = bit + 1. White men move up.

use super::bits::Bits;
use super::board::{Board, Move, MoveList, Setup, SetupError};
use super::capture::{CaptureSink, Collect, Path};
use super::geometry::{EAST, NORTH, ORTHOGONAL_RAYS, SOUTH, WEST, reverse};
use super::variant::{Color, Variant};

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;
const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TurkishPosition {
    white: u64,
    black: u64,
    kings: u64,
    side: Color,
}

impl TurkishPosition {
    /// A position from its bitboards, unchecked: the caller guarantees disjoint colours,
    /// kings among the pieces and no man on its promotion row (the endgame database builds
    /// positions this way, millions of times).
    #[inline(always)]
    pub fn from_parts(white: u64, black: u64, kings: u64, side: Color) -> Self {
        TurkishPosition {
            white,
            black,
            kings,
            side,
        }
    }
}

/// One orthogonal step of every square in `b`.
#[inline(always)]
pub fn step(b: u64, d: usize) -> u64 {
    match d {
        NORTH => b << 8,
        SOUTH => b >> 8,
        WEST => (b & !FILE_A) >> 1,
        _ => (b & !FILE_H) << 1,
    }
}

#[inline(always)]
fn nearest(set: u64, d: usize) -> u32 {
    if d == NORTH || d == EAST {
        set.lsb()
    } else {
        set.msb()
    }
}

/// Empty squares seen from `sq` in direction `d`, and the first occupied square.
#[inline(always)]
pub fn open_ray(d: usize, sq: u32, occ: u64) -> (u64, Option<u32>) {
    let ray = ORTHOGONAL_RAYS[d][sq as usize];
    let blockers = ray & occ;
    if blockers == 0 {
        (ray, None)
    } else {
        let b = nearest(blockers, d);
        (ray ^ (ORTHOGONAL_RAYS[d][b as usize] | 1 << b), Some(b))
    }
}

impl TurkishPosition {
    #[inline(always)]
    fn me_opp(&self) -> (u64, u64) {
        match self.side {
            Color::White => (self.white, self.black),
            Color::Black => (self.black, self.white),
        }
    }

    #[inline(always)]
    fn man_dirs(c: Color) -> [usize; 3] {
        match c {
            Color::White => [NORTH, WEST, EAST],
            Color::Black => [SOUTH, WEST, EAST],
        }
    }

    #[inline(always)]
    fn promo_row(c: Color) -> u64 {
        match c {
            Color::White => RANK_8,
            Color::Black => RANK_1,
        }
    }

    fn king_can_capture(sq: u32, occ: u64, targets: u64, came: usize) -> bool {
        (0..4).any(|d| {
            if came < 4 && d == reverse(came) {
                return false;
            }
            match open_ray(d, sq, occ).1 {
                Some(b) => targets.has(b) && step(1 << b, d) & !occ != 0,
                None => false,
            }
        })
    }

    fn generate_captures<S: CaptureSink<u64>>(&self, sink: &mut S) {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let men = me & !self.kings;
        // Only men with an enemy next to them and an empty square behind can start.
        let mut starters = 0;
        for d in Self::man_dirs(self.side) {
            starters |= step(step(!occ, reverse(d)) & opp, reverse(d));
        }
        for from in (men & starters).squares() {
            let mut path = Path::new(from);
            self.man_captures(sink, from, from, occ ^ (1 << from), opp, 0, &mut path);
        }
        for from in (me & self.kings).squares() {
            let mut path = Path::new(from);
            self.king_captures(sink, from, from, occ ^ (1 << from), opp, 0, 4, &mut path);
        }
    }

    /// `occ` no longer holds the pieces already captured: Turkish removes them at once.
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
        let mut extended = false;
        for d in Self::man_dirs(self.side) {
            let mid = step(1 << at, d) & opp & !captured;
            let land = step(mid, d) & !occ;
            if land == 0 {
                continue;
            }
            extended = true;
            let l = land.lsb();
            path.push(l);
            self.man_captures(sink, from, l, occ & !mid, opp, captured | mid, path);
            path.pop();
        }
        if !extended && captured != 0 {
            let mv = Move {
                from: from as u8,
                to: at as u8,
                promote: Self::promo_row(self.side).has(at),
                captured,
            };
            sink.add(mv, path);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn king_captures<S: CaptureSink<u64>>(
        &self,
        sink: &mut S,
        from: u32,
        at: u32,
        occ: u64,
        opp: u64,
        captured: u64,
        came: usize,
        path: &mut Path,
    ) {
        let mut extended = false;
        for d in 0..4 {
            if came < 4 && d == reverse(came) {
                continue;
            }
            let b = match open_ray(d, at, occ).1 {
                Some(b) if (opp & !captured).has(b) => b,
                _ => continue,
            };
            let occ_after = occ & !(1 << b);
            // Landing squares end at the next piece; the emptied square behind no longer blocks.
            let (land, _) = open_ray(d, b, occ_after);
            if land == 0 {
                continue;
            }
            extended = true;
            for l in land.squares() {
                path.push(l);
                self.king_captures(sink, from, l, occ_after, opp, captured | 1 << b, d, path);
                path.pop();
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
        let men = me & !self.kings;
        let promo = Self::promo_row(self.side);
        for d in Self::man_dirs(self.side) {
            for to in (step(men, d) & !occ).squares() {
                let from = step(1 << to, reverse(d)).lsb();
                out.push(Move {
                    from: from as u8,
                    to: to as u8,
                    promote: promo.has(to),
                    captured: 0,
                });
            }
        }
        for from in (me & self.kings).squares() {
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

    fn count_quiet(&self) -> u64 {
        let (me, _) = self.me_opp();
        let occ = self.white | self.black;
        let men = me & !self.kings;
        let mut n = 0;
        for d in Self::man_dirs(self.side) {
            n += (step(men, d) & !occ).count();
        }
        for k in (me & self.kings).squares() {
            for d in 0..4 {
                n += open_ray(d, k, occ).0.count();
            }
        }
        n as u64
    }

    fn captures_into<const DEDUP: bool>(&self, out: &mut MoveList<u64>) {
        out.clear();
        if self.has_capture() {
            self.generate_captures(&mut Collect::<u64, true, DEDUP>::new(out));
        } else {
            self.generate_quiet(out);
        }
    }
}

impl Board for TurkishPosition {
    type B = u64;
    const VARIANT: Variant = Variant::Turkish;
    const MEN_STEP_SIDEWAYS: bool = true;

    fn start() -> Self {
        TurkishPosition {
            white: 0xffff << 8,
            black: 0xffff << 40,
            kings: 0,
            side: Color::White,
        }
    }
    fn side(&self) -> Color {
        self.side
    }
    fn white(&self) -> u64 {
        self.white
    }
    fn black(&self) -> u64 {
        self.black
    }
    fn kings(&self) -> u64 {
        self.kings
    }

    fn generate(&self, out: &mut MoveList<u64>) {
        self.captures_into::<true>(out)
    }

    fn generate_perft(&self, out: &mut MoveList<u64>) {
        self.captures_into::<false>(out)
    }

    fn count_moves(&self, scratch: &mut MoveList<u64>) -> u64 {
        if self.has_capture() {
            scratch.clear();
            self.generate_captures(&mut Collect::<u64, true, false>::new(scratch));
            scratch.len() as u64
        } else {
            self.count_quiet()
        }
    }

    fn has_capture(&self) -> bool {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let men = me & !self.kings;
        if Self::man_dirs(self.side)
            .iter()
            .any(|&d| step(step(men, d) & opp, d) & !occ != 0)
        {
            return true;
        }
        (me & self.kings)
            .squares()
            .any(|k| Self::king_can_capture(k, occ, opp, 4))
    }

    fn play(&self, mv: &Move<u64>) -> Self {
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let (mut me, mut opp) = self.me_opp();
        me = (me ^ from) | to;
        opp &= !mv.captured;
        let mut kings = self.kings & !mv.captured;
        if kings & from != 0 || mv.promote {
            kings = (kings & !from) | to;
        }
        let (white, black) = match self.side {
            Color::White => (me, opp),
            Color::Black => (opp, me),
        };
        TurkishPosition {
            white,
            black,
            kings,
            side: self.side.opposite(),
        }
    }

    #[inline(always)]
    fn pass(&self) -> Self {
        TurkishPosition {
            side: self.side.opposite(),
            ..*self
        }
    }

    fn capture_search<S: CaptureSink<u64>>(&self, sink: &mut S) {
        self.generate_captures(sink)
    }

    fn from_setup(setup: &Setup) -> Result<Self, SetupError> {
        let (white, black, kings) = setup.bitboards(Self::promo_row, Self::square_of_bit)?;
        Ok(TurkishPosition {
            white,
            black,
            kings,
            side: setup.side,
        })
    }

    fn square_count() -> u32 {
        64
    }
    fn bit_of_square(n: u32) -> Option<u32> {
        (1..=64).contains(&n).then(|| n - 1)
    }
    fn square_of_bit(bit: u32) -> u32 {
        bit + 1
    }
    fn coords(bit: u32) -> (u32, u32) {
        (bit % 8, bit / 8 + 1)
    }
    fn bit_at(file: u32, rank: u32) -> Option<u32> {
        (file < 8 && (1..=8).contains(&rank)).then(|| (rank - 1) * 8 + file)
    }
    fn promotion_row(color: Color) -> u64 {
        Self::promo_row(color)
    }
}
