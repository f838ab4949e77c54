//! `tammi hub`: the Hub protocol (version 2) over standard input and output, as a thin
//! adapter over the [`Engine`] API. protocol.md documents every command and answer.
//!
//! Robustness beyond Scan: a malformed line, a bad value, an unknown variant, a bad
//! position or an illegal move is answered with `error message="..."` and leaves the state
//! as it was; no input can crash or hang the loop.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, unbounded};

use super::line::{Line, parse_line, quote};
use crate::notation::echo;
use crate::rules::Variant;
use crate::search::engine::{Done, Engine, Info};
use crate::search::limits::{EngineOptions, Limits};

/// Longer lines are refused (a `moves` list of a very long game stays far below this).
pub const MAX_LINE: usize = 1 << 20;

/// Variants as the Hub names them; `frisian` is declared because draughtsnet expects it
/// in the list, and answered with an error when chosen.
const HUB_VARIANTS: &str =
    "normal killer bt frisian losing english russian brazilian canadian turkish";

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// Whose conventions the GUI follows where real clients disagree (the Hub parameter
/// `client`; protocol.md explains each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// lidraughts (its analysis client and draughtsnet), Scan, and tammi's own tools: the
    /// position string and the moves use the same square numbers, the side letter is the
    /// side to move.
    Lidraughts,
    /// pydraughts' HubEngine: in english it writes the position string from its own view,
    /// in which the first mover (Black) is White: the board turned round with the colours
    /// and the side letter swapped (its moves use the english numbers as they are). In
    /// russian and brazilian its moves count the squares from White's side (1 = a1, row
    /// by row upwards) while its position string uses lidraughts' numbers (1 = b8).
    Pydraughts,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Lidraughts => "lidraughts",
            Client::Pydraughts => "pydraughts",
        }
    }

    /// Whether this client numbers the moves of `variant` from White's side.
    fn flips_move_rows(self, variant: Variant) -> bool {
        self == Client::Pydraughts && matches!(variant, Variant::Russian | Variant::Brazilian)
    }
}

/// Square `n` of an 8x8 diagonal board with its rows counted from the other edge (the
/// order inside a row kept): lidraughts' 21 (a3) is pydraughts' 9. Its own inverse.
fn flip_rows_8x8(n: u32) -> u32 {
    let (row, index) = ((n - 1) / 4, (n - 1) % 4);
    (7 - row) * 4 + index + 1
}

/// A Hub move (`32-28`, `28x19x23`) with every square renumbered by [`flip_rows_8x8`],
/// the captured squares in increasing order again; text that is not a move of squares
/// 1-32 is left as it is, for the move parser to reject.
fn flip_move_rows(mv: &str) -> String {
    let sep = if mv.contains('x') { 'x' } else { '-' };
    let squares: Option<Vec<u32>> = mv
        .split(sep)
        .map(|t| t.parse::<u32>().ok().filter(|n| (1..=32).contains(n)))
        .collect();
    match squares {
        Some(mut sq) if sq.len() >= 2 => {
            for n in sq.iter_mut() {
                *n = flip_rows_8x8(*n);
            }
            sq[2..].sort_unstable();
            let names: Vec<String> = sq.iter().map(u32::to_string).collect();
            names.join(&sep.to_string())
        }
        _ => mv.to_string(),
    }
}

/// pydraughts' english position string read as the board it means: the squares in the
/// reverse order, men and kings of each colour swapped, and the side letter swapped.
/// Anything that is not a position string (a FEN, `start`) is returned unchanged.
fn turn_english_board(text: &str) -> String {
    let t = text.trim();
    let swap = |c: char| match c {
        'w' => 'b',
        'b' => 'w',
        'W' => 'B',
        'B' => 'W',
        c => c,
    };
    if t.contains(':') || t.chars().count() != 33 {
        return text.to_string();
    }
    let mut chars = t.chars();
    let side = chars.next().map(swap).unwrap_or('W');
    std::iter::once(side).chain(chars.rev().map(swap)).collect()
}

fn send(out: &Out, line: &str) {
    // A closed pipe means the GUI is gone; the read side will see end of input and exit.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

fn send_error(out: &Out, message: &str) {
    send(out, &format!("error message={}", quote(message)));
}

enum Event {
    Line(String),
    TooLong(usize),
    Eof,
}

/// Read lines on their own thread so that `ping` and `stop` are answered during a search.
fn spawn_reader<R: BufRead + Send + 'static>(mut input: R) -> Receiver<Event> {
    let (tx, rx) = unbounded();
    std::thread::Builder::new()
        .name("hub-input".into())
        .spawn(move || {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let mut long = false;
                // Read in bounded pieces so a huge line cannot exhaust memory.
                loop {
                    let mut chunk = Vec::new();
                    let n = std::io::Read::take(&mut input, 64 * 1024)
                        .read_until(b'\n', &mut chunk)
                        .unwrap_or(0);
                    if n == 0 {
                        if buf.is_empty() && !long {
                            let _ = tx.send(Event::Eof);
                            return;
                        }
                        break;
                    }
                    let ended = chunk.last() == Some(&b'\n');
                    if buf.len() + chunk.len() > MAX_LINE {
                        long = true;
                        buf.clear();
                    } else {
                        buf.extend_from_slice(&chunk);
                    }
                    if ended {
                        break;
                    }
                }
                let event = if long {
                    Event::TooLong(MAX_LINE)
                } else {
                    Event::Line(String::from_utf8_lossy(&buf).trim().to_string())
                };
                if tx.send(event).is_err() {
                    return;
                }
            }
        })
        .expect("spawning the input thread");
    rx
}

/// The protocol state between searches.
struct Hub {
    out: Out,
    engine: Engine,
    variant: Variant,
    /// The position as last set successfully: text and moves.
    position: (String, Vec<String>),
    limits: Limits,
    ponder_allowed: bool,
    /// The `weights` parameter: a weights file replacing the variant's built-in one.
    weights: String,
    searching: Arc<AtomicBool>,
    client: Client,
}

/// Run the protocol until `quit` or end of input; returns the exit status.
pub fn run<R: BufRead + Send + 'static>(input: R, output: Box<dyn Write + Send>) -> i32 {
    let out: Out = Arc::new(Mutex::new(output));
    let events = spawn_reader(input);
    let mut hub = Hub {
        out: Arc::clone(&out),
        engine: Engine::default(),
        variant: Variant::International,
        position: ("start".into(), Vec::new()),
        limits: Limits::default(),
        ponder_allowed: false,
        weights: String::new(),
        searching: Arc::new(AtomicBool::new(false)),
        client: Client::Lidraughts,
    };
    for event in events.iter() {
        let text = match event {
            // The GUI is gone: leave at once, whatever is running.
            Event::Eof => return 0,
            Event::TooLong(max) => {
                send_error(&out, &format!("line longer than {max} bytes ignored"));
                continue;
            }
            Event::Line(t) => t,
        };
        if text.is_empty() {
            continue;
        }
        let line = match parse_line(&text) {
            Ok(l) => l,
            Err(e) => {
                send_error(&out, &format!("{e} in '{}'", echo(&text)));
                continue;
            }
        };
        if hub.searching.load(Ordering::Acquire) {
            match line.command.as_str() {
                "ping" => {
                    send(&out, "pong");
                    continue;
                }
                "ponder-hit" => {
                    hub.engine.ponder_hit();
                    continue;
                }
                "stop" => {
                    hub.engine.stop();
                    continue;
                }
                // Anything else ends the search first (as Scan does), then is handled.
                _ => {
                    hub.engine.stop();
                    hub.engine.wait();
                }
            }
        }
        if line.command == "quit" {
            hub.engine.stop();
            hub.engine.wait();
            return 0;
        }
        hub.handle(&line);
    }
    0
}

impl Hub {
    fn handle(&mut self, line: &Line) {
        let out = Arc::clone(&self.out);
        let result = match line.command.as_str() {
            "hub" => {
                self.announce();
                Ok(())
            }
            "init" => {
                send(&out, "ready");
                Ok(())
            }
            "set-param" => self.set_param(line),
            "pos" => self.set_position(line),
            "level" => self.level(line),
            "go" => self.go(line),
            "new-game" => {
                self.engine.new_game();
                Ok(())
            }
            "ping" => {
                send(&out, "pong");
                Ok(())
            }
            // Late arrivals after the search already ended: nothing to do.
            "stop" | "ponder-hit" => Ok(()),
            other => Err(format!("unknown command '{}'", echo(other))),
        };
        if let Err(e) = result {
            send_error(&out, &e);
        }
    }

    fn announce(&self) {
        let o = self.engine.options();
        let lines = [
            format!(
                "id name=tammi version={} author={} country=FI",
                env!("CARGO_PKG_VERSION"),
                quote("the tammi developers")
            ),
            format!(
                "param name=variant value={} type=enum values={}",
                self.variant.hub_name(),
                quote(HUB_VARIANTS)
            ),
            format!(
                "param name=threads value={} type=int min=1 max={}",
                o.threads,
                EngineOptions::MAX_THREADS
            ),
            format!(
                "param name=hash value={} type=int min=1 max={}",
                o.hash_mb,
                EngineOptions::MAX_HASH_MB
            ),
            format!(
                "param name=tt-size value={} type=int min=16 max=32",
                tt_size_of(o.hash_mb)
            ),
            format!("param name=ponder value={} type=bool", self.ponder_allowed),
            format!(
                "param name=client value={} type=enum values={}",
                self.client.name(),
                quote("lidraughts pydraughts")
            ),
            format!(
                "param name=multipv value={} type=int min=1 max={}",
                o.multipv,
                EngineOptions::MAX_MULTIPV
            ),
            format!(
                "param name=move-overhead value={} type=int min=0 max=10000",
                o.move_overhead.as_millis()
            ),
            format!(
                "param name=egdb value={} type=string",
                quote(
                    &o.egdb
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string())
                )
            ),
            format!(
                "param name=weights value={} type=string",
                quote(&self.weights)
            ),
            "wait".to_string(),
        ];
        for l in lines {
            send(&self.out, &l);
        }
    }

    fn set_param(&mut self, line: &Line) -> Result<(), String> {
        let name = line
            .get("name")
            .ok_or("set-param needs name=... and value=...")?;
        let value = line
            .get("value")
            .ok_or_else(|| format!("set-param name={name} needs value=..."))?;
        // A failed preparation of an earlier hash or egdb brings back the old value.
        self.engine.collect_preparation();
        let mut o = self.engine.options().clone();
        let int = |min: u64, max: u64| -> Result<u64, String> {
            let v: u64 = value.trim().parse().map_err(|_| {
                format!("{name} must be a whole number from {min} to {max}, got '{value}'")
            })?;
            if !(min..=max).contains(&v) {
                return Err(format!("{name} must be from {min} to {max}, got {v}"));
            }
            Ok(v)
        };
        match name {
            "variant" => {
                if value.eq_ignore_ascii_case("frisian") {
                    return Err("variant frisian is not implemented yet".into());
                }
                let v: Variant = value.parse()?;
                // A new variant starts from its start position, with its built-in weights.
                self.engine.set_position(v, "start", &[])?;
                if !self.weights.is_empty() {
                    crate::eval::replace_weights(self.variant, None)?;
                    self.weights.clear();
                }
                self.variant = v;
                self.position = ("start".into(), Vec::new());
                return Ok(());
            }
            "threads" => o.threads = int(1, EngineOptions::MAX_THREADS as u64)? as usize,
            "hash" => o.hash_mb = int(1, EngineOptions::MAX_HASH_MB as u64)? as usize,
            "tt-size" => {
                // Scan's size: log2 of 16-byte entries.
                let bits = int(16, 32)?;
                o.hash_mb = (((1u64 << bits) * 16) >> 20)
                    .clamp(1, EngineOptions::MAX_HASH_MB as u64)
                    as usize;
            }
            "multipv" => o.multipv = int(1, EngineOptions::MAX_MULTIPV as u64)? as usize,
            "move-overhead" => o.move_overhead = Duration::from_millis(int(0, 10_000)?),
            // An empty value unloads the database.
            "egdb" => {
                o.egdb = (!value.trim().is_empty()).then(|| value.trim().into());
            }
            "client" => {
                self.client = match value.trim().to_ascii_lowercase().as_str() {
                    "lidraughts" | "scan" => Client::Lidraughts,
                    "pydraughts" => Client::Pydraughts,
                    _ => {
                        return Err(format!(
                            "client must be lidraughts or pydraughts, got '{}'",
                            echo(value)
                        ));
                    }
                };
                return Ok(());
            }
            "ponder" => {
                self.ponder_allowed = match value.to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" | "on" => true,
                    "false" | "0" | "no" | "off" => false,
                    _ => return Err(format!("ponder must be true or false, got '{value}'")),
                };
                return Ok(());
            }
            // An empty value goes back to the built-in weights.
            "weights" => {
                let path = value.trim();
                let weights = if path.is_empty() {
                    None
                } else {
                    Some(crate::eval::weights::read_file(
                        std::path::Path::new(path),
                        self.variant,
                    )?)
                };
                crate::eval::replace_weights(self.variant, weights)?;
                self.weights = path.to_string();
                // The position set up before evaluates with the weights it was set with.
                let (text, moves) = self.position.clone();
                return self.engine.set_position(self.variant, &text, &moves);
            }
            // Scan's book and endgame-database parameters: accepted, nothing to do.
            "book" | "book-ply" | "book-margin" | "bb-size" => return Ok(()),
            other => return Err(format!("unknown parameter '{}'", echo(other))),
        }
        // A large table or a database takes seconds to prepare: that happens on a thread
        // of its own, so `ping` is answered meanwhile; a later failure (no memory) is
        // reported when it happens, and the old table or database stays.
        let out = Arc::clone(&self.out);
        let name = name.to_string();
        self.engine.set_options_in_background(
            o,
            Some(Box::new(move |e| {
                send_error(&out, &format!("set-param {name}: {e}"))
            })),
        )
    }

    fn set_position(&mut self, line: &Line) -> Result<(), String> {
        // Refuse what is not understood before anything changes: a stray word here is
        // usually a move list that lost its quotes, and searching without it would answer
        // for the wrong side.
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in &line.args {
            match (name.as_str(), value) {
                ("pos" | "fen" | "moves", Some(_)) => {}
                ("start", None) => {}
                ("pos" | "fen" | "moves", None) => {
                    return Err(format!(
                        "pos: '{name}' needs a value ({name}=...) (the previous position is kept)"
                    ));
                }
                (other, None) if line.has("moves") && looks_like_move(other) => {
                    return Err(format!(
                        "pos: '{}' is not an argument: a list of several moves must be quoted, \
                         moves=\"32-28 19-23\" (the previous position is kept)",
                        echo(other)
                    ));
                }
                (other, _) => {
                    return Err(format!(
                        "pos: unknown argument '{}' (expected pos=..., fen=..., moves=\"...\" \
                         or start) (the previous position is kept)",
                        echo(other)
                    ));
                }
            }
            if seen.contains(&name.as_str()) {
                return Err(format!(
                    "pos: '{name}' is given twice (the previous position is kept)"
                ));
            }
            seen.push(name);
        }
        let text = match line.get("pos") {
            Some(p) if !p.trim().is_empty() => p.trim().to_string(),
            // `pos`, `pos start` and `pos pos=""` mean the start position.
            _ => "start".to_string(),
        };
        if let Some(f) = line.get("fen") {
            if line.get("pos").is_some() {
                return Err("pos: give pos=... or fen=..., not both".into());
            }
            return self.apply_position(f.trim().to_string(), line);
        }
        self.apply_position(text, line)
    }

    fn apply_position(&mut self, text: String, line: &Line) -> Result<(), String> {
        let flip = self.client.flips_move_rows(self.variant);
        let moves: Vec<String> = line
            .get("moves")
            .unwrap_or("")
            .split_whitespace()
            .map(|m| {
                if flip {
                    flip_move_rows(m)
                } else {
                    m.to_string()
                }
            })
            .collect();
        let text = if self.client == Client::Pydraughts && self.variant == Variant::English {
            turn_english_board(&text)
        } else {
            text
        };
        // Limits do not carry over from one search to the next (Scan resets them here).
        self.limits = Limits::default();
        self.engine
            .set_position(self.variant, &text, &moves)
            .map_err(|e| format!("pos: {e} (the previous position is kept)"))?;
        self.position = (text, moves);
        Ok(())
    }

    fn level(&mut self, line: &Line) -> Result<(), String> {
        // Check every value before changing anything.
        let mut limits = self.limits.clone();
        for (name, value) in &line.args {
            let v = value.as_deref().unwrap_or("");
            let seconds = |v: &str| -> Result<Duration, String> {
                let s: f64 = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("level {name}: '{v}' is not a number of seconds"))?;
                if !s.is_finite() || !(0.0..=1e7).contains(&s) {
                    return Err(format!("level {name}: {v} is out of range"));
                }
                Ok(Duration::from_secs_f64(s))
            };
            let count = |v: &str| -> Result<u64, String> {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("level {name}: '{v}' is not a whole number"))
            };
            match name.as_str() {
                "depth" | "ply" => {
                    let d = count(v)?;
                    if d == 0 || d > 200 {
                        return Err(format!("level {name}: {d} is out of range (1-200)"));
                    }
                    limits.depth = Some(d as u32);
                }
                "nodes" => {
                    let n = count(v)?;
                    if n == 0 {
                        return Err("level nodes: must be at least 1".into());
                    }
                    limits.nodes = Some(n);
                }
                "move-time" => limits.move_time = Some(seconds(v)?),
                "time" => limits.time = Some(seconds(v)?),
                "inc" => limits.increment = seconds(v)?,
                "moves" => {
                    let m = count(v)?;
                    limits.moves_to_go = (m > 0).then_some(m.min(10_000) as u32);
                }
                "infinite" => limits.infinite = true,
                // draughtsnet's handicap levels: not modelled, accepted.
                "handicap" => {}
                other => {
                    return Err(format!("level: unknown limit '{}'", echo(other)));
                }
            }
        }
        self.limits = limits;
        Ok(())
    }

    fn go(&mut self, line: &Line) -> Result<(), String> {
        let mode = line
            .args
            .first()
            .map(|(n, _)| n.as_str())
            .unwrap_or("think");
        let mut limits = std::mem::take(&mut self.limits);
        match mode {
            "think" => {}
            "ponder" => limits.ponder = true,
            "analyze" | "analyse" => {
                if limits.is_unbounded() {
                    limits.infinite = true;
                }
            }
            other => {
                return Err(format!(
                    "go: unknown mode '{}' (expected think, ponder or analyze)",
                    echo(other)
                ));
            }
        }
        let flip = self.client.flips_move_rows(self.variant);
        let legal = self.engine.legal_moves();
        if legal.is_empty() {
            send_error(&self.out, "the game is over: no legal move");
            send(&self.out, "done move=\"\"");
            return Ok(());
        }
        if legal.len() == 1 && mode == "think" {
            // A forced move needs no thought.
            let mv = if flip {
                flip_move_rows(&legal[0])
            } else {
                legal[0].clone()
            };
            send(&self.out, &format!("done move={mv}"));
            return Ok(());
        }
        self.searching.store(true, Ordering::Release);
        let out_info = Arc::clone(&self.out);
        let out_done = Arc::clone(&self.out);
        let searching = Arc::clone(&self.searching);
        self.engine.go(
            limits,
            move |mut info: Info| {
                if flip {
                    info.pv_hub = info.pv_hub.iter().map(|m| flip_move_rows(m)).collect();
                }
                send(&out_info, &info_line(&info))
            },
            move |mut done: Done| {
                if flip {
                    done.best = done.best.as_deref().map(flip_move_rows);
                    done.ponder = done.ponder.as_deref().map(flip_move_rows);
                }
                send(&out_done, &done_line(&done));
                searching.store(false, Ordering::Release);
            },
        );
        Ok(())
    }
}

/// A word such as `19-23` or `28x19`: squares joined by `-` or `x`.
fn looks_like_move(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == 'x' || c == ':')
}

/// Scan's `tt-size` for a table of `mb` megabytes (log2 of 16-byte entries).
fn tt_size_of(mb: usize) -> u32 {
    ((mb as u64) << 20 >> 4).max(1 << 16).ilog2().min(32)
}

pub fn info_line(info: &Info) -> String {
    let secs = info.time.as_secs_f64();
    format!(
        "info depth={} seldepth={} score={} nodes={} time={:.3} nps={:.1} pv={}",
        info.depth,
        info.seldepth,
        info.score.hub(),
        info.nodes,
        secs,
        info.nps as f64 / 1e6,
        quote(&info.pv_hub.join(" "))
    )
}

pub fn done_line(done: &Done) -> String {
    match (&done.best, &done.ponder) {
        (Some(b), Some(p)) => format!("done move={b} ponder={p}"),
        (Some(b), None) => format!("done move={b}"),
        (None, _) => "done move=\"\"".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_flip_of_the_8x8_numbers() {
        assert_eq!(flip_rows_8x8(9), 21);
        assert_eq!(flip_rows_8x8(21), 9);
        assert_eq!(flip_rows_8x8(1), 29);
        assert_eq!(flip_rows_8x8(32), 4);
        for n in 1..=32 {
            assert_eq!(flip_rows_8x8(flip_rows_8x8(n)), n);
        }
        assert_eq!(flip_move_rows("9-13"), "21-17");
        assert_eq!(flip_move_rows("22x15x18"), "10x19x14");
        assert_eq!(flip_move_rows("10x28x14x23"), "22x8x11x18");
        assert_eq!(flip_move_rows("bogus"), "bogus");
    }

    #[test]
    fn pydraughts_english_board_turned() {
        // pydraughts' B:W18:B5 (Black to move) arrives as W, a black man on 15, a white one on 28.
        let mut text = vec!['e'; 33];
        text[0] = 'W';
        text[15] = 'b';
        text[28] = 'w';
        let text: String = text.into_iter().collect();
        let turned = turn_english_board(&text);
        let mut want = vec!['e'; 33];
        want[0] = 'B';
        want[18] = 'w';
        want[5] = 'b';
        assert_eq!(turned, want.into_iter().collect::<String>());
        assert_eq!(turn_english_board("W:W18:B5"), "W:W18:B5");
    }
}
