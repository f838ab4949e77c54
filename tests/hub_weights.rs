//! The Hub parameter `weights`: a weights file replaces the variant's built-in evaluation
//! (for trying a fitted file without a new build); a bad file is an error that keeps the
//! weights in use.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use tammi::eval::Weights;

struct Hub {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .arg("hub")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tammi hub");
        let input = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut hub = Hub {
            child,
            input,
            lines,
        };
        hub.send("hub");
        hub.until("wait");
        hub.send("init");
        hub.until("ready");
        hub
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no '{prefix}' after {got:?}"));
            let done = line.starts_with(prefix);
            got.push(line);
            if done {
                return got;
            }
        }
    }

    /// The answer to a `set-param`: `None` when accepted, else the error line.
    fn set(&mut self, name: &str, value: &str) -> Option<String> {
        self.send(&format!("set-param name={name} value=\"{value}\""));
        self.send("ping");
        self.until("pong")
            .into_iter()
            .find(|l| l.starts_with("error"))
    }

    /// The score (men) of a depth-1 search of the start position.
    fn score(&mut self) -> f64 {
        self.send("pos");
        self.send("level depth=1");
        self.send("go analyze");
        let lines = self.until("done");
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info"))
            .expect("an info line");
        let score = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("score="))
            .expect("a score");
        score.parse().unwrap()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An international weights file: every scalar 0 but `man` 100 and `tempo` 500.
fn tempo_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut w = Weights::zero(50);
    w.man = 100;
    w.tempo = 500;
    w.drawish_scale_pct = 100;
    w.three_vs_one_scale_pct = 100;
    let path = dir.join("tempo.txt");
    std::fs::write(&path, w.to_text(&["test".into()])).unwrap();
    path
}

#[test]
fn a_weights_file_replaces_the_built_in_one_until_reset() {
    let dir = std::env::temp_dir().join(format!("tammi-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = tempo_file(&dir);
    let mut hub = Hub::start();
    let built_in = hub.score();
    assert!(built_in.abs() < 2.0, "built-in score {built_in}");

    assert_eq!(hub.set("weights", good.to_str().unwrap()), None);
    // One man advanced one row: 5 men of tempo for White, the side that moved.
    let tempo = hub.score();
    assert!(tempo > 4.0, "score with tempo 500: {tempo}");

    // Bad files are refused and leave the weights in use.
    let bad_line = dir.join("bad.txt");
    std::fs::write(&bad_line, "man 100\nbishop 3\n").unwrap();
    for (value, why) in [
        ("/nonexistent/weights.txt", "cannot read"),
        (dir.to_str().unwrap(), "not a regular file"),
        (
            bad_line.to_str().unwrap(),
            "line 2: unknown weight 'bishop'",
        ),
    ] {
        let e = hub.set("weights", value).expect("an error");
        assert!(e.contains(why), "{value}: {e}");
        assert_eq!(hub.score(), tempo, "after {value}");
    }
    // An english file for an international board: the wrong number of squares.
    let mut english = Weights::zero(32);
    english.man = 100;
    let short = dir.join("english.txt");
    let text = english.to_text(&[]);
    let text: String = text
        .lines()
        .filter(|l| !l.contains("square"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&short, text + "man_square_opening 1 2 3\n").unwrap();
    let e = hub
        .set("weights", short.to_str().unwrap())
        .expect("an error");
    assert!(e.contains("needs 50 values"), "{e}");

    // An empty value, or a change of variant, goes back to the built-in weights.
    assert_eq!(hub.set("weights", ""), None);
    assert_eq!(hub.score(), built_in);
    assert_eq!(hub.set("weights", good.to_str().unwrap()), None);
    assert_eq!(hub.set("variant", "english"), None);
    assert_eq!(hub.set("variant", "normal"), None);
    assert_eq!(hub.score(), built_in);
    std::fs::remove_dir_all(&dir).ok();
}
