//! Draw rules in the search, per variant: threefold repetition over the game's history,
//! the english 40-move rule, the international 25-move king rule and the FMJD 16- and
//! 5-move endings, and known draws scored as exactly 0.

use crate::common;

use common::draws::king_walk;
use tammi::rules::Variant;
use tammi::search::{Engine, EngineOptions, Limits, Score};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .unwrap()
}

/// The score of `fen` after `moves`, searched to `depth` with a fresh table.
fn score(variant: Variant, fen: &str, moves: &[String], depth: u32) -> Score {
    let mut e = engine();
    e.set_position(variant, fen, moves)
        .unwrap_or_else(|err| panic!("{variant} {fen}: {err}"));
    e.new_game();
    e.think(Limits::depth(depth), |_| {})
        .score
        .expect("a move to search")
}

fn is_draw(s: Score) -> bool {
    s == Score::Eval(0)
}

fn decisive(s: Score) -> bool {
    match s {
        Score::Eval(c) => c.abs() >= 30,
        Score::GameEnd(_) | Score::Database(_) => true,
    }
}

#[test]
fn english_forty_move_rule() {
    // Three kings against two: a win, until 40 moves each pass with only kings moving.
    let fen = "W:WK29,K30,K31:BK1,K2";
    let walk = king_walk(Variant::English, fen, 79);
    assert!(decisive(score(Variant::English, fen, &walk[..40], 6)));
    assert!(is_draw(score(Variant::English, fen, &walk, 6)));
}

#[test]
fn international_twenty_five_move_rule() {
    // Four kings against two (not a few-pieces ending): 25 moves each of kings only.
    let fen = "W:WK46,K47,K48,K49:BK1,K2";
    let walk = king_walk(Variant::International, fen, 49);
    assert!(decisive(score(Variant::International, fen, &walk[..20], 5)));
    assert!(is_draw(score(Variant::International, fen, &walk, 5)));
}

#[test]
fn international_sixteen_move_ending() {
    // Three kings against a lone king: drawn after 16 moves each.
    let fen = "W:WK46,K47,K48:BK4";
    let walk = king_walk(Variant::International, fen, 31);
    assert_ne!(
        score(Variant::International, fen, &walk[..10], 5),
        Score::Eval(0)
    );
    assert!(is_draw(score(Variant::International, fen, &walk, 5)));
}

#[test]
fn international_five_move_ending() {
    // Two kings against one: drawn after 5 moves each.
    let fen = "W:WK46,K47:BK4";
    let walk = king_walk(Variant::International, fen, 9);
    assert_ne!(
        score(Variant::International, fen, &walk[..4], 5),
        Score::Eval(0)
    );
    assert!(is_draw(score(Variant::International, fen, &walk, 5)));
}

/// `fen` has the losing side able to shuttle `ours` while the winner shuttles `theirs`;
/// after three and a half cycles the loser's next shuttle move repeats the start
/// position a third time, and the search must see the draw.
fn threefold(variant: Variant, fen: &str, theirs: [&str; 2], ours: [&str; 2]) {
    let cycle = [theirs[0], ours[0], theirs[1], ours[1]];
    let moves: Vec<String> = cycle
        .iter()
        .cycle()
        .take(7)
        .map(|s| s.to_string())
        .collect();
    assert!(
        decisive(score(variant, fen, &moves[..3], 6)),
        "losing without the history"
    );
    let s = score(variant, fen, &moves, 6);
    assert!(is_draw(s), "{variant}: {s:?}");
}

#[test]
fn threefold_repetition() {
    threefold(
        Variant::English,
        "B:WK30:BK1,K2,K3",
        ["3-7", "7-3"],
        ["30-26", "26-30"],
    );
    threefold(
        Variant::International,
        "B:WK46:BK1,K2,K3",
        ["3-9", "9-3"],
        ["46-41", "41-46"],
    );
    threefold(
        Variant::Russian,
        "B:WKa1:BKb8,Kd8,Kf8",
        ["b8-a7", "a7-b8"],
        ["a1-b2", "b2-a1"],
    );
}

#[test]
fn known_draws_score_zero() {
    // Both kings in their double corners (a lone king in a single corner can be caught).
    assert!(is_draw(score(Variant::English, "W:WK32:BK1", &[], 14)));
    assert!(is_draw(score(Variant::International, "W:WK46:BK4", &[], 8)));
    assert!(is_draw(score(Variant::Turkish, "W:WKa1:BKh8", &[], 8)));
}
