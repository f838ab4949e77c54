//! A page's session: its game record and cursor, the side tammi plays and at what level,
//! whether it is analysing, its engine (started at the first search), and the event
//! streams of the tabs showing it. Every change goes through here and is pushed to the
//! streams as a new state; the engine is told what to search next.
//!
//! Searches are matched to the engine's answers in order: the Hub answers every `go`
//! with exactly one `done`, and a new command ends the running search first. A search
//! remembers the state generation it was started for, so an answer about a position
//! that has since changed (a move made meanwhile, a take-back) is shown to nobody and
//! never played.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, bounded};

use super::engine::{self, Engine};
use super::json;
use super::record;
use super::watch::{self, Setup, View};
use crate::hub::message::Reply;
use crate::matches::MatchEvent;
use crate::pdn;
use crate::rules::{Color, Variant};

/// Events a stream may have queued before it counts as stalled and is dropped.
const STREAM_BACKLOG: usize = 256;
/// Analysis lines a page may ask for at once (the Hub's `multipv`).
pub const MAX_MULTIPV: usize = 5;

/// How tammi's moves are limited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    MoveTime { ms: u64 },
    Depth(u32),
}

impl Level {
    fn hub(self) -> String {
        match self {
            Level::MoveTime { ms } => format!("level move-time={:.3}", ms as f64 / 1000.0),
            Level::Depth(d) => format!("level depth={d}"),
        }
    }
    fn json(self) -> String {
        match self {
            Level::MoveTime { ms } => format!("{{\"movetime\":{:.3}}}", ms as f64 / 1000.0),
            Level::Depth(d) => format!("{{\"depth\":{d}}}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Play,
    Analyse,
}

/// A search sent to the engine and not yet answered by its `done`.
struct Search {
    kind: Kind,
    generation: u64,
    record: pdn::Game,
    cursor: usize,
    /// Lines asked for, and which one the next `info` is: the Hub reports the lines
    /// of an iteration one after another, best first, all at the same depth.
    multipv: usize,
    line_depth: u32,
    line: usize,
}

struct Inner {
    record: pdn::Game,
    cursor: usize,
    /// Bumped by every change of the record or cursor.
    generation: u64,
    opponent: Option<Color>,
    level: Level,
    analysing: bool,
    engine: Option<Engine>,
    searches: VecDeque<Search>,
    streams: Vec<(u64, Sender<String>)>,
    next_stream: u64,
    last_seen: Instant,
    /// The last engine message worth showing (an error it reported).
    notice: Option<String>,
    /// Analysis lines wanted (1 to [`MAX_MULTIPV`]).
    multipv: usize,
    /// The match being watched (dropping it stops the match) and what is shown of it.
    watch: Option<watch::Running>,
    watch_view: Option<View>,
}

pub struct Session {
    pub id: String,
    me: Weak<Session>,
    inner: Mutex<Inner>,
}

impl Session {
    pub fn new(id: String, record: pdn::Game) -> Arc<Session> {
        Arc::new_cyclic(|me| Session {
            id,
            me: me.clone(),
            inner: Mutex::new(Inner {
                record,
                cursor: 0,
                generation: 0,
                opponent: None,
                level: Level::MoveTime { ms: 1000 },
                analysing: false,
                engine: None,
                searches: VecDeque::new(),
                streams: Vec::new(),
                next_stream: 0,
                last_seen: Instant::now(),
                notice: None,
                multipv: 1,
                watch: None,
                watch_view: None,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves data that is still whole (every
        // change is a single assignment or push): go on with it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Seconds since a request or a stream last showed that the page is there, and
    /// whether a stream is open now.
    pub fn idle(&self) -> (f64, bool) {
        let inner = self.lock();
        (
            inner.last_seen.elapsed().as_secs_f64(),
            !inner.streams.is_empty(),
        )
    }

    pub fn touch(&self) {
        self.lock().last_seen = Instant::now();
    }

    /// The whole state as JSON.
    pub fn state_json(&self) -> String {
        let inner = self.lock();
        self.state_of(&inner)
    }

    fn state_of(&self, inner: &Inner) -> String {
        let view = record::view_json(&inner.record, inner.cursor)
            .unwrap_or_else(|e| format!("\"viewError\":{}", json::string(&e)));
        let thinking = inner
            .searches
            .iter()
            .any(|s| s.kind == Kind::Play && s.generation == inner.generation);
        format!(
            "{{\"id\":{},\"generation\":{},{view},\"engine\":{{\"side\":{},\"level\":{},\
             \"analysing\":{},\"multipv\":{},\"thinking\":{},\"notice\":{}}}}}",
            json::string(&self.id),
            inner.generation,
            inner
                .opponent
                .map_or("null".into(), |c| json::string(c.name())),
            inner.level.json(),
            inner.analysing,
            inner.multipv,
            thinking,
            inner.notice.as_deref().map_or("null".into(), json::string),
        )
    }

    /// Open an event stream: its id (for [`Session::unsubscribe`]) and its events, the
    /// current state first.
    pub fn subscribe(&self) -> (u64, Receiver<String>) {
        let mut inner = self.lock();
        let (tx, rx) = bounded(STREAM_BACKLOG);
        let _ = tx.try_send(event("state", &self.state_of(&inner)));
        if let Some(view) = &inner.watch_view {
            let _ = tx.try_send(event("watch", &view.json()));
        }
        let id = inner.next_stream;
        inner.next_stream += 1;
        inner.streams.push((id, tx));
        inner.last_seen = Instant::now();
        (id, rx)
    }

    /// A stream ended (its tab closed). With none left nobody is watching: the analysis
    /// stops and so does any search.
    pub fn unsubscribe(&self, id: u64) {
        let mut inner = self.lock();
        inner.streams.retain(|(i, _)| *i != id);
        inner.last_seen = Instant::now();
        if inner.streams.is_empty() {
            inner.analysing = false;
            inner.opponent = None;
            // Nobody is watching the match any more: it ends, its engines with it.
            if let Some(w) = &inner.watch {
                w.abort.store(true, Ordering::Relaxed);
            }
            if !inner.searches.is_empty()
                && let Some(engine) = inner.engine.as_mut()
            {
                let _ = engine.send("stop");
            }
        }
    }

    /// Whether an engine is running for this session.
    pub fn has_engine(&self) -> bool {
        self.lock().engine.is_some()
    }

    // The changes the page asks for. Each returns the new state, or why not.

    pub fn new_game(&self, variant: Variant, fen: Option<&str>) -> Result<String, String> {
        let record = record::new_record(variant, fen)?;
        self.replace(record)
    }

    pub fn load_pdn(&self, text: &str, game: usize) -> Result<String, String> {
        let record = record::load_pdn(text, game)?;
        self.replace(record)
    }

    fn replace(&self, record: pdn::Game) -> Result<String, String> {
        let mut inner = self.lock();
        inner.record = record;
        inner.cursor = 0;
        inner.opponent = None;
        Ok(self.changed(&mut inner))
    }

    pub fn play(&self, text: &str) -> Result<String, String> {
        let mut inner = self.lock();
        if let Some(side) = inner.opponent {
            let (to_move, _) = record::status(&inner.record, inner.cursor)?;
            if to_move == side {
                return Err(format!("it is tammi's turn ({} to move)", side.name()));
            }
        }
        let inner = &mut *inner;
        record::play(&mut inner.record, &mut inner.cursor, text)?;
        Ok(self.changed(inner))
    }

    /// Take back the last move (and tammi's reply before it, so that it is the person's
    /// turn again); the moves taken back leave the record.
    pub fn take_back(&self) -> Result<String, String> {
        let mut inner = self.lock();
        if inner.cursor == 0 {
            return Err("there is no move to take back".into());
        }
        let cursor = inner.cursor - 1;
        inner.cursor = cursor;
        if let Some(side) = inner.opponent
            && cursor > 0
            && record::status(&inner.record, cursor)?.0 == side
        {
            inner.cursor -= 1;
        }
        let keep = inner.cursor;
        inner.record.main_line.moves.truncate(keep);
        inner.record.result = None;
        Ok(self.changed(&mut inner))
    }

    /// Step to ply `ply` of the main line.
    pub fn go_to(&self, ply: usize) -> Result<String, String> {
        let mut inner = self.lock();
        let length = inner.record.main_line.moves.len();
        if ply > length {
            return Err(format!(
                "the game has {length} plies; there is no ply {ply}"
            ));
        }
        inner.cursor = ply;
        Ok(self.changed(&mut inner))
    }

    /// Which side tammi plays (`None`: neither) and how strongly.
    pub fn set_opponent(&self, side: Option<Color>, level: Level) -> Result<String, String> {
        let mut inner = self.lock();
        inner.opponent = side;
        inner.level = level;
        Ok(self.changed(&mut inner))
    }

    /// tammi plays the side to move now, once.
    pub fn move_now(&self) -> Result<String, String> {
        let mut inner = self.lock();
        let (side, over) = record::status(&inner.record, inner.cursor)?;
        if over {
            return Err("the game is over".into());
        }
        inner.opponent = Some(side);
        Ok(self.changed(&mut inner))
    }

    pub fn set_analysis(&self, on: bool) -> Result<String, String> {
        let mut inner = self.lock();
        if on {
            let (_, over) = record::status(&inner.record, inner.cursor)?;
            if over {
                return Err("the game is over: nothing to analyse".into());
            }
        }
        inner.analysing = on;
        // Fail now, with the reason, if no engine can be had.
        if on && let Err(e) = self.ensure_engine(&mut inner) {
            inner.analysing = false;
            return Err(e);
        }
        Ok(self.changed(&mut inner))
    }

    /// How many analysis lines to show (1 to [`MAX_MULTIPV`]).
    pub fn set_multipv(&self, lines: usize) -> Result<String, String> {
        if !(1..=MAX_MULTIPV).contains(&lines) {
            return Err(format!(
                "lines must be from 1 to {MAX_MULTIPV}, got {lines}"
            ));
        }
        let mut inner = self.lock();
        inner.multipv = lines;
        Ok(self.changed(&mut inner))
    }

    /// Start watching a match between the engines of `setup` (checked already against
    /// the roster). Refused while this page watches one, while [`watch::MAX_WATCHES`]
    /// run, or when the engine cap has no two places left.
    pub fn start_watch(&self, setup: Setup) -> Result<String, String> {
        let mut inner = self.lock();
        if inner.watch.is_some() {
            return Err("a match is already running on this page; stop it first".into());
        }
        let place = watch::Place::take()?;
        let slots = engine::reserve(2)?;
        let abort = Arc::new(AtomicBool::new(false));
        let cfg = watch::config(&setup, Arc::clone(&abort));
        let me = self.me.clone();
        std::thread::Builder::new()
            .name("gui-watch".into())
            .spawn(move || {
                let why = watch::run(cfg, |event| {
                    if let Some(session) = me.upgrade() {
                        session.on_watch(event);
                    }
                });
                // The runner has reaped its engines: their places are free again before
                // the page hears that the match is over (and may start another).
                drop(slots);
                drop(place);
                if let Some(session) = me.upgrade() {
                    session.watch_ended(why);
                }
            })
            .map_err(|e| format!("cannot start the match: {e}"))?;
        inner.watch = Some(watch::Running { abort });
        inner.watch_view = Some(View::new(&setup));
        inner.last_seen = Instant::now();
        Ok(self.watch_changed(&mut inner))
    }

    /// Stop the match this page watches (its engines are killed at once).
    pub fn stop_watch(&self) -> Result<String, String> {
        let inner = self.lock();
        let Some(w) = &inner.watch else {
            return Err("no match is running on this page".into());
        };
        w.abort.store(true, Ordering::Relaxed);
        Ok(watch_json(&inner))
    }

    /// What the page is shown of its match (`null`: it started none).
    pub fn watch_json(&self) -> String {
        watch_json(&self.lock())
    }

    fn on_watch(&self, event: MatchEvent) {
        let mut inner = self.lock();
        if let Some(view) = inner.watch_view.as_mut() {
            view.apply(event);
        }
        self.watch_changed(&mut inner);
    }

    fn watch_ended(&self, why: Option<String>) {
        let mut inner = self.lock();
        inner.watch = None;
        if let Some(view) = inner.watch_view.as_mut() {
            view.end(why.map(|w| {
                if w == "aborted" {
                    "the match was stopped".to_string()
                } else {
                    w
                }
            }));
        }
        self.watch_changed(&mut inner);
    }

    fn watch_changed(&self, inner: &mut Inner) -> String {
        let text = watch_json(inner);
        broadcast(inner, &event("watch", &text));
        text
    }

    pub fn pdn_text(&self) -> Result<String, String> {
        record::save_pdn(&self.lock().record)
    }

    /// After a change: a new generation, the searches it calls for, the new state to
    /// every stream. Returns the state.
    fn changed(&self, inner: &mut Inner) -> String {
        inner.generation += 1;
        inner.last_seen = Instant::now();
        inner.notice = None;
        if let Err(e) = self.search_next(inner) {
            inner.notice = Some(e);
        }
        let state = self.state_of(inner);
        broadcast(inner, &event("state", &state));
        state
    }

    fn ensure_engine(&self, inner: &mut Inner) -> Result<(), String> {
        let variant = inner.record.variant;
        match inner.engine.as_mut() {
            Some(engine) => engine.set_variant(variant),
            None => {
                let me = self.me.clone();
                let engine = Engine::start(variant, move |reply| {
                    if let Some(session) = me.upgrade() {
                        session.on_reply(reply);
                    }
                })?;
                inner.engine = Some(engine);
                Ok(())
            }
        }
    }

    /// Start what the state calls for: tammi's move when it is its turn, else the
    /// analysis if it is on; else stop whatever runs.
    fn search_next(&self, inner: &mut Inner) -> Result<(), String> {
        let (side, over) = record::status(&inner.record, inner.cursor)?;
        let kind = if over {
            None
        } else if inner.opponent == Some(side) {
            Some(Kind::Play)
        } else if inner.analysing {
            Some(Kind::Analyse)
        } else {
            None
        };
        let Some(kind) = kind else {
            if !inner.searches.is_empty()
                && let Some(engine) = inner.engine.as_mut()
            {
                engine.send("stop")?;
            }
            return Ok(());
        };
        self.ensure_engine(inner)?;
        let pos = record::hub_position(&inner.record, inner.cursor)?;
        let level = inner.level.hub();
        let engine = inner.engine.as_mut().expect("started above");
        // A move is searched for one line (more would only slow it down).
        let multipv = if kind == Kind::Play { 1 } else { inner.multipv };
        engine.set_multipv(multipv)?;
        engine.send(&pos)?;
        match kind {
            Kind::Play => {
                engine.send(&level)?;
                engine.send("go think")?;
            }
            Kind::Analyse => engine.send("go analyze")?,
        }
        let search = Search {
            kind,
            generation: inner.generation,
            record: inner.record.clone(),
            cursor: inner.cursor,
            multipv,
            line_depth: 0,
            line: 0,
        };
        inner.searches.push_back(search);
        Ok(())
    }

    /// A line from the engine (on its reader thread).
    fn on_reply(&self, reply: Reply) {
        let mut inner = self.lock();
        match reply {
            // A line without a depth is no search progress (the Hub's `info message=`
            // has words for a person only): nothing to draw.
            Reply::Info(info) if info.depth.is_some() => {
                let generation = inner.generation;
                let Some(search) = inner.searches.front_mut() else {
                    return;
                };
                if search.generation != generation {
                    return;
                }
                let depth = info.depth.unwrap_or(0);
                if depth == search.line_depth && search.line + 1 < search.multipv {
                    search.line += 1;
                } else {
                    search.line_depth = depth;
                    search.line = 0;
                }
                let search = &*search;
                let pv = info.pv.unwrap_or_default();
                let (moves, arrow) = record::pv(&search.record, search.cursor, &pv);
                let side =
                    record::status(&search.record, search.cursor).map_or(Color::White, |s| s.0);
                let data = format!(
                    "{{\"generation\":{},\"kind\":{},\"line\":{},\"lines\":{},\"side\":{},\
                     \"depth\":{},\"seldepth\":{},\"score\":{},\"nodes\":{},\"nps\":{},\"time\":{},\
                     \"pv\":{},\"arrow\":{}}}",
                    search.generation,
                    json::string(if search.kind == Kind::Play {
                        "play"
                    } else {
                        "analyse"
                    }),
                    search.line + 1,
                    search.multipv,
                    json::string(side.name()),
                    info.depth.unwrap_or(0),
                    info.seldepth.unwrap_or(0),
                    info.score.filter(|s| s.is_finite()).unwrap_or(0.0),
                    info.nodes.unwrap_or(0),
                    info.nps.filter(|s| s.is_finite()).unwrap_or(0.0),
                    info.time.filter(|s| s.is_finite()).unwrap_or(0.0),
                    json::strings(&moves),
                    json::numbers(&arrow),
                );
                broadcast(&mut inner, &event("info", &data));
            }
            Reply::Done { mv, .. } => {
                let Some(search) = inner.searches.pop_front() else {
                    return;
                };
                if search.kind != Kind::Play || search.generation != inner.generation {
                    return;
                }
                let inner = &mut *inner;
                let played = match mv.filter(|m| !m.is_empty()) {
                    // The engine's move is checked like the page's.
                    Some(m) => record::play(&mut inner.record, &mut inner.cursor, &m)
                        .map_err(|e| format!("tammi's move {m} was refused: {e}")),
                    None => Err("tammi gave no move".to_string()),
                };
                if let Err(e) = played {
                    inner.opponent = None;
                    self.changed(inner);
                    inner.notice = Some(e);
                    let state = self.state_of(inner);
                    broadcast(inner, &event("state", &state));
                } else {
                    self.changed(inner);
                }
            }
            Reply::Error(message) => {
                inner.notice = Some(format!("engine: {message}"));
                let state = self.state_of(&inner);
                broadcast(&mut inner, &event("state", &state));
            }
            _ => {}
        }
    }
}

fn watch_json(inner: &Inner) -> String {
    inner
        .watch_view
        .as_ref()
        .map_or("null".to_string(), View::json)
}

/// One Server-Sent Event.
fn event(name: &str, data: &str) -> String {
    // JSON written here never holds a line break, so one data line is the whole event.
    format!("event: {name}\ndata: {data}\n\n")
}

/// Queue `message` for every stream; a stream that has fallen too far behind (or whose
/// tab has gone) is dropped rather than let its queue grow.
fn broadcast(inner: &mut Inner, message: &str) {
    inner
        .streams
        .retain(|(_, tx)| tx.try_send(message.to_string()).is_ok());
}
