//! `tammi book`: build opening books and look into them.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};

use tammi::book::build::{BuildOptions, MAX_POSITIONS, build};
use tammi::book::{Book, BookPlayer, builtin, candidates, decode_score};
use tammi::matches::openings;
use tammi::rules::Variant;
use tammi::search::engine::Engine;
use tammi::search::limits::EngineOptions;

#[derive(clap::Args, Debug)]
#[command(after_help = "\
A book maps positions to their book moves, each with the minimaxed score of the book
below it (men, side to move's view) and the number of book positions under it. `build`
grows one by drop-out expansion (tuning/README.md: the method and the commands that built
the shipped books); `info` tells its size and depth; `show` lists the book moves of a
position (an opening explorer); `probe` says what tammi would play there. Without
--book, the built-in book of the variant is used (international, english, russian,
brazilian and frisian have one). The engine plays from the book in the Hub (parameters
book, book-file, book-ply, book-margin, book-seed; protocol.md), the text mode and DXP.")]
pub struct BookArgs {
    #[command(subcommand)]
    pub command: BookCommand,
}

#[derive(clap::Args, Debug)]
pub struct Where {
    /// The variant.
    #[arg(long, short, default_value = "international", value_parser = crate::cli::rules_tools::parse_variant)]
    variant: Variant,
    /// A book file (default: the variant's built-in book).
    #[arg(long)]
    book: Option<PathBuf>,
    /// The position: a PDN FEN, a Hub position string or `start`.
    #[arg(long, default_value = "start")]
    position: String,
    /// Moves played from the position, separated by blanks (any notation tammi reads).
    #[arg(long, default_value = "")]
    moves: String,
}

#[derive(clap::Subcommand, Debug)]
pub enum BookCommand {
    /// Grow a book by drop-out expansion and write it (resumable: rerun the same command).
    Build {
        /// The variant.
        #[arg(long, short, default_value = "international", value_parser = crate::cli::rules_tools::parse_variant)]
        variant: Variant,
        /// Output file. Checked before any search (its directory must exist and be
        /// writable; an existing file is only continued, from its build state OUT.state).
        /// OUT and OUT.state are written every --checkpoint seconds and at the end.
        #[arg(long)]
        out: PathBuf,
        /// The roots, separated by commas: `start` (the start position), `ballots`
        /// (english: the 156 three-move ballots), or a file of openings, one a line (a
        /// position, moves from it, or both; the format of `tammi match --openings`).
        #[arg(long, default_value = "start")]
        from: String,
        /// Book positions (expanded positions) to reach; a rerun with a larger number
        /// grows the book further.
        #[arg(long, default_value_t = 2000)]
        positions: usize,
        /// Nodes per leaf search (one thread, so that the same command gives the same book).
        #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
        nodes: u64,
        /// Drop-out weight: centi-men of error that count as one ply of depth (small:
        /// deep and narrow; large: broad).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        dropout: u32,
        /// Hash table of the leaf searches, MB (cleared before each).
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
        hash: u64,
        /// An endgame database (file or directory) for the leaf searches.
        #[arg(long)]
        egdb: Option<PathBuf>,
        /// Seconds between writes of the book and its state.
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        checkpoint: u64,
    },
    /// Size and depth of a book.
    Info {
        /// The variant (for the built-in book, or to check the file's).
        #[arg(long, short, value_parser = crate::cli::rules_tools::parse_variant)]
        variant: Option<Variant>,
        /// A book file (default: the variant's built-in book).
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// The book moves of a position with their scores and counts.
    Show {
        #[command(flatten)]
        at: Where,
        /// Mark the moves within this many centi-men of the best (the ones tammi chooses from).
        #[arg(long, default_value_t = BookPlayer::DEFAULT_MARGIN, value_parser = clap::value_parser!(u32).range(0..=10_000))]
        margin: u32,
    },
    /// The move tammi would play from the book in a position.
    Probe {
        #[command(flatten)]
        at: Where,
        /// Centi-men below the best a move may be and still be chosen.
        #[arg(long, default_value_t = BookPlayer::DEFAULT_MARGIN, value_parser = clap::value_parser!(u32).range(0..=10_000))]
        margin: u32,
        /// Seed of the random choice among the moves within the margin (0: from the clock).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(a: &BookArgs) -> Result<i32> {
    match &a.command {
        BookCommand::Build {
            variant,
            out,
            from,
            positions,
            nodes,
            dropout,
            hash,
            egdb,
            checkpoint,
        } => {
            if *positions == 0 || *positions > MAX_POSITIONS {
                bail!("--positions must be from 1 to {MAX_POSITIONS}, got {positions}");
            }
            let mut roots: Vec<(String, Vec<String>)> = Vec::new();
            for part in from.split(',').map(str::trim) {
                match part {
                    "start" => roots.push(("start".into(), Vec::new())),
                    "ballots" => {
                        if *variant != Variant::English {
                            bail!("--from ballots: the ballots are english openings");
                        }
                        roots.extend(
                            openings::english_ballots()
                                .into_iter()
                                .map(|o| (o.start, o.moves)),
                        );
                    }
                    path => roots.extend(
                        openings::load(*variant, std::path::Path::new(path))?
                            .into_iter()
                            .map(|o| (o.start, o.moves)),
                    ),
                }
            }
            let o = BuildOptions {
                variant: *variant,
                roots,
                roots_label: from.clone(),
                positions: *positions,
                nodes: *nodes,
                dropout: *dropout,
                hash_mb: *hash as usize,
                egdb: egdb.clone(),
                checkpoint: Duration::from_secs(*checkpoint),
            };
            eprintln!(
                "building {} book {} from {from}: {positions} positions, {nodes} nodes a leaf, dropout {dropout}, 1 thread",
                variant.hub_name(),
                out.display()
            );
            let mut last = std::time::Instant::now();
            let outcome = build(&o, out, |p| {
                if p.written || last.elapsed() >= Duration::from_secs(10) {
                    last = std::time::Instant::now();
                    let eta = p
                        .eta()
                        .map_or("?".into(), |d| format!("{:.0} s", d.as_secs_f64()));
                    eprintln!(
                        "{}/{} positions, {} searched, {:.0} s so far, about {eta} to go{}",
                        p.expanded,
                        p.target,
                        p.searches,
                        p.elapsed.as_secs_f64(),
                        if p.written { " (written)" } else { "" }
                    );
                }
            })
            .map_err(|e| anyhow!(e))?;
            println!(
                "{}: {} book positions ({} expanded, {} leaf searches) in {:.0} s of building{}",
                out.display(),
                outcome.book_positions,
                outcome.expanded,
                outcome.searches,
                outcome.elapsed.as_secs_f64(),
                if outcome.exhausted {
                    "; nothing left to expand"
                } else {
                    ""
                }
            );
            Ok(0)
        }
        BookCommand::Info { variant, book } => {
            let b = load(*variant, book.as_ref())?;
            let s = b.summary();
            println!("variant {}", b.variant.hub_name());
            println!("positions {}", s.positions);
            println!("moves {}", s.moves);
            println!("depth {} plies from the roots", s.max_ply);
            let plies: Vec<String> = s
                .by_ply
                .iter()
                .enumerate()
                .map(|(p, n)| format!("{p}:{n}"))
                .collect();
            println!("positions by ply {}", plies.join(" "));
            Ok(0)
        }
        BookCommand::Show { at, margin } => {
            let (b, engine) = locate(at)?;
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            writeln!(out, "position {}", engine.fen())?;
            let Some(e) = b.probe_engine(&engine) else {
                writeln!(out, "not in the book")?;
                return Ok(1);
            };
            let inside = candidates(&e, *margin).len();
            writeln!(
                out,
                "{} book moves, ply {} from the roots; * = within {margin} of the best",
                e.moves.len(),
                e.ply
            )?;
            for (i, m) in e.moves.iter().enumerate() {
                writeln!(
                    out,
                    "{} {:<12} {:>8}  {} positions below",
                    if i < inside { '*' } else { ' ' },
                    m.mv,
                    decode_score(m.score as i32).to_string(),
                    m.count
                )?;
            }
            Ok(0)
        }
        BookCommand::Probe { at, margin, seed } => {
            let (b, engine) = locate(at)?;
            let mut player = BookPlayer::new(*seed);
            player.margin = *margin;
            player.max_ply = BookPlayer::MAX_PLY;
            player.file = Some((String::new(), std::sync::Arc::new(b)));
            match player.pick(&engine, 0) {
                Some(p) => {
                    println!(
                        "{} {} (chosen from {} of {} book moves)",
                        p.mv, p.score, p.choices, p.book_moves
                    );
                    Ok(0)
                }
                None => {
                    println!("not in the book");
                    Ok(1)
                }
            }
        }
    }
}

fn load(variant: Option<Variant>, path: Option<&PathBuf>) -> Result<Book> {
    match path {
        Some(p) => Book::read_file(p, variant).map_err(|e| anyhow!(e)),
        None => {
            let v = variant.unwrap_or(Variant::International);
            builtin(v)
                .cloned()
                .ok_or_else(|| anyhow!("{} has no built-in book", v.hub_name()))
        }
    }
}

fn locate(at: &Where) -> Result<(Book, Engine)> {
    let b = load(Some(at.variant), at.book.as_ref())?;
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 1,
        ..EngineOptions::default()
    })
    .map_err(|e| anyhow!(e))?;
    let moves: Vec<String> = at.moves.split_whitespace().map(str::to_string).collect();
    engine
        .set_position(at.variant, &at.position, &moves)
        .map_err(|e| anyhow!(e))?;
    Ok((b, engine))
}
