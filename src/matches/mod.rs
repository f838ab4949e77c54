//! `tammi match`: games between two Hub engines, run as child processes.
//!
//! - [`engine`]: one engine process: start and handshake, searches with deadlines, kill
//!   and restart.
//! - [`runner`]: the games: rules, clocks, draw rules and adjudication, faults (illegal
//!   move, time forfeit, crash, no answer), several games at once, PDN output, reports.
//! - [`openings`]: the english three-move ballots, opening files, random balanced openings.
//! - [`stats`]: Elo and its error interval, LOS, SPRT.
//!
//! The runner does not trust the engines: every move is checked against the legal moves
//! of the position the runner keeps, every search has a deadline, and an engine that
//! exits or stops answering loses the game and is started again for the next one.

pub mod engine;
pub mod openings;
pub mod runner;
pub mod stats;

pub use engine::{EngineSpec, HubEngine, SearchEnd, split_command};
pub use openings::Opening;
pub use runner::{
    Clock, Ending, Fault, GameRecord, MatchConfig, MatchEvent, MatchOutcome, ProgressStyle,
    ScoreRule, TimeControl, report, run,
};
pub use stats::{Pentanomial, Sprt, SprtVerdict, Wdl};
