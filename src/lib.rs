//! tammi — a draughts engine: rules core, notation, perft and the solver tools. The
//! command line is the binary's (`src/main.rs` and `src/cli/`): it reads flags and
//! decides exit codes; the library takes plain values and returns results and errors.

pub mod book;
pub mod dxp;
pub mod egdb;
pub mod eval;
pub mod gui;
pub mod hub;
pub mod matches;
pub mod memory;
pub mod notation;
pub mod oracle;
mod parallel;
pub mod pdn;
pub mod perft;
pub mod rng;
pub mod rules;
pub mod search;
pub mod settings;
pub mod tchuka;
pub mod tuning;
