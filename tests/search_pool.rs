//! The search threads live from one `go` to the next (a pool, resized when `threads`
//! changes). The only test of its own binary, so no other test's threads are counted.

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use tammi::rules::Variant;
use tammi::search::{Engine, EngineOptions, Limits};

fn engine(threads: usize, hash_mb: usize) -> Engine {
    Engine::new(EngineOptions {
        threads,
        hash_mb,
        ..EngineOptions::default()
    })
    .expect("valid options")
}

/// The threads of this process named `name` (Linux: /proc/self/task/*/comm).
#[cfg(target_os = "linux")]
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end() == name)
        .count()
}

/// Wait (at most a generous 5 s) until `count()` is `want`; the last count. Threads
/// started or told to end get there in their own time.
#[cfg(target_os = "linux")]
fn settles_at(want: usize, count: impl Fn() -> usize) -> usize {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let n = count();
        if n == want || Instant::now() > until {
            return n;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn searches_reuse_the_threads_and_threads_changes_resize_them() {
    let mut e = engine(2, 16);
    let answered_on: Arc<Mutex<Vec<ThreadId>>> = Arc::default();
    for moves in [&[][..], &["32-28"][..], &["32-28", "18-23"][..]] {
        let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        e.set_position(Variant::International, "start", &moves)
            .unwrap();
        let log = Arc::clone(&answered_on);
        e.go(
            Limits::depth(6),
            |_| {},
            move |_| log.lock().unwrap().push(std::thread::current().id()),
        );
        e.wait();
        assert_eq!(threads_named("tammi-search"), 1);
        assert_eq!(threads_named("tammi-helper"), 1);
    }
    let ids = answered_on.lock().unwrap().clone();
    assert_eq!(ids.len(), 3);
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "every search answers from the same thread: {ids:?}"
    );

    let mut options = e.options().clone();
    options.threads = 5;
    e.set_options(options.clone()).unwrap();
    // A new thread names itself once it runs.
    assert_eq!(settles_at(4, || threads_named("tammi-helper")), 4);
    e.think(Limits::depth(4), |_| {});
    assert_eq!(threads_named("tammi-helper"), 4);
    options.threads = 1;
    e.set_options(options).unwrap();
    // Dropped helpers end by themselves, soon.
    assert_eq!(settles_at(0, || threads_named("tammi-helper")), 0);
    e.think(Limits::depth(4), |_| {});
    assert_eq!(threads_named("tammi-search"), 1);
    drop(e);
    assert_eq!(settles_at(0, || threads_named("tammi-search")), 0);
}
