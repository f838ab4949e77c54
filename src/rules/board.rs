//! What every board type offers: the interface the perft, search and notation code is written
//! against, implemented by the diagonal [`Position`](super::diagonal::Position) and the
//! orthogonal [`TurkishPosition`](super::turkish::TurkishPosition).

use std::fmt::Debug;
use std::hash::Hash;

use super::bits::Bits;
use super::capture::{CaptureSink, Routes};
use super::variant::{Color, Variant};

/// A move as a set of squares (Scan's representation): where the piece starts, where it ends
/// and what it captures. Two captures with the same start, end and captured set are the same
/// move; the route (landing squares) is rebuilt only when notation needs it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Move<B> {
    /// Bit index of the start square.
    pub from: u8,
    /// Bit index of the end square (equal to `from` for a capture that comes back round).
    pub to: u8,
    /// The moving man becomes a king with this move.
    pub promote: bool,
    pub captured: B,
}

impl<B: Bits> Move<B> {
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.captured.any()
    }
    #[inline(always)]
    pub fn capture_count(&self) -> u32 {
        self.captured.count()
    }
}

pub type MoveList<B> = Vec<Move<B>>;

/// A move of any board, its captured set widened to 128 bits: the form in which a move
/// crosses an interface that serves every variant (the engine's answer, see
/// `search::Done`), typed all the same: no text to format and parse back.
pub type AnyMove = Move<u128>;

impl<B: Bits> Move<B> {
    /// The move as an [`AnyMove`].
    #[inline]
    pub fn erase(&self) -> AnyMove {
        Move {
            from: self.from,
            to: self.to,
            promote: self.promote,
            captured: self.captured.to_u128(),
        }
    }

    /// The move of `legal` that `m` is, if it is one of them.
    pub fn among(m: &AnyMove, legal: &[Move<B>]) -> Option<Move<B>> {
        legal.iter().copied().find(|l| l.erase() == *m)
    }
}

/// A position's contents, unchecked: what a parser produces before validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub side: Color,
    /// (bit index, is king) for each side.
    pub white: Vec<(u32, bool)>,
    pub black: Vec<(u32, bool)>,
}

impl Setup {
    /// The pieces as bitboards (white, black, kings), checked: no square given twice, no
    /// man standing on its own promotion row.
    pub fn bitboards<B: Bits>(
        &self,
        promotion_row: impl Fn(Color) -> B,
        square_of_bit: impl Fn(u32) -> u32,
    ) -> Result<(B, B, B), SetupError> {
        let (mut white, mut black, mut kings) = (B::ZERO, B::ZERO, B::ZERO);
        for (color, list) in [(Color::White, &self.white), (Color::Black, &self.black)] {
            for &(bit, king) in list {
                if (white | black).has(bit) {
                    return Err(SetupError::SquareTwice(square_of_bit(bit)));
                }
                if !king && promotion_row(color).has(bit) {
                    return Err(SetupError::ManOnPromotionRow {
                        color,
                        square: square_of_bit(bit),
                    });
                }
                match color {
                    Color::White => white |= B::bit(bit),
                    Color::Black => black |= B::bit(bit),
                }
                if king {
                    kings |= B::bit(bit);
                }
            }
        }
        Ok((white, black, kings))
    }
}

/// Why a setup is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    SquareTwice(u32),
    ManOnPromotionRow { color: Color, square: u32 },
}

/// A board type: geometry, pieces, move generation and move making.
pub trait Board: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    type B: Bits;
    const VARIANT: Variant;
    /// Men may step sideways (turkish): such a step can be taken back, so the position
    /// before it may recur and the repetition window does not restart there.
    const MEN_STEP_SIDEWAYS: bool = false;

    fn start() -> Self;
    fn side(&self) -> Color;
    fn white(&self) -> Self::B;
    fn black(&self) -> Self::B;
    fn kings(&self) -> Self::B;
    fn pieces(&self, c: Color) -> Self::B {
        match c {
            Color::White => self.white(),
            Color::Black => self.black(),
        }
    }

    /// All legal moves, each distinct move once.
    fn generate(&self, out: &mut MoveList<Self::B>);
    /// All legal moves in the perft convention of the variant (Turkish counts every capture
    /// path; the diagonal variants drop duplicate captures).
    fn generate_perft(&self, out: &mut MoveList<Self::B>) {
        self.generate(out)
    }
    /// All legal moves with a capture once per route (the "keep duplicates" perft
    /// convention: two routes taking the same pieces from the same start to the same end
    /// are two moves here).
    fn generate_every_route(&self, out: &mut MoveList<Self::B>) {
        self.generate_perft(out)
    }
    /// The number of moves `generate_perft` would produce, without building them when it can.
    fn count_moves(&self, scratch: &mut MoveList<Self::B>) -> u64 {
        self.generate_perft(scratch);
        scratch.len() as u64
    }
    /// Whether the side to move must capture.
    fn has_capture(&self) -> bool;
    /// The moves that offer the opponent a capture: the quiet moves of a man after which
    /// the opponent must capture (exchanges and sacrifices, how every combination starts),
    /// in `out`. Empty when the side to move must capture. The quiescence search asks for
    /// them in quiet positions; a board type may compute them from its bitboards, this
    /// definition ([`offers_by_definition`]) is the reference.
    fn capture_offers(&self, out: &mut MoveList<Self::B>) {
        offers_by_definition(self, out)
    }
    /// The position after `mv` (which must be legal here).
    fn play(&self, mv: &Move<Self::B>) -> Self;
    /// The same pieces with the other side to move: a "null move", which no variant allows
    /// but the search uses to ask what the opponent threatens.
    fn pass(&self) -> Self;
    /// Run the capture search of the side to move, handing every complete capture
    /// sequence (with its route) to `sink`.
    fn capture_search<S: CaptureSink<Self::B>>(&self, sink: &mut S);
    /// Every landing-square route (bit indices, start and end included) that plays `mv`.
    fn routes(&self, mv: &Move<Self::B>) -> Vec<Vec<u32>> {
        if !mv.is_capture() {
            return vec![vec![mv.from as u32, mv.to as u32]];
        }
        let mut sink = Routes {
            target: *mv,
            routes: Vec::new(),
        };
        self.capture_search(&mut sink);
        sink.routes
    }

    /// Validate a setup into a position.
    fn from_setup(setup: &Setup) -> Result<Self, SetupError>;

    // Geometry.
    /// Number of playable squares (32, 50, 72 or 64).
    fn square_count() -> u32;
    /// Bit index of square number `n` (1-based), if it exists.
    fn bit_of_square(n: u32) -> Option<u32>;
    /// Square number (1-based) of a bit.
    fn square_of_bit(bit: u32) -> u32;
    /// (file, rank) of a bit: file 0 = a, rank 1 = White's back row.
    fn coords(bit: u32) -> (u32, u32);
    /// The bit at (file, rank), if that is a playable square.
    fn bit_at(file: u32, rank: u32) -> Option<u32>;
    /// Whether a man of `color` standing on `bit` is on its promotion row.
    fn promotion_row(color: Color) -> Self::B;

    /// The part of the Zobrist key for state beyond the pieces and the side to move
    /// (frisian's king-move counts); none for most boards.
    #[inline(always)]
    fn state_key(&self) -> u64 {
        0
    }
    /// How `state_key` changes when `mv` is played: `state_key() ^ play(mv).state_key()`.
    #[inline(always)]
    fn state_key_after(&self, _mv: &Move<Self::B>) -> u64 {
        0
    }

    /// Zobrist hash of the position (pieces, side to move and `state_key`).
    fn hash(&self) -> u64 {
        let mut h = if self.side() == Color::Black {
            super::zobrist::SIDE
        } else {
            0
        } ^ self.state_key();
        let k = self.kings();
        for (c, set) in [(0usize, self.white()), (1, self.black())] {
            for b in set.squares() {
                let kind = c * 2 + k.has(b) as usize;
                h ^= super::zobrist::KEYS[kind][b as usize];
            }
        }
        h
    }

    /// The setup this position came from (for writing FEN and diagrams).
    fn to_setup(&self) -> Setup {
        let k = self.kings();
        Setup {
            side: self.side(),
            white: self.white().squares().map(|b| (b, k.has(b))).collect(),
            black: self.black().squares().map(|b| (b, k.has(b))).collect(),
        }
    }
}

/// [`Board::capture_offers`] by its definition: every legal move is made and the
/// opponent's captures looked for.
pub fn offers_by_definition<P: Board>(pos: &P, out: &mut MoveList<P::B>) {
    out.clear();
    if pos.has_capture() {
        return;
    }
    pos.generate(out);
    let kings = pos.kings();
    out.retain(|m| !kings.has(m.from as u32) && pos.play(m).has_capture());
}
