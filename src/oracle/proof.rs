//! An exact, independent prover for test positions: full-width alpha-beta minimax over
//! material, written against the rules core only ([`Board`]: `generate`, `play`, `hash`
//! for the move ordering, [`outcome`] for the game end, [`DrawRules`] for draws). Nothing of the engine's search is
//! used — no transposition table, no reductions, no pruning, no evaluation — so a proof
//! cannot inherit a bug of the search it is meant to check.
//!
//! **The game tree.** Depth `D` counts plies. At a node with depth left ≤ 0 the search goes
//! on while the side to move must capture (captures are compulsory, so every legal move is
//! a capture and all of them are searched, full width); a position without a compulsory
//! capture there is a leaf. Capture sequences remove pieces, so this always ends.
//!
//! **Values**, from the side to move: a leaf is worth its material balance, a man
//! [`MAN`] = 1 and a king [`KING`] = 3 in every variant (flying or not: the proofs are about
//! winning men, and 3 is the usual rule of thumb for a king). A finished game (no legal
//! move, or the variant's own end such as breakthrough's first king, as
//! [`outcome`] decides) is worth ±([`WIN`] − plies from the root), beyond any material.
//!
//! **Draws** follow the variant's [`DrawRules`], counted from the root: the history
//! before it is unknown (a test position is given by its FEN alone, as an engine is), so
//! every counter starts at zero there. A position occurring for the third time on the path
//! (since the last man move or capture) is a draw, and so is a position where a move-count
//! rule has run out: english 40 moves each without a man move or capture, FMJD 25 moves
//! each with only kings moving, 16 moves each for three pieces (a king among them) against
//! a lone king and 5 moves each for two against one (counted since the last capture or
//! promotion), russian 15 moves each. A draw is worth the root's material balance: no gain
//! for either side. Losing draughts, where material means nothing, is outside this prover.
//!
//! **Alpha-beta is exact**: the move ordering (the move remembered from an earlier search
//! of the same position, then captures of more pieces first, or the killer and history
//! moves) changes only how fast the values come, never the values.
//!
//! A position is *proved* for key move `K` at depth `D` when, at that depth,
//! value(K) ≥ material before + 2 men (or a forced game win), the same holds when a king is
//! counted as one man (so that the gain is in pieces captured, not in a man crowned), and
//! every other legal move's value ≤ material before (king 3): `K` wins at least two men by
//! force within `D` plies (plus the captures that follow), and it is the only move that
//! gains anything. [`Classified::proved_key`] is the first half of this (king 3 only), the
//! quick test; [`prove`] checks all of it for a given key.

use std::collections::HashMap;

use crate::rules::{Bits, Board, Color, DrawRules, Move, MoveList, Outcome, outcome};

/// Value of a man.
pub const MAN: i32 = 1;
/// Value of a king (every variant).
pub const KING: i32 = 3;
/// A game won at the root; a win `n` plies later is worth `WIN - n`.
pub const WIN: i32 = 100_000;
/// Values at or beyond this (in absolute value) are decided games.
pub const WIN_BOUND: i32 = WIN - 10_000;
/// Gain a key move must prove, in men.
pub const REQUIRED_GAIN: i32 = 2;

const INF: i32 = WIN + 1;

/// Material balance of `pos` seen from `side` (man 1, king [`KING`]).
pub fn material<P: Board>(pos: &P, side: Color) -> i32 {
    material_with(pos, side, KING)
}

/// Material balance of `pos` seen from `side`, a man worth 1 and a king `king`.
pub fn material_with<P: Board>(pos: &P, side: Color, king: i32) -> i32 {
    let k = pos.kings();
    let mine = pos.pieces(side);
    let theirs = pos.pieces(side.opposite());
    let value = |s: P::B| (s & !k).count() as i32 * MAN + (s & k).count() as i32 * king;
    value(mine) - value(theirs)
}

/// What a search found out about a move's value (from the mover's view, absolute material
/// balance, not gain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact(i32),
    /// The value is at least this.
    AtLeast(i32),
    /// The value is at most this.
    AtMost(i32),
}

impl Bound {
    /// The value is surely ≥ `v`.
    pub fn is_at_least(self, v: i32) -> bool {
        match self {
            Bound::Exact(x) | Bound::AtLeast(x) => x >= v,
            Bound::AtMost(_) => false,
        }
    }
    /// The value is surely ≤ `v`.
    pub fn is_at_most(self, v: i32) -> bool {
        match self {
            Bound::Exact(x) | Bound::AtMost(x) => x <= v,
            Bound::AtLeast(_) => false,
        }
    }
    /// Human form relative to `before` (the material balance before the move):
    /// `+2`, `>= +3`, `<= +0`, `win in 7`, `loss in 4`.
    pub fn describe(self, before: i32) -> String {
        let (prefix, v) = match self {
            Bound::Exact(v) => ("", v),
            Bound::AtLeast(v) => (">= ", v),
            Bound::AtMost(v) => ("<= ", v),
        };
        if v >= WIN_BOUND {
            format!("{prefix}win in {}", WIN - v)
        } else if v <= -WIN_BOUND {
            format!("{prefix}loss in {}", WIN + v)
        } else {
            format!("{prefix}{:+}", v - before)
        }
    }
}

/// Every root move with what was proved about it at one depth.
#[derive(Clone, Debug)]
pub struct Classified<B> {
    pub depth: u32,
    /// Material balance of the root for the side to move.
    pub before: i32,
    /// Each legal move with a bound that decides its class: `>= before + 2`,
    /// `<= before`, or exactly `before + 1`.
    pub moves: Vec<(Move<B>, Bound)>,
    /// Nodes searched.
    pub nodes: u64,
}

impl<B: Bits> Classified<B> {
    /// Moves proved to gain at least two men (or to win the game).
    pub fn winning(&self) -> Vec<Move<B>> {
        self.moves
            .iter()
            .filter(|(_, b)| b.is_at_least(self.before + REQUIRED_GAIN))
            .map(|(m, _)| *m)
            .collect()
    }
    /// The key move, if the position is proved: exactly one move gains two men or more
    /// and every other move gains nothing.
    pub fn proved_key(&self) -> Option<Move<B>> {
        let winning = self.winning();
        if winning.len() != 1 {
            return None;
        }
        let key = winning[0];
        self.moves
            .iter()
            .filter(|(m, _)| *m != key)
            .all(|(_, b)| b.is_at_most(self.before))
            .then_some(key)
    }
}

/// The outcome of checking one claimed key move.
#[derive(Clone, Debug)]
pub struct Proof<B> {
    pub depth: u32,
    pub before: i32,
    pub key: Move<B>,
    /// `AtLeast(v)` with `v >= before + 2` when the key's gain is proved, else an upper
    /// bound below that.
    pub key_value: Bound,
    /// The same with every piece worth 1 (a king as a man): the balance before, and the
    /// key's bound against `pieces_before + 2`.
    pub pieces_before: i32,
    pub key_pieces: Bound,
    /// Every other legal move: `AtMost(v)` with `v <= before` when it gains nothing, else a
    /// lower bound above that.
    pub others: Vec<(Move<B>, Bound)>,
    pub nodes: u64,
}

impl<B: Bits> Proof<B> {
    /// The key gains two men or more (or wins the game) both with a king worth 3 and with
    /// a king worth 1: the gain is in pieces captured, not in a man crowned.
    pub fn key_wins(&self) -> bool {
        self.key_value.is_at_least(self.before + REQUIRED_GAIN)
            && self
                .key_pieces
                .is_at_least(self.pieces_before + REQUIRED_GAIN)
    }
    /// The other moves that were not shown to gain nothing.
    pub fn refuting(&self) -> Vec<(Move<B>, Bound)> {
        self.others
            .iter()
            .filter(|(_, b)| !b.is_at_most(self.before))
            .copied()
            .collect()
    }
    pub fn proved(&self) -> bool {
        self.key_wins() && self.refuting().is_empty()
    }
    /// The other move with the highest bound (the best try), if any.
    pub fn best_other(&self) -> Option<(Move<B>, Bound)> {
        let key = |b: &Bound| match *b {
            Bound::Exact(v) | Bound::AtMost(v) | Bound::AtLeast(v) => v,
        };
        self.others.iter().max_by_key(|(_, b)| key(b)).copied()
    }
}

/// The draw-rule counters along the path.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    /// Plies in a row with a king moving (or a man stepping along its rank, as turkish men
    /// may, which can be stepped back) and nothing captured; also the repetition window.
    reversible: u16,
    /// Plies since the last capture or promotion.
    material: u16,
}

impl Counters {
    fn after<P: Board>(self, pos: &P, mv: &Move<P::B>) -> Counters {
        let capture = mv.is_capture();
        let same_rank = P::coords(mv.from as u32).1 == P::coords(mv.to as u32).1;
        Counters {
            reversible: if (pos.kings().has(mv.from as u32) || same_rank) && !capture {
                self.reversible + 1
            } else {
                0
            },
            material: if capture || mv.promote {
                0
            } else {
                self.material + 1
            },
        }
    }
}

/// Whether a move-count rule of `rules` has run out in `pos` (before its side moves).
fn drawn_by_counters<P: Board>(pos: &P, c: Counters, rules: &DrawRules) -> bool {
    if rules.reversible_plies.is_some_and(|n| c.reversible >= n) {
        return true;
    }
    let k = pos.kings();
    let lone_king = |s: P::B| s.count() == 1 && (s & k).any();
    let strong = if lone_king(pos.black()) {
        pos.white()
    } else if lone_king(pos.white()) {
        pos.black()
    } else {
        return false;
    };
    if (strong & k).is_empty() {
        return false;
    }
    let (three, two) = (rules.three_against_one_plies, rules.two_against_one_plies);
    match strong.count() {
        1 | 2 => two.or(three).is_some_and(|n| c.material >= n),
        3 => three.is_some_and(|n| c.material >= n),
        _ => false,
    }
}

/// The searcher: reusable move lists, the path for repetitions, move-ordering tables.
struct Prover<P: Board> {
    lists: Vec<MoveList<P::B>>,
    /// Positions from the root to the current node.
    path: Vec<P>,
    killers: Vec<Option<Move<P::B>>>,
    history: Vec<u32>,
    /// The move that last cut off or raised alpha in a position (by Zobrist key): only for
    /// the move ordering, never for a value, so a collision costs time, not exactness.
    best_moves: HashMap<u64, Move<P::B>>,
    root_side: Color,
    root_material: i32,
    rules: DrawRules,
    /// Value of a king.
    king: i32,
    nodes: u64,
    /// Nodes allowed (for tools that skip positions too costly to prove); past it every
    /// search returns at once and the results mean nothing.
    budget: u64,
}

impl<P: Board> Prover<P> {
    fn new(root: &P, king: i32) -> Self {
        Prover {
            lists: Vec::new(),
            path: vec![*root],
            killers: Vec::new(),
            history: vec![0; 128 * 128],
            best_moves: HashMap::new(),
            root_side: root.side(),
            root_material: material_with(root, root.side(), king),
            rules: P::VARIANT.draw_rules(),
            king,
            nodes: 0,
            budget: u64::MAX,
        }
    }

    /// The draw value from the side to move of `pos`: the root's balance, no gain.
    fn draw(&self, pos: &P) -> i32 {
        if pos.side() == self.root_side {
            self.root_material
        } else {
            -self.root_material
        }
    }

    /// Whether the last position of the path occurs for the `repetitions`th time within
    /// the last `window` plies (positions before a man move or capture cannot recur).
    fn repeated(&self, window: u16) -> bool {
        let times = self.rules.repetitions.max(2) as usize;
        let window = window as usize;
        // Occurrences with the same side to move are at least 4 plies apart.
        if window < 4 * (times - 1) {
            return false;
        }
        let n = self.path.len();
        let cur = &self.path[n - 1];
        let earlier = (2..=window)
            .step_by(2)
            .filter(|&back| self.path[n - 1 - back] == *cur)
            .count();
        earlier + 1 >= times
    }

    /// Whether the last position of the path, `pos`, is drawn by the rules (the prover's
    /// own copy of them; checked against [`crate::rules::Game::outcome`] by the tests).
    fn drawn(&self, pos: &P, counters: Counters) -> bool {
        self.repeated(counters.reversible) || drawn_by_counters(pos, counters, &self.rules)
    }

    /// Fail-soft negamax over the tree described in the module documentation; the value of
    /// the last position of the path, from its side to move. `ply` = the path length − 1.
    fn search(&mut self, depth: i32, mut alpha: i32, beta: i32, counters: Counters) -> i32 {
        self.nodes += 1;
        if self.nodes > self.budget {
            return 0;
        }
        let ply = self.path.len() - 1;
        let pos = self.path[ply];
        if self.drawn(&pos, counters) {
            return self.draw(&pos);
        }
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, Vec::new);
            self.killers.resize(ply + 1, None);
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        pos.generate(&mut moves);
        if let Some(o) = outcome(&pos, !moves.is_empty()) {
            self.lists[ply] = moves;
            let won = WIN - ply as i32;
            return match o {
                Outcome::Win(c) if c == pos.side() => won,
                Outcome::Win(_) => -won,
                Outcome::Draw(_) => self.draw(&pos),
            };
        }
        let capture = moves[0].is_capture();
        if depth <= 0 && !capture {
            self.lists[ply] = moves;
            return material_with(&pos, pos.side(), self.king);
        }
        // Remember good moves where a search is deep enough to pay for the key.
        let key = (depth >= 2 && moves.len() > 1).then(|| Board::hash(&pos));
        self.order(&mut moves, ply, capture, key);
        let mut best = -INF;
        for mv in moves.iter() {
            self.path.push(pos.play(mv));
            let v = -self.search(depth - 1, -beta, -alpha, counters.after(&pos, mv));
            self.path.pop();
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if let Some(k) = key {
                        self.best_moves.insert(k, *mv);
                    }
                    if v >= beta {
                        if !capture {
                            self.killers[ply] = Some(*mv);
                            self.history[mv.from as usize * 128 + mv.to as usize] +=
                                (depth.max(1) * depth.max(1)) as u32;
                        }
                        break;
                    }
                }
            }
        }
        self.lists[ply] = moves;
        best
    }

    /// The remembered move of the position first; then captures of more pieces first, or
    /// for quiet moves the killer, then by history.
    fn order(&self, moves: &mut [Move<P::B>], ply: usize, capture: bool, key: Option<u64>) {
        if capture {
            moves.sort_by_key(|m| std::cmp::Reverse(m.capture_count()));
        } else {
            let killer = self.killers[ply];
            moves.sort_by_key(|m| {
                std::cmp::Reverse(if Some(*m) == killer {
                    u32::MAX
                } else {
                    self.history[m.from as usize * 128 + m.to as usize]
                })
            });
        }
        let best = key.and_then(|k| self.best_moves.get(&k));
        if let Some(i) = best.and_then(|b| moves.iter().position(|m| m == b)) {
            moves[..=i].rotate_right(1);
        }
    }

    /// The value of root move `mv` (from the root's mover) within the window
    /// (`alpha`, `beta`), fail-soft.
    fn root_move(&mut self, mv: &Move<P::B>, depth: u32, alpha: i32, beta: i32) -> i32 {
        let root = self.path[0];
        debug_assert_eq!(self.path.len(), 1);
        self.path.push(root.play(mv));
        let counters = Counters::default().after(&root, mv);
        let v = -self.search(depth as i32 - 1, -beta, -alpha, counters);
        self.path.pop();
        v
    }

    /// A bound on the value of `mv` that tells whether it is ≥ `target` (null window).
    fn test(&mut self, mv: &Move<P::B>, depth: u32, target: i32) -> Bound {
        let v = self.root_move(mv, depth, target - 1, target);
        if v >= target {
            Bound::AtLeast(v)
        } else {
            Bound::AtMost(v)
        }
    }

    /// Classify `mv`: ≥ before + 2, ≤ before, or exactly before + 1.
    fn classify(&mut self, mv: &Move<P::B>, depth: u32) -> Bound {
        let before = self.root_material;
        match self.test(mv, depth, before + REQUIRED_GAIN) {
            b @ Bound::AtLeast(_) => b,
            b @ Bound::AtMost(v) if v <= before => b,
            _ => match self.test(mv, depth, before + 1) {
                Bound::AtLeast(_) => Bound::Exact(before + 1),
                b => b,
            },
        }
    }
}

fn legal<P: Board>(pos: &P) -> MoveList<P::B> {
    let mut moves = Vec::new();
    pos.generate(&mut moves);
    moves
}

/// The exact minimax value (material balance from the mover's view, or a win/loss score)
/// of every legal move of `pos` searched to `depth` plies (`depth` ≥ 1) plus forced
/// captures, each with a full window.
pub fn root_values<P: Board>(pos: &P, depth: u32) -> Vec<(Move<P::B>, i32)> {
    let mut prover = Prover::new(pos, KING);
    legal(pos)
        .into_iter()
        .map(|mv| {
            let v = prover.root_move(&mv, depth.max(1), -INF, INF);
            (mv, v)
        })
        .collect()
}

/// The exact minimax value of one legal move `mv` of `pos` at `depth` (full window).
pub fn move_value<P: Board>(pos: &P, mv: &Move<P::B>, depth: u32) -> i32 {
    move_value_with(pos, mv, depth, KING)
}

/// [`move_value`] with a king worth `king` men.
pub fn move_value_with<P: Board>(pos: &P, mv: &Move<P::B>, depth: u32, king: i32) -> i32 {
    Prover::new(pos, king).root_move(mv, depth.max(1), -INF, INF)
}

/// Every legal move of `pos` at `depth` classified with null-window searches: what
/// [`Classified::proved_key`] needs, faster than exact values.
pub fn classify<P: Board>(pos: &P, depth: u32) -> Classified<P::B> {
    classify_with(pos, depth, KING)
}

/// [`classify`] with a king worth `king` men.
pub fn classify_with<P: Board>(pos: &P, depth: u32, king: i32) -> Classified<P::B> {
    let mut prover = Prover::new(pos, king);
    let moves = legal(pos)
        .into_iter()
        .map(|mv| {
            let b = prover.classify(&mv, depth.max(1));
            (mv, b)
        })
        .collect();
    Classified {
        depth,
        before: prover.root_material,
        moves,
        nodes: prover.nodes,
    }
}

/// Check that `key` (a legal move of `pos`) is proved at `depth`: it gains at least two men
/// (with a king worth 3, and again counting a king as one man) and every other move gains
/// nothing (king 3). Null-window searches; every move is searched even after a failure, so
/// the report is complete.
pub fn prove<P: Board>(pos: &P, key: &Move<P::B>, depth: u32) -> Proof<P::B> {
    prove_within(pos, key, depth, u64::MAX).expect("no budget")
}

/// [`prove`] within `budget` nodes (for each of its two searchers): `None` when the budget
/// ran out first.
pub fn prove_within<P: Board>(
    pos: &P,
    key: &Move<P::B>,
    depth: u32,
    budget: u64,
) -> Option<Proof<P::B>> {
    let depth = depth.max(1);
    let mut pieces = Prover::new(pos, MAN);
    pieces.budget = budget;
    let pieces_before = pieces.root_material;
    let key_pieces = pieces.test(key, depth, pieces_before + REQUIRED_GAIN);
    let mut prover = Prover::new(pos, KING);
    prover.budget = budget;
    let before = prover.root_material;
    let key_value = prover.test(key, depth, before + REQUIRED_GAIN);
    let others = legal(pos)
        .into_iter()
        .filter(|m| m != key)
        .map(|mv| {
            let b = prover.test(&mv, depth, before + 1);
            (mv, b)
        })
        .collect();
    if prover.nodes > budget || pieces.nodes > budget {
        return None;
    }
    Some(Proof {
        depth,
        before,
        key: *key,
        key_value,
        pieces_before,
        key_pieces,
        others,
        nodes: prover.nodes + pieces.nodes,
    })
}

/// The shallowest depth up to `max_depth` at which one move gains two men or more (king 3)
/// while every other gains nothing — what [`Classified::proved_key`] says, depth after
/// depth, with one searcher whose move ordering carries over — and that move.
pub fn shallowest_proof<P: Board>(pos: &P, max_depth: u32) -> Option<(Move<P::B>, u32)> {
    shallowest_proof_within(pos, max_depth, u64::MAX).unwrap_or(None)
}

/// [`shallowest_proof`] within `budget` nodes: `None` when the budget ran out first.
pub fn shallowest_proof_within<P: Board>(
    pos: &P,
    max_depth: u32,
    budget: u64,
) -> Option<Option<(Move<P::B>, u32)>> {
    let mut prover = Prover::new(pos, KING);
    prover.budget = budget;
    let before = prover.root_material;
    let moves = legal(pos);
    for depth in 1..=max_depth {
        let mut gaining = Vec::new();
        for mv in &moves {
            if prover
                .test(mv, depth, before + REQUIRED_GAIN)
                .is_at_least(before + REQUIRED_GAIN)
            {
                gaining.push(*mv);
                if gaining.len() > 1 {
                    break;
                }
            }
        }
        if prover.nodes > budget {
            return None;
        }
        let [key] = gaining[..] else {
            continue;
        };
        let others_nothing = moves
            .iter()
            .filter(|m| **m != key)
            .all(|m| prover.test(m, depth, before + 1).is_at_most(before));
        if prover.nodes > budget {
            return None;
        }
        if others_nothing {
            return Some(Some((key, depth)));
        }
    }
    Some(None)
}

/// Whether some legal move gains at least two men at `depth` (a quick filter: one
/// null-window search per move, stopping at the first that does).
pub fn any_gain<P: Board>(pos: &P, depth: u32) -> bool {
    any_gain_with(pos, depth, KING)
}

/// [`any_gain`] with a king worth `king` men.
pub fn any_gain_with<P: Board>(pos: &P, depth: u32, king: i32) -> bool {
    let mut prover = Prover::new(pos, king);
    let target = prover.root_material + REQUIRED_GAIN;
    legal(pos)
        .iter()
        .any(|mv| prover.test(mv, depth.max(1), target).is_at_least(target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_position;
    use crate::rules::{English, International, Position, Variant};

    type Intl = Position<International>;

    #[test]
    fn the_few_pieces_rules_count_from_the_last_capture() {
        let rules = Variant::International.draw_rules();
        let two_vs_one: Intl = parse_position("W:WK1,K2:BK50").unwrap();
        let c = |material| Counters {
            reversible: 0,
            material,
        };
        assert!(!drawn_by_counters(&two_vs_one, c(9), &rules));
        assert!(drawn_by_counters(&two_vs_one, c(10), &rules));
        // Without a king on the strong side the rule does not apply.
        let men: Intl = parse_position("W:W31,32:BK50").unwrap();
        assert!(!drawn_by_counters(&men, c(40), &rules));
        // English has no few-pieces rule, only 40 moves each.
        let en: Position<English> = parse_position("W:WK1,K2:BK32").unwrap();
        let rules = Variant::English.draw_rules();
        assert!(!drawn_by_counters(&en, c(79), &rules));
        let r = Counters {
            reversible: 80,
            material: 0,
        };
        assert!(drawn_by_counters(&en, r, &rules));
    }

    /// Random games, from the start and from random few-piece positions (where the
    /// draw rules fire often): at every position the prover's draw rules and game end
    /// agree with [`crate::rules::Game::outcome`]. Returns the positions compared and
    /// how many ended by each rule kind (repetition, move rule, few pieces).
    fn agree_with_game<P: Board>(games: usize, seed: u64) -> (usize, [usize; 3]) {
        use crate::rules::{DrawReason, Game, Setup};
        let mut state = seed | 1;
        let mut rand = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut positions, mut ends) = (0, [0; 3]);
        for g in 0..games {
            let start = if g % 4 == 0 {
                P::start()
            } else {
                // One to four pieces a side, mostly kings, on random squares.
                let mut squares: Vec<u32> = (1..=P::square_count()).collect();
                let mut setup = Setup {
                    side: if rand(2) == 0 {
                        Color::White
                    } else {
                        Color::Black
                    },
                    white: Vec::new(),
                    black: Vec::new(),
                };
                for side in 0..2 {
                    for _ in 0..1 + rand(4) {
                        let sq = squares.swap_remove(rand(squares.len()));
                        let piece = (P::bit_of_square(sq).unwrap(), rand(4) != 0);
                        if side == 0 {
                            &mut setup.white
                        } else {
                            &mut setup.black
                        }
                        .push(piece);
                    }
                }
                match P::from_setup(&setup) {
                    Ok(p) => p,
                    Err(_) => continue,
                }
            };
            let mut game = Game::new(start);
            let mut prover = Prover::new(&start, KING);
            let mut counters = Counters::default();
            for _ in 0..300 {
                let pos = *game.position();
                let legal = legal(&pos);
                let theirs = if prover.drawn(&pos, counters) {
                    Some(None)
                } else {
                    outcome(&pos, !legal.is_empty()).map(|o| match o {
                        Outcome::Win(c) => Some(c),
                        Outcome::Draw(_) => None,
                    })
                };
                let ours = game.outcome();
                positions += 1;
                let fen = crate::notation::write_fen(&pos, crate::rules::Notation::Numeric);
                match ours {
                    Some(Outcome::Win(c)) => assert_eq!(theirs, Some(Some(c)), "{fen}"),
                    Some(Outcome::Draw(r)) => {
                        assert_eq!(theirs, Some(None), "{fen}: {r}");
                        ends[match r {
                            DrawReason::Repetition { .. } => 0,
                            DrawReason::MoveRule { .. } => 1,
                            DrawReason::FewPieces { .. } => 2,
                        }] += 1;
                    }
                    None => assert_eq!(theirs, None, "{fen} ply {}", game.ply()),
                }
                if ours.is_some() {
                    break;
                }
                // In every other game, half the time a piece goes back where it came
                // from (its side's last move undone), so that positions repeat.
                let back = game.ply().checked_sub(2).map(|i| game.moves()[i]);
                let undo = back.and_then(|b| {
                    legal
                        .iter()
                        .find(|m| m.from == b.to && m.to == b.from && !m.is_capture())
                });
                // In others the kings walk without giving a capture where they can, so
                // that the move rules run out.
                let quiet: Vec<_> = legal
                    .iter()
                    .filter(|m| pos.kings().has(m.from as u32) && !pos.play(m).has_capture())
                    .collect();
                let mv = match undo {
                    Some(m) if g % 4 == 1 && rand(2) == 0 => *m,
                    _ if g % 4 == 3 && !quiet.is_empty() => *quiet[rand(quiet.len())],
                    _ => legal[rand(legal.len())],
                };
                counters = counters.after(&pos, &mv);
                game.play(&mv).unwrap();
                prover.path.push(*game.position());
            }
        }
        (positions, ends)
    }

    #[test]
    fn the_prover_agrees_with_the_game_on_random_games() {
        let (n, ends) = agree_with_game::<Intl>(400, 7);
        assert!(n >= 5_000, "{n} positions");
        assert!(ends.iter().all(|&e| e > 0), "{ends:?}");
        let (n, ends) = agree_with_game::<Position<English>>(400, 8);
        assert!(n >= 5_000 && ends[0] > 0 && ends[1] > 0, "{n} {ends:?}");
        // Russian counts 15 moves for both rules: with kings only, the move rule comes
        // first.
        let (n, ends) = agree_with_game::<Position<crate::rules::Russian>>(300, 9);
        assert!(n >= 3_000 && ends[0] > 0 && ends[1] > 0, "{n} {ends:?}");
        let (n, _) = agree_with_game::<crate::rules::TurkishPosition>(200, 10);
        assert!(n >= 2_000, "{n}");
    }

    #[test]
    fn a_third_occurrence_on_the_path_is_a_draw() {
        // Two kings each shuffling back and forth: the root recurs at plies 4 and 8.
        let root: Intl = parse_position("W:WK46:BK1").unwrap();
        let mut p = Prover::new(&root, KING);
        let mut pos = root;
        let mut counters = Counters::default();
        for ply in 1..=8 {
            let mut l = Vec::new();
            pos.generate(&mut l);
            // White: 46-41 and back; Black: 1-6 and back.
            let target = match ply % 4 {
                1 => 41,
                2 => 6,
                3 => 46,
                _ => 1,
            };
            let mv = *l
                .iter()
                .find(|m| Intl::square_of_bit(m.to as u32) == target)
                .unwrap();
            counters = counters.after(&pos, &mv);
            pos = pos.play(&mv);
            p.path.push(pos);
            assert_eq!(p.repeated(counters.reversible), ply == 8, "ply {ply}");
        }
        assert_eq!(pos, root);
    }
}
