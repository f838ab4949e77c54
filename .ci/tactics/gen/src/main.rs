//! Finds tactics test positions in PDN games, each proved by tammi's exact prover
//! (`tammi::oracle::proof`), and prints them as lines of tests/data/tactics.tsv.
//!
//!     cargo run --release -- [OPTIONS] GAMES.pdn...
//!
//! For every game (main line) and every ply, the candidates are the position of the game
//! and, with `--alternatives`, the positions after each other legal move of the side that
//! moved (a move that could have been played instead: how most shots arise in practice).
//! A candidate is kept when:
//! - the side to move has no compulsory capture (so the key move is a quiet move or a
//!   sacrifice, never a capture), and it has at least `--min-legal` legal moves;
//! - the shallowest depth D (1..=`--max-depth`) at which the prover proves a key move —
//!   it wins at least two men (or the game) and every other move gains nothing — is at
//!   least `--min-depth`;
//! - the key's gain holds at D also when a king counts as one man (it wins pieces, it does
//!   not merely crown a man): `proof::prove` checks the whole claim;
//! - the same key is proved at D+1 … D+`--stable` too (no horizon effect at D);
//! - its FEN was not seen before, at most `--per-game` positions come from one game, and
//!   they lie at least `--gap` plies apart.
//!
//! `--no-kings` keeps only positions without a king on the board (the men-only middle game,
//! where the combinations of `tests/data/shots.tsv` are).
//!
//! `--max-found N` stops after the game in which the Nth position was found; `--budget M`
//! skips a candidate whose search or one of whose proofs needs more than M million nodes.
//!
//! Progress goes to standard error, the TSV lines to standard output as they are found.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use tammi::notation::{format_move, write_fen};
use tammi::oracle::proof::{self, WIN_BOUND};
use tammi::pdn::{Game, ReadOptions, read_file};
use tammi::rules::{Bits, Board, Move, Notation, Variant};
use tammi::with_board;

struct Opts {
    min_depth: u32,
    max_depth: Option<u32>,
    stable: u32,
    per_game: usize,
    gap: usize,
    alternatives: bool,
    min_legal: usize,
    min_pieces: u32,
    no_kings: bool,
    skip: usize,
    max_found: usize,
    budget: u64,
}

fn default_max_depth(v: Variant) -> u32 {
    match v {
        Variant::English => 13,
        Variant::Russian | Variant::Brazilian => 11,
        _ => 9,
    }
}

/// The shallowest proof of `pos` (key, depth), if it fits the options.
fn analyze<P: Board>(pos: &P, o: &Opts, max_depth: u32) -> Option<(Move<P::B>, u32)> {
    if pos.has_capture() || (pos.white() | pos.black()).count() < o.min_pieces {
        return None;
    }
    if o.no_kings && pos.kings().any() {
        return None;
    }
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    if legal.len() < o.min_legal {
        return None;
    }
    let (key, depth) = proof::shallowest_proof_within(pos, max_depth, o.budget)??;
    if depth < o.min_depth {
        return None;
    }
    // The full claim (the gain also in pieces, a king counted as a man) at D, and the same
    // key proved at the next depths.
    for e in depth..=depth + o.stable {
        if !proof::prove_within(pos, &key, e, o.budget)?.proved() {
            return None;
        }
    }
    Some((key, depth))
}

fn describe<P: Board>(pos: &P, key: &Move<P::B>, depth: u32, o: &Opts, source: &str) -> String {
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let before = proof::material(pos, pos.side());
    let v = proof::move_value(pos, key, depth);
    let gain = if v >= WIN_BOUND {
        format!("wins the game (in {} plies)", proof::WIN - v)
    } else {
        let pieces = proof::move_value_with(pos, key, depth, proof::MAN)
            - proof::material_with(pos, pos.side(), proof::MAN);
        format!(
            "gains {:+} (exact, man 1 king 3; {pieces:+} counting a king as a man)",
            v - before
        )
    };
    let name = format_move(pos, key, &legal, P::VARIANT.default_notation());
    let stable = match o.stable {
        0 => String::new(),
        1 => format!("; also proved at d{}", depth + 1),
        s => format!("; also proved at d{}-d{}", depth + 1, depth + s),
    };
    format!(
        "proof d{depth}: {name} {gain}, every other move +0 at best; \
         {} legal moves{stable}; {source}",
        legal.len()
    )
}

fn scan_game<P: Board>(
    g: &Game,
    label: &str,
    o: &Opts,
    seen: &mut HashSet<String>,
    out: &mut impl Write,
) -> usize {
    let Ok(line) = g.main_line::<P>() else {
        eprintln!("{label} game {}: does not replay, skipped", g.number);
        return 0;
    };
    let max_depth = o.max_depth.unwrap_or(default_max_depth(P::VARIANT));
    let notation = P::VARIANT.default_notation();
    let mut next = o.skip;
    let mut count = 0;
    for (i, (before, played)) in line.iter().enumerate() {
        if count >= o.per_game {
            break;
        }
        if i < next {
            continue;
        }
        let mut legal = Vec::new();
        before.generate(&mut legal);
        let mut candidates = vec![(*before, i, String::new())];
        if o.alternatives {
            for alt in legal.iter().filter(|m| *m != played) {
                let note = format!(
                    " ({} instead of {})",
                    format_move(before, alt, &legal, notation),
                    format_move(before, played, &legal, notation)
                );
                candidates.push((before.play(alt), i + 1, note));
            }
        }
        for (pos, ply, note) in candidates {
            let fen = write_fen(&pos, Notation::Numeric);
            if !seen.insert(fen.clone()) {
                continue;
            }
            if let Some((key, depth)) = analyze(&pos, o, max_depth) {
                let mut legal = Vec::new();
                pos.generate(&mut legal);
                let source = format!("{label} game {} ply {ply}{note}", g.number);
                writeln!(
                    out,
                    "{}\t{fen}\t{}\t{}",
                    P::VARIANT.name(),
                    format_move(&pos, &key, &legal, notation),
                    describe(&pos, &key, depth, o, &source)
                )
                .unwrap();
                out.flush().unwrap();
                count += 1;
                next = i + o.gap;
                break;
            }
        }
    }
    count
}

fn main() {
    let mut o = Opts {
        min_depth: 5,
        max_depth: None,
        stable: 2,
        per_game: 2,
        gap: 12,
        alternatives: false,
        min_legal: 3,
        min_pieces: 0,
        no_kings: false,
        skip: 0,
        max_found: usize::MAX,
        budget: u64::MAX,
    };
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> u32 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--min-depth" => o.min_depth = num("--min-depth"),
            "--max-depth" => o.max_depth = Some(num("--max-depth")),
            "--stable" => o.stable = num("--stable"),
            "--per-game" => o.per_game = num("--per-game") as usize,
            "--gap" => o.gap = num("--gap") as usize,
            "--min-legal" => o.min_legal = num("--min-legal") as usize,
            "--skip" => o.skip = num("--skip") as usize,
            "--min-pieces" => o.min_pieces = num("--min-pieces"),
            "--max-found" => o.max_found = num("--max-found") as usize,
            "--budget" => o.budget = num("--budget") as u64 * 1_000_000,
            "--alternatives" => o.alternatives = true,
            "--no-kings" => o.no_kings = true,
            f if !f.starts_with("--") => files.push(f.to_string()),
            f => panic!("unknown option {f}"),
        }
    }
    let mut seen = HashSet::new();
    let mut found = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for f in &files {
        let games = read_file(Path::new(f), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{f}: {e:#}"));
        let label = Path::new(f)
            .file_stem()
            .map_or(f.clone(), |s| s.to_string_lossy().into_owned());
        let mut total = 0;
        for g in &games {
            if found >= o.max_found {
                break;
            }
            let n = with_board!(g.variant, P => scan_game::<P>(g, &label, &o, &mut seen, &mut out));
            total += n;
            found += n;
            eprintln!(
                "{label}: game {} of {}, {total} found",
                g.number,
                games.len()
            );
        }
    }
}
