//! Endgame databases from the outside: `tammi egdb`, the engine option, the
//! Hub parameter, and what the search makes of it.

use crate::common;
use common::tammi;
use std::path::PathBuf;
use std::process::Command;

use tammi::egdb::Database;
use tammi::rules::Variant;
use tammi::search::{Engine, EngineOptions, Limits, Score};

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tammi-egdb-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A 3-piece database file (built in well under a second).
fn three_piece_db(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("english3.egdb");
    Database::build(tammi::rules::Variant::English, 3, &mut |_, _, _| {})
        .unwrap()
        .save(&path)
        .unwrap();
    path
}

fn score_of(e: &mut Engine, fen: &str, depth: u32) -> i32 {
    e.set_position(Variant::English, fen, &[]).unwrap();
    match e.think(Limits::depth(depth), |_| {}).score {
        Some(Score::Eval(s)) => s,
        other => panic!("{fen}: expected an evaluation, got {other:?}"),
    }
}

#[test]
fn the_search_scores_database_wins_in_their_own_band() {
    let dir = scratch("search");
    let path = three_piece_db(&dir);
    // White must take the king on 23 (18x27 or 19x26); then two kings against one with
    // Black to move: won, which the search cannot see by itself at depth 3.
    let fen = "W:WK18,K19:BK1,K23";
    let mut plain = Engine::new(EngineOptions {
        hash_mb: 8,
        ..EngineOptions::default()
    })
    .unwrap();
    let without = score_of(&mut plain, fen, 3);
    assert!(without < 7_100, "{without}");
    let database = |e: &mut Engine, fen: &str| {
        e.set_position(Variant::English, fen, &[]).unwrap();
        e.think(Limits::depth(3), |_| {}).score
    };
    let mut with = Engine::new(EngineOptions {
        hash_mb: 8,
        egdb: Some(path.clone()),
        ..EngineOptions::default()
    })
    .unwrap();
    let won = database(&mut with, fen);
    assert!(matches!(won, Some(Score::Database(n)) if n > 0), "{won:?}");
    // With Black to move, Black takes first (23x14 or 23x16) and wins: a database win
    // from Black's view.
    let black = database(&mut with, "B:WK18,K19:BK1,K23");
    assert!(
        matches!(black, Some(Score::Database(n)) if n > 0),
        "{black:?}"
    );
    // Other variants ignore the database: the same squares in russian are no database
    // position (flying kings), and the search runs as without one.
    with.set_position(Variant::Russian, "W:WK18,K19:BK1,K23", &[])
        .unwrap();
    let r = with.think(Limits::depth(3), |_| {});
    assert!(
        matches!(r.score, Some(Score::Eval(s)) if s.abs() < 7_100)
            || matches!(r.score, Some(Score::GameEnd(_))),
        "{:?}",
        r.score
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_database_file_is_refused_and_the_engine_keeps_its_options() {
    let dir = scratch("bad");
    let bad = dir.join("not-a-db.egdb");
    std::fs::write(&bad, b"hello").unwrap();
    let mut e = Engine::new(EngineOptions::default()).unwrap();
    let before = e.options().clone();
    let err = e
        .set_options(EngineOptions {
            egdb: Some(bad.clone()),
            ..before.clone()
        })
        .unwrap_err();
    assert!(err.contains("not a tammi endgame database"), "{err}");
    assert_eq!(e.options(), &before);
    let missing = dir.join("missing.egdb");
    let err = Engine::new(EngineOptions {
        egdb: Some(missing),
        ..EngineOptions::default()
    })
    .unwrap_err();
    assert!(err.contains("missing.egdb"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_line_builds_and_probes() {
    let dir = scratch("cli");
    let out = dir.join("e3.egdb");
    let (code, stdout, err) = tammi(&[
        "egdb",
        "build",
        "--pieces",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("up to 3 pieces"), "{stdout}");
    assert!(err.contains("slice"), "progress on stderr: {err}");
    // What the build takes is said before it starts.
    assert!(
        err.lines()
            .next()
            .is_some_and(|l| l.starts_with("english up to 3 pieces: 16 slices")
                && l.contains("needs at least")),
        "{err}"
    );
    let db = out.to_str().unwrap();
    let probe = |fen: &str| tammi(&["egdb", "probe", "--db", db, "--fen", fen]);
    assert_eq!(probe("W:WK18,K19:BK1").1.trim(), "win for white (to move)");
    assert_eq!(probe("B:WK18,K19:BK1").1.trim(), "loss for black (to move)");
    assert_eq!(probe("W:WK18:BK1").1.trim(), "draw");
    let (code, _, err) = probe("W:W18,19,20:BK1");
    assert_eq!(code, 2);
    assert!(err.contains("4 pieces") && err.contains("up to 3"), "{err}");
    let (code, _, err) = probe("W:W18:Bxyz");
    assert_eq!(code, 2);
    assert!(err.contains("--fen"), "{err}");
    let (code, stdout, err) = tammi(&["egdb", "verify", "--db", db, "--samples", "5000"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("checked 5000 positions") && stdout.contains(": 0 inconsistent"),
        "{stdout}"
    );
    let (code, _, err) = tammi(&["egdb", "build", "--pieces", "9", "--out", db]);
    assert_eq!(code, 2);
    assert!(err.contains("2 to 7 pieces"), "{err}");
    let (code, stdout, err) = tammi(&["egdb", "info", "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("variant: english")
            && stdout.contains("pieces: 2 to 3")
            && stdout.contains("3 pieces: "),
        "{stdout}"
    );
    // Variants without a database, and unknown ones, are refused with the reason.
    let other = dir.join("x.egdb");
    let other = other.to_str().unwrap();
    let (code, _, err) = tammi(&["egdb", "build", "--variant", "frisian", "--out", other]);
    assert_eq!(code, 2);
    assert!(err.contains("frisian has no endgame database"), "{err}");
    assert!(
        err.contains("international"),
        "lists the supported ones: {err}"
    );
    let (code, _, err) = tammi(&["egdb", "build", "--variant", "chess", "--out", other]);
    assert_eq!(code, 2);
    assert!(err.contains("chess"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_russian_database_builds_probes_and_is_refused_for_english() {
    let dir = scratch("russian");
    let out = dir.join("r3.egdb");
    let db = out.to_str().unwrap();
    let (code, stdout, err) = tammi(&[
        "egdb",
        "build",
        "--variant",
        "russian",
        "--pieces",
        "3",
        "--out",
        db,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("russian, up to 3 pieces"), "{stdout}");
    // A flying king takes from afar: a1 against f6 on the long diagonal (a short king
    // could not).
    let probe = |fen: &str| tammi(&["egdb", "probe", "--db", db, "--fen", fen]);
    let (code, stdout, err) = probe("W:WKa1:BKf6");
    assert_eq!(code, 0, "{err}");
    assert_eq!(stdout.trim(), "win for white (to move)");
    // A king each, far apart: drawn.
    assert_eq!(probe("W:WKa1:BKh2").1.trim(), "draw");
    let (code, stdout, err) = tammi(&["egdb", "verify", "--db", db, "--samples", "5000"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("russian: checked 5000") && stdout.contains(": 0 inconsistent"),
        "{stdout}"
    );
    let (code, _, err) = tammi(&[
        "analyze",
        "--variant",
        "english",
        "--fen",
        "W:WK18:BK1",
        "--depth",
        "2",
        "--egdb",
        db,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a russian endgame database") && err.contains("english"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_hub_parameter_loads_and_refuses() {
    let dir = scratch("hub");
    let path = three_piece_db(&dir);
    // The answer is read before `quit` is sent (a `quit` while the database is still
    // being read would end the search before it had the database).
    let mut hub = common::hub::Hub::start();
    for line in [
        "hub".to_string(),
        format!("set-param name=egdb value={}", path.display()),
        "set-param name=egdb value=/nonexistent/x.egdb".into(),
        "set-param name=variant value=english".into(),
        "pos fen=W:WK18,K19:BK1,K23".into(),
        "level depth=3".into(),
        "go think".into(),
    ] {
        hub.send(&line);
    }
    let out = hub.until("done").join("\n");
    hub.send("quit");
    assert!(out.contains("param name=egdb value="), "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("x.egdb"), "{out}");
    // The first database stayed: the search reports the database's win band.
    let last_info = out.lines().rfind(|l| l.starts_with("info")).unwrap();
    let score: f64 = last_info
        .split_whitespace()
        .find_map(|t| t.strip_prefix("score="))
        .unwrap()
        .parse()
        .unwrap();
    assert!((80.0..90.0).contains(&score), "{last_info}");
    // Either capture wins (18x27 or 19x26, both taking 23).
    assert!(
        out.contains("done move=18x27x23") || out.contains("done move=19x26x23"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_the_root_in_the_database_only_moves_that_keep_its_value_are_played() {
    use tammi::egdb::Wld;
    use tammi::notation::parse_fen;
    use tammi::rules::{Board, English, Position};

    let dir = scratch("root");
    let path = three_piece_db(&dir);
    let db = Database::load(&path).unwrap();
    let value = |p: &Position<English>| db.probe(p).unwrap();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 8,
        egdb: Some(path.clone()),
        ..EngineOptions::default()
    })
    .unwrap();
    // A third of the placements of a white king and man against a black king, White to
    // move (those whose square numbers sum to a multiple of 3, to keep the test short),
    // whose moves do not all keep the same value: a depth-1 search, which probes only
    // positions of fewer pieces, would often choose by the evaluation alone.
    let mut tried = 0;
    let mut list = Vec::new();
    for k in 1..=32u32 {
        for m in 5..=32u32 {
            for b in 1..=32u32 {
                if k == m || k == b || m == b || (k + m + b) % 3 != 0 {
                    continue;
                }
                let fen = format!("W:WK{k},{m}:BK{b}");
                let pos: Position<English> = parse_fen(&fen).unwrap();
                pos.generate(&mut list);
                let results: Vec<Wld> = list.iter().map(|mv| value(&pos.play(mv))).collect();
                // The mover's best: the opponent lost, else drawn.
                let best = if results.contains(&Wld::Loss) {
                    Wld::Loss
                } else if results.contains(&Wld::Draw) {
                    Wld::Draw
                } else {
                    continue;
                };
                if results.iter().all(|&r| r == best) {
                    continue;
                }
                engine.set_position(Variant::English, &fen, &[]).unwrap();
                let done = engine.think(Limits::depth(1), |_| {});
                let played = done.best_move.expect("a move");
                let i = list
                    .iter()
                    .position(|mv| mv.erase() == played)
                    .expect("a legal move");
                assert_eq!(results[i], best, "{fen}: {played:?}");
                tried += 1;
            }
        }
    }
    assert!(tried > 50, "{tried}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `egdb build` checks that it can write its file before building: with a directory
/// that does not exist it used to build every slice (minutes for 5 pieces, 37 for 6)
/// and only then fail.
#[test]
fn the_build_checks_its_output_path_first() {
    use std::time::{Duration, Instant};
    let dir = scratch("out");
    let missing = dir.join("no-such-directory").join("e5.egdb");
    let cases = [
        (missing.clone(), "no-such-directory"),
        // An existing directory is no file to write.
        (dir.clone(), "not a regular file"),
    ];
    for (out, word) in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .args(["egdb", "build", "--pieces", "5", "--out"])
            .arg(&out)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Generous: the build itself takes minutes.
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("--out {}: still building after 20 s", out.display());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let result = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&out.display().to_string()) && err.contains(word),
            "{err}"
        );
        // (The first line, what the build would take, is said before.)
        assert!(
            !err.lines().any(|l| l.starts_with("slice ")),
            "built before failing: {err}"
        );
    }
    assert!(!missing.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The engine refuses a path that is not a regular file without opening it (opening a
/// FIFO with no writer blocks for ever), and keeps its options.
#[cfg(unix)]
#[test]
fn the_engine_refuses_a_fifo_without_opening_it() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.egdb");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut e = Engine::new(EngineOptions::default()).unwrap();
    let before = e.options().clone();
    let err = e
        .set_options(EngineOptions {
            egdb: Some(fifo.clone()),
            ..before.clone()
        })
        .unwrap_err();
    assert!(
        err.contains("pipe.egdb") && err.contains("FIFO") && err.contains("expected"),
        "{err}"
    );
    assert_eq!(e.options(), &before);
    let err = Database::load(&dir).unwrap_err().to_string();
    assert!(err.contains("directory"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16: a database result is reported as Scan reports one, not as material: in the
/// Hub `±(90 - plies/100)` (89.99: the database is reached after White's capture), which
/// clients read as a database win; `tammi analyze` prints "database win" and says whose
/// view the scores are from.
#[test]
fn database_results_are_reported_as_scan_does_not_as_material() {
    let dir = scratch("scan-form");
    let path = three_piece_db(&dir);
    // The answer is read before `quit` is sent: a `quit` that arrived while the database
    // was still being read would end the search before it had the database.
    let mut hub = common::hub::Hub::start();
    for line in [
        "hub".to_string(),
        "set-param name=variant value=english".into(),
        format!("set-param name=egdb value={}", path.display()),
        "pos fen=W:WK18,K19:BK1,K23".into(),
        "level depth=3".into(),
        "go think".into(),
    ] {
        hub.send(&line);
    }
    let out = hub.until("done").join("\n");
    hub.send("quit");
    let scores: Vec<f64> = out
        .lines()
        .filter(|l| l.starts_with("info"))
        .filter_map(|l| l.split_whitespace().find_map(|t| t.strip_prefix("score=")))
        .map(|s| s.parse().unwrap())
        .collect();
    // White wins: 89.99 (one ply to the database), at every depth.
    assert!(!scores.is_empty(), "{out}");
    assert!(scores.iter().all(|&s| s == 89.99), "{out}");

    let (code, out, err) = common::tammi(&[
        "analyze",
        "-v",
        "english",
        "--fen",
        "W:WK18,K19:BK1,K23",
        "--egdb",
        path.to_str().unwrap(),
        "--depth",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("score database win"), "{out}");
    assert!(
        out.contains("from the view of the side to move (White)"),
        "{out}"
    );
    assert!(!out.contains("score +8"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A position that is itself in the database reports the database's value, lost or
/// drawn as well as won: the search there probes only smaller positions, and used to
/// report their evaluation (`-1.53` for two kings against one).
#[test]
fn a_root_in_the_database_reports_its_value() {
    let dir = scratch("root-value");
    let path = three_piece_db(&dir);
    for (fen, hub_score, text) in [
        ("B:WK18,K19:BK1", "-89.99", "score database loss"),
        ("W:WK18,K19:BK1", "89.99", "score database win"),
        ("W:WK18:BK1", "0.00", "score +0.00"),
    ] {
        let (code, out, err) = common::tammi(&[
            "analyze",
            "-v",
            "english",
            "--fen",
            fen,
            "--egdb",
            path.to_str().unwrap(),
            "--depth",
            "3",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(text), "{fen}: {out}");
        let mut e = Engine::new(EngineOptions {
            egdb: Some(path.clone()),
            ..EngineOptions::default()
        })
        .unwrap();
        e.set_position(Variant::English, fen, &[]).unwrap();
        let done = e.think(Limits::depth(3), |_| {});
        let hub = tammi::hub::protocol::hub_score(done.score.unwrap());
        assert_eq!(format!("{hub:.2}"), hub_score, "{fen}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_line_writes_reads_and_refuses_distances() {
    let dir = scratch("dtc-cli");
    let path = three_piece_db(&dir);
    let db = path.to_str().unwrap();
    let dtc = dir.join("english3.egdb.dtc");
    let (code, stdout, err) = tammi(&["egdb", "distance", "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("distances of 2 to 3 pieces"), "{stdout}");
    assert!(err.contains("longest"), "progress on stderr: {err}");
    assert!(dtc.is_file());
    // Probe and info read FILE.dtc beside the database by themselves.
    let probe = |fen: &str| tammi(&["egdb", "probe", "--db", db, "--fen", fen]);
    let (code, win, err) = probe("W:WK18,K19:BK1");
    assert_eq!(code, 0, "{err}");
    assert!(
        win.starts_with("win for white (to move), conversion in ") && win.contains(" plies"),
        "{win}"
    );
    // Black to move after White's best move: one ply less.
    let plies = |s: &str| -> u32 {
        s.split("conversion in ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(plies(&win) >= 2, "{win}");
    assert_eq!(probe("W:WK18:BK1").1.trim(), "draw");
    let (code, stdout, _) = tammi(&["egdb", "info", "--db", db]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("distance to conversion: 2 to 3 pieces"),
        "{stdout}"
    );
    // Bad requests: a clear error, no panic, nothing written.
    let (code, _, err) = tammi(&["egdb", "distance", "--db", db, "--pieces", "4"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--pieces 4") && err.contains("2 to 3"),
        "{err}"
    );
    let missing = dir.join("nowhere/x.dtc");
    let (code, _, err) = tammi(&[
        "egdb",
        "distance",
        "--db",
        db,
        "--out",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot create"), "{err}");
    let (code, _, err) = tammi(&["egdb", "distance", "--db", db, "--out", db]);
    assert_eq!(code, 2);
    assert!(err.contains("the database itself"), "{err}");
    // A damaged or cut distance file is refused, by the tools and by the engine.
    let good = std::fs::read(&dtc).unwrap();
    let mut bad = good.clone();
    let at = bad.len() / 2;
    bad[at] ^= 1;
    for damaged in [bad, good[..good.len() - 3].to_vec()] {
        std::fs::write(&dtc, &damaged).unwrap();
        let (code, _, err) = probe("W:WK18,K19:BK1");
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("not a sound tammi distance file"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        let err = Engine::new(EngineOptions {
            hash_mb: 8,
            egdb: Some(path.clone()),
            ..EngineOptions::default()
        })
        .unwrap_err();
        assert!(err.contains("english3.egdb.dtc"), "{err}");
    }
    // Written again over the damaged one (which is not read for that).
    let (code, _, err) = tammi(&["egdb", "distance", "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&dtc).unwrap(), good);
    // A run cut short (its last section half written) goes on from FILE.dtc.part: the
    // slices there are read back, not made again, and the file is the same to the byte.
    let part = dir.join("english3.egdb.dtc.part");
    std::fs::remove_file(&dtc).unwrap();
    std::fs::write(&part, &good[..good.len() * 2 / 3]).unwrap();
    let (code, _, err) = tammi(&["egdb", "distance", "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("read back from the last run"), "{err}");
    assert!(err.contains("longest"), "{err}");
    assert_eq!(std::fs::read(&dtc).unwrap(), good);
    assert!(!part.exists());
    // An earlier run of other distances is not taken for this one's.
    let mut other = good[..good.len() / 2].to_vec();
    let name = other.iter().position(|&b| b == b'\n').unwrap() + 1;
    other[name..name + 7].copy_from_slice(b"russian");
    std::fs::write(&part, &other).unwrap();
    let (code, _, err) = tammi(&["egdb", "distance", "--db", db]);
    assert_eq!(code, 2);
    assert!(err.contains("remove it to start afresh"), "{err}");
    assert_eq!(std::fs::read(&part).unwrap(), other, "left as it was");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With FILE.dtc beside the database, a won root plays a move that converts soonest and
/// a lost one a move that holds out longest; the search alone (a depth-1 search probes
/// only smaller slices) would choose among the equally won moves by the evaluation.
#[test]
fn with_distances_the_root_converts_soonest_and_defends_longest() {
    use tammi::notation::parse_fen;
    use tammi::rules::{Board, English, Position};

    let dir = scratch("dtc-root");
    let path = three_piece_db(&dir);
    let (code, _, err) = tammi(&["egdb", "distance", "--db", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let db = Database::load(&path).unwrap();
    assert_eq!(db.distance_pieces(), 3);
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 8,
        egdb: Some(path.clone()),
        ..EngineOptions::default()
    })
    .unwrap();
    let (mut won, mut lost) = (0, 0);
    let mut list = Vec::new();
    // Two kings against one, both sides to move: a sample of the placements.
    for a in 1..=32u32 {
        for b in (a + 1)..=32u32 {
            for c in 1..=32u32 {
                if c == a || c == b || (a * 7 + b * 3 + c) % 5 != 0 {
                    continue;
                }
                for side in ['W', 'B'] {
                    let fen = format!("{side}:WK{a},K{b}:BK{c}");
                    let pos: Position<English> = parse_fen(&fen).unwrap();
                    let value = db.probe(&pos).unwrap();
                    if value == tammi::egdb::Wld::Draw {
                        continue;
                    }
                    pos.generate(&mut list);
                    // The moves that keep the value: to a position lost (won) for the
                    // opponent.
                    let after = if value == tammi::egdb::Wld::Win {
                        tammi::egdb::Wld::Loss
                    } else {
                        tammi::egdb::Wld::Win
                    };
                    let keeps: Vec<_> = list
                        .iter()
                        .filter(|m| db.probe(&pos.play(m)) == Some(after))
                        .collect();
                    let d: Vec<u8> = keeps
                        .iter()
                        .map(|m| db.move_distance(&pos, m).unwrap())
                        .collect();
                    let want = if value == tammi::egdb::Wld::Win {
                        *d.iter().min().unwrap()
                    } else {
                        *d.iter().max().unwrap()
                    };
                    if d.iter().all(|&x| x == want) {
                        continue; // nothing to choose
                    }
                    engine.set_position(Variant::English, &fen, &[]).unwrap();
                    let played = engine.think(Limits::depth(1), |_| {}).best_move.unwrap();
                    let i = keeps
                        .iter()
                        .position(|mv| mv.erase() == played)
                        .unwrap_or_else(|| panic!("{fen}: {played:?} lets the value go"));
                    assert_eq!(d[i], want, "{fen}: {played:?} of {d:?}");
                    if value == tammi::egdb::Wld::Win {
                        won += 1;
                    } else {
                        lost += 1;
                    }
                }
            }
        }
    }
    assert!(won > 100 && lost > 100, "{won} {lost}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Play `start` out with `engine` on both sides (depth 6 a move), keeping english's
/// 40-move rule (80 plies without a capture or a man's move) and threefold repetition:
/// "win" if the side to move at the start wins, else how it ended.
fn play_out_english(
    engine: &mut Engine,
    start: &tammi::rules::Position<tammi::rules::English>,
) -> &'static str {
    use tammi::notation::{format_hub_move, write_fen};
    use tammi::rules::Notation;
    use tammi::rules::{Bits, Board, English, Position};
    let fen = write_fen(start, Notation::Numeric);
    engine.new_game();
    let (mut pos, mut moves, mut quiet) = (*start, Vec::new(), 0);
    let mut seen = std::collections::HashMap::new();
    let mut list = Vec::new();
    for ply in 0..400 {
        pos.generate(&mut list);
        if list.is_empty() {
            return if ply % 2 == 1 { "win" } else { "loss" };
        }
        if quiet >= 80 {
            return "draw by the 40-move rule";
        }
        let seen_here = seen.entry(pos.hash()).or_insert(0);
        *seen_here += 1;
        if *seen_here == 3 {
            return "draw by repetition";
        }
        engine.set_position(Variant::English, &fen, &moves).unwrap();
        let best = engine.think(Limits::depth(6), |_| {}).best_move.unwrap();
        let m = *list.iter().find(|m| m.erase() == best).unwrap();
        let man = (pos.kings() & <Position<English> as Board>::B::bit(m.from as u32)).is_empty();
        if m.is_capture() || man {
            quiet = 0;
            seen.clear();
        } else {
            quiet += 1;
        }
        moves.push(format_hub_move::<Position<English>>(&m));
        pos = pos.play(&m);
    }
    "unfinished"
}

/// The point of the distances: from won 4-piece english positions far from conversion,
/// the engine with FILE.dtc on both sides wins every game within the 40-move rule.
#[test]
fn with_distances_long_wins_are_won_within_the_40_move_rule() {
    use tammi::egdb::index::{Geometry, Slice};
    use tammi::rules::{English, Position};
    type P = Position<English>;
    let dir = scratch("dtc-play");
    let path = dir.join("english4.egdb");
    let mut db = Database::build(Variant::English, 4, &mut |_, _, _| {}).unwrap();
    db.save(&path).unwrap();
    db.build_distances(4, &mut |_| {}).unwrap();
    db.save_distances(&tammi::egdb::distance::distance_path(&path))
        .unwrap();
    let geo = Geometry::of::<P>();
    let mut starts = Vec::new();
    for slice in Slice::with_pieces(4) {
        let mut got = 0;
        for i in (0..geo.size(&slice)).step_by(2 * 13) {
            let Some(sq) = geo.decode(&slice, i) else {
                continue;
            };
            let pos: P = geo.position(&sq);
            if got < 6
                && db.probe(&pos) == Some(tammi::egdb::Wld::Win)
                && db.distance(&pos).is_some_and(|d| d >= 16)
            {
                starts.push(pos);
                got += 1;
            }
        }
    }
    assert!(starts.len() >= 10, "{}", starts.len());
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        egdb: Some(path.clone()),
        ..EngineOptions::default()
    })
    .unwrap();
    for start in &starts {
        let fen = tammi::notation::write_fen(start, tammi::rules::Notation::Numeric);
        assert_eq!(play_out_english(&mut engine, start), "win", "{fen}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_of_databases_serves_the_variant_played() {
    let dir = scratch("directory");
    let english = three_piece_db(&dir);
    // Fewer pieces of the same variant: not the one chosen. File names do not matter.
    Database::build(Variant::English, 2, &mut |_, _, _| {})
        .unwrap()
        .save(&dir.join("zz-english-small.egdb"))
        .unwrap();
    let russian = dir.join("r.bin");
    Database::build(Variant::Russian, 3, &mut |_, _, _| {})
        .unwrap()
        .save(&russian)
        .unwrap();
    std::fs::write(dir.join("notes.txt"), b"not a database").unwrap();
    let locate = |v| tammi::egdb::locate(&dir, v).unwrap();
    assert_eq!(locate(Variant::English), Some(english.clone()));
    assert_eq!(locate(Variant::Russian), Some(russian.clone()));
    assert_eq!(locate(Variant::International), None);
    // A single file is itself, whatever the variant asked.
    assert_eq!(
        tammi::egdb::locate(&russian, Variant::English).unwrap(),
        Some(russian.clone())
    );
    // A build under way (OUT.part: a header of more pieces, the slices not all there)
    // is not a database yet.
    let building = scratch("directory-building");
    let small = building.join("small.egdb");
    std::fs::copy(dir.join("zz-english-small.egdb"), &small).unwrap();
    let mut part = std::fs::read(&english).unwrap();
    part.truncate(part.len() / 2);
    std::fs::write(building.join("big.egdb.part"), part).unwrap();
    assert_eq!(
        tammi::egdb::locate(&building, Variant::English).unwrap(),
        Some(small)
    );
    std::fs::remove_dir_all(&building).unwrap();
    let empty = scratch("directory-empty");
    std::fs::write(empty.join("notes.txt"), b"not a database").unwrap();
    let err = tammi::egdb::locate(&empty, Variant::English).unwrap_err();
    assert!(format!("{err:#}").contains("holds no file written by tammi egdb build"));
    let err = Engine::new(EngineOptions {
        egdb: Some(empty.clone()),
        ..EngineOptions::default()
    })
    .unwrap_err();
    assert!(err.contains("directory-empty"), "{err}");

    // The engine follows the variant of the position: a database score in english
    // and in russian (each needs its own variant's file), none in international.
    let mut e = Engine::new(EngineOptions {
        hash_mb: 8,
        egdb: Some(dir.clone()),
        ..EngineOptions::default()
    })
    .unwrap();
    let score = |e: &mut Engine, v, fen: &str| {
        e.set_position(v, fen, &[]).unwrap();
        e.think(Limits::depth(3), |_| {}).score
    };
    let won = |s: &Option<Score>| matches!(s, Some(Score::Database(n)) if *n > 0);
    let s = score(&mut e, Variant::English, "W:WK18,K19:BK1,K23");
    assert!(won(&s), "english: {s:?}");
    // A flying king takes from afar: won in russian only.
    let s = score(&mut e, Variant::Russian, "W:WKa1,Kh8:BKf6");
    assert!(won(&s), "russian: {s:?}");
    let s = score(&mut e, Variant::International, "W:WK46,K45:BK3");
    assert!(
        !matches!(s, Some(Score::Database(_))),
        "international: {s:?}"
    );
    let s = score(&mut e, Variant::English, "W:WK18,K19:BK1,K23");
    assert!(won(&s), "english again: {s:?}");
    assert_eq!(e.options().egdb.as_deref(), Some(dir.as_path()));

    // The command line: the directory's file of the position's variant, or an error
    // saying there is none.
    let d = dir.to_str().unwrap();
    let (code, stdout, err) = tammi(&[
        "analyze",
        "--variant",
        "english",
        "--fen",
        "W:WK18,K19:BK1,K23",
        "--depth",
        "3",
        "--egdb",
        d,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("database win"), "{stdout}");
    let (code, _, err) = tammi(&[
        "analyze",
        "--variant",
        "international",
        "--depth",
        "2",
        "--egdb",
        d,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds no international endgame database"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn the_probe_benchmark_probes_every_position_it_draws() {
    let dir = scratch("bench");
    let path = three_piece_db(&dir);
    let (code, stdout, err) = tammi(&[
        "egdb",
        "bench",
        "--db",
        path.to_str().unwrap(),
        "--probes",
        "1000",
    ]);
    assert_eq!(code, 0, "{err}");
    // 1000 once, 256 to warm the cache, 1000 warm: every one answered.
    assert!(stdout.contains("2256 probes answered"), "{stdout}");
    assert!(stdout.contains("M probes/s warm"), "{stdout}");
    let (code, _, err) = tammi(&[
        "egdb",
        "bench",
        "--db",
        path.to_str().unwrap(),
        "--probes",
        "0",
    ]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_english_king_against_king_counts_match_the_published_ones() {
    // Published for english (a builder's report on damforum.nl, "2-piece database, 1 white
    // king vs 1 red king"): of the 992 placements with White to move, 230 are won (the
    // capture at once, or a king driven into one), 654 drawn and 108 lost.
    use tammi::egdb::Wld;
    use tammi::notation::parse_fen;
    use tammi::rules::{English, Position};

    let db = Database::build(Variant::English, 2, &mut |_, _, _| {}).unwrap();
    let mut counts = [0u32; 3];
    for w in 1..=32u32 {
        for b in (1..=32u32).filter(|&b| b != w) {
            let pos: Position<English> = parse_fen(&format!("W:WK{w}:BK{b}")).unwrap();
            let i = match db.probe(&pos).unwrap() {
                Wld::Win => 0,
                Wld::Draw => 1,
                Wld::Loss => 2,
            };
            counts[i] += 1;
        }
    }
    assert_eq!(counts, [230, 654, 108]);
}

#[test]
fn the_games_command_finds_the_moves_that_let_a_database_result_go() {
    use tammi::egdb::Wld;
    use tammi::notation::{format_move, parse_fen};
    use tammi::rules::{Board, English, Notation, Position};
    type E = Position<English>;

    let dir = scratch("games");
    let db_path = three_piece_db(&dir);
    let db = Database::load(&db_path).unwrap();
    let start_fen = "W:WK10,K19:BK1";
    let start: E = parse_fen(start_fen).unwrap();
    assert_eq!(db.probe(&start), Some(Wld::Win));
    let legal = |p: &E| {
        let mut l = Vec::new();
        p.generate(&mut l);
        l
    };
    // Game 1: White hangs a king (one king against one: a draw), Black takes it.
    let moves = legal(&start);
    let slip = moves
        .iter()
        .find(|m| db.probe(&start.play(m)) == Some(Wld::Draw))
        .expect("a king can be given away");
    let slip_text = format_move(&start, slip, &moves, Notation::Numeric);
    let after = start.play(slip);
    let replies = legal(&after);
    let reply_text = format_move(&after, &replies[0], &replies, Notation::Numeric);
    // Game 2: White keeps the win for a move each and the game is called a draw there.
    let keep = moves
        .iter()
        .find(|m| db.probe(&start.play(m)) == Some(Wld::Loss))
        .unwrap();
    let keep_text = format_move(&start, keep, &moves, Notation::Numeric);
    let pdn = format!(
        "[White \"Alpha\"]\n[Black \"Beta\"]\n[GameType \"21\"]\n[FEN \"{start_fen}\"]\n\
         [Result \"1/2-1/2\"]\n1. {slip_text} {reply_text} 1/2-1/2\n\n\
         [White \"Beta\"]\n[Black \"Alpha\"]\n[GameType \"21\"]\n[FEN \"{start_fen}\"]\n\
         [Result \"1/2-1/2\"]\n1. {keep_text} 1/2-1/2\n"
    );
    let games = dir.join("games.pdn");
    std::fs::write(&games, pdn).unwrap();
    let run = || {
        tammi(&[
            "egdb",
            "games",
            "--db",
            db_path.to_str().unwrap(),
            games.to_str().unwrap(),
        ])
    };
    let (code, text, err) = run();
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains(&format!(
            "game 1 (Alpha - Beta): ply 1 {slip_text} by white (Alpha): a white win became a draw"
        )),
        "{text}"
    );
    assert!(
        text.contains("game 2 (Beta - Alpha): ended a draw in a database win for white (Beta)"),
        "{text}"
    );
    assert!(
        text.contains("Alpha: 2 games, 2 in the database; database wins let go 1, draws lost 0, wins not won at the end 0"),
        "{text}"
    );
    assert!(
        text.contains("Beta: 2 games, 2 in the database; database wins let go 0, draws lost 0, wins not won at the end 1"),
        "{text}"
    );
    assert!(
        text.contains("2 games of english (2 reached the database of up to 3 pieces): 1 slips"),
        "{text}"
    );

    // With the distances beside it, game 2's win is told apart: White kept it one ply, and
    // two kings need more than that to catch the third.
    let (code, text, err) = tammi(&["egdb", "distance", "--db", db_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    let (code, text, err) = run();
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("game 2 (Beta - Alpha): ended a draw in a database win for white (Beta), 1 ply after the win arose at ply 0")
            && text.contains("not convertible"),
        "{text}"
    );
    assert!(
        text.contains("Beta: 2 games, 2 in the database; database wins let go 0, draws lost 0, wins not won at the end 0 (and 1 ended too soon to convert)"),
        "{text}"
    );

    // A game that does not replay is named, and the exit status says so.
    std::fs::write(
        &games,
        format!("[GameType \"21\"]\n[FEN \"{start_fen}\"]\n1. 1-6 *\n"),
    )
    .unwrap();
    let (code, text, _) = run();
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("cannot replay"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}
