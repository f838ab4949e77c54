//! `tammi analyze` from the command line: positions from FEN, moves and PDN games.

use crate::common;
use common::tammi;

#[test]
fn analyses_a_position_from_a_pdn_game() {
    let pdn = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pdn/russian.pdn");
    let (code, out, err) = tammi(&["analyze", "--pdn", pdn, "--ply", "2", "--depth", "4"]);
    assert_eq!(code, 0, "{err}");
    // The file's GameType (russian) decides the variant, whatever --variant says.
    assert!(out.starts_with("russian "), "{out}");
    assert!(out.lines().any(|l| l.starts_with("best ")), "{out}");
}

#[test]
fn pdn_errors_name_the_file_and_game() {
    let pdn = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pdn/russian.pdn");
    let (code, _, err) = tammi(&["analyze", "--pdn", pdn, "--game", "99"]);
    assert_eq!(code, 2);
    assert!(err.contains("no game 99"), "{err}");
    let (code, _, err) = tammi(&["analyze", "--pdn", "/nonexistent.pdn"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent.pdn"), "{err}");
    let (code, _, err) = tammi(&["analyze", "--ply", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pdn"), "{err}");
}

#[test]
fn analyses_moves_played_from_a_fen() {
    let (code, out, err) = tammi(&[
        "analyze",
        "-v",
        "english",
        "--moves",
        "11-15 23-19",
        "--depth",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().last().unwrap().starts_with("best "), "{out}");
    let (code, _, err) = tammi(&["analyze", "--moves", "32-28 99-98"]);
    assert_eq!(code, 2);
    assert!(err.contains("99-98"), "{err}");
}

/// Issue 16: `--notation letter` writes the header FEN in letters too, and the header
/// says whose view the scores are from.
#[test]
fn the_header_fen_follows_the_notation_and_names_the_scores_view() {
    let (code, out, err) = tammi(&[
        "analyze",
        "-v",
        "russian",
        "--notation",
        "numeric",
        "--depth",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("russian W:W21,22"), "{out}");
    let (code, out, err) = tammi(&[
        "analyze",
        "--notation",
        "letter",
        "--depth",
        "2",
        "--moves",
        "32-28",
    ]);
    assert_eq!(code, 0, "{err}");
    let header = out.lines().next().unwrap();
    assert!(header.starts_with("international B:W"), "{header}");
    // Square 46 is a1, square 1 b10: letters, no square numbers.
    assert!(header.contains("a1,") && header.contains("b10"), "{header}");
    assert!(!header.contains(",46"), "{header}");
    assert!(
        out.contains("from the view of the side to move (Black)"),
        "{out}"
    );
}

/// Issue 16: `--variant` with `--pdn` naming another variant than the game's is refused
/// (it was silently ignored); naming the game's own is accepted.
#[test]
fn variant_with_pdn_is_used_or_refused() {
    let pdn = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pdn/russian.pdn");
    let (code, _, err) = tammi(&["analyze", "--pdn", pdn, "-v", "english", "--depth", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--variant english"), "{err}");
    assert!(err.contains("russian"), "{err}");
    let (code, out, err) = tammi(&["analyze", "--pdn", pdn, "-v", "russian", "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("russian "), "{out}");
}

/// The command line's list of variants (`tammi perft --help`, which the other commands'
/// help points to) names every variant of the variant table, by a name it is read by.
#[test]
fn the_command_line_help_lists_every_variant_of_the_table() {
    let (code, out, err) = tammi(&["perft", "--help"]);
    assert_eq!(code, 0, "{err}");
    let words: Vec<String> = out
        .split(|c: char| !(c.is_alphanumeric() || c == '!'))
        .map(str::to_lowercase)
        .collect();
    for v in tammi::rules::ALL_VARIANTS {
        assert!(
            v.names().any(|n| words.iter().any(|w| w == n)),
            "{} is missing from `tammi perft --help`:\n{out}",
            v.name()
        );
    }
    for other in ["analyze", "moves", "match"] {
        let (_, out, _) = tammi(&[other, "--help"]);
        assert!(out.contains("tammi perft --help"), "{other} --help: {out}");
    }
}

/// `--set NAME=VALUE` and the flags that are its shorthands are checked by the table of
/// settings; settings that do not apply to an analysis are refused, saying why.
#[test]
fn settings_are_checked_by_the_table() {
    for (args, said) in [
        (
            &["--set", "threads=0"][..],
            "--set threads=0: threads must be from 1 to 256, got 0",
        ),
        (
            &["--hash", "0"],
            "--hash 0: hash must be from 1 to 65536, got 0",
        ),
        (&["--set", "threads"], "expected NAME=VALUE"),
        (&["--set", "bogus=1"], "unknown parameter 'bogus'"),
        (
            &["--set", "book=false"],
            "book does not apply to an analysis",
        ),
        (&["--set", "client=scan"], "client is a Hub parameter"),
        (
            &["--set", "variant=english"],
            "the variant is the position's",
        ),
    ] {
        let mut all = vec!["analyze", "--depth", "1"];
        all.extend_from_slice(args);
        let (code, _, err) = tammi(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    let (code, out, err) = tammi(&[
        "analyze",
        "-v",
        "english",
        "--depth",
        "2",
        "--set",
        "eval=patterns",
        "--set",
        "multipv=2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("line 2"), "two lines reported: {out}");
}
