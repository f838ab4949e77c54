//! The transposition table under concurrent writes, and the incremental keys it is
//! indexed by.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};

use common::{Rng, random_positions};
use tammi::rules::game::key_after;
use tammi::rules::{
    Board, Brazilian, Canadian, English, International, Position, Russian, TurkishPosition,
};
use tammi::search::tt::{Bound, PackedMove, TranspositionTable};

/// Threads store entries for many positions into a table so small that they all fight
/// over the same few buckets, while others probe. A probe that succeeds must return a
/// move that is legal in the probed position: an entry torn between two writers (the
/// check word of one, the data of another) must be rejected.
fn hammer<P: Board>(table_mb: usize, threads: usize, rounds: usize) {
    let positions: Vec<P> = random_positions(0x5eed ^ table_mb as u64, 400);
    let cases: Vec<(u64, Vec<_>)> = positions
        .iter()
        .map(|p| {
            let mut legal = Vec::new();
            p.generate(&mut legal);
            (Board::hash(p), legal)
        })
        .filter(|(_, legal)| !legal.is_empty())
        .collect();
    let tt = TranspositionTable::new(table_mb);
    let hits = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (tt, cases, hits) = (&tt, &cases, &hits);
            s.spawn(move || {
                let mut rng = Rng(0x9e37_79b9 + t as u64);
                for _ in 0..rounds {
                    let (key, legal) = &cases[rng.below(cases.len())];
                    if rng.below(2) == 0 {
                        let mv = PackedMove::new(&legal[rng.below(legal.len())]);
                        let score = rng.below(2000) as i32 - 1000;
                        tt.store(*key, mv, score, rng.below(30) as i32, Bound::Exact);
                    } else if let Some(hit) = tt.probe(*key) {
                        hits.fetch_add(1, Ordering::Relaxed);
                        assert!(
                            hit.mv.find(legal).is_some(),
                            "a probe returned a move that is not legal in its position"
                        );
                        assert!((-1000..1000).contains(&hit.score));
                    }
                }
            });
        }
    });
    assert!(
        hits.load(Ordering::Relaxed) > 0,
        "the test must exercise hits"
    );
}

#[test]
fn torn_entries_never_yield_an_illegal_move() {
    // 0 MB = a single bucket of four entries: every thread writes the same cache line.
    hammer::<Position<International>>(0, 4, 200_000);
    hammer::<Position<English>>(0, 4, 200_000);
    hammer::<Position<Canadian>>(1, 4, 200_000);
    hammer::<TurkishPosition>(1, 3, 100_000);
}

#[test]
fn packed_moves_tell_equal_route_captures_apart() {
    // Every legal move, captures with the same start and end included, is found as itself.
    for p in random_positions::<Position<International>>(7, 2000) {
        let mut legal = Vec::new();
        p.generate(&mut legal);
        for (i, m) in legal.iter().enumerate() {
            assert_eq!(PackedMove::new(m).find(&legal), Some(i), "{m:?} in {p:?}");
        }
    }
}

fn keys_match<P: Board>(seed: u64) {
    let mut list = Vec::new();
    for p in random_positions::<P>(seed, 3000) {
        p.generate(&mut list);
        let k = Board::hash(&p);
        for m in &list {
            assert_eq!(
                key_after(&p, k, m),
                Board::hash(&p.play(m)),
                "{m:?} in {p:?}"
            );
        }
        // Board::pass flips the side to move and nothing else, whatever the moves.
        let q = p.pass();
        assert_eq!(q.side(), p.side().opposite());
        assert_eq!(
            (q.white(), q.black(), q.kings()),
            (p.white(), p.black(), p.kings())
        );
    }
}

#[test]
fn incremental_keys_equal_full_hashes() {
    keys_match::<Position<International>>(1);
    keys_match::<Position<English>>(2);
    keys_match::<Position<Russian>>(3);
    keys_match::<Position<Brazilian>>(4);
    keys_match::<Position<Canadian>>(5);
    keys_match::<TurkishPosition>(6);
}
