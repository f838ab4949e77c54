//! Tactics: the positions of tests/data/tactics.tsv, each with a single winning move
//! proved by the exact prover of `tammi::oracle::proof` (the comment says at which depth).
//!
//! - the file is well formed, large enough, and every claim names its proof depth;
//! - tammi's search finds every key move at a fixed depth (a failure means a search or
//!   evaluation change lost a shot it used to see);
//! - the prover re-proves the claims (so they can fail), and behaves on small positions
//!   whose values are known by hand.

use tammi::eval::{EvalKind, EvalSettings};
use tammi::notation::{parse_move, parse_position};
use tammi::oracle::proof;
use tammi::oracle::tactics::{self, Tactic};
use tammi::rules::{Bits, Board, English, International, Position, Variant};
use tammi::search::{Engine, EngineOptions, Limits};

fn load() -> Vec<Tactic> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tactics.tsv");
    let text = std::fs::read_to_string(path).expect("tests/data/tactics.tsv");
    tactics::parse(&text).unwrap_or_else(|e| panic!("tactics.tsv: {e}"))
}

/// Fixed depth per board: deep enough for every position of the file. (English: the
/// trained pattern evaluation rates some king endings higher than the hand-set one did,
/// so a king sacrifice that wins in 7 plies now shows at depth 18 rather than 10.)
fn depth(v: Variant) -> u32 {
    match v {
        Variant::English => 18,
        Variant::Canadian => 10,
        Variant::International | Variant::Turkish => 12,
        _ => 14,
    }
}

#[test]
fn the_file_is_well_formed_and_large_enough() {
    let all = load();
    assert!(all.len() >= 80, "{} positions", all.len());
    for v in [Variant::English, Variant::International] {
        let n = all.iter().filter(|t| t.variant == v).count();
        assert!(n >= 25, "{v}: {n} positions");
    }
    for t in &all {
        let d = t
            .proof_depth
            .unwrap_or_else(|| panic!("line {}: no proof", t.line));
        assert!(d >= 5, "line {}: proof depth {d}, below 5", t.line);
        assert_eq!(t.solutions.len(), 1, "line {}", t.line);
        // The key move is never a capture (Hub form `28x19x23`).
        assert!(!t.solutions[0].contains('x'), "line {}: a capture", t.line);
    }
    let mut fens: Vec<&str> = all.iter().map(|t| t.fen.as_str()).collect();
    fens.sort();
    fens.dedup();
    assert_eq!(fens.len(), all.len(), "a position is listed twice");
}

/// The file's positions (of `only`, or all) that the search misses at [`depth`].
fn missed_at_fixed_depth(all: &[Tactic], only: Option<Variant>, eval: EvalSettings) -> Vec<String> {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .unwrap();
    engine.set_eval(eval);
    let mut missed = Vec::new();
    for t in all.iter().filter(|t| only.is_none_or(|v| v == t.variant)) {
        let (best, ok) = tactics::solve(&mut engine, t, Limits::depth(depth(t.variant))).unwrap();
        if !ok {
            missed.push(format!(
                "line {} {} {}: played {:?}, expected {:?} ({})",
                t.line, t.variant, t.fen, best, t.solutions, t.comment
            ));
        }
    }
    missed
}

/// Both evaluations of english: the pattern tables for every variant, the network for
/// english's shots.
#[test]
fn tactics_are_solved_at_fixed_depth() {
    let all = load();
    // The depths above were set with the pattern tables, which english's positions are
    // searched with here: the test guards the search. English plays with its network by
    // default; at these depths it misses five of the file's kings-only wins (a win in
    // 13 plies that the patterns' rule for closing in finds at depth 18 is not found at
    // 24), while in games it plays those endings better than the patterns (-20 +- 16
    // Elo for the patterns there over 800 games at 20,000 nodes, docs/results.md): it is held to
    // every shot that wins material, below.
    let mut patterns = EvalSettings::default();
    patterns
        .select(Variant::English, EvalKind::Patterns)
        .unwrap();
    let missed = missed_at_fixed_depth(&all, None, patterns);
    let by_network = missed_at_fixed_depth(&all, Some(Variant::English), EvalSettings::default());
    assert_eq!(EvalKind::default_for(Variant::English), EvalKind::Network);
    let network_material: Vec<&String> = by_network
        .iter()
        .filter(|m| !m.contains("wins the game"))
        .collect();
    assert!(
        network_material.is_empty(),
        "the network misses shots that win material:\n{}",
        by_network.join("\n")
    );
    // A shot that wins material has one solution. A position whose key "wins the game"
    // within the proof depth may have other moves that win later, beyond what the proof
    // looks at, and a search may rightly prefer one of them: those may be missed, as long as
    // 90% of the file is solved (the acceptance bar of the 1-second benchmark).
    let material_missed: Vec<&String> = missed
        .iter()
        .filter(|m| !m.contains("wins the game"))
        .collect();
    assert!(
        material_missed.is_empty() && missed.len() * 10 <= all.len(),
        "{} of {} missed:\n{}",
        missed.len(),
        all.len(),
        missed.join("\n")
    );
}

/// Every fourth position of the file (a different quarter each day would be no better:
/// `tammi bench --tactics tests/data/tactics.tsv --prove` checks them all).
#[test]
fn the_proofs_of_the_file_hold() {
    let all = load();
    let mut failed = Vec::new();
    for t in all.iter().step_by(4) {
        let p = tactics::prove(t).unwrap_or_else(|e| panic!("line {}: {e}", t.line));
        if !p.proved {
            failed.push(format!(
                "line {}: key {} {}, refuted by {:?}",
                t.line, p.key, p.key_value, p.refuting
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn proof_depths_are_read_from_the_comment() {
    assert_eq!(tactics::proof_depth("proof d7: 14-9 gains +2"), Ok(Some(7)));
    assert_eq!(tactics::proof_depth("proof d12"), Ok(Some(12)));
    assert_eq!(tactics::proof_depth("deep search d18: +1.74"), Ok(None));
    assert_eq!(tactics::proof_depth(""), Ok(None));
    for bad in [
        "proof",
        "proof d",
        "proof dx: 1",
        "proof d7x",
        "proof d0:",
        "proofd7",
    ] {
        assert!(tactics::proof_depth(bad).is_err(), "{bad}");
    }
    let line = "english\tW:W17,18,23,27:B4,5,9,10\t18-14\tproof d: nothing";
    let e = tactics::parse(&format!("# header\n{line}\n")).unwrap_err();
    assert!(e.starts_with("line 2:"), "{e}");
    let line = "english\tW:W17,18,23,27:B4,5,9,10\t18-14 17-14\tproof d3";
    let e = tactics::parse(line).unwrap_err();
    assert!(e.contains("exactly one best move"), "{e}");
}

type En = Position<English>;
type Intl = Position<International>;

/// English, White to move: 18-14 gives a man (9x18, forced) and takes two back (23x14x7),
/// a net gain of one man, which no other move matches (within 4 plies, before the man on 7
/// crowns).
const TWO_FOR_ONE: &str = "W:W17,18,23,27:B4,5,9,10";

fn key<P: Board>(pos: &P, text: &str) -> tammi::rules::Move<P::B> {
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    parse_move(pos, text, &legal).unwrap()
}

#[test]
fn the_prover_values_a_two_for_one_shot_exactly() {
    let pos: En = parse_position(TWO_FOR_ONE).unwrap();
    let before = proof::material(&pos, pos.side());
    assert_eq!(before, 0);
    let shot = key(&pos, "18-14");
    // Deeper, the man on 7 crowns: a king is worth 3, and the values change.
    for depth in 1..=4 {
        let values = proof::root_values(&pos, depth);
        assert_eq!(values.len(), 6);
        let best = values.iter().map(|&(_, v)| v).max().unwrap();
        let (_, v) = values.iter().find(|(m, _)| *m == shot).unwrap();
        assert_eq!(*v, before + 1, "depth {depth}: {values:?}");
        assert_eq!(best, before + 1, "depth {depth}: {values:?}");
        assert_eq!(
            values.iter().filter(|&&(_, v)| v == best).count(),
            1,
            "depth {depth}"
        );
        assert_eq!(proof::move_value(&pos, &shot, depth), before + 1);
        // One man is not two: the position is not a proved tactic.
        let c = proof::classify(&pos, depth);
        assert_eq!(c.proved_key(), None);
        assert!(c.winning().is_empty());
        let p = proof::prove(&pos, &shot, depth);
        assert!(!p.key_wins() && !p.proved());
        assert_eq!(p.key_value, proof::Bound::AtMost(before + 1));
        assert!(p.refuting().is_empty(), "{:?}", p.refuting());
    }
}

/// The first english position of the file is proved for its key, and a claim for any
/// other move fails, refuted by the real key.
#[test]
fn the_prover_proves_a_shot_and_rejects_a_wrong_key() {
    let all = load();
    let t = all
        .iter()
        .find(|t| t.variant == Variant::English)
        .expect("an english position");
    let pos: En = parse_position(&t.fen).unwrap();
    let depth = t.proof_depth.unwrap();
    let shot = key(&pos, &t.solutions[0]);
    let p = proof::prove(&pos, &shot, depth);
    assert!(p.proved(), "line {}", t.line);
    assert!(p.key_value.is_at_least(p.before + proof::REQUIRED_GAIN));
    let c = proof::classify(&pos, depth);
    assert_eq!(c.proved_key(), Some(shot));
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let other = legal.iter().find(|m| **m != shot).unwrap();
    let q = proof::prove(&pos, other, depth);
    assert!(!q.proved(), "line {}: another move proved too", t.line);
    assert!(!q.key_wins());
    assert_eq!(q.refuting().len(), 1, "only the real key gains");
    assert_eq!(q.refuting()[0].0, shot);
}

#[test]
fn the_start_positions_have_no_proved_move() {
    for depth in 1..=6 {
        let c = proof::classify(&En::start(), depth);
        assert_eq!(c.moves.len(), 7);
        assert_eq!(c.proved_key(), None, "english depth {depth}");
        assert!(c.winning().is_empty(), "english depth {depth}");
        let c = proof::classify(&Intl::start(), depth.min(5));
        assert_eq!(c.moves.len(), 9);
        assert_eq!(c.proved_key(), None, "international depth {depth}");
        assert!(c.winning().is_empty(), "international depth {depth}");
    }
    // Exact values: nothing is won or lost in the first plies of the game.
    for (_, v) in proof::root_values(&En::start(), 6) {
        assert_eq!(v, 0);
    }
}

#[test]
fn a_game_end_beats_any_material() {
    // English, Black's man on 25 is walled in by White's men on 29 and 30 (and cannot be
    // taken: 21 and 22 are occupied). Black to move has no move: lost.
    let stuck: En = parse_position("B:W21,22,29,30:B25").unwrap();
    assert!(proof::root_values(&stuck, 3).is_empty());
    // White to move: 21-17, 22-17 and 22-18 keep the wall and win at once; only 30-26
    // lets the man through to crown (4 men against a king: +3 at depth 1).
    let pos: En = parse_position("W:W21,22,29,30:B25").unwrap();
    let values = proof::root_values(&pos, 1);
    assert_eq!(values.len(), 4);
    for (mv, v) in &values {
        if *mv == key(&pos, "30-26") {
            assert_eq!(*v, 3);
        } else {
            assert_eq!(*v, proof::WIN - 1, "{mv:?}");
        }
    }
    // Three moves win: none is the only one.
    let c = proof::classify(&pos, 1);
    assert_eq!(c.winning().len(), 3);
    assert_eq!(c.proved_key(), None);
}

// The shot suite (tests/data/shots.tsv): international combinations in men-only middle
// games, the kind that decides tammi's games against Scan.

/// The suite's size when it was made was 238.
const SHOTS_AT_LEAST: usize = 200;
/// Nodes a shot: about half a millisecond of search, depth 5 or 6, so the quiescence
/// search has to see the rest of the combination.
const SHOT_NODES: u64 = 2_000;
/// What the search must solve at [`SHOT_NODES`], in percent: it solved 226 of 238 (95%)
/// when this was set.
const SHOTS_SOLVED_PERCENT: usize = 92;

fn load_shots() -> Vec<Tactic> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shots.tsv");
    let text = std::fs::read_to_string(path).expect("tests/data/shots.tsv");
    tactics::parse(&text).unwrap_or_else(|e| panic!("shots.tsv: {e}"))
}

#[test]
fn the_shot_suite_is_well_formed() {
    let all = load_shots();
    assert!(all.len() >= SHOTS_AT_LEAST, "{} positions", all.len());
    for t in &all {
        assert_eq!(t.variant, Variant::International, "line {}", t.line);
        let pos: Intl = parse_position(&t.fen).unwrap();
        assert!(!pos.kings().any(), "line {}: a king on the board", t.line);
        assert!((pos.white() | pos.black()).count() >= 12, "line {}", t.line);
        assert!(
            !pos.has_capture(),
            "line {}: a capture is compulsory",
            t.line
        );
        let d = t
            .proof_depth
            .unwrap_or_else(|| panic!("line {}: no proof", t.line));
        assert!(d >= 5, "line {}: proof depth {d}, below 5", t.line);
        assert_eq!(t.solutions.len(), 1, "line {}", t.line);
        assert!(
            !t.comment.contains("wins the game"),
            "line {}: not a shot",
            t.line
        );
    }
    let mut fens: Vec<&str> = all.iter().map(|t| t.fen.as_str()).collect();
    fens.sort();
    fens.dedup();
    assert_eq!(fens.len(), all.len(), "a position is listed twice");
}

/// Every tenth shot's proof holds (`tammi bench --tactics tests/data/shots.tsv --prove`
/// checks them all).
#[test]
fn the_proofs_of_the_shots_hold() {
    let all = load_shots();
    for t in all.iter().step_by(10) {
        let p = tactics::prove(t).unwrap_or_else(|e| panic!("line {}: {e}", t.line));
        assert!(
            p.proved,
            "line {}: key {} {}, refuted by {:?}",
            t.line, p.key, p.key_value, p.refuting
        );
    }
}

/// The search finds the shots' first moves at a node budget (a second or two for the
/// whole suite). The floor is a little below what the search solved when it was set, so
/// that a change that loses shots fails here.
#[test]
fn the_shots_are_found_at_a_node_budget() {
    let all = load_shots();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .unwrap();
    let mut missed = Vec::new();
    for t in &all {
        let (best, ok) = tactics::solve(&mut engine, t, Limits::nodes(SHOT_NODES)).unwrap();
        if !ok {
            missed.push(format!(
                "line {}: played {best:?}, key {:?}",
                t.line, t.solutions
            ));
        }
    }
    let solved = all.len() - missed.len();
    assert!(
        solved * 100 >= all.len() * SHOTS_SOLVED_PERCENT,
        "{solved} of {} solved at {SHOT_NODES} nodes, below {SHOTS_SOLVED_PERCENT}%:\n{}",
        all.len(),
        missed.join("\n")
    );
}
