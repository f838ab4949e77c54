//! Bitboards: one bit per square, in a `u64` (8x8 and 10x10 boards) or a `u128` (12x12).
//!
//! The move generator is written once over the [`Bits`] trait and monomorphised for each
//! board, so a 10x10 position never pays for 128-bit arithmetic.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// An integer used as a set of squares (bit indices).
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Default
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const ZERO: Self;
    /// Tables are computed once as `u128` by `const fn`s; this narrows them (free for `u64`).
    fn from_u128(x: u128) -> Self;
    fn to_u128(self) -> u128;
    fn count(self) -> u32;
    /// Index of the lowest set bit (undefined result on an empty set).
    fn lsb(self) -> u32;
    /// Index of the highest set bit (undefined result on an empty set).
    fn msb(self) -> u32;

    #[inline(always)]
    fn bit(i: u32) -> Self {
        Self::from_u128(1u128 << i)
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }
    #[inline(always)]
    fn any(self) -> bool {
        self != Self::ZERO
    }
    #[inline(always)]
    fn has(self, i: u32) -> bool {
        (self & Self::bit(i)).any()
    }
    /// The squares of the set, lowest first.
    #[inline(always)]
    fn squares(self) -> Squares<Self> {
        Squares(self)
    }
}

impl Bits for u64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn from_u128(x: u128) -> Self {
        x as u64
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self as u128
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn lsb(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline(always)]
    fn msb(self) -> u32 {
        63 - self.leading_zeros()
    }
    #[inline(always)]
    fn bit(i: u32) -> Self {
        1u64 << i
    }
}

impl Bits for u128 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn from_u128(x: u128) -> Self {
        x
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn lsb(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline(always)]
    fn msb(self) -> u32 {
        127 - self.leading_zeros()
    }
}

/// Iterator over the set bits of a bitboard.
#[derive(Clone, Copy)]
pub struct Squares<B>(B);

impl<B: Bits> Iterator for Squares<B> {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_empty() {
            return None;
        }
        let i = self.0.lsb();
        self.0 ^= B::bit(i);
        Some(i)
    }
}
