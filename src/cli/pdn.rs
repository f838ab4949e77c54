//! `tammi pdn check|convert|fen`: PDN files on the command line.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::rules_tools::{parse_notation, parse_variant};
use tammi::notation::{parse_fen, write_fen};
use tammi::pdn::{self, Game, ReadOptions, WriteOptions};
use tammi::rules::{Notation, Variant};
use tammi::with_board;

#[derive(clap::Args, Debug)]
pub struct PdnArgs {
    #[command(subcommand)]
    pub command: PdnCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum PdnCommand {
    /// Replay every game and variation; list the illegal moves. Exit 0 if none, 1 if some,
    /// 2 if the file is not PDN.
    Check(CheckArgs),
    /// Rewrite the games as strict PDN in numeric or letter–number notation.
    Convert(ConvertArgs),
    /// Print the position (PDN FEN) after a ply of a game.
    Fen(FenArgs),
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The PDN file.
    pub file: PathBuf,
    /// Variant of games without a GameType tag (default: inferred from the file).
    #[arg(long, short, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// Refuse what is read only by its plain meaning (a capture written by start and end
    /// that the moves after it decide, a man on its crowning row read as a king) instead
    /// of warning.
    #[arg(long)]
    pub strict: bool,
}

#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The PDN file.
    pub file: PathBuf,
    /// numeric (`32-28`, `28x19`, routes only when ambiguous) or letter (`c3-d4`, `c3:e5:g7`
    /// with every landing square, one move pair per line); default: the variant's own.
    #[arg(long, value_parser = parse_notation)]
    pub notation: Option<Notation>,
    /// Variant of games without a GameType tag (default: inferred from the file).
    #[arg(long, short, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// Write here instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Refuse what is read only by its plain meaning (a capture written by start and end
    /// that the moves after it decide, a man on its crowning row read as a king) instead
    /// of warning.
    #[arg(long)]
    pub strict: bool,
}

#[derive(clap::Args, Debug)]
pub struct FenArgs {
    /// The PDN file.
    pub file: PathBuf,
    /// Game number, from 1.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// Plies of the main line to play (0: the start position; default: the whole game).
    #[arg(long)]
    pub ply: Option<usize>,
    /// Variant of games without a GameType tag (default: inferred from the file).
    #[arg(long, short, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// Squares of the FEN: numeric (PDN's usual form, the default) or letter.
    #[arg(long, value_parser = parse_notation, default_value = "numeric")]
    pub notation: Notation,
    /// Refuse what is read only by its plain meaning (a capture written by start and end
    /// that the moves after it decide, a man on its crowning row read as a king) instead
    /// of warning.
    #[arg(long)]
    pub strict: bool,
}

pub fn run(a: &PdnArgs) -> Result<i32> {
    match &a.command {
        PdnCommand::Check(c) => check(c),
        PdnCommand::Convert(c) => convert(c),
        PdnCommand::Fen(f) => fen(f),
    }
}

/// `game 3 (White "A", Black "B", Event "E")`: enough to find the game in the file.
fn describe(game: &Game) -> String {
    let names: Vec<String> = ["White", "Black", "Event"]
        .iter()
        .filter_map(|&t| game.tag(t).map(|v| format!("{t} \"{v}\"")))
        .collect();
    if names.is_empty() {
        format!("game {}", game.number)
    } else {
        format!("game {} ({})", game.number, names.join(", "))
    }
}

/// `text` (which starts "game N") with the fuller description of game N.
fn described(g: &Game, text: &str) -> String {
    let rest = text
        .strip_prefix(&format!("game {}", g.number))
        .unwrap_or(text);
    format!("{}{rest}", describe(g))
}

fn check(a: &CheckArgs) -> Result<i32> {
    let games = pdn::read_file(&a.file, &ReadOptions { variant: a.variant })?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let (mut moves, mut errors, mut warnings) = (0, 0, 0);
    for g in &games {
        moves += g.move_count();
        // Under --strict what was read leniently is an error like the others.
        let prefix = if a.strict { "" } else { "warning: " };
        for w in &g.warnings {
            writeln!(out, "{prefix}{}", described(g, &w.to_string()))?;
        }
        let found = with_board!(g.variant, P => g.check::<P>());
        for e in &found {
            writeln!(out, "{}", described(g, &e.to_string()))?;
        }
        errors += found.len();
        if a.strict {
            errors += g.warnings.len();
        } else {
            warnings += g.warnings.len();
        }
    }
    let warned = match warnings {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    writeln!(
        out,
        "{} games, {moves} moves, {errors} errors{warned}",
        games.len()
    )?;
    Ok(if errors > 0 { 1 } else { 0 })
}

/// Warn on standard error about what was read leniently, or refuse it under `--strict`.
fn lenient(games: &[Game], strict: bool) -> Result<()> {
    let all: Vec<String> = games
        .iter()
        .flat_map(|g| g.warnings.iter().map(move |w| described(g, &w.to_string())))
        .collect();
    if strict && let Some(first) = all.first() {
        let more = match all.len() - 1 {
            0 => String::new(),
            n => format!(" (and {n} more; tammi pdn check --strict lists them)"),
        };
        anyhow::bail!("--strict: {first}{more}");
    }
    for w in &all {
        eprintln!("warning: {w}");
    }
    Ok(())
}

fn convert(a: &ConvertArgs) -> Result<i32> {
    let games = pdn::read_file(&a.file, &ReadOptions { variant: a.variant })?;
    lenient(&games, a.strict)?;
    let opts = match a.notation {
        Some(Notation::Letter) => WriteOptions::letter_listing(),
        notation => WriteOptions {
            notation,
            ..WriteOptions::default()
        },
    };
    let text = pdn::write_games(&games, &opts).with_context(|| {
        format!(
            "cannot convert {} (tammi pdn check lists every illegal move)",
            a.file.display()
        )
    })?;
    match &a.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => match std::io::stdout().lock().write_all(text.as_bytes()) {
            // `tammi pdn convert big.pdn | head` is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.context("writing standard output")?,
        },
    }
    Ok(0)
}

fn fen(a: &FenArgs) -> Result<i32> {
    let opts = ReadOptions { variant: a.variant };
    let games = pdn::read_file(&a.file, &opts)?;
    let g = pdn::nth_game(&games, a.game, &a.file)?;
    lenient(std::slice::from_ref(g), a.strict)?;
    let p = pdn::game_position(g, a.ply).with_context(|| a.file.display().to_string())?;
    let fen = match a.notation {
        Notation::Numeric => p.fen,
        Notation::Letter => with_board!(p.variant, P => {
            let pos: P = parse_fen(&p.fen).map_err(|e| anyhow::anyhow!("{e}"))?;
            write_fen(&pos, Notation::Letter)
        }),
    };
    println!("{fen}");
    Ok(0)
}
