//! The engine API the protocol adapters (Hub, command line) are written against: a
//! position with its game history, options, a shared transposition table, and searches
//! that run on their own threads and answer through callbacks.
//!
//! The board type is erased here, at the edge: a [`GameState<P>`] per variant behind the
//! [`AnyGame`] trait, chosen at run time with `with_board!`.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use crate::egdb::{Database, Wld};
use crate::eval::{Evaluate, Evaluator};
use crate::notation::{
    format_hub_move, format_move, parse_move, parse_position, write_fen, write_hub_position,
};
use crate::rules::{Bits, Board, Game, Move, Notation, Outcome, Variant};
use crate::with_board;

use super::limits::{EngineOptions, Limits};
use super::resources::{Change, ErrorCallback, Preparation, Prepared, Resources, egdb_change};
use super::search::{
    Control, EGDB_EVAL_RANGE, EGDB_WIN, Iteration, MATE, MATE_BOUND, RootMove, SearchShared,
    Searcher, Tables, database_value,
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
    /// The engine's game number (see [`Slot`]).
    game: u64,
}

/// A game position of any variant (the type-erased face of [`GameState`]).
trait AnyGame: Send + Sync {
    fn variant(&self) -> Variant;
    fn fen(&self) -> String;
    fn hub_position(&self) -> String;
    fn legal_moves(&self) -> Vec<String>;
    /// How the game has ended by the rules (its history included), if it has.
    fn outcome(&self) -> Option<Outcome>;
    /// Run a search to its end on the calling thread (a pool thread, whose tables are
    /// `slot`) with the help of the pool's `helpers`, then call `on_done`.
    fn run(self: Arc<Self>, job: Job, slot: &mut Slot, helpers: &[Sender<Task>]);
}

/// The position to search, how the game reached it, and the variant's evaluation.
struct GameState<P: Evaluate> {
    game: Game<P>,
    /// The current position (`game.position()`, kept at hand).
    pos: P,
    eval: Evaluator<P>,
}

impl<P: Evaluate> GameState<P> {
    /// Parse `position` and play `moves` from it; the error names the bad part.
    fn new(position: &str, moves: &[String]) -> Result<Self, String> {
        let start: P = parse_position(position)
            .map_err(|e| format!("invalid {} position '{position}': {e}", P::VARIANT))?;
        let mut game = Game::new(start);
        for (i, text) in moves.iter().enumerate() {
            let at = |e: &dyn std::fmt::Display| {
                format!("move {} of {} ('{text}'): {e}", i + 1, moves.len())
            };
            // A move after the end of the game (a win, or a draw by the rules: a
            // repetition, a draw counter) is no move of this game.
            if let Some(o) = game.outcome() {
                return Err(at(&format!("the game was already over ({o})")));
            }
            let mv = parse_move(game.position(), text, &game.legal_moves()).map_err(|e| at(&e))?;
            game.play(&mv).map_err(|e| at(&e))?;
        }
        Ok(GameState {
            pos: *game.position(),
            game,
            eval: Evaluator::new(),
        })
    }

    /// Search thread `id`'s searcher of this position (`legal` are its moves).
    fn searcher<'s>(
        &'s self,
        tt: &'s TranspositionTable,
        shared: &'s SearchShared,
        id: usize,
        legal: &[Move<P::B>],
        tables: Tables<P::B>,
        egdb: Option<&'s Database>,
    ) -> Searcher<'s, P> {
        Searcher::new(
            &self.eval,
            tt,
            shared,
            id,
            self.pos,
            self.game.counters(),
            self.game.history(),
            legal,
            tables,
        )
        .with_egdb(egdb)
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

    /// The score to report for an internal search score with principal variation `pv`:
    /// database results in their own form.
    fn reported_score(&self, internal: i32, pv: &[Move<P::B>], egdb: Option<&Database>) -> Score {
        let mut score = Score::from_internal(internal);
        if let Some(db) = egdb.filter(|db| db.variant() == P::VARIANT) {
            match score {
                Score::Database(sign) => {
                    score =
                        Score::Database(sign * plies_to_database(&self.pos, pv, db.max_pieces()))
                }
                // The root itself is in the database: its value is exact, whatever the
                // search of the smaller positions scores (it probes only those).
                Score::Eval(_) => match database_value(db, &self.pos) {
                    Some(Wld::Win) => score = Score::Database(1),
                    Some(Wld::Loss) => score = Score::Database(-1),
                    Some(Wld::Draw) => score = Score::Eval(0),
                    None => {}
                },
                Score::GameEnd(_) => {}
            }
        }
        score
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
        let score = self.reported_score(line.score, &line.pv, job.egdb.as_deref());
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

    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    fn run(self: Arc<Self>, mut job: Job, slot: &mut Slot, helpers: &[Sender<Task>]) {
        let notation = job
            .options
            .notation
            .unwrap_or(P::VARIANT.default_notation());
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        if self.game.outcome().is_some() {
            // The game is over (by the rules, its history included): there is no move
            // to give.
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
        // The pool has the threads asked for, unless the system refused some.
        let threads = job.options.threads.clamp(1, helpers.len() + 1);
        let shared = Arc::new(SearchShared::new(
            Arc::clone(&job.control),
            job.limits.clone(),
            budget,
            threads,
            job.options.multipv,
        ));
        // The database is english only.
        let egdb = job.egdb.clone().filter(|db| db.variant() == P::VARIANT);
        let owner = (P::VARIANT, job.game);
        let mut on_info = std::mem::replace(&mut job.on_info, Box::new(|_| {}));
        let on_done = std::mem::replace(&mut job.on_done, Box::new(|_| {}));
        let published: Arc<Vec<Published<P::B>>> =
            Arc::new((1..threads).map(|_| Mutex::new(None)).collect());
        // The helpers wait at `start` until every one has its task: started straight
        // into the search, each slowed the handing out to the next (with more threads
        // than cores the main thread gets a shrinking share of them), and 256 threads on
        // two cores took seconds to start. Once stopped, a helper goes back to waiting
        // for its next task: threads that wait do not compete for the cores the main
        // thread needs to answer.
        let start = Arc::new(Gate::default());
        let crew = Arc::new(Crew::default());
        for (i, pool_thread) in helpers[..threads - 1].iter().enumerate() {
            let id = i + 1;
            let (game, tt, shared, egdb) = (
                Arc::clone(&self),
                Arc::clone(&job.tt),
                Arc::clone(&shared),
                egdb.clone(),
            );
            let (published, start, crew_) = (
                Arc::clone(&published),
                Arc::clone(&start),
                Arc::clone(&crew),
            );
            let task: Task = Box::new(move |slot: &mut Slot| {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let mut legal = Vec::new();
                    game.pos.generate(&mut legal);
                    let tables = slot.take(owner);
                    let mut helper =
                        game.searcher(&tt, &shared, id, &legal, tables, egdb.as_deref());
                    start.wait();
                    helper.iterate(&mut |it| {
                        *lock(&published[id - 1]) = Some((it.depth, it.lines[0].clone()));
                    });
                    slot.put(owner, helper.into_tables());
                }));
                crew_.leave(result.err());
            });
            crew.enter();
            if pool_thread.send(task).is_err() {
                // The thread is gone (it cannot be, short of a bug): search without it.
                crew.leave(None);
            }
        }
        let tables = slot.take(owner);
        let mut main = self.searcher(&job.tt, &shared, 0, &legal, tables, egdb.as_deref());
        start.open();
        main.iterate(&mut |it| {
            for (i, line) in it.lines.iter().enumerate() {
                on_info(self.info(line, it, i + 1, &job, notation));
            }
        });
        shared.abort();
        hold_until_released(&job.control, &job.limits);

        // Lazy SMP: a helper that finished a deeper iteration with a better score than
        // the main thread's has the better move (the rule of Stockfish 9). Single lines
        // only: MultiPV reports the main thread's lines.
        let mut chosen = (main.completed_depth, main.best[0].clone());
        if job.options.multipv <= 1 {
            for slot in published.iter() {
                if let Some((depth, line)) = lock(slot).as_ref()
                    && *depth > chosen.0
                    && line.score > chosen.1.score
                {
                    chosen = (*depth, line.clone());
                }
            }
        }
        let (depth, best) = chosen;
        let (hub, text) = self.texts(&best.pv[..best.pv.len().min(2)], notation);
        let done = Done {
            best: hub.first().cloned(),
            ponder: hub.get(1).cloned(),
            best_text: text.first().cloned(),
            ponder_text: text.get(1).cloned(),
            score: Some(self.reported_score(best.score, &best.pv, job.egdb.as_deref())),
            depth: depth as u32,
            nodes: shared.nodes.load(Relaxed),
            time: job.control.start.elapsed(),
        };
        // Answer first, then wait for the helpers to be back in the pool (the next
        // search must not start while they still search this one).
        on_done(done);
        slot.put(owner, main.into_tables());
        if let Some(panic) = crew.wait() {
            resume_unwind(panic);
        }
    }
}

/// A helper's last completed iteration: its depth and best line.
type Published<B> = Mutex<Option<(i32, RootMove<B>)>>;

/// A mutex's contents, even after a panic elsewhere (the data is plain values).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where helper threads wait for the main thread until it has handed out every task.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = lock(&self.open);
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn open(&self) {
        *lock(&self.open) = true;
        self.opened.notify_all();
    }
}

/// The helpers of one search still searching it, and the first panic among them.
#[derive(Default)]
struct Crew {
    state: Mutex<(usize, Option<Panic>)>,
    idle: Condvar,
}

/// What a panicking thread left (to be raised again on the caller's thread).
type Panic = Box<dyn Any + Send>;

impl Crew {
    fn enter(&self) {
        lock(&self.state).0 += 1;
    }

    fn leave(&self, panic: Option<Panic>) {
        let mut st = lock(&self.state);
        st.0 -= 1;
        if st.1.is_none() {
            st.1 = panic;
        }
        if st.0 == 0 {
            self.idle.notify_all();
        }
    }

    /// Wait until every helper has left; the first panic among them, if any.
    fn wait(&self) -> Option<Panic> {
        let mut st = lock(&self.state);
        while st.0 > 0 {
            st = self.idle.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.1.take()
    }
}

/// Work for a pool thread, given that thread's tables.
type Task = Box<dyn FnOnce(&mut Slot) + Send>;

/// A pool thread's search tables (see [`Tables`]) between searches, with the game they
/// were learnt in: the variant, and the engine's game number, which `new_game` advances.
/// Tables of another game are dropped, and the search starts from new ones.
#[derive(Default)]
struct Slot {
    owner: Option<(Variant, u64)>,
    tables: Option<Box<dyn Any + Send>>,
}

impl Slot {
    fn take<B: Copy + Default + Send + 'static>(&mut self, owner: (Variant, u64)) -> Tables<B> {
        let kept = self.tables.take().filter(|_| self.owner == Some(owner));
        match kept.map(|t| t.downcast::<Tables<B>>()) {
            Some(Ok(t)) => *t,
            _ => Tables::default(),
        }
    }

    fn put<B: Send + 'static>(&mut self, owner: (Variant, u64), tables: Tables<B>) {
        self.owner = Some(owner);
        self.tables = Some(Box::new(tables));
    }
}

/// The search threads, started once and kept from move to move (starting them for every
/// search cost a `go` a spawn per thread): the main one runs each search and answers, the
/// helpers run the Lazy-SMP searches beside it. Each waits for its next task; a thread
/// whose sender is dropped ends.
#[derive(Default)]
struct Pool {
    main: Option<Sender<Task>>,
    helpers: Arc<Vec<Sender<Task>>>,
}

impl Pool {
    /// Have `threads` threads in all: start the missing ones, let the extra ones end. A
    /// helper that cannot be started (a system limit) is done without.
    fn resize(&mut self, threads: usize) {
        if self.main.is_none() {
            // The main search's recursion and move lists get a large stack.
            self.main = Some(
                spawn_pool_thread("tammi-search", Some(16 << 20))
                    .expect("starting the search thread"),
            );
        }
        let want = threads.max(1) - 1;
        if self.helpers.len() == want {
            return;
        }
        let mut helpers = self.helpers.as_ref().clone();
        helpers.truncate(want);
        while helpers.len() < want {
            match spawn_pool_thread("tammi-helper", None) {
                Some(t) => helpers.push(t),
                None => break,
            }
        }
        self.helpers = Arc::new(helpers);
    }
}

/// Start a pool thread; `None` if the system refuses.
fn spawn_pool_thread(name: &str, stack: Option<usize>) -> Option<Sender<Task>> {
    let (tx, rx): (Sender<Task>, Receiver<Task>) = crossbeam_channel::unbounded();
    let mut builder = std::thread::Builder::new().name(name.into());
    if let Some(size) = stack {
        builder = builder.stack_size(size);
    }
    builder
        .spawn(move || {
            let mut slot = Slot::default();
            for task in rx {
                // Tasks catch their own panics and report them to the caller.
                task(&mut slot);
            }
        })
        .ok()?;
    Some(tx)
}

/// A search in progress; at its end its thread sends back the panic that ended it, if
/// one did.
struct Running {
    control: Arc<Control>,
    done: Receiver<Result<(), Panic>>,
}

/// The engine: options, the transposition table, the current position, and at most one
/// search running at a time.
///
/// Commands that change the state (`set_position`, `set_options`, `new_game`, `go`)
/// first stop a running search and wait for its `Done`.
///
/// Allocating and clearing a large table and reading a database take seconds, so
/// [`Engine::set_options_in_background`] and [`Engine::new_game`] leave them to a
/// preparation thread and return at once (see [`super::resources`]). A search started
/// meanwhile waits for the preparation on its own thread, for at most
/// [`preparation_wait`] of its clock, then searches with the resources in place.
pub struct Engine {
    /// As last set: the hash size and database being prepared count as set (they fall
    /// back to the old values if the preparation fails).
    options: EngineOptions,
    /// In use until a preparation's are collected.
    resources: Resources,
    /// The latest preparation, if one is at work or not yet collected.
    preparing: Option<Arc<Preparation>>,
    /// The variant the `egdb` option's database was chosen for (a directory holds
    /// one for each variant; see [`Engine::follow_variant`]).
    egdb_variant: Variant,
    game: Arc<dyn AnyGame>,
    running: Option<Running>,
    pool: Pool,
    /// Advanced by `new_game`: the search tables of an earlier game are not used again.
    game_number: u64,
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

/// How long a search waits for a preparation at work before it searches with the
/// resources in place: on a clock, a twentieth of the time allotted and at most 20 ms
/// (a large table is not worth a game lost on time); otherwise (depth, nodes, analysis
/// until `stop`) until it is done, so that such searches give the same tree every time.
fn preparation_wait(budget: Option<&time::Budget>) -> Option<Duration> {
    budget.map(|b| (b.hard / 20).min(Duration::from_millis(20)))
}

impl Engine {
    /// An engine with `options`, set to the international start position.
    pub fn new(options: EngineOptions) -> Result<Engine, String> {
        options.validate()?;
        let game: Arc<dyn AnyGame> = Arc::new(
            GameState::<crate::rules::Position<crate::rules::International>>::new("start", &[])
                .expect("the start position is valid"),
        );
        let mut resources = Resources::new(options.hash_mb)?;
        egdb_change(options.egdb.as_deref(), game.variant())?.apply(&mut resources)?;
        Ok(Engine {
            resources,
            preparing: None,
            egdb_variant: game.variant(),
            options,
            game,
            running: None,
            pool: Pool::default(),
            game_number: 0,
        })
    }

    /// The options as last set (a hash size or database being prepared counts as set;
    /// [`Engine::collect_preparation`] brings back the old value if it failed).
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// If the preparation thread is done, put its resources to use (so that `options`
    /// shows the old value of a change that failed). Never waits.
    pub fn collect_preparation(&mut self) {
        if self.preparing.as_ref().is_some_and(|p| p.is_done()) {
            let p = self.preparing.take().expect("checked");
            self.install(p.take_when_done());
        }
    }

    /// Change the options and wait until a new table is allocated or a new database
    /// read; on error nothing changes.
    pub fn set_options(&mut self, options: EngineOptions) -> Result<(), String> {
        let before = self.options.clone();
        self.set_options_in_background(options, None)?;
        if let Some(e) = self.settle() {
            // The resources stayed as they were; so do the other options.
            let (hash_mb, egdb) = (self.options.hash_mb, self.options.egdb.take());
            self.options = EngineOptions {
                hash_mb,
                egdb,
                ..before
            };
            return Err(e);
        }
        Ok(())
    }

    /// Change the options and return at once: a new table is allocated and a new
    /// database read on a preparation thread (see [`Engine`]). What can be checked at
    /// once is: a value out of range, or a database path that is not a database file
    /// (then nothing changes). An error found later by the preparation (no memory for
    /// the table, a read error) goes to `on_error`, from the preparation thread; the
    /// table or database then stays as it was, and so does its option.
    pub fn set_options_in_background(
        &mut self,
        options: EngineOptions,
        on_error: Option<ErrorCallback>,
    ) -> Result<(), String> {
        options.validate()?;
        self.stop_and_wait();
        self.collect_preparation();
        // Threads are started here rather than at the next `go`, off the clock.
        self.pool.resize(options.threads);
        let mut changes = Vec::new();
        if options.egdb != self.options.egdb {
            // The file is checked now; only its tables are read later.
            changes.push(egdb_change(options.egdb.as_deref(), self.variant())?);
            self.egdb_variant = self.variant();
        }
        if options.hash_mb != self.options.hash_mb {
            changes.push(Change::Resize(options.hash_mb));
        }
        self.options = options;
        if !changes.is_empty() {
            self.prepare(changes, on_error);
        }
        Ok(())
    }

    /// Start a preparation thread that makes `changes` (after any preparation still at
    /// work, in order); the engine searches with the resources it has meanwhile.
    fn prepare(&mut self, changes: Vec<Change>, on_error: Option<ErrorCallback>) {
        if changes.iter().any(|c| matches!(c, Change::Resize(_))) {
            self.resources.shrink_for_resize();
        }
        let earlier = self.preparing.take();
        self.preparing = Some(Preparation::start(
            self.resources.clone(),
            earlier,
            changes,
            on_error,
        ));
    }

    /// Put prepared resources to use; their option values are the true ones now.
    fn install(&mut self, (r, error): Prepared) -> Option<String> {
        self.options.hash_mb = r.hash_mb;
        self.options.egdb = r.egdb_path.clone();
        self.resources = r;
        error
    }

    /// Wait for the search and any preparation to finish; returns the preparation's
    /// error.
    fn settle(&mut self) -> Option<String> {
        self.stop_and_wait();
        let p = self.preparing.take()?;
        self.install(p.take_when_done())
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
        self.follow_variant();
        Ok(())
    }

    /// With a directory of databases as the `egdb` option, load its database of the
    /// variant now played (or unload the one of the variant before, if it has none).
    /// Nothing to do for a single file, which is probed in its own variant's positions
    /// only. A directory that can no longer be read leaves the database as it was: the
    /// position is set all the same.
    fn follow_variant(&mut self) {
        let variant = self.variant();
        let Some(dir) = self.options.egdb.clone().filter(|p| p.is_dir()) else {
            return;
        };
        if variant == self.egdb_variant {
            return;
        }
        if let Ok(change) = egdb_change(Some(&dir), variant) {
            self.egdb_variant = variant;
            self.prepare(vec![change], None);
        }
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

    /// How the game has ended by the rules, if it has: no legal move, breakthrough's
    /// first king, or a draw by the history (repetition, a draw counter). A search of
    /// such a position has no move to give.
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
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
        self.collect_preparation();
        // A preparation still at work: the search waits a little for its resources
        // (see `preparation_wait`); the engine collects them later.
        let preparing = self.preparing.clone();
        self.pool.resize(self.options.threads);
        let control = Arc::new(Control::new(limits.ponder));
        let mut job = Job {
            tt: Arc::clone(&self.resources.tt),
            egdb: self.resources.egdb.clone(),
            control: Arc::clone(&control),
            options: self.options.clone(),
            limits,
            on_info: Box::new(on_info),
            on_done: Box::new(on_done),
            game: self.game_number,
        };
        let game = Arc::clone(&self.game);
        let helpers = Arc::clone(&self.pool.helpers);
        let (tx, done) = crossbeam_channel::bounded(1);
        let task: Task = Box::new(move |slot: &mut Slot| {
            let result = catch_unwind(AssertUnwindSafe(|| {
                if let Some(p) = preparing {
                    let budget = time::allocate(&job.limits, job.options.move_overhead);
                    let control = Arc::clone(&job.control);
                    let stopped = move || control.stop.load(Relaxed);
                    if let Some(r) = p.wait(preparation_wait(budget.as_ref()), &stopped) {
                        job.tt = r.tt;
                        job.egdb = r.egdb;
                    }
                }
                game.run(job, slot, &helpers);
            }));
            if result.is_err() {
                // The tables may be half updated.
                *slot = Slot::default();
            }
            let _ = tx.send(result);
        });
        self.pool
            .main
            .as_ref()
            .expect("resized above")
            .send(task)
            .expect("the search thread waits for tasks");
        self.running = Some(Running { control, done });
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
        self.running.as_ref().is_some_and(|r| r.done.is_empty())
    }

    /// Block until the running search (if any) has finished and sent its `Done`.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            // A panic in the search thread is a bug; report it rather than hide it.
            match r.done.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => resume_unwind(e),
                Err(_) => panic!("the search thread ended without an answer"),
            }
        }
    }

    /// The next search is unrelated to the previous ones: forget the hash table, and
    /// the history and killers the search threads learnt. The table is cleared on the
    /// preparation thread (seconds for gigabytes); the next search waits for it.
    pub fn new_game(&mut self) {
        self.stop_and_wait();
        self.game_number += 1;
        self.prepare(vec![Change::Clear], None);
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
            let _ = r.done.recv();
        }
    }
}
