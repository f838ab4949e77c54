//! `tammi dxp`: play engine-against-engine games over TCP with the DamExchange protocol.

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::dxp::session::{Connection, GameResult, Player, follow, initiate};
use crate::notation::parse_position;
use crate::rules::{International, Position};
use crate::search::engine::Engine;
use crate::search::limits::EngineOptions;

#[derive(clap::Args, Debug)]
pub struct DxpArgs {
    /// Listen for a connection on ADDR:PORT (the default; loopback unless told otherwise).
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
    /// Serve one connection and exit (listening follower).
    #[arg(long)]
    pub once: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(a: &DxpArgs) -> Result<i32> {
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
                .with_context(|| format!("invalid --position '{}'", crate::notation::echo(f)))?,
        ),
        None => None,
    };
    let options = EngineOptions {
        threads: a.threads,
        hash_mb: a.hash,
        ..EngineOptions::default()
    };
    let engine = Engine::new(options).map_err(anyhow::Error::msg)?;
    let quiet = a.quiet;
    let mut player = Player {
        name: format!("tammi {}", env!("CARGO_PKG_VERSION")),
        engine,
        move_time,
        max_moves: a.max_moves,
        log: Box::new(move |s| {
            if !quiet {
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
        let mut results = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            if !quiet {
                println!(
                    "connection from {}",
                    stream
                        .peer_addr()
                        .map(|a| a.to_string())
                        .unwrap_or_default()
                );
            }
            // A broken connection ends only that session: listen for the next one.
            match play(stream, &mut player) {
                Ok(r) => results.extend(r),
                Err(e) => eprintln!("error: {e:#}"),
            }
            if a.once || a.initiator {
                break;
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
