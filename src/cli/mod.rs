//! The command-line tools: thin adapters from arguments to the library.

pub mod rules_tools;
