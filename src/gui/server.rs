//! The server: a fixed pool of workers answering one request per connection, a thread
//! per event stream (capped), and a reaper that ends the sessions no page shows any more
//! (killing their engines). Everything a request names is checked: the path is one of
//! the embedded assets or an API route (nothing is ever read from disk), the session
//! must exist, every value is parsed and bounded, and every move goes through the rules.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, bounded};

use super::http::{self, Request};
use super::json;
use super::session::{Level, MAX_MULTIPV, Session};
use super::watch::{self, Roster};
use super::{assets, engine};
use crate::rules::{ALL_VARIANTS, Color, Variant};

/// Threads answering requests.
const WORKERS: usize = 8;
/// Connections accepted and waiting for a worker; beyond, a 503 at once.
const QUEUE: usize = 64;
/// Event streams open at once (each holds a thread).
const MAX_STREAMS: usize = 64;
/// Sessions kept at once.
const MAX_SESSIONS: usize = 64;
/// A session no page has shown for this long is ended, its engine with it (the
/// default of `tammi gui --session-idle`).
pub const SESSION_IDLE: Duration = Duration::from_secs(20);
/// The whole of a request must arrive within this.
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// A stream sends a comment this often, so that a closed tab is noticed.
const KEEPALIVE: Duration = Duration::from_secs(2);

struct Server {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    streams: AtomicUsize,
    /// The Host values a request may carry (`None`: any, when listening beyond loopback).
    hosts: Option<Vec<String>>,
    /// The engines a page may choose for a match, by name.
    roster: Roster,
    /// A session no page has shown for this long is ended.
    session_idle: Duration,
}

/// Serve on `listener` until the process ends; `roster` holds the engines a page may
/// have play a match (tammi and those named on the command line); a session no page has
/// shown for `session_idle` is ended, its engine with it.
pub fn serve(listener: TcpListener, roster: Roster, session_idle: Duration) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let hosts = addr.ip().is_loopback().then(|| {
        let port = addr.port();
        vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
            addr.to_string(),
        ]
    });
    let server = Arc::new(Server {
        sessions: Mutex::new(HashMap::new()),
        streams: AtomicUsize::new(0),
        hosts,
        roster,
        session_idle,
    });
    let (tx, rx) = bounded::<TcpStream>(QUEUE);
    for i in 0..WORKERS {
        let rx = rx.clone();
        let server = Arc::clone(&server);
        std::thread::Builder::new()
            .name(format!("gui-worker-{i}"))
            .spawn(move || {
                for stream in rx {
                    server.connection(stream);
                }
            })?;
    }
    {
        let server = Arc::clone(&server);
        std::thread::Builder::new()
            .name("gui-reaper".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                    server.reap();
                }
            })?;
    }
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
        if let Err(e) = tx.try_send(stream) {
            stream = e.into_inner();
            http::respond(
                &mut stream,
                503,
                "application/json",
                json::error("the server is busy; try again").as_bytes(),
            );
        }
    }
    Ok(())
}

fn session_id() -> String {
    // RandomState is seeded from the operating system's randomness, per instance.
    let word = || {
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    };
    format!("{:016x}{:016x}", word(), word())
}

type Answer = (u16, &'static str, Vec<u8>);

fn ok_json(state: String) -> Answer {
    (200, "application/json", state.into_bytes())
}

fn err(status: u16, message: &str) -> Answer {
    (
        status,
        "application/json",
        json::error(message).into_bytes(),
    )
}

fn outcome(result: Result<String, String>) -> Answer {
    match result {
        Ok(state) => ok_json(state),
        Err(e) => err(422, &e),
    }
}

impl Server {
    fn connection(self: &Arc<Self>, mut stream: TcpStream) {
        let deadline = Instant::now() + REQUEST_DEADLINE;
        let req = match http::read_request(&mut stream, deadline) {
            Ok(req) => req,
            Err(Some(refusal)) => {
                let body = json::error(&refusal.message);
                http::respond(
                    &mut stream,
                    refusal.status,
                    "application/json",
                    body.as_bytes(),
                );
                return;
            }
            Err(None) => return,
        };
        if let Some(hosts) = &self.hosts {
            // Loopback only: a page served under another name (DNS rebinding) gets nothing.
            if !req.host.as_ref().is_some_and(|h| hosts.contains(h)) {
                let body = json::error("this server answers only to its own loopback address");
                http::respond(&mut stream, 421, "application/json", body.as_bytes());
                return;
            }
        }
        let same_site = |origin: &String| {
            req.host
                .as_ref()
                .is_some_and(|h| origin == &format!("http://{h}"))
        };
        if req.method == "POST" && req.origin.as_ref().is_some_and(|o| !same_site(o)) {
            let body = json::error("requests from other sites are refused");
            http::respond(&mut stream, 403, "application/json", body.as_bytes());
            return;
        }
        if req.method == "GET" && req.path == "/api/events" {
            self.events(req, stream);
            return;
        }
        let (status, content_type, body) = self.route(&req);
        let mut extra = Vec::new();
        if req.path == "/api/pdn" && req.method == "GET" && status == 200 {
            extra.push("Content-Disposition: attachment; filename=\"tammi.pdn\"".to_string());
        }
        http::respond_with(&mut stream, status, content_type, &extra, &body);
    }

    fn route(self: &Arc<Self>, req: &Request) -> Answer {
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/") | ("GET", "/index.html") => {
                (200, "text/html; charset=utf-8", assets::INDEX_HTML.into())
            }
            ("GET", "/app.js") => (200, "text/javascript; charset=utf-8", assets::APP_JS.into()),
            ("GET", "/style.css") => (200, "text/css; charset=utf-8", assets::STYLE_CSS.into()),
            ("GET", "/api/variants") => ok_json(variants_json()),
            ("GET", "/api/watch/options") => ok_json(self.roster.options_json()),
            ("POST", "/api/session") => self.create_session(req),
            (method, path) if path.starts_with("/api/") => {
                let writes = method == "POST";
                if !writes && method != "GET" {
                    return err(405, "only GET and POST are used here");
                }
                let Some(session) = self.session(req) else {
                    return err(404, "no such session (it ended after its page was closed)");
                };
                session.touch();
                self.api(&session, req, writes)
            }
            ("GET", _) => err(404, "not found"),
            _ => err(405, "only GET and POST are used here"),
        }
    }

    fn session(&self, req: &Request) -> Option<Arc<Session>> {
        let id = req.param("s")?;
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    fn create_session(&self, req: &Request) -> Answer {
        let variant = match variant_param(req) {
            Ok(v) => v,
            Err(e) => return err(422, &e),
        };
        let record = match super::record::new_record(variant, None) {
            Ok(r) => r,
            Err(e) => return err(422, &e),
        };
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if sessions.len() >= MAX_SESSIONS {
            // Make room with the longest idle session no page is showing.
            let idlest = sessions
                .iter()
                .map(|(id, s)| (id.clone(), s.idle()))
                .filter(|(_, (_, streaming))| !streaming)
                .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
                .map(|(id, _)| id);
            match idlest {
                Some(id) => {
                    sessions.remove(&id);
                }
                None => return err(503, "too many pages are open; close one"),
            }
        }
        let session = Session::new(session_id(), record);
        sessions.insert(session.id.clone(), Arc::clone(&session));
        drop(sessions);
        ok_json(session.state_json())
    }

    fn api(&self, s: &Session, req: &Request, writes: bool) -> Answer {
        let body =
            || std::str::from_utf8(&req.body).map_err(|_| "the body is not UTF-8".to_string());
        match (writes, req.path.as_str()) {
            (false, "/api/state") => ok_json(s.state_json()),
            (false, "/api/pdn") => match s.pdn_text() {
                Ok(text) => (200, "application/x-pdn; charset=utf-8", text.into_bytes()),
                Err(e) => err(422, &e),
            },
            (true, "/api/new") => outcome(variant_param(req).and_then(|v| s.new_game(v, None))),
            (true, "/api/fen") => outcome(
                variant_param(req).and_then(|v| body().and_then(|fen| s.new_game(v, Some(fen)))),
            ),
            (true, "/api/pdn") => outcome(body().and_then(|text| {
                let game = match req.param("game") {
                    None => 1,
                    Some(g) => number(g, 1, 100_000, "game")? as usize,
                };
                s.load_pdn(text, game)
            })),
            (true, "/api/move") => match req.param("move") {
                Some(m) if m.len() <= 400 => outcome(s.play(m)),
                Some(_) => err(422, "the move text is too long"),
                None => err(422, "which move? (move=...)"),
            },
            (true, "/api/undo") => outcome(s.take_back()),
            (true, "/api/goto") => outcome(
                req.param("ply")
                    .ok_or_else(|| "which ply? (ply=...)".to_string())
                    .and_then(|p| number(p, 0, 1_000_000, "ply"))
                    .and_then(|p| s.go_to(p as usize)),
            ),
            (true, "/api/opponent") => {
                outcome(opponent_params(req).and_then(|(side, level)| s.set_opponent(side, level)))
            }
            (true, "/api/go") => outcome(s.move_now()),
            (true, "/api/multipv") => outcome(
                req.param("lines")
                    .ok_or_else(|| "how many lines? (lines=1 to 5)".to_string())
                    .and_then(|n| number(n, 1, MAX_MULTIPV as u64, "lines"))
                    .and_then(|n| s.set_multipv(n as usize)),
            ),
            (false, "/api/watch") => ok_json(s.watch_json()),
            (true, "/api/watch/start") => match watch::setup(&self.roster, req) {
                // Busy (a match running, no engine places): a conflict, not a bad request.
                Ok(setup) => match s.start_watch(setup) {
                    Ok(state) => ok_json(state),
                    Err(e) => err(409, &e),
                },
                Err(e) => err(422, &e),
            },
            (true, "/api/watch/stop") => match s.stop_watch() {
                Ok(state) => ok_json(state),
                Err(e) => err(409, &e),
            },
            (true, "/api/analyse") => outcome(match req.param("on") {
                Some("1") | Some("true") => s.set_analysis(true),
                Some("0") | Some("false") => s.set_analysis(false),
                _ => Err("on=1 or on=0".to_string()),
            }),
            _ => err(404, "no such API call"),
        }
    }

    /// An event stream for a session, on a thread of its own.
    fn events(self: &Arc<Self>, req: Request, mut stream: TcpStream) {
        let Some(session) = self.session(&req) else {
            let body = json::error("no such session");
            http::respond(&mut stream, 404, "application/json", body.as_bytes());
            return;
        };
        let taken = self
            .streams
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_STREAMS).then_some(n + 1)
            });
        if taken.is_err() {
            let body = json::error("too many event streams are open");
            http::respond(&mut stream, 503, "application/json", body.as_bytes());
            return;
        }
        let server = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("gui-events".into())
            .spawn(move || {
                stream_events(&session, stream);
                server.streams.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            self.streams.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// End the sessions no page has shown for `session_idle`.
    fn reap(&self) {
        let ended: Vec<Arc<Session>> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let old: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| {
                    let (idle, streaming) = s.idle();
                    !streaming && idle > self.session_idle.as_secs_f64()
                })
                .map(|(id, _)| id.clone())
                .collect();
            old.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        // Dropped here, outside the map's lock: each kills and reaps its engine.
        drop(ended);
    }
}

fn stream_events(session: &Arc<Session>, mut stream: TcpStream) {
    if http::start_event_stream(&mut stream).is_err() {
        return;
    }
    let (id, rx) = session.subscribe();
    loop {
        let message = match rx.recv_timeout(KEEPALIVE) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => ": keepalive\n\n".to_string(),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if stream
            .write_all(message.as_bytes())
            .and_then(|_| stream.flush())
            .is_err()
        {
            break;
        }
        session.touch();
    }
    session.unsubscribe(id);
}

fn variant_param(req: &Request) -> Result<Variant, String> {
    match req.param("variant") {
        None => Ok(Variant::International),
        Some(v) => v.parse(),
    }
}

fn number(text: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let shown = crate::notation::echo(text);
    let n: u64 = text
        .parse()
        .map_err(|_| format!("{what} must be a whole number, got '{shown}'"))?;
    if n < min || n > max {
        return Err(format!("{what} must be from {min} to {max}, got {n}"));
    }
    Ok(n)
}

fn opponent_params(req: &Request) -> Result<(Option<Color>, Level), String> {
    let side = match req.param("side") {
        Some("white") => Some(Color::White),
        Some("black") => Some(Color::Black),
        Some("none") | None => None,
        Some(other) => {
            return Err(format!(
                "side must be white, black or none, got '{}'",
                crate::notation::echo(other)
            ));
        }
    };
    let level = match (req.param("movetime"), req.param("depth")) {
        (Some(_), Some(_)) => return Err("give movetime or depth, not both".into()),
        (None, Some(d)) => Level::Depth(number(d, 1, 40, "depth")? as u32),
        (Some(t), None) => {
            let secs: f64 = t.parse().map_err(|_| {
                format!(
                    "movetime must be seconds, got '{}'",
                    crate::notation::echo(t)
                )
            })?;
            if !(0.05..=600.0).contains(&secs) {
                return Err(format!(
                    "movetime must be from 0.05 to 600 seconds, got {secs}"
                ));
            }
            Level::MoveTime {
                ms: (secs * 1000.0).round() as u64,
            }
        }
        (None, None) => Level::MoveTime { ms: 1000 },
    };
    Ok((side, level))
}

fn variants_json() -> String {
    let names: Vec<&str> = ALL_VARIANTS.iter().map(|v| v.name()).collect();
    format!(
        "{{\"variants\":{},\"maxEngines\":{}}}",
        json::strings(&names),
        engine::MAX_ENGINES
    )
}

/// The address a listener was bound to, as the page's URL.
pub fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/")
}
