//! The library's parallel loops (the endgame database builders', perft's), written once.
//! Their callers are generic over the board, and a rayon iterator chain written inside
//! one was compiled again for each variant: about 300,000 lines of LLVM IR of rayon's
//! plumbing, an eighth of the library's code generation, and as much again in the unit
//! tests' build. Here the plumbing is generic over the element type at most and the
//! work comes as a `dyn` closure, so it is compiled once or twice; the cost is one
//! indirect call per item, and an item is a chunk of thousands of positions or a
//! subtree.

use rayon::prelude::*;

/// The work on one chunk of two slices side by side: the chunk's number and its parts.
type PairWork<'a, T, U> = dyn Fn(usize, &mut [T], &mut [U]) + Sync + 'a;

/// The work on one chunk that measures something or fails: the chunk's number and it.
type TryWork<'a, T, E> = dyn Fn(usize, &mut [T]) -> Result<u16, E> + Sync + 'a;

/// `work(i)` for every `i` in `0..n`, on every thread.
pub(crate) fn for_each(n: usize, work: &(dyn Fn(usize) + Sync)) {
    (0..n).into_par_iter().for_each(work);
}

/// The sum of `work(i)` over `0..n`, on every thread, each `i` a job of its own (items
/// of uneven size are shared out by work stealing).
pub(crate) fn sum(n: usize, work: &(dyn Fn(usize) -> u64 + Sync)) -> u64 {
    (0..n).into_par_iter().with_max_len(1).map(work).sum()
}

/// `work(c, chunk)` for the `c`-th `size`-long chunk of `data` (the last one may be
/// shorter), on every thread.
pub(crate) fn for_each_chunk_mut<T: Send>(
    data: &mut [T],
    size: usize,
    work: &(dyn Fn(usize, &mut [T]) + Sync),
) {
    data.par_chunks_mut(size)
        .enumerate()
        .for_each(|(c, chunk)| work(c, chunk));
}

/// [`for_each_chunk_mut`] over two slices of one length side by side.
pub(crate) fn for_each_chunk_pair_mut<T: Send, U: Send>(
    a: &mut [T],
    b: &mut [U],
    size: usize,
    work: &PairWork<T, U>,
) {
    assert_eq!(a.len(), b.len(), "slices side by side");
    a.par_chunks_mut(size)
        .zip(b.par_chunks_mut(size))
        .enumerate()
        .for_each(|(c, (a, b))| work(c, a, b));
}

/// The largest `work(c, chunk)` over the chunks of `data` as [`for_each_chunk_mut`]
/// shares them out (0 if there are none), or an error one of them returned.
pub(crate) fn max_over_chunks_mut<T: Send, E: Send>(
    data: &mut [T],
    size: usize,
    work: &TryWork<T, E>,
) -> Result<u16, E> {
    data.par_chunks_mut(size)
        .enumerate()
        .map(|(c, chunk)| work(c, chunk))
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))
}
