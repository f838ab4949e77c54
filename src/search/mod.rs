//! The thinking engine: the [`Engine`] API, the search, the transposition table, move
//! ordering, time management and the benchmark.
//!
//! - [`engine`]: positions with their history (a [`crate::rules::Game`]), options, searches on their own threads,
//!   answers through callbacks (what the Hub adapter and the command line call).
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
pub mod proof;
pub mod resources;
#[allow(clippy::module_inception)]
pub mod search;
pub mod tactics;
pub mod time;
pub mod tt;

pub use engine::{Done, Engine, Info, Score};
pub use limits::{EngineOptions, Limits};
