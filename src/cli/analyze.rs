//! `tammi analyze` and `tammi bench`: the search on the command line.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use tammi::notation::{format_hub_any, parse_position, write_fen};
use tammi::oracle::tactics;
use tammi::rules::{Notation, Variant};
use tammi::search::bench;
use tammi::search::{Engine, EngineOptions, Info, Limits};
use tammi::settings::{self, Applied, Applies, Settings};
use tammi::with_board;

use super::rules_tools::{parse_notation, parse_variant};

/// Seconds of thinking when no limit is given.
const DEFAULT_ANALYZE_SECONDS: f64 = 5.0;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Variant (see `tammi perft --help`; default international). With --pdn the game's
    /// own variant decides, and a --variant that names another one is an error.
    #[arg(long, short, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// Position as PDN FEN or Hub position string (default: the variant's start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves played from the position, separated by spaces (`"32-28 19-23"`).
    #[arg(long)]
    pub moves: Option<String>,
    /// Search to this depth (plies).
    #[arg(long, short, conflicts_with_all = ["time", "nodes"])]
    pub depth: Option<u32>,
    /// Search this many seconds (default 5 when no limit is given).
    #[arg(long, short, conflicts_with = "nodes")]
    pub time: Option<f64>,
    /// Search this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Report this many best lines (the setting multipv, default 1).
    #[arg(long)]
    pub multipv: Option<usize>,
    /// Search threads (the setting threads, default 1).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hash table size in MB (the setting hash, default 64).
    #[arg(long)]
    pub hash: Option<usize>,
    /// A setting, NAME=VALUE, by the name of the Hub parameter (protocol.md lists them;
    /// the text mode's `settings` too): engine and evaluation settings, such as
    /// threads=2, eval=patterns or weights=FILE. Repeatable; applied after the flags.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Square notation of the output: numeric or letter (default: the variant's usual one).
    #[arg(long, value_parser = parse_notation)]
    pub notation: Option<Notation>,
    /// Endgame database of the position's variant (built by `tammi egdb build`), or a
    /// directory of databases: its file of the position's variant is used.
    #[arg(long, value_name = "FILE")]
    pub egdb: Option<std::path::PathBuf>,
    /// Analyse a position from a game in this PDN file (its GameType decides the variant).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "moves"])]
    pub pdn: Option<String>,
    /// With --pdn: the game, counted from 1.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// With --pdn: the number of plies played (default: the end of the game).
    #[arg(long)]
    pub ply: Option<usize>,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth for every bench position.
    #[arg(long, short, default_value_t = bench::DEFAULT_DEPTH)]
    pub depth: u32,
    /// Threads (the node signature is defined for one thread; more is for timing).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Instead of the bench, count the positions of this tactics file (TSV) solved.
    #[arg(long)]
    pub tactics: Option<String>,
    /// With --tactics: seconds per position (default 1).
    #[arg(long, requires = "tactics")]
    pub time: Option<f64>,
    /// With --tactics: instead of searching, re-prove every position with the exact
    /// prover at the depth its comment claims (`proof dN`); exit status 1 if any fails.
    #[arg(long, requires = "tactics")]
    pub prove: bool,
    /// Only the positions of this variant (the signature is for all of them).
    #[arg(long, value_parser = crate::cli::rules_tools::parse_variant)]
    pub variant: Option<tammi::rules::Variant>,
    /// The evaluation of --variant: patterns or network (english) [default: the
    /// variant's network where it has one, else patterns].
    #[arg(long, requires = "variant")]
    pub eval: Option<tammi::eval::EvalKind>,
}

fn seconds(flag: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s <= 1e6) {
        bail!("--{flag} must be a positive number of seconds, got {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

fn options(
    threads: usize,
    hash: usize,
    multipv: usize,
    notation: Option<Notation>,
) -> Result<EngineOptions> {
    let o = EngineOptions {
        threads,
        hash_mb: hash,
        multipv,
        notation,
        ..EngineOptions::default()
    };
    o.validate().map_err(anyhow::Error::msg)?;
    Ok(o)
}

/// `1234567` -> `1.23M`.
fn human(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2}M", n as f64 / 1e6),
        _ => format!("{:.2}G", n as f64 / 1e9),
    }
}

/// `White` or `Black`, from the FEN's side letter.
fn engine_side(fen: &str) -> &'static str {
    if fen.trim_start().starts_with(['B', 'b']) {
        "Black"
    } else {
        "White"
    }
}

fn info_line(i: &Info, multipv: usize) -> String {
    let line = if multipv > 1 {
        format!("  line {}", i.multipv)
    } else {
        String::new()
    };
    format!(
        "depth {:>2}/{:<2}{line}  score {:<16}  nodes {:>8}  nps {:>7}  time {:>6.2}  pv {}",
        i.depth,
        i.seldepth,
        i.score.to_string(),
        human(i.nodes),
        human(i.nps),
        i.time.as_secs_f64(),
        i.pv.join(" ")
    )
}

pub fn run_analyze(a: &AnalyzeArgs) -> Result<i32> {
    if a.depth.is_some_and(|d| d == 0 || d > 100) {
        bail!(
            "--depth must be between 1 and 100, got {}",
            a.depth.unwrap_or(0)
        );
    }
    if a.nodes == Some(0) {
        bail!("--nodes must be at least 1");
    }
    let limits = match (a.depth, a.time, a.nodes) {
        (Some(d), _, _) => Limits::depth(d),
        (_, _, Some(n)) => Limits::nodes(n),
        (_, t, _) => Limits::move_time(seconds("time", t.unwrap_or(DEFAULT_ANALYZE_SECONDS))?),
    };
    let (variant, fen, moves) = match &a.pdn {
        Some(path) => {
            // The game's own variant decides (its GameType, or what the reader infers);
            // a --variant that disagrees is refused below rather than ignored.
            let options = tammi::pdn::ReadOptions { variant: None };
            let at = tammi::pdn::position_at(std::path::Path::new(path), a.game, a.ply, &options)?;
            if let Some(v) = a.variant
                && v != at.variant
            {
                bail!(
                    "--variant {v}: game {} of {path} is {} (by its GameType tag or its \
                     moves); leave --variant out, or name the game's own variant",
                    a.game,
                    at.variant
                );
            }
            (at.variant, at.start_fen, at.moves)
        }
        None => {
            if a.game != 1 || a.ply.is_some() {
                bail!("--game and --ply go with --pdn FILE");
            }
            let moves = a
                .moves
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect();
            (
                a.variant.unwrap_or(Variant::International),
                a.fen.clone().unwrap_or_else(|| "start".into()),
                moves,
            )
        }
    };
    // A database of another variant would only never be probed, which a person asking
    // for it should hear about; a directory gives its database of the position's variant.
    let egdb = match &a.egdb {
        None => None,
        Some(path) => {
            let Some(file) = tammi::egdb::locate(path, variant)? else {
                bail!(
                    "--egdb {}: the directory holds no {variant} endgame database (tammi egdb \
                     build --variant {variant} --out {})",
                    path.display(),
                    path.join(format!("{variant}.egdb")).display()
                );
            };
            let of = tammi::egdb::Database::open(&file)?.variant();
            if of != variant {
                bail!(
                    "--egdb {}: a {of} endgame database, but the position is {variant}; give a \
                     database of {variant} (tammi egdb build --variant {variant})",
                    file.display()
                );
            }
            Some(file)
        }
    };
    let mut engine = Engine::new(EngineOptions {
        notation: a.notation,
        ..EngineOptions::default()
    })
    .map_err(anyhow::Error::msg)?;
    engine
        .set_position(variant, &fen, &moves)
        .map_err(anyhow::Error::msg)?;
    apply_settings(&mut engine, variant, &settings_given(a, egdb)?)?;
    // The header FEN in the notation of the output, as the moves are.
    let fen = engine.fen();
    let fen = match a.notation {
        Some(n) => with_board!(variant, P => match parse_position::<P>(&fen) {
            Ok(p) => write_fen(&p, n),
            Err(_) => fen,
        }),
        None => fen,
    };
    println!("{variant} {fen}");
    println!(
        "scores: from the view of the side to move ({}), in men; \"database win\" and \
         \"database loss\" are the endgame database's results, \"win in N plies\" a game end",
        engine_side(&fen)
    );
    let multipv = engine.options().multipv;
    let done = engine.think(limits, move |i| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", info_line(&i, multipv));
    });
    match &done.best_text {
        Some(best) => {
            let ponder = done
                .ponder_text
                .as_ref()
                .map_or(String::new(), |p| format!(" ponder {p}"));
            println!("best {best}{ponder}");
        }
        None => println!("best none (the game is over)"),
    }
    Ok(0)
}

/// The settings the flags and `--set` give, in order, as (flag, name, value); the flags
/// are the settings' shorthands.
fn settings_given(
    a: &AnalyzeArgs,
    egdb: Option<std::path::PathBuf>,
) -> Result<Vec<(String, String, String)>> {
    let mut given = Vec::new();
    let mut flag = |flag: &str, name: &str, value: Option<String>| {
        if let Some(v) = value {
            given.push((format!("--{flag} {v}"), name.to_string(), v));
        }
    };
    flag("threads", "threads", a.threads.map(|n| n.to_string()));
    flag("hash", "hash", a.hash.map(|n| n.to_string()));
    flag("multipv", "multipv", a.multipv.map(|n| n.to_string()));
    flag("egdb", "egdb", egdb.map(|p| p.display().to_string()));
    for s in &a.set {
        let Some((name, value)) = s.split_once('=') else {
            bail!("--set {s}: expected NAME=VALUE, such as --set threads=2");
        };
        given.push((
            format!("--set {s}"),
            name.trim().to_string(),
            value.to_string(),
        ));
    }
    Ok(given)
}

/// Apply `given` (see [`settings_given`]) to `engine`, set to a position of `variant`:
/// each checked against the table of settings. The book's and the Hub's own settings do
/// not apply to an analysis, and the variant is the position's: each is refused, saying so.
fn apply_settings(
    engine: &mut Engine,
    variant: Variant,
    given: &[(String, String, String)],
) -> Result<()> {
    let mut s = Settings::default();
    for (flag, name, value) in given {
        let p = settings::find(name).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        match p.applies {
            Applies::Game => bail!("{flag}: the variant is the position's (--variant, --pdn)"),
            Applies::Book => {
                bail!("{flag}: {name} does not apply to an analysis, which searches every move")
            }
            Applies::Protocol => {
                bail!("{flag}: {name} is a Hub parameter (how tammi talks to a GUI)")
            }
            Applies::Engine | Applies::Eval => {}
        }
        let applied = s
            .apply(engine, variant, name, value)
            .map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        if let Applied::Options(o) = applied {
            engine
                .set_options(o)
                .map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        }
    }
    Ok(())
}

pub fn run_bench(a: &BenchArgs) -> Result<i32> {
    if a.depth == 0 || a.depth > 64 {
        bail!("--depth must be between 1 and 64, got {}", a.depth);
    }
    if let Some(file) = &a.tactics {
        if a.prove {
            return run_prove(file);
        }
        return run_tactics(file, seconds("time", a.time.unwrap_or(1.0))?, a.threads);
    }
    options(a.threads, 16, 1, None)?;
    let mut eval = tammi::eval::EvalSettings::default();
    if let (Some(v), Some(kind)) = (a.variant, a.eval) {
        eval.select(v, kind).map_err(anyhow::Error::msg)?;
    }
    let t = Instant::now();
    let lines = bench::run_positions(a.depth, a.threads, a.variant, &eval, |l| {
        println!(
            "{:<13} {:>10} nodes {:>7.3} s  best {:<8} {}",
            l.variant.name(),
            l.nodes,
            l.time.as_secs_f64(),
            l.best.as_deref().unwrap_or("-"),
            l.fen
        );
    });
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "nodes={nodes} nps={}",
        (nodes as f64 / secs.max(1e-9)) as u64
    );
    Ok(0)
}

fn run_tactics(file: &str, per_position: Duration, threads: usize) -> Result<i32> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let list = tactics::parse(&text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    let mut engine = Engine::new(options(threads, 64, 1, None)?).map_err(anyhow::Error::msg)?;
    let mut solved = 0;
    for t in &list {
        let (best, ok) = tactics::solve(&mut engine, t, Limits::move_time(per_position))
            .map_err(|e| anyhow::anyhow!("{file} line {}: {e}", t.line))?;
        solved += ok as usize;
        println!(
            "{} line {:>3} {:<13} played {:<12} expected {:<16} {}",
            if ok { "ok  " } else { "MISS" },
            t.line,
            t.variant.name(),
            best.map_or("-".into(), |m| format_hub_any(t.variant, &m)),
            t.solutions.join(" "),
            t.comment
        );
    }
    println!("solved {solved} of {}", list.len());
    Ok(0)
}

/// `tammi bench --tactics FILE --prove`: every position re-proved by the exact prover.
fn run_prove(file: &str) -> Result<i32> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let list = tactics::parse(&text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    let t0 = Instant::now();
    let mut proved = 0;
    for t in &list {
        let started = Instant::now();
        let head = |verdict: &str| format!("{verdict} line {:>3} {:<13}", t.line, t.variant.name());
        match tactics::prove(t) {
            Err(e) => println!("{} {e}", head("NOT PROVED")),
            Ok(p) => {
                proved += p.proved as usize;
                let others = match &p.best_other {
                    None => "no other move".to_string(),
                    Some((m, v)) if p.refuting.is_empty() => {
                        format!("every other move {v} (loosest: {m})")
                    }
                    Some(_) => {
                        let r: Vec<String> =
                            p.refuting.iter().map(|(m, v)| format!("{m} {v}")).collect();
                        format!("others gain: {}", r.join(", "))
                    }
                };
                println!(
                    "{} d{:<2} key {} {}; {}; {} legal moves; {} nodes {:.2} s",
                    head(if p.proved { "proved    " } else { "NOT PROVED" }),
                    p.depth,
                    p.key,
                    p.key_value,
                    others,
                    p.legal,
                    p.nodes,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    println!(
        "proved {proved} of {} in {:.1} s",
        list.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(if proved == list.len() { 0 } else { 1 })
}
