//! The network evaluation in the search and on the Hub: the search's incremental
//! accumulators equal the from-scratch ones at every evaluated position, and the Hub
//! parameters `eval` and `network` select it (bad values are errors that keep the
//! evaluation in use).

use tammi::eval::{EvalKind, EvalSettings, Network};
use tammi::rules::Variant;
use tammi::search::{Engine, EngineOptions, Limits, Score};

mod common;

use common::hub::Hub;

const ENGLISH: &[&str] = &[
    "start",
    "B:W20,21,24,26,28,29,30,31,32:B1,2,3,4,5,6,12,14,15",
    "B:W6,22,23,24,29,32:B2,3,4,10,15",
    "B:WK7,15,20,21,25:B1,8,12,23,K31",
    "B:W7,K15,21,30:B13,14,K29,K31",
];

fn search_all(engine: &mut Engine, depth: u32) -> Vec<(u64, Option<Score>)> {
    ENGLISH
        .iter()
        .map(|fen| {
            engine.set_position(Variant::English, fen, &[]).unwrap();
            engine.new_game();
            let d = engine.think(Limits::depth(depth), |_| {});
            (d.nodes, d.score)
        })
        .collect()
}

#[test]
fn search_accumulators_equal_from_scratch_and_network_is_used() {
    let mut engine = Engine::new(EngineOptions::default()).unwrap();
    let mut eval = EvalSettings::default();
    eval.select(Variant::English, EvalKind::Patterns).unwrap();
    engine.set_eval(eval.clone());
    let patterns = search_all(&mut engine, 9);
    // A random network: every weight matters, so any accumulator slip shows. Every
    // evaluation of the searches below is checked against the from-scratch one.
    tammi::eval::network::verify(true);
    eval.replace_network(Variant::English, Some(Network::random(5)))
        .unwrap();
    eval.select(Variant::English, EvalKind::Network).unwrap();
    engine.set_eval(eval.clone());
    let net = search_all(&mut engine, 9);
    let total: u64 = net.iter().map(|r| r.0).sum();
    assert!(total > 10_000, "{total}");
    assert_ne!(
        net, patterns,
        "the network plays differently from the patterns"
    );
    // Four output buckets (the first the same as the one-bucket network's): the
    // accumulators are checked the same way, and the other buckets change the play.
    eval.replace_network(Variant::English, Some(Network::random_buckets(5, 4)))
        .unwrap();
    engine.set_eval(eval.clone());
    let bucketed = search_all(&mut engine, 9);
    assert_ne!(bucketed, net, "the buckets are used");
    // Back to the patterns: the same searches as before.
    eval.select(Variant::English, EvalKind::Patterns).unwrap();
    engine.set_eval(eval);
    assert_eq!(search_all(&mut engine, 9), patterns);
}

#[test]
fn only_english_has_a_network_and_plays_with_it_by_default() {
    assert_eq!(EvalKind::default_for(Variant::English), EvalKind::Network);
    for v in [Variant::International, Variant::Russian, Variant::Italian] {
        assert_eq!(EvalKind::default_for(v), EvalKind::Patterns, "{v}");
    }
    let e = EvalSettings::default()
        .select(Variant::International, EvalKind::Network)
        .unwrap_err();
    assert!(e.contains("no network"), "{e}");
    assert!("neural".parse::<EvalKind>().is_err());
}

/// The answer to a `set-param`: `None` when accepted, else the error line.
fn set(hub: &mut Hub, name: &str, value: &str) -> Option<String> {
    hub.send(&format!("set-param name={name} value=\"{value}\""));
    hub.send("ping");
    hub.until("pong")
        .into_iter()
        .find(|l| l.starts_with("error"))
}

/// The score (men) of a depth-1 search of `fen`.
fn score(hub: &mut Hub, fen: &str) -> f64 {
    hub.send(&format!("pos pos={fen}"));
    hub.send("level depth=1");
    hub.send("go analyze");
    let lines = hub.until("done");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info"))
        .expect("an info line");
    info.split_whitespace()
        .find_map(|w| w.strip_prefix("score="))
        .expect("a score")
        .parse()
        .unwrap()
}

#[test]
fn hub_eval_and_network_parameters() {
    let dir = std::env::temp_dir().join(format!("tammi-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let material = dir.join("material.txt");
    std::fs::write(&material, Network::material().to_text()).unwrap();
    let cut = dir.join("cut.txt");
    let text = Network::material().to_text();
    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();

    let mut hub = Hub::start();
    hub.send("hub");
    let intro = hub.until("wait");
    assert!(
        intro
            .iter()
            .any(|l| l.contains("name=eval") && l.contains("network")),
        "{intro:?}"
    );
    hub.send("init");
    hub.until("ready");
    assert_eq!(set(&mut hub, "variant", "english"), None);
    // Quiet, White a man up (Black's man on 1 gone), White to move.
    let fen = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B2,3,4,5,6,7,8,9,10,11,12";
    // English plays with its built-in network unless told otherwise.
    let built_in = score(&mut hub, fen);
    assert_eq!(set(&mut hub, "eval", "patterns"), None);
    let patterns = score(&mut hub, fen);
    assert_ne!(built_in, patterns);
    assert_eq!(set(&mut hub, "eval", "network"), None);
    assert_eq!(score(&mut hub, fen), built_in);
    assert_eq!(set(&mut hub, "network", material.to_str().unwrap()), None);
    assert_eq!(set(&mut hub, "eval", "network"), None);
    let net = score(&mut hub, fen);
    assert_ne!(net, patterns);
    assert!((0.5..=1.3).contains(&net), "the material network: {net}");
    // Bad values are errors naming the problem; the network stays.
    let e = set(&mut hub, "eval", "neural").expect("an error");
    assert!(e.contains("patterns or network"), "{e}");
    let e = set(&mut hub, "network", cut.to_str().unwrap()).expect("an error");
    assert!(e.contains("truncated"), "{e}");
    assert_eq!(score(&mut hub, fen), net);
    assert_eq!(set(&mut hub, "eval", "patterns"), None);
    assert_eq!(score(&mut hub, fen), patterns);
    hub.send("quit");
    let _ = std::fs::remove_dir_all(&dir);
}
