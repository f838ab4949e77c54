//! Where the games of a match start: the english three-move ballots, openings read from a
//! file (PDN games, or one position and/or move list per line), or short random openings
//! that tammi's own search finds balanced.
//!
//! Every opening is replayed against the rules when it is loaded, so a bad file is refused
//! before any engine is started, and the runner can trust the moves it sends.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};

use crate::notation::{format_hub_move, parse_move, parse_position, write_fen};
use crate::pdn::{self, ReadOptions};
use crate::rng::SplitMix64;
use crate::rules::{Board, Notation, Variant, outcome};
use crate::search::engine::{Engine, Score};
use crate::search::limits::{EngineOptions, Limits};
use crate::with_board;

/// The 156 three-move ballots of the english tournament deck (ACF numbering).
pub const ENGLISH_BALLOTS: &str = include_str!("ballots_english.txt");

/// A start for a pair of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// A name to show (`ACF 12`, or the text after `#` in a file line).
    pub name: Option<String>,
    /// The position the game starts from, as a PDN FEN with numeric squares.
    pub start: String,
    /// The opening moves played from `start`, in the Hub form (`32-28`, `28x19x23`).
    pub moves: Vec<String>,
}

/// The english ballots, in ACF order.
pub fn english_ballots() -> Vec<Opening> {
    parse_lines(Variant::English, ENGLISH_BALLOTS).expect("the built-in ballots are legal")
}

/// Read openings from a file: PDN (recognised by tag pairs or move numbers) or lines.
pub fn load(variant: Variant, path: &Path) -> Result<Vec<Opening>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let text = pdn::decode(&bytes);
    let openings = if looks_like_pdn(&text) {
        from_pdn(variant, &text)
    } else {
        parse_lines(variant, &text)
    }
    .with_context(|| format!("openings file {}", path.display()))?;
    if openings.is_empty() {
        bail!("openings file {} holds no opening", path.display());
    }
    Ok(openings)
}

/// PDN has tag pairs or numbered moves; the line format has neither.
fn looks_like_pdn(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with('[')
            || t.split_whitespace().any(|w| {
                let digits = w.trim_end_matches('.');
                w.ends_with('.') && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            })
    })
}

/// The line format: `[POSITION] [MOVE ...] [# NAME]`, one opening per line. POSITION is a
/// PDN FEN, a Hub position string or `start` (default: the start position); the moves are
/// in any form tammi reads. Empty lines and lines starting with `#` are skipped.
pub fn parse_lines(variant: Variant, text: &str) -> Result<Vec<Opening>> {
    with_board!(variant, P => parse_lines_with::<P>(text))
}

fn parse_lines_with<P: Board>(text: &str) -> Result<Vec<Opening>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let (body, name) = match raw.split_once('#') {
            Some((b, n)) => (b, Some(n.trim().to_string()).filter(|n| !n.is_empty())),
            None => (raw, None),
        };
        let tokens: Vec<&str> = body.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let (start, moves) = match parse_position::<P>(tokens[0]) {
            Ok(pos) => (pos, &tokens[1..]),
            Err(position_error) => {
                // Not a position: the whole line is moves from the start, unless the first
                // word is no move either, in which case both readings are explained.
                let start = P::start();
                let mut legal = Vec::new();
                start.generate(&mut legal);
                if let Err(move_error) = parse_move(&start, tokens[0], &legal) {
                    bail!(
                        "line {}: '{}' is neither a position ({position_error}) nor a move from the start ({move_error})",
                        i + 1,
                        tokens[0]
                    );
                }
                (start, &tokens[..])
            }
        };
        let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        let opening =
            replay::<P>(start, &moves, name).with_context(|| format!("line {}", i + 1))?;
        out.push(opening);
    }
    Ok(out)
}

/// Every game of a PDN text, its main line as the opening (its FEN tag as the start).
pub fn from_pdn(variant: Variant, text: &str) -> Result<Vec<Opening>> {
    let games = pdn::read_pdn(
        text,
        &ReadOptions {
            variant: Some(variant),
        },
    )?;
    let mut out = Vec::new();
    for g in &games {
        if g.variant != variant {
            bail!(
                "game {} is {} (its GameType tag), not {variant}",
                g.number,
                g.variant
            );
        }
        let gp = pdn::game_position(g, None)?;
        let name = g.tag("Opening").map(str::to_string);
        let opening = with_board!(variant, P => {
            let start: P = parse_position(&gp.start_fen).map_err(|e| anyhow!("{e}"))?;
            replay::<P>(start, &gp.moves, name)
        })
        .with_context(|| format!("game {}", g.number))?;
        out.push(opening);
    }
    Ok(out)
}

/// Check that `moves` are legal from `start` and leave a game to play; the opening in
/// the runner's form.
fn replay<P: Board>(start: P, moves: &[String], name: Option<String>) -> Result<Opening> {
    let mut pos = start;
    let mut legal = Vec::new();
    let mut hub = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        pos.generate(&mut legal);
        if outcome(&pos, !legal.is_empty()).is_some() {
            bail!("the game is over before move {} ('{text}')", i + 1);
        }
        let mv = parse_move(&pos, text, &legal).map_err(|e| anyhow!("move {}: {e}", i + 1))?;
        hub.push(format_hub_move::<P>(&mv));
        pos = pos.play(&mv);
    }
    pos.generate(&mut legal);
    if outcome(&pos, !legal.is_empty()).is_some() {
        bail!("the game is over at the end of the opening");
    }
    Ok(Opening {
        name,
        start: write_fen(&start, Notation::Numeric),
        moves: hub,
    })
}

/// How to make random balanced openings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenerateOptions {
    pub count: usize,
    /// Random plies from the start position.
    pub plies: usize,
    pub seed: u64,
    /// Depth of the search that judges the balance.
    pub depth: u32,
    /// Largest score kept, in men (from the side to move's view; 0.25 = a quarter man).
    pub margin: f64,
}

/// The default length of random openings: enough for variety without leaving the opening
/// stage (the small boards run out of quiet moves sooner).
pub fn default_plies(variant: Variant) -> usize {
    match variant.width() {
        8 => 4,
        _ => 6,
    }
}

/// Shuffle in place, reproducibly from `seed` (Fisher–Yates).
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// Random openings of `plies` plies from the start, each kept only when a fixed-depth
/// search by tammi scores the position within `margin` men (a fixed depth on one thread
/// with a cleared hash table is deterministic, so a seed always gives the same set), and
/// each final position only once.
pub fn generate(variant: Variant, o: &GenerateOptions) -> Result<Vec<Opening>> {
    with_board!(variant, P => generate_with::<P>(o))
}

fn generate_with<P: Board>(o: &GenerateOptions) -> Result<Vec<Opening>> {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 8,
        ..EngineOptions::default()
    })
    .map_err(|e| anyhow!(e))?;
    let mut rng = SplitMix64::new(o.seed);
    let start = P::start();
    let start_fen = write_fen(&start, Notation::Numeric);
    let margin = (o.margin * 100.0).round() as i32;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut legal = Vec::new();
    let attempts = o.count * 200 + 1000;
    for _ in 0..attempts {
        if out.len() >= o.count {
            break;
        }
        let mut pos = start;
        let mut moves = Vec::with_capacity(o.plies);
        let mut alive = true;
        for _ in 0..o.plies {
            pos.generate(&mut legal);
            if outcome(&pos, !legal.is_empty()).is_some() {
                alive = false;
                break;
            }
            let mv = legal[rng.below(legal.len())];
            moves.push(format_hub_move::<P>(&mv));
            pos = pos.play(&mv);
        }
        pos.generate(&mut legal);
        if !alive || outcome(&pos, !legal.is_empty()).is_some() || !seen.insert(Board::hash(&pos)) {
            continue;
        }
        engine.new_game();
        engine
            .set_position(P::VARIANT, &start_fen, &moves)
            .map_err(|e| anyhow!(e))?;
        let done = engine.think(Limits::depth(o.depth.max(1)), |_| {});
        if matches!(done.score, Some(Score::Eval(c)) if c.abs() <= margin) {
            out.push(Opening {
                name: None,
                start: start_fen.clone(),
                moves,
            });
        }
    }
    if out.is_empty() {
        bail!(
            "no balanced {}-ply {} opening found (score within {} men at depth {}); try other --opening-plies or --opening-margin",
            o.plies,
            P::VARIANT,
            o.margin,
            o.depth
        );
    }
    Ok(out)
}
