//! `tammi tchuka`: Tchuka Ruma on the command line, solved by [`tammi::tchuka`]. The
//! exit status says the answer: 0 winnable (or the table done), 1 not winnable, 3 gave
//! up; bad input is an error (2).

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};

use tammi::tchuka::{Bounds, GaveUp, Goal, Landing, MAX_HOLES, parse_row, solve_within, table};

/// What a shortest winning line minimises (`--goal`; [`Goal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GoalArg {
    /// Number of holes the player chooses; ties are broken by fewest sowings.
    Choices,
    /// Number of sowings (every pickup, forced ones included); ties are
    /// broken by fewest choices.
    Sowings,
}

impl From<GoalArg> for Goal {
    fn from(g: GoalArg) -> Goal {
        match g {
            GoalArg::Choices => Goal::Choices,
            GoalArg::Sowings => Goal::Sowings,
        }
    }
}

/// Solve a Tchuka Ruma start, or tabulate which starts can be won.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  tammi tchuka 2 2 2 2          # classic start, prints a shortest win\n  tammi tchuka 2 2 2 2 0        # the same, ruma written out\n  tammi tchuka 2 2 0 '|' 0      # last hole empty: write the ruma after '|'\n  tammi tchuka --goal sowings 6 6 6 6\n  tammi tchuka --table 8 12 --time-limit 60\n  tammi tchuka 30 30 30 --time-limit 10 --memory 512\n\nExit status: 0 winnable (or table done), 1 not winnable, 2 bad input, 3 gave up (--time-limit\nor --memory reached before the answer)."
)]
pub struct TchukaArgs {
    /// Seeds in each hole, left to right, optionally followed by the ruma.
    ///
    /// If the last value is 0 it is taken as the (empty) ruma, so
    /// `2 2 2 2` and `2 2 2 2 0` are the same start with four holes. A row
    /// that really ends in an empty hole therefore needs its ruma written
    /// out: `2 2 0 0`, or explicitly after a `|` (quoted in the shell):
    /// `2 2 0 '|' 0`. Only after `|` may the ruma already hold seeds; a
    /// trailing non-zero value is always a hole. At most 32 holes.
    #[arg(
        value_name = "SEEDS",
        required_unless_present = "table",
        conflicts_with = "table",
        allow_negative_numbers = true
    )]
    pub row: Vec<String>,

    /// What "shortest" counts: holes chosen, or every sowing (a chosen
    /// sowing plus the forced pickups that continue it).
    #[arg(long, value_enum, default_value_t = GoalArg::Choices)]
    pub goal: GoalArg,

    /// Print which rows of 1..=HOLES holes with 1..=SEEDS seeds in every hole
    /// can be won, computed in parallel.
    #[arg(
        long,
        num_args = 2,
        value_names = ["HOLES", "SEEDS"],
        conflicts_with = "goal",
        allow_negative_numbers = true
    )]
    pub table: Option<Vec<u64>>,

    /// Stop after this many seconds: with --table, mark the unfinished cells `?`; for a
    /// single row, give up with exit status 3.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,

    /// For a single row: give up with exit status 3 once the solver's tables would
    /// exceed this many megabytes (large rows have astronomically many positions).
    #[arg(
        long,
        value_name = "MB",
        default_value_t = 1024,
        conflicts_with = "table",
        value_parser = clap::value_parser!(u64).range(1..=1 << 30)
    )]
    pub memory: u64,
}

/// Runs `tammi tchuka`; returns the exit status (0 winnable or table done,
/// 1 not winnable, 3 gave up). Bad input is an `Err`.
pub fn run(args: &TchukaArgs) -> Result<i32> {
    let limit = time_limit(args.time_limit)?;
    match &args.table {
        Some(dims) => run_table(dims, limit),
        None => run_solve(&args.row, args.goal.into(), limit, args.memory),
    }
}

/// `--time-limit` as a duration; the error says what was expected.
fn time_limit(seconds: Option<f64>) -> Result<Option<Duration>> {
    match seconds {
        Some(t) if t.is_finite() && t > 0.0 => Ok(Some(Duration::from_secs_f64(t.min(1e9)))),
        Some(t) => bail!("--time-limit must be a positive number of seconds (got {t})"),
        None => Ok(None),
    }
}

fn run_solve(
    values: &[String],
    goal: Goal,
    limit: Option<Duration>,
    memory_mb: u64,
) -> Result<i32> {
    let row = parse_row(values)?;
    let started = Instant::now();
    let bounds = Bounds {
        deadline: limit.map(|l| started + l),
        memory: Some(usize::try_from(memory_mb << 20).unwrap_or(usize::MAX)),
    };
    let total = row.holes.iter().map(|&s| s as u64).sum::<u64>() + row.ruma as u64;
    let show = |holes: &[u32]| {
        let in_holes: u64 = holes.iter().map(|&s| s as u64).sum();
        format_row(holes, total - in_holes)
    };
    let start = show(&row.holes);
    let solution = match solve_within(&row.holes, goal, bounds) {
        Ok(Some(solution)) => solution,
        Ok(None) => {
            println!("{start}: not winnable");
            return Ok(1);
        }
        Err(why) => {
            let elapsed = started.elapsed().as_secs_f64();
            match why {
                GaveUp::Time => {
                    eprintln!("{start}: gave up after {elapsed:.1} s (--time-limit): no answer yet")
                }
                GaveUp::Memory { positions } => eprintln!(
                    "{start}: gave up after {elapsed:.1} s: {positions} positions fill the \
                     memory bound of {memory_mb} MB (--memory) with no answer yet"
                ),
            }
            return Ok(3);
        }
    };
    let goal_name = match goal {
        Goal::Choices => "choices",
        Goal::Sowings => "sowings",
    };
    let mut out = format!(
        "{start}: winnable in {} choices ({} sowings), shortest by {goal_name}\n",
        solution.num_choices(),
        solution.num_sowings()
    );
    for (i, choice) in solution.choices.iter().enumerate() {
        let _ = writeln!(
            out,
            "choice {}: hole {} -> {}",
            i + 1,
            choice.hole + 1,
            show(choice.row())
        );
        for (j, s) in choice.sowings.iter().enumerate() {
            let landing = match s.landing {
                Landing::Ruma => "the ruma".to_string(),
                Landing::Hole(h) => format!("hole {}", h + 1),
            };
            let _ = writeln!(
                out,
                "  sowing {}: hole {}, {} seed{} -> {}, lands in {landing}",
                j + 1,
                s.hole + 1,
                s.seeds,
                if s.seeds == 1 { "" } else { "s" },
                show(&s.row)
            );
        }
    }
    print!("{out}");
    Ok(0)
}

fn format_row(holes: &[u32], ruma: u64) -> String {
    let mut s = String::new();
    for h in holes {
        let _ = write!(s, "{h} ");
    }
    let _ = write!(s, "| {ruma}");
    s
}

fn run_table(dims: &[u64], limit: Option<Duration>) -> Result<i32> {
    let [holes, seeds] = dims else {
        bail!("--table takes two values, HOLES and SEEDS");
    };
    if !(1..=MAX_HOLES as u64).contains(holes) {
        bail!("--table: HOLES must be 1 to {MAX_HOLES} (got {holes})");
    }
    let max_seeds = u32::MAX as u64 / *holes;
    if !(1..=max_seeds).contains(seeds) {
        bail!("--table: SEEDS must be 1 to {max_seeds} for {holes} holes (got {seeds})");
    }
    let (holes, seeds) = (*holes as usize, *seeds as u32);
    let started = Instant::now();
    let deadline = limit.map(|l| started + l);
    let tty = std::io::stderr().is_terminal();
    let last_shown = Mutex::new(None::<Instant>);
    let grid = table(holes, seeds, deadline, |done, total| {
        if !tty {
            return;
        }
        // A few updates a second are plenty; the final count always shows.
        let mut last = last_shown.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if done == total || last.is_none_or(|t| now - t >= Duration::from_millis(200)) {
            *last = Some(now);
            eprint!("\rcomputed {done}/{total} cells");
            let _ = std::io::stderr().flush();
        }
    });
    if tty {
        eprint!("\r\x1b[K");
    }
    let elapsed = started.elapsed();
    let width = seeds.to_string().len().max(2);
    let mut out = String::new();
    out.push_str("Tchuka Ruma: can a row of HOLES holes with SEEDS seeds in each be won?\n");
    out.push_str("W = winnable, . = not winnable, ? = not computed (time limit)\n");
    let _ = write!(out, "holes\\seeds");
    for s in 1..=seeds {
        let _ = write!(out, " {s:>width$}");
    }
    out.push('\n');
    let (mut done, mut won) = (0, 0);
    for (h, cells) in grid.iter().enumerate() {
        let _ = write!(out, "{:>11}", h + 1);
        for cell in cells {
            let mark = match cell {
                Some(true) => "W",
                Some(false) => ".",
                None => "?",
            };
            done += cell.is_some() as usize;
            won += (*cell == Some(true)) as usize;
            let _ = write!(out, " {mark:>width$}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{done}/{} cells computed, {won} winnable; elapsed {:.3} s",
        holes * seeds as usize,
        elapsed.as_secs_f64()
    );
    print!("{out}");
    Ok(0)
}
