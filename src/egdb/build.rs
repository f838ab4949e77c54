//! Building the database by retrograde analysis, one material slice at a time.
//!
//! A slice's moves lead either out of it (a capture, or a man crowned: both reach slices
//! built before, see [`Slice::with_pieces`]) or within it (a quiet move that crowns
//! nothing). The first pass settles what the moves out of the slice decide and counts the
//! moves within it; then every settled position is taken back one quiet move to its
//! predecessors: a lost position makes each predecessor won, a won one takes one option
//! from each predecessor, and a predecessor with no option left is lost. What is never
//! settled is a draw.

use rayon::prelude::*;

#[cfg(test)]
use super::index::Pos;
use super::index::{Geometry, Slice, Squares};
use super::{Database, Wld};
use crate::rules::{Board, Color};

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
pub fn solve_slice(db: &Database, geo: &Geometry, slice: &Slice) -> Vec<Wld> {
    let size = slice.size() as usize;
    let mut state = vec![UNKNOWN; size];
    let mut options = vec![0u8; size];

    // 1. Moves out of the slice, and the count of moves within it.
    state
        .par_chunks_mut(CHUNK)
        .zip(options.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (state, options))| {
            let mut moves = Vec::new();
            for j in 0..state.len() {
                let Some(sq) = geo.decode(slice, (c * CHUNK + j) as u64) else {
                    state[j] = INVALID;
                    continue;
                };
                let pos = geo.position(&sq);
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
                state[j] = if win {
                    WIN
                } else if within == 0 && !escape {
                    LOSS
                } else {
                    UNKNOWN
                };
                options[j] = within | if escape { ESCAPE } else { 0 };
            }
        });

    // 2. Take settled positions back, until nothing new is settled.
    let mut settled: Vec<u32> = (0..size as u32)
        .filter(|&i| matches!(state[i as usize], WIN | LOSS))
        .collect();
    while let Some(i) = settled.pop() {
        let sq = geo
            .decode(slice, i as u64)
            .expect("a settled index is valid");
        let lost = state[i as usize] == LOSS;
        for_each_predecessor(geo, &sq, |p| {
            let j = geo.index(&p) as usize;
            if state[j] != UNKNOWN {
                return;
            }
            if lost {
                state[j] = WIN;
                settled.push(j as u32);
            } else {
                options[j] -= 1;
                if options[j] == 0 {
                    state[j] = LOSS;
                    settled.push(j as u32);
                }
            }
        });
    }

    state
        .into_iter()
        .map(|s| match s {
            WIN => Wld::Win,
            LOSS => Wld::Loss,
            _ => Wld::Draw,
        })
        .collect()
}

/// Every position one quiet, uncrowning move before `sq` in which that move was legal:
/// the side that just moved steps one of its pieces back to an empty square (a man
/// backward only), and had no capture there (captures are compulsory).
fn for_each_predecessor(geo: &Geometry, sq: &Squares, mut f: impl FnMut(Squares)) {
    let mover = sq.side.opposite();
    let (own, other) = match mover {
        Color::White => (sq.white, sq.black),
        Color::Black => (sq.black, sq.white),
    };
    let occupied = own | other;
    let back = Geometry::forward(mover.opposite());
    let mut pieces = own;
    while pieces != 0 {
        let s = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let king = sq.kings & (1 << s) != 0;
        let dirs: &[usize] = if king { &[0, 1, 2, 3] } else { &back };
        for &d in dirs {
            let n = geo.neighbour[s][d];
            if n == 255 || occupied & (1 << n) != 0 {
                continue;
            }
            let moved = own ^ (1 << s) ^ (1 << n);
            let kings = if king {
                sq.kings ^ (1 << s) ^ (1 << n)
            } else {
                sq.kings
            };
            let (white, black) = match mover {
                Color::White => (moved, other),
                Color::Black => (other, moved),
            };
            let p = Squares {
                white,
                black,
                kings,
                side: mover,
            };
            if !geo.position(&p).has_capture() {
                f(p);
            }
        }
    }
}

/// Solve every slice of `slice`'s kind by plain iteration to a fixed point, without
/// predecessors: slow, but independent of the retrograde logic, so tests can compare.
#[cfg(test)]
pub fn solve_slice_by_iteration(db: &Database, geo: &Geometry, slice: &Slice) -> Vec<Wld> {
    let size = slice.size() as usize;
    let mut value: Vec<Option<Wld>> = vec![None; size];
    let positions: Vec<Option<Pos>> = (0..size as u64)
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
                let next = geo.squares(&pos.play(m));
                let v = if next.slice() == *slice {
                    value[geo.index(&next) as usize]
                } else {
                    db.probe_squares(&next)
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
