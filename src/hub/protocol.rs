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
                send_error(&out, &format!("{e} in '{}'", shorten(&text)));
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

fn shorten(text: &str) -> String {
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text.to_string()
    }
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
            other => Err(format!("unknown command '{}'", shorten(other))),
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
            other => return Err(format!("unknown parameter '{}'", shorten(other))),
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
        let moves: Vec<String> = line
            .get("moves")
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
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
                    return Err(format!("level: unknown limit '{}'", shorten(other)));
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
                    shorten(other)
                ));
            }
        }
        let legal = self.engine.legal_moves();
        if legal.is_empty() {
            send_error(&self.out, "the game is over: no legal move");
            send(&self.out, "done move=\"\"");
            return Ok(());
        }
        if legal.len() == 1 && mode == "think" {
            // A forced move needs no thought.
            send(&self.out, &format!("done move={}", legal[0]));
            return Ok(());
        }
        self.searching.store(true, Ordering::Release);
        let out_info = Arc::clone(&self.out);
        let out_done = Arc::clone(&self.out);
        let searching = Arc::clone(&self.searching);
        self.engine.go(
            limits,
            move |info: Info| send(&out_info, &info_line(&info)),
            move |done: Done| {
                send(&out_done, &done_line(&done));
                searching.store(false, Ordering::Release);
            },
        );
        Ok(())
    }
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
