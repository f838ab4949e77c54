//! What a search reads besides the position: the transposition table and the endgame
//! database, and their preparation off the move's clock.
//!
//! Allocating a table of gigabytes (every page written once), clearing one, or reading a
//! database takes seconds. A GUI that sets `hash=4096` and then asks for a 0.5 s move must
//! still get its move in 0.5 s, so those jobs run on a preparation thread while the engine
//! goes on with the resources it has: a search waits for a preparation only as long as
//! [`Preparation::wait`] allows, then searches with what is in place, and the prepared
//! resources are put to use at the next command (see `Engine::collect_preparation`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::egdb::{Database, Unread};
use crate::rules::Variant;

use super::tt::TranspositionTable;

/// A table being replaced by one of another size is first swapped for one of this size
/// (if larger), so that the old and the new table are never both in memory (the memory
/// bound of `hash`); a search started before the new table is ready uses it.
pub const INTERIM_MB: usize = 4;

/// The transposition table and the endgame database, with the option values they
/// were made for.
#[derive(Clone)]
pub struct Resources {
    pub tt: Arc<TranspositionTable>,
    /// The `hash` option the table stands for (a smaller interim table may stand in
    /// while the table of this size is prepared; see [`INTERIM_MB`]).
    pub hash_mb: usize,
    pub egdb: Option<Arc<Database>>,
    /// The `egdb` option in force: a database file, or a directory of them.
    pub egdb_path: Option<PathBuf>,
}

impl Resources {
    /// A table of `hash_mb` and no database; the error when the memory cannot be had.
    pub fn new(hash_mb: usize) -> Result<Resources, String> {
        Ok(Resources {
            tt: Arc::new(TranspositionTable::try_new(hash_mb)?),
            hash_mb,
            egdb: None,
            egdb_path: None,
        })
    }

    /// Before `Change::Resize` is prepared from these resources: a large table gives way
    /// to an interim one, so the old and the new table are not both in memory.
    pub fn shrink_for_resize(&mut self) {
        if self.tt.bytes() > INTERIM_MB << 20 {
            self.tt = Arc::new(TranspositionTable::new(INTERIM_MB));
        }
    }
}

/// The resources once a preparation is over, and its error (the change that failed
/// left them as they were).
pub type Prepared = (Resources, Option<String>);
pub type ErrorCallback = Box<dyn FnOnce(String) + Send>;

/// What a preparation changes.
pub enum Change {
    /// A new table of this many MB.
    Resize(usize),
    /// Make the `egdb` option this value (a file, a directory or none), with the
    /// database opened here loaded (or none: unload the one in memory).
    Egdb(Option<PathBuf>, Option<Unread>),
    /// Clear the table (a new game). The table is shared with any search running
    /// meanwhile: its entries are atomics whose keys are checked, so a search that
    /// reads a half-cleared table only misses entries.
    Clear,
}

impl Change {
    pub fn apply(self, r: &mut Resources) -> Result<(), String> {
        match self {
            Change::Resize(mb) => {
                // Drop this copy of the old table before the new one is allocated (the
                // engine holds at most an interim one meanwhile).
                r.tt = Arc::new(TranspositionTable::new(0));
                match TranspositionTable::try_new(mb) {
                    Ok(tt) => {
                        r.tt = Arc::new(tt);
                        r.hash_mb = mb;
                    }
                    Err(e) => {
                        // Keep a table of the old size so the engine goes on working.
                        r.tt = Arc::new(TranspositionTable::new(r.hash_mb));
                        return Err(e);
                    }
                }
            }
            Change::Egdb(option, unread) => {
                r.egdb = match unread {
                    None => None,
                    // The old database stays until the new one is read.
                    Some(unread) => Some(Arc::new(unread.read().map_err(|e| format!("{e:#}"))?)),
                };
                r.egdb_path = option;
            }
            Change::Clear => r.tt.clear(),
        }
        Ok(())
    }
}

/// The database at `path` with its header checked (the tables not read yet); the
/// error says what is wrong with the file.
fn open_egdb(path: &Path) -> Result<Unread, String> {
    Database::open(path).map_err(|e| format!("{e:#}"))
}

/// The change that makes `option` the `egdb` option for positions of `variant`: its
/// file (or, for a directory, its file for `variant`) opened, the header checked.
pub fn egdb_change(option: Option<&Path>, variant: Variant) -> Result<Change, String> {
    let Some(path) = option else {
        return Ok(Change::Egdb(None, None));
    };
    let unread = match crate::egdb::locate(path, variant).map_err(|e| format!("{e:#}"))? {
        None => None,
        Some(file) => Some(open_egdb(&file)?),
    };
    Ok(Change::Egdb(Some(path.to_path_buf()), unread))
}

/// A preparation at work on its own thread: the changes are made to a copy of the
/// resources (after any earlier preparation's, in order), and the result waits here
/// until the engine collects it.
pub struct Preparation {
    result: Mutex<Option<Prepared>>,
    ready: Condvar,
}

impl Preparation {
    /// Start making `changes` to `base`, or to what `earlier` prepares once it is done.
    pub fn start(
        base: Resources,
        earlier: Option<Arc<Preparation>>,
        changes: Vec<Change>,
        on_error: Option<ErrorCallback>,
    ) -> Arc<Preparation> {
        let p = Arc::new(Preparation {
            result: Mutex::new(None),
            ready: Condvar::new(),
        });
        let q = Arc::clone(&p);
        std::thread::Builder::new()
            .name("tammi-prepare".into())
            .spawn(move || {
                let mut r = match earlier {
                    Some(e) => e.take_when_done().0,
                    None => base,
                };
                let mut error = None;
                for change in changes {
                    if let Err(e) = change.apply(&mut r) {
                        error = Some(e);
                    }
                }
                if let (Some(e), Some(report)) = (&error, on_error) {
                    report(e.clone());
                }
                *lock(&q.result) = Some((r, error));
                q.ready.notify_all();
            })
            .expect("spawning the preparation thread");
        p
    }

    pub fn is_done(&self) -> bool {
        lock(&self.result).is_some()
    }

    /// The prepared resources, waiting for them as long as it takes.
    pub fn take_when_done(&self) -> Prepared {
        let mut r = lock(&self.result);
        loop {
            if let Some(p) = r.take() {
                return p;
            }
            r = self.ready.wait(r).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The prepared resources (left in place for the engine to collect), once done:
    /// waiting at most `bound` (`None`: as long as it takes), and no longer once
    /// `stopped` says so. `None` if the preparation is still at work.
    pub fn wait(&self, bound: Option<Duration>, stopped: &dyn Fn() -> bool) -> Option<Resources> {
        let start = Instant::now();
        let mut r = lock(&self.result);
        loop {
            if let Some((resources, _)) = r.as_ref() {
                return Some(resources.clone());
            }
            let left = bound.map(|b| b.saturating_sub(start.elapsed()));
            if stopped() || left == Some(Duration::ZERO) {
                return None;
            }
            // Woken when done; the stop flag is looked at every few milliseconds.
            let step = left.map_or(POLL, |l| l.min(POLL));
            r = self
                .ready
                .wait_timeout(r, step)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

const POLL: Duration = Duration::from_millis(2);

/// A mutex's contents, even after a panic elsewhere (the data is plain values).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_does_not_wait_past_its_bound() {
        // An earlier preparation that finishes only when the test says so.
        let base = Resources::new(1).unwrap();
        let blocker = Arc::new(Preparation {
            result: Mutex::new(None),
            ready: Condvar::new(),
        });
        let p = Preparation::start(
            base.clone(),
            Some(Arc::clone(&blocker)),
            vec![Change::Resize(2)],
            None,
        );
        let t = Instant::now();
        assert!(p.wait(Some(Duration::from_millis(20)), &|| false).is_none());
        assert!(t.elapsed() < Duration::from_secs(5));
        assert!(p.wait(None, &|| true).is_none(), "a stop ends the wait");
        *lock(&blocker.result) = Some((base, None));
        blocker.ready.notify_all();
        let r = p
            .wait(None, &|| false)
            .expect("done once the earlier one is");
        assert_eq!(r.hash_mb, 2);
        assert_eq!(r.tt.bytes(), 2 << 20);
        assert!(p.is_done());
        let (r, e) = p.take_when_done();
        assert!(e.is_none());
        assert_eq!(r.hash_mb, 2);
    }

    #[test]
    fn a_failed_resize_keeps_a_table_of_the_old_size() {
        let mut r = Resources::new(1).unwrap();
        let e = Change::Resize(usize::MAX >> 21).apply(&mut r).unwrap_err();
        assert!(e.contains("cannot allocate"), "{e}");
        assert_eq!(r.hash_mb, 1);
        assert_eq!(r.tt.bytes(), 1 << 20);
    }
}
