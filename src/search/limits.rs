//! What a search may spend, and the engine's options.

use std::time::Duration;

use crate::rules::Notation;

/// The limits of one search (the Hub `level` forms). Several may be combined; the first
/// reached stops the search. With none set the search runs until `stop`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many plies of iterative deepening.
    pub depth: Option<u32>,
    /// Stop after this many nodes (all threads together).
    pub nodes: Option<u64>,
    /// Think this long, then move (`level move-time`).
    pub move_time: Option<Duration>,
    /// The engine's remaining clock time (`level time`).
    pub time: Option<Duration>,
    /// Fischer increment, added before each move (`level inc`).
    pub increment: Duration,
    /// Moves until the next time control (`level moves`); none for sudden death.
    pub moves_to_go: Option<u32>,
    /// Search until `stop`, whatever the other limits say about time.
    pub infinite: bool,
    /// Search on the opponent's time: time limits start counting at `ponder_hit`.
    pub ponder: bool,
}

impl Limits {
    pub fn depth(d: u32) -> Self {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }
    pub fn nodes(n: u64) -> Self {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
    pub fn move_time(t: Duration) -> Self {
        Limits {
            move_time: Some(t),
            ..Limits::default()
        }
    }
    pub fn infinite() -> Self {
        Limits {
            infinite: true,
            ..Limits::default()
        }
    }
    /// A game clock: remaining time, increment, moves to the next control.
    pub fn clock(time: Duration, increment: Duration, moves_to_go: Option<u32>) -> Self {
        Limits {
            time: Some(time),
            increment,
            moves_to_go,
            ..Limits::default()
        }
    }

    /// Whether the search is playing a game move on a clock (and may answer a forced
    /// move at once) rather than analysing.
    pub fn is_game_clock(&self) -> bool {
        (self.time.is_some() || self.move_time.is_some()) && !self.infinite
    }

    /// Whether nothing but `stop` ends this search.
    pub fn is_unbounded(&self) -> bool {
        self.infinite
            || (self.depth.is_none()
                && self.nodes.is_none()
                && self.move_time.is_none()
                && self.time.is_none())
    }
}

/// Engine settings (Hub `set-param`, command-line flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Lines to report in analysis (1 = best line only).
    pub multipv: usize,
    /// Time kept back per move for communication and process delays.
    pub move_overhead: Duration,
    /// Notation of the `pv` text in reports (the Hub form is always given too);
    /// `None` = the variant's usual notation.
    pub notation: Option<Notation>,
    /// English endgame database file (`tammi egdb build`); `None` = no database.
    pub egdb: Option<std::path::PathBuf>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mb: 64,
            multipv: 1,
            move_overhead: Duration::from_millis(30),
            notation: None,
            egdb: None,
        }
    }
}

impl EngineOptions {
    pub const MAX_THREADS: usize = 256;
    pub const MAX_HASH_MB: usize = 1 << 16;
    pub const MAX_MULTIPV: usize = 64;

    /// Check the ranges; the error names the bad option.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=Self::MAX_THREADS).contains(&self.threads) {
            return Err(format!(
                "threads must be between 1 and {}, got {}",
                Self::MAX_THREADS,
                self.threads
            ));
        }
        if !(1..=Self::MAX_HASH_MB).contains(&self.hash_mb) {
            return Err(format!(
                "hash must be between 1 and {} MB, got {}",
                Self::MAX_HASH_MB,
                self.hash_mb
            ));
        }
        if !(1..=Self::MAX_MULTIPV).contains(&self.multipv) {
            return Err(format!(
                "multipv must be between 1 and {}, got {}",
                Self::MAX_MULTIPV,
                self.multipv
            ));
        }
        Ok(())
    }
}
