//! `tammi bench`: fixed positions searched to a fixed depth on one thread with a fresh
//! table. The total node count is the search's signature: it changes only when the
//! search or the evaluation changes behaviour.

use std::time::{Duration, Instant};

use crate::rules::Variant;

use super::engine::Engine;
use super::limits::{EngineOptions, Limits};

/// The default depth of `tammi bench`.
pub const DEFAULT_DEPTH: u32 = 12;

/// (variant, FEN): openings, middlegames and endings of every seed variant.
pub const POSITIONS: &[(Variant, &str)] = &[
    (Variant::International, "start"),
    (Variant::English, "start"),
    (Variant::Russian, "start"),
    (Variant::Brazilian, "start"),
    (Variant::Canadian, "start"),
    (Variant::Turkish, "start"),
];

/// One position's result.
#[derive(Clone, Debug)]
pub struct BenchLine {
    pub variant: Variant,
    pub fen: &'static str,
    pub nodes: u64,
    pub time: Duration,
    pub best: Option<String>,
}

/// Search every bench position to `depth` on one thread (the signature); `each` sees
/// every result as it comes.
pub fn run(depth: u32, each: impl FnMut(&BenchLine)) -> Vec<BenchLine> {
    run_with_threads(depth, 1, each)
}

/// The same with `threads` threads (for timing: node counts then vary between runs).
pub fn run_with_threads(
    depth: u32,
    threads: usize,
    mut each: impl FnMut(&BenchLine),
) -> Vec<BenchLine> {
    let options = EngineOptions {
        threads,
        hash_mb: 16,
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(options).expect("bench options are valid");
    let mut out = Vec::new();
    for &(variant, fen) in POSITIONS {
        engine
            .set_position(variant, fen, &[])
            .unwrap_or_else(|e| panic!("bench position {variant} {fen}: {e}"));
        engine.new_game();
        let t = Instant::now();
        let done = engine.think(Limits::depth(depth), |_| {});
        let line = BenchLine {
            variant,
            fen,
            nodes: done.nodes,
            time: t.elapsed(),
            best: done.best_text,
        };
        each(&line);
        out.push(line);
    }
    out
}
