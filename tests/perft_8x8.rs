//! Perft of the 8x8 family (italian, pool, czech, spanish, thai) against the published
//! counts in `tests/data/perft_8x8.tsv`, each row by the convention it states: `drop`
//! counts distinct moves (tammi's move lists), `keep` counts a capture once per route.
//!
//! The `fast` rows run with `cargo test`; the `deep` ones are ignored by default:
//! `cargo test --release --test suite -- --ignored perft_8x8::` runs them (minutes).

use tammi::notation::parse_position;
use tammi::perft::{perft_every_route, perft_threads};
use tammi::rules::{Board, Variant};
use tammi::with_board;

struct Row {
    variant: Variant,
    name: String,
    fen: String,
    depth: u32,
    nodes: u64,
    keep: bool,
    deep: bool,
}

fn rows() -> Vec<Row> {
    include_str!("data/perft_8x8.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(matches!(f[5], "keep" | "drop"), "{l}");
            Row {
                variant: f[0].parse().expect("variant"),
                name: f[1].to_string(),
                fen: f[2].to_string(),
                depth: f[3].parse().expect("depth"),
                nodes: f[4].parse().expect("nodes"),
                keep: f[5] == "keep",
                deep: f[6] == "deep",
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
        if row.keep {
            perft_every_route(&pos, row.depth)
        } else {
            perft_threads(&pos, row.depth, true, threads)
        }
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
            got,
            row.nodes,
            "{} {} depth {} ({}): got {got}, published {}",
            row.variant,
            row.name,
            row.depth,
            if row.keep { "keep" } else { "drop" },
            row.nodes
        );
    }
}

#[test]
fn italian_start_and_gilberts_positions() {
    check(Variant::Italian, false);
}

#[test]
fn pool_from_the_start() {
    check(Variant::Pool, false);
}

#[test]
fn czech_from_the_start() {
    check(Variant::Czech, false);
}

#[test]
fn spanish_from_the_start() {
    check(Variant::Spanish, false);
}

#[test]
fn thai_from_the_twelve_men_start() {
    check(Variant::Thai, false);
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn deep_counts_of_the_8x8_family() {
    for v in [
        Variant::Italian,
        Variant::Pool,
        Variant::Czech,
        Variant::Spanish,
        Variant::Thai,
    ] {
        check(v, true);
    }
}
