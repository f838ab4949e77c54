//! `tammi gui`: the HTTP API over a real socket. The server is started with `--port 0`
//! and its first line read for the address; every request is a fresh connection, as
//! the server answers one request per connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Gui {
    child: Child,
    addr: String,
    /// Kept open as a terminal would be.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Gui {
    fn start() -> Gui {
        Gui::start_with(&[])
    }

    /// With more command-line arguments (`--engine NAME=COMMAND`).
    fn start_with(extra: &[&str]) -> Gui {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .args(["gui", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tammi gui");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        stdout.read_line(&mut line).expect("first line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Gui {
            child,
            addr,
            _stdout: stdout,
        }
    }

    /// Send raw bytes; the status and the body of the answer.
    fn raw(&self, bytes: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // The server may answer and close before all of an oversized request is sent.
        let _ = s.write_all(bytes);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer).to_string();
        let status = text
            .get(9..12)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or("", |p| p.1).to_string();
        (status, body)
    }

    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        self.raw(format!("{head}{body}").as_bytes())
    }

    fn session(&self, variant: &str) -> String {
        let (status, body) = self.request("POST", &format!("/api/session?variant={variant}"), "");
        assert_eq!(status, 200, "{body}");
        field(&body, "id")
    }

    /// The engine processes running under the server (its children, from /proc).
    fn engines(&self) -> usize {
        let pid = self.child.id().to_string();
        std::fs::read_dir("/proc")
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .filter(|e| {
                        std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                            s.rsplit(')')
                                .next()
                                .and_then(|r| r.split_whitespace().nth(1))
                                == Some(pid.as_str())
                        })
                    })
                    .count()
            })
            .unwrap_or(0)
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A string field of a JSON answer (the server writes no spaces and escapes quotes).
fn field(json: &str, name: &str) -> String {
    let key = format!("\"{name}\":\"");
    let start = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
        + key.len();
    json[start..].split('"').next().unwrap_or("").to_string()
}

/// A number field of a JSON answer.
fn number(json: &str, name: &str) -> i64 {
    let key = format!("\"{name}\":");
    let start = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
        + key.len();
    json[start..]
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{name} is not a number in {json}"))
}

/// Poll `check` until it holds; a bound so that a broken server fails the test rather
/// than hanging it (nothing is asserted about how long it took).
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(120);
    while !check() {
        assert!(Instant::now() < give_up, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn only_the_embedded_page_is_served() {
    let gui = Gui::start();
    let (status, body) = gui.request("GET", "/", "");
    assert_eq!(status, 200);
    assert!(body.contains("<svg id=\"board\""), "{body}");
    assert!(body.len() < 300 * 1024);
    for path in ["/app.js", "/style.css"] {
        assert_eq!(gui.request("GET", path, "").0, 200, "{path}");
    }
    for path in [
        "/../Cargo.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/src/gui/assets/app.js",
        "/assets/app.js",
        "//etc/passwd",
        "/api/../../etc/passwd",
    ] {
        let (status, body) = gui.request("GET", path, "");
        assert!(status == 404 || status == 400, "{path}: {status} {body}");
        assert!(
            !body.contains("root:") && !body.contains("[package]"),
            "{path}"
        );
    }
}

#[test]
fn bad_requests_get_clear_errors() {
    let gui = Gui::start();
    let host = format!("Host: {}\r\n", gui.addr);
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"NONSENSE\r\n\r\n".to_vec(), 400),
        (format!("GET / HTTP/2.0\r\n{host}\r\n").into_bytes(), 505),
        (format!("GET /?{} HTTP/1.1\r\n{host}\r\n", "a".repeat(10_000)).into_bytes(), 431),
        (
            format!("POST /api/pdn?s=x HTTP/1.1\r\n{host}Content-Length: 5000000\r\n\r\n")
                .into_bytes(),
            413,
        ),
        (
            format!("POST /api/pdn?s=x HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n")
                .into_bytes(),
            411,
        ),
        (format!("GET /api/state?s=%zz HTTP/1.1\r\n{host}\r\n").into_bytes(), 400),
        // Another name for the server (DNS rebinding) and another site's form.
        (b"GET / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n".to_vec(), 421),
        (
            format!(
                "POST /api/session HTTP/1.1\r\n{host}Origin: http://evil.example\r\nContent-Length: 0\r\n\r\n"
            )
            .into_bytes(),
            403,
        ),
        (format!("DELETE /api/state?s=x HTTP/1.1\r\n{host}\r\n").into_bytes(), 405),
        (format!("GET /api/state?s=nope HTTP/1.1\r\n{host}\r\n").into_bytes(), 404),
    ];
    for (request, expected) in cases {
        let (status, body) = gui.raw(&request);
        let shown = String::from_utf8_lossy(&request[..request.len().min(60)]).to_string();
        assert_eq!(status, expected, "{shown:?}: {body}");
        assert!(body.contains("\"error\":"), "{shown:?}: {body}");
    }
    // Still answering.
    assert_eq!(gui.request("GET", "/style.css", "").0, 200);
}

#[test]
fn moves_are_refereed_by_the_rules() {
    let gui = Gui::start();
    let s = gui.session("international");
    let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move=32-28"), "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(number(&body, "ply"), 1);
    // Illegal, malformed, too long, or the wrong side: refused with the reason, not applied.
    for (m, why) in [
        ("32-28", "illegal move"),
        ("31-22", "illegal move"),
        ("hello", "not"),
        ("99-98", "not on the board"),
    ] {
        let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move={m}"), "");
        assert_eq!(status, 422, "{m}: {body}");
        assert!(body.contains(why), "{m}: {body}");
    }
    let long = "1".repeat(500);
    assert_eq!(
        gui.request("POST", &format!("/api/move?s={s}&move={long}"), "")
            .0,
        422
    );
    let (_, state) = gui.request("GET", &format!("/api/state?s={s}"), "");
    assert_eq!(number(&state, "ply"), 1, "{state}");
    assert_eq!(field(&state, "side"), "black");
    // A capture written with its landing squares, and in letter-number form.
    let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move=19-23"), "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"text\":\"28x19\""), "{body}");
    let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move=28x19"), "");
    assert_eq!(status, 200, "{body}");
    // Take back, step through.
    let (status, body) = gui.request("POST", &format!("/api/undo?s={s}"), "");
    assert_eq!((status, number(&body, "ply")), (200, 2), "{body}");
    let (status, body) = gui.request("POST", &format!("/api/goto?s={s}&ply=1"), "");
    assert_eq!((status, number(&body, "ply")), (200, 1), "{body}");
    assert_eq!(
        gui.request("POST", &format!("/api/goto?s={s}&ply=9"), "").0,
        422
    );
}

#[test]
fn a_game_ends_by_the_rules_with_the_reason() {
    let gui = Gui::start();
    let s = gui.session("international");
    // White takes the last black piece.
    let (status, body) = gui.request(
        "POST",
        &format!("/api/fen?s={s}&variant=international"),
        "W:W28:B23",
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move=28x19"), "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"outcome\":\"white wins"), "{body}");
    let (status, body) = gui.request("POST", &format!("/api/move?s={s}&move=19-14"), "");
    assert_eq!(status, 422);
    assert!(body.contains("the game is over"), "{body}");
    // Bad FENs and an unknown variant are refused, and the game stays.
    for (variant, fen) in [
        ("international", "W:W99:B1"),
        ("english", "nonsense"),
        ("chess", ""),
    ] {
        let (status, body) = gui.request("POST", &format!("/api/fen?s={s}&variant={variant}"), fen);
        assert_eq!(status, 422, "{variant} {fen}: {body}");
    }
    let (_, state) = gui.request("GET", &format!("/api/state?s={s}"), "");
    assert!(state.contains("\"outcome\":\"white wins"), "{state}");
}

#[test]
fn pdn_loads_with_variations_and_saves() {
    let gui = Gui::start();
    let s = gui.session("international");
    let pdn = "[Event \"t\"]\n[GameType \"20\"]\n\n1. 32-28 19-23 (1... 18-23 2. 37-32) \
               2. 28x19 14x23 {a comment} 3. 37-32 10-14 *\n";
    let (status, body) = gui.request("POST", &format!("/api/pdn?s={s}"), pdn);
    assert_eq!(status, 200, "{body}");
    assert_eq!(number(&body, "ply"), 0);
    assert!(body.contains("\"variations\":[\"18-23 37-32\"]"), "{body}");
    assert!(body.contains("a comment"), "{body}");
    let (status, body) = gui.request("POST", &format!("/api/goto?s={s}&ply=6"), "");
    assert_eq!(status, 200, "{body}");
    let (status, saved) = gui.request("GET", &format!("/api/pdn?s={s}"), "");
    assert_eq!(status, 200);
    assert!(
        saved.contains("18-23") && saved.contains("10-14"),
        "{saved}"
    );
    // A file with an illegal move in its main line is refused as a whole.
    let bad = "[GameType \"20\"]\n\n1. 32-28 28-23 *\n";
    let (status, body) = gui.request("POST", &format!("/api/pdn?s={s}"), bad);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("illegal"), "{body}");
    let (status, body) = gui.request("POST", &format!("/api/pdn?s={s}"), "[Event \"unclosed");
    assert_eq!(status, 422, "{body}");
}

#[test]
fn tammi_replies_and_analysis_streams_and_stops_with_the_page() {
    // Sessions end after 2 s without a page here (20 s by default).
    let gui = Gui::start_with(&["--session-idle", "2"]);
    let s = gui.session("english");
    let (status, body) = gui.request(
        "POST",
        &format!("/api/opponent?s={s}&side=white&depth=3"),
        "",
    );
    assert_eq!(status, 200, "{body}");
    let (status, _) = gui.request("POST", &format!("/api/move?s={s}&move=11-15"), "");
    assert_eq!(status, 200);
    eventually("tammi's reply", || {
        number(
            &gui.request("GET", &format!("/api/state?s={s}"), "").1,
            "ply",
        ) == 2
    });
    // It is not the person's turn while tammi thinks: a move for white is refused.
    let (_, state) = gui.request("GET", &format!("/api/state?s={s}"), "");
    assert_eq!(field(&state, "side"), "black", "{state}");
    assert_eq!(gui.engines(), 1);
    let (status, _) = gui.request("POST", &format!("/api/opponent?s={s}&side=none"), "");
    assert_eq!(status, 200);

    // Analysis: the stream carries info lines with a depth and a principal variation.
    let mut reader = event_stream(&gui, &s);
    let (status, body) = gui.request("POST", &format!("/api/analyse?s={s}&on=1"), "");
    assert_eq!(status, 200, "{body}");
    let mut infos = 0;
    let mut line = String::new();
    while infos < 3 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if line.starts_with("data: {\"generation\"") && line.contains("\"depth\":") {
            assert!(line.contains("\"pv\":[\""), "{line}");
            infos += 1;
        }
    }
    // The page goes: the analysis stops, and once the session has been idle long
    // enough it ends, and its engine with it.
    drop(reader);
    eventually("the analysis to stop", || {
        gui.request("GET", &format!("/api/state?s={s}"), "")
            .1
            .contains("\"analysing\":false")
    });
    eventually("the engine to end with its session", || gui.engines() == 0);
    let (status, _) = gui.request("GET", &format!("/api/state?s={s}"), "");
    assert_eq!(status, 404);
}

/// Open an event stream for session `s`; its lines, read with a generous timeout.
fn event_stream(gui: &Gui, s: &str) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(&gui.addr).unwrap();
    write!(
        stream,
        "GET /api/events?s={s} HTTP/1.1\r\nHost: {}\r\n\r\n",
        gui.addr
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    BufReader::new(stream)
}

/// The next `data:` line of an event named `name`.
fn next_event(reader: &mut BufReader<TcpStream>, name: &str) -> String {
    let mut line = String::new();
    let mut this = false;
    loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if let Some(n) = line.strip_prefix("event: ") {
            this = n.trim() == name;
        } else if this && let Some(data) = line.strip_prefix("data: ") {
            return data.trim().to_string();
        }
    }
}

#[test]
fn watch_requests_are_checked_and_name_no_command() {
    let tammi = env!("CARGO_BIN_EXE_tammi");
    let gui = Gui::start_with(&["--engine", &format!("other={tammi} hub")]);
    let (status, body) = gui.request("GET", "/api/watch/options", "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"engines\":[\"tammi\",\"other\"]"), "{body}");
    assert!(
        !body.contains(tammi),
        "the page is told names, never commands: {body}"
    );
    let s = gui.session("international");
    assert_eq!(
        gui.request("GET", &format!("/api/watch?s={s}"), "").1,
        "null"
    );
    let refused = [
        // A command, a path, an unknown name: only roster names are engines.
        ("e1=/bin/sh&e2=tammi", "no engine"),
        ("e1=tammi&e2=sh%20-c%20id", "no engine"),
        ("e1=tammi&e2=Tammi", "no engine"),
        ("e1=tammi", "engine 2"),
        ("e1=tammi&e2=tammi&tc=0.001", "tc must be one of"),
        ("e1=tammi&e2=tammi&tc=99999", "tc must be one of"),
        ("e1=tammi&e2=tammi&games=0", "games must be from 1"),
        ("e1=tammi&e2=tammi&games=21", "games must be from 1"),
        ("e1=tammi&e2=tammi&games=-1", "whole number"),
        ("e1=tammi&e2=tammi&variant=chess", "chess"),
        ("e1=tammi&e2=tammi&book1=yes", "book1 must be 0 or 1"),
        // The book is tammi's option; another engine keeps its own settings.
        ("e1=tammi&e2=other&book2=1", "the book option is tammi's"),
        // No way to pass anything else to an engine.
        ("e1=tammi&e2=tammi&command=id", "unknown parameter"),
        ("e1=tammi&e2=tammi&param=threads", "unknown parameter"),
    ];
    for (query, why) in refused {
        let (status, body) = gui.request("POST", &format!("/api/watch/start?s={s}&{query}"), "");
        assert_eq!(status, 422, "{query}: {body}");
        assert!(body.contains(why), "{query}: {body}");
    }
    assert_eq!(gui.engines(), 0, "a refused match started something");
    let (status, body) = gui.request("POST", &format!("/api/watch/stop?s={s}"), "");
    assert_eq!(status, 409, "{body}");
    let (status, _) = gui.request("POST", "/api/watch/start?s=nope&e1=tammi&e2=tammi", "");
    assert_eq!(status, 404);
    // MultiPV: 1 to 5 lines.
    for bad in ["0", "6", "x", "-1"] {
        let (status, body) = gui.request("POST", &format!("/api/multipv?s={s}&lines={bad}"), "");
        assert_eq!(status, 422, "lines={bad}: {body}");
    }
    let (status, body) = gui.request("POST", &format!("/api/multipv?s={s}&lines=3"), "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"multipv\":3"), "{body}");
}

#[test]
fn engine_names_on_the_command_line_are_checked() {
    for bad in [
        "tammi=/bin/true",
        "no command",
        "bad name=/bin/true",
        "x=",
        "x='unclosed",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .args(["gui", "--port", "0", "--engine", bad])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("run tammi gui");
        assert!(!out.status.success(), "--engine {bad:?} was accepted");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--engine"),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for bad in ["0", "86401"] {
        let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .args(["gui", "--port", "0", "--session-idle", bad])
            .output()
            .expect("run tammi gui");
        assert_eq!(out.status.code(), Some(2), "--session-idle {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--session-idle") && err.contains("86400"),
            "{err}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(["gui", "--help"])
        .output()
        .expect("run tammi gui --help");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--engine <NAME=COMMAND>"), "{help}");
    assert!(help.contains("by name only"), "{help}");
}

#[test]
fn a_watched_match_streams_its_moves_and_clocks_and_ends_with_the_page() {
    let tammi = env!("CARGO_BIN_EXE_tammi");
    let gui = Gui::start_with(&["--engine", &format!("other={tammi} hub")]);
    let s = gui.session("international");
    let mut events = event_stream(&gui, &s);
    let (status, body) = gui.request(
        "POST",
        &format!(
            "/api/watch/start?s={s}&variant=english&e1=tammi&e2=other&book1=0&tc=30%2B0.3&games=2"
        ),
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"running\":true"), "{body}");
    assert!(body.contains("\"names\":[\"tammi\",\"other\"]"), "{body}");
    // One match at a time, from this page or another.
    let (status, body) = gui.request(
        "POST",
        &format!("/api/watch/start?s={s}&e1=tammi&e2=tammi"),
        "",
    );
    assert_eq!(status, 409, "{body}");
    let t = gui.session("english");
    let (status, body) = gui.request(
        "POST",
        &format!("/api/watch/start?s={t}&e1=tammi&e2=tammi"),
        "",
    );
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("already running"), "{body}");
    // The moves arrive on the stream with both clocks, the mover's going down.
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let data = next_event(&mut events, "watch");
        let plies = data.matches("\"comments\":").count();
        if plies > seen.len() {
            assert!(data.contains("\"variant\":\"english\""), "{data}");
            assert!(data.contains("\"clocks\":["), "{data}");
            seen.push(data);
        }
    }
    let clocks = |d: &str| -> (i64, i64) {
        let at = d.find("\"clocks\":[").unwrap() + 10;
        let (w, b) = d[at..].split(']').next().unwrap().split_once(',').unwrap();
        (w.parse().unwrap(), b.parse().unwrap())
    };
    let first = clocks(&seen[0]);
    let later = clocks(&seen[3]);
    assert!(first.0 <= 30_300 && first.1 <= 30_300, "{first:?}");
    assert_ne!(first, later, "the clocks did not move");
    assert_eq!(gui.engines(), 2, "the match's two engines");
    // The page goes: the match stops and its engines are killed.
    drop(events);
    eventually("the match's engines to end with the page", || {
        gui.engines() == 0
    });
    eventually("the match to be over", || {
        gui.request("GET", &format!("/api/watch?s={s}"), "")
            .1
            .contains("\"running\":false")
    });
    // The place is free again.
    let mut events = event_stream(&gui, &t);
    let (status, body) = gui.request(
        "POST",
        &format!("/api/watch/start?s={t}&e1=tammi&e2=tammi&tc=2%2B0.05&games=1"),
        "",
    );
    assert_eq!(status, 200, "{body}");
    let data = next_event(&mut events, "watch");
    assert!(data.contains("\"running\":true"), "{data}");
    let (status, body) = gui.request("POST", &format!("/api/watch/stop?s={t}"), "");
    assert_eq!(status, 200, "{body}");
    // Over only once the runner has reaped its engines.
    eventually("the stopped match to be over", || {
        gui.request("GET", &format!("/api/watch?s={t}"), "")
            .1
            .contains("\"running\":false")
    });
    assert_eq!(gui.engines(), 0, "a stopped match left engines behind");
    let (_, state) = gui.request("GET", &format!("/api/watch?s={t}"), "");
    assert!(
        state.contains("the match was stopped") || state.contains("\"finished\":[{"),
        "{state}"
    );
}

#[test]
fn analysis_shows_as_many_lines_as_asked() {
    let gui = Gui::start();
    let s = gui.session("international");
    let mut events = event_stream(&gui, &s);
    let (status, body) = gui.request("POST", &format!("/api/multipv?s={s}&lines=2"), "");
    assert_eq!(status, 200, "{body}");
    let (status, body) = gui.request("POST", &format!("/api/analyse?s={s}&on=1"), "");
    assert_eq!(status, 200, "{body}");
    // Each depth reports the best line, then the second; they differ in their first move.
    let mut firsts = [None, None];
    while firsts.iter().any(Option::is_none) {
        let data = next_event(&mut events, "info");
        assert!(data.contains("\"lines\":2"), "{data}");
        let line = number(&data, "line");
        assert!(line == 1 || line == 2, "{data}");
        let pv = data
            .split("\"pv\":[\"")
            .nth(1)
            .and_then(|p| p.split('"').next());
        firsts[(line - 1) as usize] = pv.map(str::to_string);
    }
    assert_ne!(firsts[0], firsts[1], "two lines with the same first move");
    let (status, _) = gui.request("POST", &format!("/api/analyse?s={s}&on=0"), "");
    assert_eq!(status, 200);
}
