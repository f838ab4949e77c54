//! One Hub engine as a child process: start and handshake, parameters, searches with a
//! deadline, and what to do when it misbehaves (kill, start again).
//!
//! Standard output is read on a thread of its own that stamps every line with the time
//! it arrived, so an engine's thinking time is measured from the moment `go` was written
//! to the moment its `done` arrived, whatever the runner was doing meanwhile.
//! Standard error is discarded (some engines print diagnostics there; a pipe nobody reads
//! could fill and block them).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use crossbeam_channel::{Receiver, RecvTimeoutError, unbounded};

use crate::hub::message::{Command, GoMode, ParamType, Reply};
use crate::rules::Variant;

/// How long an engine may take to list its parameters (`hub` … `wait`).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long it may take to get ready after `init` (tables are allocated here).
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for `pong`: an engine that does not answer `ping` at start-up is
/// never pinged again.
pub const PING_TIMEOUT: Duration = Duration::from_secs(2);
/// After a deadline has passed, `stop` is sent and the engine gets this long to answer
/// with its `done` before it is declared unresponsive and killed.
pub const STOP_GRACE: Duration = Duration::from_secs(1);
/// How long `quit` is given before the process is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// How to start an engine and what to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name for reports and PDN (default: the engine's `id name`).
    pub name: Option<String>,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Hub parameters, sent with `set-param` after the variant, in this order.
    pub params: Vec<(String, String)>,
}

impl EngineSpec {
    /// The command as typed (for messages).
    pub fn command_line(&self) -> String {
        self.command.join(" ")
    }
}

/// Split a command line into words: blanks separate, single or double quotes group.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote_char: Option<char> = None;
    for c in text.chars() {
        match quote_char {
            Some(q) if c == q => quote_char = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote_char = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote_char.is_some() {
        return Err(format!(
            "unclosed quote in '{}'",
            crate::notation::echo(text)
        ));
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("empty engine command".into());
    }
    Ok(words)
}

/// Where the Hub traffic of every engine is copied (`--log`): one line per line sent
/// (`>`) or received (`<`), with the seconds since the log was opened and the engine's
/// label, so that slow answers can be seen.
pub struct TrafficLog {
    out: Mutex<Box<dyn Write + Send>>,
    start: Instant,
}

impl TrafficLog {
    pub fn new(out: Box<dyn Write + Send>) -> Log {
        Arc::new(TrafficLog {
            out: Mutex::new(out),
            start: Instant::now(),
        })
    }
}

pub type Log = Arc<TrafficLog>;

/// A parameter as the engine declared it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: String,
    pub kind: Option<ParamType>,
    pub value: Option<String>,
}

enum Event {
    Line(String, Instant),
    Eof,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchEnd {
    /// `done` arrived (perhaps only after the deadline and `stop`: compare `elapsed`).
    Done {
        mv: String,
        elapsed: Duration,
        /// The last `info` score, in men from the mover's view.
        score: Option<f64>,
        depth: Option<u32>,
    },
    /// No `done` by the deadline, nor within [`STOP_GRACE`] after `stop`.
    Unresponsive,
    /// The engine exited (or closed its output) during the search.
    Crashed(String),
    /// The flag given to [`HubEngine::abort_on`] was set: the engine was killed.
    Aborted,
}

/// How often a search looks at its abort flag: the longest a watcher that went away
/// keeps an engine thinking.
const ABORT_POLL: Duration = Duration::from_millis(25);

/// A running engine.
pub struct HubEngine {
    pub spec: EngineSpec,
    /// A short label for the log (`w1.e2`: worker 1, engine 2).
    label: String,
    variant: Variant,
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    /// The `id name` it gave.
    pub id_name: Option<String>,
    pub declared: Vec<ParamDecl>,
    answers_ping: bool,
    dead: bool,
    log: Option<Log>,
    /// `error` lines received since the last call to [`HubEngine::take_errors`].
    errors: Vec<String>,
    /// Set from outside to cut a search short ([`SearchEnd::Aborted`]).
    abort: Option<Arc<AtomicBool>>,
}

impl HubEngine {
    /// Start the engine and take it through the handshake: `hub`, its `id` and `param`
    /// lines up to `wait`, `set-param` for the variant and the requested parameters,
    /// `init`, `ready`, and a `ping` to learn whether it answers one.
    ///
    /// Fails (with the reason) when the program cannot start, does not finish the
    /// handshake in time, cannot play the variant, lacks a requested parameter, or answers
    /// `error` during the set-up.
    pub fn start(
        spec: &EngineSpec,
        variant: Variant,
        label: &str,
        log: Option<Log>,
    ) -> Result<HubEngine> {
        let (program, args) = spec
            .command
            .split_first()
            .ok_or_else(|| anyhow!("empty engine command"))?;
        let mut child = Process::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start '{}'", spec.command_line()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = unbounded();
        std::thread::Builder::new()
            .name(format!("match-{label}"))
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let at = Instant::now();
                            let text = String::from_utf8_lossy(&buf).trim().to_string();
                            if tx.send(Event::Line(text, at)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(Event::Eof);
            })
            .context("starting a reader thread")?;
        let mut engine = HubEngine {
            spec: spec.clone(),
            label: label.to_string(),
            variant,
            child,
            stdin,
            events: rx,
            id_name: None,
            declared: Vec::new(),
            answers_ping: false,
            dead: false,
            log,
            errors: Vec::new(),
            abort: None,
        };
        match engine.handshake() {
            Ok(()) => Ok(engine),
            Err(e) => {
                engine.kill();
                Err(e.context(format!("engine '{}'", spec.command_line())))
            }
        }
    }

    fn handshake(&mut self) -> Result<()> {
        self.send(&Command::Hub)?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        loop {
            let reply = self.expect_reply(
                deadline,
                "answer to 'hub' (id and param lines, then 'wait', as a Hub engine sends)",
            )?;
            match reply {
                Reply::Id(fields) => {
                    if let Some((_, n)) = fields.iter().find(|(f, v)| f == "name" && !v.is_empty())
                    {
                        self.id_name = Some(n.clone());
                    }
                }
                Reply::Param { name, value, kind } => {
                    self.declared.push(ParamDecl { name, kind, value });
                }
                Reply::Wait => break,
                _ => {}
            }
        }
        let mut settings = Vec::new();
        match self.declared.iter().find(|p| p.name == "variant") {
            Some(p) => {
                let names: &[String] = match &p.kind {
                    Some(ParamType::Enum(values)) => values,
                    _ => &[],
                };
                let wanted = self.variant.hub_name();
                // Scan's names first; tammi also knows its long names.
                let chosen = [wanted, self.variant.name()]
                    .into_iter()
                    .find(|n| names.is_empty() || names.iter().any(|m| m == n))
                    .ok_or_else(|| {
                        anyhow!(
                            "it does not play {} (its variants: {})",
                            self.variant,
                            names.join(" ")
                        )
                    })?;
                settings.push(("variant".to_string(), chosen.to_string()));
            }
            None if self.variant != Variant::International => bail!(
                "it declares no 'variant' parameter, so it plays only international draughts, not {}",
                self.variant
            ),
            None => {}
        }
        for (name, value) in &self.spec.params {
            if !self.declared.iter().any(|p| &p.name == name) {
                let names: Vec<&str> = self.declared.iter().map(|p| p.name.as_str()).collect();
                bail!(
                    "it has no parameter '{name}' (it declares: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                );
            }
            settings.push((name.clone(), value.clone()));
        }
        // A match measures tammi from its openings, as the figures before tammi had a
        // book were measured: tammi plays without its book unless the match asks for it
        // (--engine-option N:book=true). Other engines keep their own default (the
        // results recorded with GuiNN's book on stay reproducible).
        if self.id_name.as_deref() == Some("tammi")
            && self.declared.iter().any(|p| p.name == "book")
            && !self.spec.params.iter().any(|(n, _)| n == "book")
        {
            settings.push(("book".to_string(), "false".to_string()));
        }
        for (name, value) in &settings {
            self.send(&Command::SetParam {
                name: name.clone(),
                value: value.clone(),
            })?;
        }
        self.send(&Command::Init)?;
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match self.expect_reply(deadline, "'ready' after 'init'")? {
                Reply::Ready => break,
                Reply::Error(message) => bail!(
                    "it answered the set-up ({}) with: {}",
                    settings
                        .iter()
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    message
                ),
                _ => {}
            }
        }
        self.send(&Command::Ping)?;
        self.answers_ping = self.wait_for(&Reply::Pong, Instant::now() + PING_TIMEOUT)?;
        Ok(())
    }

    /// The name to show: the one given, else the engine's `id name`, else the program's.
    pub fn display_name(&self) -> String {
        self.spec
            .name
            .clone()
            .or_else(|| self.id_name.clone())
            .unwrap_or_else(|| {
                let program = self.spec.command.first().map(String::as_str).unwrap_or("?");
                Path::new(program)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| program.to_string())
            })
    }

    /// From now on a search ends as soon as `flag` is set (checked every
    /// [`ABORT_POLL`]); `None`: searches run to their end or deadline.
    pub fn abort_on(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.abort = flag;
    }

    /// Whether the engine crashed or was killed: it must be started again before use.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Kill the process and reap it.
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }

    /// `error` lines seen since the last call.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    /// Prepare for an unrelated game: `new-game`, then (for an engine that answers `ping`)
    /// wait for `pong`, so that clearing its tables is not charged to its first move.
    /// Returns false if the engine is gone or silent (it should be started again).
    pub fn new_game(&mut self) -> bool {
        self.drain();
        if self.dead || self.send(&Command::NewGame).is_err() {
            return false;
        }
        if !self.answers_ping {
            return true;
        }
        if self.send(&Command::Ping).is_err() {
            return false;
        }
        let ok = matches!(
            self.wait_for(&Reply::Pong, Instant::now() + READY_TIMEOUT),
            Ok(true)
        );
        if !ok {
            self.kill();
        }
        ok
    }

    /// Search: send `pos`, the `level` lines and `go think`, then wait for `done` until
    /// `deadline` after `go` (measured on the arrival of `done`); past the deadline send
    /// `stop` and wait [`STOP_GRACE`] more. An unresponsive engine is killed. `levels` are
    /// `level` lines as the runner's clock writes them; a line that is no `level` command
    /// is not sent (a crash of the runner's own making, reported as such).
    pub fn search(
        &mut self,
        position: &str,
        moves: &[String],
        levels: &[String],
        deadline: Duration,
    ) -> SearchEnd {
        self.drain();
        if self.dead {
            return SearchEnd::Crashed("the engine had already exited".into());
        }
        let mut commands = vec![Command::Pos {
            pos: Some(position.to_string()),
            fen: None,
            moves: moves.to_vec(),
        }];
        for l in levels {
            match Command::decode(l) {
                Ok(c @ Command::Level(_)) => commands.push(c),
                Ok(_) => return SearchEnd::Crashed(format!("'{l}' is no level line")),
                Err(e) => return SearchEnd::Crashed(format!("'{l}': {e}")),
            }
        }
        commands.push(Command::Go(GoMode::Think));
        for c in &commands {
            if let Err(e) = self.send(c) {
                self.kill();
                return SearchEnd::Crashed(format!("writing to it failed: {e}"));
            }
        }
        let start = Instant::now();
        let mut stop_sent = false;
        let mut score = None;
        let mut depth = None;
        loop {
            let limit = if stop_sent {
                start + deadline + STOP_GRACE
            } else {
                start + deadline
            };
            // With an abort flag, wake up now and then to look at it.
            let wake = match &self.abort {
                Some(_) => limit.min(Instant::now() + ABORT_POLL),
                None => limit,
            };
            if self
                .abort
                .as_ref()
                .is_some_and(|a| a.load(Ordering::Relaxed))
            {
                self.kill();
                return SearchEnd::Aborted;
            }
            match self.events.recv_deadline(wake) {
                Ok(Event::Line(text, at)) => {
                    self.log_in(&text);
                    // (`done move=`, no move: the engine's game is over, decodes as a
                    // `done` without a move although the strict syntax refuses it.)
                    match Reply::decode(&text) {
                        Ok(Reply::Info(i)) => {
                            score = i.score.or(score);
                            depth = i.depth.or(depth);
                        }
                        Ok(Reply::Done { mv, .. }) => {
                            return SearchEnd::Done {
                                mv: mv.unwrap_or_default(),
                                elapsed: at.saturating_duration_since(start),
                                score,
                                depth,
                            };
                        }
                        Ok(Reply::Error(message)) => self.errors.push(message),
                        _ => {}
                    }
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    self.kill();
                    return SearchEnd::Crashed(status);
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() < limit => {}
                Err(RecvTimeoutError::Timeout) => {
                    if stop_sent || self.send(&Command::Stop).is_err() {
                        self.kill();
                        return SearchEnd::Unresponsive;
                    }
                    stop_sent = true;
                }
            }
        }
    }

    /// How the process ended, for the report (it has closed its output).
    fn exit_status(&mut self) -> String {
        // The output closes a moment before the process is reaped.
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("it exited ({status})"),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return "it closed its output".into(),
            }
        }
    }

    fn send(&mut self, command: &Command) -> Result<()> {
        let line = command.encode();
        self.log_out(&line);
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("the engine's input is closed"))?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .context("the engine is not reading its input")
    }

    /// The next reply before `deadline`; what was being waited for names the error.
    fn expect_reply(&mut self, deadline: Instant, waiting_for: &str) -> Result<Reply> {
        loop {
            match self.events.recv_deadline(deadline) {
                Ok(Event::Line(text, _)) => {
                    self.log_in(&text);
                    if let Ok(reply) = Reply::decode(&text) {
                        return Ok(reply);
                    }
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    bail!("{status} while tammi waited for {waiting_for}")
                }
                Err(RecvTimeoutError::Timeout) => {
                    bail!("no {waiting_for} within the time allowed")
                }
            }
        }
    }

    /// Wait for the reply `wanted`; false on timeout, an error on exit.
    fn wait_for(&mut self, wanted: &Reply, deadline: Instant) -> Result<bool> {
        loop {
            match self.events.recv_deadline(deadline) {
                Ok(Event::Line(text, _)) => {
                    self.log_in(&text);
                    match Reply::decode(&text) {
                        Ok(r) if &r == wanted => return Ok(true),
                        Ok(Reply::Error(message)) => self.errors.push(message),
                        _ => {}
                    }
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    self.dead = true;
                    bail!("{status}")
                }
                Err(RecvTimeoutError::Timeout) => return Ok(false),
            }
        }
    }

    /// Take what arrived between searches (late errors, stray lines); notice an exit.
    fn drain(&mut self) {
        while let Ok(ev) = self.events.try_recv() {
            match ev {
                Event::Line(text, _) => {
                    self.log_in(&text);
                    if let Ok(Reply::Error(message)) = Reply::decode(&text) {
                        self.errors.push(message);
                    }
                }
                Event::Eof => {
                    self.kill();
                }
            }
        }
    }

    fn log_out(&self, line: &str) {
        self.log_line('>', line);
    }

    fn log_in(&self, line: &str) {
        self.log_line('<', line);
    }

    fn log_line(&self, dir: char, line: &str) {
        if let Some(log) = &self.log
            && let Ok(mut w) = log.out.lock()
        {
            let t = log.start.elapsed().as_secs_f64();
            let _ = writeln!(w, "{t:.3} {} {dir} {line}", self.label);
        }
    }
}

impl Drop for HubEngine {
    fn drop(&mut self) {
        if self.dead {
            return;
        }
        // Ask politely, then insist.
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let until = Instant::now() + QUIT_GRACE;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words() {
        assert_eq!(
            split_command("target/release/tammi hub").unwrap(),
            ["target/release/tammi", "hub"]
        );
        assert_eq!(
            split_command(" python3 'my engine.py'  \"a b\" ").unwrap(),
            ["python3", "my engine.py", "a b"]
        );
        assert!(split_command("  ").is_err());
        assert!(split_command("x 'y").is_err());
    }
}
