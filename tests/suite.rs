//! The integration tests, one crate: each file of `tests/` is a module here (by subject:
//! rules, notation, protocols, search, databases, tools), sharing the helpers of `common`.
//! One crate links the library once, where 31 crates linked it 31 times with fat LTO.
//!
//! Two files stay crates of their own (see `Cargo.toml`): one makes every network
//! evaluation of its process check itself against a computation from scratch (a switch
//! for the whole process, which would slow the tests running beside it here); one
//! counts the search threads of its process.

mod common;

mod analyze_cli;
mod bad_input;
mod book;
mod documents;
mod dxp;
mod egdb;
mod eval_features;
mod eval_tune;
mod game_draws;
mod gui;
mod hub;
mod hub_resources;
mod hub_weights;
mod matches;
mod network_fit;
mod notation;
mod pdn;
mod perft;
mod perft_8x8;
mod rules_8x8;
mod rules_capturing;
mod rules_frisian;
mod rules_game_end;
mod rules_kings_promotion;
mod search_bench;
mod search_draws;
mod search_engine;
mod search_tactics;
mod search_time;
mod search_tt;
mod tchuka;
mod text_mode;
