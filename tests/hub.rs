//! The Hub protocol, driven through a real `tammi hub` child process.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::common;

use common::hub::{Hub, PATIENCE};

fn arg<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|t| t.strip_prefix(&format!("{name}=")))
}

#[test]
fn handshake_declares_parameters_as_key_value_tokens() {
    let mut hub = Hub::start();
    let lines = hub.handshake();
    assert!(lines[0].starts_with("id name=tammi"));
    for name in [
        "variant",
        "threads",
        "hash",
        "tt-size",
        "ponder",
        "multipv",
        "move-overhead",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("param name={name} "))),
            "{name} missing: {lines:?}"
        );
    }
    // pydraughts splits every token at '=': each must be key=value.
    for l in &lines[..lines.len() - 1] {
        let mut quoted = false;
        for part in l.split(' ').skip(1) {
            if !quoted {
                assert!(part.contains('='), "token '{part}' in '{l}'");
            }
            quoted ^= part.matches('"').count() % 2 == 1;
        }
    }
    // Exactly the variants tammi plays (issue 18: `frisian` was listed and refused before
    // tammi played it).
    let variant = lines.iter().find(|l| l.contains("name=variant")).unwrap();
    let values = variant
        .split("values=\"")
        .nth(1)
        .unwrap()
        .trim_end_matches('"');
    let mut listed: Vec<&str> = values.split_whitespace().collect();
    listed.sort_unstable();
    let mut played: Vec<&str> = tammi::rules::ALL_VARIANTS
        .iter()
        .map(|v| v.hub_name())
        .collect();
    played.sort_unstable();
    assert_eq!(listed, played, "{variant}");
    assert!(
        listed.contains(&"frisian") && listed.contains(&"frysk"),
        "{variant}"
    );
}

/// Frisian and frysk! are played over the Hub: an orthogonal capture (e5 takes e7, 28x8)
/// is the only legal move, and it is the answer.
#[test]
fn frisian_and_frysk_are_played() {
    let mut squares = vec!['e'; 50];
    squares[27] = 'w';
    squares[17] = 'b';
    let pos: String = squares.into_iter().collect();
    for v in ["frisian", "frysk", "frysk!"] {
        let mut hub = Hub::ready();
        hub.send(&format!("set-param name=variant value={v}"));
        hub.send(&format!("pos pos=W{pos}"));
        hub.send("level depth=3");
        hub.send("go think");
        assert_eq!(hub.last("done"), "done move=28x8x18", "{v}");
    }
}

/// Issue 18: a variant that is not played is an error, and until a played one is set no
/// `go` returns a move (an error and `done move=""`), whatever was set up before; `pos`
/// is refused too. A valid variant then plays again.
#[test]
fn a_variant_not_played_leaves_no_search_until_a_played_one_is_set() {
    for refused in ["xiangqi", "chess", "\"\"", "normall", "frisiann"] {
        let mut hub = Hub::ready();
        hub.send("set-param name=variant value=english");
        hub.send("pos pos=W:W32:B28,5");
        hub.send(&format!("set-param name=variant value={refused}"));
        let e = hub.last("error");
        assert!(
            e.contains("not played") && e.contains("normal"),
            "{refused}: {e}"
        );
        for mode in ["think", "analyze", "ponder"] {
            hub.send("level depth=3");
            hub.send(&format!("go {mode}"));
            let lines = hub.until("done");
            assert_eq!(
                lines.last().unwrap(),
                "done move=\"\"",
                "{refused} {mode}: {lines:?}"
            );
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("error") && l.contains("no variant is set")),
                "{refused} {mode}: {lines:?}"
            );
            assert!(!lines.iter().any(|l| l.starts_with("info")), "{lines:?}");
        }
        // A position cannot be set meanwhile (in which variant?), nor weights.
        hub.send("pos");
        let e = hub.last("error");
        assert!(e.contains("no variant is set"), "{e}");
        hub.send("set-param name=weights value=\"\"");
        let e = hub.last("error");
        assert!(e.contains("no variant is set"), "{e}");
        // Another refused value keeps it so; a played one ends it.
        hub.send("set-param name=variant value=xiangqi");
        hub.last("error");
        hub.send("go think");
        assert_eq!(hub.last("done"), "done move=\"\"");
        hub.send("set-param name=variant value=normal");
        hub.send("pos pos=W:W32:B28,5");
        hub.send("go think");
        assert_eq!(hub.last("done"), "done move=32x23x28", "{refused}");
    }
}

#[test]
fn draughtsnet_sequence() {
    // What lidraughts' analysis client sends: parameters after init, a node limit,
    // analysis, then stop.
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("set-param name=threads value=1");
    hub.send("set-param name=tt-size value=20");
    hub.send("set-param name=variant value=normal");
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 28x19x23 14x23x19\"");
    hub.send("level nodes=20000");
    hub.send("go analyze");
    let lines = hub.until("done");
    let done = lines.last().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info ") && l.contains("nodes="))
    );
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    let best = arg(done, "move").unwrap();
    assert!(!best.is_empty());
    // A stop after the search ended is harmless and answers nothing.
    hub.send("stop");
    hub.send("ping");
    assert_eq!(hub.last("pong"), "pong");
    // Infinite analysis ended by stop: exactly one done.
    hub.send("pos");
    hub.send("go analyze");
    hub.until("info");
    hub.send("stop");
    hub.until("done");
    hub.send("ping");
    let after = hub.until("pong");
    assert!(!after.iter().any(|l| l.starts_with("done")), "{after:?}");
}

#[test]
fn ping_is_answered_during_a_search_and_every_level_form_is_accepted() {
    let mut hub = Hub::ready();
    for level in [
        "level depth=4",
        "level ply=4",
        "level nodes=5000",
        "level move-time=0.05",
        "level time=1 inc=0.01",
        "level moves=40 time=2",
        "level moves=40 time=2 inc=0.5",
    ] {
        hub.send("pos");
        hub.send(level);
        hub.send("go think");
        hub.send("ping");
        let lines = hub.until("done");
        assert!(
            !lines.iter().any(|l| l.starts_with("error")),
            "{level}: {lines:?}"
        );
        hub.send("ping");
        hub.until("pong");
    }
    hub.send("pos");
    hub.send("level infinite");
    hub.send("go think");
    hub.until("info");
    hub.send("ping");
    hub.until("pong");
    hub.send("stop");
    hub.until("done");
}

#[test]
fn ponder_then_ponder_hit() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("pos");
    hub.send("level move-time=0.2");
    hub.send("go ponder");
    hub.until("info");
    hub.send("ponder-hit");
    let done = hub.last("done");
    assert!(arg(&done, "move").is_some());
}

#[test]
fn a_forced_move_is_answered_at_once() {
    let mut hub = Hub::start();
    hub.handshake();
    // White's only move is the capture 28x19 (over 23... here 32x23 over 28? see below):
    // one white man on 32 next to a black man on 28 with 23 empty.
    hub.send("pos pos=W:W32:B28,5");
    hub.send("level move-time=60");
    let t = Instant::now();
    hub.send("go think");
    let done = hub.last("done");
    assert_eq!(arg(&done, "move"), Some("32x23x28"));
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn bad_input_gets_an_error_and_keeps_the_state() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("pos pos=W:W32:B28,5");
    for bad in [
        "pos moves=\"32-28",
        "pos pos=Wxyz",
        "pos pos=W:W32:B28,5 moves=\"32x23 99-98\"",
        "level depth=abc",
        "level depth=-3",
        "level move-time=-1",
        "set-param name=threads value=0",
        "set-param name=hash value=lots",
        "frobnicate",
        "go sideways",
    ] {
        hub.send(bad);
        let e = hub.last("error");
        assert!(e.starts_with("error message="), "{bad}: {e}");
    }
    // The illegal move inside `moves` is named.
    hub.send("pos pos=W:W32:B28,5 moves=\"32x23x28 5-10 19-24\"");
    let e = hub.last("error");
    assert!(e.contains("19-24"), "{e}");
    // Still the position from before all that: the forced capture.
    hub.send("go think");
    let done = hub.last("done");
    assert_eq!(arg(&done, "move"), Some("32x23x28"));
}

#[test]
fn english_and_canadian_through_raw_hub_lines() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("set-param name=variant value=english");
    // 33 characters: Black to move, men on 1-12, White on 21-32.
    hub.send(&format!(
        "pos pos=B{}{}{}",
        "b".repeat(12),
        "e".repeat(8),
        "w".repeat(12)
    ));
    hub.send("level depth=5");
    hub.send("go think");
    let done = hub.last("done");
    let mv = arg(&done, "move").unwrap();
    let from: u32 = mv.split('-').next().unwrap().parse().unwrap();
    assert!((9..=12).contains(&from), "{done}");
    hub.send("set-param name=variant value=canadian");
    hub.send(&format!(
        "pos pos=W{}{}{}",
        "b".repeat(30),
        "e".repeat(12),
        "w".repeat(30)
    ));
    hub.send("level depth=3");
    hub.send("go think");
    let done = hub.last("done");
    let from: u32 = arg(&done, "move")
        .unwrap()
        .split('-')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((43..=48).contains(&from), "{done}");
}

#[test]
fn end_of_input_exits() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("pos");
    hub.send("go analyze");
    hub.until("info");
    drop(hub.stdin.take());
    let t = Instant::now();
    loop {
        if hub.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            t.elapsed() < PATIENCE,
            "tammi hub did not exit at end of input"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A small deterministic generator so the fuzz input is repeatable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn fuzz_a_hundred_thousand_random_and_mutated_lines() {
    const SEEDS: &[&str] = &[
        "hub",
        "init",
        "pos",
        "pos start",
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"",
        "pos pos=W:W31-50:B1-20 moves=\"32-28 19-23 28x19x23\"",
        "level depth=2",
        "level nodes=300",
        "level move-time=0.001",
        "level moves=40 time=0.5 inc=0.01",
        "go think",
        "go analyze",
        "stop",
        "ping",
        "new-game",
        "set-param name=variant value=english",
        "set-param name=variant value=normal",
        "set-param name=multipv value=2",
        "ponder-hit",
    ];
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz=\" -0123456789.WBwbex\t\x00\x7f\xc3\xa9";
    let mut rng = Rng(0x7a11);
    let mut input = Vec::new();
    for i in 0..100_000 {
        let mut line: Vec<u8> = if i % 3 == 0 {
            (0..rng.below(60))
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect()
        } else {
            SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec()
        };
        if i % 3 == 1 {
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(line.len() + 1);
                match rng.below(3) {
                    0 if at < line.len() => {
                        line.remove(at);
                    }
                    1 => line.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                    _ => line.truncate(at),
                }
            }
        }
        // Searches must stay short: never let a mutated line start an unbounded one.
        let text = String::from_utf8_lossy(&line);
        if text.contains("go")
            || text.contains("quit")
            || text.contains("level")
            || text.contains("hash")
            || text.contains("thread")
            || text.contains("tt-size")
        {
            input.extend_from_slice(b"level nodes=200\ngo think\n");
            continue;
        }
        input.extend_from_slice(&line);
        input.push(b'\n');
        if i % 1000 == 0 {
            input.extend_from_slice(b"ping\n");
        }
    }
    // Unknown commands are answered with an error that quotes them: a marker.
    input.extend_from_slice(b"stop\nfuzz-end-marker\n");
    let mut hub = Hub::start();
    let mut stdin = hub.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).expect("tammi hub reads all input");
        stdin
    });
    let mut pongs = 0;
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        match hub
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(l) if l == "pong" => pongs += 1,
            Ok(l) if l.contains("fuzz-end-marker") => break,
            Ok(_) => {}
            Err(e) => panic!("tammi hub stopped answering after {pongs} pongs: {e:?}"),
        }
    }
    assert!(pongs >= 100, "only {pongs} pongs");
    hub.stdin = Some(writer.join().unwrap());
    assert!(hub.child.try_wait().unwrap().is_none(), "tammi hub died");
    hub.send("ping");
    hub.until("pong");
}

/// A figure from /proc/PID/status in kB (Linux only), e.g. `VmHWM`, the peak resident size.
#[cfg(target_os = "linux")]
fn proc_status_kb(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("{key} missing from /proc/{pid}/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The memory bound: the hash size plus 50 MB, peak, through a search with two
/// threads. The lower bound shows the table really is allocated (so the peak measures it).
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_within_the_hash_size_plus_fifty_mb() {
    const HASH_MB: u64 = 128;
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until("wait");
    hub.send(&format!("set-param name=hash value={HASH_MB}"));
    hub.send("set-param name=threads value=2");
    // Searches, not book moves (which would leave the table untouched).
    hub.send("set-param name=book value=false");
    hub.send("init");
    hub.until("ready");
    hub.send("level move-time=1");
    hub.send("go think");
    hub.until("done");
    // A second search after a new game: clearing the table must not allocate another.
    hub.send("new-game");
    hub.send("pos pos=W:W31-50:B1-20 moves=\"32-28 19-23 28x19 14x23\"");
    hub.send("level move-time=1"); // every pos clears the limits
    hub.send("go think");
    hub.until("done");
    let peak_mb = proc_status_kb(hub.child.id(), "VmHWM") / 1024;
    assert!(
        peak_mb <= HASH_MB + 50,
        "peak resident {peak_mb} MB with hash={HASH_MB}"
    );
    assert!(
        peak_mb >= HASH_MB,
        "peak resident {peak_mb} MB: table not allocated?"
    );
}

/// Issue 16: `pos` refuses what it does not understand, as `level` does, and keeps the
/// position: an unknown argument, a misspelt one, and a move list that lost its quotes.
#[test]
fn pos_refuses_unknown_and_malformed_arguments_and_keeps_the_position() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("pos pos=W:W32:B28,5");
    for (bad, says) in [
        ("pos bogus=1", "unknown argument 'bogus'"),
        ("pos Fen=B:W28:B19", "unknown argument 'Fen'"),
        (
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=32-28 19-23",
            "must be quoted",
        ),
        ("pos pos=W:W32:B19 pos=W:W33:B19", "given twice"),
        ("pos moves", "needs a value"),
    ] {
        hub.send(bad);
        let e = hub.last("error");
        assert!(e.contains(says), "{bad}: {e}");
        assert!(e.contains("previous position is kept"), "{bad}: {e}");
    }
    // Still the forced capture of the first position.
    hub.send("go think");
    let done = hub.last("done");
    assert_eq!(arg(&done, "move"), Some("32x23x28"));
    // The forms that are meant still work: start as a flag, quoted moves.
    hub.send("pos start moves=\"32-28 19-23\"");
    hub.send("level depth=1");
    hub.send("go think");
    let done = hub.last("done");
    assert_eq!(arg(&done, "move"), Some("28x19x23"), "{done}");
}

/// Issue 16: a position string of the wrong length is named as such, with the length the
/// variant needs, not read as a FEN with a bad side letter.
#[test]
fn a_position_string_of_the_wrong_length_says_so() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("set-param name=variant value=english");
    // pydraughts' 10x10 string sent to an 8x8 variant: 51 characters.
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
    let e = hub.last("error");
    assert!(e.contains("wrong length"), "{e}");
    assert!(e.contains("51 characters"), "{e}");
    assert!(e.contains("needs 33"), "{e}");
    assert!(!e.contains("FEN must start"), "{e}");
}

/// Issue 16: pydraughts' HubEngine conventions behind `set-param name=client
/// value=pydraughts`. English: it writes the start with its first mover (Black) as `W`.
/// Russian and brazilian: its moves count the squares from White's side (its 9-13 is
/// a3-b4, lidraughts' 21-17), in the moves it sends and in the answers it reads.
#[test]
fn pydraughts_client_conventions_in_english_russian_and_brazilian() {
    let start = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
    let squares = |mv: &str| -> Vec<u32> {
        mv.split(['-', 'x'])
            .map(|t| t.parse().unwrap_or_else(|_| panic!("move {mv}")))
            .collect()
    };
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until("wait");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=client value=lidraughts type=enum")),
        "{lines:?}"
    );
    hub.send("set-param name=variant value=english");
    hub.send("set-param name=client value=pydraughts");
    hub.send("init");
    hub.until("ready");
    hub.send(&format!("pos pos={start}"));
    hub.send("level depth=3");
    hub.send("go think");
    let done = hub.last("done");
    let sq = squares(arg(&done, "move").unwrap());
    assert!(
        (9..=12).contains(&sq[0]) && (13..=16).contains(&sq[1]),
        "{done}"
    );
    // After Black's 11-15 White answers from 21-24 (english numbers as they are).
    hub.send(&format!("pos pos={start} moves=\"11-15\""));
    hub.send("level depth=3");
    hub.send("go think");
    let done = hub.last("done");
    let sq = squares(arg(&done, "move").unwrap());
    assert!((21..=24).contains(&sq[0]), "{done}");

    for variant in ["russian", "brazilian"] {
        hub.send(&format!("set-param name=variant value={variant}"));
        hub.send(&format!("pos pos={start}"));
        hub.send("level depth=3");
        hub.send("go think");
        let done = hub.last("done");
        let sq = squares(arg(&done, "move").unwrap());
        // White's first move, numbered from White's side: from 9-12 to 13-16.
        assert!(
            (9..=12).contains(&sq[0]) && (13..=16).contains(&sq[1]),
            "{done}"
        );
        // pydraughts' 9-13 (a3-b4); Black answers from its 21-24 to 17-20.
        hub.send(&format!("pos pos={start} moves=\"9-13\""));
        hub.send("level depth=3");
        hub.send("go think");
        let done = hub.last("done");
        let sq = squares(arg(&done, "move").unwrap());
        assert!(
            (21..=24).contains(&sq[0]) && (17..=20).contains(&sq[1]),
            "{done}"
        );
    }
    // lidraughts' numbers again: 9-13 is no white move there.
    hub.send("set-param name=client value=lidraughts");
    hub.send(&format!("pos pos={start} moves=\"9-13\""));
    let e = hub.last("error");
    assert!(e.contains("9-13"), "{e}");
    hub.send("set-param name=client value=chessbase");
    let e = hub.last("error");
    assert!(e.contains("lidraughts or pydraughts"), "{e}");
}

/// A refused `level` keeps the limits in force and says which; a `go think` with no limit
/// in force (none sent, or only refused ones) still plays, in the default move time,
/// instead of thinking until `stop`.
#[test]
fn a_refused_level_keeps_the_limits_and_go_think_still_plays() {
    let mut hub = Hub::ready();
    for bad in [
        "level depth=1000",
        "level depth=0",
        "level move-time=1e9",
        "level nodes=0",
        "level time=-1",
        "level move-time=abc",
        "level inc=-1",
        "level moves=-5",
        "level time=60 inc=1e12",
    ] {
        hub.send("pos");
        hub.send(bad);
        let error = hub.last("error");
        assert!(
            error.contains("the limits in force: none"),
            "{bad}: {error}"
        );
    }
    // After all of them, no limit is in force: `go think` plays in the default time.
    hub.send("go think");
    let done = hub
        .until_within("done", Duration::from_secs(20))
        .pop()
        .unwrap();
    assert!(arg(&done, "move").is_some_and(|m| m.len() >= 5), "{done}");
    // A limit set before a refused line stays in force, and the error names it.
    hub.send("pos");
    hub.send("level depth=2");
    hub.send("level depth=2 nodes=0");
    let error = hub.last("error");
    assert!(error.contains("the limits in force: depth=2"), "{error}");
    hub.send("go think");
    let lines = hub.until_within("done", Duration::from_secs(20));
    let depths: Vec<&str> = lines.iter().filter_map(|l| arg(l, "depth")).collect();
    assert_eq!(depths.last(), Some(&"2"), "{lines:?}");
}

/// Every advertised parameter given a value out of its range (or of the wrong type, or a
/// file that is not there) answers an error naming the value that stays, and the
/// parameters announced afterwards are the ones before; a move is then played within
/// the limit in force.
#[test]
fn every_refused_parameter_keeps_its_value_and_says_so() {
    let mut hub = Hub::start();
    hub.send("hub");
    let announced = hub.until("wait");
    let params = |lines: &[String]| -> Vec<(String, String)> {
        lines
            .iter()
            .filter(|l| l.starts_with("param "))
            .map(|l| {
                let name = arg(l, "name").unwrap().to_string();
                (name, arg(l, "value").unwrap_or("").to_string())
            })
            .collect()
    };
    let before = params(&announced);
    assert!(before.len() >= 10, "{announced:?}");
    hub.send("init");
    hub.until("ready");
    for line in announced.iter().filter(|l| l.starts_with("param ")) {
        let name = arg(line, "name").unwrap();
        let bad: Vec<String> = match arg(line, "type").unwrap() {
            "int" => {
                let min: i64 = arg(line, "min").unwrap().parse().unwrap();
                let max: i64 = arg(line, "max").unwrap().parse().unwrap();
                vec![
                    (min - 1).to_string(),
                    (max + 1).to_string(),
                    "12abc".into(),
                    "99999999999999999999999".into(),
                ]
            }
            "bool" => vec!["maybe".into()],
            "enum" => vec!["no-such-value".into()],
            "string" => vec!["/nonexistent/tammi/file".into()],
            other => panic!("type {other} in {line}"),
        };
        for value in bad {
            hub.send(&format!("set-param name={name} value={value}"));
            let error = hub.last("error");
            if name != "variant" {
                assert!(error.contains(&format!("{name} stays")), "{error}");
            }
            hub.send("hub");
            let now = params(&hub.until("wait"));
            if name == "variant" {
                // A refused variant leaves no variant to search in (see protocol.md);
                // a played one brings the engine back.
                hub.send("set-param name=variant value=normal");
            } else {
                assert_eq!(now, before, "after {name}={value}");
            }
        }
    }
    hub.send("pos");
    hub.send("level move-time=0.2");
    hub.send("go think");
    let done = hub
        .until_within("done", Duration::from_secs(20))
        .pop()
        .unwrap();
    assert!(arg(&done, "move").is_some_and(|m| m.len() >= 5), "{done}");
}

/// Breakthrough with a king on the board is over (the first king wins) although moves
/// are left: `go` says so before its empty `done`, as it does with no legal move.
#[test]
fn go_on_a_finished_game_says_why() {
    let mut hub = Hub::ready();
    hub.send("set-param name=variant value=bt");
    hub.send("pos fen=W:WK46,24,K25,34,6,K31:BK8,43,12,29,28,35");
    hub.send("go think");
    let lines = hub.until("done");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("error") && lines[0].contains("the game is over"));
    assert!(
        arg(&lines[1], "move").is_none_or(|m| m == "\"\""),
        "{lines:?}"
    );
}

/// A `pos` refused by the position parser (an illegal move) cleared the limits set before
/// it, so the next `go think` ran without them (found by .ci/fuzz). A refused line
/// changes nothing: the depth set before it still limits the search.
#[test]
fn a_refused_pos_keeps_the_limits() {
    let mut hub = Hub::ready();
    hub.send("pos");
    hub.send("level depth=1");
    hub.send("pos fen=W:W31:B1 moves=31-22");
    assert!(hub.last("error").contains("previous position is kept"));
    hub.send("go think");
    let lines = hub.until("done");
    let depths: Vec<&str> = lines.iter().filter_map(|l| arg(l, "depth")).collect();
    assert_eq!(depths, ["1"], "{lines:?}");
    // An empty network means the built-in one, which a variant without one has not:
    // nothing to do, no error.
    hub.send("set-param name=network value=\"\"");
    hub.send("ping");
    let lines = hub.until("pong");
    assert_eq!(lines, ["pong"], "{lines:?}");
}

/// A `go` on a finished game kept the limits in force, to be combined with the next
/// `level` (a stale `infinite` made a later `go think` search until `stop`; found by
/// .ci/fuzz). Every `go` uses them up.
#[test]
fn a_go_with_no_move_to_give_uses_up_the_limits() {
    let mut hub = Hub::ready();
    hub.send("pos fen=W:W:B1");
    hub.send("level infinite");
    hub.send("go think");
    assert!(hub.until("done")[0].contains("the game is over"));
    hub.send("level nodes=0");
    let error = hub.last("error");
    assert!(error.contains("the limits in force: none"), "{error}");
    hub.send("set-param name=variant value=english");
    hub.send("level depth=1");
    hub.send("go think");
    let lines = hub.until_within("done", Duration::from_secs(20));
    assert!(arg(lines.last().unwrap(), "move").is_some(), "{lines:?}");
}

/// A `moves` list of about 1 MB that repeats the same positions (the audit's case) was
/// taken without a word. The game its history has drawn is said to be over at `pos`; `go`
/// still plays (the referee applies the draw rules: pydraughts has no brazilian 5-move
/// rule and asks for a move there), and a history that draws nothing says nothing.
#[test]
fn a_history_that_draws_the_game_is_said_to_end_it() {
    let mut hub = Hub::ready();
    hub.send("set-param name=variant value=english");
    let cycle = "1-5 32-28 5-1 28-32 ";
    let moves = cycle.repeat(999_000 / cycle.len());
    assert!(moves.len() > 990_000);
    hub.send(&format!("pos fen=W:WK1:BK32 moves=\"{}\"", moves.trim()));
    hub.send("ping");
    let lines = hub.until_within("pong", Duration::from_secs(30));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info"), "{lines:?}");
    assert!(
        lines[0].contains("message=\"the game is over") && lines[0].contains("repetition"),
        "{lines:?}"
    );
    hub.send("level depth=2");
    hub.send("go think");
    let lines = hub.until_within("done", Duration::from_secs(20));
    assert_eq!(arg(lines.last().unwrap(), "move"), Some("1-5"), "{lines:?}");

    // Once round the cycle: the position has been seen twice, not three times.
    hub.send(&format!("pos fen=W:WK1:BK32 moves=\"{}\"", cycle.trim()));
    hub.send("ping");
    assert_eq!(hub.until("pong"), ["pong"]);
}

/// The parameters are declared once (`tammi::settings::PARAMS`): the Hub announces
/// exactly those, with their types, ranges and defaults; the text mode's `settings` lists
/// exactly those it has (all but the Hub's own), with their defaults, and its help names
/// them; protocol.md documents exactly those, with their types.
#[test]
fn the_parameters_announced_and_documented_are_the_table() {
    use tammi::hub::message::{ParamType, Reply};
    use tammi::rules::Variant;
    use tammi::settings::{Applies, Kind, PARAMS};
    // A variant's value is compared as the variant it names (the Hub says `normal`, the
    // text mode `international`).
    let same = |kind: Kind, a: &str, b: &str| match kind {
        Kind::Variant => a.parse::<Variant>().ok() == b.parse::<Variant>().ok(),
        _ => a == b,
    };
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until("wait");
    let announced: Vec<&String> = lines.iter().filter(|l| l.starts_with("param")).collect();
    assert_eq!(announced.len(), PARAMS.len(), "{announced:?}");
    for (line, p) in announced.iter().zip(PARAMS) {
        let Ok(Reply::Param { name, value, kind }) = Reply::decode(line) else {
            panic!("not a param line: {line}");
        };
        assert_eq!(name, p.name, "{line}");
        let value = value.unwrap_or_else(|| panic!("no value: {line}"));
        assert!(
            same(p.kind, &value, p.default),
            "{line}: default {}",
            p.default
        );
        let kind = kind.unwrap_or_else(|| panic!("no type: {line}"));
        match (p.kind, kind) {
            (Kind::Int { min, max }, ParamType::Int { min: a, max: b }) => {
                assert_eq!((a, b), (min as i64, max as i64), "{line}")
            }
            (Kind::Bool, ParamType::Bool) | (Kind::Text, ParamType::String) => {}
            (Kind::Choice { words, .. }, ParamType::Enum(e)) => assert_eq!(e, words, "{line}"),
            (Kind::Variant, ParamType::Enum(e)) => {
                let played: Vec<&str> = tammi::rules::ALL_VARIANTS
                    .iter()
                    .map(|v| v.hub_name())
                    .collect();
                assert_eq!(e, played, "{line}")
            }
            (k, t) => panic!("{line}: announced as {t:?}, declared {k:?}"),
        }
    }

    // The text mode: `settings` lists NAME=VALUE, one a line, in the table's order.
    let text = common::text_session("settings\nhelp\nquit\n");
    let listed: Vec<(&str, &str)> = text
        .split("settings (")
        .nth(1)
        .expect("a settings list")
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .map(|s| s.split_once('=').expect("NAME=VALUE"))
        .collect();
    let text_params: Vec<_> = PARAMS
        .iter()
        .filter(|p| p.applies != Applies::Protocol)
        .collect();
    let names: Vec<&str> = listed.iter().map(|(n, _)| *n).collect();
    let declared: Vec<&str> = text_params.iter().map(|p| p.name).collect();
    assert_eq!(names, declared, "{text}");
    for ((name, value), p) in listed.iter().zip(&text_params) {
        assert!(
            same(p.kind, value, p.default),
            "{name}={value}: default {}",
            p.default
        );
    }
    let help = text.split("commands:").nth(1).expect("the help");
    for p in &text_params {
        assert!(
            help.contains(p.name),
            "{} missing from the help: {help}",
            p.name
        );
    }

    // protocol.md's table of parameters: the first column of the rows under its heading.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md"))
        .expect("protocol.md");
    let section = doc
        .split("### Parameters")
        .nth(1)
        .expect("a Parameters section")
        .split("\n#")
        .next()
        .unwrap();
    let documented: Vec<(&str, &str)> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | "))
        .map(|(name, rest)| (name, rest.split(' ').next().unwrap_or("")))
        .collect();
    let declared: Vec<(&str, &str)> = PARAMS
        .iter()
        .map(|p| {
            let kind = match p.kind {
                Kind::Int { .. } => "int",
                Kind::Bool => "bool",
                Kind::Choice { .. } | Kind::Variant => "enum",
                Kind::Text => "string",
            };
            (p.name, kind)
        })
        .collect();
    assert_eq!(
        documented, declared,
        "protocol.md's parameters and their types against the table"
    );
}

/// README.md's table of options names exactly the parameters of the table
/// (`tammi::settings::PARAMS`), and each row's default is the declared one: the first
/// word of the default column (`none` and `built-in` stand for an empty value).
#[test]
fn the_readme_options_are_the_table() {
    use tammi::rules::Variant;
    use tammi::settings::{Kind, PARAMS};
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Options")
        .nth(1)
        .expect("an Options section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut named = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        // Cells split at the bars that are not escaped (`patterns\|network`).
        let row = row.replace("\\|", "/");
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 4, "{row}");
        // The first column: `name`, maybe with another form in brackets (`tt-size`).
        let names: Vec<&str> = cells[0].split('`').skip(1).step_by(2).collect();
        let p = PARAMS
            .iter()
            .find(|p| p.name == names[0])
            .unwrap_or_else(|| panic!("README names an option the table lacks: {row}"));
        let first = cells[2]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches('`');
        let agrees = match (p.kind, p.default) {
            (_, "") => first == "none" || first == "built-in",
            (Kind::Variant, d) => first.parse::<Variant>().ok() == d.parse::<Variant>().ok(),
            (_, d) => first == d,
        };
        assert!(
            agrees,
            "README's default for {}: {:?}, declared {:?}",
            p.name, cells[2], p.default
        );
        named.extend(
            PARAMS
                .iter()
                .map(|p| p.name)
                .filter(|name| names.contains(name)),
        );
    }
    let mut declared: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
    declared.sort_unstable();
    named.sort_unstable();
    assert_eq!(named, declared, "README's options against the table");
}
