//! One game layer for every front end: a game that the rules end by a draw rule ends the
//! same way in the rules core ([`Game::outcome`]), in the search (which scores the drawing
//! move as a draw only with the game's history), in the match runner's referee (its
//! Termination tag) and in the text mode (its announcement), for each draw rule of each
//! variant. DXP (international) is tested in `tests/dxp.rs`.

use crate::common;

use std::process::Command;

use common::draws::{Scenario, replay, scenarios};
use tammi::rules::{DrawReason, Variant};
use tammi::search::{Engine, EngineOptions, Limits, Score};
use tammi::with_board;

#[test]
fn the_rules_core_ends_each_game_at_its_last_move() {
    for s in scenarios() {
        let n = s.moves.len();
        with_board!(s.variant, P => {
            for ply in 0..n {
                let g = replay::<P>(&s.fen, &s.moves[..ply]);
                assert_eq!(g.outcome(), None, "{} {} after {ply} plies", s.variant, s.fen);
            }
            let g = replay::<P>(&s.fen, &s.moves);
            assert_eq!(g.outcome(), Some(s.outcome()), "{} {}", s.variant, s.fen);
        });
    }
}

/// The search's score of `fen` after `moves` at `depth`.
fn score(s: &Scenario, fen: &str, moves: &[String], depth: u32) -> Score {
    let mut e = Engine::new(EngineOptions {
        hash_mb: 8,
        ..EngineOptions::default()
    })
    .unwrap();
    e.set_position(s.variant, fen, moves).unwrap();
    e.think(Limits::depth(depth), |_| {}).score.unwrap()
}

#[test]
fn the_search_sees_the_same_draws() {
    for s in scenarios() {
        let n = s.moves.len();
        // One ply before the end, with the game's history, the side to move draws (the
        // weaker side, or every move ends the count)...
        let with = score(&s, &s.fen, &s.moves[..n - 1], 4);
        assert_eq!(
            with,
            Score::Eval(0),
            "{} {}: {:?}",
            s.variant,
            s.fen,
            s.reason
        );
        // ... and from the same position without its history it does not (in losing
        // draughts kings alone are scored 0: no control there).
        if s.variant != Variant::Losing {
            let without = score(&s, &s.fen_after(n - 1), &[], 4);
            assert_ne!(
                without,
                Score::Eval(0),
                "{} {}: {:?}",
                s.variant,
                s.fen,
                s.reason
            );
        }
    }
}

#[test]
fn the_text_mode_announces_each_draw() {
    let all = scenarios();
    let mut input = String::new();
    for s in &all {
        input.push_str(&format!("new {}\nfen {}\n", s.variant, s.fen));
        for m in &s.moves {
            input.push_str(m);
            input.push('\n');
        }
        // A move or a search after the end is refused.
        input.push_str("go\n");
    }
    input.push_str("quit\n");
    let text = crate::common::text_session(&input);
    let announced: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("game over: "))
        .collect();
    let expected: Vec<String> = all.iter().map(|s| s.outcome().to_string()).collect();
    assert_eq!(announced, expected);
    let refused = text
        .lines()
        .filter(|l| {
            l.trim_start_matches("> ")
                .starts_with("the game is over (draw")
        })
        .count();
    assert_eq!(refused, all.len(), "{text}");
    for words in [
        "game over: draw by threefold repetition",
        "game over: draw: 25 moves with kings only",
        "game over: draw: 40 moves with kings only",
        "game over: draw: 16 moves with three pieces against a lone king",
        "game over: draw: 5 moves with two pieces against a lone king",
    ] {
        assert!(text.contains(words), "{words}");
    }
}

/// The match runner's Termination tag for a game the rules end by `reason`.
fn termination(reason: DrawReason) -> String {
    match reason {
        DrawReason::Repetition { .. } => "adjudication: repetition".into(),
        DrawReason::MoveRule { moves } => format!("adjudication: {moves}-move rule"),
        DrawReason::FewPieces { .. } => "adjudication: few pieces rule".into(),
    }
}

#[test]
fn the_match_runner_ends_each_game_by_the_same_rule() {
    let dir = std::env::temp_dir().join(format!("tammi-game-draws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let all = scenarios();
    let mut variants: Vec<_> = all.iter().map(|s| s.variant).collect();
    variants.dedup();
    for v in variants {
        let mine: Vec<&Scenario> = all.iter().filter(|s| s.variant == v).collect();
        // Each opening stops one ply short: the engine to move makes the last move,
        // whichever it chooses (every move ends the count; the weaker side takes the
        // repetition).
        let openings = dir.join(format!("{v}.txt"));
        let lines: Vec<String> = mine
            .iter()
            .map(|s| format!("{} {}", s.fen, s.moves[..s.moves.len() - 1].join(" ")))
            .collect();
        std::fs::write(&openings, lines.join("\n") + "\n").unwrap();
        let pdn = dir.join(format!("{v}.pdn"));
        let tammi = format!("{} hub", env!("CARGO_BIN_EXE_tammi"));
        let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .args([
                "match",
                "--variant",
                v.name(),
                "--engine",
                &tammi,
                "--engine",
                &tammi,
            ])
            .args(["--depth", "4", "--quiet", "--games"])
            .arg((2 * mine.len()).to_string())
            .arg("--openings")
            .arg(&openings)
            .arg("--pdn")
            .arg(&pdn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&pdn).unwrap();
        let tags: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("[Termination \""))
            .map(|l| l.trim_end_matches("\"]"))
            .collect();
        // Each opening twice, colours reversed, in order.
        let expected: Vec<String> = mine
            .iter()
            .flat_map(|s| [termination(s.reason), termination(s.reason)])
            .collect();
        assert_eq!(tags, expected, "{v}");
        assert!(text.contains("1/2-1/2"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
