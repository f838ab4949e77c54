//! `tammi dxp`: play engine-against-engine games over TCP with the DamExchange protocol.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use tammi::dxp::message::Message;
use tammi::dxp::session::{Connection, GameResult, Player, follow, initiate};
use tammi::notation::parse_position;
use tammi::rules::{International, Position};
use tammi::search::engine::Engine;
use tammi::search::limits::EngineOptions;

#[derive(clap::Args, Debug)]
pub struct DxpArgs {
    /// Listen for a connection on ADDR:PORT (the default; loopback unless told otherwise).
    /// One connection is served at a time: another one meanwhile is refused with a CHAT
    /// saying tammi is busy (if the first has not ended within 2 s), then closed.
    #[arg(long, value_name = "ADDR:PORT", conflicts_with = "connect")]
    pub listen: Option<String>,
    /// Connect to a DXP program listening on HOST:PORT.
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// Propose the games (otherwise tammi follows: it answers game requests).
    #[arg(long)]
    pub initiator: bool,
    /// Games to request, colours alternating, tammi White first (needs --initiator).
    #[arg(long, default_value_t = 2, requires = "initiator")]
    pub games: u32,
    /// Minutes of thinking time per player for the game (needs --initiator).
    #[arg(long, default_value_t = 5, requires = "initiator")]
    pub time: u16,
    /// Moves for that time, 0 = the whole game (needs --initiator).
    #[arg(long, default_value_t = 0, requires = "initiator")]
    pub moves: u16,
    /// Start position as FEN instead of the normal start (needs --initiator).
    #[arg(long, requires = "initiator")]
    pub position: Option<String>,
    /// Think this many seconds per move whatever the clock says (tammi's own side only).
    #[arg(long, value_name = "SECONDS")]
    pub move_time: Option<f64>,
    /// Adjudicate a draw after this many moves each.
    #[arg(long, default_value_t = 150)]
    pub max_moves: u32,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Hash table in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Close a connection that has no game under way this many seconds after it opens
    /// (a follower waiting for a game request it accepts; an initiator waiting for the
    /// answer to its request), with a CHAT saying why. 0 = no limit.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub handshake_timeout: f64,
    /// End the game (GAMEEND, unfinished) and close the connection when the other side
    /// sends nothing for this many seconds while tammi waits for it (its move, a GAMEEND
    /// confirmation, the next game request). Keep it above the longest the opponent may
    /// think on one move. 0 = no limit.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub idle_timeout: f64,
    /// Search every move: no opening book.
    #[arg(long)]
    pub no_book: bool,
    /// Play the opening from this book file (`tammi book build`) rather than the
    /// built-in international book.
    #[arg(long, value_name = "FILE", conflicts_with = "no_book")]
    pub book: Option<std::path::PathBuf>,
    /// Centi-men below the best a book move may be and still be chosen (at random).
    #[arg(long, default_value_t = tammi::book::BookPlayer::DEFAULT_MARGIN, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub book_margin: u32,
    /// Seed of the choice among book moves (0: from the clock, so that games vary).
    #[arg(long, default_value_t = 0)]
    pub book_seed: u64,
    /// Serve one connection and exit (listening follower).
    #[arg(long)]
    pub once: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(a: &DxpArgs) -> Result<i32> {
    let timeout = |s: f64, flag: &str| -> Result<Option<Duration>> {
        if s == 0.0 {
            Ok(None)
        } else if s.is_finite() && s > 0.0 && s < 1e6 {
            Ok(Some(Duration::from_secs_f64(s)))
        } else {
            bail!("{flag} must be a number of seconds from 0 (no limit) to 999999, got {s}")
        }
    };
    let handshake_timeout = timeout(a.handshake_timeout, "--handshake-timeout")?;
    let idle_timeout = timeout(a.idle_timeout, "--idle-timeout")?;
    let move_time = match a.move_time {
        Some(s) if s.is_finite() && s > 0.0 && s < 1e6 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--move-time must be a positive number of seconds, got {s}"),
        None => None,
    };
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    if a.time > 999 || a.moves > 999 {
        bail!("--time and --moves must be at most 999 (three DXP digits)");
    }
    let position = match &a.position {
        Some(f) => Some(
            parse_position::<Position<International>>(f)
                .with_context(|| format!("invalid --position '{}'", tammi::notation::echo(f)))?,
        ),
        None => None,
    };
    let options = EngineOptions {
        threads: a.threads,
        hash_mb: a.hash,
        ..EngineOptions::default()
    };
    let engine = Engine::new(options).map_err(anyhow::Error::msg)?;
    let mut book = tammi::book::BookPlayer::new(a.book_seed);
    book.enabled = !a.no_book;
    book.margin = a.book_margin;
    if let Some(path) = &a.book {
        book.set_file(
            &path.to_string_lossy(),
            Some(tammi::rules::Variant::International),
        )
        .map_err(anyhow::Error::msg)?;
    }
    let engine = tammi::dxp::session::BookedEngine { engine, book };
    let quiet = a.quiet;
    let mut player = Player {
        name: format!("tammi {}", env!("CARGO_PKG_VERSION")),
        engine: Box::new(engine),
        move_time,
        max_moves: a.max_moves,
        handshake_timeout,
        idle_timeout,
        log: Box::new(move |s| {
            if s.starts_with("error: ") {
                eprintln!("{s}");
            } else if !quiet {
                println!("{s}");
            }
        }),
    };
    let play = |stream: TcpStream, player: &mut Player| -> Result<Vec<GameResult>> {
        let mut conn = Connection::new(stream).context("setting up the connection")?;
        Ok(if a.initiator {
            initiate(&mut conn, player, a.games, a.time, a.moves, position)
        } else {
            follow(&mut conn, player);
            Vec::new()
        })
    };
    let results = if let Some(addr) = &a.connect {
        let stream =
            TcpStream::connect(addr).with_context(|| format!("cannot connect to {addr}"))?;
        play(stream, &mut player)?
    } else {
        let addr = a.listen.as_deref().unwrap_or("127.0.0.1:27531");
        let listener =
            TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
        if !quiet {
            println!("listening on {}", listener.local_addr()?);
        }
        // One connection is served at a time. The listener runs on its own thread so
        // that a second connection meanwhile is told that tammi is busy, rather than left
        // waiting unanswered in the queue until the first one ends.
        let busy = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<TcpStream>();
        {
            let busy = Arc::clone(&busy);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let stream = match stream {
                        Ok(s) => s,
                        Err(e) => {
                            // Out of file descriptors and the like: wait rather than spin.
                            eprintln!("error: accepting a connection: {e}");
                            std::thread::sleep(Duration::from_millis(100));
                            continue;
                        }
                    };
                    if !claim(&busy) {
                        if !quiet {
                            println!("connection from {} refused: busy", peer(&stream));
                        }
                        refuse_busy(stream);
                    } else if tx.send(stream).is_err() {
                        return;
                    }
                }
            });
        }
        let mut results = Vec::new();
        for stream in rx {
            if !quiet {
                println!("connection from {}", peer(&stream));
            }
            // A broken connection ends only that session: listen for the next one.
            match play(stream, &mut player) {
                Ok(r) => results.extend(r),
                Err(e) => eprintln!("error: {e:#}"),
            }
            if a.once || a.initiator {
                // Still busy: a connection before the exit is refused, not dropped unread.
                break;
            }
            busy.store(false, SeqCst);
            if !quiet {
                println!("waiting for the next connection");
            }
        }
        results
    };
    if a.initiator {
        let count = |r: GameResult| results.iter().filter(|&&x| x == r).count();
        println!(
            "tammi: {} won, {} drawn, {} lost, {} unfinished",
            count(GameResult::Win),
            count(GameResult::Draw),
            count(GameResult::Loss),
            count(GameResult::Unfinished)
        );
    }
    Ok(0)
}

/// How long a new connection waits for the one being served to end before it is
/// refused: a client that closes and at once reconnects is served, not refused because
/// tammi has not yet seen the close.
const BUSY_GRACE: Duration = Duration::from_secs(2);

/// Take the one place to serve a connection, waiting up to [`BUSY_GRACE`] for it.
fn claim(busy: &AtomicBool) -> bool {
    let until = Instant::now() + BUSY_GRACE;
    loop {
        if busy.compare_exchange(false, true, SeqCst, SeqCst).is_ok() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn peer(stream: &TcpStream) -> String {
    stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// Tell a connection that tammi is busy with another, and close it. Its game request may
/// already be on the way: what it sends is read and dropped for a moment, since closing
/// a socket with unread data resets the connection and could lose the CHAT unread. Bounded
/// (about a second at most) so the listener soon goes back to accepting.
fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let mut bytes = Message::Chat("tammi: busy with another connection; try again later".into())
        .encode()
        .into_bytes();
    bytes.push(0);
    if stream.write_all(&bytes).is_err() {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    let until = Instant::now() + Duration::from_secs(1);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 512];
    while Instant::now() < until {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}
