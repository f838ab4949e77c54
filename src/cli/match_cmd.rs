//! `tammi match`: play games between two Hub engines and report who is stronger.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::rules_tools::parse_variant;
use tammi::matches::clock::{Clock, DEFAULT_MARGIN, TimeControl};
use tammi::matches::engine::{EngineSpec, Log, TrafficLog, split_command};
use tammi::matches::openings::{self, GenerateOptions, Opening};
use tammi::matches::report::{ProgressStyle, report};
use tammi::matches::runner::{MatchConfig, ScoreRule, run};
use tammi::matches::stats::Sprt;
use tammi::notation::write_fen;
use tammi::rules::{Board, Notation, Variant};
use tammi::with_board;

/// Openings generated at most; longer matches play them again (still in pairs).
const MAX_GENERATED_OPENINGS: usize = 1000;

const AFTER_HELP: &str = "\
Engines:
  Each --engine is a command line (split at blanks; quotes group words) started as a child
  process that speaks the Hub protocol, e.g. --engine \"target/release/tammi hub\" --engine
  \".venv/bin/dame hub\". The variant is set with set-param (an engine without a 'variant'
  parameter can only play international). --engine-option 1:threads=2 sends
  'set-param name=threads value=2' to engine 1 (1, 2, or both); an engine that does not
  declare the parameter, or answers the set-up with an error, stops the match before it
  starts. Engine output on standard error is discarded; --log FILE keeps all Hub traffic.
  tammi engines get 'book=false': the match measures them from its openings, not their
  opening book; --engine-option N:book=true lets them play from it. Other engines keep
  their own book setting.

Games:
  Each opening is played twice, colours reversed: engine 1 has White in games 1, 3, 5, ...
  Every search gets 'pos pos=<start> moves=\"<all moves so far>\"', its 'level' lines and
  'go think'; 'new-game' starts each game. tammi checks every move against the rules,
  ends games by the variant's rules (no legal move; threefold repetition, the move-count
  and few-pieces draw rules), at --max-plies (a draw), and optionally by the engines'
  scores: --adjudicate-draw 0.05,20 (every one of the last 20 scored moves within +-0.05
  men), --adjudicate-win 3,8 (the last 8 scored moves all agree one side is 3 men up).
  Scores are in men as Hub engines give them; moves sent without a score are skipped.

Clocks and faults:
  --tc 60+0.5 gives each engine 60 s for the game plus 0.5 s added before every move
  (as the Hub protocol does); --tc 40/90+1 refills 90 s every 40 moves. Thinking time is
  measured from 'go' to the arrival of 'done'. A move is lost on time when it takes
  longer than the time allowed plus a margin of --time-margin (50 ms) + 10%. An engine
  then gets 'stop' and 1 s to answer; one that still does not answer, or exits, loses
  ('unresponsive', 'crash') and is killed and started again for the next game. An
  unparsable or illegal move loses ('illegal move'). Without --tc or --movetime,
  --move-timeout (60 s) bounds each search.

Openings (--openings):
  builtin   english: the 156 ACF three-move ballots, shuffled by --seed; other variants:
            random (below)
  ballots   the english ballots (english only)
  random    random openings of --opening-plies plies (default 4 on 8x8 boards, 6 on
            larger ones), each kept only if tammi's search at --opening-depth scores it
            within --opening-margin men; reproducible from --seed
  start     every game from the start position
  FILE      PDN games (their main lines, from their FEN), or one opening per line:
            '[POSITION] [MOVES...] [# NAME]' (POSITION a FEN, Hub position or 'start')

Output:
  Progress goes to standard error: one line rewritten in place on a terminal, else one
  line per finished game. The report goes to standard output: engine 1's wins, draws,
  losses and score, the Elo difference with its 95% interval (normal approximation over
  games: trinomial; also over colour-reversed pairs: pentanomial), LOS (likelihood that
  engine 1 is stronger), the SPRT (--sprt 0,5: H0 'elo0' against H1 'elo1', logistic
  GSPRT on game results; the match stops when the ratio leaves its bounds), then per
  engine the losses by fault and the restarts, and how the games ended. --pdn FILE
  writes every game with Event, Site, Date, Round, White, Black, Result, GameType, FEN
  (when not the start), Termination, TimeControl and Opening tags.

Exit status: 0 when the match ran (whatever the result), 1 if it stopped because an
engine could not be started again, 2 on bad arguments or an engine that fails to start.";

#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct MatchArgs {
    /// An engine's command line; give exactly two (engine 1, then engine 2).
    #[arg(long = "engine", value_name = "COMMAND", required = true)]
    pub engines: Vec<String>,
    /// Name of engine N (1 or 2) in the report and PDN, e.g. `1:tammi-dev` (default: its
    /// Hub id name, with -1/-2 appended when both are the same).
    #[arg(long = "name", value_name = "N:NAME")]
    pub names: Vec<String>,
    /// A Hub parameter for engine N (1, 2 or both), e.g. `2:threads=2`; repeatable.
    #[arg(long = "engine-option", value_name = "N:PARAM=VALUE")]
    pub options: Vec<String>,
    /// Variant (see `tammi perft --help`).
    #[arg(long, short, default_value = "international", value_parser = parse_variant)]
    pub variant: Variant,
    /// Number of games (each opening is played twice, colours reversed).
    #[arg(long, short = 'n', default_value_t = 10)]
    pub games: usize,
    /// Game clock per engine: SECONDS[+INCREMENT] or MOVES/SECONDS[+INCREMENT].
    #[arg(
        long,
        value_name = "[MOVES/]SECONDS[+INC]",
        conflicts_with = "movetime"
    )]
    pub tc: Option<String>,
    /// Fixed thinking time per move, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub movetime: Option<f64>,
    /// Search depth per move (plies; combines with the other limits).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Nodes per move (combines with the other limits).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Without --tc or --movetime: the longest a search may take before it is lost.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub move_timeout: f64,
    /// Fixed part of the time-forfeit margin, in milliseconds (10% of the allowed time is
    /// added to it).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MARGIN.as_millis() as u64)]
    pub time_margin: u64,
    /// builtin, ballots, random, start, or a file (see below).
    #[arg(long, value_name = "SET|FILE", default_value = "builtin")]
    pub openings: String,
    /// Plies of random openings (default: 4 on 8x8 boards, 6 on larger ones).
    #[arg(long, value_name = "PLIES")]
    pub opening_plies: Option<usize>,
    /// Depth of the search that keeps only balanced random openings.
    #[arg(long, value_name = "PLIES", default_value_t = 6)]
    pub opening_depth: u32,
    /// Largest score (in men) a random opening may have at that depth.
    #[arg(long, value_name = "MEN", default_value_t = 0.3)]
    pub opening_margin: f64,
    /// Seed for the order of the ballots and for random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at the same time (each with its own two engine processes).
    #[arg(long, short = 'c', default_value_t = 1)]
    pub concurrency: usize,
    /// A game this long (in plies, opening included) is drawn.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Draw when the last PLIES scored moves were all within ±SCORE men.
    #[arg(long, value_name = "SCORE,PLIES")]
    pub adjudicate_draw: Option<String>,
    /// Win when the last PLIES scored moves all gave one side SCORE men or more.
    #[arg(long, value_name = "SCORE,PLIES")]
    pub adjudicate_win: Option<String>,
    /// Sequential test: stop once the results decide between ELO0 and ELO1 for engine 1
    /// (alpha and beta default to 0.05).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    pub sprt: Option<String>,
    /// Write every game to this PDN file.
    #[arg(long, value_name = "FILE")]
    pub pdn: Option<PathBuf>,
    /// PDN Event tag.
    #[arg(long, default_value = "tammi match")]
    pub event: String,
    /// PDN Site tag.
    #[arg(long, default_value = "?")]
    pub site: String,
    /// Copy every line sent to and received from the engines to this file.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// No progress on standard error.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `N:REST` with N one of 1, 2 (or `both` when allowed): the engine indices and REST.
fn engine_prefixed<'a>(
    text: &'a str,
    flag: &str,
    allow_both: bool,
) -> Result<(Vec<usize>, &'a str)> {
    let (n, rest) = text
        .split_once(':')
        .with_context(|| format!("{flag} '{text}': expected N:... with N = 1 or 2"))?;
    let which = match n.trim() {
        "1" => vec![0],
        "2" => vec![1],
        "both" if allow_both => vec![0, 1],
        other => bail!(
            "{flag} '{text}': '{other}' is not an engine (1{})",
            if allow_both { ", 2 or both" } else { " or 2" }
        ),
    };
    Ok((which, rest))
}

fn seconds(flag: &str, x: f64) -> Result<Duration> {
    if !(x.is_finite() && x > 0.0 && x < 1e7) {
        bail!("{flag} must be a positive number of seconds, got {x}");
    }
    Ok(Duration::from_secs_f64(x))
}

fn engine_specs(a: &MatchArgs) -> Result<[EngineSpec; 2]> {
    if a.engines.len() != 2 {
        bail!(
            "--engine must be given exactly twice (engine 1 and engine 2), got {}",
            a.engines.len()
        );
    }
    let mut specs = Vec::new();
    for (i, cmd) in a.engines.iter().enumerate() {
        let command = split_command(cmd).map_err(|e| anyhow::anyhow!("--engine {}: {e}", i + 1))?;
        specs.push(EngineSpec {
            name: None,
            command,
            params: Vec::new(),
        });
    }
    for n in &a.names {
        let (which, name) = engine_prefixed(n, "--name", false)?;
        if name.trim().is_empty() {
            bail!("--name '{n}': the name is empty");
        }
        specs[which[0]].name = Some(name.trim().to_string());
    }
    if let [s1, s2] = &specs[..]
        && s1.name.is_some()
        && s1.name == s2.name
    {
        bail!(
            "--name: both engines are called '{}'",
            s1.name.as_deref().unwrap_or("")
        );
    }
    for o in &a.options {
        let (which, setting) = engine_prefixed(o, "--engine-option", true)?;
        let (param, value) = setting.split_once('=').with_context(|| {
            format!("--engine-option '{o}': expected N:PARAM=VALUE, e.g. 1:threads=2")
        })?;
        if param.trim().is_empty() {
            bail!("--engine-option '{o}': the parameter name is empty");
        }
        for e in which {
            specs[e]
                .params
                .push((param.trim().to_string(), value.trim().to_string()));
        }
    }
    let second = specs.pop().expect("two engines");
    let first = specs.pop().expect("two engines");
    Ok([first, second])
}

fn time_control(a: &MatchArgs) -> Result<TimeControl> {
    let tc = TimeControl {
        clock: a
            .tc
            .as_deref()
            .map(Clock::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--tc {e}"))?,
        move_time: a.movetime.map(|s| seconds("--movetime", s)).transpose()?,
        depth: a.depth,
        nodes: a.nodes,
    };
    if tc == TimeControl::default() {
        bail!("give a limit per move: --tc, --movetime, --depth or --nodes");
    }
    if a.depth == Some(0) || a.nodes == Some(0) {
        bail!("--depth and --nodes must be at least 1");
    }
    Ok(tc)
}

/// The openings and a description of them for the report.
fn choose_openings(a: &MatchArgs) -> Result<(Vec<Opening>, String)> {
    let generate = |what: &str| -> Result<(Vec<Opening>, String)> {
        let plies = a
            .opening_plies
            .unwrap_or_else(|| openings::default_plies(a.variant));
        if plies == 0 || plies > 40 {
            bail!("--opening-plies must be between 1 and 40, got {plies}");
        }
        if !(a.opening_margin.is_finite() && a.opening_margin >= 0.0) {
            bail!("--opening-margin must be a score in men, 0 or more");
        }
        let count = a.games.div_ceil(2).clamp(1, MAX_GENERATED_OPENINGS);
        let list = openings::generate(
            a.variant,
            &GenerateOptions {
                count,
                plies,
                seed: a.seed,
                depth: a.opening_depth,
                margin: a.opening_margin,
            },
        )?;
        let label = format!(
            "{} {what}{plies}-ply openings within {} men at depth {} (seed {})",
            list.len(),
            a.opening_margin,
            a.opening_depth,
            a.seed
        );
        Ok((list, label))
    };
    let ballots = || {
        let mut list = openings::english_ballots();
        openings::shuffle(&mut list, a.seed);
        let label = format!(
            "{} ACF three-move ballots, shuffled (seed {})",
            list.len(),
            a.seed
        );
        (list, label)
    };
    match a.openings.as_str() {
        "builtin" if a.variant == Variant::English => Ok(ballots()),
        "builtin" => generate("random balanced "),
        "random" => generate("random balanced "),
        "ballots" if a.variant == Variant::English => Ok(ballots()),
        "ballots" => bail!("--openings ballots: the three-move ballots are english openings"),
        "start" => {
            let start = with_board!(a.variant, P => write_fen(&P::start(), Notation::Numeric));
            Ok((
                vec![Opening {
                    name: None,
                    start,
                    moves: Vec::new(),
                }],
                "the start position".into(),
            ))
        }
        path => {
            let list = openings::load(a.variant, std::path::Path::new(path))?;
            let label = format!("{} from {path}", list.len());
            Ok((list, label))
        }
    }
}

pub fn run_match(a: &MatchArgs) -> Result<i32> {
    let engines = engine_specs(a)?;
    let tc = time_control(a)?;
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    if a.concurrency == 0 || a.concurrency > 256 {
        bail!(
            "--concurrency must be between 1 and 256, got {}",
            a.concurrency
        );
    }
    if a.max_plies == 0 {
        bail!("--max-plies must be at least 1");
    }
    let move_timeout = seconds("--move-timeout", a.move_timeout)?;
    let draw_rule = a
        .adjudicate_draw
        .as_deref()
        .map(ScoreRule::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--adjudicate-draw {e}"))?;
    let win_rule = a
        .adjudicate_win
        .as_deref()
        .map(ScoreRule::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--adjudicate-win {e}"))?;
    let sprt = a
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--sprt {e}"))?;
    let log: Option<Log> = match &a.log {
        Some(path) => {
            let f = std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(TrafficLog::new(Box::new(std::io::LineWriter::new(f))))
        }
        None => None,
    };
    let (openings, openings_label) = choose_openings(a)?;
    let cfg = MatchConfig {
        variant: a.variant,
        engines,
        games: a.games,
        tc,
        move_timeout,
        margin: Duration::from_millis(a.time_margin),
        concurrency: a.concurrency,
        max_plies: a.max_plies,
        draw_rule,
        win_rule,
        openings,
        openings_label,
        sprt,
        pdn: a.pdn.clone(),
        event: a.event.clone(),
        site: a.site.clone(),
        log,
        progress: if a.quiet {
            ProgressStyle::Quiet
        } else {
            ProgressStyle::detect()
        },
        observer: None,
        abort: None,
    };
    let outcome = run(&cfg)?;
    let text = report(&cfg, &outcome);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .context("writing the report")?;
    Ok(if outcome.failed { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_prefixes() {
        let (w, r) = engine_prefixed("2:threads=2", "--engine-option", true).unwrap();
        assert_eq!((w, r), (vec![1], "threads=2"));
        let (w, _) = engine_prefixed("both:hash=16", "--engine-option", true).unwrap();
        assert_eq!(w, vec![0, 1]);
        assert!(engine_prefixed("both:x", "--name", false).is_err());
        assert!(engine_prefixed("3:x", "--name", false).is_err());
        assert!(engine_prefixed("threads=2", "--engine-option", true).is_err());
    }
}
