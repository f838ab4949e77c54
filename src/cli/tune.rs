//! `tammi tune`: the command line of the evaluation's training pipeline, whose parts live
//! in [`crate::tuning`]: self-play (`games`), search labels (`label`) and the fit (`fit`).

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::tuning::fit::{FitArgs, run_fit};
use crate::tuning::label::{LabelArgs, run_label};
use crate::tuning::network_fit::{NetFitArgs, run_net_fit};
use crate::tuning::selfplay::{GamesArgs, run_games};

#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(subcommand)]
    pub command: TuneCommand,
}

#[derive(Subcommand, Debug)]
pub enum TuneCommand {
    /// Play self-play games and write their quiet positions with the results.
    Games(GamesArgs),
    /// Fit the evaluation weights to game results and write a weights file.
    Fit(FitArgs),
    /// Add a search score to every position of a 'tune games' file.
    Label(LabelArgs),
    /// Train the english network evaluation on game results and write a network file.
    NetFit(NetFitArgs),
}

pub fn run(args: &TuneArgs) -> Result<i32> {
    match &args.command {
        TuneCommand::Games(a) => run_games(a),
        TuneCommand::Fit(a) => run_fit(a),
        TuneCommand::Label(a) => run_label(a),
        TuneCommand::NetFit(a) => run_net_fit(a),
    }
}
