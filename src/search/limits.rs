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
    /// The move time of a search that must play a move but was given no limit (a GUI
    /// that sent no `level`, or only refused ones): it plays in this time rather than
    /// thinking until `stop`.
    pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(2);

    /// These limits, or the default move time if nothing but `stop` would end a search
    /// that must play a move.
    pub fn or_default_move_time(self) -> Self {
        if self.is_unbounded() && !self.infinite {
            Limits {
                move_time: Some(Self::DEFAULT_MOVE_TIME),
                ..self
            }
        } else {
            self
        }
    }

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

impl std::fmt::Display for Limits {
    /// The limits in the Hub `level` form (`depth=12 move-time=2.5`), or `none`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = |d: Duration| format!("{}", d.as_secs_f64());
        let mut parts = Vec::new();
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(t) = self.move_time {
            parts.push(format!("move-time={}", secs(t)));
        }
        if let Some(t) = self.time {
            parts.push(format!("time={}", secs(t)));
        }
        if !self.increment.is_zero() {
            parts.push(format!("inc={}", secs(self.increment)));
        }
        if let Some(m) = self.moves_to_go {
            parts.push(format!("moves={m}"));
        }
        if self.infinite {
            parts.push("infinite".into());
        }
        if parts.is_empty() {
            write!(f, "none")
        } else {
            write!(f, "{}", parts.join(" "))
        }
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
    /// Ten seconds: more would be no overhead but the move's whole time.
    pub const MAX_MOVE_OVERHEAD_MS: u64 = 10_000;

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
        if self.move_overhead > Duration::from_millis(Self::MAX_MOVE_OVERHEAD_MS) {
            return Err(format!(
                "move overhead must be at most {} ms, got {} ms",
                Self::MAX_MOVE_OVERHEAD_MS,
                self.move_overhead.as_millis()
            ));
        }
        Ok(())
    }
}
