//! Playing the games: the rules, the clocks, adjudication, faults, and several games at
//! once.
//!
//! The runner owns the game: it keeps the position, checks every move an engine gives
//! against the legal moves, counts the clocks, applies the variant's draw rules and ends
//! the game. Engines only ever see `pos pos=<start> moves="<every move so far>"`, `level`
//! lines and `go think`, so each knows the whole history (repetitions, draw counters).
//!
//! Game `g` (from 0) uses opening `g / 2` (cycling through the list) and engine 1 plays
//! White when `g` is even, Black when it is odd: each opening is played twice with the
//! colours reversed. `--concurrency C` runs C workers, each with its own pair of engine
//! processes, taking the next game number from a shared counter.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use crossbeam_channel::{Sender, unbounded};

use super::engine::{EngineSpec, HubEngine, Log, SearchEnd};
use super::openings::Opening;
use super::stats::{Pentanomial, Sprt, SprtVerdict, Wdl};
use crate::notation::{format_hub_move, parse_move, parse_position, write_fen, write_hub_position};
use crate::pdn::{self, Game, Line, PdnMove, Pos, Tag, WriteOptions};
use crate::rules::{Board, Color, DrawReason, Move, Notation, Outcome, Variant};
use crate::with_board;

/// The fixed part of the time-forfeit margin (`--time-margin`): pipes, process
/// scheduling and a loaded machine delay a `done` by a few milliseconds.
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(50);
/// The proportional part: 10% of the time the move was allowed.
pub const MARGIN_SHARE: f64 = 0.10;

/// A game clock: `time` seconds (for every `moves` moves, or the whole game), plus `inc`
/// added before each move (the Hub convention, this move included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub time: Duration,
    pub inc: Duration,
    pub moves: Option<u32>,
}

impl Clock {
    /// `60`, `60+0.5`, `40/60+0.5` (seconds; moves per control before the `/`).
    pub fn parse(text: &str) -> Result<Clock, String> {
        let bad = || {
            format!(
                "'{text}' is not a time control (expected SECONDS[+INCREMENT], e.g. 60+0.5, or MOVES/SECONDS[+INCREMENT])"
            )
        };
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (
                Some(
                    m.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|&m| m > 0)
                        .ok_or_else(bad)?,
                ),
                r,
            ),
            None => (None, text),
        };
        let (time, inc) = match rest.split_once('+') {
            Some((t, i)) => (t, Some(i)),
            None => (rest, None),
        };
        let seconds = |s: &str| -> Result<Duration, String> {
            let x: f64 = s.trim().parse().map_err(|_| bad())?;
            if !(0.0..1e7).contains(&x) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(x))
        };
        let time = seconds(time)?;
        let inc = inc.map(seconds).transpose()?.unwrap_or_default();
        if time.is_zero() && inc.is_zero() {
            return Err(format!("'{text}': the clock needs some time"));
        }
        Ok(Clock { time, inc, moves })
    }

    /// The PGN-style form: `40/60+0.5`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(m) = self.moves {
            s.push_str(&format!("{m}/"));
        }
        s.push_str(&seconds_text(self.time));
        if !self.inc.is_zero() {
            s.push('+');
            s.push_str(&seconds_text(self.inc));
        }
        s
    }
}

fn seconds_text(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What limits each search. With neither a clock nor a move time, a search that takes
/// longer than `move_timeout` is lost on time (it is a hang guard, not a time control).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    pub clock: Option<Clock>,
    pub move_time: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

impl TimeControl {
    /// For reports and the PDN TimeControl tag: `60+0.5`, `0.1s/move`, `depth 8`, …
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.clock {
            parts.push(c.describe());
        }
        if let Some(t) = self.move_time {
            parts.push(format!("{}s/move", seconds_text(t)));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        parts.join(", ")
    }
}

/// Adjudication by the engines' scores: `score` men, over the last `plies` scored plies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreRule {
    pub score: f64,
    pub plies: usize,
}

impl ScoreRule {
    /// `SCORE,PLIES`, e.g. `0.05,20`.
    pub fn parse(text: &str) -> Result<ScoreRule, String> {
        let bad = || format!("'{text}': expected SCORE,PLIES (score in men, e.g. 0.05,20)");
        let (s, p) = text.split_once(',').ok_or_else(bad)?;
        let score: f64 = s.trim().parse().map_err(|_| bad())?;
        let plies: usize = p.trim().parse().map_err(|_| bad())?;
        if !(score.is_finite() && score >= 0.0) || plies == 0 {
            return Err(bad());
        }
        Ok(ScoreRule { score, plies })
    }
}

/// How progress is shown on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressStyle {
    /// One line rewritten in place (standard error is a terminal).
    Live,
    /// One line per finished game.
    Lines,
    Quiet,
}

impl ProgressStyle {
    pub fn detect() -> ProgressStyle {
        if std::io::stderr().is_terminal() {
            ProgressStyle::Live
        } else {
            ProgressStyle::Lines
        }
    }
}

/// Everything a match needs.
pub struct MatchConfig {
    pub variant: Variant,
    pub engines: [EngineSpec; 2],
    pub games: usize,
    pub tc: TimeControl,
    pub move_timeout: Duration,
    /// The fixed part of the forfeit margin.
    pub margin: Duration,
    pub concurrency: usize,
    /// A game reaching this many plies (opening included) is drawn.
    pub max_plies: usize,
    pub draw_rule: Option<ScoreRule>,
    pub win_rule: Option<ScoreRule>,
    pub openings: Vec<Opening>,
    /// What the openings are, for the report.
    pub openings_label: String,
    pub sprt: Option<Sprt>,
    pub pdn: Option<PathBuf>,
    pub event: String,
    pub site: String,
    pub log: Option<Log>,
    pub progress: ProgressStyle,
    /// Where to report each game's start, each move and each game's end as they happen
    /// (`tammi gui`'s Watch view); `None` for `tammi match`, whose output is the same
    /// either way. Sending is a channel push per move, nothing on an engine's clock.
    pub observer: Option<Sender<MatchEvent>>,
    /// Set from outside to end the match at once: the search under way is cut short,
    /// the unfinished game is dropped (neither counted nor written) and the engines are
    /// killed. For a watcher that went away; `tammi match` has none.
    pub abort: Option<Arc<AtomicBool>>,
}

/// What [`MatchConfig::observer`] is told, in the order it happens in each game. With
/// `concurrency` above 1 the events of different games interleave (each names its
/// game). Engines are 0 (engine 1) and 1 (engine 2); moves are in the Hub form; clocks
/// are `[White's, Black's]` time left, present only with a game clock (`--tc`).
#[derive(Clone, Debug, PartialEq)]
pub enum MatchEvent {
    GameStart {
        /// Game number from 0.
        game: usize,
        variant: Variant,
        /// The opening's start position as a FEN.
        start: String,
        /// The opening's moves, played from `start` before the engines take over.
        opening: Vec<String>,
        /// The names of White's and Black's engines (as in the report and PDN).
        names: [String; 2],
        /// Which engine has White.
        white: usize,
        clocks: Option<[Duration; 2]>,
    },
    Move {
        game: usize,
        /// The ply this move makes, from 1, the opening's moves included.
        ply: usize,
        side: Color,
        mv: String,
        /// Thinking time, from `go` to the arrival of `done`.
        elapsed: Duration,
        /// The engine's last score, in men from the mover's view.
        score: Option<f64>,
        /// After this move (the increment was added before it).
        clocks: Option<[Duration; 2]>,
    },
    GameEnd {
        game: usize,
        /// `None`: a draw.
        winner: Option<Color>,
        /// Which engine had White.
        white: usize,
        /// `1-0`, `0-1` or `1/2-1/2`.
        result: &'static str,
        /// As the PDN Termination tag says it.
        termination: String,
        detail: Option<String>,
    },
}

fn notify(cfg: &MatchConfig, event: impl FnOnce() -> MatchEvent) {
    if let Some(tx) = &cfg.observer {
        // An observer that went away changes nothing for the match.
        let _ = tx.send(event());
    }
}

fn aborted(cfg: &MatchConfig) -> bool {
    cfg.abort
        .as_ref()
        .is_some_and(|a| a.load(Ordering::Relaxed))
}

/// Why an engine lost a game outside the rules of draughts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    IllegalMove,
    TimeForfeit,
    Crash,
    Unresponsive,
}

impl Fault {
    pub const ALL: [Fault; 4] = [
        Fault::IllegalMove,
        Fault::TimeForfeit,
        Fault::Crash,
        Fault::Unresponsive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::IllegalMove => "illegal move",
            Fault::TimeForfeit => "time forfeit",
            Fault::Crash => "crash",
            Fault::Unresponsive => "unresponsive",
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules: the side to move had no legal move (or, in breakthrough, a king).
    Normal,
    Repetition,
    /// The variant's rule of so many moves each without progress.
    MoveRule(u16),
    /// The FMJD few-pieces endings (and russian 3 against 1).
    FewPieces,
    MaxPlies,
    DrawScore,
    WinScore,
    /// Engine `engine` (0 or 1) answered `done` with no move while it had legal moves:
    /// by the Hub protocol that says its game is over, so it gave the game up.
    NoMove {
        engine: usize,
    },
    /// Engine `engine` (0 or 1) lost by this fault.
    Fault {
        engine: usize,
        fault: Fault,
    },
}

impl Ending {
    /// The PDN Termination tag.
    pub fn termination(&self) -> String {
        match self {
            Ending::Normal => "normal".into(),
            Ending::Repetition => "adjudication: repetition".into(),
            Ending::MoveRule(n) => format!("adjudication: {n}-move rule"),
            Ending::FewPieces => "adjudication: few pieces rule".into(),
            Ending::MaxPlies => "adjudication: maximum length".into(),
            Ending::DrawScore => "adjudication: draw by score".into(),
            Ending::WinScore => "adjudication: win by score".into(),
            Ending::NoMove { .. } => "resignation: no move given".into(),
            Ending::Fault { fault, .. } => fault.name().into(),
        }
    }

    /// For the summary of game ends: the termination without its `adjudication: ` prefix.
    pub fn short(&self) -> String {
        let t = self.termination();
        t.strip_prefix("adjudication: ").unwrap_or(&t).to_string()
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Game number from 0 (the Round tag is this + 1).
    pub index: usize,
    /// Which engine (0 or 1) had White.
    pub white: usize,
    pub opening: Opening,
    /// Every move from the opening's start, opening included, in the Hub form.
    pub moves: Vec<String>,
    /// `None`: a draw.
    pub winner: Option<Color>,
    pub ending: Ending,
    /// What went wrong, for a fault (also written as a PDN comment).
    pub detail: Option<String>,
}

impl GameRecord {
    pub fn engine_of(&self, color: Color) -> usize {
        if color == Color::White {
            self.white
        } else {
            1 - self.white
        }
    }

    /// Points (1, ½, 0) of engine `e`.
    pub fn points(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) if self.engine_of(c) == e => 1.0,
            Some(_) => 0.0,
        }
    }

    pub fn result_text(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// Running totals of a match.
#[derive(Clone, Debug)]
pub struct Tally {
    pub names: [String; 2],
    /// Engine 1's results.
    pub wdl: Wdl,
    pub penta: Pentanomial,
    /// Engine 1's points in the first finished game of each unfinished pair.
    half_pairs: HashMap<usize, f64>,
    pub white_wins: u32,
    pub black_wins: u32,
    pub draws: u32,
    /// Losses by fault, per engine, in the order of [`Fault::ALL`].
    pub faults: [[u32; 4]; 2],
    pub restarts: [u32; 2],
    /// Game ends by kind, in order of first appearance.
    pub endings: Vec<(String, u32)>,
}

impl Tally {
    pub fn new(names: [String; 2]) -> Tally {
        Tally {
            names,
            wdl: Wdl::default(),
            penta: Pentanomial::default(),
            half_pairs: HashMap::new(),
            white_wins: 0,
            black_wins: 0,
            draws: 0,
            faults: [[0; 4]; 2],
            restarts: [0; 2],
            endings: Vec::new(),
        }
    }

    pub fn add(&mut self, g: &GameRecord) {
        let p = g.points(0);
        if p == 1.0 {
            self.wdl.wins += 1;
        } else if p == 0.0 {
            self.wdl.losses += 1;
        } else {
            self.wdl.draws += 1;
        }
        match g.winner {
            Some(Color::White) => self.white_wins += 1,
            Some(Color::Black) => self.black_wins += 1,
            None => self.draws += 1,
        }
        let pair = g.index / 2;
        match self.half_pairs.remove(&pair) {
            Some(first) => self.penta.counts[((first + p) * 2.0).round() as usize] += 1,
            None => {
                self.half_pairs.insert(pair, p);
            }
        }
        if let Ending::Fault { engine, fault } = g.ending {
            let k = Fault::ALL.iter().position(|&f| f == fault).expect("listed");
            self.faults[engine][k] += 1;
        }
        let kind = g.ending.short();
        match self.endings.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.endings.push((kind, 1)),
        }
    }

    pub fn games(&self) -> u32 {
        self.wdl.games()
    }
}

/// What workers tell the main thread.
enum Message {
    Game(Box<GameRecord>),
    Restart(usize),
    Fatal(String),
}

/// The end of a match.
#[derive(Clone, Debug)]
pub struct MatchOutcome {
    pub tally: Tally,
    pub games: Vec<GameRecord>,
    /// The SPRT's ratio and verdict at the end (when one ran).
    pub sprt: Option<(f64, SprtVerdict)>,
    /// Why the match stopped before its last game (an SPRT decision, an engine that could
    /// not be started again).
    pub stopped: Option<String>,
    /// The match stopped because an engine could not be started again.
    pub failed: bool,
    pub elapsed: Duration,
}

/// Play the match; progress goes to standard error, nothing to standard output.
pub fn run(cfg: &MatchConfig) -> Result<MatchOutcome> {
    if cfg.openings.is_empty() {
        bail!("no openings");
    }
    if cfg.games == 0 || cfg.concurrency == 0 {
        bail!("the number of games and the concurrency must be at least 1");
    }
    with_board!(cfg.variant, P => run_with::<P>(cfg))
}

fn run_with<P: Board>(cfg: &MatchConfig) -> Result<MatchOutcome> {
    let started = Instant::now();
    let workers = cfg.concurrency.min(cfg.games);
    let mut pairs = Vec::with_capacity(workers);
    for w in 0..workers {
        let mut pair = Vec::with_capacity(2);
        for (e, spec) in cfg.engines.iter().enumerate() {
            let engine = HubEngine::start(
                spec,
                cfg.variant,
                &format!("w{}.e{}", w + 1, e + 1),
                cfg.log.clone(),
            )
            .with_context(|| format!("engine {}", e + 1))?;
            let mut engine = engine;
            engine.abort_on(cfg.abort.clone());
            pair.push(engine);
        }
        let second = pair.pop().expect("two engines");
        let first = pair.pop().expect("two engines");
        pairs.push([first, second]);
    }
    let names = display_names(&pairs[0]);
    let mut pdn_file = match &cfg.pdn {
        Some(path) => {
            Some(File::create(path).with_context(|| format!("cannot write {}", path.display()))?)
        }
        None => None,
    };
    let date = today();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = unbounded();
    let mut tally = Tally::new(names.clone());
    let mut games = Vec::new();
    let mut stopped = None;
    let mut failed = false;
    let mut sprt_state = cfg
        .sprt
        .map(|s| (s.llr(Wdl::default()), SprtVerdict::Continue));
    let mut progress = Progress::new(cfg.progress);
    progress.start(cfg, &tally, sprt_state);
    let mut unwritten = BTreeMap::new();
    let mut next_to_write = 0;
    let mut pdn_error = None;
    std::thread::scope(|scope| -> Result<()> {
        for (w, engines) in pairs.into_iter().enumerate() {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            std::thread::Builder::new()
                .name(format!("match-worker-{}", w + 1))
                .spawn_scoped(scope, move || worker::<P>(cfg, w, engines, next, stop, tx))
                .context("starting a worker thread")?;
        }
        drop(tx);
        for message in rx {
            match message {
                Message::Restart(e) => tally.restarts[e] += 1,
                Message::Fatal(why) => {
                    stop.store(true, Ordering::Relaxed);
                    failed = true;
                    stopped.get_or_insert(why);
                }
                Message::Game(g) => {
                    tally.add(&g);
                    if let Some(f) = pdn_file.as_mut()
                        && pdn_error.is_none()
                    {
                        // Games finish out of order when several run at once; the file
                        // gets them in round order, each as soon as those before it are in.
                        let written = pdn_text(cfg, &names, &date, &g).and_then(|text| {
                            unwritten.insert(g.index, text);
                            while let Some(text) = unwritten.remove(&next_to_write) {
                                write_pdn(f, &text)?;
                                next_to_write += 1;
                            }
                            Ok(())
                        });
                        if let Err(e) = written {
                            // Games that cannot be kept are not worth playing: stop.
                            stop.store(true, Ordering::Relaxed);
                            pdn_error = Some(e);
                        }
                    }
                    if let Some(s) = cfg.sprt {
                        let llr = s.llr(tally.wdl);
                        let verdict = s.verdict(llr);
                        sprt_state = Some((llr, verdict));
                        if verdict != SprtVerdict::Continue && stopped.is_none() {
                            stop.store(true, Ordering::Relaxed);
                            stopped = Some(format!(
                                "the SPRT accepted {} after {} games",
                                verdict_text(verdict),
                                tally.games()
                            ));
                        }
                    }
                    progress.game(cfg, &tally, &g, sprt_state);
                    games.push(*g);
                }
            }
        }
        Ok(())
    })?;
    if aborted(cfg) && tally.games() < cfg.games as u32 {
        stopped.get_or_insert_with(|| "aborted".to_string());
    }
    if let Some(e) = pdn_error {
        progress.finish();
        return Err(e);
    }
    // A match stopped early can leave gaps: write what is left, still in order.
    if let Some(f) = pdn_file.as_mut() {
        for text in unwritten.values() {
            write_pdn(f, text)?;
        }
    }
    progress.finish();
    games.sort_by_key(|g| g.index);
    Ok(MatchOutcome {
        tally,
        games,
        sprt: sprt_state,
        stopped,
        failed,
        elapsed: started.elapsed(),
    })
}

fn write_pdn(f: &mut File, text: &str) -> Result<()> {
    f.write_all(text.as_bytes())
        .and_then(|_| f.flush())
        .context("writing the PDN file")
}

/// The names for reports and PDN: given, or the engines' own; made distinct when equal.
fn display_names(pair: &[HubEngine; 2]) -> [String; 2] {
    let (a, b) = (pair[0].display_name(), pair[1].display_name());
    if a == b {
        [format!("{a}-1"), format!("{b}-2")]
    } else {
        [a, b]
    }
}

fn verdict_text(v: SprtVerdict) -> &'static str {
    match v {
        SprtVerdict::H0 => "H0 (elo0)",
        SprtVerdict::H1 => "H1 (elo1)",
        SprtVerdict::Continue => "nothing yet",
    }
}

/// One worker: its own two engines, games taken from the shared counter until none is
/// left or the match is stopped. A dead engine is started again before the next game.
fn worker<P: Board>(
    cfg: &MatchConfig,
    w: usize,
    mut engines: [HubEngine; 2],
    next: &AtomicUsize,
    stop: &AtomicBool,
    tx: Sender<Message>,
) {
    loop {
        if stop.load(Ordering::Relaxed) || aborted(cfg) {
            return;
        }
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= cfg.games {
            return;
        }
        for (e, engine) in engines.iter_mut().enumerate() {
            // Twice: a process that dies during `new-game` gets one more start.
            for _ in 0..2 {
                if !engine.is_dead() && engine.new_game() {
                    break;
                }
                let label = format!("w{}.e{}", w + 1, e + 1);
                match HubEngine::start(&engine.spec, cfg.variant, &label, cfg.log.clone()) {
                    Ok(mut fresh) => {
                        fresh.abort_on(cfg.abort.clone());
                        *engine = fresh;
                        let _ = tx.send(Message::Restart(e));
                    }
                    Err(err) => {
                        let _ = tx.send(Message::Fatal(format!(
                            "engine {} could not be started again: {err:#}",
                            e + 1
                        )));
                        return;
                    }
                }
            }
        }
        let pair = index / 2;
        let opening = &cfg.openings[pair % cfg.openings.len()];
        let white = index % 2;
        let Some(record) = play_game::<P>(cfg, &mut engines, index, white, opening) else {
            // Aborted: nobody waits for this game; the engines go now, not after `quit`.
            for engine in &mut engines {
                engine.kill();
            }
            return;
        };
        notify(cfg, || MatchEvent::GameEnd {
            game: index,
            winner: record.winner,
            white: record.white,
            result: record.result_text(),
            termination: record.ending.termination(),
            detail: record.detail.clone(),
        });
        if tx.send(Message::Game(Box::new(record))).is_err() {
            return;
        }
    }
}

/// An engine's clock during one game.
struct ClockState {
    remaining: Duration,
    /// Moves made by this engine in this game (for `moves=` controls).
    made: u32,
}

impl ClockState {
    fn new(tc: &TimeControl) -> ClockState {
        ClockState {
            remaining: tc.clock.map(|c| c.time).unwrap_or_default(),
            made: 0,
        }
    }

    /// The `level` lines for the next search and the time it is allowed (before the
    /// margin). The increment is added first, as the Hub protocol says.
    fn before_move(&mut self, tc: &TimeControl, move_timeout: Duration) -> (Vec<String>, Duration) {
        let mut levels = Vec::new();
        let mut allowed = move_timeout;
        if let Some(c) = tc.clock {
            self.remaining += c.inc;
            allowed = self.remaining;
            let mut line = String::from("level");
            if let Some(m) = c.moves {
                line.push_str(&format!(" moves={}", m - self.made % m));
            }
            line.push_str(&format!(" time={:.3}", self.remaining.as_secs_f64()));
            if !c.inc.is_zero() {
                line.push_str(&format!(" inc={:.3}", c.inc.as_secs_f64()));
            }
            levels.push(line);
        }
        if let Some(t) = tc.move_time {
            levels.push(format!("level move-time={:.3}", t.as_secs_f64()));
            allowed = if tc.clock.is_some() {
                allowed.min(t)
            } else {
                t
            };
        }
        if let Some(d) = tc.depth {
            levels.push(format!("level depth={d}"));
        }
        if let Some(n) = tc.nodes {
            levels.push(format!("level nodes={n}"));
        }
        (levels, allowed)
    }

    fn after_move(&mut self, tc: &TimeControl, elapsed: Duration) {
        if let Some(c) = tc.clock {
            self.remaining = self.remaining.saturating_sub(elapsed);
            self.made += 1;
            if let Some(m) = c.moves
                && self.made.is_multiple_of(m)
            {
                self.remaining += c.time;
            }
        }
    }
}

/// The game (the referee's: every move checked, the end decided by the rules) and its
/// moves as sent to the engines.
struct GameState<P: Board> {
    game: crate::rules::Game<P>,
    moves: Vec<String>,
}

impl<P: Board> GameState<P> {
    /// Play `mv`, taken from the position's legal moves.
    fn play(&mut self, mv: &Move<P::B>) {
        self.game
            .play(mv)
            .expect("the referee plays only legal moves of a game not over");
        self.moves.push(format_hub_move::<P>(mv));
    }
}

/// The ending of a game the rules have ended.
fn rules_ending(o: Outcome) -> (Option<Color>, Ending, Option<String>) {
    match o {
        Outcome::Win(c) => (Some(c), Ending::Normal, None),
        Outcome::Draw(DrawReason::Repetition { .. }) => (None, Ending::Repetition, None),
        Outcome::Draw(DrawReason::MoveRule { moves }) => (None, Ending::MoveRule(moves), None),
        Outcome::Draw(DrawReason::FewPieces { .. }) => (None, Ending::FewPieces, None),
    }
}

/// The result of a fault by the engine playing `side`.
fn fault_ending(
    side: Color,
    engine: usize,
    fault: Fault,
    detail: String,
) -> (Option<Color>, Ending, Option<String>) {
    (
        Some(side.opposite()),
        Ending::Fault { engine, fault },
        Some(detail),
    )
}

/// Play one game to its end (`None`: the match was aborted meanwhile).
fn play_game<P: Board>(
    cfg: &MatchConfig,
    engines: &mut [HubEngine; 2],
    index: usize,
    white: usize,
    opening: &Opening,
) -> Option<GameRecord> {
    let start: P = parse_position(&opening.start).expect("openings are checked when loaded");
    let start_hub = write_hub_position(&start);
    let mut g = GameState {
        game: crate::rules::Game::new(start),
        moves: Vec::new(),
    };
    for text in &opening.moves {
        let mv = parse_move(g.game.position(), text, &g.game.legal_moves())
            .expect("openings are checked when loaded");
        g.play(&mv);
    }
    let engine_of = |c: Color| if c == Color::White { white } else { 1 - white };
    let mut clocks = [ClockState::new(&cfg.tc), ClockState::new(&cfg.tc)];
    // [White's, Black's] time left, for the observer.
    let clock_pair = |clocks: &[ClockState; 2]| {
        cfg.tc.clock.map(|_| {
            [
                clocks[engine_of(Color::White)].remaining,
                clocks[engine_of(Color::Black)].remaining,
            ]
        })
    };
    notify(cfg, || MatchEvent::GameStart {
        game: index,
        variant: cfg.variant,
        start: write_fen(&start, Notation::Numeric),
        opening: g.moves.clone(),
        names: {
            let names = display_names(engines);
            [names[white].clone(), names[1 - white].clone()]
        },
        white,
        clocks: clock_pair(&clocks),
    });
    // Scores of the engines' moves from White's view; forced moves often come without one.
    let mut scores: Vec<f64> = Vec::new();
    let (winner, ending, detail) = loop {
        if let Some(o) = g.game.outcome() {
            break rules_ending(o);
        }
        let legal = g.game.legal_moves();
        if g.moves.len() >= cfg.max_plies {
            break (None, Ending::MaxPlies, None);
        }
        if let Some(r) = cfg.draw_rule
            && scores.len() >= r.plies
            && scores[scores.len() - r.plies..]
                .iter()
                .all(|s| s.abs() <= r.score)
        {
            break (None, Ending::DrawScore, None);
        }
        if let Some(r) = cfg.win_rule
            && scores.len() >= r.plies
        {
            let last = &scores[scores.len() - r.plies..];
            if last.iter().all(|&s| s >= r.score) {
                break (Some(Color::White), Ending::WinScore, None);
            }
            if last.iter().all(|&s| s <= -r.score) {
                break (Some(Color::Black), Ending::WinScore, None);
            }
        }
        if aborted(cfg) {
            return None;
        }
        let side = g.game.position().side();
        let e = engine_of(side);
        let (levels, allowed) = clocks[e].before_move(&cfg.tc, cfg.move_timeout);
        let margin = cfg.margin + allowed.mul_f64(MARGIN_SHARE);
        let end = engines[e].search(&start_hub, &g.moves, &levels, allowed + margin);
        let errors = engines[e].take_errors();
        let said = if errors.is_empty() {
            String::new()
        } else {
            format!(" (it reported: {})", errors.join("; "))
        };
        match end {
            SearchEnd::Aborted => return None,
            SearchEnd::Crashed(why) => {
                break fault_ending(side, e, Fault::Crash, format!("crash: {why}{said}"));
            }
            SearchEnd::Unresponsive => {
                break fault_ending(
                    side,
                    e,
                    Fault::Unresponsive,
                    format!(
                        "unresponsive: no move within {:.3} s, nor after stop; killed{said}",
                        (allowed + margin).as_secs_f64()
                    ),
                );
            }
            SearchEnd::Done {
                mv, elapsed, score, ..
            } => {
                if elapsed > allowed + margin {
                    break fault_ending(
                        side,
                        e,
                        Fault::TimeForfeit,
                        format!(
                            "time forfeit: {:.3} s used, {:.3} s allowed (+{:.3} s margin){said}",
                            elapsed.as_secs_f64(),
                            allowed.as_secs_f64(),
                            margin.as_secs_f64()
                        ),
                    );
                }
                // `done move=` and a bare `done` both say "no move": the engine sees
                // its game as over (an answer, not a silence or an illegal move).
                if mv.trim().is_empty() {
                    let n = legal.len();
                    break (
                        Some(side.opposite()),
                        Ending::NoMove { engine: e },
                        Some(format!(
                            "resigned: it answered done with no move (its game is over by its \
                             reckoning) with {n} legal move{} left{said}",
                            if n == 1 { "" } else { "s" }
                        )),
                    );
                }
                let mv = match parse_move(g.game.position(), &mv, &legal) {
                    Ok(m) => m,
                    Err(why) => {
                        break fault_ending(side, e, Fault::IllegalMove, format!("{why}{said}"));
                    }
                };
                clocks[e].after_move(&cfg.tc, elapsed);
                if let Some(s) = score {
                    scores.push(if side == Color::White { s } else { -s });
                }
                g.play(&mv);
                notify(cfg, || MatchEvent::Move {
                    game: index,
                    ply: g.moves.len(),
                    side,
                    mv: g.moves.last().cloned().unwrap_or_default(),
                    elapsed,
                    score,
                    clocks: clock_pair(&clocks),
                });
            }
        }
    };
    Some(GameRecord {
        index,
        white,
        opening: opening.clone(),
        moves: g.moves,
        winner,
        ending,
        detail,
    })
}

/// The game as PDN, through the project's writer (which replays and rewrites the moves
/// in the variant's notation).
pub fn pdn_text(
    cfg: &MatchConfig,
    names: &[String; 2],
    date: &str,
    g: &GameRecord,
) -> Result<String> {
    let tag = |name: &str, value: String| Tag {
        name: name.to_string(),
        value,
        pos: Pos::default(),
    };
    let mut tags = vec![
        tag("Event", cfg.event.clone()),
        tag("Site", cfg.site.clone()),
        tag("Date", date.to_string()),
        tag("Round", (g.index + 1).to_string()),
        tag("White", names[g.white].clone()),
        tag("Black", names[1 - g.white].clone()),
        tag("Result", g.result_text().to_string()),
        tag("Termination", g.ending.termination()),
        tag("TimeControl", cfg.tc.describe()),
    ];
    if let Some(name) = &g.opening.name {
        tags.push(tag("Opening", name.clone()));
    }
    let mut line = Line {
        comments: Vec::new(),
        moves: g
            .moves
            .iter()
            .map(|m| PdnMove {
                text: m.clone(),
                ..PdnMove::default()
            })
            .collect(),
    };
    if let Some(d) = &g.detail {
        // A comment cannot hold braces.
        let who = match g.ending {
            Ending::Fault { engine, .. } | Ending::NoMove { engine } => {
                format!("{}: ", names[engine])
            }
            _ => String::new(),
        };
        let text = format!("{who}{d}").replace(['{', '}'], "'");
        match line.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => line.comments.push(text),
        }
    }
    let start_is_standard = with_board!(cfg.variant, P => parse_position::<P>(&g.opening.start).ok() == Some(P::start()));
    let game = Game {
        number: g.index + 1,
        pos: Pos::default(),
        tags,
        variant: cfg.variant,
        fen: (!start_is_standard).then(|| (g.opening.start.clone(), Pos::default())),
        main_line: line,
        result: Some(g.result_text().to_string()),
        first_move_number: 1,
        warnings: Vec::new(),
    };
    let mut text = pdn::write_game(&game, &WriteOptions::default())
        .map_err(|e| anyhow::anyhow!("cannot write game {} as PDN: {e}", g.index + 1))?;
    text.push('\n');
    Ok(text)
}

/// Today's date (UTC) as PDN writes it: `2025.01.31`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The progress shown while the match runs.
struct Progress {
    style: ProgressStyle,
    shown: bool,
}

impl Progress {
    fn new(style: ProgressStyle) -> Progress {
        Progress {
            style,
            shown: false,
        }
    }

    fn game(
        &mut self,
        cfg: &MatchConfig,
        t: &Tally,
        g: &GameRecord,
        sprt: Option<(f64, SprtVerdict)>,
    ) {
        let status = status_line(cfg, t, sprt);
        let mut err = std::io::stderr().lock();
        if self.style != ProgressStyle::Quiet
            && let (Ending::Fault { engine, .. } | Ending::NoMove { engine }, Some(d)) =
                (&g.ending, &g.detail)
        {
            // Faults are worth a line of their own, even above the live line.
            let clear = if self.style == ProgressStyle::Live {
                "\r\x1b[K"
            } else {
                ""
            };
            let _ = writeln!(
                err,
                "{clear}game {}: {}: {d}",
                g.index + 1,
                t.names[*engine]
            );
        }
        match self.style {
            ProgressStyle::Quiet => {}
            ProgressStyle::Live => {
                let _ = write!(err, "\r{status}\x1b[K");
                let _ = err.flush();
                self.shown = true;
            }
            ProgressStyle::Lines => {
                let names = &t.names;
                let opening = g
                    .opening
                    .name
                    .as_ref()
                    .map(|n| format!("{n}, "))
                    .unwrap_or_default();
                let _ = writeln!(
                    err,
                    "game {}: {} - {} {} {} ({opening}{} plies) | {status}",
                    g.index + 1,
                    names[g.white],
                    names[1 - g.white],
                    g.result_text(),
                    g.ending.termination(),
                    g.moves.len()
                );
            }
        }
    }

    /// The live line before the first game ends (games can take minutes).
    fn start(&mut self, cfg: &MatchConfig, t: &Tally, sprt: Option<(f64, SprtVerdict)>) {
        if self.style == ProgressStyle::Live {
            eprint!("\r{}\x1b[K", status_line(cfg, t, sprt));
            self.shown = true;
        }
    }

    fn finish(&mut self) {
        if self.shown {
            eprintln!();
        }
    }
}

/// `12/100  +3 =5 -4  Elo -29.0 ± 95.2  LOS 35.3%  LLR -0.21 [-2.94, 2.94]`
pub fn status_line(cfg: &MatchConfig, t: &Tally, sprt: Option<(f64, SprtVerdict)>) -> String {
    let w = t.wdl;
    let mut s = format!(
        "{}/{}  {} +{} ={} -{}",
        t.games(),
        cfg.games,
        t.names[0],
        w.wins,
        w.draws,
        w.losses
    );
    if let Some(e) = w.elo() {
        s.push_str(&format!("  Elo {}", e.display()));
    }
    s.push_str(&format!("  LOS {:.1}%", 100.0 * w.los()));
    if let (Some(p), Some((llr, _))) = (cfg.sprt, sprt) {
        let (lo, hi) = p.bounds();
        s.push_str(&format!("  LLR {llr:.2} [{lo:.2}, {hi:.2}]"));
    }
    s
}

/// The final report.
pub fn report(cfg: &MatchConfig, m: &MatchOutcome) -> String {
    let t = &m.tally;
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "{} vs {}: {} of {} games played, {}, {}",
        t.names[0],
        t.names[1],
        t.games(),
        cfg.games,
        cfg.variant,
        cfg.tc.describe()
    ));
    line(format!(
        "openings: {}; concurrency {}; {:.1} s",
        cfg.openings_label,
        cfg.concurrency,
        m.elapsed.as_secs_f64()
    ));
    if let Some(why) = &m.stopped {
        line(format!("stopped: {why}"));
    }
    line(String::new());
    let w = t.wdl;
    line(format!(
        "Score of {}: +{} ={} -{}  ({:.1}%)",
        t.names[0],
        w.wins,
        w.draws,
        w.losses,
        100.0 * w.score()
    ));
    if let Some(e) = w.elo() {
        let mut s = format!("Elo difference: {} (95%, trinomial)", e.display());
        if let Some(p) = t.penta.elo().filter(|_| t.penta.pairs() >= 2) {
            s.push_str(&format!(
                "; ± {} pentanomial over {} pairs",
                p.error_text(),
                t.penta.pairs()
            ));
        }
        line(s);
    }
    line(format!(
        "LOS: {:.1}% that {} is stronger",
        100.0 * w.los(),
        t.names[0]
    ));
    if let (Some(p), Some((llr, verdict))) = (cfg.sprt, m.sprt) {
        let (lo, hi) = p.bounds();
        let decision = match verdict {
            SprtVerdict::H1 => format!(
                "H1 accepted: {} is stronger by about {} Elo or more",
                t.names[0], p.elo1
            ),
            SprtVerdict::H0 => format!(
                "H0 accepted: {} is not stronger by {} Elo",
                t.names[0], p.elo1
            ),
            SprtVerdict::Continue => "no decision yet".to_string(),
        };
        line(format!(
            "SPRT ({}): LLR {llr:.2}, bounds [{lo:.2}, {hi:.2}]: {decision}",
            p.describe()
        ));
    }
    line(format!(
        "Results: White won {}, Black won {}, drawn {}",
        t.white_wins, t.black_wins, t.draws
    ));
    line(String::new());
    let width = t.names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    line(format!(
        "{:<width$}  {:>4} {:>4} {:>4}  {:>6}  {:>15}  {:>6}  {:>7} {:>4} {:>5} {:>12} {:>8}",
        "engine",
        "W",
        "D",
        "L",
        "score",
        "Elo",
        "LOS",
        "illegal",
        "time",
        "crash",
        "unresponsive",
        "restarts"
    ));
    for e in 0..2 {
        let r = if e == 0 { w } else { w.reversed() };
        let elo = r.elo().map(|x| x.display()).unwrap_or_else(|| "-".into());
        let f = t.faults[e];
        line(format!(
            "{:<width$}  {:>4} {:>4} {:>4}  {:>5.1}%  {:>15}  {:>5.1}%  {:>7} {:>4} {:>5} {:>12} {:>8}",
            t.names[e],
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.score(),
            elo,
            100.0 * r.los(),
            f[0],
            f[1],
            f[2],
            f[3],
            t.restarts[e]
        ));
    }
    line(
        "(illegal, time, crash, unresponsive: games lost by an illegal move, on time, by exiting, \
         by not answering; restarts: processes started again)"
            .into(),
    );
    line(String::new());
    let ends: Vec<String> = t.endings.iter().map(|(k, n)| format!("{k} {n}")).collect();
    line(format!("Game ends: {}", ends.join(", ")));
    if let Some(p) = &cfg.pdn {
        line(format!("PDN: {}", p.display()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse() {
        let c = Clock::parse("60+0.5").unwrap();
        assert_eq!(c.time, Duration::from_secs(60));
        assert_eq!(c.inc, Duration::from_millis(500));
        assert_eq!(c.moves, None);
        assert_eq!(c.describe(), "60+0.5");
        let c = Clock::parse("40/120").unwrap();
        assert_eq!((c.moves, c.describe()), (Some(40), "40/120".to_string()));
        assert!(Clock::parse("x").is_err());
        assert!(Clock::parse("0").is_err());
        assert!(Clock::parse("-3+1").is_err());
    }

    #[test]
    fn increment_is_added_before_each_move() {
        let tc = TimeControl {
            clock: Some(Clock::parse("2+0.5").unwrap()),
            ..TimeControl::default()
        };
        let mut c = ClockState::new(&tc);
        let (levels, allowed) = c.before_move(&tc, Duration::from_secs(60));
        assert_eq!(levels, ["level time=2.500 inc=0.500"]);
        assert_eq!(allowed, Duration::from_millis(2500));
        c.after_move(&tc, Duration::from_millis(1000));
        let (_, allowed) = c.before_move(&tc, Duration::from_secs(60));
        assert_eq!(allowed, Duration::from_millis(2000));
    }

    #[test]
    fn moves_controls_refill_the_clock() {
        let tc = TimeControl {
            clock: Some(Clock::parse("2/10").unwrap()),
            ..TimeControl::default()
        };
        let mut c = ClockState::new(&tc);
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=2 time=10.000"]);
        c.after_move(&tc, Duration::from_secs(3));
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=1 time=7.000"]);
        c.after_move(&tc, Duration::from_secs(3));
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=2 time=14.000"]);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn score_rules_parse() {
        assert_eq!(
            ScoreRule::parse("0.05,20").unwrap(),
            ScoreRule {
                score: 0.05,
                plies: 20
            }
        );
        assert!(ScoreRule::parse("0.05").is_err());
        assert!(ScoreRule::parse("x,3").is_err());
    }
}
