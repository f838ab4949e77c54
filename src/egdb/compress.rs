//! The stored form of a slice: its values (White to move) cut into blocks of [`BLOCK`]
//! positions, each block coded as runs and short literals, with the offset of every
//! block kept so one position is found without reading the blocks before it.
//!
//! Positions whose value is not needed ("don't care": an index that is no position, or
//! a position where White must capture, which the prober resolves by searching the
//! captures through the rules core) take whatever value continues the run they fall in,
//! so they cost nothing.
//!
//! Codes, one byte each, then their payload:
//! - `v << 6 | c` with `v` a value (0 draw, 1 win, 2 loss): a run of `c + 1` positions
//!   (`c` < 63), or with `c` = 63 a run of `64 + u16` (little-endian, next two bytes);
//! - `3 << 6 | c`: `c + 1` literal values, four to a byte, in the next `(c + 4) / 4` bytes.

/// Positions a block holds.
pub const BLOCK: usize = 4096;
/// A position whose stored value does not matter.
pub const DONT_CARE: u8 = 3;
/// A run shorter than this is cheaper as part of a literal.
const MIN_RUN: usize = 6;

/// Code `values` (0..=2 or [`DONT_CARE`]): the block offsets (one more than there are
/// blocks: the last is the data's length) and the data.
pub fn encode(values: &[u8]) -> (Vec<u32>, Vec<u8>) {
    encode_blocks(values, encode_block)
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

fn encode_block(v: &[u8], out: &mut Vec<u8>) {
    let mut literal: Vec<u8> = Vec::with_capacity(64);
    let flush = |literal: &mut Vec<u8>, out: &mut Vec<u8>| {
        if literal.is_empty() {
            return;
        }
        out.push(3 << 6 | (literal.len() - 1) as u8);
        for four in literal.chunks(4) {
            let mut b = 0u8;
            for (k, x) in four.iter().enumerate() {
                b |= x << (2 * k);
            }
            out.push(b);
        }
        literal.clear();
    };
    let mut i = 0;
    while i < v.len() {
        let (value, j) = run_from(v, i, DONT_CARE);
        let run = j - i;
        if run >= MIN_RUN || j == v.len() {
            flush(&mut literal, out);
            if run < 64 {
                out.push(value << 6 | (run - 1) as u8);
            } else {
                out.push(value << 6 | 63);
                out.extend_from_slice(&((run - 64) as u16).to_le_bytes());
            }
            i = j;
        } else {
            literal.push(if v[i] == DONT_CARE { value } else { v[i] });
            if literal.len() == 64 {
                flush(&mut literal, out);
            }
            i += 1;
        }
    }
    flush(&mut literal, out);
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

/// The value at position `k` of the block coded in `data` (which starts at the block).
/// `None` if the data ends first (a damaged file; the checksum finds those first).
#[inline]
pub fn value_at(data: &[u8], k: usize) -> Option<u8> {
    let mut pos = 0;
    let mut p = 0;
    loop {
        let b = *data.get(p)?;
        let (v, c) = (b >> 6, (b & 63) as usize);
        if v < 3 {
            let len = run_length(data, &mut p, c)?;
            if k < pos + len {
                return Some(v);
            }
            pos += len;
        } else {
            let n = c + 1;
            if k < pos + n {
                let at = k - pos;
                return Some((data.get(p + 1 + at / 4)? >> (2 * (at % 4))) & 3);
            }
            p += 1 + n.div_ceil(4);
            pos += n;
        }
    }
}

/// Decode a whole block into `out` (its positions' values); false if the data is short.
pub fn decode_block(data: &[u8], out: &mut [u8]) -> bool {
    let mut pos = 0;
    let mut p = 0;
    while pos < out.len() {
        let Some(&b) = data.get(p) else { return false };
        let (v, c) = (b >> 6, (b & 63) as usize);
        if v < 3 {
            let Some(len) = run_length(data, &mut p, c) else {
                return false;
            };
            let end = (pos + len).min(out.len());
            out[pos..end].fill(v);
            pos = end;
        } else {
            let n = c + 1;
            for at in 0..n.min(out.len() - pos) {
                let Some(&byte) = data.get(p + 1 + at / 4) else {
                    return false;
                };
                out[pos + at] = (byte >> (2 * (at % 4))) & 3;
            }
            p += 1 + n.div_ceil(4);
            pos += n;
        }
    }
    true
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
        let mut block = vec![0u8; BLOCK];
        for (b, chunk) in values.chunks(BLOCK).enumerate() {
            let coded = &data[offsets[b] as usize..offsets[b + 1] as usize];
            assert!(decode_block(coded, &mut block[..chunk.len()]));
            for (k, &v) in chunk.iter().enumerate() {
                if v != DONT_CARE {
                    assert_eq!(value_at(coded, k), Some(v), "block {b} position {k}");
                    assert_eq!(block[k], v);
                }
            }
            // Cut short, a block is never read past its end.
            assert!(!decode_block(
                &coded[..coded.len() / 2],
                &mut block[..chunk.len()]
            ));
        }
        // Long runs with don't-cares cost a few bytes.
        let runs = [vec![1u8; 2000], vec![DONT_CARE; 1000], vec![1u8; 1096]].concat();
        let (_, data) = encode(&runs);
        assert!(data.len() <= 3, "{}", data.len());
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
