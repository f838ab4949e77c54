//! DXP over loopback: tammi against tammi, a raw client sending malformed and
//! truncated messages and dropping the connection, and games that the draw rules end;
//! strict message checks, the handshake and idle timeouts, a second connection refused
//! while one is served, a game end without its confirmation, and an engine that fails.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use tammi::dxp::message::{DxpColor, Message, Start};
use tammi::dxp::session::{Connection, MoveSource, Player, RulesGame, follow};
use tammi::notation::{parse_position, write_hub_position};
use tammi::rules::{Bits, Board, Color, DrawReason, Game, International, Move, Outcome, Position};
use tammi::search::limits::Limits;

type Intl = Position<International>;

struct Follower {
    child: Child,
    port: u16,
    log: std::sync::mpsc::Receiver<String>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A listening follower on a free port (port 0: the system picks, tammi prints it).
fn follower(extra: &[&str]) -> Follower {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(["dxp", "--listen", "127.0.0.1:0", "--move-time", "0.02"])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("listening line");
    let port = first.rsplit(':').next().unwrap().parse().expect(&first);
    Follower {
        child,
        port,
        log: rx,
    }
}

fn message(stream: &mut TcpStream, text: &str) {
    stream.write_all(text.as_bytes()).unwrap();
    stream.write_all(&[0]).unwrap();
}

fn read_message(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut buf = Vec::new();
    let mut byte = [0u8];
    loop {
        stream.read_exact(&mut byte).expect("a message from tammi");
        if byte[0] == 0 {
            return String::from_utf8(buf).unwrap();
        }
        buf.push(byte[0]);
    }
}

#[test]
fn tammi_against_tammi_plays_complete_games_with_agreed_results() {
    let f = follower(&[]);
    let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args([
            "dxp",
            "--connect",
            &format!("127.0.0.1:{}", f.port),
            "--initiator",
        ])
        .args(["--games", "2", "--move-time", "0.02", "--max-moves", "40"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    // "game 1: Draw" — not "game over: ...".
    let games: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.strip_prefix("game ")
                .and_then(|r| r.split(':').next())
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .collect();
    assert_eq!(games.len(), 2, "{text}");
    assert!(!text.contains("illegal"), "{text}");
    assert!(text.contains("tammi: "), "{text}");
    // The follower saw the same two results, from the other side.
    let mut theirs = Vec::new();
    while theirs.len() < 2 {
        let l = f
            .log
            .recv_timeout(Duration::from_secs(60))
            .expect("follower result");
        if let Some(r) = l.strip_prefix("result for tammi: ") {
            theirs.push(r.to_string());
        }
    }
    for (mine, theirs) in games.iter().zip(&theirs) {
        let mine = mine.rsplit(' ').next().unwrap();
        let expected = match mine {
            "Win" => "Loss",
            "Loss" => "Win",
            other => other,
        };
        assert_eq!(theirs, expected, "{text}");
    }
}

#[test]
fn malformed_messages_and_dropped_connections_are_survived() {
    let f = follower(&[]);
    let addr = format!("127.0.0.1:{}", f.port);
    {
        let mut s = TcpStream::connect(&addr).unwrap();
        message(&mut s, "X123");
        assert!(read_message(&mut s).starts_with("Ctammi: unknown message type"));
        message(&mut s, "Mxyz");
        assert!(read_message(&mut s).starts_with("Ctammi:"));
        // A game request, then an illegal move: a chat naming it and a GAMEEND.
        message(&mut s, &format!("R01{:<32}W005000A", "tester"));
        let acc = read_message(&mut s);
        assert!(acc.starts_with('A') && acc.ends_with('0'), "{acc}");
        let tammi_move = read_message(&mut s);
        assert!(tammi_move.starts_with('M'), "{tammi_move}");
        message(&mut s, "M0001010600"); // 01-06 is not a black move here
        let chat = read_message(&mut s);
        assert!(chat.contains("illegal move 01-06"), "{chat}");
        assert!(read_message(&mut s).starts_with('E'));
        message(&mut s, "E00");
        // A truncated message, then the connection drops.
        s.write_all(b"M00120").unwrap();
    }
    {
        // The follower listens again: a new connection gets a game.
        let mut s = TcpStream::connect(&addr).unwrap();
        message(&mut s, &format!("R01{:<32}Z005000A", "tester"));
        let acc = read_message(&mut s);
        assert!(acc.starts_with('A') && acc.ends_with('0'), "{acc}");
        // Follower colour Z: tammi plays Black, so the client moves first.
        message(&mut s, "M0001322800");
        let reply = read_message(&mut s);
        assert!(reply.starts_with('M'), "{reply}");
        // The client gives up: tammi confirms with its own GAMEEND.
        message(&mut s, "E10");
        let confirm = read_message(&mut s);
        assert!(confirm.starts_with('E'), "{confirm}");
    }
}

#[test]
fn a_wrong_protocol_version_is_refused_with_code_1() {
    let f = follower(&[]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    message(&mut s, &format!("R02{:<32}W005000A", "future"));
    let acc = read_message(&mut s);
    assert!(acc.starts_with('A') && acc.ends_with('1'), "{acc}");
}

/// The client's side of a DXP game from `fen` with tammi as `tammi_plays`: the client
/// keeps the game in the rules core and plays with `choose`; the game runs until tammi
/// sends GAMEEND. Returns the client's game at that point, the GAMEEND reason and the
/// follower's "game over" log line.
fn dxp_game(
    fen: &str,
    tammi_plays: Color,
    mut choose: impl FnMut(&Game<Intl>) -> Move<u64>,
) -> (Game<Intl>, u8, String) {
    let f = follower(&[]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    let start: Intl = parse_position(fen).unwrap();
    let squares: String = write_hub_position(&start)[1..]
        .chars()
        .map(|c| match c {
            'b' => 'z',
            'B' => 'Z',
            c => c,
        })
        .collect();
    let color = |c: Color| {
        if c == Color::White {
            DxpColor::White
        } else {
            DxpColor::Black
        }
    };
    let req = Message::GameRequest {
        version: 1,
        name: "tester".into(),
        follower_color: color(tammi_plays),
        minutes: 5,
        moves: 0,
        start: Start::Position {
            to_move: color(start.side()),
            squares,
        },
    };
    message(&mut s, &req.encode());
    let acc = read_message(&mut s);
    assert!(acc.starts_with('A') && acc.ends_with('0'), "{acc}");
    let mut game = Game::new(start);
    let reason = loop {
        if game.position().side() != tammi_plays && game.outcome().is_none() {
            let mv = choose(&game);
            let sq = |b: u8| Intl::square_of_bit(b as u32) as u8;
            let mut captured: Vec<u8> = mv.captured.squares().map(|b| sq(b as u8)).collect();
            captured.sort_unstable();
            let m = Message::Move {
                seconds: 0,
                from: sq(mv.from),
                to: sq(mv.to),
                captured,
            };
            message(&mut s, &m.encode());
            game.play(&mv).unwrap();
            continue;
        }
        match Message::decode(&read_message(&mut s)).unwrap() {
            Message::Move {
                from, to, captured, ..
            } => {
                assert_eq!(game.outcome(), None, "tammi moved in a finished game");
                let bit = |n: u8| Intl::bit_of_square(n as u32).unwrap();
                let mv = *game
                    .legal_moves()
                    .iter()
                    .find(|m| {
                        m.from as u32 == bit(from)
                            && m.to as u32 == bit(to)
                            && m.captured.count() as usize == captured.len()
                            && captured.iter().all(|&c| m.captured.has(bit(c)))
                    })
                    .expect("tammi's move is legal");
                game.play(&mv).unwrap();
            }
            Message::GameEnd { reason, .. } => break reason,
            Message::Chat(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    };
    message(&mut s, "E00");
    let said = loop {
        let l = f.log.recv_timeout(Duration::from_secs(30)).expect("log");
        if let Some(r) = l.split("game over: ").nth(1) {
            break r.to_string();
        }
    };
    (game, reason, said)
}

/// The client's move in a walk: a king move that captures nothing, allows no capture,
/// leaves tammi a move and leaves the client's own pieces in an arrangement they have not
/// had before. Every position then holds a new arrangement of the client's pieces, so no
/// position can recur whatever tammi plays, and only a move counter ends the game.
fn walk(game: &Game<Intl>, seen: &mut HashSet<(u64, u64)>) -> Move<u64> {
    let pos = *game.position();
    let me = pos.side();
    let mine = |p: &Intl| (p.pieces(me), p.pieces(me) & p.kings());
    let legal = game.legal_moves();
    let fresh = legal.iter().find(|m| {
        let child = pos.play(m);
        !m.is_capture()
            && pos.kings().has(m.from as u32)
            && !child.has_capture()
            && !seen.contains(&mine(&child))
            && {
                let mut replies = Vec::new();
                child.generate(&mut replies);
                !replies.is_empty()
            }
    });
    let mv = *fresh.unwrap_or(&legal[0]);
    seen.insert(mine(&pos.play(&mv)));
    mv
}

/// Tammi holds the lone king (or the weaker side) while the client walks: the game ends
/// with tammi's GAMEEND (reason 2, a draw) exactly when the rules core says so.
fn ends_by_the_count(fen: &str, tammi_plays: Color, reason: DrawReason, plies: usize) {
    let mut seen = HashSet::new();
    let (game, code, said) = dxp_game(fen, tammi_plays, |g| walk(g, &mut seen));
    assert_eq!(game.outcome(), Some(Outcome::Draw(reason)), "{fen}");
    assert_eq!(game.ply(), plies, "{fen}");
    assert_eq!(code, 2, "GAMEEND reason: a draw");
    assert_eq!(said, Outcome::Draw(reason).to_string());
}

#[test]
fn dxp_games_end_by_the_fmjd_move_rules() {
    // 5 moves each of two kings against a lone king; 16 moves each of three.
    ends_by_the_count(
        "W:WK46,K47:BK4",
        Color::Black,
        DrawReason::FewPieces {
            pieces: 2,
            moves: 5,
        },
        10,
    );
    ends_by_the_count(
        "W:WK46,K47,K48:BK4",
        Color::Black,
        DrawReason::FewPieces {
            pieces: 3,
            moves: 16,
        },
        32,
    );
    // 25 moves each with kings only: tammi's king hemmed in by men that never move (no
    // few-pieces ending, no exchange to reach one), the client's king touring.
    ends_by_the_count(
        "W:WK45:BK4,34,39,40,44",
        Color::White,
        DrawReason::MoveRule { moves: 25 },
        50,
    );
}

#[test]
fn a_dxp_game_ends_by_threefold_repetition() {
    // Tammi's king has one move at a time (45-50 and back, hemmed in by the black men);
    // the client's king shuttles 4-9 and back: the start position stands for the third
    // time after eight plies.
    let (game, code, said) = dxp_game("W:WK45:BK4,34,39,40,44", Color::White, |g| {
        let pos = *g.position();
        let to = |n| Intl::bit_of_square(n).unwrap();
        *g.legal_moves()
            .iter()
            .find(|m| {
                (m.from as u32 == to(4) && m.to as u32 == to(9))
                    || (m.from as u32 == to(9) && m.to as u32 == to(4))
            })
            .unwrap_or_else(|| panic!("no shuffle in {pos:?}"))
    });
    let threefold = Outcome::Draw(DrawReason::Repetition { times: 3 });
    assert_eq!(game.outcome(), Some(threefold));
    assert_eq!(game.ply(), 8);
    assert_eq!(code, 2, "GAMEEND reason: a draw");
    assert_eq!(said, "draw by threefold repetition");
}

/// A message from tammi within `secs` seconds: `None` if the connection closed first.
fn read_message_within(stream: &mut TcpStream, secs: u64) -> Option<String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(secs)))
        .unwrap();
    let mut buf = Vec::new();
    let mut byte = [0u8];
    loop {
        match stream.read(&mut byte) {
            Ok(0) => return None,
            Ok(_) if byte[0] == 0 => return Some(String::from_utf8(buf).unwrap()),
            Ok(_) => buf.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
            Err(e) => panic!("no message from tammi within {secs} s: {e} (so far {buf:?})"),
        }
    }
}

/// Whether tammi closes the connection within `wait`, skipping what it sends.
fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let until = std::time::Instant::now() + wait;
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut sink = [0u8; 256];
    while std::time::Instant::now() < until {
        match stream.read(&mut sink) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => {}
        }
    }
    false
}

/// A game with tammi as Black from the normal start: the client (White) moves first.
fn game_as_white(s: &mut TcpStream) {
    message(s, &format!("R01{:<32}Z005000A", "tester"));
    let acc = read_message(s);
    assert!(acc.starts_with('A') && acc.ends_with('0'), "{acc}");
}

/// Waits for a follower's log line containing `what`.
fn wait_for_log(f: &Follower, what: &str) {
    loop {
        let l = f
            .log
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no log line with '{what}'"));
        if l.contains(what) {
            return;
        }
    }
}

#[test]
fn a_move_one_byte_too_long_is_refused_not_played() {
    let f = follower(&[]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    game_as_white(&mut s);
    // 32-28 with a stray byte: not a move tammi may guess at.
    message(&mut s, "M0001322800x");
    let chat = read_message(&mut s);
    assert!(
        chat.starts_with("Ctammi: MOVE with 0 captured pieces is too long"),
        "{chat}"
    );
    // The game goes on: the well-formed move is played and answered.
    message(&mut s, "M0001322800");
    let reply = read_message(&mut s);
    assert!(reply.starts_with('M'), "{reply}");
}

#[test]
fn a_square_out_of_range_is_malformed_and_the_game_goes_on() {
    let f = follower(&[]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    game_as_white(&mut s);
    message(&mut s, "M0001992800");
    let chat = read_message(&mut s);
    assert!(
        chat.contains("from square 99 is out of range (squares are 01 to 50)"),
        "{chat}"
    );
    message(&mut s, "M0001329900"); // the to square, too
    let chat = read_message(&mut s);
    assert!(chat.contains("to square 99 is out of range"), "{chat}");
    message(&mut s, "M0001322800");
    let reply = read_message(&mut s);
    assert!(reply.starts_with('M'), "not a GAMEEND: {reply}");
}

#[test]
fn every_message_type_is_held_to_its_exact_length_and_fields() {
    let name = format!("{:<32}", "x");
    let position = format!("R01{name}W005000BW{}", "e".repeat(50));
    let good = [
        format!("R01{name}W005000A"),
        position.clone(),
        format!("A{name}0"),
        "M0001322800".to_string(),
        "M001205250422122320".to_string(),
        "E00".to_string(),
        "E31".to_string(),
        "C hello".to_string(),
        "B012W".to_string(),
        "K0".to_string(),
        "K2".to_string(),
    ];
    for m in &good {
        assert!(Message::decode(m).is_ok(), "{m}: {:?}", Message::decode(m));
    }
    let bad = [
        // One character too many or too few, for every type.
        (
            format!("R01{name}W005000Ax"),
            "GAMEREQ with start A is too long",
        ),
        (format!("R01{name}W005000"), "GAMEREQ is too short"),
        (
            format!("{position}e"),
            "GAMEREQ with start B (a position) is too long",
        ),
        (position[..position.len() - 1].to_string(), "is too short"),
        (format!("A{name}0 "), "GAMEACC is too long"),
        (format!("A{name}"), "GAMEACC is too short"),
        (
            "M0001322800x".into(),
            "MOVE with 0 captured pieces is too long",
        ),
        ("M000132280".into(), "MOVE is too short"),
        (
            "M00010319011".into(),
            "MOVE with 1 captured piece is too short",
        ),
        (
            "M0001031901233".into(),
            "MOVE with 1 captured piece is too long",
        ),
        ("E000".into(), "GAMEEND is too long"),
        ("E0".into(), "GAMEEND is too short"),
        ("B012W0".into(), "BACKREQ is too long"),
        ("K00".into(), "BACKACC is too long"),
        ("K3".into(), "code 3 is not one of 0 to 2"),
        ("C".into(), "CHAT without text"),
        (format!("C{}", "x".repeat(127)), "at most 127"),
        // Fields: squares 01-50, codes in range, digits only, W or Z.
        ("M0001992800".into(), "from square 99 is out of range"),
        ("M0001320000".into(), "to square 00 is out of range"),
        ("M000123190151".into(), "captured square 51 is out of range"),
        ("M00012314021818".into(), "named twice"),
        ("M0001322821".into(), "capture count 21"),
        ("M 001322800".into(), "not a zero-padded number"),
        ("M+001322800".into(), "not a zero-padded number"),
        ("E41".into(), "reason 4 is not one of 0 to 3"),
        ("E02".into(), "stop code 2 is not one of 0 to 1"),
        (format!("A{name}4"), "acceptance code 4"),
        ("B012w".into(), "expected W or Z"),
        (format!("R01{name}B005000A"), "expected W or Z"),
        ("M0001322800\t".into(), "control character"),
    ];
    for (m, why) in &bad {
        let e = Message::decode(m).expect_err(m).to_string();
        assert!(e.contains(why), "{m}: {e} (expected '{why}')");
    }
}

#[test]
fn a_peer_that_starts_no_game_is_closed_after_the_handshake_timeout() {
    let f = follower(&["--handshake-timeout", "1"]);
    let addr = format!("127.0.0.1:{}", f.port);
    // Silent: told why, then closed; a generous bound, not a measure of speed.
    let mut s = TcpStream::connect(&addr).unwrap();
    let chat = read_message_within(&mut s, 20).expect("a CHAT before the close");
    assert!(
        chat.contains("no game started within 1 s of connecting"),
        "{chat}"
    );
    assert!(closed_within(&mut s, Duration::from_secs(20)), "still open");
    wait_for_log(&f, "waiting for the next connection");
    // Chatting and trickling bytes of a message that never ends do not hold it either.
    let mut s = TcpStream::connect(&addr).unwrap();
    message(&mut s, "Chello");
    let start = std::time::Instant::now();
    let mut closed = false;
    while start.elapsed() < Duration::from_secs(20) && !closed {
        let _ = s.write_all(b"C");
        closed = closed_within(&mut s, Duration::from_millis(300));
    }
    assert!(closed, "a trickling peer held the connection");
    wait_for_log(&f, "waiting for the next connection");
    // The follower serves the next connection.
    let mut s = TcpStream::connect(&addr).unwrap();
    game_as_white(&mut s);
}

#[test]
fn a_peer_silent_in_a_game_is_closed_after_the_idle_timeout() {
    let f = follower(&["--idle-timeout", "1"]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    game_as_white(&mut s);
    // The client never moves.
    let chat = read_message_within(&mut s, 20).expect("a CHAT");
    assert!(chat.contains("nothing received for 1 s"), "{chat}");
    let end = read_message_within(&mut s, 20).expect("a GAMEEND");
    assert_eq!(end, "E01", "GAMEEND, no reason, stop");
    assert!(closed_within(&mut s, Duration::from_secs(20)), "still open");
    wait_for_log(&f, "result for tammi: Unfinished");
}

#[test]
fn a_second_connection_is_refused_as_busy_while_one_is_served() {
    let f = follower(&[]);
    let addr = format!("127.0.0.1:{}", f.port);
    let mut first = TcpStream::connect(&addr).unwrap();
    game_as_white(&mut first);
    // A second peer is told, and closed: not left waiting in the queue.
    let mut second = TcpStream::connect(&addr).unwrap();
    message(&mut second, &format!("R01{:<32}Z005000A", "second"));
    let chat = read_message_within(&mut second, 10).expect("a CHAT");
    assert!(chat.contains("busy with another connection"), "{chat}");
    assert!(
        closed_within(&mut second, Duration::from_secs(10)),
        "still open"
    );
    // The first game goes on.
    message(&mut first, "M0001322800");
    assert!(read_message(&mut first).starts_with('M'));
    // Once the first connection ends, the next one is served.
    drop(first);
    wait_for_log(&f, "waiting for the next connection");
    let mut third = TcpStream::connect(&addr).unwrap();
    game_as_white(&mut third);
}

#[test]
fn a_game_request_in_place_of_the_gameend_confirmation_is_answered() {
    let f = follower(&[]);
    let mut s = TcpStream::connect(format!("127.0.0.1:{}", f.port)).unwrap();
    // An empty board, White (tammi) to move: the game is over at once.
    message(
        &mut s,
        &format!("R01{:<32}W005000BW{}", "tester", "e".repeat(50)),
    );
    let acc = read_message(&mut s);
    assert!(acc.starts_with('A') && acc.ends_with('0'), "{acc}");
    let end = read_message(&mut s);
    assert_eq!(end, "E10", "tammi has no move: it gives up");
    // No confirmation: the next request straight away is answered all the same.
    game_as_white(&mut s);
    message(&mut s, "M0001322800");
    let reply = read_message(&mut s);
    assert!(reply.starts_with('M'), "{reply}");
}

/// A stand-in for the engine that fails the way it is told to.
struct FailingEngine(&'static str);

impl MoveSource for FailingEngine {
    fn new_game(&mut self) {}
    fn best_move(&mut self, game: &RulesGame, _: Limits) -> Result<Move<u64>, String> {
        let legal = game.legal_moves();
        match self.0 {
            "panic" => panic!("a deliberate test panic in the engine"),
            "error" => Err("no search threads".into()),
            // A move of the right type that is not legal: a man's move backwards.
            "illegal" => Ok(Move {
                from: legal[0].to,
                to: legal[0].from,
                ..legal[0]
            }),
            // A capture where none is possible.
            _ => Ok(Move {
                captured: 1,
                ..legal[0]
            }),
        }
    }
}

/// The messages a follower run with `engine` sends when it must move first, and its log.
fn follow_with_engine(engine: FailingEngine) -> (Vec<String>, Vec<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, log) = channel();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut conn = Connection::new(stream).unwrap();
        let mut player = Player {
            name: "tammi".into(),
            engine: Box::new(engine),
            move_time: Some(Duration::from_millis(10)),
            max_moves: 150,
            handshake_timeout: Some(Duration::from_secs(20)),
            idle_timeout: Some(Duration::from_secs(20)),
            log: Box::new(move |s| {
                let _ = tx.send(s.to_string());
            }),
        };
        follow(&mut conn, &mut player);
    });
    let mut s = TcpStream::connect(addr).unwrap();
    // tammi White from the start: nine moves to choose from, so the engine is asked.
    message(&mut s, &format!("R01{:<32}W005000A", "tester"));
    let mut got = vec![read_message(&mut s)];
    loop {
        let m = read_message(&mut s);
        got.push(m.clone());
        if m.starts_with('E') || m.starts_with('M') {
            break;
        }
    }
    // Confirm and stop: the follower returns.
    message(&mut s, "E01");
    server.join().unwrap();
    (got, log.try_iter().collect())
}

#[test]
fn an_engine_failure_ends_the_game_and_never_plays_another_move() {
    for how in ["illegal", "capture", "error", "panic"] {
        let (got, log) = follow_with_engine(FailingEngine(how));
        assert!(got[0].starts_with('A') && got[0].ends_with('0'), "{got:?}");
        assert!(!got.iter().any(|m| m.starts_with('M')), "{how}: {got:?}");
        assert!(
            got.iter().any(|m| m.starts_with("Ctammi: engine failure")),
            "{how}: {got:?}"
        );
        assert_eq!(got.last().unwrap(), "E00", "{how}: GAMEEND, no reason");
        assert!(
            log.iter().any(|l| l.starts_with("error: engine failure")),
            "{how}: {log:?}"
        );
        assert!(log.contains(&"result for tammi: Unfinished".to_string()));
    }
}
