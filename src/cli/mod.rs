//! The command-line tools: thin adapters from arguments to the library.

pub mod analyze;
pub mod book;
pub mod dxp;
pub mod egdb;
pub mod gui;
pub mod match_cmd;
pub mod pdn;
pub mod rules_tools;
pub mod tchuka;
pub mod text_mode;
pub mod tune;
