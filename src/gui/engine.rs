//! The engine behind a page: a `tammi hub` child process, one per session that asks for
//! a search. A process of its own because the evaluation's tables are process-wide
//! (`src/eval`): two searches of different variants in one process would share them;
//! and because killing a process is the one sure way to leave nothing running behind a
//! closed tab. The number of engines running at once is capped ([`MAX_ENGINES`]).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_channel::{Sender, TrySendError, bounded};

use crate::hub::message::Reply;
use crate::rules::Variant;

/// Engines (child processes) alive at once, over every session.
pub const MAX_ENGINES: usize = 4;
/// Hash table per engine, MB: small, since several may run side by side.
const HASH_MB: u32 = 32;

static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// The engines running now (for the tests and the load check).
pub fn running() -> usize {
    RUNNING.load(Ordering::SeqCst)
}

/// Engine places taken from the same cap as [`Engine`]s, for processes started by
/// someone else (a watched match's two engines); given back when dropped.
pub struct Slots(usize);

/// Take `n` engine places, or say why not.
pub fn reserve(n: usize) -> Result<Slots, String> {
    RUNNING
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |m| {
            (m + n <= MAX_ENGINES).then_some(m + n)
        })
        .map(|_| Slots(n))
        .map_err(|_| {
            format!(
                "a match needs {n} of the {MAX_ENGINES} engines, and other pages are using them; \
                 close one or try again later"
            )
        })
}

impl Drop for Slots {
    fn drop(&mut self) {
        RUNNING.fetch_sub(self.0, Ordering::SeqCst);
    }
}

/// A running `tammi hub`. Dropping it kills and reaps the process.
pub struct Engine {
    child: Child,
    /// Lines to the engine, written by a thread of their own so that no caller ever
    /// blocks on the pipe while holding its session's lock.
    lines: Option<Sender<String>>,
    pub variant: Variant,
    /// The Hub's `multipv` as last set.
    multipv: usize,
}

impl Engine {
    /// Start an engine for `variant`; `on_reply` gets each line it answers (on a reader
    /// thread). Refused when [`MAX_ENGINES`] are running.
    pub fn start(
        variant: Variant,
        mut on_reply: impl FnMut(Reply) + Send + 'static,
    ) -> Result<Engine, String> {
        let taken = RUNNING.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < MAX_ENGINES).then_some(n + 1)
        });
        if taken.is_err() {
            return Err(format!(
                "all {MAX_ENGINES} engines are busy with other pages; close one or try again later"
            ));
        }
        let spawned = std::env::current_exe().and_then(|exe| {
            Command::new(exe)
                .arg("hub")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
        });
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                RUNNING.fetch_sub(1, Ordering::SeqCst);
                return Err(format!("cannot start the engine: {e}"));
            }
        };
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let (tx, rx) = bounded::<String>(256);
        let started = (|| -> std::io::Result<()> {
            let mut stdin = stdin.ok_or_else(|| std::io::Error::other("no stdin"))?;
            let stdout = stdout.ok_or_else(|| std::io::Error::other("no stdout"))?;
            std::thread::Builder::new()
                .name("gui-engine-in".into())
                .spawn(move || {
                    for line in rx {
                        if writeln!(stdin, "{line}")
                            .and_then(|_| stdin.flush())
                            .is_err()
                        {
                            break;
                        }
                    }
                })?;
            std::thread::Builder::new()
                .name("gui-engine-out".into())
                .spawn(move || {
                    // Lines of the engine's own protocol; a line that is not one is skipped.
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        if let Ok(reply) = Reply::decode(&line) {
                            on_reply(reply);
                        }
                    }
                })?;
            Ok(())
        })();
        let mut engine = Engine {
            child,
            lines: Some(tx),
            variant,
            multipv: 1,
        };
        if let Err(e) = started {
            return Err(format!("cannot start the engine: {e}"));
        }
        for line in [
            "hub".to_string(),
            format!("set-param name=variant value={}", variant.hub_name()),
            format!("set-param name=hash value={HASH_MB}"),
            "init".to_string(),
        ] {
            engine.send(&line)?;
        }
        Ok(engine)
    }

    /// Send one line; an engine that stopped reading is an error.
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        let Some(tx) = &self.lines else {
            return Err("the engine is closed".into());
        };
        match tx.try_send(line.to_string()) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err("the engine is not reading its input".into()),
            Err(TrySendError::Disconnected(_)) => Err("the engine has stopped".into()),
        }
    }

    /// Switch to another variant (the Hub sets its start position with it).
    pub fn set_variant(&mut self, variant: Variant) -> Result<(), String> {
        if variant != self.variant {
            self.send(&format!(
                "set-param name=variant value={}",
                variant.hub_name()
            ))?;
            self.variant = variant;
        }
        Ok(())
    }
}

impl Engine {
    /// The number of lines the next analysis reports.
    pub fn set_multipv(&mut self, lines: usize) -> Result<(), String> {
        if lines != self.multipv {
            self.send(&format!("set-param name=multipv value={lines}"))?;
            self.multipv = lines;
        }
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Closing its input ends the Hub; the kill makes sure, the wait reaps it.
        self.lines.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}
