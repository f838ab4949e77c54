//! Tactics at a fixed depth: positions from tests/data/tactics.tsv whose winning move was
//! proved by a much deeper search (see the comment column), solved at a depth that takes a
//! few milliseconds each. A failure here means a search or evaluation change lost a shot
//! it used to see.

use tammi::rules::Variant;
use tammi::search::tactics::{self, Tactic};
use tammi::search::{Engine, EngineOptions, Limits};

fn load() -> Vec<Tactic> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tactics.tsv");
    let text = std::fs::read_to_string(path).expect("tests/data/tactics.tsv");
    tactics::parse(&text).unwrap_or_else(|e| panic!("tactics.tsv: {e}"))
}

/// Fixed depth per board: deep enough for every position of the file.
fn depth(v: Variant) -> u32 {
    match v {
        Variant::English => 12,
        Variant::Canadian => 8,
        Variant::International | Variant::Turkish => 10,
        _ => 11,
    }
}

#[test]
fn the_file_is_well_formed_and_large_enough() {
    let all = load();
    assert!(all.len() >= 60, "{} positions", all.len());
    for v in [Variant::English, Variant::International] {
        assert!(all.iter().filter(|t| t.variant == v).count() >= 10, "{v}");
    }
}

#[test]
fn tactics_are_solved_at_fixed_depth() {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .unwrap();
    let mut missed = Vec::new();
    let all = load();
    for t in &all {
        let (best, ok) = tactics::solve(&mut engine, t, Limits::depth(depth(t.variant))).unwrap();
        if !ok {
            missed.push(format!(
                "line {} {} {}: played {:?}, expected {:?}",
                t.line, t.variant, t.fen, best, t.solutions
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {} missed:\n{}",
        missed.len(),
        all.len(),
        missed.join("\n")
    );
}
