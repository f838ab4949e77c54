//! Playing the games: the referee (rules, draw rules, adjudication, faults), several games at
//! once, and the events a watcher is told; the clocks are [`super::clock`]'s.
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

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use crossbeam_channel::{Sender, unbounded};

use super::clock::{ClockState, MARGIN_SHARE, TimeControl};
use super::engine::{EngineSpec, HubEngine, Log, SearchEnd};
use super::openings::Opening;
use super::record::{Ending, Fault, GameRecord, Tally, pdn_text, today};
use super::report::{Progress, ProgressStyle, verdict_text};
use super::stats::{Sprt, SprtVerdict, Wdl};
use crate::notation::{format_hub_move, parse_move, parse_position, write_fen, write_hub_position};
use crate::rules::{Board, Color, DrawReason, Move, Notation, Outcome, Variant};
use crate::with_board;

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

#[cfg(test)]
mod tests {
    use super::*;

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
