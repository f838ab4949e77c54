//! Time and resources through a real `tammi hub`: threads above the core count keep the
//! clock and `stop`, and preparing a large table or a database never blocks the protocol.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common;

use common::hub::{Hub, PATIENCE};

/// Send `ping` and return how long the `pong` took.
fn ping(hub: &mut Hub) -> Duration {
    let sent = Instant::now();
    hub.send("ping");
    hub.until("pong");
    sent.elapsed()
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tammi-hubres-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The advertised maximum of threads on a machine with far fewer cores: a one-second
/// move is answered in about a second (it took ten, all spent starting the threads),
/// and `stop` ends an analysis at once. The bounds are generous: they catch a clock
/// that does not hold, not a slow machine.
#[test]
fn the_most_threads_keep_the_move_time_and_stop() {
    let mut hub = Hub::ready();
    hub.send("set-param name=threads value=256");
    hub.send("level move-time=1");
    let sent = Instant::now();
    hub.send("go think");
    let lines = hub.until_within("done", PATIENCE);
    let took = sent.elapsed();
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
    assert!(took < Duration::from_secs(3), "move-time=1 took {took:?}");

    hub.send("pos");
    hub.send("go analyze");
    hub.until_within("info", PATIENCE);
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    hub.send("stop");
    hub.until_within("done", PATIENCE);
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(1), "stop took {took:?}");
    assert!(ping(&mut hub) < Duration::from_secs(1));
}

/// A figure from /proc/PID/status in kB (Linux only), e.g. `VmHWM`, the peak resident size.
#[cfg(target_os = "linux")]
fn proc_status_kb(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("{key} missing from /proc/{pid}/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Allocating and clearing 4 GB took 7 s during which nothing was answered. Now `ping`
/// is answered at once, a `go` sent meanwhile waits for the table and then searches
/// with it, `new-game` (clearing it) does not block either, and the memory stays
/// within the table plus 50 MB.
#[cfg(target_os = "linux")]
#[test]
fn ping_is_answered_while_a_large_table_is_prepared() {
    const HASH_MB: u64 = 4096;
    let mut hub = Hub::ready();
    hub.send(&format!("set-param name=hash value={HASH_MB}"));
    let pong = ping(&mut hub);
    assert!(pong < Duration::from_millis(1500), "pong after {pong:?}");
    hub.send("level depth=6");
    hub.send("go think");
    let pong = ping(&mut hub);
    assert!(pong < Duration::from_millis(1500), "pong after {pong:?}");
    let lines = hub.until_within("done", PATIENCE);
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
    // The search ran with the whole table: it had been allocated and written.
    let peak_mb = proc_status_kb(hub.child.id(), "VmHWM") / 1024;
    assert!(peak_mb >= HASH_MB, "peak resident {peak_mb} MB");
    hub.send("new-game");
    let pong = ping(&mut hub);
    assert!(pong < Duration::from_millis(1500), "pong after {pong:?}");
    hub.send("pos");
    hub.send("level depth=4");
    hub.send("go think");
    hub.until_within("done", PATIENCE);
    // A smaller table after a large one: the large one is freed first.
    hub.send("set-param name=hash value=16");
    hub.send("level depth=4");
    hub.send("go think");
    hub.until_within("done", PATIENCE);
    let peak_mb = proc_status_kb(hub.child.id(), "VmHWM") / 1024;
    assert!(peak_mb <= HASH_MB + 50, "peak resident {peak_mb} MB");
    let resident_mb = proc_status_kb(hub.child.id(), "VmRSS") / 1024;
    assert!(resident_mb < 200, "resident {resident_mb} MB after hash=16");
}

/// A database path naming a FIFO with no writer hung the Hub for ever (opening it
/// blocks). It is refused at once, by name and why, and the Hub goes on.
#[cfg(unix)]
#[test]
fn a_fifo_as_database_is_refused_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("no-writer.egdb");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let mut hub = Hub::ready();
    hub.send("set-param name=variant value=english");
    hub.send(&format!("set-param name=egdb value={}", fifo.display()));
    let lines = hub.until_within("error", Duration::from_secs(5));
    let err = lines.last().unwrap();
    assert!(
        err.contains(&fifo.display().to_string()) && err.contains("FIFO"),
        "{err}"
    );
    assert!(ping(&mut hub) < Duration::from_secs(1));
    // A directory is no database either.
    hub.send(&format!("set-param name=egdb value={}", dir.display()));
    let err = hub
        .until_within("error", Duration::from_secs(5))
        .pop()
        .unwrap();
    assert!(err.contains("directory"), "{err}");
    // The engine goes on, without a database.
    hub.send("level depth=3");
    hub.send("go think");
    hub.until_within("done move=", PATIENCE);
    hub.send("hub");
    let lines = hub.until_within("wait", PATIENCE);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=egdb value=\"\"")),
        "{lines:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same through the command line: `analyze --threads 256 --time 3` ran 9.5 s.
#[test]
fn analyze_with_the_most_threads_keeps_its_time() {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(["analyze", "--threads", "256", "--time", "1"])
        .output()
        .expect("run tammi analyze");
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    assert!(took < Duration::from_secs(3), "--time 1 took {took:?}");
}

/// `hash=4096` and at once a 0.5 s move: the move came after 9 to 15 s (the search
/// waited for the 4 GB to be allocated and written). A move on a clock now waits at
/// most 20 ms for the table and searches with the one in place; `stop` is answered
/// during the preparation too. The bound only catches the stall, with room to spare.
#[cfg(target_os = "linux")]
#[test]
fn a_large_table_does_not_stall_a_timed_move() {
    let mut hub = Hub::ready();
    hub.send("set-param name=hash value=4096");
    hub.send("level move-time=0.5");
    let start = Instant::now();
    hub.send("go think");
    let done = hub.until_within("done", PATIENCE).pop().unwrap();
    let took = start.elapsed();
    assert!(done.starts_with("done move="), "{done}");
    assert!(took < Duration::from_millis(2500), "done after {took:?}");
    // Another size, then analysis stopped at once: the stop is answered even though
    // the analysis waits for the table.
    hub.send("set-param name=hash value=2048");
    hub.send("pos");
    hub.send("go analyze");
    std::thread::sleep(Duration::from_millis(50));
    let start = Instant::now();
    hub.send("stop");
    hub.until_within("done", PATIENCE);
    let took = start.elapsed();
    assert!(took < Duration::from_millis(1500), "done after {took:?}");
}
