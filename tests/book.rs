//! Opening books (issue 48): `tammi book build | info | show | probe`, the file checks,
//! and the engine playing from a book in the Hub.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::hub::Hub;

use tammi::book::{Book, BookMove, Entry, position_key};
use tammi::rules::Variant;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tammi-book-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tammi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The value of `name=` in a Hub line.
fn arg<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
}

fn build_tiny(dir: &std::path::Path, name: &str, positions: &str) -> (PathBuf, Output) {
    let out = dir.join(name);
    let o = tammi(&[
        "book",
        "build",
        "-v",
        "english",
        "--out",
        out.to_str().unwrap(),
        "--positions",
        positions,
        "--nodes",
        "2000",
    ]);
    (out, o)
}

/// A tiny book is built, described, shown and probed; the start position's book moves
/// are exactly its legal moves (it is expanded first), best first.
#[test]
fn a_tiny_book_is_built_and_probed() {
    let dir = scratch("tiny");
    let (book, o) = build_tiny(&dir, "t.book", "6");
    assert!(o.status.success(), "{}", text(&o));
    let path = book.to_str().unwrap();
    let info = tammi(&["book", "info", "-v", "english", "--book", path]);
    assert!(info.status.success(), "{}", text(&info));
    assert!(text(&info).contains("positions 6"), "{}", text(&info));

    let show = tammi(&["book", "show", "-v", "english", "--book", path]);
    let shown = text(&show);
    assert!(show.status.success(), "{shown}");
    let mut listed: Vec<String> = shown
        .lines()
        .filter(|l| l.starts_with('*') || l.starts_with(' '))
        .map(|l| l[2..].split_whitespace().next().unwrap().to_string())
        .collect();
    listed.sort();
    let legal = crate::common::numeric(
        Variant::English,
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    );
    assert_eq!(listed, legal, "{shown}");

    // The same seed, the same choice; the choice is a book move.
    let probe = |seed: &str| {
        text(&tammi(&[
            "book", "probe", "-v", "english", "--book", path, "--seed", seed, "--margin", "30",
        ]))
    };
    let a = probe("7");
    assert_eq!(a, probe("7"));
    let mv = a.split_whitespace().next().unwrap().to_string();
    assert!(legal.contains(&mv), "{a}");
    // Margin 0: the best move, the first one shown.
    let best = text(&tammi(&[
        "book", "probe", "-v", "english", "--book", path, "--margin", "0",
    ]));
    let first_shown = shown
        .lines()
        .find(|l| l.starts_with('*'))
        .and_then(|l| l[2..].split_whitespace().next())
        .unwrap();
    assert!(best.starts_with(first_shown), "{best} / {shown}");
    // Out of the book: after a move with no book position below it (6 positions, 7
    // moves at the start: there is one).
    let leaving = shown
        .lines()
        .find(|l| l.ends_with(" 0 positions below"))
        .and_then(|l| l[2..].split_whitespace().next())
        .unwrap_or_else(|| panic!("{shown}"));
    let out = tammi(&[
        "book", "probe", "-v", "english", "--book", path, "--moves", leaving,
    ]);
    assert!(text(&out).contains("not in the book"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A build stopped and continued gives the same book as one that ran through; the
/// output is checked before any search.
#[test]
fn a_resumed_build_is_the_same_book_and_bad_outputs_are_refused() {
    let dir = scratch("resume");
    let (a, o) = build_tiny(&dir, "a.book", "3");
    assert!(o.status.success(), "{}", text(&o));
    let (a2, o) = build_tiny(&dir, "a.book", "7");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(a, a2);
    let (b, o) = build_tiny(&dir, "b.book", "7");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    // Another node budget does not continue a build made with another.
    let o = tammi(&[
        "book",
        "build",
        "-v",
        "english",
        "--out",
        a.to_str().unwrap(),
        "--nodes",
        "3000",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("other options"), "{}", text(&o));
    // A file that is not a build's is not overwritten; a missing directory is refused.
    let other = dir.join("other.book");
    std::fs::write(&other, b"keep me").unwrap();
    let (_, o) = build_tiny(&dir, "other.book", "3");
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&other).unwrap(), b"keep me");
    let (_, o) = build_tiny(&dir, "no/such/dir.book", "3");
    assert!(!o.status.success());
    assert!(text(&o).contains("does not exist"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A truncated or damaged book is refused with a clear error, by the tools and the Hub.
#[test]
fn a_damaged_book_is_refused() {
    let dir = scratch("damaged");
    let mut book = Book::new(Variant::International);
    book.entries.insert(
        position_key(Variant::International, "Wxx"),
        Entry {
            ply: 0,
            moves: vec![BookMove {
                mv: "32-28".into(),
                score: 3,
                count: 1,
            }],
        },
    );
    let good = book.encode().unwrap();
    let cases: [(&str, Vec<u8>); 3] = [
        ("truncated", good[..good.len() - 3].to_vec()),
        ("damaged", {
            let mut d = good.clone();
            let n = d.len();
            d[n - 2] ^= 1;
            d
        }),
        (
            "not a tammi book",
            b"hello, this is no book at all, not even close....".to_vec(),
        ),
    ];
    for (word, bytes) in &cases {
        let path = dir.join("bad.book");
        std::fs::write(&path, bytes).unwrap();
        let o = tammi(&["book", "info", "--book", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(word), "{word}: {}", text(&o));
        let mut hub = Hub::ready();
        hub.send(&format!(
            "set-param name=book-file value={}",
            path.to_str().unwrap()
        ));
        let e = hub.last("error");
        assert!(e.contains(word) && e.contains("book-file stays"), "{e}");
    }
    // A book of another variant is refused for this one.
    let path = dir.join("intl.book");
    std::fs::write(&path, &good).unwrap();
    let mut hub = Hub::ready();
    hub.send("set-param name=variant value=english");
    hub.send(&format!(
        "set-param name=book-file value={}",
        path.to_str().unwrap()
    ));
    assert!(hub.last("error").contains("not english"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Hub plays from its built-in book by default, says so on its info line, and
/// chooses the same moves for the same seed; book=false and go analyze search.
#[test]
fn the_hub_plays_from_the_book_and_searches_without_it() {
    let game = |seed: &str, plies: usize| -> Vec<String> {
        let mut hub = Hub::booked();
        hub.send(&format!("set-param name=book-seed value={seed}"));
        hub.send("set-param name=book-margin value=20");
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..plies {
            hub.send(&format!("pos moves=\"{}\"", moves.join(" ")));
            hub.send("level nodes=1000");
            hub.send("go think");
            let lines = hub.until("done");
            let done = lines.last().unwrap();
            // A forced move is answered without an info line, book or not.
            assert!(
                lines.len() == 1
                    || lines
                        .iter()
                        .any(|l| l.starts_with("info") && l.contains("book=true")),
                "ply {}: {lines:?}",
                moves.len()
            );
            moves.push(arg(done, "move").unwrap().to_string());
        }
        moves
    };
    let a = game("11", 4);
    assert_eq!(a, game("11", 4));
    // Different seeds give different openings somewhere among several tries.
    let others: Vec<Vec<String>> = ["12", "13", "14", "15"]
        .iter()
        .map(|s| game(s, 4))
        .collect();
    assert!(others.iter().any(|o| *o != a), "{a:?} {others:?}");

    let mut hub = Hub::booked();
    hub.send("set-param name=book value=false");
    hub.send("pos");
    hub.send("level depth=3");
    hub.send("go think");
    let lines = hub.until("done");
    assert!(lines.iter().all(|l| !l.contains("book=")), "{lines:?}");
    assert!(
        lines.iter().any(|l| arg(l, "depth") == Some("3")),
        "{lines:?}"
    );

    let mut hub = Hub::booked();
    hub.send("pos");
    hub.send("level depth=2");
    hub.send("go analyze");
    let lines = hub.until("done");
    assert!(lines.iter().all(|l| !l.contains("book=")), "{lines:?}");
    assert!(
        lines.iter().any(|l| arg(l, "depth") == Some("2")),
        "{lines:?}"
    );
}

/// Options that did nothing are gone: bb-size is refused with the reason; the book's
/// parameters are announced with their values.
#[test]
fn book_parameters_are_announced_and_bb_size_refused() {
    let mut hub = Hub::start();
    let lines = hub.handshake();
    for p in ["book", "book-file", "book-ply", "book-margin", "book-seed"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("param") && arg(l, "name") == Some(p)),
            "{p}: {lines:?}"
        );
    }
    assert!(
        lines.iter().all(|l| arg(l, "name") != Some("bb-size")),
        "{lines:?}"
    );
    hub.send("set-param name=bb-size value=4");
    assert!(hub.last("error").contains("egdb"));
}

/// The shipped books are sound: each is of its variant, has the start position, and
/// every book move there is legal.
#[test]
fn the_built_in_books_hold_their_start_positions() {
    for v in ["normal", "english", "russian", "brazilian", "frisian"] {
        let o = tammi(&["book", "info", "-v", v]);
        assert!(o.status.success(), "{v}: {}", text(&o));
        let o = tammi(&["book", "show", "-v", v]);
        assert!(o.status.success(), "{v}: {}", text(&o));
        assert!(text(&o).contains("book moves"), "{v}: {}", text(&o));
    }
}

/// The text mode plays its book moves and says so; `book off` searches.
#[test]
fn the_text_mode_plays_from_the_book_and_book_off_searches() {
    let session = crate::common::text_session;
    let out = session("go\ngo\nquit\n");
    assert_eq!(out.matches("(book, ").count(), 2, "{out}");
    // (`board` after `go` waits for the move; a `quit` there would end the search.)
    let out = session("book off\ndepth 2\ngo\nboard\nquit\n");
    assert!(
        out.contains("tammi plays") && !out.contains("(book"),
        "{out}"
    );
}
