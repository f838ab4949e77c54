//! DXP over loopback: tammi against tammi, and a raw client sending malformed and
//! truncated messages and dropping the connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

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
