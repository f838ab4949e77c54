//! `tammi bench`: fixed positions searched to a fixed depth on one thread with a fresh
//! table. The total node count is the search's signature: it changes only when the
//! search or the evaluation changes behaviour.

use std::time::{Duration, Instant};

use crate::eval::EvalSettings;
use crate::rules::Variant;

use super::engine::Engine;
use super::limits::{EngineOptions, Limits};

/// The default depth of `tammi bench`.
pub const DEFAULT_DEPTH: u32 = 14;

/// (variant, FEN): the start and positions from self-play games (opening, middlegame,
/// ending) of every seed variant. Never change them without saying so: they define the
/// signature.
pub const POSITIONS: &[(Variant, &str)] = &[
    (Variant::International, "start"),
    (
        Variant::International,
        "W:W23,29,31,35,36,37,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,14,15,16,17,19",
    ),
    (
        Variant::International,
        "W:W27,28,30,31,32,35,36,37,40,42,43,46,47,48,49,50:B1,2,3,5,6,7,9,13,14,15,16,17,18,19,21,24",
    ),
    (
        Variant::International,
        "W:W25,32,33,35,37,38,39,42,44,46,47,49:B1,2,4,6,8,10,14,16,18,19,20,23,24,31",
    ),
    (
        Variant::International,
        "W:W25,27,34,37,40,43,48:B5,7,16,19,23,24,28",
    ),
    (Variant::English, "start"),
    (
        Variant::English,
        "B:W20,21,24,26,28,29,30,31,32:B1,2,3,4,5,6,12,14,15",
    ),
    (Variant::English, "B:W6,22,23,24,29,32:B2,3,4,10,15"),
    (Variant::English, "B:WK7,15,20,21,25:B1,8,12,23,K31"),
    (Variant::English, "B:W7,K15,21,30:B13,14,K29,K31"),
    (Variant::Russian, "start"),
    (
        Variant::Russian,
        "W:Wd4,f4,a3,g3,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,g7,b6,d6,h6,e5",
    ),
    (
        Variant::Russian,
        "W:Wa5,b4,h4,e3,g3,b2,h2,c1:Bb8,h8,c7,f6,h6,e5,g5",
    ),
    (Variant::Russian, "W:Wb2,f2,h2:Bd8,e7,f6,h6,b4"),
    (Variant::Brazilian, "start"),
    (
        Variant::Brazilian,
        "W:Wf4,h4,a3,c3,e3,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,g7,d6,f6,h6,a5,c5",
    ),
    (
        Variant::Brazilian,
        "W:Wd4,f4,h4,e3,b2,d2,h2,e1:Ba7,e7,g7,f6,h6,a5,c5",
    ),
    (Variant::Brazilian, "W:WKb8,c5:Be7,g7,g5,Kh2"),
    (Variant::Canadian, "start"),
    (
        Variant::Canadian,
        "W:W37,39,48,49,50,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17,18,19,20,21,24,25,26,27,30",
    ),
    (
        Variant::Canadian,
        "W:W31,42,44,45,46,47,49,51,52,54,55,58,60,61,63,65,66,67,68,69,70,71,72:B1,2,3,4,5,6,8,10,13,14,17,18,20,21,22,24,27,28,29,32,34",
    ),
    (Variant::Turkish, "start"),
    (
        Variant::Turkish,
        "W:Wa2,b2,d2,e2,f2,g2,h2,b3,c3,d3,e3,g3,h3,a4,d4,e4:Bb5,f5,g5,h5,a6,c6,d6,e6,f6,g6,a7,b7,c7,d7,e7,h7",
    ),
    (
        Variant::Turkish,
        "W:Wa2,c2,e2,g2,a3,b3,c3,d3,e3,h3,b4,d4,e4:Ba5,c5,a6,b6,c6,d6,e6,f6,b7,d7,f7,h7",
    ),
    (
        Variant::Turkish,
        "W:Wb2,d2,h2,c3,g3,h3,a4,b4,d4,g4,a5:Bh5,a6,b6,c6,d6,h6,a7,c7,f7",
    ),
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
    each: impl FnMut(&BenchLine),
) -> Vec<BenchLine> {
    run_positions(depth, threads, None, &EvalSettings::default(), each)
}

/// The same for the positions of `only` (all: `None`) evaluated as `eval` says, for
/// timing one variant's search (say with its network evaluation against its patterns).
pub fn run_positions(
    depth: u32,
    threads: usize,
    only: Option<Variant>,
    eval: &EvalSettings,
    mut each: impl FnMut(&BenchLine),
) -> Vec<BenchLine> {
    let options = EngineOptions {
        threads,
        hash_mb: 16,
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(options).expect("bench options are valid");
    engine.set_eval(eval.clone());
    let mut out = Vec::new();
    for &(variant, fen) in POSITIONS {
        if only.is_some_and(|v| v != variant) {
            continue;
        }
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
