//! `tammi analyze` from the command line: positions from FEN, moves and PDN games.

mod common;
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
