//! The network's second layer, the one hot loop of its evaluation: 32 sums of 256
//! products of small integers. The weights are held by *pairs of inputs* (for the pair
//! `m`, the 32 units' weights on inputs `2m` and `2m + 1`, interleaved), so one
//! multiply-add of 16-bit lanes (`pmaddwd`, or `vpdpwssd` where the build has VNNI) takes
//! an input pair, broadcast, against 16 units at once. Written by hand for AVX-512 and
//! AVX2: from the row-major loop the compiler made shuffles that cost more than the
//! products. The vector loops are dense: skipping pairs of inactive inputs (a clipped ReLU
//! is 0 about half the time, both of a pair a quarter) cost more in mispredicted branches
//! than it saved (`tammi bench --variant english --eval network` beside the build before,
//! runs alternating on a loaded machine: 2.1–2.3 M nodes/s with the skip, 2.8–3.0 M
//! without, 1.8–2.2 M for the row-major loop).
//!
//! The only `unsafe` of the evaluation is here: unaligned vector loads and stores inside
//! arrays whose sizes are checked at compile time. Every path gives the same sums as
//! [`sums_portable`] (tested).

use super::network::{HIDDEN, L2};

/// The second layer's weights by input pair: `[m][2 * j + t]` is unit `j`'s weight on
/// input `2 * m + t` (of the `2 * HIDDEN` activations, the side to move's first).
pub type PairWeights = [[i16; 2 * L2]; HIDDEN];

// The vector paths hold the 32 sums in two 512-bit or four 256-bit registers.
const _: () = assert!(L2 == 32);

/// The 32 sums `Σ_i a[i] · w(j, i)`, for activations `a` in 0..=127 and weights in the
/// `i8` range (no sum can overflow: 256 · 127 · 127 < 2^31).
#[inline]
pub fn sums(a: &[i16; 2 * HIDDEN], w: &PairWeights) -> [i32; L2] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512bw"))]
    // SAFETY: this path is compiled only where the build enables AVX-512 BW for every
    // function (`target-cpu`), so the processor running it has it.
    unsafe {
        sums_avx512(a, w)
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(target_feature = "avx512bw")
    ))]
    // SAFETY: as above, for AVX2.
    unsafe {
        sums_avx2(a, w)
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        any(target_feature = "avx2", target_feature = "avx512bw")
    )))]
    {
        sums_portable(a, w)
    }
}

/// The pair `(a[2m], a[2m + 1])` as one 32-bit word (low half first), the layout of a
/// 16-bit lane pair.
#[inline(always)]
fn pair_word(pair: &[i16]) -> i32 {
    (pair[0] as u16 as u32 | (pair[1] as u16 as u32) << 16) as i32
}

/// The reference: plain integer arithmetic, any target.
#[cfg_attr(
    all(
        target_arch = "x86_64",
        any(target_feature = "avx2", target_feature = "avx512bw")
    ),
    allow(dead_code)
)]
pub fn sums_portable(a: &[i16; 2 * HIDDEN], w: &PairWeights) -> [i32; L2] {
    let mut out = [0i32; L2];
    for (m, row) in w.iter().enumerate() {
        let (x0, x1) = (a[2 * m] as i32, a[2 * m + 1] as i32);
        if x0 == 0 && x1 == 0 {
            continue;
        }
        for (o, p) in out.iter_mut().zip(row.chunks_exact(2)) {
            *o += x0 * p[0] as i32 + x1 * p[1] as i32;
        }
    }
    out
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512bw"))]
#[target_feature(enable = "avx512f,avx512bw")]
fn sums_avx512(a: &[i16; 2 * HIDDEN], w: &PairWeights) -> [i32; L2] {
    use std::arch::x86_64::*;
    let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    for (pair, row) in a.chunks_exact(2).zip(w.iter()) {
        let x = _mm512_set1_epi32(pair_word(pair));
        // SAFETY: `row` is 64 i16 (128 bytes): two unaligned 64-byte loads at offsets 0
        // and 32 elements stay inside it.
        let (w0, w1) = unsafe {
            (
                _mm512_loadu_epi16(row.as_ptr()),
                _mm512_loadu_epi16(row.as_ptr().add(32)),
            )
        };
        lo = _mm512_add_epi32(lo, _mm512_madd_epi16(x, w0));
        hi = _mm512_add_epi32(hi, _mm512_madd_epi16(x, w1));
    }
    let mut out = [0i32; L2];
    // SAFETY: `out` is 32 i32 (128 bytes): two unaligned 64-byte stores at offsets 0 and
    // 16 elements stay inside it.
    unsafe {
        _mm512_storeu_epi32(out.as_mut_ptr(), lo);
        _mm512_storeu_epi32(out.as_mut_ptr().add(16), hi);
    }
    out
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[target_feature(enable = "avx2")]
#[cfg_attr(target_feature = "avx512bw", allow(dead_code))]
fn sums_avx2(a: &[i16; 2 * HIDDEN], w: &PairWeights) -> [i32; L2] {
    use std::arch::x86_64::*;
    let mut acc = [_mm256_setzero_si256(); 4];
    for (pair, row) in a.chunks_exact(2).zip(w.iter()) {
        let x = _mm256_set1_epi32(pair_word(pair));
        for (k, s) in acc.iter_mut().enumerate() {
            // SAFETY: `row` is 64 i16 (128 bytes): 32-byte loads at 16-element offsets
            // 0, 16, 32 and 48 stay inside it.
            let v = unsafe { _mm256_loadu_si256(row.as_ptr().add(16 * k) as *const __m256i) };
            *s = _mm256_add_epi32(*s, _mm256_madd_epi16(x, v));
        }
    }
    let mut out = [0i32; L2];
    for (k, s) in acc.iter().enumerate() {
        // SAFETY: `out` is 32 i32: 32-byte stores at 8-element offsets 0, 8, 16 and 24
        // stay inside it.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(8 * k) as *mut __m256i, *s) };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Activations with about half zeros (and some at the clip), weights over the whole
    /// `i8` range, from a seed.
    fn random(seed: u64) -> (Box<[i16; 2 * HIDDEN]>, Box<PairWeights>) {
        let mut rng = crate::rng::XorShift64::seeded(seed);
        let mut next = move |n: u64| rng.next_u64() % n;
        let mut a = Box::new([0i16; 2 * HIDDEN]);
        for x in a.iter_mut() {
            *x = match next(4) {
                0 | 1 => 0,
                2 => 127,
                _ => next(128) as i16,
            };
        }
        let mut w = Box::new([[0i16; 2 * L2]; HIDDEN]);
        for x in w.iter_mut().flatten() {
            *x = next(255) as i16 - 127;
        }
        (a, w)
    }

    #[test]
    fn every_path_gives_the_row_major_sums() {
        for seed in 1..200 {
            let (a, w) = random(seed);
            // The definition: unit j sums a[i] times its weight on input i.
            let mut want = [0i32; L2];
            for (j, o) in want.iter_mut().enumerate() {
                for (i, &x) in a.iter().enumerate() {
                    *o += x as i32 * w[i / 2][2 * j + i % 2] as i32;
                }
            }
            assert_eq!(sums_portable(&a, &w), want, "seed {seed}");
            assert_eq!(sums(&a, &w), want, "seed {seed}");
            // SAFETY: compiled only where the build enables AVX2.
            #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
            assert_eq!(unsafe { sums_avx2(&a, &w) }, want, "seed {seed}");
        }
        // The extremes: every activation at the clip, every weight at ±127.
        let a = Box::new([127i16; 2 * HIDDEN]);
        for v in [127i16, -127] {
            let w = Box::new([[v; 2 * L2]; HIDDEN]);
            assert_eq!(sums(&a, &w), [256 * 127 * v as i32; L2]);
        }
    }
}
