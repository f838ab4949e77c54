//! Perft against the published counts in `tests/data/perft.tsv`.
//!
//! The `fast` rows run with `cargo test --release`; the `deep` ones are ignored by default:
//! `cargo test --release --test suite -- --ignored perft::` runs them (minutes, not seconds).

use tammi::notation::parse_position;
use tammi::perft::{perft, perft_threads};
use tammi::rules::frisian::perft_routes;
use tammi::rules::{Board, Variant};
use tammi::with_board;

struct Row {
    variant: Variant,
    name: String,
    fen: String,
    depth: u32,
    nodes: u64,
    deep: bool,
}

fn rows() -> Vec<Row> {
    include_str!("data/perft.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row {
                variant: f[0].parse().expect("variant"),
                name: f[1].to_string(),
                fen: f[2].to_string(),
                depth: f[3].parse().expect("depth"),
                nodes: f[4].parse().expect("nodes"),
                deep: f[5] == "deep",
            }
        })
        .collect()
}

fn count(row: &Row, threads: usize) -> u64 {
    with_board!(row.variant, P => {
        let pos: P = if row.fen == "start" {
            P::start()
        } else {
            parse_position(&row.fen).expect("published FEN parses")
        };
        perft_threads(&pos, row.depth, true, threads)
    })
}

fn check(variant: Variant, deep: bool) {
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.variant == variant && r.deep == deep)
        .collect();
    assert!(!rows.is_empty(), "no perft rows for {variant}");
    for row in &rows {
        let got = count(row, if deep { 2 } else { 1 });
        assert_eq!(
            got, row.nodes,
            "{} {} depth {}: got {got}, published {}",
            row.variant, row.name, row.depth, row.nodes
        );
    }
}

#[test]
fn english_from_the_start_to_depth_12() {
    check(Variant::English, false);
}

#[test]
fn international_start_and_test_positions() {
    check(Variant::International, false);
}

#[test]
fn russian_to_depth_10() {
    check(Variant::Russian, false);
}

#[test]
fn brazilian_to_depth_10() {
    check(Variant::Brazilian, false);
}

#[test]
fn canadian_to_depth_7() {
    check(Variant::Canadian, false);
}

#[test]
fn turkish_counts_every_capture_path_to_depth_7() {
    check(Variant::Turkish, false);
}

#[test]
fn killer_lands_right_behind_a_captured_king() {
    check(Variant::Killer, false);
}

#[test]
fn frisian_drops_duplicate_captures_to_depth_10() {
    check(Variant::Frisian, false);
}

/// The published frisian counts in the `keep` convention: a capture counted once per route
/// (the `drop` rows above count equal start, end and captured set once).
const FRISIAN_KEEP: [u64; 11] = [
    9, 81, 658, 3880, 21345, 103584, 550314, 2907905, 16204497, 90161025, 521287205,
];

#[test]
fn frisian_keeps_every_route_to_depth_9() {
    let start = tammi::rules::FrisianBoard::start();
    for (i, &n) in FRISIAN_KEEP.iter().enumerate().take(9) {
        let depth = i as u32 + 1;
        assert_eq!(perft_routes(&start, depth), n, "frisian keep depth {depth}");
    }
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn frisian_keeps_every_route_deep() {
    let start = tammi::rules::FrisianBoard::start();
    for (i, &n) in FRISIAN_KEEP.iter().enumerate().skip(9) {
        let depth = i as u32 + 1;
        assert_eq!(perft_routes(&start, depth), n, "frisian keep depth {depth}");
    }
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn deep_counts_in_every_variant() {
    for v in [
        Variant::English,
        Variant::International,
        Variant::Russian,
        Variant::Brazilian,
        Variant::Canadian,
        Variant::Turkish,
        Variant::Killer,
        Variant::Frisian,
    ] {
        check(v, true);
    }
}

/// Counting the last ply in bulk, making every leaf, and sharing the tree between threads
/// must all agree.
#[test]
fn bulk_leaf_and_threaded_counts_agree() {
    for v in [
        Variant::International,
        Variant::Russian,
        Variant::Turkish,
        Variant::English,
    ] {
        with_board!(v, P => {
            let pos = P::start();
            let bulk = perft(&pos, 6, true);
            assert_eq!(bulk, perft(&pos, 6, false), "{v}: bulk vs leaves");
            assert_eq!(bulk, perft_threads(&pos, 6, true, 2), "{v}: threads");
        });
    }
}

/// Breakthrough and losing draughts differ from international only in who wins, so their
/// move trees are international's.
#[test]
fn breakthrough_and_losing_have_the_international_tree() {
    for v in [Variant::Breakthrough, Variant::Losing] {
        let n = with_board!(v, P => perft(&P::start(), 7, true));
        assert_eq!(n, 1_049_442, "{v}");
    }
}
