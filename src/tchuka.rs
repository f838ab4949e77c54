//! Tchuka Ruma, the mancala solitaire: rules and solver (the `tammi tchuka` command is
//! the binary's).
//!
//! A row of holes is followed, on the right, by the ruma. A *choice* picks a
//! non-empty hole; its seeds are sown one by one into the following holes,
//! the ruma included, wrapping from the ruma back to the first hole (the
//! emptied hole itself is not skipped). Where the last seed lands decides
//! what happens next:
//!
//! * in the ruma: the player makes another choice (or has won, when every
//!   seed is now in the ruma);
//! * in a hole that already held seeds: that hole's seeds (the last one
//!   included) are picked up and sown on — a forced *sowing*, not a choice;
//! * in an empty hole: the game is lost.
//!
//! A chain of forced sowings always ends. Between two seeds reaching the
//! ruma the pickup point only moves right (a sowing that does not reach the
//! ruma ends further right than it started), so at most `holes` sowings
//! happen before the ruma gains a seed, and the ruma can gain at most
//! `total` seeds. For the same reason every choice that does not lose puts
//! at least one more seed in the ruma, so the graph of choice positions is
//! acyclic and a game has at most `total` choices.
//!
//! Positions are just the hole counts: the ruma never gives seeds back, so
//! its count does not influence the rest of the game. The library takes the
//! holes as `&[u32]` and expects their total to fit in a `u32` ([`parse_row`]
//! checks this).

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

/// The most holes a row may have ([`parse_row`], and the command's table).
pub const MAX_HOLES: usize = 32;

/// What a shortest winning line minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Number of holes the player chooses; ties are broken by fewest sowings.
    Choices,
    /// Number of sowings (every pickup, forced ones included); ties are
    /// broken by fewest choices.
    Sowings,
}

/// Where the last seed of a sowing landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// In the ruma.
    Ruma,
    /// In the hole with this index (0 = leftmost).
    Hole(usize),
}

/// One sowing: the seeds of one hole spread to the right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sowing {
    /// Index of the hole emptied (0 = leftmost).
    pub hole: usize,
    /// Seeds picked up from it.
    pub seeds: u32,
    /// Hole counts after the sowing (the ruma is not included).
    pub row: Vec<u32>,
    /// Where the last seed landed.
    pub landing: Landing,
}

/// How a choice ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The last seed reached the ruma and some hole still has seeds: choose again.
    Choose,
    /// Every seed is in the ruma.
    Won,
    /// The last seed landed in an empty hole.
    Lost,
}

/// A choice of hole and the chain of sowings it forces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Index of the chosen hole (0 = leftmost; the command prints it 1-based).
    pub hole: usize,
    /// The sowings of the chain, first one from `hole`; never empty.
    pub sowings: Vec<Sowing>,
    /// How the chain ended.
    pub outcome: Outcome,
}

impl Choice {
    /// Hole counts after the whole chain.
    pub fn row(&self) -> &[u32] {
        &self
            .sowings
            .last()
            .expect("a choice sows at least once")
            .row
    }
}

/// A winning line: choices from the start until every seed is in the ruma.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The choices in order; the last one has [`Outcome::Won`].
    pub choices: Vec<Choice>,
}

impl Solution {
    /// Number of choices the player makes.
    pub fn num_choices(&self) -> usize {
        self.choices.len()
    }

    /// Number of sowings, forced continuations included.
    pub fn num_sowings(&self) -> usize {
        self.choices.iter().map(|c| c.sowings.len()).sum()
    }
}

/// Plays the choice of `hole` (0-based) from `row` (hole counts, ruma
/// excluded) and returns the whole chain, or `None` if the hole does not
/// exist or is empty.
pub fn play(row: &[u32], hole: usize) -> Option<Choice> {
    if row.get(hole).copied().unwrap_or(0) == 0 {
        return None;
    }
    let mut board = row.to_vec();
    let mut sowings = Vec::new();
    let mut from = hole;
    let outcome = loop {
        let seeds = board[from];
        let last = sow(&mut board, from);
        let landing = if last == board.len() {
            Landing::Ruma
        } else {
            Landing::Hole(last)
        };
        sowings.push(Sowing {
            hole: from,
            seeds,
            row: board.clone(),
            landing,
        });
        match landing {
            Landing::Ruma if board.iter().all(|&s| s == 0) => break Outcome::Won,
            Landing::Ruma => break Outcome::Choose,
            Landing::Hole(h) if board[h] == 1 => break Outcome::Lost,
            Landing::Hole(h) => from = h,
        }
    };
    Some(Choice {
        hole,
        sowings,
        outcome,
    })
}

/// Whether every seed of `start` (hole counts, ruma excluded) can be brought
/// into the ruma. A row without seeds counts as already won.
pub fn winnable(start: &[u32]) -> bool {
    winnable_until(start, None).expect("no deadline, so the search completes")
}

/// Like [`winnable`], but gives up and returns `None` once `deadline` passes.
pub fn winnable_until(start: &[u32], deadline: Option<Instant>) -> Option<bool> {
    let bits = bits_per_hole(start);
    match start.len() as u32 * bits {
        0..=64 => reachable_win::<u64>(start, bits, deadline),
        65..=128 => reachable_win::<u128>(start, bits, deadline),
        _ => reachable_win::<Box<[u32]>>(start, bits, deadline),
    }
}

/// A shortest winning line from `start` (hole counts, ruma excluded) by
/// `goal`, or `None` if the start cannot be won. Among lines of equal length
/// the one best by the other measure is returned; the result is
/// deterministic.
pub fn solve(start: &[u32], goal: Goal) -> Option<Solution> {
    solve_within(start, goal, Bounds::default()).expect("no bounds, so the search completes")
}

/// What a single solve may spend. Large rows have astronomically many positions (32
/// holes of 30 seeds grow the solver's tables by about 150 MB a second), so the command
/// line always sets a memory bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Give up once this instant has passed.
    pub deadline: Option<Instant>,
    /// Give up once the solver's tables would take more than this many bytes (an
    /// estimate from the tables' capacities; the allocator's own overhead comes on top).
    pub memory: Option<usize>,
}

/// Why a bounded solve stopped before it had its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// The deadline passed.
    Time,
    /// The tables reached the memory bound; `positions` were known by then.
    Memory { positions: usize },
}

/// Like [`solve`], but gives up when `bounds` are reached.
pub fn solve_within(start: &[u32], goal: Goal, bounds: Bounds) -> Result<Option<Solution>, GaveUp> {
    let bits = bits_per_hole(start);
    let holes = match start.len() as u32 * bits {
        0..=64 => shortest::<u64>(start, bits, goal, bounds),
        65..=128 => shortest::<u128>(start, bits, goal, bounds),
        _ => shortest::<Box<[u32]>>(start, bits, goal, bounds),
    }?;
    let Some(holes) = holes else {
        return Ok(None);
    };
    let mut row = start.to_vec();
    let mut choices = Vec::with_capacity(holes.len());
    for hole in holes {
        let choice = play(&row, hole).expect("the search only chooses non-empty holes");
        row = choice.row().to_vec();
        choices.push(choice);
    }
    Ok(Some(Solution { choices }))
}

/// Winnability of every row of `h` holes holding `s` seeds each, for
/// `h` in `1..=holes` and `s` in `1..=seeds`: `result[h - 1][s - 1]`, `None`
/// where `deadline` passed first. Cells are computed in parallel;
/// `progress(done, total)` is called after each cell.
pub fn table(
    holes: usize,
    seeds: u32,
    deadline: Option<Instant>,
    progress: impl Fn(usize, usize) + Sync,
) -> Vec<Vec<Option<bool>>> {
    let mut cells: Vec<(usize, u32)> = (1..=holes)
        .flat_map(|h| (1..=seeds).map(move |s| (h, s)))
        .collect();
    // Cheapest cells first, taken from a shared counter rather than split
    // up front: under a time limit the table then fills from the small
    // corner outwards instead of stalling on a few huge cells.
    cells.sort_by_key(|&(h, s)| (h as u64 * s as u64, h));
    let total = cells.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let grid = Mutex::new(vec![vec![None; seeds as usize]; holes]);
    (0..rayon::current_num_threads().min(total))
        .into_par_iter()
        .for_each(|_| {
            while let Some(&(h, s)) = cells.get(next.fetch_add(1, Ordering::Relaxed)) {
                let r = if deadline.is_some_and(|d| Instant::now() >= d) {
                    None
                } else {
                    winnable_until(&vec![s; h], deadline)
                };
                grid.lock().unwrap_or_else(|e| e.into_inner())[h - 1][s as usize - 1] = r;
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            }
        });
    grid.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// A row as given in text ([`parse_row`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Hole counts, left to right.
    pub holes: Vec<u32>,
    /// Seeds already in the ruma (they never move again).
    pub ruma: u32,
}

/// Why a row given as text is not one (see [`parse_row`]). Values are numbered from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowError {
    /// `|` at this value is not followed by exactly one value.
    Bar { position: usize },
    /// A negative count.
    Negative { value: String, position: usize },
    /// A count above `u32::MAX`.
    TooLarge { value: String, position: usize },
    /// Not a whole number.
    NotANumber { value: String, position: usize },
    /// No hole before the ruma.
    NoHoles,
    /// More than [`MAX_HOLES`] holes.
    TooManyHoles(usize),
    /// More than `u32::MAX` seeds in all.
    TooManySeeds(u64),
}

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowError::Bar { position } => write!(
                f,
                "'|' (value {position}) must be followed by exactly one value, the ruma"
            ),
            RowError::Negative { value, position } => write!(
                f,
                "'{value}' (value {position}) is negative; seed counts are 0 or more"
            ),
            RowError::TooLarge { value, position } => write!(
                f,
                "'{value}' (value {position}) is too large (at most {})",
                u32::MAX
            ),
            RowError::NotANumber { value, position } => write!(
                f,
                "'{value}' (value {position}) is not a whole number of seeds"
            ),
            RowError::NoHoles => write!(f, "no holes given (a lone trailing 0 is the ruma)"),
            RowError::TooManyHoles(n) => {
                write!(f, "too many holes: {n} (at most {MAX_HOLES})")
            }
            RowError::TooManySeeds(total) => {
                write!(f, "too many seeds in all: {total} (at most {})", u32::MAX)
            }
        }
    }
}

impl std::error::Error for RowError {}

/// Parses a row given as text (`tammi tchuka`'s arguments): seed counts left to right,
/// then optionally the ruma. If the last value is 0 it is taken as the (empty) ruma, so
/// `2 2 2 2` and `2 2 2 2 0` are the same start; a row that really ends in an empty
/// hole needs its ruma written out, or after a `|`: `2 2 0 | 0`. Only after `|` may the
/// ruma already hold seeds. At most [`MAX_HOLES`] holes, and a total that fits a `u32`.
pub fn parse_row(values: &[String]) -> Result<Row, RowError> {
    let bar = values.iter().position(|v| v == "|");
    let (hole_values, ruma) = match bar {
        Some(i) if i + 2 == values.len() => (&values[..i], parse_count(&values[i + 1], i + 2)?),
        Some(i) => return Err(RowError::Bar { position: i + 1 }),
        None => match values.split_last() {
            Some((last, rest)) if parse_count(last, values.len()).ok() == Some(0) => (rest, 0),
            _ => (values, 0),
        },
    };
    let mut holes = Vec::with_capacity(hole_values.len());
    for (i, v) in hole_values.iter().enumerate() {
        holes.push(parse_count(v, i + 1)?);
    }
    if holes.is_empty() {
        return Err(RowError::NoHoles);
    }
    if holes.len() > MAX_HOLES {
        return Err(RowError::TooManyHoles(holes.len()));
    }
    let total: u64 = holes.iter().map(|&s| s as u64).sum::<u64>() + ruma as u64;
    if total > u32::MAX as u64 {
        return Err(RowError::TooManySeeds(total));
    }
    Ok(Row { holes, ruma })
}

fn parse_count(v: &str, position: usize) -> Result<u32, RowError> {
    let (value, position) = (v.to_string(), position);
    match v.trim().parse::<i128>() {
        Ok(n) if n < 0 => Err(RowError::Negative { value, position }),
        Ok(n) if n > u32::MAX as i128 => Err(RowError::TooLarge { value, position }),
        Ok(n) => Ok(n as u32),
        Err(e) => match e.kind() {
            std::num::IntErrorKind::NegOverflow => Err(RowError::Negative { value, position }),
            std::num::IntErrorKind::PosOverflow => Err(RowError::TooLarge { value, position }),
            _ => Err(RowError::NotANumber { value, position }),
        },
    }
}

/// Sows the seeds of hole `from`; returns where the last seed landed
/// (`board.len()` is the ruma).
fn sow(board: &mut [u32], from: usize) -> usize {
    let n = board.len();
    let seeds = board[from];
    board[from] = 0;
    // Whole laps are done arithmetically so huge counts stay cheap.
    let lap = n as u32 + 1;
    let (laps, rest) = (seeds / lap, seeds % lap);
    if laps > 0 {
        board.iter_mut().for_each(|s| *s += laps);
    }
    let mut p = from;
    for _ in 0..rest {
        p = if p == n { 0 } else { p + 1 };
        if p < n {
            board[p] += 1;
        }
    }
    ((from as u64 + seeds as u64) % lap as u64) as usize
}

/// Plays a whole chain in place; returns its outcome and number of sowings.
fn chain(board: &mut [u32], mut from: usize) -> (Outcome, u32) {
    let n = board.len();
    let mut sowings = 0;
    loop {
        sowings += 1;
        let last = sow(board, from);
        if last == n {
            let won = board.iter().all(|&s| s == 0);
            return (if won { Outcome::Won } else { Outcome::Choose }, sowings);
        }
        if board[last] == 1 {
            return (Outcome::Lost, sowings);
        }
        from = last;
    }
}

/// Bits that hold any single hole's count: no hole can exceed the total.
fn bits_per_hole(start: &[u32]) -> u32 {
    let total: u64 = start.iter().map(|&s| s as u64).sum();
    (64 - total.leading_zeros()).max(1)
}

/// A position packed into a hash key.
trait Key: Clone + Eq + Hash {
    fn pack(board: &[u32], bits: u32) -> Self;
    fn unpack(&self, bits: u32, out: &mut [u32]);
    /// Bytes a key of `holes` holes owns outside itself (for the memory bound).
    fn heap_bytes(_holes: usize) -> usize {
        0
    }
}

macro_rules! int_key {
    ($t:ty) => {
        impl Key for $t {
            fn pack(board: &[u32], bits: u32) -> Self {
                board.iter().fold(0, |k, &s| (k << bits) | s as $t)
            }
            fn unpack(&self, bits: u32, out: &mut [u32]) {
                let mask = (1 << bits) - 1;
                let mut k = *self;
                for s in out.iter_mut().rev() {
                    *s = (k & mask) as u32;
                    k >>= bits;
                }
            }
        }
    };
}
int_key!(u64);
int_key!(u128);

impl Key for Box<[u32]> {
    fn pack(board: &[u32], _bits: u32) -> Self {
        board.into()
    }
    fn unpack(&self, _bits: u32, out: &mut [u32]) {
        out.copy_from_slice(self)
    }
    fn heap_bytes(holes: usize) -> usize {
        // The allocator rounds small blocks up to 16 bytes and keeps a header.
        (holes * 4).next_multiple_of(16) + 16
    }
}

/// A fast hasher for packed positions (std's SipHash is several times slower
/// here); the final mix spreads every input bit over the bucket bits.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x
    }
}

type Fast = BuildHasherDefault<MixHasher>;

/// Depth-first search for any winning line. The choice graph is acyclic
/// (see the module docs), so a plain visited set suffices.
fn reachable_win<K: Key>(start: &[u32], bits: u32, deadline: Option<Instant>) -> Option<bool> {
    if start.iter().all(|&s| s == 0) {
        return Some(true);
    }
    let n = start.len();
    let mut seen: HashSet<K, Fast> = HashSet::default();
    let mut stack = vec![K::pack(start, bits)];
    let (mut cur, mut next) = (vec![0; n], vec![0; n]);
    let mut expanded = 0u64;
    while let Some(key) = stack.pop() {
        expanded += 1;
        if expanded.is_multiple_of(1024) && deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        key.unpack(bits, &mut cur);
        // Leftmost first, so the holes nearest the ruma (pushed last) are
        // tried first: those are the ones that tend to end in the ruma.
        for hole in 0..n {
            if cur[hole] == 0 {
                continue;
            }
            next.copy_from_slice(&cur);
            match chain(&mut next, hole).0 {
                Outcome::Won => return Some(true),
                Outcome::Lost => {}
                Outcome::Choose => {
                    let k = K::pack(&next, bits);
                    if seen.insert(k.clone()) {
                        stack.push(k);
                    }
                }
            }
        }
    }
    Some(false)
}

/// Dijkstra over choice positions with a lexicographic (primary, secondary)
/// cost; returns the chosen holes of a cheapest win (`Ok(None)`: no win), or why it
/// gave up first.
fn shortest<K: Key>(
    start: &[u32],
    bits: u32,
    goal: Goal,
    bounds: Bounds,
) -> Result<Option<Vec<usize>>, GaveUp> {
    if start.iter().all(|&s| s == 0) {
        return Ok(Some(Vec::new()));
    }
    type Cost = (u64, u64);
    let edge = |sowings: u32| -> Cost {
        match goal {
            Goal::Choices => (1, sowings as u64),
            Goal::Sowings => (sowings as u64, 1),
        }
    };
    let add = |a: Cost, b: Cost| (a.0 + b.0, a.1 + b.1);
    let n = start.len();
    // Node data lives in vectors indexed by discovery order, which also makes
    // ties in the heap break deterministically.
    let mut keys: Vec<K> = vec![K::pack(start, bits)];
    let mut best: Vec<Cost> = vec![(0, 0)];
    let mut parent: Vec<(u32, u32)> = vec![(u32::MAX, 0)];
    let mut index: HashMap<K, u32, Fast> = HashMap::default();
    index.insert(keys[0].clone(), 0);
    let mut heap = BinaryHeap::from([Reverse(((0u64, 0u64), 0u32))]);
    let mut win: Option<(Cost, u32, u32)> = None;
    let (mut cur, mut next) = (vec![0; n], vec![0; n]);
    let mut popped = 0u64;
    while let Some(Reverse((cost, node))) = heap.pop() {
        if win.is_some_and(|(w, _, _)| w <= cost) {
            break;
        }
        popped += 1;
        if popped.is_multiple_of(256) {
            if bounds.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(GaveUp::Time);
            }
            if let Some(limit) = bounds.memory {
                // Every table at its current capacity, the hash map's control bytes
                // and its load factor (7/8) included. Tables grow by doubling, so a
                // growth the next 256 positions could cause (each adds at most `n`
                // entries) is counted before it happens.
                let batch = 256 * n;
                let grown = |len: usize, cap: usize| {
                    if len + batch >= cap { 2 * cap } else { cap }
                };
                let node = size_of::<K>() + K::heap_bytes(n) + size_of::<(u64, u64)>() + 8;
                let entry = size_of::<(K, u32)>() + 1;
                // The index holds a copy of every key (its own heap part too).
                let bytes = grown(keys.len(), keys.capacity()) * node
                    + grown(index.len(), index.capacity()) * entry * 8 / 7
                    + index.len() * K::heap_bytes(n)
                    + grown(heap.len(), heap.capacity()) * size_of::<Reverse<(Cost, u32)>>();
                if bytes > limit {
                    return Err(GaveUp::Memory {
                        positions: keys.len(),
                    });
                }
            }
        }
        if cost > best[node as usize] {
            continue;
        }
        keys[node as usize].unpack(bits, &mut cur);
        for hole in 0..n {
            if cur[hole] == 0 {
                continue;
            }
            next.copy_from_slice(&cur);
            let (outcome, sowings) = chain(&mut next, hole);
            let c = add(cost, edge(sowings));
            match outcome {
                Outcome::Lost => {}
                Outcome::Won => {
                    if win.is_none_or(|(w, _, _)| c < w) {
                        win = Some((c, node, hole as u32));
                    }
                }
                Outcome::Choose => match index.entry(K::pack(&next, bits)) {
                    Entry::Occupied(e) => {
                        let i = *e.get() as usize;
                        if c < best[i] {
                            best[i] = c;
                            parent[i] = (node, hole as u32);
                            heap.push(Reverse((c, i as u32)));
                        }
                    }
                    Entry::Vacant(e) => {
                        let i = keys.len() as u32;
                        keys.push(e.key().clone());
                        e.insert(i);
                        best.push(c);
                        parent.push((node, hole as u32));
                        heap.push(Reverse((c, i)));
                    }
                },
            }
        }
    }
    let Some((_, mut node, hole)) = win else {
        return Ok(None);
    };
    let mut holes = vec![hole as usize];
    while node != 0 {
        let (p, h) = parent[node as usize];
        holes.push(h as usize);
        node = p;
    }
    holes.reverse();
    Ok(Some(holes))
}
