//! tammi — a draughts engine: rules core, notation, perft and the solver tools.

pub mod tchuka;
