//! tammi — a draughts engine: rules core, notation, perft and the solver tools.

pub mod cli;
pub mod notation;
pub mod perft;
pub mod rules;
pub mod tchuka;
