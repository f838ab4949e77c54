//! Helpers shared by the integration tests.
#![allow(dead_code)]

use tammi::notation::{format_move, parse_position};
use tammi::rules::{Board, Notation, Variant};
use tammi::with_board;

pub mod draws;
pub mod hub;

/// The legal moves of `fen` in `variant`, written in `notation`, sorted.
pub fn legal(variant: Variant, fen: &str, notation: Notation) -> Vec<String> {
    with_board!(variant, P => {
        let pos: P = parse_position(fen).unwrap_or_else(|e| panic!("test FEN {fen}: {e}"));
        let mut list = Vec::new();
        pos.generate(&mut list);
        let mut names: Vec<String> = list
            .iter()
            .map(|m| format_move(&pos, m, &list, notation))
            .collect();
        names.sort();
        names
    })
}

pub fn letter(variant: Variant, fen: &str) -> Vec<String> {
    legal(variant, fen, Notation::Letter)
}

pub fn numeric(variant: Variant, fen: &str) -> Vec<String> {
    legal(variant, fen, Notation::Numeric)
}

/// A small deterministic generator (xorshift) so tests are repeatable without a crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Positions reached by random games from the start (at most `count`).
pub fn random_positions<P: Board>(seed: u64, count: usize) -> Vec<P> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let mut list = Vec::new();
    while out.len() < count {
        let mut pos = P::start();
        for _ in 0..200 {
            pos.generate(&mut list);
            if list.is_empty() {
                break;
            }
            out.push(pos);
            let mv = list[rng.below(list.len())];
            pos = pos.play(&mv);
        }
    }
    out.truncate(count);
    out
}

/// Run the built `tammi` binary with `args`: exit status (-1 when killed), stdout, stderr.
pub fn tammi(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(args)
        .output()
        .expect("run tammi");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run the text mode (plain `tammi`) on `input`; it must exit successfully. Its output.
pub fn text_session(input: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tammi"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run tammi");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write the session");
    let out = child.wait_with_output().expect("tammi's output");
    assert!(out.status.success(), "the text mode failed");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}
