//! A real `tammi hub` child process, driven line by line (shared by the Hub tests).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Generous: these bounds only catch hangs, they do not measure speed.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub struct Hub {
    pub child: Child,
    /// `None` once the test has closed the engine's input.
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
}

impl Hub {
    /// The process, before any line is sent.
    pub fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .arg("hub")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tammi hub");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Hub {
            child,
            stdin: Some(stdin),
            lines: rx,
        }
    }

    /// The process after `hub` and `init`, ready for commands, with its opening book
    /// off: these tests watch the search, which a book move from the start would skip
    /// (tests/book.rs tests the book, from [`Hub::booked`]).
    pub fn ready() -> Hub {
        let mut hub = Hub::booked();
        hub.send("set-param name=book value=false");
        hub
    }

    /// The process after `hub` and `init`, its book on (the default).
    pub fn booked() -> Hub {
        let mut hub = Hub::start();
        hub.handshake();
        hub
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{line}").expect("tammi hub is alive");
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first one starting with `prefix`.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        self.until_within(prefix, PATIENCE)
    }

    /// The same within `within`.
    pub fn until_within(&mut self, prefix: &str, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no '{prefix}' within {within:?}; got {got:?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("tammi hub exited; got {got:?}"),
            }
        }
    }

    pub fn last(&mut self, prefix: &str) -> String {
        self.until(prefix).pop().unwrap()
    }

    /// `hub` and `init`; returns the lines up to `wait`.
    pub fn handshake(&mut self) -> Vec<String> {
        self.send("hub");
        let lines = self.until("wait");
        self.send("init");
        self.until("ready");
        lines
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
