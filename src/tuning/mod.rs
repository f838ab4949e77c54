//! The evaluation's training pipeline, beside the command line that drives it
//! (`tammi tune`, in [`crate::cli::tune`]).

pub mod label;
