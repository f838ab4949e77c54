//! `tammi perft` and `tammi moves`: the rules core on the command line.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use tammi::gui::json::string as json_string;
use tammi::hub::input::{InputEvent, spawn_reader};
use tammi::notation::{echo, format_move, parse_position, square_name};
use tammi::perft::{divide_variant, perft_variant};
use tammi::rules::{Bits, Board, Notation, Variant};
use tammi::with_board;

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Variant: english (american, checkers), international (normal), russian, brazilian,
    /// canadian, turkish, killer, breakthrough (bt), losing (antidraughts), italian, pool,
    /// czech, spanish, thai (makhos), frisian, frysk (frysk!).
    #[arg(long, short, default_value = "international", value_parser = parse_variant)]
    pub variant: Variant,
    /// Start position as PDN FEN or Hub position string (default: the variant's start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Count to this depth, printing one line per depth from 1.
    #[arg(long, short)]
    pub depth: u32,
    /// Print the count below each root move at the final depth.
    #[arg(long)]
    pub divide: bool,
    /// Worker threads (the positions two plies down are shared out).
    #[arg(long, short, default_value_t = 1)]
    pub threads: usize,
    /// Make every leaf move instead of counting the last ply from the move generator.
    #[arg(long)]
    pub no_bulk: bool,
}

#[derive(clap::Args, Debug)]
pub struct MovesArgs {
    /// Variant (see `tammi perft --help`).
    #[arg(long, short, default_value = "international", value_parser = parse_variant)]
    pub variant: Variant,
    /// Position as PDN FEN or Hub position string; without it, one position per line is read
    /// from standard input and answered with one line each.
    #[arg(long)]
    pub fen: Option<String>,
    /// Square notation: numeric or letter (default: the variant's usual one).
    #[arg(long, value_parser = parse_notation)]
    pub notation: Option<Notation>,
    /// One JSON object per position: {"fen", "moves": [{"move","from","to","captured","route"}]}.
    #[arg(long)]
    pub json: bool,
}

pub fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse()
}

pub fn parse_notation(s: &str) -> Result<Notation, String> {
    s.parse()
}

pub fn run_perft(a: &PerftArgs) -> Result<i32> {
    if a.depth == 0 || a.depth > 40 {
        bail!("--depth must be between 1 and 40, got {}", a.depth);
    }
    if a.threads == 0 || a.threads > 256 {
        bail!("--threads must be between 1 and 256, got {}", a.threads);
    }
    let fen = a.fen.as_deref();
    // The position is checked once, before the first depth.
    perft_variant(a.variant, fen, 1, true, 1)
        .with_context(|| format!("invalid position '{}'", echo(fen.unwrap_or(""))))?;
    let bulk = !a.no_bulk;
    let out = std::io::stdout();
    for depth in 1..=a.depth {
        let t = Instant::now();
        let nodes = if a.divide && depth == a.depth {
            let mut total = 0;
            for (name, n) in divide_variant(a.variant, fen, depth, bulk, a.threads)? {
                writeln!(out.lock(), "{name} {n}")?;
                total += n;
            }
            total
        } else {
            perft_variant(a.variant, fen, depth, bulk, a.threads)?
        };
        let secs = t.elapsed().as_secs_f64();
        let mnps = nodes as f64 / secs.max(1e-9) / 1e6;
        writeln!(
            out.lock(),
            "depth={depth} nodes={nodes} time={secs:.3} mnps={mnps:.1}"
        )?;
    }
    Ok(0)
}

pub fn run_moves(a: &MovesArgs) -> Result<i32> {
    with_board!(a.variant, P => moves_cmd::<P>(a))
}

fn moves_cmd<P: Board>(a: &MovesArgs) -> Result<i32> {
    let notation = a.notation.unwrap_or(P::VARIANT.default_notation());
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    if let Some(f) = &a.fen {
        let pos: P =
            parse_position(f).with_context(|| format!("invalid position '{}'", echo(f)))?;
        writeln!(out, "{}", describe_moves(&pos, f, notation, a.json))?;
        return Ok(0);
    }
    let mut failed = false;
    // Line by line, each answered at once (a tool may keep tammi as a coprocess); bytes
    // that are not UTF-8 are read as U+FFFD (the position is then refused, the next line
    // still read), and a line over 8 MB is refused without being held in memory.
    const MAX_LINE: usize = 1 << 23;
    let lines = spawn_reader(std::io::BufReader::new(std::io::stdin()), MAX_LINE);
    for event in lines {
        let line = match event {
            InputEvent::Eof => break,
            InputEvent::Line(line, _) => line,
            InputEvent::TooLong(max) => {
                failed = true;
                let e = format!("a line longer than {max} bytes, skipped");
                if a.json {
                    writeln!(out, "{{\"fen\":null,\"error\":{}}}", json_string(&e))?;
                } else {
                    writeln!(out, "error: {e}")?;
                }
                out.flush()?;
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse_position::<P>(&line) {
            Ok(pos) => writeln!(out, "{}", describe_moves(&pos, &line, notation, a.json))?,
            Err(e) => {
                failed = true;
                if a.json {
                    writeln!(
                        out,
                        "{{\"fen\":{},\"error\":{}}}",
                        json_string(&line),
                        json_string(&e.to_string())
                    )?;
                } else {
                    writeln!(out, "error: invalid position '{}': {e}", echo(line.trim()))?;
                }
            }
        }
        out.flush()?;
    }
    out.flush()?;
    Ok(if failed { 2 } else { 0 })
}

/// One line: the legal moves, as text or as a JSON object.
fn describe_moves<P: Board>(pos: &P, fen: &str, notation: Notation, json: bool) -> String {
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let names: Vec<String> = legal
        .iter()
        .map(|m| format_move(pos, m, &legal, notation))
        .collect();
    if !json {
        return names.join(" ");
    }
    let sq = |b: u32| {
        let name = square_name::<P>(b, notation);
        match notation {
            Notation::Numeric => name,
            Notation::Letter => json_string(&name),
        }
    };
    let items: Vec<String> = legal
        .iter()
        .zip(&names)
        .map(|(m, name)| {
            let mut caps: Vec<u32> = m.captured.squares().collect();
            caps.sort_by_key(|&b| P::square_of_bit(b));
            let caps: Vec<String> = caps.into_iter().map(sq).collect();
            let route = pos.routes(m).into_iter().next().unwrap_or_default();
            let route: Vec<String> = route.into_iter().map(sq).collect();
            format!(
                "{{\"move\":{},\"from\":{},\"to\":{},\"captured\":[{}],\"route\":[{}]}}",
                json_string(name),
                sq(m.from as u32),
                sq(m.to as u32),
                caps.join(","),
                route.join(",")
            )
        })
        .collect();
    format!(
        "{{\"fen\":{},\"moves\":[{}]}}",
        json_string(fen.trim()),
        items.join(",")
    )
}
