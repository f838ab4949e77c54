//! Rectangles: the 10x10 board read through eight overlapping windows of 4 files by 6
//! ranks, 12 playable squares each, every configuration of the men in a window (kings
//! read as empty) with a value of its own, an opening and an endgame one.
//!
//! The windows stand on the four column pairs (files 1–4, 3–6, 5–8, 7–10) of the top six
//! ranks (Black's half and the centre: windows 0 to 3) and of the bottom six (White's:
//! windows 4 to 7). Turning the board half a circle and exchanging the colours maps
//! window `w` onto window `7 - w` with its squares in reverse order; a position and its
//! image so turned score the same for the side to move. That symmetry ties the weights:
//! there are four tables, one per top window, each holding White's value of a
//! configuration, and a bottom window reads the table of its image with the colours
//! exchanged and its sign turned. 4 tables of 3^12 configurations in two phases make
//! 4,251,528 weights, most of them for configurations no game reaches (those stay 0).
//!
//! Weights files hold the tables as `rectangles` and `rectangle_data` lines (see
//! [`encode`]): only the non-zero entries, packed and in base64, since 4 million
//! `name value` lines would be a hundred megabytes.

use super::diagonal::base3_table;
use super::weights::{PATTERN_LIMIT, PATTERN_UNIT, window_text};

/// Windows on the board.
pub const WINDOWS: usize = 8;
/// Tables of weights (one per pair of windows tied by the symmetry).
pub const TABLES: usize = 4;
/// Configurations of one window: three states for each of its 12 squares.
pub const STATES: usize = 531_441;
/// Value sets: opening and endgame, blended by the pieces on the board as the per-square
/// tables are.
pub const PHASES: usize = 2;
/// Weights in all: `(phase * TABLES + table) * STATES + configuration`.
pub const PARAMS: usize = PHASES * TABLES * STATES;

/// Bit shifts of the six rows of each window in the 10x10 ghost layout (rows of five
/// squares in consecutive bits, a ghost bit after every two rows): window `w` covers the
/// rows `4 * (w / 4)` to `+5` from the top and, in each, the squares `w % 4` and `+1`.
const fn window_shifts() -> [[u32; 6]; WINDOWS] {
    let mut t = [[0u32; 6]; WINDOWS];
    let mut w = 0;
    while w < WINDOWS {
        let mut i = 0;
        while i < 6 {
            let row = 4 * (w / 4) as u32 + i as u32;
            t[w][i] = 5 * row + row / 2 + (w % 4) as u32;
            i += 1;
        }
        w += 1;
    }
    t
}
const SHIFTS: [[u32; 6]; WINDOWS] = window_shifts();

/// The pieces of `b` (a 10x10 ghost-layout bitboard) in window `w`, as 12 bits: rows from
/// the top of the board, left square first.
#[inline(always)]
fn window_bits(b: u64, w: usize) -> usize {
    let s = &SHIFTS[w];
    (((b >> s[0]) & 3)
        | (((b >> s[1]) & 3) << 2)
        | (((b >> s[2]) & 3) << 4)
        | (((b >> s[3]) & 3) << 6)
        | (((b >> s[4]) & 3) << 8)
        | (((b >> s[5]) & 3) << 10)) as usize
}

/// The base-3 indices of a window's 12 bits, read in order and reversed.
static BASE3: [u32; 4096] = base3_table(false);
static BASE3_REVERSED: [u32; 4096] = base3_table(true);

/// Where window `w` of a position with men `white` and `black` reads its value:
/// `(table * STATES + configuration, sign)`. A configuration is `Σ 3^j · state(j)` over
/// the squares `j` in the order of [`window_bits`], state 0 empty, 1 a white man, 2 a
/// black man; a bottom window is read as its top image with the colours exchanged, and
/// counts negatively.
#[inline(always)]
pub fn entry(w: usize, white: u64, black: u64) -> (usize, i32) {
    let (wb, bb) = (window_bits(white, w), window_bits(black, w));
    if w < TABLES {
        (w * STATES + (BASE3[wb] + 2 * BASE3[bb]) as usize, 1)
    } else {
        let t = WINDOWS - 1 - w;
        (
            t * STATES + (BASE3_REVERSED[bb] + 2 * BASE3_REVERSED[wb]) as usize,
            -1,
        )
    }
}

/// The ghost-layout bit of square `j` (0 to 11, in [`window_bits`]'s order) of window `w`.
fn square_bit(w: usize, j: usize) -> u32 {
    SHIFTS[w][j / 2] + (j % 2) as u32
}

/// Whether window `w`'s square `j` is the one window that answers for that square when
/// per-square values are folded into the tables (see [`fold_square_values`]): each of
/// the 50 squares has exactly one, and the half turn maps the squares of window `w` onto
/// those of window `7 - w`. The top windows take the top five rows, the bottom ones the
/// bottom five; in a row of five squares the top windows take square `k` for window `k`
/// (and window 3 the fifth too), the bottom ones their mirror image.
fn answers_for(w: usize, j: usize) -> bool {
    if w >= TABLES {
        return answers_for(WINDOWS - 1 - w, 11 - j);
    }
    let (row, right) = (j / 2, j % 2 == 1);
    row < 5 && (!right || w == TABLES - 1)
}

/// Add to the tables (`table`, (opening, endgame) per entry as [`entry`] indexes them)
/// the per-square values of the men: `value(bit)` is what a white man on `bit` adds, in
/// the tables' units; a black man takes the value of its half-turn image, negated. Each
/// square is counted by exactly one window ([`answers_for`]), so the windows' sum over a
/// position grows by exactly the men's per-square sum, and the evaluation need not add
/// those up piece by piece. The symmetry of the tables requires the values of the two
/// colours to mirror each other. Returns false, with `table` unchanged, if an entry would
/// leave 16 bits.
pub fn fold_square_values(table: &mut [[i16; 2]], value: impl Fn(u32) -> [i32; 2]) -> bool {
    assert_eq!(table.len(), TABLES * STATES, "rectangle table size");
    const HALF: usize = 729; // 3^6: the configurations of six squares
    let mut folded = table.to_vec();
    for (t, entries) in folded.chunks_mut(STATES).enumerate() {
        // What a white (state 1) or black (state 2) man on square j adds in window t; a
        // black man in a top window is a white one's half-turn image, negated.
        let add = |j: usize, state: usize| -> [i32; 2] {
            if !answers_for(t, j) {
                return [0, 0];
            }
            if state == 1 {
                value(square_bit(t, j))
            } else {
                let [o, e] = value(square_bit(WINDOWS - 1 - t, 11 - j));
                [-o, -e]
            }
        };
        // The sums over the six low and the six high squares, for every configuration
        // of each.
        let sums = |first: usize| -> Vec<[i32; 2]> {
            (0..HALF)
                .map(|c| {
                    let mut sum = [0, 0];
                    let mut rest = c;
                    for j in first..first + 6 {
                        let state = rest % 3;
                        rest /= 3;
                        if state != 0 {
                            let [o, e] = add(j, state);
                            sum = [sum[0] + o, sum[1] + e];
                        }
                    }
                    sum
                })
                .collect()
        };
        let (low, high) = (sums(0), sums(6));
        for (c, entry) in entries.iter_mut().enumerate() {
            let ([lo, le], [ho, he]) = (low[c % HALF], high[c / HALF]);
            let sum = [entry[0] as i32 + lo + ho, entry[1] as i32 + le + he];
            let fits = |v: i32| i16::try_from(v).ok();
            match (fits(sum[0]), fits(sum[1])) {
                (Some(o), Some(e)) => *entry = [o, e],
                _ => return false,
            }
        }
    }
    table.copy_from_slice(&folded);
    true
}

/// A configuration as text: six rows of two squares, top row first, left square first,
/// `.` empty, `w` a white man, `b` a black man, e.g. `../.b/bb/../w./ww`.
pub fn configuration_text(index: usize) -> String {
    window_text(index % STATES, 12, ['.', 'w', 'b'])
}

/// The largest value an entry may hold, in 1/PATTERN_UNIT centi-men.
const LIMIT: i32 = PATTERN_LIMIT * PATTERN_UNIT;

/// Characters of one `rectangle_data` line.
const LINE: usize = 4000;

/// The tables as weights-file lines: `rectangles ENTRIES CHECKSUM`, then
/// `rectangle_data BASE64` lines. The data are the non-zero entries in order, each as
/// the gap since the previous one (LEB128), then its opening and endgame values (zigzag
/// LEB128, 1/PATTERN_UNIT centi-men); CHECKSUM is the FNV-1a hash of those bytes, so a
/// damaged or cut file is refused rather than read wrong.
pub fn encode(values: &[i32]) -> String {
    assert_eq!(values.len(), PARAMS, "rectangle parameter count");
    let per_phase = TABLES * STATES;
    let (mut bytes, mut entries, mut last) = (Vec::new(), 0usize, None::<usize>);
    for k in 0..per_phase {
        let (open, end) = (values[k], values[per_phase + k]);
        if open == 0 && end == 0 {
            continue;
        }
        let gap = match last {
            Some(l) => k - l - 1,
            None => k,
        };
        put_varint(&mut bytes, gap as u64);
        put_varint(&mut bytes, zigzag(open));
        put_varint(&mut bytes, zigzag(end));
        last = Some(k);
        entries += 1;
    }
    let mut out = format!("rectangles {entries} {:016x}\n", fnv(&bytes));
    let text = base64(&bytes);
    for chunk in text.as_bytes().chunks(LINE) {
        out.push_str("rectangle_data ");
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// What a `rectangles ENTRIES CHECKSUM` line announces.
#[derive(Clone, Copy, Debug)]
pub struct Announced {
    pub entries: usize,
    pub checksum: u64,
}

/// Parse the values of a `rectangles` line.
pub fn parse_header(values: &[&str]) -> Result<Announced, String> {
    let shape = || {
        format!(
            "expected 'rectangles ENTRIES CHECKSUM', found 'rectangles {}'",
            values.join(" ")
        )
    };
    match values {
        [n, c] => {
            let entries: usize = n.parse().map_err(|_| shape())?;
            if entries > TABLES * STATES {
                return Err(format!(
                    "rectangles: {entries} entries, more than the {} there are",
                    TABLES * STATES
                ));
            }
            let checksum = u64::from_str_radix(c, 16).map_err(|_| shape())?;
            Ok(Announced { entries, checksum })
        }
        _ => Err(shape()),
    }
}

/// The tables from the concatenated base64 of the `rectangle_data` lines, checked
/// against what the `rectangles` line announced.
pub fn decode(announced: Announced, text: &str) -> Result<Vec<i32>, String> {
    let bytes = unbase64(text)?;
    if fnv(&bytes) != announced.checksum {
        return Err(format!(
            "the rectangle data's checksum is {:016x}, the 'rectangles' line says {:016x} (a damaged or cut file)",
            fnv(&bytes),
            announced.checksum
        ));
    }
    let per_phase = TABLES * STATES;
    let mut values = vec![0i32; PARAMS];
    let (mut at, mut next, mut entries) = (0usize, 0usize, 0usize);
    while at < bytes.len() {
        let gap = get_varint(&bytes, &mut at)?;
        let k = next
            .checked_add(usize::try_from(gap).unwrap_or(usize::MAX))
            .filter(|&k| k < per_phase)
            .ok_or_else(|| format!("rectangle entry {} lies past the tables", entries + 1))?;
        for phase in 0..PHASES {
            let v = unzigzag(get_varint(&bytes, &mut at)?);
            if v.unsigned_abs() > LIMIT as u32 {
                return Err(format!(
                    "rectangle entry {} ({}) is {v}, beyond ±{LIMIT} (±{PATTERN_LIMIT} centi-men)",
                    entries + 1,
                    configuration_text(k)
                ));
            }
            values[phase * per_phase + k] = v;
        }
        next = k + 1;
        entries += 1;
    }
    if entries != announced.entries {
        return Err(format!(
            "the rectangle data hold {entries} entries, the 'rectangles' line says {}",
            announced.entries
        ));
    }
    Ok(values)
}

fn zigzag(v: i32) -> u64 {
    ((v << 1) ^ (v >> 31)) as u32 as u64
}

fn unzigzag(u: u64) -> i32 {
    let u = u as u32;
    ((u >> 1) as i32) ^ -((u & 1) as i32)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *bytes
            .get(*at)
            .ok_or("the rectangle data end inside an entry")?;
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("a number in the rectangle data runs past 5 bytes".into())
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 without padding.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in text.bytes().enumerate() {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .ok_or_else(|| format!("rectangle data character {} is not base64", i + 1))?;
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("the rectangle data's base64 is cut inside a byte".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windows_cover_the_board_and_mirror_under_the_half_turn() {
        // Every one of the 50 squares lies in some window, and square s of window w is
        // square 11 - s of window 7 - w after the half turn (bit b -> the bit of square
        // 51 - n, n the square's number).
        let bit_of = |n: u32| n - 1 + (n - 1) / 10; // ghost layout: a gap every ten squares
        let square_of = |b: u32| b - b / 11 + 1;
        let mut covered = 0u64;
        for w in 0..WINDOWS {
            for j in 0..12 {
                let b = SHIFTS[w][j / 2] + (j % 2) as u32;
                let image = SHIFTS[WINDOWS - 1 - w][(11 - j) / 2] + ((11 - j) % 2) as u32;
                assert_eq!(bit_of(51 - square_of(b)), image, "window {w} square {j}");
                covered |= 1 << b;
            }
        }
        let board: u64 = (1..=50).map(|n| 1u64 << bit_of(n)).sum();
        assert_eq!(covered, board);
    }

    #[test]
    fn tables_round_trip_through_the_file_lines() {
        let mut values = vec![0i32; PARAMS];
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (x >> 20) as usize % PARAMS;
            values[k] = ((x >> 50) as i32 % (2 * LIMIT + 1)) - LIMIT;
        }
        values[0] = LIMIT;
        values[PARAMS - 1] = -LIMIT;
        let text = encode(&values);
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(head[0], "rectangles");
        let announced = parse_header(&head[1..]).unwrap();
        let data: String = lines
            .map(|l| l.strip_prefix("rectangle_data ").unwrap())
            .collect();
        assert_eq!(decode(announced, &data).unwrap(), values);
        // A cut or changed character is refused.
        let cut = &data[..data.len() - 3];
        assert!(decode(announced, cut).unwrap_err().contains("checksum"));
        let mut changed = data.clone().into_bytes();
        changed[10] = if changed[10] == b'A' { b'B' } else { b'A' };
        let changed = String::from_utf8(changed).unwrap();
        assert!(
            decode(announced, &changed)
                .unwrap_err()
                .contains("checksum")
        );
        assert!(
            decode(announced, "ab!d")
                .unwrap_err()
                .contains("character 3 is not base64")
        );
        assert!(parse_header(&["12"]).is_err());
        assert!(
            parse_header(&["99999999", "0"])
                .unwrap_err()
                .contains("more than")
        );
    }

    #[test]
    fn each_square_is_answered_for_by_one_window_and_its_image_by_the_mirror() {
        let mut count = [0; 64];
        for w in 0..WINDOWS {
            for j in 0..12 {
                if answers_for(w, j) {
                    count[square_bit(w, j) as usize] += 1;
                }
                // The half turn maps window w's square j onto window 7 - w's square 11 - j.
                assert_eq!(answers_for(w, j), answers_for(WINDOWS - 1 - w, 11 - j));
            }
        }
        let bit_of = |n: u32| n - 1 + (n - 1) / 10;
        for n in 1..=50 {
            assert_eq!(count[bit_of(n) as usize], 1, "square {n}");
        }
        assert_eq!(count.iter().sum::<i32>(), 50);
    }

    #[test]
    fn configurations_read_as_text() {
        // White men on the window's first two squares, a black man on its last.
        let index = 1 + 3 + 2 * 3usize.pow(11);
        assert_eq!(configuration_text(index), "ww/../../../../.b");
    }
}
