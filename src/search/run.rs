//! One search run: the position of any variant behind the [`AnyGame`] trait (the board
//! type is erased here, at the engine's edge, and chosen with `with_board!`), the
//! Lazy-SMP helpers of one search and the vote that picks the move, and the reports.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::Sender;

use crate::egdb::{Database, Wld};
use crate::eval::{EvalSettings, Evaluate, Evaluator};
use crate::notation::{
    format_hub_move, format_move, parse_move, parse_position, write_fen, write_hub_position,
};
use crate::rules::{AnyMove, DrawReason, Game, Move, Notation, Outcome, Variant};

use super::limits::{EngineOptions, Limits};
use super::report::{Done, Info};
use super::score::{Score, plies_to_database};
use super::search::{
    Control, Iteration, MAX_DEPTH, RootMove, SearchRoot, SearchShared, Searcher, Tables,
    database_value,
};
use super::threads::{Crew, Gate, Published, Slot, Task, lock};
use super::time;
use super::tt::TranspositionTable;

pub(super) type InfoCallback = Box<dyn FnMut(Info) + Send>;
pub(super) type DoneCallback = Box<dyn FnOnce(Done) + Send>;

/// Everything a search thread needs.
pub(super) struct Job {
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) egdb: Option<Arc<Database>>,
    pub(super) control: Arc<Control>,
    pub(super) options: EngineOptions,
    pub(super) limits: Limits,
    pub(super) on_info: InfoCallback,
    pub(super) on_done: DoneCallback,
    /// The engine's game number (see [`Slot`]).
    pub(super) game: u64,
}

/// A game position of any variant (the type-erased face of [`GameState`]).
pub(super) trait AnyGame: Send + Sync {
    fn variant(&self) -> Variant;
    fn fen(&self) -> String;
    fn hub_position(&self) -> String;
    /// The legal moves, Hub text (for the Hub and the book file, which speak it).
    fn legal_moves(&self) -> Vec<String>;
    /// The same moves, typed, in the same order.
    fn legal(&self) -> Vec<AnyMove>;
    /// How the game has ended by the rules (its history included), if it has.
    fn outcome(&self) -> Option<Outcome>;
    /// Why the game's history has drawn it (a repetition, a draw counter), if it has.
    fn drawn_by_history(&self) -> Option<DrawReason>;
    /// The same game evaluated as `eval` says.
    fn with_eval(&self, eval: &EvalSettings) -> Arc<dyn AnyGame>;
    /// Run a search to its end on the calling thread (a pool thread, whose tables are
    /// `slot`) with the help of the pool's `helpers`, then call `on_done`.
    fn run(self: Arc<Self>, job: Job, slot: &mut Slot, helpers: &[Sender<Task>]);
}

/// The position to search, how the game reached it, and the variant's evaluation.
pub(super) struct GameState<P: Evaluate> {
    game: Game<P>,
    /// The current position (`game.position()`, kept at hand).
    pos: P,
    eval: Evaluator<P>,
}

impl<P: Evaluate> GameState<P> {
    /// Parse `position` and play `moves` from it, to be evaluated as `eval` says; the
    /// error names the bad part.
    pub(super) fn new(
        position: &str,
        moves: &[String],
        eval: &EvalSettings,
    ) -> Result<Self, String> {
        let start: P = parse_position(position)
            .map_err(|e| format!("invalid {} position '{position}': {e}", P::VARIANT))?;
        let mut game = Game::new(start);
        for (i, text) in moves.iter().enumerate() {
            let at = |e: &dyn std::fmt::Display| {
                format!("move {} of {} ('{text}'): {e}", i + 1, moves.len())
            };
            let mv = parse_move(game.position(), text, &game.legal_moves()).map_err(|e| at(&e))?;
            game.play(&mv).map_err(|e| at(&e))?;
        }
        Ok(Self::from_game(game, eval))
    }

    /// `game`'s current position, reached as `game` reached it.
    pub(super) fn from_game(game: Game<P>, eval: &EvalSettings) -> Self {
        GameState {
            pos: *game.position(),
            game,
            eval: Evaluator::with_settings(eval),
        }
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
        let root = SearchRoot {
            pos: self.pos,
            counters: self.game.counters(),
            history: self.game.history(),
            legal,
        };
        Searcher::new(&self.eval, tt, shared, id, root, tables).with_egdb(egdb)
    }

    /// The moves of `line`, typed and in `notation`, stopping at the first move that is
    /// not legal (cannot happen; a guard for the printing code).
    fn moves_and_texts(
        &self,
        line: &[Move<P::B>],
        notation: Notation,
    ) -> (Vec<AnyMove>, Vec<String>) {
        let mut pos = self.pos;
        let mut legal = Vec::new();
        let (mut moves, mut text) = (Vec::new(), Vec::new());
        for mv in line {
            pos.generate(&mut legal);
            if !legal.contains(mv) {
                break;
            }
            moves.push(mv.erase());
            text.push(format_move(&pos, mv, &legal, notation));
            pos = pos.play(mv);
        }
        (moves, text)
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
        let (pv_moves, pv) = self.moves_and_texts(&line.pv, notation);
        let score = self.reported_score(line.score, &line.pv, job.egdb.as_deref());
        Info {
            depth: it.depth as u32,
            seldepth: line.seldepth as u32,
            multipv,
            score,
            nodes: it.nodes,
            time,
            nps: (it.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
            pv_moves,
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

    fn legal(&self) -> Vec<AnyMove> {
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        legal.iter().map(|m| m.erase()).collect()
    }

    fn outcome(&self) -> Option<Outcome> {
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        crate::rules::outcome(&self.pos, !legal.is_empty())
    }

    fn drawn_by_history(&self) -> Option<DrawReason> {
        self.game.drawn()
    }

    fn with_eval(&self, eval: &EvalSettings) -> Arc<dyn AnyGame> {
        Arc::new(GameState::from_game(self.game.clone(), eval))
    }

    fn run(self: Arc<Self>, mut job: Job, slot: &mut Slot, helpers: &[Sender<Task>]) {
        let notation = job
            .options
            .notation
            .unwrap_or(P::VARIANT.default_notation());
        let mut legal = Vec::new();
        self.pos.generate(&mut legal);
        if legal.is_empty() || crate::rules::outcome(&self.pos, true).is_some() {
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
        // the main thread's has the better move (the rule of Stockfish 9), and so has one
        // that finished the deepest iteration a depth limit asks for (it ended the
        // search). Single lines only: MultiPV reports the main thread's lines.
        let mut chosen = (main.completed_depth, main.best[0].clone());
        let deepest = job.limits.depth.map(|d| (d as i32).clamp(1, MAX_DEPTH));
        if job.options.multipv <= 1 {
            for slot in published.iter() {
                if let Some((depth, line)) = lock(slot).as_ref()
                    && *depth > chosen.0
                    && (line.score > chosen.1.score || Some(*depth) == deepest)
                {
                    chosen = (*depth, line.clone());
                }
            }
        }
        let (depth, best) = chosen;
        let (moves, text) = self.moves_and_texts(&best.pv[..best.pv.len().min(2)], notation);
        let done = Done {
            best_move: moves.first().copied(),
            ponder_move: moves.get(1).copied(),
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
