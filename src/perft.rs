//! Perft: count the leaf nodes of the move tree, the standard test of a move generator.

use std::hint::black_box;

use crate::parallel;
use crate::rules::{Board, Move, MoveList};

/// Leaves at `depth` below `pos`. `bulk`: the last ply is counted, not played.
pub fn perft<P: Board>(pos: &P, depth: u32, bulk: bool) -> u64 {
    let mut lists: Vec<MoveList<P::B>> = (0..=depth).map(|_| Vec::with_capacity(64)).collect();
    count(pos, depth, bulk, &mut lists)
}

fn count<P: Board>(pos: &P, depth: u32, bulk: bool, lists: &mut [MoveList<P::B>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    if depth == 1 && bulk {
        return pos.count_moves(list);
    }
    pos.generate_perft(list);
    if depth == 1 {
        // Every leaf is made: black_box keeps the optimiser from dropping the work.
        for mv in list.iter() {
            black_box(pos.play(mv));
        }
        return list.len() as u64;
    }
    let mut total = 0;
    for mv in list.iter() {
        total += count(&pos.play(mv), depth - 1, bulk, rest);
    }
    total
}

/// Leaves at `depth` below `pos`, counting a capture once per route (the "keep
/// duplicates" convention of some published tables; [`perft`] counts distinct moves).
pub fn perft_every_route<P: Board>(pos: &P, depth: u32) -> u64 {
    fn count<P: Board>(pos: &P, depth: u32, lists: &mut [MoveList<P::B>]) -> u64 {
        let (list, rest) = lists.split_first_mut().expect("one list per ply");
        pos.generate_every_route(list);
        if depth == 1 {
            return list.len() as u64;
        }
        list.iter()
            .map(|mv| count(&pos.play(mv), depth - 1, rest))
            .sum()
    }
    if depth == 0 {
        return 1;
    }
    let mut lists: Vec<MoveList<P::B>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    count(pos, depth, &mut lists)
}

/// Leaves below each root move (`--divide`), in generation order.
pub fn divide<P: Board>(pos: &P, depth: u32, bulk: bool, threads: usize) -> Vec<(Move<P::B>, u64)> {
    let mut moves = Vec::new();
    pos.generate_perft(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let n = if depth <= 1 {
                1
            } else {
                perft_threads(&pos.play(&mv), depth - 1, bulk, threads)
            };
            (mv, n)
        })
        .collect()
}

/// Perft on `threads` threads: the positions two plies down are shared out (work
/// stealing keeps both cores busy even when subtrees differ in size).
pub fn perft_threads<P: Board>(pos: &P, depth: u32, bulk: bool, threads: usize) -> u64 {
    if threads <= 1 || depth < 4 {
        return perft(pos, depth, bulk);
    }
    let mut roots = Vec::new();
    pos.generate_perft(&mut roots);
    let mut children = Vec::new();
    let mut list = Vec::new();
    for mv in &roots {
        let child = pos.play(mv);
        child.generate_perft(&mut list);
        children.extend(list.iter().map(|m| child.play(m)));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    // As a `dyn` closure, `install` is compiled once rather than once per variant.
    let sum = &|| parallel::sum(children.len(), &|i| perft(&children[i], depth - 2, bulk));
    pool.install(sum as &(dyn Fn() -> u64 + Sync))
}

/// A variant's position for the perft entry points below: `fen`, or the start.
fn position_of<P: Board>(fen: Option<&str>) -> Result<P, crate::notation::PositionError> {
    fen.map_or_else(|| Ok(P::start()), crate::notation::parse_position)
}

/// Perft of `variant` from `fen` (the start when `None`), chosen at run time. The
/// monomorphised counting code lives here, in the library, so the command line's crate
/// calls it without instantiating (and optimising) the move generator again.
pub fn perft_variant(
    variant: crate::rules::Variant,
    fen: Option<&str>,
    depth: u32,
    bulk: bool,
    threads: usize,
) -> Result<u64, crate::notation::PositionError> {
    crate::with_board!(variant, P => {
        let pos: P = position_of(fen)?;
        Ok(perft_threads(&pos, depth, bulk, threads))
    })
}

/// [`divide`] of `variant` from `fen`, each root move written in the variant's default
/// notation.
pub fn divide_variant(
    variant: crate::rules::Variant,
    fen: Option<&str>,
    depth: u32,
    bulk: bool,
    threads: usize,
) -> Result<Vec<(String, u64)>, crate::notation::PositionError> {
    crate::with_board!(variant, P => {
        let pos: P = position_of(fen)?;
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        Ok(divide(&pos, depth, bulk, threads)
            .into_iter()
            .map(|(mv, n)| {
                let name =
                    crate::notation::format_move(&pos, &mv, &legal, P::VARIANT.default_notation());
                (name, n)
            })
            .collect())
    })
}
