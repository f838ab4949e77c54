//! The engine API: searches on their own thread, exactly one `Done` each, stop latency,
//! position errors that keep the previous state, limits, MultiPV, threads and pondering.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tammi::notation::format_hub_any;
use tammi::rules::{ALL_VARIANTS, AnyMove, Variant};
use tammi::search::{Done, Engine, EngineOptions, Info, Limits, Score};

/// The engine's typed move of `v` in the Hub form, as its legal moves are listed.
fn hub(v: Variant, mv: Option<AnyMove>) -> Option<String> {
    mv.map(|m| format_hub_any(v, &m))
}

fn engine(threads: usize) -> Engine {
    Engine::new(EngineOptions {
        threads,
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .expect("valid options")
}

fn strings(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_variant_finds_a_legal_move() {
    let mut e = engine(1);
    for v in ALL_VARIANTS {
        e.set_position(v, "start", &[]).expect("start position");
        let legal = e.legal_moves();
        let done = e.think(Limits::depth(4), |_| {});
        let best = hub(v, done.best_move).expect("a move from the start");
        assert!(legal.contains(&best), "{v}: {best} not in {legal:?}");
        assert!(done.depth >= 4, "{v}: depth {}", done.depth);
    }
}

#[test]
fn stop_ends_an_infinite_search_quickly_with_one_done() {
    let mut e = engine(1);
    let dones = Arc::new(AtomicUsize::new(0));
    let when = Arc::new(Mutex::new(None));
    let (d, w) = (Arc::clone(&dones), Arc::clone(&when));
    e.go(
        Limits::infinite(),
        |_| {},
        move |done: Done| {
            assert!(done.best_move.is_some());
            *w.lock().unwrap() = Some(Instant::now());
            d.fetch_add(1, Ordering::SeqCst);
        },
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(e.is_searching(), "an infinite search runs until stopped");
    let asked = Instant::now();
    e.stop();
    e.wait();
    let answered = when.lock().unwrap().expect("done was called");
    // The real figure is measured by .ci/bench/hub_latency.py (done after stop); this
    // bound is generous so a loaded machine cannot fail it.
    assert!(answered - asked < Duration::from_secs(1));
    assert_eq!(dones.load(Ordering::SeqCst), 1);
}

#[test]
fn a_new_go_or_position_stops_the_running_search() {
    let mut e = engine(2);
    let dones = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let d = Arc::clone(&dones);
        e.go(
            Limits::infinite(),
            |_| {},
            move |_| {
                d.fetch_add(1, Ordering::SeqCst);
            },
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    e.set_position(Variant::English, "start", &[]).unwrap();
    assert_eq!(dones.load(Ordering::SeqCst), 3);
}

#[test]
fn bad_positions_and_moves_keep_the_previous_state() {
    let mut e = engine(1);
    e.set_position(Variant::English, "start", &strings(&["11-15", "23-19"]))
        .unwrap();
    let fen = e.fen();
    let err = e
        .set_position(
            Variant::English,
            "start",
            &strings(&["11-15", "23-18", "22-17"]),
        )
        .unwrap_err();
    assert!(err.contains("move 3") && err.contains("22-17"), "{err}");
    assert_eq!(e.fen(), fen);
    let err = e
        .set_position(Variant::International, "W:W31-50:B1-20:X", &[])
        .unwrap_err();
    assert!(err.contains("invalid international position"), "{err}");
    assert_eq!(e.fen(), fen);
    assert_eq!(e.variant(), Variant::English);
    // The Hub forms are read too.
    e.set_position(
        Variant::International,
        "start",
        &strings(&["32-28", "19-23", "28x19x23"]),
    )
    .unwrap();
    assert!(e.fen().starts_with("B:"));
}

#[test]
fn a_finished_game_gives_no_move() {
    let mut e = engine(1);
    // White to move with no piece: lost.
    e.set_position(Variant::International, "W:W:B1,2", &[])
        .unwrap();
    let done = e.think(Limits::depth(3), |_| {});
    assert_eq!(done.best_move, None);
}

#[test]
fn node_limit_is_honoured_within_one_percent() {
    let mut e = engine(1);
    for v in [Variant::International, Variant::English] {
        e.set_position(v, "start", &[]).unwrap();
        e.new_game();
        let done = e.think(Limits::nodes(200_000), |_| {});
        let n = done.nodes as f64;
        assert!((n - 200_000.0).abs() <= 2_000.0, "{v}: {n} nodes");
    }
}

#[test]
fn single_thread_search_is_deterministic() {
    let run = || {
        let mut e = engine(1);
        e.set_position(
            Variant::International,
            "start",
            &strings(&["32-28", "18-23"]),
        )
        .unwrap();
        let d = e.think(Limits::depth(9), |_| {});
        let n = e.think(Limits::nodes(50_000), |_| {});
        (d.nodes, d.best_move, n.nodes, n.best_move)
    };
    assert_eq!(run(), run());
}

#[test]
fn multipv_reports_distinct_lines_best_first() {
    let mut e = Engine::new(EngineOptions {
        multipv: 3,
        hash_mb: 16,
        ..EngineOptions::default()
    })
    .unwrap();
    e.set_position(Variant::English, "start", &[]).unwrap();
    let infos = Arc::new(Mutex::new(Vec::<Info>::new()));
    let sink = Arc::clone(&infos);
    e.think(Limits::depth(6), move |i| sink.lock().unwrap().push(i));
    let infos = infos.lock().unwrap();
    let last: Vec<&Info> = infos.iter().filter(|i| i.depth == 6).collect();
    assert_eq!(last.len(), 3);
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let firsts: Vec<&AnyMove> = last.iter().map(|i| &i.pv_moves[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    let value = |s: Score| match s {
        Score::Eval(c) => c,
        Score::GameEnd(n) => n.signum() * 30_000,
        Score::Database(n) => n.signum() * 20_000,
    };
    assert!(value(last[0].score) >= value(last[1].score));
    assert!(value(last[1].score) >= value(last[2].score));
}

#[test]
fn info_lines_carry_the_pv_in_both_notations() {
    let mut e = engine(1);
    e.set_position(Variant::Russian, "start", &[]).unwrap();
    let infos = Arc::new(Mutex::new(Vec::<Info>::new()));
    let sink = Arc::clone(&infos);
    let done = e.think(Limits::depth(5), move |i| sink.lock().unwrap().push(i));
    let infos = infos.lock().unwrap();
    assert_eq!(
        infos.iter().map(|i| i.depth).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    let last = infos.last().unwrap();
    assert_eq!(last.pv.len(), last.pv_moves.len());
    // Russian uses letter-number squares; the Hub form is numeric.
    assert!(last.pv[0].contains(char::is_alphabetic), "{:?}", last.pv);
    let first = format_hub_any(Variant::Russian, &last.pv_moves[0]);
    assert!(
        first
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == 'x')
    );
    assert_eq!(done.best_move.as_ref(), Some(&last.pv_moves[0]));
    assert_eq!(done.best_text.as_ref(), Some(&last.pv[0]));
}

#[test]
fn two_threads_search_and_agree_on_a_legal_move() {
    let mut e = engine(2);
    for v in [Variant::International, Variant::English, Variant::Turkish] {
        e.set_position(v, "start", &[]).unwrap();
        let done = e.think(Limits::depth(8), |_| {});
        assert!(e.legal_moves().contains(&hub(v, done.best_move).unwrap()));
    }
}

#[test]
fn pondering_waits_for_the_hit_then_keeps_time() {
    let mut e = engine(1);
    e.set_position(Variant::English, "start", &[]).unwrap();
    let done_at = Arc::new(Mutex::new(None));
    let w = Arc::clone(&done_at);
    let limits = Limits {
        ponder: true,
        move_time: Some(Duration::from_millis(200)),
        ..Limits::default()
    };
    e.go(
        limits,
        |_| {},
        move |d: Done| {
            assert!(d.best_move.is_some());
            *w.lock().unwrap() = Some(Instant::now());
        },
    );
    std::thread::sleep(Duration::from_millis(400));
    assert!(done_at.lock().unwrap().is_none(), "no Done while pondering");
    let hit = Instant::now();
    e.ponder_hit();
    e.wait();
    let took = done_at.lock().unwrap().unwrap() - hit;
    assert!(
        took >= Duration::from_millis(100) && took < Duration::from_secs(2),
        "{took:?}"
    );
}

#[test]
fn a_forced_move_on_the_clock_is_answered_at_once() {
    let mut e = engine(1);
    // Black must take 22x15 (or similar): one legal move.
    e.set_position(Variant::English, "B:W18,30:B14,1", &[])
        .unwrap();
    assert_eq!(e.legal_moves().len(), 1);
    let t = Instant::now();
    let done = e.think(
        Limits::clock(Duration::from_secs(60), Duration::ZERO, None),
        |_| {},
    );
    assert!(t.elapsed() < Duration::from_millis(500));
    assert_eq!(
        hub(Variant::English, done.best_move),
        Some(e.legal_moves()[0].clone())
    );
}

#[test]
fn options_are_validated() {
    let bad = EngineOptions {
        threads: 0,
        ..EngineOptions::default()
    };
    assert!(Engine::new(bad).unwrap_err().contains("threads"));
    let mut e = engine(1);
    let err = e
        .set_options(EngineOptions {
            multipv: 0,
            ..EngineOptions::default()
        })
        .unwrap_err();
    assert!(err.contains("multipv"));
    assert_eq!(e.options().multipv, 1);
}

/// One thread's nodes to depth 9 from a position reached by two moves, after the table is
/// emptied (by resizing it away and back) but not the search's history and killers.
fn nodes_with_an_empty_table(e: &mut Engine) -> u64 {
    let mut options = e.options().clone();
    let mb = options.hash_mb;
    options.hash_mb = mb + 1;
    e.set_options(options.clone()).unwrap();
    options.hash_mb = mb;
    e.set_options(options).unwrap();
    let moves = vec!["32-28".to_string(), "18-23".to_string()];
    e.set_position(Variant::International, "start", &moves)
        .unwrap();
    e.think(Limits::depth(9), |_| {}).nodes
}

#[test]
fn history_and_killers_are_kept_between_moves_and_cleared_by_new_game_or_variant() {
    let mut e = engine(1);
    let fresh = nodes_with_an_empty_table(&mut e);
    // The same search again: the table is empty again, but the move ordering remembers.
    let again = nodes_with_an_empty_table(&mut e);
    assert_ne!(
        fresh, again,
        "the second search ordered its moves as the first did"
    );
    e.new_game();
    assert_eq!(
        nodes_with_an_empty_table(&mut e),
        fresh,
        "new_game kept the history"
    );

    nodes_with_an_empty_table(&mut e);
    e.set_position(Variant::English, "start", &[]).unwrap();
    e.think(Limits::depth(5), |_| {});
    assert_eq!(
        nodes_with_an_empty_table(&mut e),
        fresh,
        "another variant's search kept this variant's history"
    );
}

/// Each engine owns its evaluation: weights given to one engine change its searches and
/// no other's, the position set after the change included (the weights were once a
/// process-wide setting, so one engine's weights were every engine's).
#[test]
fn two_engines_in_one_process_each_evaluate_with_their_own_weights() {
    use tammi::eval::{EvalSettings, Weights};
    let fen = "W:W27,28,31,32,33,34,36,37,38,39,41,42,43,45,46,47,48,49:B2,3,4,6,7,8,9,11,12,13,14,16,17,18,19,22,23,24";
    let search = |e: &mut Engine| {
        e.set_position(Variant::International, fen, &[]).unwrap();
        e.new_game();
        let d = e.think(Limits::depth(6), |_| {});
        (d.nodes, d.score, d.best_move)
    };
    let mut own = engine(1);
    let built_in = search(&mut own);

    let mut inverted = Weights::embedded(Variant::International);
    let params: Vec<i32> = inverted.params().iter().map(|p| -p).collect();
    inverted.set_params(&params);
    let mut eval = EvalSettings::default();
    eval.replace_weights(Variant::International, Some(inverted))
        .unwrap();
    let mut other = engine(1);
    other.set_eval(eval);
    assert!(other.eval().has_given_weights(Variant::International));
    let given = search(&mut other);
    assert_ne!(given, built_in, "the given weights change the search");

    // The first engine, and one made afterwards, still search with the built-in weights.
    assert_eq!(search(&mut own), built_in);
    assert_eq!(search(&mut engine(1)), built_in);
    assert!(!own.eval().has_given_weights(Variant::International));
    assert_eq!(search(&mut other), given);
}
