//! Bad input never panics: random and mutated strings go through every parser, and the
//! command line answers malformed input with a one-line error and exit status 2.

use crate::common;
use std::process::Command;

use common::{Rng, tammi};
use tammi::notation::{parse_fen, parse_hub_position, parse_move, parse_position, parse_square};
use tammi::rules::{ALL_VARIANTS, Board, Notation, Variant};
use tammi::with_board;

const SEEDS: &[&str] = &[
    "W:W31-50:B1-20",
    "B:W21-32:B1-12",
    "W:Wa1,c1,K e3:Bb8,Kh8.",
    "W:WK31,32:BK1-5,10",
    "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
    "32-28",
    "28x19x23",
    "47x38x24x13x36",
    "c3:e5:g7",
    "cd4",
    "e3:c5",
];

const ALPHABET: &[u8] = b"WBwbKk:,-x.0123456789 ?\"eacdfghijl\t\x00\xff";

fn mutate(rng: &mut Rng, s: &str) -> String {
    let mut bytes = s.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(4) {
            0 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes.remove(i);
            }
            1 => {
                let i = rng.below(bytes.len() + 1);
                bytes.insert(i, ALPHABET[rng.below(ALPHABET.len())]);
            }
            2 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] = ALPHABET[rng.below(ALPHABET.len())];
            }
            _ => {
                let n = rng.below(bytes.len() + 1);
                bytes.truncate(n);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_text(rng: &mut Rng) -> String {
    let len = rng.below(80);
    let bytes: Vec<u8> = (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())])
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn exercise<P: Board>(text: &str) {
    let _ = parse_fen::<P>(text);
    let _ = parse_hub_position::<P>(text);
    let _ = parse_square::<P>(text);
    if let Ok(pos) = parse_position::<P>(text) {
        let mut list = Vec::new();
        pos.generate(&mut list);
    }
    let pos = P::start();
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let _ = parse_move(&pos, text, &legal);
}

#[test]
fn parsers_survive_random_and_mutated_text() {
    let mut rng = Rng(0x5eed);
    for i in 0..20_000 {
        let text = if i % 2 == 0 {
            random_text(&mut rng)
        } else {
            let seed = SEEDS[rng.below(SEEDS.len())];
            mutate(&mut rng, seed)
        };
        let _ = text.parse::<Variant>();
        let _ = text.parse::<Notation>();
        for v in ALL_VARIANTS {
            with_board!(v, P => exercise::<P>(&text));
        }
    }
}

#[test]
fn command_line_errors_are_one_line_with_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["perft", "--variant", "chess", "--depth", "3"],
            "unknown variant",
        ),
        (&["perft", "--depth", "0"], "--depth"),
        (&["perft", "--depth", "x"], "invalid value"),
        (&["perft", "--depth", "-3"], "-3"),
        (&["perft", "--fen", "W:W31,51:B1", "--depth", "2"], "column"),
        (&["perft", "--threads", "0", "--depth", "2"], "--threads"),
        (&["moves", "--fen", "Q:W31:B1"], "side to move"),
        (&["moves", "--notation", "roman"], "unknown notation"),
    ];
    for (args, needle) in cases {
        let (code, _, err) = tammi(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        if !err.contains("Usage") {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

#[test]
fn moves_answers_every_input_line_and_reports_bad_ones() {
    let out = run_with_input(
        &["moves", "--variant", "english", "--json"],
        b"B:W21-32:B1-12\nnot a fen\nW:W30:B25,26,17,18\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].contains("\"from\":9") && lines[0].contains("\"move\":\"9-13\""));
    assert!(lines[1].contains("\"error\""));
    assert!(lines[2].contains("\"route\":[30,23,14]") && lines[2].contains("\"captured\":[18,26]"));
    assert_eq!(out.status.code(), Some(2));
}

/// `tammi` with `args`, `input` written to its standard input.
fn run_with_input(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Write on a thread: a big input must not block against a full output pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// `tammi moves` reading `input` on standard input: (stdout, stderr).
fn moves_with_input(input: &[u8]) -> (String, String) {
    let out = run_with_input(&["moves"], input);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 16: errors quote bad input short and escaped: a 5 MB line gives a short error,
/// and NUL and ESC bytes are never echoed raw.
#[test]
fn errors_quote_input_short_and_escaped() {
    let mut big = vec![b'x'; 5_000_000];
    big.push(b'\n');
    let (out, err) = moves_with_input(&big);
    let all = out + &err;
    assert!(all.len() < 1_000, "{} bytes of error", all.len());
    assert!(all.contains("(5000000 characters)"), "{all}");
    let (out, err) = moves_with_input(b"W:W32:B\x1b[2J\x00\n");
    let all = out + &err;
    assert!(!all.contains('\u{1b}') && !all.contains('\0'), "{all:?}");
    assert!(all.contains("\\u{1b}[2J\\0"), "{all}");
    // The same helper in the Hub, the move parser and the FEN parser.
    let e = parse_move(
        &<tammi::rules::Position<tammi::rules::International>>::start(),
        &format!("32-{}", "9".repeat(100_000)),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.len() < 400, "{e}");
}

/// Issue 16: messages that said nothing useful now say what was expected.
#[test]
fn messages_say_what_was_expected() {
    // A program that is no Hub engine.
    let (code, _, err) = tammi(&[
        "match",
        "--engine",
        "cat",
        "--engine",
        "cat",
        "--games",
        "1",
        "--movetime",
        "0.1",
    ]);
    assert_eq!(code, 2);
    assert!(!err.contains("no the"), "{err}");
    assert!(err.contains("no answer to 'hub'"), "{err}");
    assert!(err.contains("then 'wait'"), "{err}");
    // The SPRT bounds: the flag is named once, with what was expected.
    let exe = env!("CARGO_BIN_EXE_tammi");
    let engine = format!("{exe} hub");
    let (code, _, err) = tammi(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--movetime",
        "0.1",
        "--sprt",
        "5,0",
    ]);
    assert_eq!(code, 2);
    assert!(!err.contains("--sprt --sprt"), "{err}");
    assert!(
        err.contains("--sprt '5,0': elo0 (5) must be below elo1 (0)"),
        "{err}"
    );
    assert!(err.contains("expected elo0,elo1"), "{err}");
    // DXP: an empty message names what a message is.
    let e = tammi::dxp::message::Message::decode("")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected a type letter"), "{e}");
}

/// Issue 16: options that were silently ignored are errors.
#[test]
fn options_that_would_be_ignored_are_refused() {
    let (code, _, err) = tammi(&["bench", "--time", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--tactics"), "{err}");
    let (code, _, err) = tammi(&["dxp", "--games", "3", "--once"]);
    assert_eq!(code, 2);
    assert!(err.contains("--initiator"), "{err}");
    let (code, out, _) = tammi(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("With no command, tammi starts its text mode"),
        "{out}"
    );
}

/// `tammi moves` on standard input stopped at the first line that was not UTF-8
/// ("stream did not contain valid UTF-8", found by .ci/fuzz): now that line is refused
/// like any bad position and the lines after it are still answered.
#[test]
fn moves_reads_past_a_line_that_is_not_utf8() {
    let out = run_with_input(&["moves", "--json"], b"W:W31:B1\nW:W31\xff:B1\nW:W32:B1\n");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("\"move\":\"31-26\""), "{text}");
    assert!(lines[1].contains("\"error\""), "{text}");
    assert!(lines[2].contains("\"move\":\"32-27\""), "{text}");
    assert_eq!(out.status.code(), Some(2));
}
