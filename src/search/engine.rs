//! The engine API the protocol adapters (Hub, command line) are written against: a
//! position with its game history, options, a shared transposition table, and searches
//! that run on their own threads and answer through callbacks. One search run is
//! [`super::run`], its threads [`super::threads`], its table and database
//! [`super::resources`].

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::eval::{EvalSettings, Evaluate};
use crate::rules::{AnyMove, DrawReason, Game, Outcome, Variant};
use crate::with_board;

use super::limits::{EngineOptions, Limits};
use super::resources::{Change, ErrorCallback, Preparation, Prepared, Resources, egdb_change};
use super::run::{AnyGame, DoneCallback, GameState, InfoCallback, Job};
use super::search::Control;
use super::threads::{Panic, Pool, Slot, Task};
use super::time;

pub use super::report::{Done, Info};
pub use super::score::Score;

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
    /// How each variant is evaluated: the engine's own, whatever other engines of the
    /// process use.
    eval: EvalSettings,
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
            GameState::<crate::rules::Position<crate::rules::International>>::new(
                "start",
                &[],
                &EvalSettings::default(),
            )
            .expect("the start position is valid"),
        );
        let mut resources = Resources::new(options.hash_mb)?;
        egdb_change(options.egdb.as_deref(), game.variant())?.apply(&mut resources)?;
        Ok(Engine {
            resources,
            preparing: None,
            egdb_variant: game.variant(),
            eval: EvalSettings::default(),
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

    /// How this engine evaluates each variant.
    pub fn eval(&self) -> &EvalSettings {
        &self.eval
    }

    /// Evaluate as `eval` says from now on, the position already set included.
    pub fn set_eval(&mut self, eval: EvalSettings) {
        self.stop_and_wait();
        self.game = self.game.with_eval(&eval);
        self.eval = eval;
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
            Arc::new(GameState::<P>::new(position, moves, &self.eval)?) as Arc<dyn AnyGame>
        });
        self.stop_and_wait();
        self.game = game;
        self.follow_variant();
        Ok(())
    }

    /// Set the position to search as `game`'s current one, its history (for the draw
    /// rules) included: the typed form of [`Engine::set_position`].
    pub fn set_game<P: Evaluate>(&mut self, game: &Game<P>) {
        let game: Arc<dyn AnyGame> = Arc::new(GameState::from_game(game.clone(), &self.eval));
        self.stop_and_wait();
        self.game = game;
        self.follow_variant();
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

    /// The legal moves of the current position, typed, in the order of
    /// [`Engine::legal_moves`].
    pub fn legal(&self) -> Vec<AnyMove> {
        self.game.legal()
    }

    /// How the game has ended on the board, if it has: no legal move, or breakthrough's
    /// first king. A search of such a position has no move to give. (The draw rules are
    /// the referee's to apply: a client whose rules lack one asks for a move there.)
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    /// Why the moves given with the position have drawn the game by the rules (a
    /// repetition, a draw counter), if they have. The engine still searches such a
    /// position when asked: the referee applies the draw rules, and a client whose rules
    /// lack this one wants a move.
    pub fn drawn_by_history(&self) -> Option<DrawReason> {
        self.game.drawn_by_history()
    }

    /// Start searching the current position; returns at once. `on_info` gets the progress
    /// after each iteration, `on_done` the result, exactly once, from the search thread.
    pub fn go(
        &mut self,
        limits: Limits,
        on_info: impl FnMut(Info) + Send + 'static,
        on_done: impl FnOnce(Done) + Send + 'static,
    ) {
        self.start(limits, Box::new(on_info), Box::new(on_done));
    }

    // Not generic, so that the search of every variant is compiled here once rather than
    // again in each crate that calls `go` with closures of its own types.
    fn start(&mut self, limits: Limits, on_info: InfoCallback, on_done: DoneCallback) {
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
            on_info,
            on_done,
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
