//! `tammi match`: statistics against known values, the opening sets, and short matches of
//! real processes — tammi against itself and against the deliberately broken engines of
//! `.ci/broken_engines/` (an illegal move, no answer, a crash in mid-game).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use tammi::matches::openings::{self, GenerateOptions};
use tammi::matches::stats::{Pentanomial, Sprt, SprtVerdict, Wdl, elo_from_score, score_from_elo};
use tammi::notation::{parse_move, parse_position};
use tammi::pdn::{ReadOptions, read_pdn};
use tammi::rules::{Board, English, Position, Variant};
use tammi::with_board;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------- statistics

#[test]
fn elo_of_a_score() {
    // 60% over 100 games: -400 log10(1/0.6 - 1) = 70.4365 Elo.
    assert!(close(elo_from_score(0.6), 70.4365, 1e-3));
    assert!(close(elo_from_score(0.5), 0.0, 1e-12));
    assert!(close(score_from_elo(70.4365), 0.6, 1e-6));
    assert!(elo_from_score(1.0).is_infinite());
    let e = Wdl::new(60, 0, 40).elo().unwrap();
    assert!(close(e.elo, 70.4365, 1e-3), "{e:?}");
}

#[test]
fn trinomial_error_interval() {
    // s = 0.6, per-game variance 0.6·0.4² + 0.4·0.6² = 0.24, standard error √(0.24/100);
    // half-width of [elo(s - 1.96·se), elo(s + 1.96·se)] = 70.571 (computed by hand in Python).
    let e = Wdl::new(60, 0, 40).elo().unwrap();
    assert!(close(e.error, 70.571, 1e-2), "{e:?}");
    // With draws: 30 wins, 50 draws, 20 losses: +34.860 ± 48.470.
    let e = Wdl::new(30, 50, 20).elo().unwrap();
    assert!(
        close(e.elo, 34.860, 1e-2) && close(e.error, 48.470, 1e-2),
        "{e:?}"
    );
    assert_eq!(Wdl::default().elo(), None);
}

#[test]
fn pentanomial_error_interval() {
    // 38 pairs scoring 0, ½, 1, 1½, 2 points: 2, 5, 20, 8, 3. Mean per game 0.53289,
    // +22.891 ± 51.557 (the same normal approximation over pairs).
    let p = Pentanomial {
        counts: [2, 5, 20, 8, 3],
    };
    let e = p.elo().unwrap();
    assert!(
        close(e.elo, 22.891, 1e-2) && close(e.error, 51.557, 1e-2),
        "{e:?}"
    );
}

#[test]
fn likelihood_of_superiority() {
    // W = 60, L = 40: ½(1 + erf(20/√200)) = ½(1 + erf(1.41421)) = 0.97725.
    assert!(close(Wdl::new(60, 0, 40).los(), 0.97725, 1e-4));
    // Draws do not count; equal wins and losses give a half.
    assert!(close(Wdl::new(60, 300, 40).los(), 0.97725, 1e-4));
    assert!(close(Wdl::new(7, 3, 7).los(), 0.5, 1e-6));
    assert!(close(Wdl::new(0, 10, 0).los(), 0.5, 1e-6));
}

/// The GSPRT log-likelihood ratio computed the long way: for each hypothesis, the result
/// distribution with the hypothesis' mean score that best fits the observed frequencies,
/// found by a golden-section search over its one free parameter (the draw rate).
fn reference_llr(w: u32, d: u32, l: u32, elo0: f64, elo1: f64) -> f64 {
    let n = (w + d + l) as f64;
    let p = [l as f64 / n, d as f64 / n, w as f64 / n];
    let best = |s: f64| {
        // q = (loss, draw, win) with win - loss = 2s - 1.
        let gap = 2.0 * s - 1.0;
        let f = |qd: f64| {
            let q = [(1.0 - qd - gap) / 2.0, qd, (1.0 - qd + gap) / 2.0];
            (0..3)
                .filter(|&i| p[i] > 0.0)
                .map(|i| p[i] * q[i].ln())
                .sum::<f64>()
        };
        let (mut lo, mut hi) = (1e-12, 1.0 - gap.abs() - 1e-12);
        for _ in 0..300 {
            let a = lo + (hi - lo) / 3.0;
            let b = hi - (hi - lo) / 3.0;
            if f(a) < f(b) {
                lo = a;
            } else {
                hi = b;
            }
        }
        f((lo + hi) / 2.0)
    };
    let s = |e: f64| 1.0 / (1.0 + 10f64.powf(-e / 400.0));
    n * (best(s(elo1)) - best(s(elo0)))
}

#[test]
fn sprt_log_likelihood_ratio() {
    let sprt = Sprt::parse("0,10").unwrap();
    assert_eq!((sprt.alpha, sprt.beta), (0.05, 0.05));
    // Bounds: ln(0.05/0.95) and ln(0.95/0.05).
    let (lo, hi) = sprt.bounds();
    assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
    // Against the independent computation, and against values worked out in Python.
    let llr = sprt.llr(Wdl::new(60, 20, 40));
    assert!(
        close(llr, reference_llr(60, 20, 40, 0.0, 10.0), 1e-6),
        "{llr}"
    );
    assert!(close(llr, 0.63148, 1e-4), "{llr}");
    let s5 = Sprt::parse("0,5").unwrap();
    let llr = s5.llr(Wdl::new(1000, 2000, 900));
    assert!(
        close(llr, reference_llr(1000, 2000, 900, 0.0, 5.0), 1e-6),
        "{llr}"
    );
    assert!(close(llr, 2.12564, 1e-4), "{llr}");
    // The usual quick approximation N(s1 - s0)(2s - s0 - s1) / (2σ²) agrees closely.
    let (n, s, var) = (3900.0, 2000.0 / 3900.0, {
        let m = 2000.0 / 3900.0;
        (1000.0 * (1.0 - m) * (1.0 - m) + 2000.0 * (0.5 - m) * (0.5 - m) + 900.0 * m * m) / 3900.0
    });
    let (s0, s1) = (score_from_elo(0.0), score_from_elo(5.0));
    let approx = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
    assert!(close(llr, approx, 0.01), "{llr} vs {approx}");
    // Verdicts.
    assert_eq!(sprt.verdict(3.0), SprtVerdict::H1);
    assert_eq!(sprt.verdict(-3.0), SprtVerdict::H0);
    assert_eq!(sprt.verdict(0.0), SprtVerdict::Continue);
    // Losing every game drives the ratio down, winning every game up.
    assert!(sprt.llr(Wdl::new(0, 0, 200)) < lo);
    assert!(sprt.llr(Wdl::new(200, 0, 0)) > hi);
    for bad in ["5", "5,0", "0,5,0.7,0.05", "x,5"] {
        assert!(Sprt::parse(bad).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------- openings

#[test]
fn english_ballots_are_the_acf_deck() {
    let ballots = openings::english_ballots();
    assert_eq!(ballots.len(), 156);
    let mut ends = std::collections::HashSet::new();
    for b in &ballots {
        assert_eq!(b.moves.len(), 3, "{b:?}");
        let mut pos: Position<English> = parse_position(&b.start).unwrap();
        assert_eq!(pos, Position::<English>::start());
        let mut legal = Vec::new();
        for m in &b.moves {
            pos.generate(&mut legal);
            let mv = parse_move(&pos, m, &legal).unwrap();
            pos = pos.play(&mv);
        }
        assert!(
            ends.insert(pos),
            "two ballots reach the same position: {b:?}"
        );
    }
    let names: Vec<&str> = ballots.iter().filter_map(|b| b.name.as_deref()).collect();
    assert_eq!(names.first(), Some(&"ACF 1"));
    assert_eq!(names.last(), Some(&"ACF 174"));
    // The 18 barred (lost) openings are not in the deck.
    for barred in [
        3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171,
    ] {
        assert!(
            !names.contains(&format!("ACF {barred}").as_str()),
            "{barred}"
        );
    }
    assert_eq!(ballots[0].moves, ["9-13", "21-17", "5-9"]);
    assert_eq!(ballots[2].name.as_deref(), Some("ACF 4"));
    assert_eq!(ballots[2].moves, ["9-13", "22-17", "13x22x17"]);
}

/// pydraughts ships the ballots too; where it is installed, the deck matches its
/// "standard" list except ACF 26 (9-13 24-19 10-15), which that list keeps although it
/// is barred (its "lost" list names ACF 13 twice instead).
#[test]
#[ignore = "needs pydraughts in .venv (made by .ci/differential/run.sh); run by .ci/run"]
fn english_ballots_match_pydraughts() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let file =
        root.join(".venv/lib/python3.11/site-packages/draughts/ballot_files/3move_english.json");
    let json = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run .ci/differential/run.sh to make the venv)",
            file.display()
        )
    });
    // The "standard" list is the second key; its entries look like "001 09-13 21-17 05-09".
    let standard = json
        .split("\"standard\"")
        .nth(1)
        .and_then(|s| s.split(']').next())
        .expect("a standard list");
    let theirs: Vec<u32> = standard
        .split('"')
        .filter(|s| s.len() > 3 && s.as_bytes()[0].is_ascii_digit())
        .map(|s| s[..3].parse().unwrap())
        .filter(|&n| n != 26)
        .collect();
    let ours: Vec<u32> = openings::english_ballots()
        .iter()
        .map(|b| b.name.as_deref().unwrap()[4..].parse().unwrap())
        .collect();
    assert_eq!(ours, theirs);
}

#[test]
fn opening_files_in_lines_and_pdn() {
    let text = "# comment\n\
                32-28 19-23 # Cross\n\
                W:W31-50:B1-20 33-29\n\
                start\n\
                \n\
                W:W28,31-50:B1-18,23 28x19 # from a FEN\n";
    let list = openings::parse_lines(Variant::International, text).unwrap();
    assert_eq!(list.len(), 4);
    assert_eq!(list[0].name.as_deref(), Some("Cross"));
    assert_eq!(list[0].moves, ["32-28", "19-23"]);
    assert_eq!(list[1].moves, ["33-29"]);
    assert!(list[2].moves.is_empty());
    assert_eq!(list[3].moves, ["28x19x23"]);
    assert_eq!(
        list[3].start,
        "W:W28,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,23"
    );
    let err = openings::parse_lines(Variant::International, "32-28 28-22\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 1"), "{err}");
    let err = format!(
        "{:#}",
        openings::parse_lines(Variant::International, "hello\n").unwrap_err()
    );
    assert!(err.contains("neither a position"), "{err}");

    let pdn = "[Event \"a\"]\n[Opening \"Single corner\"]\n\n1. 11-15 22-18 2. 15x22 *\n\n\
               [FEN \"B:W18,21-32:B1-12\"]\n\n1. 11-15 *\n";
    let list = openings::from_pdn(Variant::English, pdn).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].name.as_deref(), Some("Single corner"));
    assert_eq!(list[0].moves, ["11-15", "22-18", "15x22x18"]);
    assert_eq!(list[1].moves, ["11-15"]);
    assert!(list[1].start.contains("18"));
    // A file is told apart by its content.
    let dir = tempdir("openings");
    let path = dir.join("o.pdn");
    std::fs::write(&path, pdn).unwrap();
    assert_eq!(openings::load(Variant::English, &path).unwrap().len(), 2);
    let path = dir.join("o.txt");
    std::fs::write(&path, "11-15 22-18\n9-13\n").unwrap();
    assert_eq!(openings::load(Variant::English, &path).unwrap().len(), 2);
}

#[test]
fn random_openings_are_balanced_and_reproducible() {
    let o = GenerateOptions {
        count: 6,
        plies: 6,
        seed: 7,
        depth: 4,
        margin: 0.3,
    };
    let a = openings::generate(Variant::International, &o).unwrap();
    let b = openings::generate(Variant::International, &o).unwrap();
    assert_eq!(a, b, "the same seed gives the same openings");
    assert_eq!(a.len(), 6);
    let c = openings::generate(Variant::International, &GenerateOptions { seed: 8, ..o }).unwrap();
    assert_ne!(a, c);
    for op in &a {
        assert_eq!(op.moves.len(), 6);
    }
    // Every board type works, including turkish.
    for v in [Variant::Russian, Variant::Turkish, Variant::Canadian] {
        let list = openings::generate(
            v,
            &GenerateOptions {
                count: 2,
                plies: openings::default_plies(v),
                depth: 3,
                ..o
            },
        )
        .unwrap();
        assert_eq!(list.len(), 2, "{v}");
        with_board!(v, P => {
            let start: P = parse_position(&list[0].start).unwrap();
            assert_eq!(start, P::start());
        });
    }
}

// ---------------------------------------------------------------- real matches

fn tammi() -> &'static str {
    env!("CARGO_BIN_EXE_tammi")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory, removed when the test ends (pass or fail).
struct TempDir(PathBuf);

impl TempDir {
    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("tammi-match-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// Run `tammi match`. The tests run in parallel on a busy machine, where a process can
/// wait for a core far longer than the default margin, so a generous one is added unless
/// a test sets its own: these tests check what happens, not how fast.
fn run_match(args: &[&str]) -> Output {
    let mut cmd = Command::new(tammi());
    cmd.arg("match").args(args);
    if !args.contains(&"--time-margin") {
        cmd.args(["--time-margin", "1000"]);
    }
    cmd.output().expect("run tammi match")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The broken engines of `.ci/broken_engines` are Python scripts: their tests are
/// ignored by default and run by `.ci/run`, where they fail (never skip) without python3.
fn needs_python() {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(found, "these tests need python3 on the PATH");
}

fn broken(script: &str) -> String {
    format!(
        "python3 {}",
        root().join(".ci/broken_engines").join(script).display()
    )
}

/// (Result, Termination, White, Black) of every game of a PDN file, after checking that
/// tammi's reader replays every move.
fn read_games(path: &Path) -> Vec<(String, String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let games = read_pdn(&text, &ReadOptions::default()).unwrap();
    games
        .iter()
        .map(|g| {
            let errors = with_board!(g.variant, P => g.check::<P>());
            assert!(errors.is_empty(), "{errors:?}");
            let tag = |n: &str| g.tag(n).unwrap_or("").to_string();
            (
                tag("Result"),
                tag("Termination"),
                tag("White"),
                tag("Black"),
            )
        })
        .collect()
}

/// An english match of tammi against itself, written to a PDN file in `dir` (which the
/// caller keeps while it reads the file), with the flags `rest` after the engines and the
/// variant.
fn self_match(dir: &Path, rest: &[&str]) -> (Output, PathBuf) {
    self_match_in(dir, "english", rest)
}

/// As [`self_match`], in `variant`.
fn self_match_in(dir: &Path, variant: &str, rest: &[&str]) -> (Output, PathBuf) {
    let pdn = dir.join("games.pdn");
    let engine = format!("{} hub", tammi());
    let mut args = vec![
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--variant",
        variant,
    ];
    args.extend_from_slice(rest);
    let pdn_text = pdn.to_str().unwrap().to_string();
    args.extend_from_slice(&["--pdn", &pdn_text]);
    (run_match(&args), pdn)
}

#[test]
fn tammi_against_itself() {
    let dir = tempdir("self");
    let (out, pdn) = self_match(
        &dir.0,
        &[
            "--games",
            "4",
            "--movetime",
            "0.02",
            "--concurrency",
            "2",
            "--sprt",
            "0,10",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("4 of 4 games played"), "{stdout}");
    assert!(stdout.contains("Elo difference:"), "{stdout}");
    assert!(stdout.contains("SPRT (elo0=0 elo1=10"), "{stdout}");
    // One progress line per game when standard error is not a terminal.
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("game ")).count(),
        4,
        "{stderr}"
    );
    let games = read_games(&pdn);
    assert_eq!(games.len(), 4);
    for (result, termination, white, black) in &games {
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&result.as_str()));
        assert!(
            termination == "normal" || termination.starts_with("adjudication:"),
            "{termination}"
        );
        assert_ne!(white, black);
    }
    // In round order, colours alternating on each opening.
    assert_eq!(games[0].2, "tammi-1");
    assert_eq!(games[1].2, "tammi-2");
    let check = Command::new(tammi())
        .args(["pdn", "check", pdn.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check).0);
}

/// Issue 18: the 8x8 family plays through the match runner, whose referee checks every
/// move: two nodes-limited games each, every one ended by the rules (a draw rule, a side
/// without a move, or the ply limit in czech, which has no move-count rule), none by an
/// illegal move, and the PDN reads back with its variant.
#[test]
fn tammi_against_itself_in_the_8x8_family() {
    for variant in ["italian", "pool", "czech", "spanish", "thai"] {
        let dir = tempdir(&format!("self-{variant}"));
        let (out, pdn) = self_match_in(&dir.0, variant, &["--games", "2", "--nodes", "1000"]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{variant}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("2 of 2 games played"),
            "{variant}: {stdout}"
        );
        let games = read_games(&pdn);
        assert_eq!(games.len(), 2, "{variant}");
        for (_, termination, _, _) in &games {
            assert!(
                [
                    "normal",
                    "adjudication: repetition",
                    "adjudication: maximum length",
                    "adjudication: 40-move rule",
                    "adjudication: 15-move rule",
                ]
                .contains(&termination.as_str()),
                "{variant}: {termination}"
            );
        }
        let text = std::fs::read_to_string(&pdn).unwrap();
        let game_type = format!(
            "[GameType \"{}\"]",
            variant.parse::<Variant>().unwrap().pdn_game_type()
        );
        assert_eq!(text.matches(&game_type).count(), 2, "{variant}: {text}");
    }
}

#[test]
#[ignore = "needs pydraughts in .venv (made by .ci/differential/run.sh); run by .ci/run"]
fn pydraughts_replays_an_italian_match() {
    let dir = tempdir("pydraughts-italian");
    let (out, pdn) = self_match_in(&dir.0, "italian", &["--games", "2", "--nodes", "2000"]);
    assert!(out.status.success(), "{:?}", text(&out));
    pydraughts_reads(&pdn);
}

#[test]
#[ignore = "needs pydraughts in .venv (made by .ci/differential/run.sh); run by .ci/run"]
fn pydraughts_reads_the_match_pdn() {
    let dir = tempdir("pydraughts");
    let (out, pdn) = self_match(&dir.0, &["--games", "2", "--nodes", "2000"]);
    assert!(out.status.success(), "{:?}", text(&out));
    pydraughts_reads(&pdn);
}

/// pydraughts' PDN reader must read the file and replay every move (.ci/pdn_interop.py
/// does the same for the PDN fixtures).
fn pydraughts_reads(pdn: &Path) {
    let python = root().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} not found (run .ci/differential/run.sh to make the venv)",
        python.display()
    );
    let script = r#"
import sys
from draughts import Board, Move
from draughts.PDN import PDNReader
games = PDNReader(filename=sys.argv[1]).games
for number, game in enumerate(games, 1):
    board = Board(variant=game.variant, fen=game.tags.get("FEN", "startpos"))
    for text in game.moves:
        move = Move(board, pdn_move=text.replace(":", "x"))
        if move.board_move not in [m.board_move for m in board.legal_moves()]:
            sys.exit(f"game {number}: {text} is not legal for pydraughts")
        board.push(move)
    if game.game_ending != game.tags["Result"]:
        sys.exit(f"game {number}: result {game.game_ending} != {game.tags['Result']}")
print(len(games))
"#;
    let out = Command::new(python)
        .env("PYTHONWARNINGS", "ignore")
        .args(["-c", script, pdn.to_str().unwrap()])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "pydraughts: {stdout}{stderr}");
}

#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn an_illegal_move_loses() {
    needs_python();
    let dir = tempdir("illegal");
    let pdn = dir.join("games.pdn");
    let out = run_match(&[
        "--engine",
        &format!("{} hub", tammi()),
        "--engine",
        &broken("illegal_move.py"),
        "--variant",
        "english",
        "--games",
        "2",
        "--movetime",
        "0.02",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Score of tammi: +2 =0 -0"), "{stdout}");
    assert!(stdout.contains("Game ends: illegal move 2"), "{stdout}");
    assert!(stderr.contains("illegal: illegal move '1-2'"), "{stderr}");
    let games = read_games(&pdn);
    assert_eq!(
        games,
        [
            (
                "1-0".into(),
                "illegal move".into(),
                "tammi".into(),
                "illegal".into()
            ),
            (
                "0-1".into(),
                "illegal move".into(),
                "illegal".into(),
                "tammi".into()
            ),
        ]
    );
}

#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn an_engine_that_never_answers_is_killed_and_restarted() {
    needs_python();
    let dir = tempdir("silent");
    let pdn = dir.join("games.pdn");
    let out = run_match(&[
        "--engine",
        &broken("no_answer.py"),
        "--engine",
        &format!("{} hub", tammi()),
        "--variant",
        "international",
        "--openings",
        "start",
        "--games",
        "2",
        "--tc",
        "0.2+0.01",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Score of silent: +0 =0 -2"), "{stdout}");
    // The engine row: 0 illegal, 0 time, 0 crash, 2 unresponsive, 1 restart.
    let row = stdout.lines().rfind(|l| l.starts_with("silent ")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[cols.len() - 5..], ["0", "0", "0", "2", "1"], "{row}");
    let games = read_games(&pdn);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.1 == "unresponsive"), "{games:?}");
    // International: White moves first, so the silent engine loses at once as White...
    assert_eq!(games[0].0, "0-1");
    // ...and after tammi's first move as Black, once started again.
    assert_eq!(games[1].0, "1-0");
}

#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn the_sprt_stops_the_match_once_it_decides() {
    needs_python();
    // Winning every game, the ratio for elo1 = 100 against elo0 = 0 grows by 0.247 a
    // game and passes ln(0.95/0.05) = 2.944 at the 12th (worked out in Python).
    let out = run_match(&[
        "--engine",
        &format!("{} hub", tammi()),
        "--engine",
        &broken("illegal_move.py"),
        "--variant",
        "english",
        "--games",
        "40",
        "--movetime",
        "0.01",
        "--sprt",
        "0,100",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("stopped: the SPRT accepted H1 (elo1) after 12 games"),
        "{stdout}"
    );
    // The game already begun when the decision came is played out (and counted).
    assert!(
        stdout.contains("12 of 40 games played") || stdout.contains("13 of 40 games played"),
        "{stdout}"
    );
    assert!(stdout.contains("H1 accepted"), "{stdout}");
}

#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn a_move_after_the_clock_runs_out_loses_on_time() {
    needs_python();
    let dir = tempdir("late");
    let pdn = dir.join("games.pdn");
    let out = run_match(&[
        "--engine",
        &format!("{} hub", tammi()),
        "--engine",
        &broken("late_answer.py"),
        "--variant",
        "brazilian",
        "--openings",
        "start",
        "--games",
        "2",
        "--tc",
        "0.1",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // It answers `stop`, so it is not killed: a time forfeit each game, no restart.
    let row = stdout.lines().rfind(|l| l.starts_with("late ")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[cols.len() - 5..], ["0", "2", "0", "0", "0"], "{row}");
    assert!(stderr.contains("late: time forfeit:"), "{stderr}");
    let games = read_games(&pdn);
    assert!(games.iter().all(|g| g.1 == "time forfeit"), "{games:?}");
}

#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn an_engine_that_crashes_in_mid_game_is_restarted() {
    needs_python();
    let dir = tempdir("crash");
    let pdn = dir.join("games.pdn");
    let crasher = format!("{} --after 3 {} hub", broken("crash_mid_game.py"), tammi());
    let out = run_match(&[
        "--engine",
        &format!("{} hub", tammi()),
        "--engine",
        &crasher,
        "--name",
        "2:crasher",
        "--variant",
        "russian",
        "--games",
        "2",
        "--movetime",
        "0.02",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Score of tammi: +2 =0 -0"), "{stdout}");
    let row = stdout.lines().rfind(|l| l.starts_with("crasher ")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[cols.len() - 5..], ["0", "0", "2", "0", "1"], "{row}");
    assert!(stderr.contains("crasher: crash: it exited"), "{stderr}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    let games = read_pdn(&text, &ReadOptions::default()).unwrap();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("crash"));
        // The crasher played its three moves before it died: the game was under way.
        let crasher_moves = g.main_line.moves.len() - 4; // 4 random opening plies (russian)
        assert!((6..=7).contains(&crasher_moves), "{}", crasher_moves);
    }
}

#[test]
fn bad_set_ups_are_refused_before_any_game() {
    let engine = format!("{} hub", tammi());
    // One engine only.
    let out = run_match(&["--engine", &engine, "--movetime", "0.01"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("exactly twice"), "{}", text(&out).1);
    // A parameter the engine does not have.
    let out = run_match(&[
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--engine-option",
        "2:colour=blue",
        "--movetime",
        "0.01",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out).1;
    assert!(
        err.contains("engine 2") && err.contains("no parameter 'colour'"),
        "{err}"
    );
    // A value the engine refuses.
    let out = run_match(&[
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--engine-option",
        "1:threads=100000",
        "--movetime",
        "0.01",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("answered the set-up"),
        "{}",
        text(&out).1
    );
    // No limit per move.
    let out = run_match(&["--engine", &engine, "--engine", &engine]);
    assert_eq!(out.status.code(), Some(2));
    // A program that does not exist.
    let out = run_match(&[
        "--engine",
        "/nonexistent/engine hub",
        "--engine",
        &engine,
        "--movetime",
        "0.01",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("cannot start"), "{}", text(&out).1);
}

/// Issue 16: `done move=` (no move: the engine sees its game as over) and a bare `done`
/// are answers. The engine gives the game up; it is neither killed as unresponsive after a
/// `stop` nor scored for an illegal move, and it is not restarted.
#[test]
#[ignore = "needs python3 (the broken engines are Python scripts); run by .ci/run"]
fn done_with_no_move_is_an_answer_that_gives_the_game_up() {
    needs_python();
    for form in ["", " bare"] {
        let dir = tempdir(&format!("nomove{}", form.trim()));
        let pdn = dir.join("games.pdn");
        let out = run_match(&[
            "--engine",
            &format!("{} hub", tammi()),
            "--engine",
            &format!("{}{form}", broken("no_move.py")),
            "--variant",
            "english",
            "--games",
            "2",
            // A long allowance: a silence would take it all, an answer takes none.
            "--movetime",
            "5",
            "--pdn",
            pdn.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{form}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("Score of tammi: +2 =0 -0"),
            "{form}: {stdout}"
        );
        assert!(
            stdout.contains("resignation: no move given 2"),
            "{form}: {stdout}"
        );
        // The engine row: 0 illegal, 0 time, 0 crash, 0 unresponsive, 0 restarts.
        let row = stdout.lines().rfind(|l| l.starts_with("nomove ")).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&cols[cols.len() - 5..], ["0", "0", "0", "0", "0"], "{row}");
        assert!(
            stderr.contains("resigned: it answered done with no move"),
            "{stderr}"
        );
        let games = read_games(&pdn);
        assert_eq!(games.len(), 2);
        assert!(
            games.iter().all(|g| g.1 == "resignation: no move given"),
            "{games:?}"
        );
    }
}

// ---------------------------------------------------------------- the runner's events

/// A match configured in code, as `tammi gui`'s Watch does: tammi against itself from
/// the start position, no output, no PDN.
fn observed_config(
    variant: Variant,
    games: usize,
    tc: tammi::matches::TimeControl,
    max_plies: usize,
) -> (
    tammi::matches::MatchConfig,
    crossbeam_channel::Receiver<tammi::matches::MatchEvent>,
) {
    use tammi::matches::{EngineSpec, MatchConfig, Opening, ProgressStyle};
    let (tx, rx) = crossbeam_channel::unbounded();
    let engine = |name: &str| EngineSpec {
        name: Some(name.to_string()),
        command: vec![tammi().to_string(), "hub".to_string()],
        params: vec![("hash".to_string(), "8".to_string())],
    };
    let start = with_board!(variant, P => tammi::notation::write_fen(&P::start(), tammi::rules::Notation::Numeric));
    let cfg = MatchConfig {
        variant,
        engines: [engine("first"), engine("second")],
        games,
        tc,
        move_timeout: Duration::from_secs(60),
        // A loaded machine must not turn these into time forfeits: they check events.
        margin: Duration::from_secs(5),
        concurrency: 1,
        max_plies,
        draw_rule: None,
        win_rule: None,
        openings: vec![Opening {
            name: None,
            start,
            moves: Vec::new(),
        }],
        openings_label: "start".into(),
        sprt: None,
        pdn: None,
        event: "test".into(),
        site: "?".into(),
        log: None,
        progress: ProgressStyle::Quiet,
        observer: Some(tx),
        abort: None,
    };
    (cfg, rx)
}

#[test]
fn the_runner_reports_each_start_move_and_end_in_order() {
    use tammi::matches::{MatchEvent, TimeControl};
    let tc = TimeControl {
        depth: Some(2),
        ..TimeControl::default()
    };
    let (cfg, rx) = observed_config(Variant::English, 2, tc, 30);
    let outcome = tammi::matches::run(&cfg).expect("the match runs");
    drop(cfg);
    let events: Vec<MatchEvent> = rx.iter().collect();
    assert_eq!(outcome.games.len(), 2);
    let mut i = 0;
    for g in &outcome.games {
        // The start: which game, the variant, the position, who plays White and Black.
        match &events[i] {
            MatchEvent::GameStart {
                game,
                variant,
                start,
                opening,
                names,
                white,
                clocks,
            } => {
                assert_eq!(*game, g.index);
                assert_eq!(*variant, Variant::English);
                assert_eq!(start, &g.opening.start);
                assert!(opening.is_empty());
                assert_eq!(*white, g.white);
                let expected = if g.white == 0 {
                    ["first", "second"]
                } else {
                    ["second", "first"]
                };
                assert_eq!(names, &expected.map(String::from));
                assert_eq!(*clocks, None, "no game clock, no clocks");
            }
            other => panic!("expected the start of game {}, got {other:?}", g.index),
        }
        i += 1;
        // Every move of the record, in order, by alternating sides, Black first.
        for (k, played) in g.moves.iter().enumerate() {
            match &events[i] {
                MatchEvent::Move {
                    game,
                    ply,
                    side,
                    mv,
                    clocks,
                    ..
                } => {
                    assert_eq!((*game, *ply), (g.index, k + 1));
                    assert_eq!(mv, played);
                    let mover = if k % 2 == 0 {
                        tammi::rules::Color::Black
                    } else {
                        tammi::rules::Color::White
                    };
                    assert_eq!(*side, mover, "ply {}", k + 1);
                    assert_eq!(*clocks, None);
                }
                other => panic!("expected ply {} of game {}, got {other:?}", k + 1, g.index),
            }
            i += 1;
        }
        match &events[i] {
            MatchEvent::GameEnd {
                game,
                winner,
                white,
                result,
                termination,
                ..
            } => {
                assert_eq!(*game, g.index);
                assert_eq!(*winner, g.winner);
                assert_eq!(*white, g.white);
                assert_eq!(*result, g.result_text());
                assert_eq!(termination, &g.ending.termination());
            }
            other => panic!("expected the end of game {}, got {other:?}", g.index),
        }
        i += 1;
    }
    assert_eq!(i, events.len(), "events after the last game's end");
}

#[test]
fn with_a_game_clock_each_move_reports_both_clocks() {
    use tammi::matches::{Clock, MatchEvent, TimeControl};
    let tc = TimeControl {
        clock: Some(Clock::parse("20+0.5").unwrap()),
        depth: Some(2),
        ..TimeControl::default()
    };
    let (cfg, rx) = observed_config(Variant::International, 1, tc, 6);
    let outcome = tammi::matches::run(&cfg).expect("the match runs");
    drop(cfg);
    assert_eq!(outcome.games[0].moves.len(), 6, "drawn at 6 plies");
    let mut last = [Duration::from_secs(20); 2];
    let mut moves = 0;
    for event in rx.iter() {
        match event {
            MatchEvent::GameStart { clocks, .. } => {
                assert_eq!(clocks, Some(last), "the clocks start full");
            }
            MatchEvent::Move {
                side,
                elapsed,
                clocks,
                ..
            } => {
                let clocks = clocks.expect("a game clock is reported");
                let (me, other) = if side == tammi::rules::Color::White {
                    (0, 1)
                } else {
                    (1, 0)
                };
                // The mover's clock: the increment in, the thinking time out.
                let expected = last[me] + Duration::from_millis(500) - elapsed;
                assert_eq!(clocks[me], expected, "{side:?}'s clock");
                assert_eq!(clocks[other], last[other], "the other clock stands");
                last = clocks;
                moves += 1;
            }
            MatchEvent::GameEnd { termination, .. } => {
                assert_eq!(termination, "adjudication: maximum length");
            }
        }
    }
    assert_eq!(moves, 6);
}

#[test]
fn an_aborted_match_stops_in_mid_search_and_counts_nothing() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tammi::matches::{Clock, MatchEvent, TimeControl};
    // Long thinking: without the abort, a move would take seconds.
    let tc = TimeControl {
        clock: Some(Clock::parse("600").unwrap()),
        move_time: Some(Duration::from_secs(30)),
        ..TimeControl::default()
    };
    let (mut cfg, rx) = observed_config(Variant::International, 4, tc, 400);
    let abort = Arc::new(AtomicBool::new(false));
    cfg.abort = Some(Arc::clone(&abort));
    let started = std::time::Instant::now();
    let outcome = std::thread::scope(|s| {
        let runner = s.spawn(|| tammi::matches::run(&cfg));
        // The first game has begun: abort during its first search.
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(MatchEvent::GameStart { game: 0, .. }) => {}
            other => panic!("expected the first game's start, got {other:?}"),
        }
        std::thread::sleep(Duration::from_millis(300));
        abort.store(true, Ordering::Relaxed);
        runner.join().expect("no panic")
    })
    .expect("an aborted match is no error");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the search was not cut short ({:?})",
        started.elapsed()
    );
    assert!(outcome.games.is_empty(), "an unfinished game was counted");
    assert_eq!(outcome.stopped.as_deref(), Some("aborted"));
    drop(cfg);
    assert!(
        rx.try_iter()
            .all(|e| !matches!(e, MatchEvent::GameEnd { .. })),
        "an aborted game was reported as ended"
    );
}
