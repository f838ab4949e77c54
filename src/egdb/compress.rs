//! The stored form of a slice: its values (White to move) cut into blocks of [`BLOCK`]
//! positions, with the offset of every block kept so one position is found without
//! reading the blocks before it. A block is coded in two stages:
//!
//! 1. **Symbols** (one of 255): `0..81` four values in base 3 (`v0 + 3 v1 + 9 v2 + 27 v3`,
//!    0 draw, 1 win, 2 loss), or `81 + 58 v + r` a run of [`RUN_LENGTHS`]`[r]` positions
//!    of value `v`. A run shorter than [`MIN_RUN`] goes into the literals; a longer one is
//!    cut into the table's lengths, the longest first.
//! 2. **Bits**: each symbol written as its canonical Huffman code (at most [`MAX_BITS`]
//!    bits, most significant bit first), one code for the whole slice, built from the
//!    slice's own symbol counts; a block starts on a byte. The slice's data begins with
//!    the code: the length of each of the 256 symbols' codes (0: not used).
//!
//! Runs and short literals alone (a byte code each, the format before this one) took
//! 92.0 MB for english's six pieces; the two stages take 50.4 MB.
//!
//! Positions whose value is not needed ("don't care": an index that is no position, or
//! a position where White must capture, which the prober resolves by searching the
//! captures through the rules core) take whatever value continues the run they fall in,
//! so they cost nothing.

use rayon::prelude::*;

/// Positions a block holds.
pub const BLOCK: usize = 4096;
/// A position whose stored value does not matter.
pub const DONT_CARE: u8 = 3;
/// Symbols below this are four literal values.
const LITERALS: usize = 81;
/// The run lengths a symbol can say: every length up to 36, then about 20% apart up to a
/// whole block (long runs are rarer, and a long run cut in two costs one symbol more).
const RUN_LENGTHS: [u16; 58] = [
    5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    30, 31, 32, 33, 34, 35, 36, 43, 52, 62, 75, 89, 107, 129, 155, 185, 222, 267, 320, 384, 461,
    553, 663, 796, 954, 1145, 1374, 1648, 1977, 2372, 2846, 3414, 4096,
];
/// A run shorter than this goes into the literals.
const MIN_RUN: usize = RUN_LENGTHS[0] as usize;
/// The longest code, in bits (the decoding table has `1 << MAX_BITS` entries).
const MAX_BITS: u32 = 12;
/// The code lengths at the start of a slice's data.
pub const CODE_BYTES: usize = 256;

/// A slice's canonical Huffman code: each symbol's length and bits, and the table that
/// decodes the next [`MAX_BITS`] bits (an entry: the symbol, and its length above it; 0
/// where no code starts with those bits).
#[derive(Clone, PartialEq, Eq)]
pub struct Code {
    lengths: [u8; 256],
    bits: [u16; 256],
    table: Box<[u16]>,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.lengths.iter().filter(|&&l| l > 0).count();
        write!(f, "Code({used} symbols)")
    }
}

impl Code {
    /// The code whose lengths are `lengths` (the first [`CODE_BYTES`] bytes of a slice's
    /// data), or None if they are not a code: a length over [`MAX_BITS`], no symbol, or
    /// more codes of some length than there is room for.
    pub fn read(lengths: &[u8]) -> Option<Code> {
        let lengths: [u8; 256] = lengths.get(..CODE_BYTES)?.try_into().ok()?;
        if lengths.iter().all(|&l| l == 0) || lengths.iter().any(|&l| l as u32 > MAX_BITS) {
            return None;
        }
        let room: u64 = lengths
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1u64 << (MAX_BITS - l as u32))
            .sum();
        if room > 1 << MAX_BITS {
            return None;
        }
        let mut bits = [0u16; 256];
        let mut table = vec![0u16; 1 << MAX_BITS].into_boxed_slice();
        let mut next = 0u32;
        for len in 1..=MAX_BITS {
            for s in 0..256 {
                if lengths[s] as u32 == len {
                    bits[s] = next as u16;
                    let start = (next << (MAX_BITS - len)) as usize;
                    table[start..start + (1 << (MAX_BITS - len))]
                        .fill(s as u16 | (len as u16) << 8);
                    next += 1;
                }
            }
            next <<= 1;
        }
        Some(Code {
            lengths,
            bits,
            table,
        })
    }

    /// The shortest code for symbols counted `counts` times, no code longer than
    /// [`MAX_BITS`] (if Huffman's is, the counts are flattened and it is made again).
    fn for_counts(counts: &[u64; 256]) -> Code {
        let mut counts = *counts;
        loop {
            let lengths = huffman_lengths(&counts);
            if lengths.iter().all(|&l| l as u32 <= MAX_BITS) {
                return Code::read(&lengths).expect("a Huffman code is a code");
            }
            for c in counts.iter_mut().filter(|c| **c > 0) {
                *c = *c / 2 + 1;
            }
        }
    }
}

/// Huffman's code lengths for symbols counted `counts` times (0 for a symbol not used;
/// 1 for a lone symbol). Ties are broken by position, so the same counts always give the
/// same lengths (a resumed build writes the same bytes).
fn huffman_lengths(counts: &[u64; 256]) -> [u8; 256] {
    let used: Vec<usize> = (0..256).filter(|&s| counts[s] > 0).collect();
    let mut lengths = [0u8; 256];
    match used.len() {
        0 => lengths[0] = 1,
        1 => lengths[used[0]] = 1,
        _ => {
            let mut weight: Vec<u64> = used.iter().map(|&s| counts[s]).collect();
            let mut parent = vec![usize::MAX; used.len()];
            let mut active: Vec<usize> = (0..used.len()).collect();
            while active.len() > 1 {
                // The two lightest at the end.
                active.sort_by_key(|&i| std::cmp::Reverse(weight[i]));
                let (a, b) = (active.pop().unwrap(), active.pop().unwrap());
                weight.push(weight[a] + weight[b]);
                parent.push(usize::MAX);
                parent[a] = weight.len() - 1;
                parent[b] = weight.len() - 1;
                active.push(weight.len() - 1);
            }
            for (leaf, &s) in used.iter().enumerate() {
                let (mut depth, mut i) = (0u32, leaf);
                while parent[i] != usize::MAX {
                    i = parent[i];
                    depth += 1;
                }
                lengths[s] = depth.min(255) as u8;
            }
        }
    }
    lengths
}

/// Code `values` (0..=2 or [`DONT_CARE`]): the block offsets (one more than there are
/// blocks: the first is [`CODE_BYTES`], the last the data's length) and the data (the
/// code's lengths, then the blocks).
pub fn encode(values: &[u8]) -> (Vec<u32>, Vec<u8>) {
    let symbols: Vec<Vec<u8>> = values.par_chunks(BLOCK).map(block_symbols).collect();
    let mut counts = [0u64; 256];
    for s in symbols.iter().flatten() {
        counts[*s as usize] += 1;
    }
    let code = Code::for_counts(&counts);
    let blocks: Vec<Vec<u8>> = symbols.par_iter().map(|s| write_bits(&code, s)).collect();
    let mut data = code.lengths.to_vec();
    let mut offsets = Vec::with_capacity(blocks.len() + 1);
    for block in blocks {
        offsets.push(data.len() as u32);
        data.extend_from_slice(&block);
    }
    offsets.push(data.len() as u32);
    (offsets, data)
}

/// The run of `v` from `i`: the first value that matters (0 if none does), and the end of
/// the positions from `i` on that equal it or do not matter.
fn run_from<T: Copy + PartialEq + From<u8>>(v: &[T], i: usize, dont_care: T) -> (T, usize) {
    let value = v[i..]
        .iter()
        .copied()
        .find(|&x| x != dont_care)
        .unwrap_or(T::from(0));
    let mut j = i;
    while j < v.len() && (v[j] == value || v[j] == dont_care) {
        j += 1;
    }
    (value, j)
}

/// `values` cut into blocks of [`BLOCK`], each coded by `code`, with the block offsets
/// (one more than there are blocks: the last is the data's length).
fn encode_blocks<T>(values: &[T], code: fn(&[T], &mut Vec<u8>)) -> (Vec<u32>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(values.len().div_ceil(BLOCK) + 1);
    let mut data = Vec::new();
    for block in values.chunks(BLOCK) {
        offsets.push(data.len() as u32);
        code(block, &mut data);
    }
    offsets.push(data.len() as u32);
    (offsets, data)
}

/// A block's symbols (the first stage).
fn block_symbols(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // Literal values not yet written (fewer than four).
    let mut literal: Vec<u8> = Vec::with_capacity(4);
    let push = |literal: &mut Vec<u8>, x: u8, out: &mut Vec<u8>| {
        literal.push(x);
        if literal.len() == 4 {
            out.push(literal[0] + 3 * literal[1] + 9 * literal[2] + 27 * literal[3]);
            literal.clear();
        }
    };
    let mut i = 0;
    while i < v.len() {
        let (value, j) = run_from(v, i, DONT_CARE);
        let value = value.min(2);
        let mut run = j - i;
        if run >= MIN_RUN {
            // The literal waiting is filled up from the run.
            while !literal.is_empty() {
                push(&mut literal, value, &mut out);
                run -= 1;
            }
            while run >= MIN_RUN {
                let r = RUN_LENGTHS
                    .iter()
                    .rposition(|&l| l as usize <= run)
                    .unwrap();
                out.push((LITERALS + 58 * value as usize + r) as u8);
                run -= RUN_LENGTHS[r] as usize;
            }
            for _ in 0..run {
                push(&mut literal, value, &mut out);
            }
            i = j;
        } else {
            let x = if v[i] == DONT_CARE { value } else { v[i] };
            push(&mut literal, x, &mut out);
            i += 1;
        }
    }
    while !literal.is_empty() {
        push(&mut literal, 0, &mut out);
    }
    out
}

/// `symbols` in `code`'s bits, most significant first, the last byte padded with zeros.
fn write_bits(code: &Code, symbols: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(symbols.len());
    let (mut acc, mut n) = (0u64, 0u32);
    for &s in symbols {
        let len = code.lengths[s as usize] as u32;
        acc = acc << len | code.bits[s as usize] as u64;
        n += len;
        while n >= 8 {
            n -= 8;
            out.push((acc >> n) as u8);
        }
    }
    if n > 0 {
        out.push((acc << (8 - n)) as u8);
    }
    out
}

/// What a symbol says: four literal values, or a run of one value.
enum Symbol {
    Four(u8),
    Run(u8, usize),
}

/// The next symbol of the block in `data` from bit `*bit` (moved past it): None where no
/// code starts, the code runs past the block's end, or the symbol is not one.
#[inline(always)]
fn next_symbol(code: &Code, data: &[u8], bit: &mut usize) -> Option<Symbol> {
    let byte = *bit / 8;
    let at = |k: usize| data.get(byte + k).copied().unwrap_or(0) as u32;
    let window = at(0) << 16 | at(1) << 8 | at(2);
    let peek = (window >> (24 - MAX_BITS - (*bit % 8) as u32)) & ((1 << MAX_BITS) - 1);
    let entry = code.table[peek as usize];
    let len = (entry >> 8) as usize;
    *bit += len;
    if len == 0 || *bit > 8 * data.len() {
        return None;
    }
    let s = (entry & 0xff) as usize;
    if s < LITERALS {
        Some(Symbol::Four(s as u8))
    } else {
        let (v, r) = ((s - LITERALS) / 58, (s - LITERALS) % 58);
        (v < 3).then(|| Symbol::Run(v as u8, RUN_LENGTHS[r] as usize))
    }
}

/// The `k`th of the four values of a literal symbol.
#[inline(always)]
fn digit(four: u8, k: usize) -> u8 {
    [four, four / 3, four / 9, four / 27][k] % 3
}

/// The value at position `k` of the block coded in `data` (which starts at the block).
/// `None` if the data ends first or is not a code (a damaged file; the checksum finds
/// those first).
#[inline]
pub fn value_at(code: &Code, data: &[u8], k: usize) -> Option<u8> {
    let (mut pos, mut bit) = (0, 0);
    loop {
        match next_symbol(code, data, &mut bit)? {
            Symbol::Four(four) => {
                if k < pos + 4 {
                    return Some(digit(four, k - pos));
                }
                pos += 4;
            }
            Symbol::Run(v, len) => {
                if k < pos + len {
                    return Some(v);
                }
                pos += len;
            }
        }
    }
}

/// Decode a whole block into `out` (its positions' values); false if the data is short
/// or not a code.
pub fn decode_block(code: &Code, data: &[u8], out: &mut [u8]) -> bool {
    let (mut pos, mut bit) = (0, 0);
    while pos < out.len() {
        match next_symbol(code, data, &mut bit) {
            Some(Symbol::Four(four)) => {
                for k in 0..4.min(out.len() - pos) {
                    out[pos + k] = digit(four, k);
                }
                pos += 4;
            }
            Some(Symbol::Run(v, len)) => {
                let end = (pos + len).min(out.len());
                out[pos..end].fill(v);
                pos = end;
            }
            None => return false,
        }
    }
    true
}

/// The length of the run whose code byte (count field `c`) is at `p`, moving `p` past the
/// code and its length bytes: `c + 1`, or with `c` = 63 the `64 + u16` that follows.
#[inline(always)]
fn run_length(data: &[u8], p: &mut usize, c: usize) -> Option<usize> {
    if c < 63 {
        *p += 1;
        Some(c + 1)
    } else {
        let extra = u16::from_le_bytes([*data.get(*p + 1)?, *data.get(*p + 2)?]);
        *p += 3;
        Some(64 + extra as usize)
    }
}

/// A byte value whose stored value does not matter, for [`encode_bytes`].
pub const BYTE_DONT_CARE: u16 = u16::MAX;

/// Code byte `values` (0..=255 or [`BYTE_DONT_CARE`]) in blocks of [`BLOCK`], as
/// [`encode`] does two-bit ones: the distance tables' form. Most distances are small
/// (1 and 2 make up most of english's 5 pieces), so literals come in three widths.
/// Codes, one byte each, then their payload:
/// - `00cccccc`: `c + 1` values of two bits (0 to 3), four to a byte;
/// - `01cccccc`: `c + 1` values of four bits (0 to 15), two to a byte;
/// - `10cccccc`: `c + 1` values of a byte each;
/// - `11cccccc`: a run of `c + 1` positions (`c` < 63), or with `c` = 63 of `64 + u16`
///   (little-endian, next two bytes), then the run's value (one byte).
pub fn encode_bytes(values: &[u16]) -> (Vec<u32>, Vec<u8>) {
    encode_blocks(values, encode_byte_block)
}

/// Bits a literal of `v` needs: 2, 4 or 8.
fn width(v: u8) -> usize {
    match v {
        0..=3 => 2,
        4..=15 => 4,
        _ => 8,
    }
}

/// The shortest run worth its two bytes, for a value of this width.
fn min_run(width: usize) -> usize {
    16 / width + 2
}

fn encode_byte_block(v: &[u16], out: &mut Vec<u8>) {
    let mut literal: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let (value, j) = run_from(v, i, BYTE_DONT_CARE);
        debug_assert!(value < 256, "{value} is not a byte");
        let run = j - i;
        if run >= min_run(width(value as u8)) || j == v.len() {
            write_literals(&literal, out);
            literal.clear();
            if run < 64 {
                out.push(0xc0 | (run - 1) as u8);
            } else {
                out.push(0xff);
                out.extend_from_slice(&((run - 64) as u16).to_le_bytes());
            }
            out.push(value as u8);
            i = j;
        } else {
            // A don't-care takes the narrowest width.
            literal.push(if v[i] == BYTE_DONT_CARE {
                0
            } else {
                v[i] as u8
            });
            i += 1;
        }
    }
    write_literals(&literal, out);
}

/// Write `values` as literal codes of at most 64 values each, each code as narrow as its
/// widest value allows, cut where the total is least (a shortest path over the cuts).
fn write_literals(values: &[u8], out: &mut Vec<u8>) {
    let n = values.len();
    if n == 0 {
        return;
    }
    // best[i]: the fewest bytes for values[i..], and the length of its first code.
    let mut best = vec![(0usize, 0usize); n + 1];
    for i in (0..n).rev() {
        let mut w = 0;
        best[i] = (usize::MAX, 0);
        for len in 1..=64.min(n - i) {
            w = w.max(width(values[i + len - 1]));
            let cost = 1 + (len * w).div_ceil(8) + best[i + len].0;
            if cost < best[i].0 {
                best[i] = (cost, len);
            }
        }
    }
    let mut i = 0;
    while i < n {
        let len = best[i].1;
        let part = &values[i..i + len];
        let w = part.iter().map(|&x| width(x)).max().unwrap_or(2);
        let (code, per_byte) = match w {
            2 => (0x00, 4),
            4 => (0x40, 2),
            _ => (0x80, 1),
        };
        out.push(code | (len - 1) as u8);
        for chunk in part.chunks(per_byte) {
            let mut b = 0u8;
            for (k, &x) in chunk.iter().enumerate() {
                b |= x << (w * k);
            }
            out.push(b);
        }
        i += len;
    }
}

/// The byte at position `k` of the block coded by [`encode_bytes`] in `data` (which
/// starts at the block). `None` if the data ends first.
pub fn byte_at(data: &[u8], k: usize) -> Option<u8> {
    let (mut pos, mut p) = (0, 0);
    loop {
        let b = *data.get(p)?;
        let c = (b & 0x3f) as usize;
        if b < 0xc0 {
            let w = [2, 4, 8][(b >> 6) as usize];
            let n = c + 1;
            if k < pos + n {
                let at = (k - pos) * w;
                let byte = *data.get(p + 1 + at / 8)?;
                return Some(((byte as u16 >> (at % 8)) & ((1 << w) - 1)) as u8);
            }
            p += 1 + (n * w).div_ceil(8);
            pos += n;
        } else {
            let len = run_length(data, &mut p, c)?;
            if k < pos + len {
                return data.get(p).copied();
            }
            p += 1;
            pos += len;
        }
    }
}

/// FNV-1a, 64 bits: enough to tell a damaged or truncated slice from a sound one.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_blocks_give_back_every_value_that_matters() {
        // Runs long and short, literals, don't-cares inside and between, a last block
        // shorter than the rest.
        let mut rng = 12345u64;
        let mut values = Vec::new();
        while values.len() < 3 * BLOCK + 777 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = ((rng >> 33) % 4) as u8;
            let len = match (rng >> 40) % 4 {
                0 => 1,
                1 => 3,
                2 => 70,
                _ => 900,
            };
            values.extend(std::iter::repeat_n(v, len));
        }
        let (offsets, data) = encode(&values);
        assert_eq!(offsets.len(), values.len().div_ceil(BLOCK) + 1);
        assert_eq!(offsets[0] as usize, CODE_BYTES);
        let code = Code::read(&data).expect("the data starts with its code");
        let mut block = vec![0u8; BLOCK];
        for (b, chunk) in values.chunks(BLOCK).enumerate() {
            let coded = &data[offsets[b] as usize..offsets[b + 1] as usize];
            assert!(decode_block(&code, coded, &mut block[..chunk.len()]));
            for (k, &v) in chunk.iter().enumerate() {
                if v != DONT_CARE {
                    assert_eq!(value_at(&code, coded, k), Some(v), "block {b} position {k}");
                    assert_eq!(block[k], v);
                }
            }
            // Cut short, a block is never read past its end.
            let cut = &coded[..coded.len() / 2];
            assert!(!decode_block(&code, cut, &mut block[..chunk.len()]));
            assert_eq!(value_at(&code, cut, chunk.len() - 1), None);
        }
        // The same values, the same bytes (a resumed build depends on it).
        assert_eq!(encode(&values), (offsets, data));
        // Long runs with don't-cares cost a few bytes after the code.
        let runs = [vec![1u8; 2000], vec![DONT_CARE; 1000], vec![1u8; 1096]].concat();
        let (_, data) = encode(&runs);
        assert!(data.len() <= CODE_BYTES + 2, "{}", data.len());
    }

    #[test]
    fn every_literal_and_run_symbol_decodes_to_what_was_coded() {
        // Every four-value literal, then runs of every value and many lengths, with
        // literal tails of 1 to 3: all 255 symbols in use, codes of many lengths.
        let mut values = Vec::new();
        for four in 0..81u8 {
            values.extend((0..4).map(|k| digit(four, k)));
        }
        for len in (1..300).chain([700, 1500, 4096, 5000]) {
            for v in 0..3u8 {
                values.extend(std::iter::repeat_n(v, len));
                values.push((v + 1) % 3);
            }
        }
        let (offsets, data) = encode(&values);
        let code = Code::read(&data).unwrap();
        let mut out = vec![0u8; values.len()];
        for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
            let coded = &data[offsets[b] as usize..offsets[b + 1] as usize];
            assert!(decode_block(&code, coded, chunk));
        }
        assert_eq!(out, values);
    }

    #[test]
    fn code_lengths_that_are_no_code_are_refused() {
        let mut lengths = [0u8; 256];
        assert!(Code::read(&lengths).is_none(), "no symbol");
        lengths[7] = 1;
        assert!(Code::read(&lengths).is_some(), "one symbol");
        lengths[9] = 1;
        assert!(Code::read(&lengths).is_some(), "two of one bit");
        lengths[11] = 1;
        assert!(Code::read(&lengths).is_none(), "three of one bit");
        lengths[11] = 0;
        lengths[200] = MAX_BITS as u8 + 1;
        assert!(Code::read(&lengths).is_none(), "too long");
        assert!(Code::read(&lengths[..100]).is_none(), "too few lengths");
        // Skewed counts make codes longer than allowed; they are flattened to fit.
        let mut counts = [0u64; 256];
        for (s, c) in counts.iter_mut().enumerate() {
            *c = 1u64 << (s % 40);
        }
        let code = Code::for_counts(&counts);
        assert!(
            code.lengths
                .iter()
                .all(|&l| (1..=MAX_BITS as u8).contains(&l))
        );
    }

    #[test]
    fn coded_byte_blocks_give_back_every_byte_that_matters() {
        let mut rng = 99u64;
        let mut values: Vec<u16> = Vec::new();
        while values.len() < 2 * BLOCK + 555 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Don't-cares, and values of every literal width.
            let v = match (rng >> 20) % 5 {
                0 => BYTE_DONT_CARE,
                1 => ((rng >> 33) % 4) as u16,
                2 => ((rng >> 33) % 16) as u16,
                _ => ((rng >> 33) % 256) as u16,
            };
            let len = [1, 1, 2, 5, 9, 130, 700][((rng >> 45) % 7) as usize];
            values.extend(std::iter::repeat_n(v, len));
        }
        let (offsets, data) = encode_bytes(&values);
        assert_eq!(offsets.len(), values.len().div_ceil(BLOCK) + 1);
        for (b, chunk) in values.chunks(BLOCK).enumerate() {
            let coded = &data[offsets[b] as usize..offsets[b + 1] as usize];
            for (k, &v) in chunk.iter().enumerate() {
                if v != BYTE_DONT_CARE {
                    assert_eq!(byte_at(coded, k), Some(v as u8), "block {b} position {k}");
                }
            }
            // Past the block's end, or cut short: nothing, never a wrong value.
            assert_eq!(byte_at(coded, chunk.len()), None);
            assert_eq!(byte_at(&coded[..1], chunk.len() - 1), None);
        }
    }
}
