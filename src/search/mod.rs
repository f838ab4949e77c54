//! The thinking engine: the [`Engine`] API, the search, the transposition table, move
//! ordering, time management and the benchmark.
//!
//! - [`engine`]: positions with their history (a [`crate::rules::Game`]), options, searches on their own threads,
//!   answers through callbacks (what the Hub adapter and the command line call).
//!   `run` is one search of a position of any variant (the board type erased there), with
//!   its Lazy-SMP helpers and the vote among them; `threads` the pool they run on;
//!   [`resources`] the table and database and their preparation off the clock; `score`
//!   and `report` what a search tells its caller.
//! - [`search`]: iterative deepening, PVS, quiescence, pruning (one thread).
//! - [`tt`]: the lock-free transposition table shared by the threads.
//! - [`ordering`], [`history`]: which move to try first.
//! - [`limits`], [`time`]: what a search may spend, and how the clock is shared out.
//! - [`bench`]: the fixed positions whose node count is the search's signature.

pub mod bench;
pub mod engine;
pub mod history;
pub mod limits;
pub mod ordering;
mod report;
pub mod resources;
mod run;
mod score;
#[allow(clippy::module_inception)]
pub mod search;
mod threads;
pub mod time;
pub mod tt;

pub use engine::{Done, Engine, Info, Score};
pub use limits::{EngineOptions, Limits};
