//! Watch: a match between two Hub engines, played by the match runner
//! ([`crate::matches::runner`]) on threads of the server and shown live on the page that
//! started it: the board, both clocks, the moves, the score of the match.
//!
//! The page never names a program. It picks each engine by name from the [`Roster`]:
//! `tammi` (this server's own executable, `hub`, with options from fixed lists) or an
//! engine the person who started the server named on its command line
//! (`tammi gui --engine NAME=COMMAND`). Everything else a request carries (variant,
//! time control, number of games) is checked against a fixed list or range here.
//!
//! At most [`MAX_WATCHES`] matches run at once over all pages, and their two engines
//! take places from the same cap as the analysis engines ([`super::engine::reserve`]).
//! A match ends, its engines killed, when its games are played, when the page stops it,
//! when the page's last event stream closes, or when its session ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use super::http::Request;
use super::json;
use super::record;
use crate::matches::clock::{DEFAULT_MARGIN, TimeControl};
use crate::matches::engine::split_command;
use crate::matches::openings::{self, Opening};
use crate::matches::report::ProgressStyle;
use crate::matches::runner::{self, MatchConfig};
use crate::matches::{Clock, EngineSpec, MatchEvent};
use crate::notation::write_fen;
use crate::pdn;
use crate::rules::{Board, Color, Notation, Variant};
use crate::with_board;

/// Matches running at once, over every page.
pub const MAX_WATCHES: usize = 1;
/// Games a watched match may have.
pub const MAX_GAMES: u64 = 20;
/// The game clocks a page may choose (seconds per game + increment per move).
pub const TIME_CONTROLS: [&str; 5] = ["2+0.05", "10+0.1", "30+0.3", "60+0.5", "180+2"];
/// The name of this server's own engine in the roster.
pub const TAMMI: &str = "tammi";
/// Engines named on the command line, at most.
pub const MAX_NAMED: usize = 16;
/// A watched match is drawn at this many plies.
const MAX_PLIES: usize = 400;
/// Hash table of a watched tammi, MB: two run beside the server and its other engines.
const HASH_MB: &str = "32";

static WATCHES: AtomicUsize = AtomicUsize::new(0);
/// Numbers the matches, so that a page tells a new match's views from an old one's.
static MATCH_IDS: AtomicU64 = AtomicU64::new(1);

/// Matches running now.
pub fn running() -> usize {
    WATCHES.load(Ordering::SeqCst)
}

/// The engines a page may choose from: `tammi`, then those named with `--engine`.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    named: Vec<(String, Vec<String>)>,
}

impl Roster {
    /// Add `NAME=COMMAND` (from `--engine`). The name is what the page sends and shows:
    /// 1 to 32 letters, digits, `.`, `_` or `-`, not `tammi`, not given twice.
    pub fn add(&mut self, text: &str) -> Result<(), String> {
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| format!("'{text}': expected NAME=COMMAND, e.g. scan=\"./scan hub\""))?;
        let name = name.trim();
        let good = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if name.is_empty() || name.len() > 32 || !name.chars().all(good) {
            return Err(format!(
                "'{name}': an engine name is 1 to 32 letters, digits, '.', '_' or '-'"
            ));
        }
        if name.eq_ignore_ascii_case(TAMMI) {
            return Err(format!(
                "'{name}' is the server's own engine; name the other one differently"
            ));
        }
        if self.named.iter().any(|(n, _)| n == name) {
            return Err(format!("the engine name '{name}' is given twice"));
        }
        if self.named.len() >= MAX_NAMED {
            return Err(format!("at most {MAX_NAMED} engines can be named"));
        }
        let words = split_command(command).map_err(|e| format!("'{name}': {e}"))?;
        self.named.push((name.to_string(), words));
        Ok(())
    }

    /// The names, `tammi` first.
    pub fn names(&self) -> Vec<&str> {
        std::iter::once(TAMMI)
            .chain(self.named.iter().map(|(n, _)| n.as_str()))
            .collect()
    }

    /// What the page may choose, as JSON.
    pub fn options_json(&self) -> String {
        format!(
            "{{\"engines\":{},\"timeControls\":{},\"maxGames\":{MAX_GAMES},\"own\":{}}}",
            json::strings(&self.names()),
            json::strings(&TIME_CONTROLS),
            json::string(TAMMI)
        )
    }

    /// How to start the engine called `name`; `book` only for tammi.
    fn spec(&self, name: &str, book: Option<bool>) -> Result<EngineSpec, String> {
        if name == TAMMI {
            let exe = std::env::current_exe()
                .map_err(|e| format!("cannot find the server's own program: {e}"))?;
            let book = book.unwrap_or(false);
            return Ok(EngineSpec {
                name: Some(if book { "tammi-book" } else { TAMMI }.to_string()),
                command: vec![exe.to_string_lossy().into_owned(), "hub".to_string()],
                params: vec![
                    ("book".to_string(), book.to_string()),
                    ("hash".to_string(), HASH_MB.to_string()),
                ],
            });
        }
        let Some((_, command)) = self.named.iter().find(|(n, _)| n == name) else {
            return Err(format!(
                "no engine '{}' (choose from: {})",
                crate::notation::echo(name),
                self.names().join(", ")
            ));
        };
        if book.is_some() {
            return Err(format!(
                "the book option is tammi's; '{name}' keeps its own settings"
            ));
        }
        Ok(EngineSpec {
            name: Some(name.to_string()),
            command: command.clone(),
            params: Vec::new(),
        })
    }
}

/// A match as a page asked for it, every value checked.
#[derive(Clone, Debug)]
pub struct Setup {
    pub variant: Variant,
    pub engines: [EngineSpec; 2],
    pub clock: Clock,
    pub games: usize,
}

/// The parameters `POST /api/watch/start` takes (besides the session's `s`).
const PARAMS: [&str; 8] = ["s", "variant", "e1", "e2", "book1", "book2", "tc", "games"];

/// Read and check a start request: `variant`, `e1`, `e2` (roster names), `book1`,
/// `book2` (`0`/`1`, tammi only), `tc` (one of [`TIME_CONTROLS`]), `games`.
pub fn setup(roster: &Roster, req: &Request) -> Result<Setup, String> {
    if let Some((k, _)) = req
        .query
        .iter()
        .find(|(k, _)| !PARAMS.contains(&k.as_str()))
    {
        return Err(format!(
            "unknown parameter '{}' (a match takes: {})",
            crate::notation::echo(k),
            PARAMS[1..].join(", ")
        ));
    }
    let variant: Variant = match req.param("variant") {
        None => Variant::International,
        Some(v) => v.parse()?,
    };
    let book = |key: &str| -> Result<Option<bool>, String> {
        match req.param(key) {
            None => Ok(None),
            Some("1") | Some("true") => Ok(Some(true)),
            Some("0") | Some("false") => Ok(Some(false)),
            Some(other) => Err(format!(
                "{key} must be 0 or 1, got '{}'",
                crate::notation::echo(other)
            )),
        }
    };
    let engine = |n: usize| -> Result<EngineSpec, String> {
        let name = req
            .param(&format!("e{n}"))
            .ok_or_else(|| format!("which engine is engine {n}? (e{n}=NAME)"))?;
        roster.spec(name, book(&format!("book{n}"))?)
    };
    let engines = [engine(1)?, engine(2)?];
    let tc = req.param("tc").unwrap_or(TIME_CONTROLS[1]);
    if !TIME_CONTROLS.contains(&tc) {
        return Err(format!(
            "tc must be one of {}, got '{}'",
            TIME_CONTROLS.join(", "),
            crate::notation::echo(tc)
        ));
    }
    let clock = Clock::parse(tc)?;
    let games = match req.param("games") {
        None => 2,
        Some(g) => {
            let n: u64 = g.parse().map_err(|_| {
                format!(
                    "games must be a whole number, got '{}'",
                    crate::notation::echo(g)
                )
            })?;
            if !(1..=MAX_GAMES).contains(&n) {
                return Err(format!("games must be from 1 to {MAX_GAMES}, got {n}"));
            }
            n as usize
        }
    };
    Ok(Setup {
        variant,
        engines,
        clock,
        games,
    })
}

/// One place of [`MAX_WATCHES`], given back when dropped.
pub struct Place(());

impl Place {
    pub fn take() -> Result<Place, String> {
        WATCHES
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_WATCHES).then_some(n + 1)
            })
            .map(|_| Place(()))
            .map_err(|_| {
                format!(
                    "{MAX_WATCHES} match{} already running (on this or another page); \
                     stop it or wait for its end",
                    if MAX_WATCHES == 1 { " is" } else { "es are" }
                )
            })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        WATCHES.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A match under way; dropping it (the session ended) stops it.
pub struct Running {
    pub abort: Arc<AtomicBool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// The runner's configuration for a watched match.
/// The runner's configuration for a watched match ([`run`] adds the observer).
pub fn config(setup: &Setup, abort: Arc<AtomicBool>) -> MatchConfig {
    let (openings, label) = if setup.variant == Variant::English {
        // Checkers is played from the three-move ballots; a different deck each match.
        let mut list = openings::english_ballots();
        openings::shuffle(&mut list, seed());
        (list, "ACF three-move ballots".to_string())
    } else {
        let start = with_board!(setup.variant, P => write_fen(&P::start(), Notation::Numeric));
        let opening = Opening {
            name: None,
            start,
            moves: Vec::new(),
        };
        (vec![opening], "the start position".to_string())
    };
    MatchConfig {
        variant: setup.variant,
        engines: setup.engines.clone(),
        games: setup.games,
        tc: TimeControl {
            clock: Some(setup.clock),
            ..TimeControl::default()
        },
        move_timeout: Duration::from_secs(60),
        margin: DEFAULT_MARGIN,
        concurrency: 1,
        max_plies: MAX_PLIES,
        draw_rule: None,
        win_rule: None,
        openings,
        openings_label: label,
        sprt: None,
        pdn: None,
        event: "tammi gui".into(),
        site: "?".into(),
        log: None,
        progress: ProgressStyle::Quiet,
        observer: None,
        abort: Some(abort),
    }
}

fn seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// One finished game, for the page's list.
struct Finished {
    white: String,
    black: String,
    result: &'static str,
    termination: String,
}

/// What the page is shown of a match, kept up to date from the runner's events.
pub struct View {
    id: u64,
    /// Bumped by every change (the page ignores an older view of the same match).
    seq: u64,
    pub running: bool,
    /// Engine 1's and engine 2's names.
    names: [String; 2],
    tc: String,
    games: usize,
    /// Engine 1's wins, the draws, engine 2's wins.
    score: [u32; 3],
    /// The game shown (from 0) and its names, White's then Black's.
    game: Option<usize>,
    players: [String; 2],
    record: Option<pdn::Game>,
    /// White's and Black's time left after the last move, ms.
    clocks: Option<[u64; 2]>,
    /// The last move's thinking time, seconds, and by whom.
    last: Option<(Color, f64)>,
    /// The result of the game shown once it is over.
    result: Option<String>,
    finished: Vec<Finished>,
    pub message: Option<String>,
}

impl View {
    pub fn new(setup: &Setup) -> View {
        let name = |e: &EngineSpec| e.name.clone().unwrap_or_else(|| "?".into());
        let (a, b) = (name(&setup.engines[0]), name(&setup.engines[1]));
        // As the runner tells two engines of one name apart.
        let names = if a == b {
            [format!("{a}-1"), format!("{b}-2")]
        } else {
            [a, b]
        };
        View {
            id: MATCH_IDS.fetch_add(1, Ordering::Relaxed),
            seq: 0,
            running: true,
            names,
            tc: setup.clock.describe(),
            games: setup.games,
            score: [0; 3],
            game: None,
            players: [String::new(), String::new()],
            record: None,
            clocks: None,
            last: None,
            result: None,
            finished: Vec::new(),
            message: Some("starting the engines".into()),
        }
    }

    /// Take in one of the runner's events.
    pub fn apply(&mut self, event: MatchEvent) {
        self.seq += 1;
        let ms = |c: Option<[Duration; 2]>| c.map(|c| c.map(|d| d.as_millis() as u64));
        match event {
            MatchEvent::GameStart {
                game,
                variant,
                start,
                opening,
                names,
                clocks,
                ..
            } => {
                self.game = Some(game);
                self.players = names;
                self.clocks = ms(clocks);
                self.last = None;
                self.result = None;
                self.message = None;
                self.record = record::new_record(variant, Some(&start)).ok();
                for mv in &opening {
                    self.play(mv);
                }
            }
            MatchEvent::Move {
                side,
                mv,
                elapsed,
                clocks,
                ..
            } => {
                self.play(&mv);
                self.clocks = ms(clocks);
                self.last = Some((side, elapsed.as_secs_f64()));
            }
            MatchEvent::GameEnd {
                winner,
                white,
                result,
                termination,
                detail,
                ..
            } => {
                let k = match winner {
                    None => 1,
                    Some(c) if (c == Color::White) == (white == 0) => 0,
                    Some(_) => 2,
                };
                self.score[k] += 1;
                self.result = Some(format!("{result} ({termination})"));
                self.message = detail;
                self.finished.push(Finished {
                    white: self.players[0].clone(),
                    black: self.players[1].clone(),
                    result,
                    termination,
                });
            }
        }
    }

    fn play(&mut self, mv: &str) {
        if let Some(rec) = self.record.as_mut() {
            let mut cursor = rec.main_line.moves.len();
            // The runner has checked the move already; a refusal here would be a bug
            // of ours, said on the page rather than hidden.
            if let Err(e) = record::play(rec, &mut cursor, mv) {
                self.message = Some(format!("cannot show the move {mv}: {e}"));
            }
        }
    }

    /// The match is over (or could not start): `why` says how, when not by its games.
    pub fn end(&mut self, why: Option<String>) {
        self.seq += 1;
        self.running = false;
        self.message = why.or_else(|| self.message.take());
    }

    pub fn json(&self) -> String {
        let board = self
            .record
            .as_ref()
            .and_then(|r| record::view_json(r, r.main_line.moves.len()).ok())
            .map_or("null".to_string(), |v| format!("{{{v}}}"));
        let finished: Vec<String> = self
            .finished
            .iter()
            .map(|f| {
                format!(
                    "{{\"white\":{},\"black\":{},\"result\":{},\"termination\":{}}}",
                    json::string(&f.white),
                    json::string(&f.black),
                    json::string(f.result),
                    json::string(&f.termination)
                )
            })
            .collect();
        format!(
            "{{\"id\":{},\"seq\":{},\"running\":{},\"names\":{},\"tc\":{},\"games\":{},\"score\":[{},{},{}],\
             \"game\":{},\"white\":{},\"black\":{},\"clocks\":{},\"last\":{},\"result\":{},\
             \"finished\":[{}],\"message\":{},\"board\":{}}}",
            self.id,
            self.seq,
            self.running,
            json::strings(&self.names),
            json::string(&self.tc),
            self.games,
            self.score[0],
            self.score[1],
            self.score[2],
            self.game.map_or("null".into(), |g| (g + 1).to_string()),
            json::string(&self.players[0]),
            json::string(&self.players[1]),
            self.clocks
                .map_or("null".into(), |[w, b]| format!("[{w},{b}]")),
            self.last.map_or("null".into(), |(side, t)| format!(
                "{{\"side\":{},\"time\":{t:.3}}}",
                json::string(side.name())
            )),
            self.result.as_deref().map_or("null".into(), json::string),
            finished.join(","),
            self.message.as_deref().map_or("null".into(), json::string),
            board
        )
    }
}

/// Run the match on this thread until it ends, handing each event to `on_event` (on
/// this thread too, in order) and returning how it ended: `None` when all its games
/// were played, else why it stopped.
pub fn run(cfg: MatchConfig, mut on_event: impl FnMut(MatchEvent)) -> Option<String> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut cfg = cfg;
    cfg.observer = Some(tx);
    let runner = std::thread::Builder::new()
        .name("gui-watch-match".into())
        .spawn(move || {
            let outcome = runner::run(&cfg);
            // The channel closes with the configuration, ending the loop below.
            drop(cfg);
            outcome
        });
    let runner = match runner {
        Ok(r) => r,
        Err(e) => return Some(format!("cannot start the match: {e}")),
    };
    for event in rx {
        on_event(event);
    }
    match runner.join() {
        Ok(Ok(outcome)) => outcome.stopped,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some("the match stopped on an internal error".into()),
    }
}
