//! The evaluation's training pipeline: self-play data ([`selfplay`], `tammi tune games`),
//! search labels ([`label`], `tune label`), the fit of the weights ([`fit`], `tune fit`)
//! and of the english network ([`network_fit`], `tune net-fit`), the data files they
//! share ([`data`], the one reader; the binary format [`record`]) and the joining of
//! shards ([`merge`], `tune merge`). Each takes a config struct and returns a `Result`;
//! the command line that fills them in is the binary's (`src/cli/tune.rs`). How every
//! shipped weights file was made is in `tuning/README.md`.

pub mod data;
pub mod fit;
pub mod label;
pub mod merge;
pub mod network_fit;
pub mod record;
pub mod selfplay;
