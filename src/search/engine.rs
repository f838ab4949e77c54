//! The engine API the protocol adapters (Hub, command line) are written against: a
//! position with its game history, options, a shared transposition table, and searches
//! that run on their own threads and answer through callbacks.
//!
//! The board type is erased here, at the edge: a [`GameState<P>`] per variant behind the
//! [`AnyGame`] trait, chosen at run time with `with_board!`.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::egdb::Database;
use crate::eval::{Evaluate, Evaluator};
use crate::notation::{
    format_hub_move, format_move, parse_move, parse_position, write_fen, write_hub_position,
};
use crate::rules::{Bits, Board, Move, Notation, Variant, outcome};
use crate::with_board;

use super::game::Counters;
use super::limits::{EngineOptions, Limits};
use super::search::{
    Control, EGDB_EVAL_RANGE, EGDB_WIN, Iteration, MATE, MATE_BOUND, RootMove, SearchShared,
    Searcher,
};
use super::time;
use super::tt::TranspositionTable;

/// A score as reported to the user, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-men (100 = one man).
    Eval(i32),
    /// The game ends this many plies from now: positive if the side to move wins,
    /// negative if it loses.
    GameEnd(i32),
    /// The endgame database calls the position won (positive) or lost (negative) for the
    /// side to move; the size is the number of plies along the principal variation to
    /// the first position the database holds (at least 1; 1 where the line is unknown).
    Database(i32),
}

impl Score {
    fn from_internal(s: i32) -> Score {
        if s.abs() >= MATE_BOUND {
            Score::GameEnd(s.signum() * (MATE - s.abs()))
        } else if s.abs() >= EGDB_WIN - EGDB_EVAL_RANGE {
            // Only a database result reaches this band (see `EGDB_WIN`).
            Score::Database(s.signum())
        } else {
            Score::Eval(s)
        }
    }

    /// The Hub form: men with two decimals; a game end `n` plies away is `±(100 - n/100)`,
    /// above the 90 that clients read as "plies to the end"; a database result `n` plies
    /// from the database is `±(90 - n/100)`, between the 80 and 90 that clients read as
    /// a database win (Scan's conventions for both).
    pub fn hub(&self) -> String {
        let signed = |n: i32, base: i32| {
            let v = (base * 100 - n.abs().clamp(1, 999)) as f64 / 100.0;
            format!("{:.2}", if n > 0 { v } else { -v })
        };
        match *self {
            Score::Eval(c) => format!("{:.2}", c as f64 / 100.0),
            Score::GameEnd(n) => {
                let v = (10_000 - n.abs().min(9_999)) as f64 / 100.0;
                format!("{:.2}", if n > 0 { v } else { -v })
            }
            Score::Database(n) => signed(n, 90),
        }
    }
}

impl std::fmt::Display for Score {
    /// `+0.15` (men), `win in 7 plies` / `loss in 6 plies`, `database win` /
    /// `database loss`; always from the side to move's view.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Score::Eval(c) => write!(f, "{:+.2}", c as f64 / 100.0),
            Score::GameEnd(1) => write!(f, "win in 1 ply"),
            Score::GameEnd(-1) => write!(f, "loss in 1 ply"),
            Score::GameEnd(n) if n > 0 => write!(f, "win in {n} plies"),
            Score::GameEnd(n) => write!(f, "loss in {} plies", -n),
            Score::Database(n) if n > 0 => write!(f, "database win"),
            Score::Database(_) => write!(f, "database loss"),
        }
    }
}

/// Plies along `pv` from `pos` to the first position with at most `max_pieces` pieces
/// (the first the database holds), at least 1; the whole line when none is reached.
fn plies_to_database<P: Board>(pos: &P, pv: &[Move<P::B>], max_pieces: usize) -> i32 {
    let mut p = *pos;
    for (i, mv) in pv.iter().enumerate() {
        if (p.white() | p.black()).count() as usize <= max_pieces {
            return (i as i32).max(1);
        }
        p = p.play(mv);
    }
    (pv.len() as i32).max(1)
}

/// Progress after each iteration (one per MultiPV line).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1 for the best line.
    pub multipv: usize,
    pub score: Score,
    /// Nodes of all threads.
    pub nodes: u64,
    pub time: Duration,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation in the Hub form (`32-28`, `28x19x23`).
    pub pv_hub: Vec<String>,
    /// The same in the variant's notation (or the one set in the options).
    pub pv: Vec<String>,
    /// Permille of the hash table written by this search.
    pub hashfull: u32,
}

/// The end of a search: exactly one per `go`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Done {
    /// The move to play, Hub form; `None` when the game is over (no legal move).
    pub best: Option<String>,
    /// The expected reply, Hub form.
    pub ponder: Option<String>,
    /// `best` and `ponder` in the variant's notation.
    pub best_text: Option<String>,
    pub ponder_text: Option<String>,
    pub score: Option<Score>,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
}

type InfoCallback = Box<dyn FnMut(Info) + Send>;
type DoneCallback = Box<dyn FnOnce(Done) + Send>;

/// Everything a search thread needs.
struct Job {
    tt: Arc<TranspositionTable>,
    egdb: Option<Arc<Database>>,
    control: Arc<Control>,
    options: EngineOptions,
    limits: Limits,
    on_info: InfoCallback,
    on_done: DoneCallback,
}

/// A game position of any variant (the type-erased face of [`GameState`]).
trait AnyGame: Send + Sync {
    fn variant(&self) -> Variant;
    fn fen(&self) -> String;
    fn hub_position(&self) -> String;
    fn legal_moves(&self) -> Vec<String>;
    /// Run a search to its end on the calling thread, then call `on_done`.
    fn run(&self, job: Job);
}

/// The position to search, how the game reached it, and the variant's evaluation.
struct GameState<P: Evaluate> {
    pos: P,
    /// Keys of the positions before `pos` since the last irreversible move.
    history: Vec<u64>,
    counters: Counters,
    eval: Evaluator<P>,
}

impl<P: Evaluate> GameState<P> {
    /// Parse `position` and play `moves` from it; the error names the bad part.
    fn new(position: &str, moves: &[String]) -> Result<Self, String> {
        let mut pos: P = parse_position(position)
            .map_err(|e| format!("invalid {} position '{position}': {e}", P::VARIANT))?;
        let mut history = Vec::new();
        let mut counters = Counters::default();
        let mut legal = Vec::new();
        for (i, text) in moves.iter().enumerate() {
            pos.generate(&mut legal);
            let mv = parse_move(&pos, text, &legal)
                .map_err(|e| format!("move {} of {} ('{text}'): {e}", i + 1, moves.len()))?;
            counters = counters.after(&pos, &mv);
            if counters.reversible == 0 {
                // Nothing before an irreversible move can occur again.
                history.clear();
            } else {
                history.push(Board::hash(&pos));
            }
            pos = pos.play(&mv);
        }
        Ok(GameState {
            pos,
            history,
            counters,
            eval: Evaluator::new(),
        })
    }

    /// The moves of `line` as Hub text and in `notation`, stopping at the first move that
    /// is not legal (cannot happen; a guard for the printing code).
    fn texts(&self, line: &[Move<P::B>], notation: Notation) -> (Vec<String>, Vec<String>) {
        let mut pos = self.pos;
        let mut legal = Vec::new();
        let (mut hub, mut text) = (Vec::new(), Vec::new());
        for mv in line {
            pos.generate(&mut legal);
            if !legal.contains(mv) {
                break;
            }
            hub.push(format_hub_move::<P>(mv));
            text.push(format_move(&pos, mv, &legal, notation));
            pos = pos.play(mv);
        }
        (hub, text)
    }

    fn info(
        &self,
        line: &RootMove<P::B>,
        it: &Iteration<P::B>,
        multipv: usize,
        job: &Job,
        notation: Notation,
    ) -> Info {
        let time = job.control.start.elapsed();
        let (pv_hub, pv) = self.texts(&line.pv, notation);
        let mut score = Score::from_internal(line.score);
        if let (Score::Database(sign), Some(db)) = (score, &job.egdb) {
            score = Score::Database(sign * plies_to_database(&self.pos, &line.pv, db.max_pieces()));
        }
        Info {
            depth: it.depth as u32,
            seldepth: line.seldepth as u32,
            multipv,
            score,
            nodes: it.nodes,
            time,
            nps: (it.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
            pv_hub,
            pv,
            hashfull: job.tt.hashfull(),
        }
    }
}

/// Wait until the caller ends a search that must not end by itself: infinite analysis,
/// or pondering before the ponder hit.
fn hold_until_released(control: &Control, limits: &Limits) {
    while !control.stop.load(Relaxed) && (limits.is_unbounded() || control.pondering.load(Relaxed))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

impl<P: Evaluate> AnyGame for GameState<P> {
    fn variant(&self) -> Variant {
        P::VARIANT
    }

    fn fen(&self) -> String {
        write_fen(&self.pos, P::VARIANT.default_notation())
    }

    fn hub_position(&self) -> String {
        write_hub_position(&self.pos)
    }

    fn legal_moves(&self) -> Vec<String> {
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        legal.iter().map(format_hub_move::<P>).collect()
    }

    fn run(&self, mut job: Job) {
        let notation = job
            .options
            .notation
            .unwrap_or(P::VARIANT.default_notation());
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        if legal.is_empty() || outcome(&self.pos, true).is_some() {
            // The game is over: there is no move to give.
            hold_until_released(&job.control, &job.limits);
            let done = Done {
                time: job.control.start.elapsed(),
                ..Done::default()
            };
            (job.on_done)(done);
            return;
        }
        job.tt.new_search();
        let budget = time::allocate(&job.limits, job.options.move_overhead);
        let threads = job.options.threads.max(1);
        let shared = SearchShared::new(
            &job.control,
            job.limits.clone(),
            budget,
            threads,
            job.options.multipv,
        );
        // The database is english only.
        let egdb = job
            .egdb
            .as_deref()
            .filter(|_| P::VARIANT == Variant::English);
        let searcher = |id| {
            Searcher::new(
                &self.eval,
                &job.tt,
                &shared,
                id,
                self.pos,
                self.counters,
                &self.history,
                &legal,
            )
            .with_egdb(egdb)
        };
        let mut main = searcher(0);
        let mut on_info = std::mem::replace(&mut job.on_info, Box::new(|_| {}));
        let helpers: Vec<Searcher<P>> = std::thread::scope(|s| {
            let running: Vec<_> = (1..threads)
                .map(|id| {
                    let mut helper = searcher(id);
                    s.spawn(move || {
                        helper.iterate(&mut |_| {});
                        helper
                    })
                })
                .collect();
            main.iterate(&mut |it| {
                for (i, line) in it.lines.iter().enumerate() {
                    on_info(self.info(line, it, i + 1, &job, notation));
                }
            });
            shared.abort.store(true, Relaxed);
            running.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        hold_until_released(&job.control, &job.limits);

        // Lazy SMP: a helper that finished a deeper iteration with a better score than the
        // main thread's has the better move (the rule of Stockfish 9). Single lines only:
        // MultiPV reports the main thread's lines.
        let mut chosen = &main;
        if job.options.multipv <= 1 {
            for h in &helpers {
                if let (Some(hb), Some(cb)) = (h.best.first(), chosen.best.first())
                    && h.completed_depth > chosen.completed_depth
                    && hb.score > cb.score
                {
                    chosen = h;
                }
            }
        }
        let main = chosen;
        let best = &main.best[0];
        let (hub, text) = self.texts(&best.pv[..best.pv.len().min(2)], notation);
        let done = Done {
            best: hub.first().cloned(),
            ponder: hub.get(1).cloned(),
            best_text: text.first().cloned(),
            ponder_text: text.get(1).cloned(),
            score: Some(Score::from_internal(best.score)),
            depth: main.completed_depth as u32,
            nodes: shared.nodes.load(Relaxed),
            time: job.control.start.elapsed(),
        };
        (job.on_done)(done);
    }
}

/// The endgame database at `path`, if any; the error says what is wrong with the file.
fn load_egdb(path: Option<&std::path::Path>) -> Result<Option<Arc<Database>>, String> {
    match path {
        None => Ok(None),
        Some(p) => Database::load(p)
            .map(|db| Some(Arc::new(db)))
            .map_err(|e| format!("{e:#}")),
    }
}

/// A search in progress.
struct Running {
    control: Arc<Control>,
    handle: JoinHandle<()>,
}

/// The engine: options, the transposition table, the current position, and at most one
/// search running at a time.
///
/// Commands that change the state (`set_position`, `set_options`, `new_game`, `go`)
/// first stop a running search and wait for its `Done`.
pub struct Engine {
    options: EngineOptions,
    tt: Arc<TranspositionTable>,
    /// Loaded from `options.egdb`.
    egdb: Option<Arc<Database>>,
    game: Arc<dyn AnyGame>,
    running: Option<Running>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.options)
            .field("variant", &self.variant())
            .field("fen", &self.fen())
            .field("searching", &self.is_searching())
            .finish()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineOptions::default()).expect("default options are valid")
    }
}

impl Engine {
    /// An engine with `options`, set to the international start position.
    pub fn new(options: EngineOptions) -> Result<Engine, String> {
        options.validate()?;
        let game: Arc<dyn AnyGame> = Arc::new(
            GameState::<crate::rules::Position<crate::rules::International>>::new("start", &[])
                .expect("the start position is valid"),
        );
        Ok(Engine {
            tt: Arc::new(TranspositionTable::try_new(options.hash_mb)?),
            egdb: load_egdb(options.egdb.as_deref())?,
            options,
            game,
            running: None,
        })
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Change the options (a new hash size allocates a new, empty table).
    pub fn set_options(&mut self, options: EngineOptions) -> Result<(), String> {
        options.validate()?;
        self.stop_and_wait();
        if options.egdb != self.options.egdb {
            // Load first: a bad file leaves the engine as it was.
            self.egdb = load_egdb(options.egdb.as_deref())?;
        }
        if options.hash_mb != self.options.hash_mb {
            // Free the old table before allocating the new one.
            self.tt = Arc::new(TranspositionTable::new(1));
            match TranspositionTable::try_new(options.hash_mb) {
                Ok(tt) => self.tt = Arc::new(tt),
                Err(e) => {
                    // Keep a table of the old size so the engine goes on working.
                    self.tt = Arc::new(TranspositionTable::new(self.options.hash_mb));
                    return Err(e);
                }
            }
        }
        self.options = options;
        Ok(())
    }

    pub fn variant(&self) -> Variant {
        self.game.variant()
    }

    /// Set the position to search: `position` is a PDN FEN, a Hub position string or
    /// `start`; `moves` are the moves played from it (any notation the variant reads,
    /// including the Hub form), which the repetition and draw rules take into account.
    /// On error the previous position stays, and the message names the bad part.
    pub fn set_position(
        &mut self,
        variant: Variant,
        position: &str,
        moves: &[String],
    ) -> Result<(), String> {
        let game: Arc<dyn AnyGame> = with_board!(variant, P => {
            Arc::new(GameState::<P>::new(position, moves)?) as Arc<dyn AnyGame>
        });
        self.stop_and_wait();
        self.game = game;
        Ok(())
    }

    /// The current position as a PDN FEN.
    pub fn fen(&self) -> String {
        self.game.fen()
    }

    /// The current position as a Hub position string.
    pub fn hub_position(&self) -> String {
        self.game.hub_position()
    }

    /// The legal moves of the current position, Hub form.
    pub fn legal_moves(&self) -> Vec<String> {
        self.game.legal_moves()
    }

    /// Start searching the current position; returns at once. `on_info` gets the progress
    /// after each iteration, `on_done` the result, exactly once, from the search thread.
    pub fn go(
        &mut self,
        limits: Limits,
        on_info: impl FnMut(Info) + Send + 'static,
        on_done: impl FnOnce(Done) + Send + 'static,
    ) {
        self.stop_and_wait();
        let control = Arc::new(Control::new(limits.ponder));
        let job = Job {
            tt: Arc::clone(&self.tt),
            egdb: self.egdb.clone(),
            control: Arc::clone(&control),
            options: self.options.clone(),
            limits,
            on_info: Box::new(on_info),
            on_done: Box::new(on_done),
        };
        let game = Arc::clone(&self.game);
        let handle = std::thread::Builder::new()
            .name("tammi-search".into())
            .stack_size(16 << 20)
            .spawn(move || game.run(job))
            .expect("spawning the search thread");
        self.running = Some(Running { control, handle });
    }

    /// Search and wait for the result (for tools and tests).
    pub fn think(&mut self, limits: Limits, on_info: impl FnMut(Info) + Send + 'static) -> Done {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.go(limits, on_info, move |d| {
            let _ = tx.send(d);
        });
        self.wait();
        rx.recv().expect("every search ends with a Done")
    }

    /// Ask the running search to finish now; it calls `on_done` with the best move found.
    /// Returns at once (see [`Engine::wait`]).
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.control.stop.store(true, Relaxed);
        }
    }

    /// The opponent played the move the engine was pondering on: from now on the search
    /// runs on the engine's clock under the limits given to `go`.
    pub fn ponder_hit(&self) {
        if let Some(r) = &self.running {
            r.control.ponder_hit();
        }
    }

    /// Whether a search is running (its `Done` may not have been sent yet).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Block until the running search (if any) has finished and sent its `Done`.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            // A panic in the search thread is a bug; report it rather than hide it.
            if let Err(e) = r.handle.join() {
                std::panic::resume_unwind(e);
            }
        }
    }

    /// The next search is unrelated to the previous ones: forget the hash table.
    pub fn new_game(&mut self) {
        self.stop_and_wait();
        self.tt.clear();
    }

    fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }
}
