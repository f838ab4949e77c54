//! Judges of the search, outside it: an exact prover of small tactical positions
//! ([`proof`]: a full-width search with no pruning, no table and no evaluation beyond
//! material) and the tactics file that it proves and the engine is measured on
//! ([`tactics`]).

pub mod proof;
pub mod tactics;
