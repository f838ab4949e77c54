//! Small seeded pseudo-random generators, without a dependency: the same seed gives the
//! same sequence on every machine.
//!
//! Each generator's sequence is part of what is made with it (a `tune games` file, a
//! match's openings, a trained network, an endgame database's verification sample), so
//! none may change; that is why there are four, not one:
//!
//! * [`SplitMix64`]: splitmix64 (match openings and their shuffles);
//! * [`MixChain`]: [`splitmix64`] applied to its own output (the games of `tune games`);
//! * [`XorShift64`]: Marsaglia's xorshift64, shifts 13, 7, 17 (`tune net-fit`, the
//!   random networks and the tests);
//! * [`XorShift64Star`]: xorshift64*, shifts 12, 25, 27 (`egdb verify`'s samples).
//!
//! The zobrist keys (`crate::rules::zobrist`) are splitmix64 too, computed at compile
//! time by the rules core's own `const fn` (the rules core depends on nothing else in
//! the crate); a test here checks that [`SplitMix64`] gives the same keys.

/// The golden-ratio increment of splitmix64, also the usual multiplier that spreads a
/// small seed over 64 bits.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// One splitmix64 step from the state `x`: `x` advanced by [`GOLDEN`], then mixed. A
/// good 64-bit hash of `x` as well.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `x % n` as an index (`n > 0`); the modulo bias is negligible for the small `n` of
/// move lists and shuffles.
fn index(x: u64, n: usize) -> usize {
    (x % n as u64) as usize
}

/// splitmix64 (Steele, Lea and Flood): the state goes up by [`GOLDEN`] per value and each
/// value is the state mixed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let value = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN);
        value
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        index(self.next_u64(), n)
    }
}

/// [`splitmix64`] chained on its own output: each value is the step from the one before
/// (the seed first). Not [`SplitMix64`]'s sequence for the same seed.
#[derive(Clone, Debug)]
pub struct MixChain(u64);

impl MixChain {
    pub const fn new(seed: u64) -> MixChain {
        MixChain(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = splitmix64(self.0);
        self.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        index(self.next_u64(), n)
    }
}

/// Marsaglia's xorshift64 (shifts 13, 7, 17); each value is the new state. The state
/// must not be 0 (it would stay 0).
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// The generator at state `state` (not 0), used as it is.
    pub const fn new(state: u64) -> XorShift64 {
        XorShift64(state)
    }

    /// The generator for `seed`: the seed spread over 64 bits by [`GOLDEN`], made odd (so
    /// never 0).
    pub const fn seeded(seed: u64) -> XorShift64 {
        XorShift64(seed.wrapping_mul(GOLDEN) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        index(self.next_u64(), n)
    }

    /// Uniform in `[-a, a)`, from the top 24 bits of the next value.
    pub fn uniform(&mut self, a: f32) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * a
    }
}

/// xorshift64* (shifts 12, 25, 27, then a multiply): each value is the new state times
/// a constant. The state must not be 0.
#[derive(Clone, Debug)]
pub struct XorShift64Star(u64);

impl XorShift64Star {
    /// The generator for `seed`: the seed spread over 64 bits by [`GOLDEN`], made odd.
    pub const fn seeded(seed: u64) -> XorShift64Star {
        XorShift64Star(seed.wrapping_mul(GOLDEN) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first values of each generator, as they were before they shared this module
    /// (files made with them depend on these sequences).
    #[test]
    fn the_sequences_stay_the_same() {
        // splitmix64 from 0: the published reference values.
        let mut s = SplitMix64::new(0);
        assert_eq!(s.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(s.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        // The chain's first value is splitmix64's, its second the step from that value.
        let mut c = MixChain::new(0);
        assert_eq!(c.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(c.next_u64(), splitmix64(0xE220_A839_7B1D_CDAF));
        // xorshift64 from 1: 1 ^ 1<<13 = 0x2001, ^ >>7 (0x40) = 0x2041, ^ <<17.
        let mut x = XorShift64::new(1);
        assert_eq!(x.next_u64(), 0x2041 ^ (0x2041 << 17));
        assert_eq!(XorShift64::seeded(3).0, 3u64.wrapping_mul(GOLDEN) | 1);
        let mut y = XorShift64Star::seeded(0);
        let state = {
            let mut r = 1u64;
            r ^= r >> 12;
            r ^= r << 25;
            r ^= r >> 27;
            r
        };
        assert_eq!(y.next_u64(), state.wrapping_mul(0x2545_F491_4F6C_DD1D));
    }

    #[test]
    fn splitmix64_gives_the_zobrist_keys() {
        let mut s = SplitMix64::new(0x7a6d_6d69);
        for kind in crate::rules::zobrist::KEYS.iter() {
            for &key in kind.iter() {
                assert_eq!(s.next_u64(), key);
            }
        }
    }

    #[test]
    fn below_and_uniform_stay_in_range() {
        let mut x = XorShift64::seeded(7);
        for n in 1..200 {
            assert!(x.below(n) < n);
            let u = x.uniform(0.5);
            assert!((-0.5..0.5).contains(&u), "{u}");
        }
    }
}
