//! The search threads: a pool started once and kept from move to move, the gate the
//! helpers of one search wait at, the crew that collects them (and their panics), each
//! thread's tables between searches, and the turns they take when they outnumber the
//! cores.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Thread;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use crate::rules::Variant;

use super::search::{RootMove, Tables};

/// A helper's last completed iteration: its depth and best line.
pub(super) type Published<B> = Mutex<Option<(i32, RootMove<B>)>>;

/// A mutex's contents, even after a panic elsewhere (the data is plain values).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where helper threads wait for the main thread until it has handed out every task.
#[derive(Default)]
pub(super) struct Gate {
    pub(super) open: Mutex<bool>,
    pub(super) opened: std::sync::Condvar,
}

impl Gate {
    pub(super) fn wait(&self) {
        let mut open = lock(&self.open);
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(super) fn open(&self) {
        *lock(&self.open) = true;
        self.opened.notify_all();
    }
}

/// The helpers of one search still searching it, and the first panic among them.
#[derive(Default)]
pub(super) struct Crew {
    pub(super) state: Mutex<(usize, Option<Panic>)>,
    pub(super) idle: Condvar,
}

/// What a panicking thread left (to be raised again on the caller's thread).
pub(super) type Panic = Box<dyn Any + Send>;

impl Crew {
    pub(super) fn enter(&self) {
        lock(&self.state).0 += 1;
    }

    pub(super) fn leave(&self, panic: Option<Panic>) {
        let mut st = lock(&self.state);
        st.0 -= 1;
        if st.1.is_none() {
            st.1 = panic;
        }
        if st.0 == 0 {
            self.idle.notify_all();
        }
    }

    /// Wait until every helper has left; the first panic among them, if any.
    pub(super) fn wait(&self) -> Option<Panic> {
        let mut st = lock(&self.state);
        while st.0 > 0 {
            st = self.idle.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.1.take()
    }
}

/// Work for a pool thread, given that thread's tables.
pub(super) type Task = Box<dyn FnOnce(&mut Slot) + Send>;

/// A pool thread's search tables (see [`Tables`]) between searches, with the game they
/// were learnt in: the variant, and the engine's game number, which `new_game` advances.
/// Tables of another game are dropped, and the search starts from new ones.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) owner: Option<(Variant, u64)>,
    pub(super) tables: Option<Box<dyn Any + Send>>,
}

impl Slot {
    pub(super) fn take<B: Copy + Default + Send + 'static>(
        &mut self,
        owner: (Variant, u64),
    ) -> Tables<B> {
        let kept = self.tables.take().filter(|_| self.owner == Some(owner));
        match kept.map(|t| t.downcast::<Tables<B>>()) {
            Some(Ok(t)) => *t,
            _ => Tables::default(),
        }
    }

    pub(super) fn put<B: Send + 'static>(&mut self, owner: (Variant, u64), tables: Tables<B>) {
        self.owner = Some(owner);
        self.tables = Some(Box::new(tables));
    }
}

/// The search threads, started once and kept from move to move (starting them for every
/// search cost a `go` a spawn per thread): the main one runs each search and answers, the
/// helpers run the Lazy-SMP searches beside it. Each waits for its next task; a thread
/// whose sender is dropped ends.
#[derive(Default)]
pub(super) struct Pool {
    pub(super) main: Option<Sender<Task>>,
    pub(super) helpers: Arc<Vec<Sender<Task>>>,
}

impl Pool {
    /// Have `threads` threads in all: start the missing ones, let the extra ones end. A
    /// helper that cannot be started (a system limit) is done without.
    pub(super) fn resize(&mut self, threads: usize) {
        if self.main.is_none() {
            // The main search's recursion and move lists get a large stack.
            self.main = Some(
                spawn_pool_thread("tammi-search", Some(16 << 20))
                    .expect("starting the search thread"),
            );
        }
        let want = threads.max(1) - 1;
        if self.helpers.len() == want {
            return;
        }
        let mut helpers = self.helpers.as_ref().clone();
        helpers.truncate(want);
        while helpers.len() < want {
            match spawn_pool_thread("tammi-helper", None) {
                Some(t) => helpers.push(t),
                None => break,
            }
        }
        self.helpers = Arc::new(helpers);
    }
}

/// Start a pool thread; `None` if the system refuses.
pub(super) fn spawn_pool_thread(name: &str, stack: Option<usize>) -> Option<Sender<Task>> {
    let (tx, rx): (Sender<Task>, Receiver<Task>) = crossbeam_channel::unbounded();
    let mut builder = std::thread::Builder::new().name(name.into());
    if let Some(size) = stack {
        builder = builder.stack_size(size);
    }
    builder
        .spawn(move || {
            let mut slot = Slot::default();
            for task in rx {
                // Tasks catch their own panics and report them to the caller.
                task(&mut slot);
            }
        })
        .ok()?;
    Some(tx)
}

/// Polls (of the search's `POLL_INTERVAL` nodes each) between two passes of a turn (about a
/// millisecond of search).
pub(super) const TURN_POLLS: u32 = 16;

/// With more search threads than cores, the threads take turns: at most one per core
/// searches, the others sleep until one passes its turn on (every `TURN_POLLS` polls,
/// first come first served). Left to the operating system, hundreds of runnable
/// threads made every other thread wait for a core: the protocol thread answered
/// `ping` and `stop` after a second or more. Every thread still searches, in turn.
pub(super) struct Turns {
    state: Mutex<TurnState>,
}

struct TurnState {
    free: usize,
    /// Threads waiting for a turn, each with the flag set when it gets one.
    queue: VecDeque<(Thread, Arc<AtomicBool>)>,
    /// The search is ending: nobody waits any more.
    open: bool,
}

impl Turns {
    pub(super) fn new(cores: usize) -> Self {
        Turns {
            state: Mutex::new(TurnState {
                free: cores.max(1),
                queue: VecDeque::new(),
                open: false,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, TurnState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait for a turn; false if the turns were opened (the search is ending) instead.
    pub(super) fn acquire(&self, ending: &dyn Fn() -> bool) -> bool {
        let granted = {
            let mut st = self.state();
            if st.open {
                return false;
            }
            if st.free > 0 {
                st.free -= 1;
                return true;
            }
            let granted = Arc::new(AtomicBool::new(false));
            st.queue
                .push_back((std::thread::current(), Arc::clone(&granted)));
            granted
        };
        self.wait(&granted, ending)
    }

    /// Give the turn held to the longest waiter, if any, and wait for the next one.
    /// Returns whether the caller holds a turn.
    pub(super) fn pass(&self, ending: &dyn Fn() -> bool) -> bool {
        let granted = {
            let mut st = self.state();
            if st.open {
                return false;
            }
            let Some((next, flag)) = st.queue.pop_front() else {
                return true;
            };
            flag.store(true, std::sync::atomic::Ordering::Release);
            next.unpark();
            let granted = Arc::new(AtomicBool::new(false));
            st.queue
                .push_back((std::thread::current(), Arc::clone(&granted)));
            granted
        };
        self.wait(&granted, ending)
    }

    fn wait(&self, granted: &AtomicBool, ending: &dyn Fn() -> bool) -> bool {
        loop {
            if granted.load(std::sync::atomic::Ordering::Acquire) {
                return true;
            }
            if self.state().open {
                return false;
            }
            if ending() {
                // Normally a running thread opens the turns when it sees the search
                // end; a waiter that sees it first does so itself.
                self.open();
                return false;
            }
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }

    /// Give back a turn (a thread leaving the search).
    pub(super) fn release(&self) {
        let mut st = self.state();
        if st.open {
            return;
        }
        match st.queue.pop_front() {
            Some((next, flag)) => {
                flag.store(true, std::sync::atomic::Ordering::Release);
                next.unpark();
            }
            None => st.free += 1,
        }
    }

    /// The search is ending: wake every waiter, and let every thread run to its end.
    pub(super) fn open(&self) {
        let mut st = self.state();
        st.open = true;
        for (t, _) in st.queue.drain(..) {
            t.unpark();
        }
    }
}
