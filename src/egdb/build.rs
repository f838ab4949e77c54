//! Building the database by retrograde analysis, one material slice at a time.
//!
//! A slice's moves lead either out of it (a capture, or a man crowned: both reach slices
//! built before, see [`Slice::with_pieces`]) or within it (a quiet move that crowns
//! nothing). The first pass settles what the moves out of the slice decide and counts the
//! moves within it; then every settled position is taken back one quiet move to its
//! predecessors: a lost position makes each predecessor won, a won one takes one option
//! from each predecessor, and a predecessor with no option left is lost. What is never
//! settled is a draw.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU8, AtomicU64};

use super::index::{EgdbBoard, Geometry, Slice, Squares};
use super::{Database, Wld};
use crate::parallel;
use crate::rules::{Bits, Color};

/// Build states of one position.
const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
const INVALID: u8 = 3;
/// In the option counter: a move out of the slice reaches a draw, so the position can
/// never be lost.
const ESCAPE: u8 = 0x80;

/// Positions per parallel work unit of the first pass.
const CHUNK: usize = 1 << 14;

/// The values of every position of `slice`, given the database of the slices before it.
pub fn solve_slice<P: EgdbBoard>(db: &Database, geo: &Geometry, slice: &Slice) -> Vec<Wld> {
    match men_advance(geo) {
        Some(advance) if slice.men[0] + slice.men[1] >= 2 => {
            solve_by_men::<P>(db, geo, slice, &advance)
        }
        _ => solve_by_take_back::<P>(db, geo, slice),
    }
}

/// The whole slice by retrograde analysis at once: for slices of kings alone (or one
/// man), and for boards whose men also move sideways (turkish).
fn solve_by_take_back<P: EgdbBoard>(db: &Database, geo: &Geometry, slice: &Slice) -> Vec<Wld> {
    let size = geo.size(slice) as usize;
    // Atomic so that both passes run on every thread: a byte each, as plain bytes are.
    // On huge pages: the sweeps read and write them at random (see `crate::memory`).
    let state = huge_vec(size, || AtomicU8::new(UNKNOWN));
    let options = huge_vec(size, || AtomicU8::new(0));

    // 1. Moves out of the slice, and the count of moves within it.
    parallel::for_each(size.div_ceil(CHUNK), &|c| {
        let chunk = c * CHUNK..(c * CHUNK + CHUNK).min(size);
        let (state, options) = (&state[chunk.clone()], &options[chunk]);
        let mut moves = Vec::new();
        for j in 0..state.len() {
            let Some(sq) = geo.decode(slice, (c * CHUNK + j) as u64) else {
                state[j].store(INVALID, Relaxed);
                continue;
            };
            let pos: P = geo.position(&sq);
            pos.generate(&mut moves);
            let mut within = 0u8;
            let mut escape = false;
            let mut win = false;
            for m in &moves {
                if !m.is_capture() && !m.promote {
                    within += 1;
                    continue;
                }
                match db.probe_squares(&geo.squares(&pos.play(m))) {
                    Some(Wld::Loss) => win = true,
                    Some(Wld::Win) => {}
                    Some(Wld::Draw) => escape = true,
                    None => unreachable!("slices are built in order"),
                }
            }
            let settled = first_state(win, within, escape);
            state[j].store(settled, Relaxed);
            options[j].store(within | if escape { ESCAPE } else { 0 }, Relaxed);
        }
    });

    // 2. Take settled positions back, until nothing new is settled. The positions
    // waiting to be taken back are bits of a bitmap rather than indices on a stack: an
    // eighth of a byte a position however many wait (a stack of indices took up to four
    // bytes a position, and eight past 2^32 positions, the size of the largest 10x10
    // six-piece slices). Each sweep shares the bitmap's words out among the threads and
    // takes every bit it finds; a bit set where a sweep has passed waits for the next
    // one, and a sweep that finds nothing ends the build. The values do not depend on
    // the order in which settled positions are taken back, so neither on the threads:
    // a position changes state once, from unknown, by a compare-and-swap, and only the
    // thread that changed it sets its bit.
    let mut waiting = huge_vec(size.div_ceil(64), || AtomicU64::new(0));
    parallel::for_each_chunk_mut(&mut waiting[..], CHUNK / 64, &|c, words| {
        for (k, bits) in words.iter_mut().enumerate() {
            let first = (c * CHUNK / 64 + k) * 64;
            for (b, s) in state[first..(first + 64).min(size)].iter().enumerate() {
                if matches!(s.load(Relaxed), WIN | LOSS) {
                    *bits.get_mut() |= 1 << b;
                }
            }
        }
    });
    let radices = geo.radices(slice);
    loop {
        let taken = parallel::sum(waiting.len().div_ceil(SWEEP_WORDS), &|c| {
            let words =
                &waiting[c * SWEEP_WORDS..(c * SWEEP_WORDS + SWEEP_WORDS).min(waiting.len())];
            let mut taken = 0;
            for (k, word) in words.iter().enumerate() {
                loop {
                    let mut bits = word.swap(0, Acquire);
                    if bits == 0 {
                        break;
                    }
                    while bits != 0 {
                        taken += 1;
                        let i = (c * SWEEP_WORDS + k) * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        take_back::<P>(geo, slice, &radices, &state, &options, &waiting, i);
                    }
                }
            }
            taken
        });
        if taken == 0 {
            break;
        }
    }
    // Freed before the values are made, so that the build never holds more than the
    // state, the counters and the bitmap at once (see `resume::build_bytes`).
    drop(waiting);
    drop(options);
    values(state)
}

/// A position's state after the first pass: won by a move to a lost position, lost with
/// no move in the slice and none out of it to a draw, else unknown.
fn first_state(win: bool, within: u8, escape: bool) -> u8 {
    if win {
        WIN
    } else if within == 0 && !escape {
        LOSS
    } else {
        UNKNOWN
    }
}

/// The values the build states stand for: what was never settled is a draw.
fn values(state: Vec<AtomicU8>) -> Vec<Wld> {
    state
        .into_iter()
        .map(|s| match s.into_inner() {
            WIN => Wld::Win,
            LOSS => Wld::Loss,
            _ => Wld::Draw,
        })
        .collect()
}

/// How far each square is along a man's way to its crown, per colour, if every quiet man
/// move of the board goes strictly further (a man's place in the index follows the
/// square numbers, so one direction of the square numbers per colour); None where men
/// also move sideways (turkish).
fn men_advance(geo: &Geometry) -> Option<[[u16; 64]; 2]> {
    let n = geo.squares;
    let mut advance = [[0u16; 64]; 2];
    for c in [Color::White, Color::Black] {
        let (mut up, mut down) = (true, true);
        for to in 0..n {
            for u in geo.unmoves(c, false, to) {
                up &= to > u.from as usize;
                down &= to < u.from as usize;
            }
        }
        if up == down {
            return None;
        }
        for (s, far) in advance[c as usize][..n].iter_mut().enumerate() {
            *far = if up { s } else { n - 1 - s } as u16;
        }
    }
    Some(advance)
}

/// A slice with men, one configuration of its men at a time. The men's squares are the
/// leading digits of the index, so each configuration is one run of indices (a block)
/// holding every placing of the kings. A man's quiet move only goes forward: it leads to
/// a block whose men stand further on, and none leads back. So the blocks are solved
/// from the most advanced down, each complete before any block that moves into it: in a
/// block, a man's move reads its successor's final value, and only the kings' moves stay
/// inside, which a retrograde pass over the block settles. The blocks of one level of
/// advance (the sum over the men) are independent and share the threads.
///
/// Beside [`solve_by_take_back`] on a whole slice, the work is the same first pass but
/// the take-back stays within a block of a few thousand to a few million positions that
/// the caches hold, instead of reaching across gigabytes for every predecessor, and the
/// men's moves are never taken back at all.
fn solve_by_men<P: EgdbBoard>(
    db: &Database,
    geo: &Geometry,
    slice: &Slice,
    advance: &[[u16; 64]; 2],
) -> Vec<Wld> {
    let size = geo.size(slice) as usize;
    let state = huge_vec(size, || AtomicU8::new(UNKNOWN));
    let radices = geo.radices(slice);
    let block = (radices[2] * radices[3] * 2) as usize;
    // The men of each digit value, and how far they have come.
    let men = |c: Color, digits: u64| -> Vec<(u64, u32)> {
        let k = slice.men[c as usize] as usize;
        (0..digits)
            .map(|rank| {
                let mask = geo.men_of_rank(c, k, rank);
                let mut far = 0u32;
                let mut m = mask;
                while m != 0 {
                    far += advance[c as usize][m.trailing_zeros() as usize] as u32;
                    m &= m - 1;
                }
                (mask, far)
            })
            .collect()
    };
    let black = men(Color::Black, radices[0]);
    let white = men(Color::White, radices[1]);
    let white_top = white.iter().map(|w| w.1).max().unwrap_or(0) as usize;
    let mut white_at = vec![Vec::new(); white_top + 1];
    for (rank, w) in white.iter().enumerate() {
        white_at[w.1 as usize].push(rank as u64);
    }
    let top = white_top + black.iter().map(|b| b.1).max().unwrap_or(0) as usize;
    let mut blocks = Vec::new();
    for level in (0..=top).rev() {
        blocks.clear();
        for (b, &(black_mask, far)) in black.iter().enumerate() {
            let Some(w) = level.checked_sub(far as usize) else {
                continue;
            };
            for &rank_wm in white_at.get(w).map_or(&[][..], |v| &v[..]) {
                if white[rank_wm as usize].0 & black_mask == 0 {
                    blocks.push(b as u64 * radices[1] + rank_wm);
                }
            }
        }
        // A scratch for each block: its vectors grow to the block's size once, in a
        // block's worth of work.
        parallel::for_each(blocks.len(), &|i| {
            let start = blocks[i] as usize * block;
            let mut scratch = BlockScratch::default();
            solve_block::<P>(db, geo, slice, &radices, &state, start, block, &mut scratch)
        });
    }
    values(state)
}

#[derive(Default)]
struct BlockScratch<B> {
    moves: Vec<crate::rules::Move<B>>,
    options: Vec<u8>,
    settled: Vec<u32>,
}

/// One block of [`solve_by_men`]: the positions `start..start + len`, every block their
/// men's moves reach already solved.
#[allow(clippy::too_many_arguments)]
fn solve_block<P: EgdbBoard>(
    db: &Database,
    geo: &Geometry,
    slice: &Slice,
    radices: &[u64; 4],
    state: &[AtomicU8],
    start: usize,
    len: usize,
    scratch: &mut BlockScratch<P::B>,
) {
    let BlockScratch {
        moves,
        options,
        settled,
    } = scratch;
    options.clear();
    options.resize(len, 0);
    settled.clear();
    // The block's men, from its first index (the kings there on their first places).
    // Its positions are then the kings' placings, in the index's order: White's kings'
    // digit, Black's, the side to move (see `Geometry::index_with`); only the kings'
    // digits are decoded and encoded here, the men's digits are the block's.
    let first = geo
        .decode(slice, start as u64)
        .expect("the men of a block stand apart");
    let (white_men, black_men) = (first.white & !first.kings, first.black & !first.kings);
    let men = white_men | black_men;
    let [white_kings, black_kings] = [slice.kings[0] as usize, slice.kings[1] as usize];
    let squares = |wk: u64, bk: u64, l: usize| Squares {
        white: white_men | wk,
        black: black_men | bk,
        kings: wk | bk,
        side: if l & 1 == 0 {
            Color::White
        } else {
            Color::Black
        },
    };
    let at = |l: usize| {
        let k = (l >> 1) as u64;
        let wk = geo.kings_of_rank(men, white_kings, k / radices[3]);
        let bk = geo.kings_of_rank(men | wk, black_kings, k % radices[3]);
        squares(wk, bk, l)
    };
    let local = |p: &Squares| {
        let (wk, bk) = geo.king_ranks(men, p.white & p.kings, p.black & p.kings);
        (((wk * radices[3] + bk) << 1) | (p.side == Color::Black) as u64) as usize
    };
    let mut l = 0;
    for rank_wk in 0..radices[2] {
        let wk = geo.kings_of_rank(men, white_kings, rank_wk);
        for rank_bk in 0..radices[3] {
            let bk = geo.kings_of_rank(men | wk, black_kings, rank_bk);
            for _side in 0..2 {
                let sq = squares(wk, bk, l);
                debug_assert_eq!(geo.index_with(radices, &sq) as usize, start + l);
                let pos: P = geo.position(&sq);
                pos.generate(moves);
                let kings = pos.kings();
                let mut within = 0u8;
                let mut escape = false;
                let mut win = false;
                for m in moves.iter() {
                    let value = if m.is_capture() || m.promote {
                        db.probe_squares(&geo.squares(&pos.play(m)))
                            .expect("slices are built in order")
                    } else if kings.has(m.from as u32) {
                        within += 1;
                        continue;
                    } else {
                        // A man's step: to a block solved before this one.
                        let next = geo.index_with(radices, &geo.squares(&pos.play(m)));
                        match state[next as usize].load(Relaxed) {
                            WIN => Wld::Win,
                            LOSS => Wld::Loss,
                            _ => Wld::Draw,
                        }
                    };
                    match value {
                        Wld::Loss => win = true,
                        Wld::Win => {}
                        Wld::Draw => escape = true,
                    }
                }
                let value = first_state(win, within, escape);
                if value != UNKNOWN {
                    state[start + l].store(value, Relaxed);
                    settled.push(l as u32);
                }
                options[l] = within | if escape { ESCAPE } else { 0 };
                l += 1;
            }
        }
    }
    debug_assert_eq!(l, len);
    // The kings' moves, taken back within the block.
    while let Some(l) = settled.pop() {
        let sq = at(l as usize);
        let lost = state[start + l as usize].load(Relaxed) == LOSS;
        for_each_unmove::<P>(geo, &sq, true, |p, pos| {
            let j = local(&p);
            debug_assert_eq!(
                geo.index_with(radices, &p) as usize,
                start + j,
                "a king's move stays in its block"
            );
            if state[start + j].load(Relaxed) != UNKNOWN || pos.has_capture() {
                return;
            }
            let settled_now = if lost {
                WIN
            } else {
                let o = &mut options[j];
                *o -= 1;
                if *o != 0 {
                    return;
                }
                LOSS
            };
            state[start + j].store(settled_now, Relaxed);
            settled.push(j as u32);
        });
    }
}

/// `n` values on huge pages; the memory was checked against `--memory` before the slice
/// began (see `resume::build_bytes`).
fn huge_vec<T>(n: usize, fill: impl FnMut() -> T) -> Vec<T> {
    crate::memory::try_huge_vec(n, fill).expect("memory for the slice being built")
}

/// Bitmap words per parallel work unit of a sweep (64 positions a word).
const SWEEP_WORDS: usize = 1 << 10;

/// Takes the settled position `i` back one move: a lost one makes each unknown
/// predecessor won; a won one takes an option from each, and one left with none is lost.
/// Whatever this settles waits in `waiting` to be taken back in its turn.
///
/// Most of a build's time is here, once for every settled position and each of its
/// un-moves (a 10x10 king has up to 17): the slice's radices come once from the caller,
/// and a predecessor is tested for a capture only when it is still unknown.
fn take_back<P: EgdbBoard>(
    geo: &Geometry,
    slice: &Slice,
    radices: &[u64; 4],
    state: &[AtomicU8],
    options: &[AtomicU8],
    waiting: &[AtomicU64],
    i: usize,
) {
    let sq = geo
        .decode(slice, i as u64)
        .expect("a settled index is valid");
    let lost = state[i].load(Relaxed) == LOSS;
    for_each_unmove::<P>(geo, &sq, false, |p, pos| {
        // A quiet move that crowns nothing stays in the slice: the same radices.
        let j = geo.index_with(radices, &p) as usize;
        if state[j].load(Relaxed) != UNKNOWN || pos.has_capture() {
            return;
        }
        let settled = if lost {
            WIN
        } else {
            // Each won successor takes one option, once: never more than there were.
            if options[j].fetch_sub(1, Relaxed) != 1 {
                return;
            }
            LOSS
        };
        if state[j]
            .compare_exchange(UNKNOWN, settled, Relaxed, Relaxed)
            .is_ok()
        {
            waiting[j / 64].fetch_or(1 << (j % 64), Release);
        }
    });
}

/// Every position one quiet, uncrowning move before `sq` in which that move was legal:
/// the side that just moved takes one of its pieces back along a quiet move the rules
/// core gives it (see [`Geometry::with_unmoves`]) to an empty square over empty
/// squares, and had no capture there (captures are compulsory).
#[cfg(test)]
pub(crate) fn for_each_predecessor<P: EgdbBoard>(
    geo: &Geometry,
    sq: &Squares,
    mut f: impl FnMut(Squares),
) {
    for_each_unmove::<P>(geo, sq, false, |p, pos| {
        if !pos.has_capture() {
            f(p)
        }
    });
}

/// [`for_each_predecessor`] for the kings' moves alone: the positions one king move
/// before `sq`.
pub(crate) fn for_each_king_predecessor<P: EgdbBoard>(
    geo: &Geometry,
    sq: &Squares,
    mut f: impl FnMut(Squares),
) {
    for_each_unmove::<P>(geo, sq, true, |p, pos| {
        if !pos.has_capture() {
            f(p)
        }
    });
}

/// The candidates of [`for_each_predecessor`] before its capture test (with `kings_only`,
/// those of the kings' moves alone), each with its position for the rules core: `sq`'s
/// board bits with the piece moved back, rather than every square converted again.
#[inline(always)]
fn for_each_unmove<P: EgdbBoard>(
    geo: &Geometry,
    sq: &Squares,
    kings_only: bool,
    mut f: impl FnMut(Squares, P),
) {
    let mover = sq.side.opposite();
    let (own, other) = match mover {
        Color::White => (sq.white, sq.black),
        Color::Black => (sq.black, sq.white),
    };
    let here: P = geo.position(sq);
    let (white_bits, black_bits, king_bits) = (here.white(), here.black(), here.kings());
    let occupied = own | other;
    let mut pieces = if kings_only { own & sq.kings } else { own };
    while pieces != 0 {
        let s = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let king = sq.kings & (1 << s) != 0;
        let at: P::B = geo.board_bit(s);
        for u in geo.unmoves(mover, king, s) {
            if occupied & (1 << u.from | u.between) != 0 {
                continue;
            }
            let step = 1u64 << s | 1u64 << u.from;
            let step_bits = at | geo.board_bit(u.from as usize);
            let moved = own ^ step;
            let kings = if king { sq.kings ^ step } else { sq.kings };
            let king_bits = if king {
                king_bits ^ step_bits
            } else {
                king_bits
            };
            let (white, black, pos) = match mover {
                Color::White => (
                    moved,
                    other,
                    P::from_bits(white_bits ^ step_bits, black_bits, king_bits, mover),
                ),
                Color::Black => (
                    other,
                    moved,
                    P::from_bits(white_bits, black_bits ^ step_bits, king_bits, mover),
                ),
            };
            let p = Squares {
                white,
                black,
                kings,
                side: mover,
            };
            f(p, pos);
        }
    }
}

/// Solve every slice of `slice`'s kind by plain iteration to a fixed point, without
/// predecessors: slow, but independent of the retrograde logic, so tests can compare.
#[cfg(test)]
pub fn solve_slice_by_iteration<P: EgdbBoard>(
    db: &Database,
    geo: &Geometry,
    slice: &Slice,
) -> Vec<Wld> {
    let size = geo.size(slice) as usize;
    let mut value: Vec<Option<Wld>> = vec![None; size];
    let positions: Vec<Option<P>> = (0..size as u64)
        .map(|i| geo.decode(slice, i).map(|s| geo.position(&s)))
        .collect();
    let mut moves = Vec::new();
    loop {
        let mut changed = false;
        for i in 0..size {
            let Some(pos) = positions[i] else { continue };
            if value[i].is_some() {
                continue;
            }
            pos.generate(&mut moves);
            let mut win = false;
            let mut all_lose = true;
            for m in &moves {
                let after = pos.play(m);
                let next = geo.squares(&after);
                let v = if next.slice() == *slice {
                    value[geo.index(&next) as usize]
                } else {
                    // A built slice: captures there are resolved by the prober.
                    db.probe(&after)
                };
                match v {
                    Some(Wld::Loss) => win = true,
                    Some(Wld::Win) => {}
                    _ => all_lose = false,
                }
            }
            if win {
                value[i] = Some(Wld::Win);
                changed = true;
            } else if all_lose {
                value[i] = Some(Wld::Loss);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    value.into_iter().map(|v| v.unwrap_or(Wld::Draw)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{ALL_VARIANTS, Bits};

    /// Positions of the slices of 3 and 4 pieces, a stride through each.
    fn sample_positions(geo: &Geometry, per_slice: u64) -> Vec<Squares> {
        let mut out = Vec::new();
        for n in 3..=4 {
            for slice in Slice::with_pieces(n) {
                let size = geo.size(&slice);
                let step = (size / per_slice).max(1) | 1;
                out.extend(
                    (0..size)
                        .step_by(step as usize)
                        .filter_map(|i| geo.decode(&slice, i)),
                );
            }
        }
        out
    }

    /// The predecessors by brute force from the rules core: every position with one of
    /// the mover's pieces elsewhere from which `generate` offers a quiet, uncrowning move
    /// that `play`s into `sq`.
    fn brute_predecessors<P: EgdbBoard>(geo: &Geometry, sq: &Squares) -> Vec<u64> {
        let mover = sq.side.opposite();
        let own = if mover == Color::White {
            sq.white
        } else {
            sq.black
        };
        let target: P = geo.position(sq);
        let mut out = Vec::new();
        let mut moves = Vec::new();
        for s in (0..geo.squares).filter(|&s| own & 1 << s != 0) {
            let king = sq.kings & 1 << s != 0;
            for f in (0..geo.squares).filter(|&f| (sq.white | sq.black) & 1 << f == 0) {
                if !king && !geo.man_may_stand(mover, f) {
                    continue;
                }
                let step = 1u64 << s | 1u64 << f;
                let mut p = *sq;
                p.side = mover;
                match mover {
                    Color::White => p.white ^= step,
                    Color::Black => p.black ^= step,
                }
                if king {
                    p.kings ^= step;
                }
                let pos: P = geo.position(&p);
                pos.generate(&mut moves);
                if moves
                    .iter()
                    .any(|m| !m.is_capture() && !m.promote && pos.play(m) == target)
                {
                    out.push(geo.index(&p));
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn the_values_do_not_depend_on_the_threads() {
        // Both passes share positions out among the threads, and the sweeps settle them
        // in whatever order the threads reach them: one thread and several must build
        // the same tables, to the byte. Russian: flying kings take back far, so the
        // sweeps are long and the threads meet on the same predecessors.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| Database::build(crate::rules::Variant::Russian, 4, &mut |_, _, _| {}))
            .unwrap();
        let many = super::super::four_piece_database(crate::rules::Variant::Russian);
        let stored = one.tables.iter().filter(|t| t.is_some()).count();
        assert!(stored > 30, "{stored}");
        assert!(one.tables == many.tables);
    }

    #[test]
    fn the_men_blocks_give_the_values_of_the_whole_slice_take_back() {
        // The two solvers share the first pass's rules but little else: one takes every
        // quiet move back across the whole slice, the other solves a configuration of
        // men at a time, most advanced first, taking back the kings' moves alone.
        fn check<P: EgdbBoard>() -> usize {
            let db = super::super::four_piece_database(P::VARIANT);
            let geo = Geometry::with_unmoves::<P>();
            let advance = men_advance(&geo).expect("men only go forward");
            let mut decided = 0;
            for slice in Slice::with_pieces(4)
                .into_iter()
                .filter(|s| s.men[0] + s.men[1] >= 2)
            {
                let whole = solve_by_take_back::<P>(db, &geo, &slice);
                assert!(
                    solve_by_men::<P>(db, &geo, &slice, &advance) == whole,
                    "{} {slice:?}",
                    P::VARIANT
                );
                decided += whole.iter().filter(|v| **v != Wld::Draw).count();
            }
            decided
        }
        use crate::rules::{English, Position, Russian};
        assert!(check::<Position<English>>() > 100_000);
        assert!(check::<Position<Russian>>() > 100_000);
    }

    #[test]
    fn men_go_forward_on_every_board_but_the_turkish() {
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| super::super::unsupported(*v).is_none())
        {
            let forward = crate::with_egdb_board!(v, P => {
                men_advance(&Geometry::with_unmoves::<P>()).is_some()
            });
            assert_eq!(forward, v != crate::rules::Variant::Turkish, "{v}");
        }
    }

    #[test]
    fn predecessors_are_exactly_the_rules_cores_for_every_variant() {
        fn check<P: EgdbBoard>() -> usize {
            let geo = Geometry::with_unmoves::<P>();
            let mut checked = 0;
            for sq in sample_positions(&geo, 60) {
                let mut fast = Vec::new();
                for_each_predecessor::<P>(&geo, &sq, |p| fast.push(geo.index(&p)));
                fast.sort_unstable();
                assert_eq!(
                    fast,
                    brute_predecessors::<P>(&geo, &sq),
                    "{} {sq:?}",
                    P::VARIANT
                );
                checked += fast.len();
            }
            checked
        }
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| super::super::unsupported(*v).is_none())
        {
            let n = crate::with_egdb_board!(v, P => check::<P>());
            assert!(n > 1000, "{v}: {n}");
        }
    }

    #[test]
    fn every_move_out_of_a_slice_reaches_a_slice_the_builder_keeps() {
        // The builder keeps a finished slice in full only while a slice still to build
        // `reaches` it: a move out of a slice into one it does not reach would read a
        // table no longer held in full (where captures have no value).
        fn check<P: EgdbBoard>() -> usize {
            let geo = Geometry::of::<P>();
            let mut moves = Vec::new();
            let mut out_of_slice = 0;
            for sq in sample_positions(&geo, 200) {
                let from = sq.slice();
                let pos: P = geo.position(&sq);
                pos.generate(&mut moves);
                for m in &moves {
                    let to = geo.squares(&pos.play(m)).slice();
                    if to == from || to.side_pieces(sq.side.opposite()) == 0 {
                        continue;
                    }
                    out_of_slice += 1;
                    assert!(
                        from.reaches(&to),
                        "{}: {from:?} to {to:?} by a move of {sq:?}",
                        P::VARIANT
                    );
                }
            }
            out_of_slice
        }
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| super::super::unsupported(*v).is_none())
        {
            let n = crate::with_egdb_board!(v, P => check::<P>());
            assert!(n > 1000, "{v}: {n}");
        }
        // And it is no wider than it needs: a slice never reaches itself, one move
        // never takes pieces of both sides, gives the mover a piece or crowns two men.
        let s = |wm, wk, bm, bk| Slice {
            men: [wm, bm],
            kings: [wk, bk],
        };
        assert!(!s(1, 1, 1, 1).reaches(&s(1, 1, 1, 1)));
        assert!(s(1, 1, 1, 1).reaches(&s(0, 2, 1, 1)));
        assert!(s(1, 1, 1, 1).reaches(&s(1, 1, 0, 1)));
        assert!(s(1, 1, 1, 1).reaches(&s(0, 2, 0, 1)));
        assert!(s(1, 1, 1, 1).reaches(&s(0, 1, 1, 1)));
        assert!(!s(1, 1, 1, 1).reaches(&s(0, 1, 0, 1)));
        assert!(!s(1, 1, 1, 1).reaches(&s(2, 0, 1, 1)));
        assert!(!s(2, 0, 1, 1).reaches(&s(0, 2, 1, 1)));
    }

    #[test]
    fn every_database_variant_treats_the_colours_alike() {
        // The database stores White to move only and looks up Black to move turned
        // round with the colours exchanged: right only if the moves map onto each other.
        fn check<P: EgdbBoard>() {
            let geo = Geometry::of::<P>();
            let key = |pos: &P, m: &crate::rules::Move<P::B>, flip: bool| {
                let sq = geo.squares(&pos.play(m));
                let sq = if flip { geo.flipped(&sq) } else { sq };
                (sq.white, sq.black, sq.kings, m.promote, m.captured.count())
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for sq in sample_positions(&geo, 200) {
                let pos: P = geo.position(&sq);
                let turned: P = geo.position(&geo.flipped(&sq));
                pos.generate(&mut a);
                turned.generate(&mut b);
                let mut ka: Vec<_> = a.iter().map(|m| key(&pos, m, false)).collect();
                let mut kb: Vec<_> = b.iter().map(|m| key(&turned, m, true)).collect();
                ka.sort_unstable();
                kb.sort_unstable();
                assert_eq!(ka, kb, "{}: {sq:?}", P::VARIANT);
            }
        }
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| super::super::unsupported(*v).is_none())
        {
            crate::with_egdb_board!(v, P => check::<P>());
        }
    }
}
