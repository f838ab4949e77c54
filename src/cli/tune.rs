//! `tammi tune`: the command line of the evaluation's training pipeline, whose parts live
//! in [`tammi::tuning`]: self-play (`games`), search labels (`label`), the fit (`fit`) and
//! the network's (`net-fit`). The flags here become the library's config structs.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::rules_tools::parse_variant;
use tammi::eval::EvalKind;
use tammi::rules::Variant;
use tammi::tuning::data::DataFormat;
use tammi::tuning::fit::{FitConfig, run_fit};
use tammi::tuning::label::{EvalConfig, LabelConfig, run_label};
use tammi::tuning::merge::{MergeConfig, run_merge};
use tammi::tuning::network_fit::{NetFitConfig, run_net_fit};
use tammi::tuning::selfplay::{GamesConfig, run_games};

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
    /// Join shards of 'tune games' (one variant, one format) into one file.
    Merge(MergeArgs),
}

/// Runs `tammi tune`; every subcommand exits with 0 when done (an error is an `Err`).
pub fn run(args: &TuneArgs) -> Result<i32> {
    match &args.command {
        TuneCommand::Games(a) => run_games(&a.into())?,
        TuneCommand::Fit(a) => run_fit(&a.into())?,
        TuneCommand::Label(a) => run_label(&a.into())?,
        TuneCommand::NetFit(a) => run_net_fit(&a.into())?,
        TuneCommand::Merge(a) => {
            run_merge(&MergeConfig {
                out: a.out.clone(),
                shards: a.shards.clone(),
            })?;
        }
    }
    Ok(0)
}

const GAMES_HELP: &str = "\
Games start from the english ACF three-move ballots (other variants: the start position),
then --random-plies uniformly random legal moves, then the engine plays both sides with
a fixed budget per move (--nodes, or --depth) and a fresh hash table per game. Games end
by the rules: no legal move, threefold repetition, the variant's draw counters, or
--max-plies (a draw). With --egdb the engine searches with the endgame database (a
file, or a directory holding the variant's), and a game ends at the first position the
database holds, with its value as the result: the result is then what perfect play
gives, and no time goes on playing out endings already known.

Output: '# ...' header lines, then one line per quiet position (neither side has a
capture) after the random plies: the position as a PDN FEN and the game's result from
White's view (1, 0.5 or 0), e.g. 'B:W18,21-32:B1-12,14 0.5'. Game i uses the seed
(--seed, i), and lines are written in game order, so the file depends only on the flags.
With --format bin the same positions are binary records instead (a header naming the
variant and this command, then per game its result and its positions, side to move and
squares packed 3 a byte: 17 bytes a position on 10x10, 11 on 8x8; layout in the docs of
src/tuning/record.rs). 'tune fit', 'tune net-fit' and 'tune merge' read either format;
'tune label' reads text only.

The games go to OUT.part, renamed to OUT when the last one is in: OUT is always whole.
A run cut short (Ctrl-C, a crash, a session's end) goes on from the games in OUT.part
when run again with the same flags (OUT.part.done counts them). Progress (games,
positions, games per second) goes to standard error.";

#[derive(Args, Debug)]
#[command(after_help = GAMES_HELP)]
pub struct GamesArgs {
    /// Variant of the games (see `tammi perft --help`).
    #[arg(long, short, default_value = "english", value_parser = parse_variant)]
    pub variant: Variant,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Nodes per move (the default budget).
    #[arg(long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
    /// Depth per move instead of nodes.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Games played at once (one engine each).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Random legal moves after the opening.
    #[arg(long, default_value_t = 4)]
    pub random_plies: usize,
    /// Seed of the random plies (with the game number: the same flags give the same file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Hash table per engine, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Play with the weights of this file instead of the built-in ones.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    #[command(flatten)]
    pub evaluation: EvalArgs,
    /// Play with this endgame database and end each game where it knows the result.
    #[arg(long)]
    pub egdb: Option<PathBuf>,
    /// Stop after writing this many games in this run (to test resumption).
    #[arg(long, hide = true)]
    pub stop_after: Option<usize>,
    /// Output format: text ('FEN RESULT' lines) or bin (a few bytes a position).
    #[arg(long, default_value = "text")]
    pub format: DataFormat,
}

impl From<&GamesArgs> for GamesConfig {
    fn from(a: &GamesArgs) -> GamesConfig {
        GamesConfig {
            variant: a.variant,
            games: a.games,
            out: a.out.clone(),
            nodes: a.nodes,
            depth: a.depth,
            threads: a.threads,
            random_plies: a.random_plies,
            seed: a.seed,
            max_plies: a.max_plies,
            hash: a.hash,
            weights: a.weights.clone(),
            evaluation: (&a.evaluation).into(),
            egdb: a.egdb.clone(),
            stop_after: a.stop_after,
            format: a.format,
        }
    }
}

const FIT_HELP: &str = "\
Reads the files of 'tune games' ('FEN RESULT' lines, '#' lines comments; or binary
files of --format bin, told by their first byte, the two mixed at will), computes
each position's features once with --base (default: the built-in weights), skips the
positions whose score the evaluation scales non-linearly (drawish endings), and keeps
every 10th game apart for validation (a new game starts where the piece count goes
up).

The model is P(White wins) = sigmoid(K * eval / 100), eval being the white-relative
evaluation; the loss is the cross-entropy against the results (0.5 for a draw). K is
fitted first with the base weights, then Adam adjusts every weight except 'man' (the
unit, fixed) and the non-linear ones (king_mobility_cap, *_pct), with an L2 penalty
(--l2) on the table entries. The loss (without the penalty) is printed per epoch
(training and validation); the rounded weights are written with a header saying
how they were produced.

On 10x10 boards --rectangles adds the rectangle tables (four tables of 3^12
configurations of 12-square windows, opening and endgame values: 4.25 million
weights, see tuning/README.md) to the fit, starting from zero when --base has none
(without --rectangles, the rectangles of a base that has them stay as they are);
--rectangles-only fits them alone, on top of --base. The weights held fixed are summed
into one number a position when the data is read, so such a fit keeps only the free
features in memory.";

#[derive(Args, Debug)]
#[command(after_help = FIT_HELP)]
pub struct FitArgs {
    /// Variant of the weights fitted (see `tammi perft --help`).
    #[arg(long, short, default_value = "english", value_parser = parse_variant)]
    pub variant: Variant,
    /// Data files written by 'tune games'.
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<PathBuf>,
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Full passes of Adam over the training positions.
    #[arg(long, default_value_t = 300)]
    pub epochs: usize,
    /// Adam's step size, in centi-men.
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
    /// L2 penalty on the per-square table entries (pulls rare squares to 0 and leaves
    /// what the scalar terms can say to them).
    #[arg(long, default_value_t = 3e-7)]
    pub l2: f64,
    /// Starting weights file (default: the built-in weights of the variant).
    #[arg(long)]
    pub base: Option<PathBuf>,
    /// Print the loss every this many epochs (and at the last).
    #[arg(long, default_value_t = 10)]
    pub report_every: usize,
    /// Keep the pattern values as they are in --base (fit the scalars and tables only).
    #[arg(long)]
    pub keep_patterns: bool,
    /// Fit the rectangle tables too (10x10 boards), from zero when --base has none
    /// (without it, the rectangles of a base that has them stay as they are).
    #[arg(long)]
    pub rectangles: bool,
    /// L2 penalty on the rectangle entries. None by default: even --l2's 3e-7 held
    /// their fit to a thousandth of the loss it gains without (tuning/LOG.md,
    /// 2026-12-07); the number of epochs is what limits them.
    #[arg(long, default_value_t = 0.0)]
    pub l2_rectangles: f64,
    /// With --rectangles: fit the rectangles alone, every other weight as in --base.
    #[arg(long, requires = "rectangles")]
    pub rectangles_only: bool,
    /// Share of the search score in the target (0: the game result alone, 1: the score
    /// alone); above 0 every position needs a score ('tune label').
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
}

impl From<&FitArgs> for FitConfig {
    fn from(a: &FitArgs) -> FitConfig {
        FitConfig {
            variant: a.variant,
            data: a.data.clone(),
            out: a.out.clone(),
            epochs: a.epochs,
            lr: a.lr,
            l2: a.l2,
            base: a.base.clone(),
            report_every: a.report_every,
            keep_patterns: a.keep_patterns,
            rectangles: a.rectangles,
            l2_rectangles: a.l2_rectangles,
            rectangles_only: a.rectangles_only,
            lambda: a.lambda,
        }
    }
}

const LABEL_HELP: &str = "\
Reads a text file of 'tune games' ('FEN RESULT' lines, '#' lines are comments; not a
binary one, of --format bin) and writes
'FEN RESULT SCORE' lines: SCORE is the engine's search score of the position at the
budget given (--nodes), from White's view in centi-men; a game end or a database result
is written as +-3000. Each position is searched with a fresh hash table, so the file
depends only on the input, --nodes and the build (not on --threads).

With --egdb the searches probe the endgame database (a file, or a directory holding the
variant's): a position it holds gets its exact value (+-3000, or 0 for a draw), and the
searches of larger ones see its results as they reach it.

The output is written to OUT.part and renamed to OUT when whole; an interrupted run is
resumed from OUT.part (its lines must be the first positions of the input). Progress goes
to standard error. Give the file to 'tune fit --lambda'.";

#[derive(Args, Debug)]
#[command(after_help = LABEL_HELP)]
pub struct LabelArgs {
    /// Variant of the positions (see `tammi perft --help`).
    #[arg(long, short, default_value = "english", value_parser = parse_variant)]
    pub variant: Variant,
    /// A file written by 'tune games'.
    #[arg(long)]
    pub data: PathBuf,
    /// The labelled file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Nodes searched per position.
    #[arg(long, default_value_t = 2000)]
    pub nodes: u64,
    /// Positions searched at once (one engine each).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Search with the weights of this file instead of the built-in ones.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    #[command(flatten)]
    pub evaluation: EvalArgs,
    /// Search with this endgame database (a file, or a directory holding the variant's).
    #[arg(long)]
    pub egdb: Option<PathBuf>,
}

impl From<&LabelArgs> for LabelConfig {
    fn from(a: &LabelArgs) -> LabelConfig {
        LabelConfig {
            variant: a.variant,
            data: a.data.clone(),
            out: a.out.clone(),
            nodes: a.nodes,
            threads: a.threads,
            weights: a.weights.clone(),
            evaluation: (&a.evaluation).into(),
            egdb: a.egdb.clone(),
        }
    }
}

/// The evaluation the tuning commands play or search with (the Hub's `eval` and
/// `network` parameters).
#[derive(Args, Debug, Clone, Default)]
pub struct EvalArgs {
    /// The evaluation: patterns, or network (english) [default: the variant's network
    /// where it has one, else patterns].
    #[arg(long)]
    pub eval: Option<EvalKind>,
    /// Play with this network file instead of the built-in network (implies --eval
    /// network).
    #[arg(long)]
    pub network: Option<PathBuf>,
}

impl From<&EvalArgs> for EvalConfig {
    fn from(a: &EvalArgs) -> EvalConfig {
        EvalConfig {
            eval: a.eval,
            network: a.network.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct NetFitArgs {
    /// Data files written by 'tune games' or 'tune label' (english).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<PathBuf>,
    /// The network file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Adam's step size (of the first epoch).
    #[arg(long, default_value_t = 0.002)]
    pub lr: f32,
    /// The step size's factor from one epoch to the next (1: constant; 0.7 over 12
    /// epochs ends at 2% of --lr): smaller steps late settle the weights where the
    /// constant step keeps them wandering.
    #[arg(long, default_value_t = 1.0)]
    pub lr_decay: f32,
    /// Positions per mini-batch.
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Share of the search score in the target (0: the game result alone); above 0 every
    /// position needs a score ('tune label').
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    /// Centi-men per logit of the output: the evaluation's scale (and the score's in the
    /// --lambda target).
    #[arg(long, default_value_t = 135)]
    pub cp_per_logit: i32,
    /// Seed of the initial weights and of the order of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output buckets by piece count (1 to 8): the second and third layers once per
    /// bucket, the first layer shared (1: the plain network, a version 1 file).
    #[arg(long, default_value_t = 1)]
    pub buckets: usize,
}

impl From<&NetFitArgs> for NetFitConfig {
    fn from(a: &NetFitArgs) -> NetFitConfig {
        NetFitConfig {
            data: a.data.clone(),
            out: a.out.clone(),
            epochs: a.epochs,
            lr: a.lr,
            lr_decay: a.lr_decay,
            batch: a.batch,
            lambda: a.lambda,
            cp_per_logit: a.cp_per_logit,
            seed: a.seed,
            buckets: a.buckets,
        }
    }
}

const MERGE_HELP: &str = "\
Joins shards of 'tune games' into one file, games in the order given: e.g. shards played
with --seed 1, 2, ... on many machines (tuning/shards/ has Slurm and GNU parallel
recipes). The shards must be all text or all binary, of one variant. Each is read whole
and checked first (every position; binary: every record and the end record; text: the
'# games' footer), and one cut short or of another variant or format is an error naming
it before anything is written. Prints each shard's games, positions and White's
+wins =draws -losses, then the total; progress goes to standard error. Written to
OUT.part, renamed to OUT when whole.";

#[derive(Args, Debug)]
#[command(after_help = MERGE_HELP)]
pub struct MergeArgs {
    /// The merged file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// The shards, in order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
}
