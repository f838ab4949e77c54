//! `tammi tune games`: self-play games at a small fixed budget; every quiet position
//! (no capture for either side) after the opening is written with the game's result.
//!
//! Game *i* is seeded by (`--seed`, *i*) and games are written in order, so a file
//! depends only on the flags: shards by seed range can be played on different machines
//! and given together to `tune fit`, or joined by `tune merge`. The positions are text
//! lines or, with `--format bin`, the binary records of [`super::record`]; either way
//! `OUT.part.done` records the byte offset after the last whole game, where a run cut
//! short goes on.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::data::DataFormat;
use super::label::EvalConfig;
use super::record;
use crate::egdb::{Database, Wld};
use crate::matches::openings::english_ballots;
use crate::notation::{format_hub_move, parse_move, parse_position, write_fen};
use crate::rng::{MixChain, splitmix64};
use crate::rules::{Board, Color, Game, Notation, Outcome, Variant};
use crate::search::engine::Engine;
use crate::search::limits::{EngineOptions, Limits};
use crate::search::search::MAX_DEPTH;
use crate::with_board;

/// What `tune games` does: `games` self-play games of `variant`, their quiet positions
/// written to `out` (through `out.part`, resumed from it). The fields are the command's
/// flags (see `tammi tune games --help`).
#[derive(Clone, Debug)]
pub struct GamesConfig {
    /// Variant of the games.
    pub variant: Variant,
    /// Games to play.
    pub games: usize,
    /// Output file.
    pub out: PathBuf,
    /// Nodes per move (the default budget, 4000 when neither this nor `depth` is given).
    pub nodes: Option<u64>,
    /// Depth per move instead of nodes (used when both are given).
    pub depth: Option<u32>,
    /// Games played at once (one engine each).
    pub threads: usize,
    /// Random legal moves after the opening.
    pub random_plies: usize,
    /// Seed of the random plies (with the game number: the same flags give the same file).
    pub seed: u64,
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// Hash table per engine, MiB.
    pub hash: usize,
    /// Play with the weights of this file instead of the built-in ones.
    pub weights: Option<PathBuf>,
    pub evaluation: EvalConfig,
    /// Play with this endgame database and end each game where it knows the result.
    pub egdb: Option<PathBuf>,
    /// Stop after writing this many games in this run (to test resumption).
    pub stop_after: Option<usize>,
    /// Text lines or binary records ([`super::record`]).
    pub format: DataFormat,
}

/// What OUT.part holds of a run cut short: games and positions written, White's losses,
/// draws and wins, and the bytes of OUT.part they end at.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Done {
    games: usize,
    positions: usize,
    score: [usize; 3],
    bytes: u64,
}

impl Done {
    fn path(part: &std::path::Path) -> PathBuf {
        PathBuf::from(format!("{}.done", part.display()))
    }

    /// Recorded after each game written (under another name, then renamed: the record
    /// is always whole, and never ahead of OUT.part, which is flushed first).
    fn record(&self, part: &std::path::Path) -> std::io::Result<()> {
        let path = Done::path(part);
        let tmp = PathBuf::from(format!("{}.tmp", path.display()));
        let [l, d, w] = self.score;
        std::fs::write(
            &tmp,
            format!(
                "{} {} {l} {d} {w} {}\n",
                self.games, self.positions, self.bytes
            ),
        )?;
        std::fs::rename(&tmp, &path)
    }

    /// The record beside `part`, if there is one that `part` (starting with `header`)
    /// bears out.
    fn read(part: &std::path::Path, header: &[u8]) -> Option<Done> {
        let text = std::fs::read_to_string(Done::path(part)).ok()?;
        let n: Vec<u64> = text
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        let [games, positions, l, d, w, bytes] = n[..] else {
            return None;
        };
        let head = std::fs::read(part).ok()?;
        (head.len() as u64 >= bytes && head.starts_with(header)).then_some(Done {
            games: games as usize,
            positions: positions as usize,
            score: [l as usize, d as usize, w as usize],
            bytes,
        })
    }
}

/// The generator of game `game`'s opening and random plies: seeded by (`seed`, `game`)
/// alone, so a game does not depend on the others or on the thread that plays it.
fn game_rng(seed: u64, game: usize) -> MixChain {
    MixChain::new(splitmix64(seed ^ splitmix64(game as u64)))
}

/// One finished game: its quiet positions (FEN, or packed for the binary format) and
/// White's score.
struct GameData {
    fens: Vec<String>,
    packed: Vec<u8>,
    positions: usize,
    result: f64,
}

/// Run `tune games`; progress goes to standard error.
pub fn run_games(a: &GamesConfig) -> Result<()> {
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    if !(1..=EngineOptions::MAX_THREADS).contains(&a.threads) {
        bail!(
            "--threads must be between 1 and {}",
            EngineOptions::MAX_THREADS
        );
    }
    if a.nodes == Some(0) || a.depth == Some(0) {
        bail!("--nodes and --depth must be at least 1");
    }
    if let Some(d) = a.depth
        && d > MAX_DEPTH as u32
    {
        bail!("--depth must be at most {MAX_DEPTH}, got {d}");
    }
    if a.max_plies == 0 {
        bail!("--max-plies must be at least 1");
    }
    if a.random_plies >= a.max_plies {
        bail!(
            "--random-plies ({}) must be below --max-plies ({}): every game would end in random moves",
            a.random_plies,
            a.max_plies
        );
    }
    if !(1..=EngineOptions::MAX_HASH_MB).contains(&a.hash) {
        bail!(
            "--hash must be between 1 and {} MiB, got {}",
            EngineOptions::MAX_HASH_MB,
            a.hash
        );
    }
    let eval = crate::tuning::label::eval_settings(a.variant, a.weights.as_deref(), &a.evaluation)?;
    // Read here too: the games end where it knows the result.
    let egdb = crate::tuning::label::tuning_egdb(a.variant, a.egdb.as_deref())?
        .map(|(file, unread)| unread.read().map(|db| (file, db)))
        .transpose()?;
    let limits = match (a.nodes, a.depth) {
        (_, Some(d)) => Limits::depth(d),
        (n, None) => Limits::nodes(n.unwrap_or(4000)),
    };
    let budget = match (a.nodes, a.depth) {
        (_, Some(d)) => format!("depth {d}"),
        (n, None) => format!("nodes {}", n.unwrap_or(4000)),
    };
    let openings: Vec<(String, Vec<String>)> = if a.variant == Variant::English {
        english_ballots()
            .into_iter()
            .map(|o| (o.start, o.moves))
            .collect()
    } else {
        vec![("start".to_string(), Vec::new())]
    };
    // Written to OUT.part and renamed when every game is in: a file under its final name
    // is always whole, and merging shards never picks up half of one. A shard cut short
    // (a crash, a session's end) goes on from the games OUT.part.done says are there.
    let part = std::path::PathBuf::from(format!("{}.part", a.out.display()));
    let header_line = format!(
        "# tammi tune games: variant {}, {} games, {budget} per move, {} random plies, seed {}, max {} plies, weights {}, eval {}{}\n",
        a.variant,
        a.games,
        a.random_plies,
        a.seed,
        a.max_plies,
        a.weights
            .as_ref()
            .map_or("built-in".to_string(), |p| p.display().to_string()),
        a.evaluation.describe(a.variant),
        // Named only when given: the headers of earlier runs stay the same, and resume.
        egdb.as_ref()
            .map_or(String::new(), |(f, _)| format!(", egdb {}", f.display()))
    );
    let header = match a.format {
        DataFormat::Text => header_line.clone().into_bytes(),
        DataFormat::Bin => record::Header {
            variant: a.variant,
            scores: false,
            provenance: header_line[2..].trim_end().to_string(),
        }
        .to_bytes(),
    };
    let resumed = Done::read(&part, &header);
    let out = match resumed {
        Some(done) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&part)
                .and_then(|f| f.set_len(done.bytes).map(|()| f))
                .with_context(|| format!("cannot go on writing {}", part.display()))?;
            let mut out = BufWriter::new(file);
            use std::io::Seek;
            out.seek(std::io::SeekFrom::Start(done.bytes))?;
            eprintln!(
                "resuming {}: {} of {} games done",
                part.display(),
                done.games,
                a.games
            );
            out
        }
        None => {
            let file = std::fs::File::create(&part)
                .with_context(|| format!("cannot create {}", part.display()))?;
            let mut out = BufWriter::new(file);
            out.write_all(&header)?;
            out
        }
    };
    let from = resumed.unwrap_or(Done {
        bytes: header.len() as u64,
        ..Done::default()
    });
    let stop_at = a
        .stop_after
        .map_or(a.games, |n| (from.games + n).min(a.games));

    let next = AtomicUsize::new(from.games);
    // Finished games waiting to be written in order, the next index to write, totals.
    struct Shared<W> {
        pending: BTreeMap<usize, GameData>,
        written: usize,
        positions: usize,
        score: [usize; 3],
        bytes: u64,
        out: W,
        error: Option<std::io::Error>,
    }
    let shared = Mutex::new(Shared {
        pending: BTreeMap::new(),
        written: from.games,
        positions: from.positions,
        score: from.score,
        bytes: from.bytes,
        out,
        error: None,
    });
    let start = Instant::now();
    let mut last_report = Instant::now();
    let progress = |s: &Shared<BufWriter<std::fs::File>>, done: bool| {
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        use std::io::IsTerminal;
        let tty = std::io::stderr().is_terminal();
        if !tty && done {
            return;
        }
        eprint!(
            "{}games {}/{}  positions {}  {:.1} games/s  {:.0} s{}",
            if tty { "\r" } else { "" },
            s.written,
            a.games,
            s.positions,
            (s.written - from.games) as f64 / secs,
            secs,
            if done || !tty { "\n" } else { "" }
        );
    };
    let failure: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..a.threads {
            scope.spawn(|| {
                let options = EngineOptions {
                    threads: 1,
                    hash_mb: a.hash,
                    egdb: egdb.as_ref().map(|(file, _)| file.clone()),
                    ..EngineOptions::default()
                };
                let mut engine = match Engine::new(options) {
                    Ok(mut e) => {
                        e.set_eval(eval.clone());
                        e
                    }
                    Err(e) => {
                        *failure.lock().unwrap() = Some(e);
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= stop_at || failure.lock().unwrap().is_some() {
                        return;
                    }
                    let mut rng = game_rng(a.seed, i);
                    let (start_fen, moves) = &openings[rng.below(openings.len())];
                    let game = with_board!(a.variant, P => play_game::<P>(
                        &mut engine, &limits, start_fen, moves, &mut rng, a,
                        egdb.as_ref().map(|(_, db)| db)
                    ));
                    let game = match game {
                        Ok(g) => g,
                        Err(e) => {
                            *failure.lock().unwrap() = Some(format!("game {}: {e}", i + 1));
                            return;
                        }
                    };
                    let mut s = shared.lock().unwrap();
                    s.pending.insert(i, game);
                    loop {
                        let at = s.written;
                        let Some(g) = s.pending.remove(&at) else {
                            break;
                        };
                        let result = if g.result == 1.0 {
                            "1"
                        } else if g.result == 0.0 {
                            "0"
                        } else {
                            "0.5"
                        };
                        s.score[(g.result * 2.0) as usize] += 1;
                        s.positions += g.positions;
                        s.written += 1;
                        for f in &g.fens {
                            let line = format!("{f} {result}\n");
                            s.bytes += line.len() as u64;
                            if let Err(e) = s.out.write_all(line.as_bytes()) {
                                s.error.get_or_insert(e);
                            }
                        }
                        if a.format == DataFormat::Bin {
                            match record::write_game(
                                &mut s.out, a.variant, g.result, &g.packed, None,
                            ) {
                                Ok(n) => s.bytes += n,
                                Err(e) => {
                                    s.error.get_or_insert(e);
                                }
                            }
                        }
                        let record = Done {
                            games: s.written,
                            positions: s.positions,
                            score: s.score,
                            bytes: s.bytes,
                        };
                        if let Err(e) = s.out.flush().and_then(|()| record.record(&part)) {
                            s.error.get_or_insert(e);
                        }
                    }
                }
            });
        }
        // Progress from this thread while the workers play.
        loop {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let s = shared.lock().unwrap();
            if s.written >= stop_at || failure.lock().unwrap().is_some() {
                break;
            }
            if last_report.elapsed().as_secs_f64() >= 2.0 {
                progress(&s, false);
                last_report = Instant::now();
            }
        }
    });
    if let Some(e) = failure.into_inner().unwrap() {
        bail!("{e}");
    }
    let mut s = shared.into_inner().unwrap();
    progress(&s, true);
    if s.written < a.games {
        if let Some(e) = s.error.take() {
            return Err(e).with_context(|| format!("writing {}", part.display()));
        }
        eprintln!(
            "{}: stopped after {} of {} games (--stop-after); run again to go on",
            part.display(),
            s.written,
            a.games
        );
        return Ok(());
    }
    let totals = record::Totals {
        games: s.written as u64,
        positions: s.positions as u64,
        score: s.score.map(|x| x as u64),
    };
    let line = totals.footer();
    match a.format {
        DataFormat::Text => writeln!(s.out, "{line}")?,
        DataFormat::Bin => s.out.write_all(&totals.end_record())?,
    }
    if let Some(e) = s.error.take() {
        return Err(e).with_context(|| format!("writing {}", part.display()));
    }
    s.out
        .flush()
        .with_context(|| format!("writing {}", part.display()))?;
    drop(s);
    std::fs::rename(&part, &a.out)
        .with_context(|| format!("cannot rename {} to {}", part.display(), a.out.display()))?;
    let _ = std::fs::remove_file(Done::path(&part));
    eprintln!("{}: {}", a.out.display(), &line[2..]);
    Ok(())
}

/// A database value for the side to move as White's result.
fn white_result(value: Wld, side: Color) -> f64 {
    let won = match value {
        Wld::Win => 1.0,
        Wld::Draw => 0.5,
        Wld::Loss => 0.0,
    };
    if side == Color::White { won } else { 1.0 - won }
}

/// Whether the side to move in `pos` has a capture.
fn has_capture<P: Board>(pos: &P, list: &mut Vec<crate::rules::Move<P::B>>) -> bool {
    pos.generate(list);
    list.first().is_some_and(|m| m.is_capture())
}

fn play_game<P: Board>(
    engine: &mut Engine,
    limits: &Limits,
    start_fen: &str,
    opening: &[String],
    rng: &mut MixChain,
    a: &GamesConfig,
    egdb: Option<&Database>,
) -> Result<GameData, String> {
    let start: P = parse_position(start_fen).map_err(|e| e.to_string())?;
    let mut game = Game::new(start);
    let mut scratch = Vec::new();
    let mut fens = Vec::new();
    let (mut packed, mut positions) = (Vec::new(), 0);
    // The engine gets the position after the last capture or promotion and the moves
    // since: its draw counters and repetition history come out the same as from the
    // start, without replaying the whole game before every move.
    let mut anchor = start_fen.to_string();
    let mut since: Vec<String> = Vec::new();
    engine.new_game();
    let book = opening.len() + a.random_plies;
    let result = loop {
        match game.outcome() {
            Some(Outcome::Win(Color::White)) => break 1.0,
            Some(Outcome::Win(Color::Black)) => break 0.0,
            Some(Outcome::Draw(_)) => break 0.5,
            None if game.ply() >= a.max_plies => break 0.5,
            None => {}
        }
        let (pos, legal) = (*game.position(), game.legal_moves());
        let ply = game.ply();
        let mv = if ply < opening.len() {
            parse_move(&pos, &opening[ply], &legal).map_err(|e| e.to_string())?
        } else if ply < book {
            legal[rng.below(legal.len())]
        } else {
            if !legal[0].is_capture() && !has_capture(&pos.pass(), &mut scratch) {
                match a.format {
                    DataFormat::Text => fens.push(write_fen(&pos, Notation::Numeric)),
                    DataFormat::Bin => record::pack(&pos, &mut packed),
                }
                positions += 1;
            }
            // The database knows the rest of the game (its value ignores the draw
            // counters, as the search's probes do).
            if let Some(value) = egdb.and_then(|db| db.probe(&pos)) {
                break white_result(value, pos.side());
            }
            engine.set_position(P::VARIANT, &anchor, &since)?;
            let done = engine.think(limits.clone(), |_| {});
            match done.best_among(&legal) {
                Some(mv) => mv,
                None if done.best_move.is_none() => return Err("the engine gave no move".into()),
                None => {
                    return Err(format!(
                        "the engine's move {:?} is not legal",
                        done.best_move
                    ));
                }
            }
        };
        game.play(&mv).map_err(|e| e.to_string())?;
        // Re-anchored only where the FEN holds the whole position: frisian's count of a
        // king's moves in a row (art. 12) is not in the FEN and survives the other side's
        // capture or promotion, so there the moves since the last anchor are kept.
        let fen = (game.counters().material == 0)
            .then(|| write_fen(game.position(), Notation::Numeric))
            .filter(|fen| parse_position::<P>(fen).is_ok_and(|p| p == *game.position()));
        match fen {
            Some(fen) => {
                anchor = fen;
                since.clear();
            }
            None => since.push(format_hub_move::<P>(&mv)),
        }
    };
    Ok(GameData {
        fens,
        packed,
        positions,
        result,
    })
}
