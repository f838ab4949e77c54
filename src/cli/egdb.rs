//! `tammi egdb`: build and query endgame databases of any variant that has them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use tammi::egdb::distance::{FAR, distance_path};
use tammi::egdb::resume::{BuildOptions, Built, partial_path};
use tammi::egdb::review::{Outcome, review};
use tammi::egdb::{Database, Wld, check_request};
use tammi::notation::parse_position;
use tammi::rules::{Board, Color, Variant};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
The database holds the exact result (win, loss or draw for the side to move) of every
position of --variant (english by default; every variant but frisian, frysk, canadian,
losing and breakthrough) with 2 to --pieces pieces (at most 7). For english on a 2-core
machine 4 pieces take 0.2 MB and seconds to build, 5 pieces 1.9 MB and a few minutes, 6
pieces 50 MB and about 28 minutes (1.1 GB of memory while building); russian and
brazilian 6 pieces 68 MB each and about 45 minutes of CPU; international 5 pieces about
70 MB and 20 minutes (1.2 GB), 6 pieces 1.05 GB and several hours of resumed runs (14.2 GB
of memory); english 7 pieces need at least 12.6 GB. Every build first says what it will
take. Give the file to the engine with
`tammi analyze --egdb FILE` or the Hub option `egdb` (`tammi match --engine-option
1:egdb=FILE`); the search then scores such positions exactly. `tammi egdb verify` checks
random positions of a file against their successors (a sound file has none wrong).

`tammi egdb distance --db FILE` adds the distance to conversion (plies to the next
capture or man move, best play; see `tammi egdb distance --help`) as FILE.dtc beside the
database: the engine, `probe` and `info` read FILE.dtc whenever it is there, and with the
root position won (lost) in the database the engine plays the move that converts soonest
(holds out longest), so that a won ending is won within the draw rules (english 6
pieces: 57 MB and 47 minutes on one thread, 2.2 GB of memory). `tammi egdb games --db FILE
GAMES.pdn` then shows, game by game, any move that let a database win go or lost a
database draw.")]
pub struct EgdbArgs {
    #[command(subcommand)]
    pub command: EgdbCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum EgdbCommand {
    /// Build a database by retrograde analysis and write it to a file.
    Build {
        /// The variant (english, italian, russian, brazilian, international, turkish, ...).
        #[arg(long, short, default_value = "english", value_parser = crate::cli::rules_tools::parse_variant)]
        variant: Variant,
        /// Largest number of pieces (2 to 7; what each takes: `tammi egdb --help`). The build first
        /// says how many positions and how much memory it needs.
        #[arg(long, default_value_t = 4)]
        pieces: usize,
        /// Output file. Checked before the build starts (its directory must exist and be
        /// writable); written as OUT.part, a slice at a time, and renamed to OUT when
        /// complete. A rerun after an interruption goes on from the slices in OUT.part.
        /// The slices that those still to build need in full are kept beside it as
        /// OUT.part.full-NAME while they are needed (up to --memory on disk), so that a
        /// rerun reads them back rather than making them again; removed at the end.
        #[arg(long)]
        out: PathBuf,
        /// Memory the build may use, in MB: a slice that would need more is refused
        /// before it starts, with what it needs (english 6 pieces needs about 1100).
        #[arg(long, default_value_t = 4000, value_parser = clap::value_parser!(u64).range(16..))]
        memory: u64,
        /// Threads (all cores by default).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
        threads: Option<u64>,
        /// Stop after this many slices (to test resumption).
        #[arg(long, hide = true)]
        max_slices: Option<usize>,
    },
    /// Compute the distance to conversion of a database's won and lost positions and
    /// write it beside the database as FILE.dtc.
    ///
    /// The distance of a won position is the fewest plies in which its side can play a
    /// conversion (a capture or a man's move) that keeps the win, against the longest
    /// defence; of a lost one, the most plies it can hold out. A separate command, not a
    /// flag of `build`: it reads a finished database (any, including those built before
    /// distances existed), each slice's distances depend only on the win/loss/draw values,
    /// and the build's resumable file stays as it is. Each slice is written as it is
    /// finished, to FILE.dtc.part: a run cut short goes on from there when run again with
    /// the same flags.
    Distance {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
        /// Output file: FILE.dtc by default, the name the engine looks for (another name
        /// is not found by it).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Largest number of pieces with distances (the database's by default).
        #[arg(long)]
        pieces: Option<usize>,
        /// Threads (all cores by default).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
        threads: Option<u64>,
    },
    /// Print the database's value of a position (a FEN or Hub position of its variant),
    /// and its distance to conversion when FILE.dtc is beside the database.
    Probe {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
        /// The position, of the database's variant: a PDN FEN (`W:WK18,K19:BK1`) or a
        /// Hub position string.
        #[arg(long)]
        fen: String,
    },
    /// Check random positions of a database against their successors' values (and
    /// distances, when FILE.dtc is beside it).
    Verify {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
        /// Positions to check.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        samples: u64,
        /// Seed of the random choice (the same seed checks the same positions).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Measure probes a second: random positions each probed once (their blocks mostly
    /// read and decoded), then 256 of them probed over and over (their blocks cached, as
    /// for the search's probes of nearby positions).
    Bench {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
        /// Probes of each kind.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        probes: u64,
        /// Seed of the random positions.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Judge the games of a PDN file (a match's `--pdn`, say) by the database: every move
    /// that let a database win go or lost a database draw, and the games that ended in a
    /// database win not won (drawn by a move-count rule, say), with a tally per player.
    /// With the distances beside the database (FILE.dtc), a win the game ended before its
    /// conversion could be forced (fewer plies left than its distance, as when the loser
    /// walks into it on the ply before a move-count rule draws) is counted apart.
    ///
    /// Only games of the database's variant are judged, from their first position with at
    /// most the database's pieces. Exit status 0 whatever the games show; 1 if a game
    /// could not be replayed.
    Games {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
        /// The PDN file of the games.
        pdn: PathBuf,
        /// Print only the tally, not each game's slips.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a database's header: variant, pieces, slices and sizes.
    Info {
        /// Database file written by `tammi egdb build`.
        #[arg(long)]
        db: PathBuf,
    },
}

pub fn run(args: &EgdbArgs) -> Result<i32> {
    match &args.command {
        EgdbCommand::Build {
            variant,
            pieces,
            out,
            memory,
            threads,
            max_slices,
        } => {
            check_request(*variant, *pieces)?;
            if let Some(t) = threads {
                // The first pool set wins; a second build in the same process keeps it.
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(*t as usize)
                    .build_global();
            }
            let options = BuildOptions {
                memory_mb: *memory as usize,
                max_slices: *max_slices,
            };
            let plan = Database::plan(*variant, *pieces)?;
            eprintln!(
                "{variant} up to {pieces} pieces: {} slices, {} index entries a side to move \
                 (the largest slice {}, {} with both sides); needs at least {} MB of memory (slice {}), \
                 --memory {memory} MB",
                plan.slices,
                plan.positions,
                plan.largest.0,
                plan.largest.1,
                plan.memory.0.div_ceil(1_000_000),
                plan.memory.1
            );
            let start = Instant::now();
            let built = Database::build_to(*variant, *pieces, out, &options, &mut |p| {
                let s = p.slice;
                let how = if p.resumed {
                    "read back from the last run"
                } else {
                    "built"
                };
                let left = p
                    .left
                    .map_or(String::new(), |l| format!(", about {l:.0} s left"));
                eprintln!(
                    "slice {}/{}: white {}+{}K, black {}+{}K {how}  {:.1} s{left}",
                    p.done, p.all, s.men[0], s.kings[0], s.men[1], s.kings[1], p.elapsed
                );
            })?;
            match built {
                Built::Complete(db) => println!(
                    "{}: {variant}, up to {pieces} pieces, {} bytes, built in {:.1} s",
                    out.display(),
                    db.bytes(),
                    start.elapsed().as_secs_f64()
                ),
                Built::Stopped { done, all } => println!(
                    "{}: stopped after {done} of {all} slices (--max-slices); run again to go on",
                    partial_path(out).display()
                ),
            }
            Ok(0)
        }
        EgdbCommand::Distance {
            db: path,
            out,
            pieces,
            threads,
        } => {
            if let Some(t) = threads {
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(*t as usize)
                    .build_global();
            }
            let out = out.clone().unwrap_or_else(|| distance_path(path));
            if out == *path {
                bail!("--out {}: that is the database itself", out.display());
            }
            if std::fs::metadata(&out).is_ok_and(|m| !m.is_file()) {
                bail!(
                    "--out {}: exists and is not a regular file; expected a file name to write",
                    out.display()
                );
            }
            let start = Instant::now();
            // Any old distance file is not read: it is the one being replaced.
            let mut db = Database::open(path)?.without_distances().read()?;
            let pieces = pieces.unwrap_or(db.max_pieces());
            if !(2..=db.max_pieces()).contains(&pieces) {
                bail!(
                    "--pieces {pieces}: {} holds 2 to {} pieces",
                    path.display(),
                    db.max_pieces()
                );
            }
            // Written slice by slice to OUT.part (an unwritable output is refused before
            // any work), renamed when whole; a run cut short goes on from OUT.part.
            db.build_distances_to(pieces, &out, &mut |p| {
                let s = p.slice;
                let what = match p.longest {
                    Some(d) => format!("longest {d} plies"),
                    None => "read back from the last run".to_string(),
                };
                eprintln!(
                    "slice {}/{}: white {}+{}K, black {}+{}K  {what}  {:.1} s",
                    p.done,
                    p.all,
                    s.men[0],
                    s.kings[0],
                    s.men[1],
                    s.kings[1],
                    start.elapsed().as_secs_f64()
                );
            })?;
            println!(
                "{}: {}, distances of 2 to {pieces} pieces, {} bytes, built in {:.1} s",
                out.display(),
                db.variant(),
                db.distance_bytes(),
                start.elapsed().as_secs_f64()
            );
            Ok(0)
        }
        EgdbCommand::Probe { db, fen } => {
            let db = Database::load(db)?;
            let (v, side, distance) = tammi::with_egdb_board!(db.variant(), P => {
                let pos: P = parse_position(fen)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .with_context(|| format!("--fen (a {} position)", db.variant()))?;
                let pieces = tammi::rules::Bits::count(pos.white() | pos.black()) as usize;
                if pieces > db.max_pieces() {
                    bail!(
                        "the position has {pieces} pieces; this database holds up to {}",
                        db.max_pieces()
                    );
                }
                (
                    db.probe(&pos).expect("within the database"),
                    pos.side().name(),
                    db.distance(&pos),
                )
            });
            let distance = match distance {
                Some(FAR) => format!(", conversion in {FAR} plies or more"),
                Some(0) => ", no move left".to_string(),
                Some(d) => format!(", conversion in {d} plies"),
                None => String::new(),
            };
            println!(
                "{}",
                match v {
                    Wld::Win => format!("win for {side} (to move){distance}"),
                    Wld::Loss => format!("loss for {side} (to move){distance}"),
                    Wld::Draw => "draw".to_string(),
                }
            );
            Ok(0)
        }
        EgdbCommand::Bench { db, probes, seed } => {
            let db = Database::load(db)?;
            let speed = db.probe_speed(*probes, *seed);
            println!(
                "{}, up to {} pieces: {:.2} M probes/s of random positions (each once), \
                 {:.2} M probes/s warm (256 positions, their blocks cached); {} probes \
                 answered",
                db.variant(),
                db.max_pieces(),
                speed.cold / 1e6,
                speed.warm / 1e6,
                speed.answered
            );
            Ok(0)
        }
        EgdbCommand::Verify { db, samples, seed } => {
            let start = Instant::now();
            let db = Database::load(db)?;
            let v = db.verify(*samples, *seed);
            for e in &v.examples {
                println!("inconsistent: {e}");
            }
            let [draws, wins, losses] = v.counts;
            println!(
                "{}: checked {} positions of 2 to {} pieces ({wins} wins, {draws} draws, {losses} losses for the side to move): {} inconsistent, {:.1} s",
                db.variant(),
                v.checked,
                db.max_pieces(),
                v.inconsistent,
                start.elapsed().as_secs_f64()
            );
            if db.distance_pieces() > 0 {
                println!(
                    "distances: checked {} won or lost positions: {} inconsistent",
                    v.distance_checked, v.distance_inconsistent
                );
            }
            Ok(if v.inconsistent == 0 && v.distance_inconsistent == 0 {
                0
            } else {
                1
            })
        }
        EgdbCommand::Games { db, pdn, quiet } => games(db, pdn, *quiet),
        EgdbCommand::Info { db } => {
            let db = Database::load(db)?;
            for line in db.describe() {
                println!("{line}");
            }
            Ok(0)
        }
    }
}

fn plies(n: usize) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}

/// What the database shows of one player's games.
#[derive(Default)]
struct Tally {
    games: usize,
    reached: usize,
    wins_let_go: usize,
    draws_lost: usize,
    unconverted: usize,
    too_soon: usize,
}

fn games(db: &Path, file: &Path, quiet: bool) -> Result<i32> {
    let db = Database::load(db)?;
    let opts = tammi::pdn::ReadOptions {
        variant: Some(db.variant()),
    };
    let games = tammi::pdn::read_file(file, &opts)?;
    // Players in the order they first appear, for a stable report.
    let mut players: Vec<(String, Tally)> = Vec::new();
    fn tally(players: &mut Vec<(String, Tally)>, name: &str) -> usize {
        players
            .iter()
            .position(|(n, _)| n == name)
            .unwrap_or_else(|| {
                players.push((name.to_string(), Tally::default()));
                players.len() - 1
            })
    }
    let (mut other_variant, mut unreadable, mut reached, mut slips) = (0, 0, 0, 0);
    let mut lines = Vec::new();
    for g in &games {
        if g.variant != db.variant() {
            other_variant += 1;
            continue;
        }
        let replayed = tammi::with_egdb_board!(g.variant, P => {
            g.main_line::<P>().and_then(|moves| {
                let end = match moves.last() {
                    Some((p, m)) => p.play(m),
                    None => g.start_position::<P>()?,
                };
                Ok(review(&db, &moves, &end))
            })
        });
        let r = match replayed {
            Ok(r) => r,
            Err(e) => {
                unreadable += 1;
                lines.push(format!("cannot replay: {e}"));
                continue;
            }
        };
        let name = |c: Color| {
            let tag = if c == Color::White { "White" } else { "Black" };
            g.tag(tag).unwrap_or(c.name()).to_string()
        };
        let who = [
            tally(&mut players, &name(Color::White)),
            tally(&mut players, &name(Color::Black)),
        ];
        for &i in &who {
            players[i].1.games += 1;
        }
        if r.entered.is_none() {
            continue;
        }
        reached += 1;
        for &i in &who {
            players[i].1.reached += 1;
        }
        let game = format!(
            "game {} ({} - {})",
            g.number,
            name(Color::White),
            name(Color::Black)
        );
        for s in &r.slips {
            slips += 1;
            let t = &mut players[who[s.mover as usize]].1;
            if s.before == Outcome::Won(s.mover) {
                t.wins_let_go += 1;
            } else {
                t.draws_lost += 1;
            }
            let text = g
                .main_line
                .moves
                .get(s.ply - 1)
                .map_or("?", |m| m.text.as_str());
            lines.push(format!(
                "{game}: ply {} {text} by {} ({}): {} became {}",
                s.ply,
                s.mover.name(),
                name(s.mover),
                s.before.describe(),
                s.after.describe()
            ));
        }
        let result = g
            .result
            .as_deref()
            .or(g.tag("Result"))
            .and_then(Outcome::of_result);
        if let Some(c) = r.unconverted(result) {
            let t = &mut players[who[c as usize]].1;
            let text = format!(
                "{game}: ended {} in a database win for {} ({})",
                result.map_or("?", Outcome::describe),
                c.name(),
                name(c)
            );
            match r.stretch {
                Some((ply, Some(d))) if r.ended_too_soon() => {
                    t.too_soon += 1;
                    lines.push(format!(
                        "{text}, {} after the win arose at ply {ply} (or its last conversion), \
                         fewer than the {d} its conversion needs: not convertible",
                        plies(r.end_ply - ply)
                    ));
                }
                _ => {
                    t.unconverted += 1;
                    lines.push(text);
                }
            }
        }
    }
    if !quiet {
        for l in &lines {
            println!("{l}");
        }
    } else {
        for l in lines.iter().filter(|l| l.starts_with("cannot")) {
            println!("{l}");
        }
    }
    for (name, t) in &players {
        println!(
            "{name}: {} games, {} in the database; database wins let go {}, draws lost {}, wins not won at the end {} (and {} ended too soon to convert)",
            t.games, t.reached, t.wins_let_go, t.draws_lost, t.unconverted, t.too_soon
        );
    }
    let skipped = match other_variant {
        0 => String::new(),
        n => format!(", {n} of other variants skipped"),
    };
    println!(
        "{} games of {} ({} reached the database of up to {} pieces): {slips} slips{skipped}",
        games.len() - other_variant,
        db.variant(),
        reached,
        db.max_pieces()
    );
    Ok(if unreadable > 0 { 1 } else { 0 })
}
