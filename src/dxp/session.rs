//! A DXP connection and the games played over it, as follower or initiator.
//!
//! Messages are NUL-terminated. tammi checks every move it receives against the rules;
//! a malformed message gets a CHAT naming the problem, an illegal move a CHAT and a
//! GAMEEND; a dropped connection ends the game. A peer that starts no game within the
//! handshake timeout, or falls silent for the idle timeout while tammi waits for it, is
//! told so and disconnected, so that it cannot hold the connection forever.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::TcpStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use super::message::{
    ACCEPT, DxpColor, END_DRAW, END_NONE, END_RESIGN, END_WIN, Message, NOT_THIS_GAME, REFUSE_ALL,
    Start, WRONG_VERSION,
};
use crate::notation::{format_hub_move, parse_position, write_fen};
use crate::rules::{Bits, Board, Color, International, Move, Outcome, Position};

pub type RulesGame = crate::rules::Game<Pos>;
use crate::search::engine::Engine;
use crate::search::limits::Limits;

type Pos = Position<International>;

/// Longest message read whole (the protocol's limit is 127 characters: a longer one up
/// to this size is read and refused by name; beyond it, skipped up to its NUL).
const MAX_MESSAGE: usize = 1024;

/// How long a send may block on a peer that reads nothing, before the connection is
/// taken as lost. Messages are small: only a peer that stopped reading long ago fills
/// the socket's buffers.
const SEND_TIMEOUT: Duration = Duration::from_secs(60);

/// What a session prints for the person watching.
pub type Log = Box<dyn FnMut(&str) + Send>;

pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// What came in.
pub enum Incoming {
    Message(Message),
    Malformed(String),
    Closed,
    /// No whole message within the time given.
    TimedOut,
}

impl Connection {
    pub fn new(stream: TcpStream) -> std::io::Result<Connection> {
        stream.set_nodelay(true)?;
        stream.set_write_timeout(Some(SEND_TIMEOUT))?;
        Ok(Connection {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    pub fn send(&mut self, m: &Message) -> std::io::Result<()> {
        let mut bytes = m.encode().into_bytes();
        bytes.push(0);
        self.writer.write_all(&bytes)?;
        self.writer.flush()
    }

    /// The next message, however long it takes.
    pub fn receive(&mut self) -> Incoming {
        self.receive_within(None)
    }

    /// The next message, if it arrives whole within `within` (`None`: no limit). The
    /// limit is on the whole message, not on each read, so a peer trickling bytes without
    /// ever ending a message cannot stretch it.
    pub fn receive_within(&mut self, within: Option<Duration>) -> Incoming {
        let deadline = within.map(|d| Instant::now() + d);
        let mut buf = Vec::new();
        let mut overlong = false;
        loop {
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Incoming::TimedOut;
                    }
                    Some(left)
                }
            };
            if self.reader.get_ref().set_read_timeout(timeout).is_err() {
                return Incoming::Closed;
            }
            let (used, ended) = match self.reader.fill_buf() {
                // The end of the stream, maybe in the middle of a message.
                Ok([]) => return Incoming::Closed,
                Ok(chunk) => {
                    let nul = chunk.iter().position(|&b| b == 0);
                    let part = &chunk[..nul.unwrap_or(chunk.len())];
                    if buf.len() + part.len() > MAX_MESSAGE {
                        overlong = true;
                        buf.clear();
                    } else if !overlong {
                        buf.extend_from_slice(part);
                    }
                    (nul.map_or(chunk.len(), |i| i + 1), nul.is_some())
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // The socket's timer: the loop checks the deadline itself (a wake-up a
                // little early waits out the rest).
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    continue;
                }
                Err(_) => return Incoming::Closed,
            };
            self.reader.consume(used);
            if ended {
                break;
            }
        }
        if overlong {
            return Incoming::Malformed(format!(
                "message longer than {MAX_MESSAGE} bytes (skipped)"
            ));
        }
        let text = String::from_utf8_lossy(&buf);
        // Some programs send a line end after the NUL: ignore blank leftovers.
        let text = text.trim_matches(|c: char| c == '\r' || c == '\n');
        match Message::decode(text) {
            Ok(m) => Incoming::Message(m),
            Err(e) if text.is_empty() => Incoming::Malformed(e.to_string()),
            Err(e) => Incoming::Malformed(format!("{e} in message '{}'", printable(text))),
        }
    }

    pub fn shutdown(&self) {
        let _ = self.writer.shutdown(std::net::Shutdown::Both);
    }
}

fn printable(s: &str) -> String {
    s.chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// What chooses tammi's moves: the search engine (tests put a stand-in here, to see
/// what a session does when the engine fails).
pub trait MoveSource: Send {
    /// The next game has nothing to do with the previous ones.
    fn new_game(&mut self);
    /// The move to play in `game` within `limits`, or what went wrong.
    fn best_move(&mut self, game: &RulesGame, limits: Limits) -> Result<Move<u64>, String>;
}

impl MoveSource for Engine {
    fn new_game(&mut self) {
        Engine::new_game(self);
    }

    fn best_move(&mut self, game: &RulesGame, limits: Limits) -> Result<Move<u64>, String> {
        self.set_game(game);
        let done = self.think(limits, |_| {});
        match done.best_move {
            None => Err("the search found no move".into()),
            Some(m) => done
                .best_among(&game.legal_moves())
                .ok_or_else(|| format!("the search answered a move not legal here ({m:?})")),
        }
    }
}

/// The engine with an opening book in front of it: a book move where the position is
/// in the book (and the book is on), the search everywhere else.
pub struct BookedEngine {
    pub engine: Engine,
    pub book: crate::book::BookPlayer,
}

impl MoveSource for BookedEngine {
    fn new_game(&mut self) {
        self.engine.new_game();
    }

    fn best_move(&mut self, game: &RulesGame, limits: Limits) -> Result<Move<u64>, String> {
        self.engine.set_game(game);
        if let Some(pick) = self.book.pick(&self.engine, game.moves().len()) {
            return Move::among(&pick.chosen, &game.legal_moves())
                .ok_or_else(|| format!("the book's move '{}' is not legal here", pick.mv));
        }
        self.engine.best_move(game, limits)
    }
}

/// Settings of our side of a session.
pub struct Player {
    pub name: String,
    pub engine: Box<dyn MoveSource>,
    /// Local override: think this long per move whatever the game clock says.
    pub move_time: Option<Duration>,
    /// Adjudicate a draw after this many moves (each side).
    pub max_moves: u32,
    /// A connection must have a game under way this long after it opens (a follower's
    /// accepted GAMEREQ), and a game request must be answered within it (an initiator's
    /// GAMEACC); `None`: no limit.
    pub handshake_timeout: Option<Duration>,
    /// The longest the other side may stay silent while tammi waits for it (its move,
    /// a GAMEEND confirmation, the next game request); `None`: no limit.
    pub idle_timeout: Option<Duration>,
    /// Lines for the person watching; errors start with `error: `.
    pub log: Log,
}

/// The result of one game, from our point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Loss,
    Draw,
    /// Ended without a result: disconnection, an illegal move, or a GAMEEND with reason 0.
    Unfinished,
}

/// How a game ended, and whether the other side asked to stop the session.
pub struct GameEnd {
    pub result: GameResult,
    pub stop: bool,
    pub closed: bool,
    /// A game request that came in place of the GAMEEND confirmation: the other side
    /// took the game as over and wants the next one, so it is answered, not dropped.
    pub pending: Option<Message>,
}

/// A duration for a message to a person: `30 s`, `0.5 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// The wait allowed for the next message: what is left before `deadline` (if any), and
/// at most `idle` (if any).
fn wait_limit(deadline: Option<Instant>, idle: Option<Duration>) -> Option<Duration> {
    let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    match (left, idle) {
        (Some(l), Some(i)) => Some(l.min(i)),
        (l, i) => l.or(i),
    }
}

/// A game in progress.
struct Game {
    /// The moves and the position, with the draw rules' history (the rules core's game).
    game: RulesGame,
    ours: Color,
    minutes: u16,
    moves_per_control: u16,
    used: Duration,
}

/// How a game ends: the GAMEEND reason, the result for tammi, and what to log.
struct Ending {
    reason: u8,
    result: GameResult,
    why: String,
}

impl Game {
    fn position(&self) -> Pos {
        *self.game.position()
    }

    fn limits(&self, player: &Player) -> Limits {
        if let Some(t) = player.move_time {
            return Limits::move_time(t);
        }
        if self.minutes == 0 {
            return Limits::move_time(Duration::from_secs(1));
        }
        let total = Duration::from_secs(self.minutes as u64 * 60);
        let left = total
            .saturating_sub(self.used)
            .max(Duration::from_millis(50));
        let ours_played = self.game.ply() as u32 / 2;
        let to_go = match self.moves_per_control {
            0 => None,
            n => Some(n as u32 - ours_played % n as u32),
        };
        Limits::clock(left, Duration::ZERO, to_go)
    }

    /// The end of the game, if the rules end it (a win, or a draw by the FMJD rules:
    /// threefold repetition, 25 moves with kings only, the 16- and 5-move endings) or
    /// the local move limit does; whoever is to move.
    fn ending(&self, max_moves: u32) -> Option<Ending> {
        let end = |reason, result, why: String| {
            Some(Ending {
                reason,
                result,
                why,
            })
        };
        match self.game.outcome() {
            Some(Outcome::Win(c)) if c == self.ours => end(
                END_WIN,
                GameResult::Win,
                format!("{}: tammi wins", c.name()),
            ),
            Some(Outcome::Win(c)) => end(
                END_RESIGN,
                GameResult::Loss,
                format!("{} wins: tammi loses", c.name()),
            ),
            Some(o @ Outcome::Draw(_)) => end(END_DRAW, GameResult::Draw, o.to_string()),
            None if self.game.ply() as u32 >= 2 * max_moves => end(
                END_DRAW,
                GameResult::Draw,
                format!("draw: move limit of {max_moves} moves reached"),
            ),
            None => None,
        }
    }
}

fn dxp_move(m: &Move<u64>, seconds: u64) -> Message {
    let mut captured: Vec<u8> = m
        .captured
        .squares()
        .map(|b| Pos::square_of_bit(b) as u8)
        .collect();
    captured.sort_unstable();
    Message::Move {
        seconds: seconds.min(9999) as u16,
        from: Pos::square_of_bit(m.from as u32) as u8,
        to: Pos::square_of_bit(m.to as u32) as u8,
        captured,
    }
}

/// The legal move named by DXP's from, to and captured set.
fn match_move(pos: &Pos, from: u8, to: u8, captured: &[u8]) -> Result<Move<u64>, String> {
    let mut list = Vec::new();
    pos.generate(&mut list);
    let bit = |sq: u8| Pos::bit_of_square(sq as u32);
    let (Some(f), Some(t)) = (bit(from), bit(to)) else {
        return Err(format!("move {from:02}-{to:02}: square out of range"));
    };
    let mut caps = 0u64;
    for &c in captured {
        caps |= 1u64 << bit(c).ok_or_else(|| format!("captured square {c:02} out of range"))?;
    }
    list.into_iter()
        .find(|m| m.from as u32 == f && m.to as u32 == t && m.captured == caps)
        .ok_or_else(|| {
            let caps: Vec<String> = captured.iter().map(|c| format!("{c:02}")).collect();
            format!(
                "illegal move {from:02}-{to:02} capturing [{}] in {}",
                caps.join(" "),
                write_fen(pos, crate::rules::Notation::Numeric)
            )
        })
}

/// The start position of a game request.
fn start_of(start: &Start) -> Result<Pos, String> {
    match start {
        Start::Initial => Ok(Pos::start()),
        Start::Position { to_move, squares } => {
            let side = if *to_move == DxpColor::White {
                'W'
            } else {
                'B'
            };
            let hub: String = std::iter::once(side)
                .chain(squares.chars().map(|c| match c {
                    'z' => 'b',
                    'Z' => 'B',
                    c => c,
                }))
                .collect();
            parse_position::<Pos>(&hub).map_err(|e| e.to_string())
        }
    }
}

/// Play one game; `request` carries the clock and the start.
pub fn play_game(
    conn: &mut Connection,
    player: &mut Player,
    ours: Color,
    minutes: u16,
    moves_per_control: u16,
    start: Pos,
    last_game: bool,
) -> GameEnd {
    let mut game = Game {
        game: RulesGame::new(start),
        ours,
        minutes,
        moves_per_control,
        used: Duration::ZERO,
    };
    let stop_code = u8::from(last_game);
    loop {
        let pos = game.position();
        let legal = game.game.legal_moves();
        if let Some(e) = game.ending(player.max_moves) {
            // The rules have ended the game, after either side's move: say so at once.
            (player.log)(&format!("game over: {}", e.why));
            let _ = conn.send(&Message::GameEnd {
                reason: e.reason,
                stop: stop_code,
            });
            let end = await_confirmation(conn, player, stop_code);
            return GameEnd {
                result: e.result,
                ..end
            };
        }
        if pos.side() == game.ours {
            let t = Instant::now();
            let mv = if legal.len() == 1 {
                legal[0]
            } else {
                match think(player, &game, &legal) {
                    Ok(m) => m,
                    Err(e) => {
                        // Never a move the engine did not choose: the game ends, unfinished.
                        (player.log)(&format!("error: engine failure: {e}"));
                        let _ = conn.send(&Message::Chat(format!(
                            "tammi: engine failure ({e}): the game ends unfinished"
                        )));
                        let _ = conn.send(&Message::GameEnd {
                            reason: END_NONE,
                            stop: stop_code,
                        });
                        let end = await_confirmation(conn, player, stop_code);
                        return GameEnd {
                            result: GameResult::Unfinished,
                            ..end
                        };
                    }
                }
            };
            let spent = t.elapsed();
            game.used += spent;
            (player.log)(&format!("tammi plays {}", format_hub_move::<Pos>(&mv)));
            if conn.send(&dxp_move(&mv, spent.as_secs())).is_err() {
                return GameEnd {
                    result: GameResult::Unfinished,
                    stop: true,
                    closed: true,
                    pending: None,
                };
            }
            game.game
                .play(&mv)
                .expect("a legal move of a game not over");
            continue;
        }
        match conn.receive_within(player.idle_timeout) {
            Incoming::Closed => {
                (player.log)("connection closed: the game ends unfinished");
                return GameEnd {
                    result: GameResult::Unfinished,
                    stop: true,
                    closed: true,
                    pending: None,
                };
            }
            Incoming::TimedOut => {
                // A silent peer would hold the connection, and the listener, forever.
                let why = format!(
                    "nothing received for {}",
                    seconds(player.idle_timeout.unwrap_or_default())
                );
                (player.log)(&format!("{why}: the game ends unfinished"));
                let _ = conn.send(&Message::Chat(format!(
                    "tammi: {why}; the game ends and the connection closes"
                )));
                let _ = conn.send(&Message::GameEnd {
                    reason: END_NONE,
                    stop: 1,
                });
                conn.shutdown();
                return GameEnd {
                    result: GameResult::Unfinished,
                    stop: true,
                    closed: true,
                    pending: None,
                };
            }
            Incoming::Malformed(e) => {
                (player.log)(&format!("malformed message: {e}"));
                let _ = conn.send(&Message::Chat(format!("tammi: {e}")));
            }
            Incoming::Message(Message::Move {
                from, to, captured, ..
            }) => match match_move(&pos, from, to, &captured) {
                Ok(m) => {
                    (player.log)(&format!("opponent plays {}", format_hub_move::<Pos>(&m)));
                    game.game.play(&m).expect("a legal move of a game not over");
                }
                Err(e) => {
                    (player.log)(&e);
                    let _ = conn.send(&Message::Chat(format!("tammi: {e}")));
                    let _ = conn.send(&Message::GameEnd {
                        reason: END_NONE,
                        stop: stop_code,
                    });
                    let end = await_confirmation(conn, player, stop_code);
                    return GameEnd {
                        result: GameResult::Unfinished,
                        ..end
                    };
                }
            },
            Incoming::Message(Message::GameEnd { reason, stop }) => {
                // Confirm with our own GAMEEND, echoing the stop code.
                let _ = conn.send(&Message::GameEnd {
                    reason: END_NONE,
                    stop: stop.max(stop_code),
                });
                let result = match reason {
                    END_RESIGN => GameResult::Win,
                    END_DRAW => GameResult::Draw,
                    END_WIN => GameResult::Loss,
                    // No reason given: judge by the rules where they decide.
                    _ => match game.game.outcome() {
                        Some(Outcome::Win(c)) if c == game.ours => GameResult::Win,
                        Some(Outcome::Win(_)) => GameResult::Loss,
                        Some(Outcome::Draw(_)) => GameResult::Draw,
                        None => GameResult::Unfinished,
                    },
                };
                (player.log)(&format!(
                    "game over: the opponent ended the game ({result:?})"
                ));
                return GameEnd {
                    result,
                    stop: stop == 1,
                    closed: false,
                    pending: None,
                };
            }
            Incoming::Message(Message::Chat(text)) => (player.log)(&format!("chat: {text}")),
            Incoming::Message(Message::BackRequest {
                move_number,
                to_move,
            }) => {
                let ply = back_ply(&game, move_number, to_move);
                match ply {
                    Some(p) => {
                        while game.game.ply() > p {
                            game.game.undo();
                        }
                        let _ = conn.send(&Message::BackAccept { code: 0 });
                        (player.log)(&format!("took back to move {move_number}"));
                    }
                    None => {
                        let _ = conn.send(&Message::BackAccept { code: 1 });
                    }
                }
            }
            Incoming::Message(other) => {
                let _ = conn.send(&Message::Chat(format!(
                    "tammi: unexpected message during a game: {}",
                    printable(&other.encode())
                )));
            }
        }
    }
}

/// The ply (number of moves played) of "move `number`, `to_move` to play", if reachable.
fn back_ply(game: &Game, number: u16, to_move: DxpColor) -> Option<usize> {
    if number == 0 {
        return None;
    }
    let first_black = game.game.start().side() == Color::Black;
    let offset = usize::from(first_black);
    let ply = (number as usize - 1) * 2 + usize::from(to_move == DxpColor::Black);
    let ply = ply.checked_sub(offset)?;
    (ply <= game.game.ply()).then_some(ply)
}

/// tammi's move: the engine's choice, checked against the legal moves. An engine that
/// fails, panics or names no legal move is an error: no other move is put in its place.
fn think(player: &mut Player, game: &Game, legal: &[Move<u64>]) -> Result<Move<u64>, String> {
    let limits = game.limits(player);
    let engine = &mut player.engine;
    let best = catch_unwind(AssertUnwindSafe(|| engine.best_move(&game.game, limits)))
        .unwrap_or_else(|_| Err("the engine panicked".into()))?;
    if legal.contains(&best) {
        Ok(best)
    } else {
        Err(format!(
            "the engine's move {best:?} is not played: it is not legal here"
        ))
    }
}

/// After sending GAMEEND, wait for the other side's confirmation (chat is logged). A
/// game request in its place is taken as the confirmation and handed back to be
/// answered: a peer that skips the confirmation is not left without an answer.
fn await_confirmation(conn: &mut Connection, player: &mut Player, stop_code: u8) -> GameEnd {
    let over = |stop: bool, closed: bool, pending: Option<Message>| GameEnd {
        result: GameResult::Unfinished,
        stop,
        closed,
        pending,
    };
    loop {
        match conn.receive_within(player.idle_timeout) {
            Incoming::Message(Message::GameEnd { stop, .. }) => {
                return over(stop == 1 || stop_code == 1, false, None);
            }
            Incoming::Message(m @ Message::GameRequest { .. }) => {
                (player.log)("a game request without the GAMEEND confirmation: taken as one");
                return over(stop_code == 1, false, Some(m));
            }
            Incoming::Message(Message::Chat(t)) => (player.log)(&format!("chat: {t}")),
            Incoming::Malformed(e) => {
                (player.log)(&format!("malformed message: {e}"));
                let _ = conn.send(&Message::Chat(format!("tammi: {e}")));
            }
            Incoming::Closed => return over(true, true, None),
            Incoming::TimedOut => {
                let why = format!(
                    "no GAMEEND confirmation for {}",
                    seconds(player.idle_timeout.unwrap_or_default())
                );
                (player.log)(&format!("{why}: closing the connection"));
                let _ = conn.send(&Message::Chat(format!(
                    "tammi: {why}; closing the connection"
                )));
                conn.shutdown();
                return over(true, true, None);
            }
            // A move crossing our GAMEEND, or anything else: the game is over anyway.
            Incoming::Message(_) => {}
        }
    }
}

/// Serve one connection as follower: answer game requests until stopped or closed.
pub fn follow(conn: &mut Connection, player: &mut Player) {
    // Until a game is under way the handshake timeout runs too: a peer that connects and
    // starts nothing would otherwise hold the listener's one connection forever.
    let mut handshake = player.handshake_timeout.map(|t| Instant::now() + t);
    // A game request that arrived in place of a GAMEEND confirmation.
    let mut pending: Option<Message> = None;
    loop {
        let incoming = match pending.take() {
            Some(m) => Incoming::Message(m),
            None => conn.receive_within(wait_limit(handshake, player.idle_timeout)),
        };
        match incoming {
            Incoming::Closed => return,
            Incoming::TimedOut => {
                let why = match (handshake, player.handshake_timeout) {
                    (Some(d), Some(t)) if Instant::now() >= d => {
                        format!("no game started within {} of connecting", seconds(t))
                    }
                    _ => format!(
                        "nothing received for {}",
                        seconds(player.idle_timeout.unwrap_or_default())
                    ),
                };
                (player.log)(&format!("{why}: closing the connection"));
                let _ = conn.send(&Message::Chat(format!(
                    "tammi: {why}; closing the connection"
                )));
                conn.shutdown();
                return;
            }
            Incoming::Malformed(e) => {
                (player.log)(&format!("malformed message: {e}"));
                let _ = conn.send(&Message::Chat(format!("tammi: {e}")));
            }
            Incoming::Message(Message::GameRequest {
                version,
                name,
                follower_color,
                minutes,
                moves,
                start,
            }) => {
                if version != 1 {
                    let _ = conn.send(&Message::GameAccept {
                        name: player.name.clone(),
                        code: WRONG_VERSION,
                    });
                    continue;
                }
                let start = match start_of(&start) {
                    Ok(p) => p,
                    Err(e) => {
                        let _ =
                            conn.send(&Message::Chat(format!("tammi: bad start position: {e}")));
                        let _ = conn.send(&Message::GameAccept {
                            name: player.name.clone(),
                            code: NOT_THIS_GAME,
                        });
                        continue;
                    }
                };
                let ours = if follower_color == DxpColor::White {
                    Color::White
                } else {
                    Color::Black
                };
                (player.log)(&format!(
                    "game request from {name}: tammi plays {}, {minutes} min for {} moves",
                    ours.name(),
                    if moves == 0 {
                        "all".to_string()
                    } else {
                        moves.to_string()
                    }
                ));
                if conn
                    .send(&Message::GameAccept {
                        name: player.name.clone(),
                        code: ACCEPT,
                    })
                    .is_err()
                {
                    return;
                }
                handshake = None;
                player.engine.new_game();
                let end = play_game(conn, player, ours, minutes, moves, start, false);
                (player.log)(&format!("result for tammi: {:?}", end.result));
                if end.closed || end.stop {
                    conn.shutdown();
                    return;
                }
                pending = end.pending;
            }
            Incoming::Message(Message::Chat(t)) => (player.log)(&format!("chat: {t}")),
            Incoming::Message(Message::GameEnd { stop, .. }) => {
                // A GAMEEND outside a game: confirm so the other side is not left waiting.
                let _ = conn.send(&Message::GameEnd {
                    reason: END_NONE,
                    stop,
                });
                if stop == 1 {
                    conn.shutdown();
                    return;
                }
            }
            Incoming::Message(Message::BackRequest { .. }) => {
                let _ = conn.send(&Message::BackAccept { code: 1 });
            }
            Incoming::Message(_) => {
                let _ = conn.send(&Message::Chat(
                    "tammi: no game in progress (send a GAMEREQ first)".into(),
                ));
            }
        }
    }
}

/// Request and play `games` games, alternating colours (tammi White in the first).
#[allow(clippy::too_many_arguments)]
pub fn initiate(
    conn: &mut Connection,
    player: &mut Player,
    games: u32,
    minutes: u16,
    moves: u16,
    position: Option<Pos>,
) -> Vec<GameResult> {
    let mut results = Vec::new();
    for g in 0..games {
        let ours = if g % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let follower_color = if ours == Color::White {
            DxpColor::Black
        } else {
            DxpColor::White
        };
        let start_pos = position.unwrap_or_else(Pos::start);
        let start = match position {
            None => Start::Initial,
            Some(p) => Start::Position {
                to_move: if p.side() == Color::White {
                    DxpColor::White
                } else {
                    DxpColor::Black
                },
                squares: crate::notation::write_hub_position(&p)[1..]
                    .chars()
                    .map(|c| match c {
                        'b' => 'z',
                        'B' => 'Z',
                        c => c,
                    })
                    .collect(),
            },
        };
        let req = Message::GameRequest {
            version: 1,
            name: player.name.clone(),
            follower_color,
            minutes,
            moves,
            start,
        };
        if conn.send(&req).is_err() {
            break;
        }
        // The handshake timeout bounds the wait for the answer, so a follower that never
        // answers cannot hold tammi forever.
        let deadline = player.handshake_timeout.map(|t| Instant::now() + t);
        let accepted = loop {
            match conn.receive_within(wait_limit(deadline, player.idle_timeout)) {
                Incoming::Message(Message::GameAccept { code, name }) => {
                    let why = match code {
                        ACCEPT => "",
                        WRONG_VERSION => " (wrong protocol version)",
                        NOT_THIS_GAME => " (not this game)",
                        REFUSE_ALL => " (refuses any game)",
                        _ => " (unknown code)",
                    };
                    (player.log)(&format!("{name} answers {code}{why}"));
                    break code == ACCEPT;
                }
                Incoming::Message(Message::Chat(t)) => (player.log)(&format!("chat: {t}")),
                Incoming::Closed => break false,
                Incoming::TimedOut => {
                    let why = "no answer to the game request";
                    (player.log)(&format!("{why}: closing the connection"));
                    let _ = conn.send(&Message::Chat(format!(
                        "tammi: {why}; closing the connection"
                    )));
                    break false;
                }
                Incoming::Malformed(e) => {
                    (player.log)(&format!("malformed message: {e}"));
                    let _ = conn.send(&Message::Chat(format!("tammi: {e}")));
                }
                Incoming::Message(other) => {
                    let _ = conn.send(&Message::Chat(format!(
                        "tammi: unexpected message while waiting for GAMEACC: {}",
                        printable(&other.encode())
                    )));
                }
            }
        };
        if !accepted {
            break;
        }
        player.engine.new_game();
        let last = g + 1 == games;
        let end = play_game(conn, player, ours, minutes, moves, start_pos, last);
        (player.log)(&format!("game {}: {:?}", g + 1, end.result));
        results.push(end.result);
        if end.closed || (end.stop && !last) {
            break;
        }
    }
    conn.shutdown();
    results
}
