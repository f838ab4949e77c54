//! The search of one thread: iterative deepening with aspiration windows over a principal
//! variation search (PVS), quiescence on captures, and the pruning, reductions and
//! extensions that make it deep. Generic over the board type, so every variant gets its
//! own compiled copy; threads share only the transposition table and [`SearchShared`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use once_cell::sync::Lazy;

use crate::egdb::{Database, Wld};
use crate::eval::{Accumulator, Evaluate, Evaluator};
use crate::rules::game::{Counters, drawn, key_after};
use crate::rules::{Bits, Board, Color, DrawRules, Move, MoveList, Outcome, outcome};

use super::history::History;
use super::limits::Limits;
use super::ordering::{Killers, add_killer, is_killer, pick_next, score_moves};
use super::threads::{TURN_POLLS, Turns};
use super::time::{Budget, stability_factor};
use super::tt::{Bound, PackedMove, TranspositionTable};

/// Deepest ply the search can reach (iterative deepening stops well before).
pub const MAX_PLY: usize = 128;
/// Deepest iteration.
pub const MAX_DEPTH: i32 = 100;
/// Above every score.
pub const INFINITE: i32 = 32_001;
/// A game won at the root; a win `n` plies away scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores at least this large (in absolute value) are game ends.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// A position the endgame database calls won scores this plus its evaluation (clamped to
/// `EGDB_EVAL_RANGE`), so the search keeps the win and still prefers progress (material
/// gained, kings closing in); a lost one scores its negation. Reported in the Hub as 71
/// to 89 men: above any evaluation of a position with five pieces, below the 90 and up
/// that clients read as a game end (Scan's convention).
pub const EGDB_WIN: i32 = 8_000;
pub const EGDB_EVAL_RANGE: i32 = 900;

// Search parameters (centi-men and plies). Tuned by bench and tactics runs, not by the
// evaluation pipeline, so they live here rather than under tuning/.
/// Half-width of the first aspiration window.
const ASPIRATION_DELTA: i32 = 25;
const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Reverse futility pruning: depth limit and margin per ply.
const RFP_MAX_DEPTH: i32 = 3;
const RFP_MARGIN: i32 = 60;
/// ProbCut: a search this much shallower, against a bound this much above beta.
const PROBCUT_MIN_DEPTH: i32 = 5;
const PROBCUT_REDUCTION: i32 = 4;
const PROBCUT_MARGIN: i32 = 80;
/// Late-move reductions start at this depth and after this many moves.
const LMR_MIN_DEPTH: i32 = 3;
const LMR_FIRST_MOVE: usize = 2;
/// Nodes between two looks at the clock, the node limit and the stop flags.
const POLL_INTERVAL: u64 = 256;

/// Late-move reduction in plies by depth and move number: log(depth) * log(moves).
/// (Measured: these reductions, with forcing moves reduced one ply less instead of not at
/// all, halve the nodes to depth 17 and scored +70 ± 53 Elo in 60 games at 0.1 s a move
/// against the milder 0.5 + ln d ln m / 2.25 with forcing moves never reduced.)
static LMR: Lazy<[[i32; 64]; 64]> = Lazy::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.0) as i32;
        }
    }
    t
});

/// Lazy SMP: helper threads skip some depths so they do not all search the same tree in
/// lock step (the scheme of Stockfish 10).
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// The caller's handle on a running search: stop, ponder hit, and when the clock started.
pub struct Control {
    pub stop: AtomicBool,
    /// Time limits do not apply while pondering.
    pub pondering: AtomicBool,
    /// When the search started.
    pub start: Instant,
    /// Nanoseconds after `start` when the engine's clock started running (ponder hit).
    clock_origin_ns: AtomicU64,
}

impl Control {
    pub fn new(ponder: bool) -> Self {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(ponder),
            start: Instant::now(),
            clock_origin_ns: AtomicU64::new(0),
        }
    }

    /// The opponent played the expected move: the clock runs from now.
    pub fn ponder_hit(&self) {
        let now = self.start.elapsed().as_nanos() as u64;
        self.clock_origin_ns.store(now, Relaxed);
        self.pondering.store(false, Relaxed);
    }

    /// Time on the engine's clock since the search (or the ponder hit) started.
    pub fn clock_elapsed(&self) -> Duration {
        self.start
            .elapsed()
            .saturating_sub(Duration::from_nanos(self.clock_origin_ns.load(Relaxed)))
    }
}

/// What the threads of one search share besides the transposition table.
pub struct SearchShared {
    pub control: Arc<Control>,
    /// Set when the search must end: the main thread is done, or a limit is reached.
    pub abort: AtomicBool,
    /// Nodes of all threads (each adds its count every `POLL_INTERVAL` nodes).
    pub nodes: AtomicU64,
    pub limits: Limits,
    pub budget: Option<Budget>,
    pub threads: usize,
    pub multipv: usize,
    /// Set with more threads than cores (see [`Turns`]).
    turns: Option<Turns>,
}

impl SearchShared {
    pub fn new(
        control: Arc<Control>,
        limits: Limits,
        budget: Option<Budget>,
        threads: usize,
        multipv: usize,
    ) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        SearchShared {
            control,
            abort: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            limits,
            budget,
            threads,
            multipv,
            turns: (threads > cores).then(|| Turns::new(cores)),
        }
    }

    /// End the search: every thread stops at its next poll.
    pub fn abort(&self) {
        self.abort.store(true, Relaxed);
        self.open_turns();
    }

    fn open_turns(&self) {
        if let Some(t) = &self.turns {
            t.open();
        }
    }

    /// Whether the search is ending (a waiting thread need not wait for its turn).
    fn ending(&self) -> bool {
        self.abort.load(Relaxed) || self.control.stop.load(Relaxed)
    }
}

/// A root move with what the last iteration learnt about it.
#[derive(Clone, Debug)]
pub struct RootMove<B> {
    pub mv: Move<B>,
    /// This iteration's score (`-INFINITE` if it was only proved worse than the best).
    pub score: i32,
    /// The previous iteration's score (the aspiration window's centre).
    pub previous: i32,
    pub seldepth: usize,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Move<B>>,
}

/// One finished iteration, as reported by a thread.
pub struct Iteration<'r, B> {
    pub depth: i32,
    /// The best lines, best first (MultiPV).
    pub lines: &'r [RootMove<B>],
    /// Nodes of all threads so far (the main thread), or of this thread (a helper).
    pub nodes: u64,
}

/// The score of a finished game for the side to move, `ply` plies from the root.
#[inline(always)]
fn game_end(o: Outcome, side: Color, ply: usize) -> i32 {
    match o {
        Outcome::Draw(_) => DRAW,
        Outcome::Win(c) if c == side => MATE - ply as i32,
        Outcome::Win(_) => -(MATE - ply as i32),
    }
}

/// Game-end scores are stored relative to the node, and read back relative to the root.
#[inline(always)]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline(always)]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// What a node keeps on the search path: its moves and their ordering scores, its
/// principal variation, and the killers of its ply (which outlive the node: the next
/// node at this ply tries them early).
struct Frame<B> {
    moves: MoveList<B>,
    scores: Vec<i32>,
    pv: Vec<Move<B>>,
    killers: Killers<B>,
}

impl<B: Copy + Default> Frame<B> {
    fn new() -> Self {
        Frame {
            moves: Vec::with_capacity(64),
            scores: Vec::with_capacity(64),
            pv: Vec::with_capacity(MAX_PLY),
            killers: [Move::default(); 2],
        }
    }
}

/// A thread's move-ordering knowledge and per-ply frames, kept from one search to the
/// next in the same game (the history and killers learnt on one move still order the
/// next, and the frames are not allocated again); a new game or another variant starts
/// from [`Tables::default`].
pub struct Tables<B> {
    history: History,
    stack: Vec<Frame<B>>,
}

impl<B: Copy + Default> Default for Tables<B> {
    fn default() -> Self {
        Tables {
            history: History::default(),
            stack: (0..MAX_PLY + 1).map(|_| Frame::new()).collect(),
        }
    }
}

/// The kind of a node, as its parent expects it to turn out; it decides the window, what
/// may be pruned and how much late moves are reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeKind {
    /// On the principal variation: an open window, never cut by the table.
    Pv,
    /// Expected to fail high: a null window, its late moves reduced more.
    Cut,
    /// Expected to fail low: a null window.
    All,
}

impl NodeKind {
    #[inline(always)]
    fn is_pv(self) -> bool {
        self == NodeKind::Pv
    }

    #[inline(always)]
    fn is_cut(self) -> bool {
        self == NodeKind::Cut
    }

    /// The kind of the first child (the expected best move): the principal variation
    /// goes on, and below a null window cut and all nodes alternate.
    #[inline(always)]
    fn first_child(self) -> NodeKind {
        match self {
            NodeKind::Pv => NodeKind::Pv,
            NodeKind::Cut => NodeKind::All,
            NodeKind::All => NodeKind::Cut,
        }
    }

    /// The kind of a late child searched again at full depth with a null window, after
    /// its reduced search failed high.
    #[inline(always)]
    fn research_child(self) -> NodeKind {
        match self {
            NodeKind::Cut => NodeKind::All,
            NodeKind::Pv | NodeKind::All => NodeKind::Cut,
        }
    }
}

/// A node of the tree: the position, what the draw rules need of how it was reached
/// (its key and counters), its distance from the root, and its kind.
#[derive(Clone, Copy)]
struct Node<P> {
    pos: P,
    key: u64,
    counters: Counters,
    ply: usize,
    kind: NodeKind,
}

impl<P: Board> Node<P> {
    /// The node after `mv`, of kind `kind`.
    #[inline(always)]
    fn child(&self, mv: &Move<P::B>, kind: NodeKind) -> Node<P> {
        Node {
            pos: self.pos.play(mv),
            key: key_after(&self.pos, self.key, mv),
            counters: self.counters.after(&self.pos, mv),
            ply: self.ply + 1,
            kind,
        }
    }

    /// The same node searched as another kind.
    #[inline(always)]
    fn as_kind(&self, kind: NodeKind) -> Node<P> {
        Node { kind, ..*self }
    }

    /// Whether the game is drawn here by the rules (a repetition of `keys`, the game's
    /// and the path's, or a draw counter at its limit).
    #[inline(always)]
    fn is_draw(&self, keys: &[u64], root_index: usize, rules: &DrawRules) -> bool {
        drawn(&self.pos, self.key, self.counters, keys, root_index, rules).is_some()
    }
}

/// One thread's search.
pub struct Searcher<'a, P: Evaluate> {
    eval: &'a Evaluator<P>,
    /// The endgame database, if one of the variant is loaded.
    egdb: Option<&'a Database>,
    /// Positions with at most this many pieces are probed (see `with_egdb`).
    egdb_pieces: u32,
    tt: &'a TranspositionTable,
    shared: &'a SearchShared,
    /// 0 for the main thread, which reports, keeps time and decides the move.
    id: usize,
    rules: DrawRules,
    root: P,
    root_key: u64,
    root_counters: Counters,
    /// Keys of the game's earlier positions (within the repetition window), then of the
    /// positions on the current search path.
    keys: Vec<u64>,
    /// Index in `keys` of the root position once pushed: later keys are in the tree.
    root_index: usize,
    /// One frame per ply (see [`Tables`]).
    stack: Vec<Frame<P::B>>,
    history: History,
    /// At the root, the first root move of the current MultiPV line (the ones before it
    /// are the lines already found in this iteration).
    pv_idx: usize,
    pub nodes: u64,
    flushed: u64,
    /// The node limit this thread enforces by itself (exact with one thread).
    local_node_limit: u64,
    seldepth: usize,
    root_depth: i32,
    stopped: bool,
    /// Whether this thread holds a turn (see [`Turns`]), and its polls since it got it.
    turn: bool,
    polls: u32,
    /// False during the first iteration, which always completes so there is a move.
    can_stop: bool,
    pub root_moves: Vec<RootMove<P::B>>,
    /// The lines of the last completed iteration (the search's answer).
    pub best: Vec<RootMove<P::B>>,
    pub completed_depth: i32,
    /// Network evaluation only (empty with the patterns): the first-layer accumulator of
    /// the position at each ply, entry 0 the root's, entry `ply + 1` written from entry
    /// `ply` as each child is made (see `net_child`), so copy-make needs no undo.
    net_acc: Vec<Accumulator>,
}

/// The database's value of `pos` for its side to move, if the database holds it (a
/// database of another variant holds nothing).
#[inline(always)]
pub(crate) fn database_value<P: Board>(db: &Database, pos: &P) -> Option<Wld> {
    db.probe(pos)
}

/// The position a search starts from, and how the game reached it.
pub struct SearchRoot<'r, P: Board> {
    pub pos: P,
    /// The draw counters of the game at `pos`.
    pub counters: Counters,
    /// Keys of the game's earlier positions since the last irreversible move.
    pub history: &'r [u64],
    /// The legal moves of `pos`.
    pub legal: &'r [Move<P::B>],
}

impl<'a, P: Evaluate> Searcher<'a, P> {
    /// Thread `id`'s searcher of `root`. `tables` are this thread's from its previous
    /// search in the game (or new ones).
    pub fn new(
        eval: &'a Evaluator<P>,
        tt: &'a TranspositionTable,
        shared: &'a SearchShared,
        id: usize,
        root: SearchRoot<P>,
        tables: Tables<P::B>,
    ) -> Self {
        let SearchRoot {
            pos: root,
            counters,
            history,
            legal,
        } = root;
        let local_node_limit = match shared.limits.nodes {
            Some(n) if shared.threads == 1 => n,
            _ => u64::MAX,
        };
        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 2);
        keys.extend_from_slice(history);
        Searcher {
            eval,
            egdb: None,
            egdb_pieces: 0,
            tt,
            shared,
            id,
            rules: P::VARIANT.draw_rules(),
            root,
            root_key: Board::hash(&root),
            root_counters: counters,
            root_index: keys.len(),
            keys,
            stack: tables.stack,
            history: tables.history,
            pv_idx: 0,
            nodes: 0,
            flushed: 0,
            local_node_limit,
            seldepth: 0,
            root_depth: 0,
            stopped: false,
            turn: false,
            polls: 0,
            can_stop: false,
            root_moves: legal
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITE,
                    previous: -INFINITE,
                    seldepth: 0,
                    pv: vec![mv],
                })
                .collect(),
            best: Vec::new(),
            completed_depth: 0,
            net_acc: match eval.network() {
                Some(n) => vec![n.refresh(&root); MAX_PLY + 1],
                None => Vec::new(),
            },
        }
    }

    // The two touch points of the network evaluation: `net_child` where a child is made,
    // `evaluate` where a position is scored. With the patterns both are the old code.

    /// Network only: the accumulator of `child` (one move from `pos`, at `ply`) into
    /// entry `ply + 1`, from `pos`'s at `ply`.
    #[inline(always)]
    fn net_child(&mut self, ply: usize, pos: &P, child: &P) {
        if let Some(n) = self.eval.network() {
            let (parent, rest) = self.net_acc.split_at_mut(ply + 1);
            n.update_into(&parent[ply], &mut rest[0], pos, child);
        }
    }

    /// The static evaluation of `pos` at `ply`: the network's from the accumulator kept
    /// for that ply (checked against the from-scratch one in debug builds and when a test
    /// asks, `network::verify`), or the patterns'.
    #[inline(always)]
    fn evaluate(&self, pos: &P, ply: usize) -> i32 {
        match self.eval.network() {
            Some(n) => {
                if cfg!(debug_assertions) || crate::eval::network::verifying() {
                    assert_eq!(
                        self.net_acc[ply],
                        n.refresh(pos),
                        "accumulator at ply {ply}"
                    );
                }
                n.output(&self.net_acc[ply], pos)
            }
            None => self.eval.evaluate(pos),
        }
    }

    /// This thread's tables, for its next search in the same game.
    pub fn into_tables(self) -> Tables<P::B> {
        Tables {
            history: self.history,
            stack: self.stack,
        }
    }

    /// Score positions with few pieces from `db` (the caller checks that it is the
    /// variant's). When the root itself is in the database, only positions with fewer
    /// pieces are probed: were every child scored at once, the search would stop at depth
    /// one and choose among equally won moves by the static evaluation alone, with no plan
    /// to make progress; searched, the won side looks for the captures that the database
    /// then confirms. With one principal variation asked for, the root's moves are also
    /// narrowed to those that keep its database value (MultiPV analysis shows them all).
    pub fn with_egdb(mut self, db: Option<&'a Database>) -> Self {
        self.egdb = db;
        let root_pieces = (self.root.white() | self.root.black()).count();
        self.egdb_pieces = db.map_or(0, |db| {
            let max = db.max_pieces() as u32;
            if root_pieces <= max {
                root_pieces - 1
            } else {
                max
            }
        });
        if let Some(db) = db
            && root_pieces <= db.max_pieces() as u32
            && self.shared.multipv <= 1
        {
            self.keep_best_database_moves(db);
        }
        self
    }

    /// With the root in the database, play only the moves that keep its value: a drawn
    /// position is never thrown away by a move that the probes of fewer pieces cannot
    /// judge (a quiet move between two positions of the same material), and a won one
    /// is never let go. The search then chooses among them.
    fn keep_best_database_moves(&mut self, db: &Database) {
        // The mover's result after each move: the database gives it for the opponent.
        let value = |rm: &RootMove<P::B>| match database_value(db, &self.root.play(&rm.mv)) {
            Some(Wld::Loss) => 2,
            Some(Wld::Draw) => 1,
            _ => 0,
        };
        let values: Vec<u8> = self.root_moves.iter().map(value).collect();
        let best = values.iter().copied().max().unwrap_or(0);
        let mut values = values.into_iter();
        self.root_moves.retain(|_| values.next() == Some(best));
        // With distances loaded (FILE.dtc), a won root keeps only the moves that convert
        // soonest and a lost one those that hold out longest (see `egdb::distance`): the
        // search of the smaller slices cannot see a king manoeuvre's length, and without
        // it a won ending can run into the draw rules. A conversion scores 0; a move
        // whose position has no distance leaves the choice to the search as before.
        let won = match best {
            2 => true,
            0 if database_value(db, &self.root) == Some(Wld::Loss) => false,
            _ => return,
        };
        let distances: Option<Vec<u8>> = self
            .root_moves
            .iter()
            .map(|rm| db.move_distance(&self.root, &rm.mv))
            .collect();
        let Some(distances) = distances else { return };
        let target = if won {
            distances.iter().min()
        } else {
            distances.iter().max()
        };
        let Some(&target) = target else { return };
        let mut distances = distances.into_iter();
        self.root_moves.retain(|_| distances.next() == Some(target));
    }

    /// The database's score of `pos`, if it holds it (see [`EGDB_WIN`]).
    #[inline(always)]
    fn probe_egdb(&self, pos: &P) -> Option<i32> {
        let db = self.egdb?;
        if (pos.white() | pos.black()).count() > self.egdb_pieces {
            return None;
        }
        let v = database_value(db, pos)?;
        let eval = || {
            self.eval
                .evaluate(pos)
                .clamp(-EGDB_EVAL_RANGE, EGDB_EVAL_RANGE)
        };
        Some(match v {
            Wld::Draw => DRAW,
            Wld::Win => EGDB_WIN + eval(),
            Wld::Loss => -EGDB_WIN + eval(),
        })
    }

    /// Add this thread's uncounted nodes to the shared total; returns the total.
    fn flush_nodes(&mut self) -> u64 {
        let delta = self.nodes - self.flushed;
        self.flushed = self.nodes;
        self.shared.nodes.fetch_add(delta, Relaxed) + delta
    }

    /// Whether the search must stop now. Cheap on most nodes; every `POLL_INTERVAL`
    /// nodes it reads the flags, the shared node count and (main thread) the clock.
    #[inline(always)]
    fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.local_node_limit && self.can_stop {
            self.stopped = true;
            self.shared.abort();
            return true;
        }
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll_slow();
        }
        self.stopped
    }

    #[cold]
    fn poll_slow(&mut self) {
        let total = self.flush_nodes();
        let s = self.shared;
        if let Some(turns) = &s.turns
            && self.turn
        {
            self.polls += 1;
            if self.polls.is_multiple_of(TURN_POLLS) {
                self.turn = turns.pass(&|| s.ending());
            }
        }
        if !self.can_stop {
            return;
        }
        if s.control.stop.load(Relaxed) || s.abort.load(Relaxed) {
            self.stopped = true;
            // Waiting threads must see the end too.
            s.open_turns();
            return;
        }
        if s.limits.nodes.is_some_and(|n| total >= n) {
            self.stopped = true;
            s.abort();
            return;
        }
        // Every thread watches the clock, not just the main one: with more threads than
        // cores the main thread may wait long for its turn on one, while whichever
        // threads are running see the deadline at once and end the search for all.
        if let Some(b) = s.budget
            && !s.control.pondering.load(Relaxed)
            && s.control.clock_elapsed() >= b.hard
        {
            self.stopped = true;
            s.abort();
        }
    }

    /// Iterative deepening, calling `report` after each completed iteration. The main
    /// thread (`id` 0) decides when to stop; helpers search until told to.
    pub fn iterate(&mut self, report: &mut dyn FnMut(&Iteration<P::B>)) {
        let s = self.shared;
        if let Some(turns) = &s.turns {
            self.turn = turns.acquire(&|| s.ending());
        }
        self.iterate_in_turn(report);
        if let Some(turns) = &s.turns
            && self.turn
        {
            turns.release();
            self.turn = false;
        }
    }

    fn iterate_in_turn(&mut self, report: &mut dyn FnMut(&Iteration<P::B>)) {
        let limits = self.shared.limits.clone();
        let max_depth = limits
            .depth
            .map_or(MAX_DEPTH, |d| (d as i32).clamp(1, MAX_DEPTH));
        let multipv = self.shared.multipv.clamp(1, self.root_moves.len().max(1));
        let mut last_best: Option<Move<P::B>> = None;
        let mut changes = 0.0;
        let mut stable = 0;
        for depth in 1..=max_depth {
            if self.id > 0 {
                let i = (self.id - 1) % SKIP_SIZE.len();
                if ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 != 0 {
                    continue;
                }
            }
            self.can_stop = depth > 1 || self.id > 0;
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.previous = rm.score;
            }
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                let prev = self.root_moves[pv_idx].previous;
                let mut delta = ASPIRATION_DELTA;
                let (mut alpha, mut beta) =
                    if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND {
                        ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                    } else {
                        (-INFINITE, INFINITE)
                    };
                loop {
                    let score = self.search_root(depth, alpha, beta, pv_idx);
                    // Stable: moves proved worse keep last iteration's order.
                    self.root_moves[pv_idx..].sort_by_key(|m| std::cmp::Reverse(m.score));
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INFINITE);
                    } else if score >= beta {
                        beta = (score + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    delta += delta / 2;
                }
                self.root_moves[..=pv_idx].sort_by_key(|m| std::cmp::Reverse(m.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            self.best = self.root_moves[..multipv].to_vec();
            if self.id != 0 {
                // A helper's result, for the main thread's choice of move.
                report(&Iteration {
                    depth,
                    lines: &self.best,
                    nodes: self.nodes,
                });
                if depth == max_depth && limits.depth.is_some() && multipv == 1 {
                    // The deepest iteration asked for is done: its line is the answer
                    // (the vote takes it), the main thread need not finish its own.
                    self.shared.abort();
                    break;
                }
                continue;
            }
            let nodes = self.flush_nodes();
            report(&Iteration {
                depth,
                lines: &self.best,
                nodes,
            });

            // Time management, after a whole iteration.
            let best = self.root_moves[0].mv;
            if last_best == Some(best) {
                stable += 1;
                changes *= 0.5;
            } else {
                stable = 0;
                changes = changes * 0.5 + 1.0;
            }
            last_best = Some(best);
            let score = self.root_moves[0].score;
            let analysing = limits.infinite || self.shared.control.pondering.load(Relaxed);
            if !analysing {
                if self.root_moves.len() == 1 && limits.is_game_clock() {
                    break; // a forced move: answer at once
                }
                if score.abs() >= MATE_BOUND && MATE - score.abs() < depth {
                    break; // the game's end is in sight; deeper search cannot change it
                }
                if let Some(b) = self.shared.budget {
                    // A fixed move time (soft = hard) is used in full.
                    let soft = if b.soft >= b.hard {
                        b.hard
                    } else {
                        b.soft
                            .mul_f64(stability_factor(changes, stable))
                            .min(b.hard)
                    };
                    if self.shared.control.clock_elapsed() >= soft {
                        break;
                    }
                }
            }
        }
        self.flush_nodes();
    }

    /// One pass over the root moves from `pv_idx` on (the earlier ones are the lines
    /// already found in this iteration, for MultiPV), in their order.
    fn search_root(&mut self, depth: i32, alpha: i32, beta: i32, pv_idx: usize) -> i32 {
        let root = self.root;
        self.nodes += 1;
        self.pv_idx = pv_idx;
        let mut moves = std::mem::take(&mut self.stack[0].moves);
        let mut scores = std::mem::take(&mut self.stack[0].scores);
        moves.clear();
        moves.extend(self.root_moves[pv_idx..].iter().map(|rm| rm.mv));
        let node = Node {
            pos: root,
            key: self.root_key,
            counters: self.root_counters,
            ply: 0,
            kind: NodeKind::Pv,
        };
        let (best, _) = self.move_loop::<true>(&node, depth, alpha, beta, &mut moves, &mut scores);
        self.stack[0].moves = moves;
        self.stack[0].scores = scores;
        best
    }

    /// The main search (fail-soft alpha-beta with PVS).
    fn search(&mut self, node: &Node<P>, mut depth: i32, mut alpha: i32, mut beta: i32) -> i32 {
        // 1. At the horizon, resolve the captures (quiescence counts the node).
        if depth <= 0 {
            return self.qsearch(node, alpha, beta, 0);
        }
        let (pos, key, ply) = (&node.pos, node.key, node.ply);

        // 2. Count the node; give up at once when the search is stopped.
        // 3. Draws: a repetition or a draw counter at its limit ends the game before any
        //    move is made; so do the deepest ply and a database result.
        if let Some(score) = self.enter(node, true) {
            return score;
        }

        // 4. Mate-distance pruning: nothing here can beat a game end nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // 5. Transposition table: a deep enough bound ends a non-PV node at once.
        let hit = self.tt.probe(key);
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.mv);
        if let Some(h) = hit
            && !node.kind.is_pv()
            && h.depth >= depth
        {
            let s = score_from_tt(h.score, ply);
            let usable = match h.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if usable {
                return s;
            }
        }

        // 6. Generate the moves. No move ends the game (a loss, or a win in losing
        //    draughts); in breakthrough a king on the board has already ended it.
        pos.generate(&mut self.stack[ply].moves);
        if let Some(o) = outcome(pos, !self.stack[ply].moves.is_empty()) {
            return game_end(o, pos.side(), ply);
        }
        let capture = self.stack[ply].moves[0].is_capture();

        if !node.kind.is_pv() && beta.abs() < MATE_BOUND {
            // 7. Reverse futility pruning: far above beta in a quiet position with no
            //    capture threatened, a shallow search would not come back down.
            if depth <= RFP_MAX_DEPTH && !capture && !pos.pass().has_capture() {
                let eval = self.evaluate(pos, ply);
                if eval - RFP_MARGIN * depth >= beta {
                    return eval;
                }
            }

            // 8. ProbCut: if a much shallower search of this node clears a raised bound,
            //    the full search would almost surely clear beta. The shallower search
            //    reuses this ply's move list, which holds the same moves afterwards.
            if depth >= PROBCUT_MIN_DEPTH {
                let rbeta = (beta + PROBCUT_MARGIN).min(MATE_BOUND - 1);
                let s = self.search(node, depth - PROBCUT_REDUCTION, rbeta - 1, rbeta);
                if self.stopped {
                    return 0;
                }
                if s >= rbeta {
                    return s;
                }
                pos.generate(&mut self.stack[ply].moves);
            }
        }

        let mut moves = std::mem::take(&mut self.stack[ply].moves);
        let mut scores = std::mem::take(&mut self.stack[ply].scores);

        // 9. Single reply: a forced move costs no depth (bounded so capture chains
        //    cannot extend without end).
        if moves.len() == 1 && (ply as i32) < 2 * self.root_depth {
            depth += 1;
        }

        // 10. Order the moves: TT move, captures, killers, promotions, history.
        score_moves(
            pos,
            &moves,
            &mut scores,
            tt_move,
            &self.stack[ply].killers,
            &self.history,
        );

        // 11. The moves (see `move_loop`).
        let old_alpha = alpha;
        let (best, best_move) =
            self.move_loop::<false>(node, depth, alpha, beta, &mut moves, &mut scores);
        self.stack[ply].moves = moves;
        self.stack[ply].scores = scores;
        if self.stopped {
            return 0;
        }

        // 13. Store the result.
        let bound = if best >= beta {
            Bound::Lower
        } else if best > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let packed = best_move.map_or(PackedMove::NONE, |m| PackedMove::new(&m));
        self.tt
            .store(key, packed, score_to_tt(best, ply), depth, bound);
        best
    }

    /// The move loop of every node, the root's included: the first move with the full
    /// window, the others with a null window (reduced when late and quiet), searched
    /// again at full depth and then with the full window when they surprise. Returns the
    /// best score and the move that raised alpha last, if any.
    ///
    /// Inside the tree (`ROOT` false) `moves` are ordered by `scores` as they are
    /// tried, and a cut-off teaches the killers and the history. At the root `moves` are
    /// the root moves from `pv_idx` on, tried in their order (last iteration's), each
    /// one's score and line kept in `root_moves`; a late root move is reduced by one ply
    /// at most.
    #[inline(always)]
    fn move_loop<const ROOT: bool>(
        &mut self,
        node: &Node<P>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        moves: &mut MoveList<P::B>,
        scores: &mut [i32],
    ) -> (i32, Option<Move<P::B>>) {
        let (pos, key, ply, kind) = (&node.pos, node.key, node.ply, node.kind);
        // Every move of a position is a capture or none is (captures are compulsory).
        let capture = moves[0].is_capture();
        let mut best = -INFINITE;
        let mut best_move: Option<Move<P::B>> = None;
        self.keys.push(key);
        if !ROOT {
            pick_next(moves, scores, 0);
        }
        let mut i = 0;
        while i < moves.len() {
            let mv = moves[i];
            let new_depth = depth - 1;
            if !ROOT && i + 1 < moves.len() {
                // Order the next move now and start loading its table entry, so the
                // memory access overlaps this move's search.
                pick_next(moves, scores, i + 1);
                if new_depth > 0 {
                    self.tt.prefetch(key_after(pos, key, &moves[i + 1]));
                }
            }
            let child = node.child(&mv, kind.first_child());
            self.net_child(ply, pos, &child.pos);
            let score = if i == 0 {
                -self.search(&child, new_depth, -beta, -alpha)
            } else {
                let r = if ROOT {
                    (depth >= LMR_MIN_DEPTH
                        && i >= 4
                        && !mv.is_capture()
                        && !child.pos.has_capture()) as i32
                } else {
                    self.reduction(node, &child.pos, &mv, depth, i, capture)
                };
                let late = child.as_kind(NodeKind::Cut);
                let mut s = -self.search(&late, new_depth - r, -alpha - 1, -alpha);
                if s > alpha && r > 0 {
                    let again = child.as_kind(kind.research_child());
                    s = -self.search(&again, new_depth, -alpha - 1, -alpha);
                }
                if kind.is_pv() && s > alpha && s < beta {
                    s = -self.search(&child.as_kind(NodeKind::Pv), new_depth, -beta, -alpha);
                }
                s
            };
            if self.stopped {
                break;
            }
            if ROOT {
                // The first move's score is exact; a later one is known only if it beat
                // alpha (otherwise it is only proved worse).
                let rm = &mut self.root_moves[self.pv_idx + i];
                if i == 0 || score > alpha {
                    rm.score = score;
                    rm.seldepth = self.seldepth;
                    rm.pv.clear();
                    rm.pv.push(mv);
                    rm.pv.extend_from_slice(&self.stack[1].pv);
                } else {
                    rm.score = -INFINITE;
                }
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if kind.is_pv() {
                        let (head, tail) = self.stack.split_at_mut(ply + 1);
                        head[ply].pv.clear();
                        head[ply].pv.push(mv);
                        head[ply].pv.extend_from_slice(&tail[0].pv);
                    }
                    if score >= beta {
                        // 12. A cut-off: remember the quiet move that made it, and
                        //     lower the others tried before it.
                        if !ROOT && !capture {
                            let bonus = History::bonus(depth);
                            let side = pos.side();
                            add_killer(&mut self.stack[ply].killers, &mv);
                            self.history.update(side, &mv, bonus);
                            for q in &moves[..i] {
                                self.history.update(side, q, -bonus);
                            }
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            i += 1;
        }
        self.keys.pop();
        (best, best_move)
    }

    /// The late-move reduction of move `i` (`mv`, leading to `child`) of an interior
    /// node: log(depth) * log(i), less for forcing and well-known moves, more at an
    /// expected cut node.
    #[inline(always)]
    fn reduction(
        &self,
        node: &Node<P>,
        child: &P,
        mv: &Move<P::B>,
        depth: i32,
        i: usize,
        capture: bool,
    ) -> i32 {
        let kind = node.kind;
        if depth < LMR_MIN_DEPTH
            || i < LMR_FIRST_MOVE + kind.is_pv() as usize
            || capture
            || mv.promote
        {
            return 0;
        }
        let mut r = LMR[depth.min(63) as usize][i.min(63)];
        // A move that gives the opponent a capture (an exchange or a sacrifice: the shots
        // of draughts) is forcing: reduced one ply less.
        r -= child.has_capture() as i32;
        r += kind.is_cut() as i32;
        r -= kind.is_pv() as i32;
        r -= is_killer(&self.stack[node.ply].killers, mv) as i32;
        r -= (self.history.get(node.pos.side(), mv) / 4096).clamp(-1, 1);
        r.clamp(0, depth - 2)
    }

    /// What every node does first: count itself, poll the clock, clear its line, and end
    /// at once (`Some(score)`) where the game is drawn (checked when `draws`), at the
    /// deepest ply, or in the endgame database (not at the root, which needs a move).
    #[inline(always)]
    fn enter(&mut self, node: &Node<P>, draws: bool) -> Option<i32> {
        let (pos, ply) = (&node.pos, node.ply);
        self.nodes += 1;
        if self.poll() {
            return Some(0);
        }
        self.stack[ply].pv.clear();
        self.seldepth = self.seldepth.max(ply);
        if draws && node.is_draw(&self.keys, self.root_index, &self.rules) {
            return Some(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(pos, ply));
        }
        if ply > 0
            && let Some(s) = self.probe_egdb(pos)
        {
            return Some(s);
        }
        None
    }

    /// Quiescence: play out the captures, which are compulsory, so there is no stand-pat
    /// while one is pending; a quiet position is scored by the evaluation, except that at
    /// its first ply a capture threatened by the opponent is answered with a full ply of
    /// quiet moves. Only the first ply (`qply` 0) applies the draw rules: captures are
    /// irreversible.
    fn qsearch(&mut self, node: &Node<P>, mut alpha: i32, beta: i32, qply: u32) -> i32 {
        if let Some(score) = self.enter(node, qply == 0) {
            return score;
        }
        let (pos, ply) = (&node.pos, node.ply);
        let mut moves = std::mem::take(&mut self.stack[ply].moves);
        if !pos.has_capture() {
            // Most quiescence nodes are quiet: count the moves (for the game-end test)
            // without building them, and evaluate.
            let has_moves = pos.count_moves(&mut moves) > 0;
            if let Some(o) = outcome(pos, has_moves) {
                self.stack[ply].moves = moves;
                return game_end(o, pos.side(), ply);
            }
            if qply > 0 || !pos.pass().has_capture() {
                self.stack[ply].moves = moves;
                return self.evaluate(pos, ply);
            }
        }
        pos.generate(&mut moves);
        if let Some(o) = outcome(pos, !moves.is_empty()) {
            self.stack[ply].moves = moves;
            return game_end(o, pos.side(), ply);
        }
        let mut scores = std::mem::take(&mut self.stack[ply].scores);
        score_moves(
            pos,
            &moves,
            &mut scores,
            PackedMove::NONE,
            &self.stack[ply].killers,
            &self.history,
        );
        let mut best = -INFINITE;
        for i in 0..moves.len() {
            pick_next(&mut moves, &mut scores, i);
            // Deeper quiescence plies apply no draw rule, so need no key or counters.
            let child = Node {
                pos: pos.play(&moves[i]),
                key: 0,
                counters: Counters::default(),
                ply: ply + 1,
                kind: node.kind,
            };
            self.net_child(ply, pos, &child.pos);
            let s = -self.qsearch(&child, -beta, -alpha, qply + 1);
            if self.stopped {
                break;
            }
            if s > best {
                best = s;
                if s > alpha {
                    if s >= beta {
                        break;
                    }
                    alpha = s;
                }
            }
        }
        self.stack[ply].moves = moves;
        self.stack[ply].scores = scores;
        if self.stopped { 0 } else { best }
    }
}
