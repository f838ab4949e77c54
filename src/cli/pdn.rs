//! `tammi pdn check|convert|fen`: PDN files on the command line.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::rules_tools::{parse_notation, parse_variant};
use crate::notation::{parse_fen, write_fen};
use crate::pdn::{self, Game, ReadOptions, WriteOptions};
use crate::rules::{Notation, Variant};
use crate::with_board;

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

fn check(a: &CheckArgs) -> Result<i32> {
    let games = pdn::read_file(&a.file, &ReadOptions { variant: a.variant })?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let (mut moves, mut errors) = (0, 0);
    for g in &games {
        moves += g.move_count();
        let found = with_board!(g.variant, P => g.check::<P>());
        for e in &found {
            // The MoveError text starts with "game N"; replace it by the fuller description.
            let text = e.to_string();
            let rest = text
                .strip_prefix(&format!("game {}", g.number))
                .unwrap_or(&text);
            writeln!(out, "{}{rest}", describe(g))?;
        }
        errors += found.len();
    }
    writeln!(out, "{} games, {moves} moves, {errors} errors", games.len())?;
    Ok(if errors > 0 { 1 } else { 0 })
}

fn convert(a: &ConvertArgs) -> Result<i32> {
    let games = pdn::read_file(&a.file, &ReadOptions { variant: a.variant })?;
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
    let p = pdn::position_at(&a.file, a.game, a.ply, &ReadOptions { variant: a.variant })?;
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
