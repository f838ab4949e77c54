//! `tammi match`: games between two Hub engines, run as child processes.
//!
//! - [`engine`]: one engine process: start and handshake, searches with deadlines, kill
//!   and restart.
//! - [`runner`]: the games: the referee (rules, draw rules and adjudication, faults:
//!   illegal move, time forfeit, crash, no answer), several games at once, the events a
//!   watcher is told.
//! - [`clock`]: time controls, each engine's clock, the time-forfeit margin.
//! - [`record`]: how a game ended, the finished games and running totals, PDN output.
//! - [`report`]: the progress line and the final report.
//! - [`openings`]: the english three-move ballots, opening files, random balanced openings.
//! - [`stats`]: Elo and its error interval, LOS, SPRT.
//!
//! The runner does not trust the engines: every move is checked against the legal moves
//! of the position the runner keeps, every search has a deadline, and an engine that
//! exits or stops answering loses the game and is started again for the next one.

pub mod clock;
pub mod engine;
pub mod openings;
pub mod record;
pub mod report;
pub mod runner;
pub mod stats;

pub use clock::{Clock, TimeControl};
pub use engine::{EngineSpec, HubEngine, SearchEnd, split_command};
pub use openings::Opening;
pub use record::{Ending, Fault, GameRecord};
pub use report::{ProgressStyle, report};
pub use runner::{MatchConfig, MatchEvent, MatchOutcome, ScoreRule, run};
pub use stats::{Pentanomial, Sprt, SprtVerdict, Wdl};
