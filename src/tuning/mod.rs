//! The evaluation's training pipeline: self-play data ([`selfplay`], `tammi tune games`),
//! search labels ([`label`], `tune label`) and the fit of the weights ([`fit`],
//! `tune fit`). The command line that drives it is [`crate::cli::tune`]; how every
//! shipped weights file was made is in `tuning/README.md`.

pub mod fit;
pub mod label;
pub mod network_fit;
pub mod selfplay;
