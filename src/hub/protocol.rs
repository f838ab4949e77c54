//! `tammi hub`: the Hub protocol (version 2) over standard input and output, as a thin
//! adapter over the [`Engine`] API. protocol.md documents every command and answer.
//!
//! Robustness beyond Scan: a malformed line, a bad value, a bad position or an illegal
//! move is answered with `error message="..."` and leaves the state as it was; no input
//! can crash or hang the loop. A variant tammi does not play is an error too, and leaves
//! no variant to search in until one it plays is set (protocol.md, `variant`).

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::input::{InputEvent, spawn_reader};
use super::line::{Line, parse_line};
use super::message::{Command, GoMode, InfoFields, LevelLimit, ParamType, Reply};
use crate::notation::{echo, format_hub_any};
use crate::rules::{ALL_VARIANTS, AnyMove, DrawReason, Outcome, Variant};
use crate::search::engine::{Done, Engine, Info, Score};
use crate::search::limits::Limits;
use crate::settings::{self, Applied, Applies, Kind, Param, Settings, Value};

/// Longer lines are refused (a `moves` list of a very long game stays far below this).
pub const MAX_LINE: usize = 1 << 20;

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// Whose conventions the GUI follows where real clients disagree (the Hub parameter
/// `client`; protocol.md explains each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// lidraughts (its analysis client and draughtsnet), Scan, and tammi's own tools: the
    /// position string and the moves use the same square numbers, the side letter is the
    /// side to move.
    Lidraughts,
    /// pydraughts' HubEngine: in english it writes the position string from its own view,
    /// in which the first mover (Black) is White: the board turned round with the colours
    /// and the side letter swapped (its moves use the english numbers as they are). In
    /// russian and brazilian its moves count the squares from White's side (1 = a1, row
    /// by row upwards) while its position string uses lidraughts' numbers (1 = b8).
    Pydraughts,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Lidraughts => "lidraughts",
            Client::Pydraughts => "pydraughts",
        }
    }

    /// Whether this client numbers the moves of `variant` from White's side.
    fn flips_move_rows(self, variant: Variant) -> bool {
        self == Client::Pydraughts && matches!(variant, Variant::Russian | Variant::Brazilian)
    }
}

/// Square `n` of an 8x8 diagonal board with its rows counted from the other edge (the
/// order inside a row kept): lidraughts' 21 (a3) is pydraughts' 9. Its own inverse.
fn flip_rows_8x8(n: u32) -> u32 {
    let (row, index) = ((n - 1) / 4, (n - 1) % 4);
    (7 - row) * 4 + index + 1
}

/// A Hub move (`32-28`, `28x19x23`) with every square renumbered by [`flip_rows_8x8`],
/// the captured squares in increasing order again; text that is not a move of squares
/// 1-32 is left as it is, for the move parser to reject.
fn flip_move_rows(mv: &str) -> String {
    let sep = if mv.contains('x') { 'x' } else { '-' };
    let squares: Option<Vec<u32>> = mv
        .split(sep)
        .map(|t| t.parse::<u32>().ok().filter(|n| (1..=32).contains(n)))
        .collect();
    match squares {
        Some(mut sq) if sq.len() >= 2 => {
            for n in sq.iter_mut() {
                *n = flip_rows_8x8(*n);
            }
            sq[2..].sort_unstable();
            let names: Vec<String> = sq.iter().map(u32::to_string).collect();
            names.join(&sep.to_string())
        }
        _ => mv.to_string(),
    }
}

/// pydraughts' english position string read as the board it means: the squares in the
/// reverse order, men and kings of each colour swapped, and the side letter swapped.
/// Anything that is not a position string (a FEN, `start`) is returned unchanged.
fn turn_english_board(text: &str) -> String {
    let t = text.trim();
    let swap = |c: char| match c {
        'w' => 'b',
        'b' => 'w',
        'W' => 'B',
        'B' => 'W',
        c => c,
    };
    if t.contains(':') || t.chars().count() != 33 {
        return text.to_string();
    }
    let mut chars = t.chars();
    let side = chars.next().map(swap).unwrap_or('W');
    std::iter::once(side).chain(chars.rev().map(swap)).collect()
}

fn send(out: &Out, reply: &Reply) {
    // A closed pipe means the GUI is gone; the read side will see end of input and exit.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{}", reply.encode());
        let _ = w.flush();
    }
}

fn send_error(out: &Out, message: &str) {
    send(out, &Reply::Error(message.to_string()));
}

/// The protocol state between searches.
struct Hub {
    out: Out,
    engine: Engine,
    /// The variant played (the last one set successfully).
    variant: Variant,
    /// The `variant` value last refused, if no valid one came after it: until one does,
    /// `pos` and `go` answer errors rather than play `variant`, which the GUI no longer
    /// wants (a client that logs errors and carries on must not get moves of another game).
    refused: Option<String>,
    /// The position as last set successfully: text and moves.
    position: (String, Vec<String>),
    limits: Limits,
    ponder_allowed: bool,
    searching: Arc<AtomicBool>,
    client: Client,
    /// The engine's and the book's parameters (the opening book `go` plays from
    /// included).
    settings: Settings,
}

/// Run the protocol until `quit` or end of input; returns the exit status.
pub fn run<R: BufRead + Send + 'static>(input: R, output: Box<dyn Write + Send>) -> i32 {
    let out: Out = Arc::new(Mutex::new(output));
    let events = spawn_reader(input, MAX_LINE);
    let mut hub = Hub {
        out: Arc::clone(&out),
        engine: Engine::default(),
        variant: Variant::International,
        refused: None,
        position: ("start".into(), Vec::new()),
        limits: Limits::default(),
        ponder_allowed: false,
        searching: Arc::new(AtomicBool::new(false)),
        client: Client::Lidraughts,
        settings: Settings::default(),
    };
    for event in events.iter() {
        let text = match event {
            // The GUI is gone: leave at once, whatever is running.
            InputEvent::Eof => return 0,
            InputEvent::TooLong(max) => {
                send_error(&out, &format!("line longer than {max} bytes ignored"));
                continue;
            }
            InputEvent::Line(t, _) => t.trim().to_string(),
        };
        if text.is_empty() {
            continue;
        }
        let line = match parse_line(&text) {
            Ok(l) => l,
            Err(e) => {
                send_error(&out, &format!("{e} in '{}'", echo(&text)));
                continue;
            }
        };
        // A refused line changes nothing; the error says what stays in force.
        let command = Command::from_line(&line).map_err(|e| match line.command.as_str() {
            "pos" => format!("{e} (the previous position is kept)"),
            "level" => format!("{e}; {}", hub.limits_in_force()),
            "set-param" => match line.get("name").and_then(|n| hub.param_value(n)) {
                Some((n, v)) => format!("{e}; {n} stays '{}'", echo(&v)),
                None => e,
            },
            _ => e,
        });
        if hub.searching.load(Ordering::Acquire) {
            match command {
                Ok(Command::Ping) => {
                    send(&out, &Reply::Pong);
                    continue;
                }
                Ok(Command::PonderHit) => {
                    hub.engine.ponder_hit();
                    continue;
                }
                Ok(Command::Stop) => {
                    hub.engine.stop();
                    continue;
                }
                // Anything else ends the search first (as Scan does), then is handled.
                _ => {
                    hub.engine.stop();
                    hub.engine.wait();
                }
            }
        }
        match command {
            Ok(Command::Quit) => {
                hub.engine.stop();
                hub.engine.wait();
                return 0;
            }
            Ok(c) => hub.handle(c),
            Err(e) => send_error(&out, &e),
        }
    }
    0
}

impl Hub {
    fn handle(&mut self, command: Command) {
        let out = Arc::clone(&self.out);
        let result = match command {
            Command::Hub => {
                self.announce();
                Ok(())
            }
            Command::Init => {
                // The built-in books are read and checked here, off the clock.
                let _ = crate::book::builtin(self.variant);
                send(&out, &Reply::Ready);
                Ok(())
            }
            Command::SetParam { name, value } => {
                self.set_param(&name, &value).map_err(|e| {
                    // A refused value changes nothing: say what stays in force (a
                    // refused variant is the exception, see `refused`).
                    match self.param_value(&name) {
                        Some((n, v)) if n != "variant" => {
                            format!("{e}; {n} stays '{}'", echo(&v))
                        }
                        _ => e,
                    }
                })
            }
            Command::Pos { pos, fen, moves } => self.set_position(pos, fen, moves),
            Command::Level(limits) => {
                self.level(&limits);
                Ok(())
            }
            Command::Go(mode) => self.go(mode),
            Command::NewGame => {
                self.engine.new_game();
                Ok(())
            }
            Command::Ping => {
                send(&out, &Reply::Pong);
                Ok(())
            }
            // Late arrivals after the search already ended: nothing to do.
            Command::Stop | Command::PonderHit => Ok(()),
            // Handled by the loop before it gets here.
            Command::Quit => Ok(()),
        };
        if let Err(e) = result {
            send_error(&out, &e);
        }
    }

    /// The error for a command that needs a variant while the last one set was refused.
    fn unplayable(&self, what: &str) -> Option<String> {
        self.refused.as_ref().map(|v| {
            format!(
                "{what}: no variant is set (variant '{}' was refused; set one of: {})",
                echo(v),
                hub_variants().join(" ")
            )
        })
    }

    /// What `level` limits a `go` would use now, for an error that refused a `level`.
    fn limits_in_force(&self) -> String {
        if self.limits.is_unbounded() && !self.limits.infinite {
            format!(
                "the limits in force: none (go think plays in {} s, go analyze runs until stop)",
                Limits::DEFAULT_MOVE_TIME.as_secs_f64()
            )
        } else {
            format!("the limits in force: {}", self.limits)
        }
    }

    /// A parameter's name as announced (aliases resolved) and its value in force;
    /// `None` for a name that is no parameter.
    fn param_value(&self, name: &str) -> Option<(&'static str, String)> {
        let p = settings::find(name).ok()?;
        let value = match p.applies {
            Applies::Game => self.variant.hub_name().into(),
            Applies::Protocol => match p.name {
                "ponder" => self.ponder_allowed.to_string(),
                _ => self.client.name().into(),
            },
            _ => self.settings.value(&self.engine, self.variant, p.name)?,
        };
        Some((p.name, value))
    }

    fn announce(&self) {
        let param = |p: &Param, variants: &[&str]| Reply::Param {
            name: p.name.into(),
            value: self.param_value(p.name).map(|(_, v)| v),
            kind: Some(param_type(p, variants)),
        };
        let lines = [Reply::Id(vec![
            ("name".into(), "tammi".into()),
            ("version".into(), env!("CARGO_PKG_VERSION").into()),
            ("author".into(), "the tammi developers".into()),
            ("country".into(), "FI".into()),
        ])];
        for l in &lines {
            send(&self.out, l);
        }
        // Every parameter of the table (the variants: exactly those tammi plays).
        let variants = hub_variants();
        for p in settings::PARAMS {
            send(&self.out, &param(p, &variants));
        }
        send(&self.out, &Reply::Wait);
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        // A failed preparation of an earlier hash or egdb brings back the old value.
        self.engine.collect_preparation();
        // Scan's bitbase cache size: tammi has no such setting, and accepting it would
        // pretend it did.
        if name == "bb-size" {
            return Err(
                "bb-size is Scan's bitbase setting; tammi has none (its endgame databases are loaded with egdb=PATH)"
                    .into(),
            );
        }
        let spec = settings::find(name)?;
        match spec.applies {
            Applies::Game => return self.set_variant(value),
            Applies::Protocol => {
                match (spec.name, spec.parse(value)?) {
                    ("ponder", Value::Bool(b)) => self.ponder_allowed = b,
                    ("client", Value::Word(w)) => {
                        self.client = if w == "pydraughts" {
                            Client::Pydraughts
                        } else {
                            Client::Lidraughts
                        }
                    }
                    // A parameter of the table that is not applied here is a bug, said
                    // as one.
                    (other, _) => {
                        return Err(format!("parameter '{other}' is declared but not applied"));
                    }
                }
                return Ok(());
            }
            _ => {}
        }
        // The evaluation and a book file are the variant's: with no variant set there is
        // nothing to apply them to.
        if (spec.applies == Applies::Eval || spec.name == "book-file")
            && let Some(e) = self.unplayable(&format!("set-param {}", spec.name))
        {
            return Err(e);
        }
        let o = match self
            .settings
            .apply(&mut self.engine, self.variant, spec.name, value)?
        {
            Applied::Done => return Ok(()),
            Applied::Options(o) => o,
        };
        // A large table or a database takes seconds to prepare: that happens on a thread
        // of its own, so `ping` is answered meanwhile; a later failure (no memory) is
        // reported when it happens, and the old table or database stays.
        let out = Arc::clone(&self.out);
        let name = name.to_string();
        self.engine.set_options_in_background(
            o,
            Some(Box::new(move |e| {
                send_error(&out, &format!("set-param {name}: {e}"))
            })),
        )
    }

    /// `set-param name=variant`: a variant tammi plays starts a new game from its start
    /// position, with its built-in evaluation files and book.
    fn set_variant(&mut self, value: &str) -> Result<(), String> {
        let v: Variant = match value.parse() {
            Ok(v) => v,
            Err(_) => {
                // Not played: no search until a variant that is (see `refused`).
                self.refused = Some(value.to_string());
                return Err(format!(
                    "variant '{}' is not played (tammi plays: {}); no search until a \
                     variant it plays is set",
                    echo(value),
                    hub_variants().join(" ")
                ));
            }
        };
        self.engine.set_position(v, "start", &[])?;
        self.refused = None;
        self.settings
            .variant_changed(&mut self.engine, self.variant, v)?;
        self.variant = v;
        self.position = ("start".into(), Vec::new());
        Ok(())
    }

    fn set_position(
        &mut self,
        pos: Option<String>,
        fen: Option<String>,
        moves: Vec<String>,
    ) -> Result<(), String> {
        if let Some(e) = self.unplayable("pos") {
            return Err(format!("{e} (the previous position is kept)"));
        }
        let text = fen.or(pos).unwrap_or_else(|| "start".to_string());
        let flip = self.client.flips_move_rows(self.variant);
        let moves: Vec<String> = moves
            .into_iter()
            .map(|m| if flip { flip_move_rows(&m) } else { m })
            .collect();
        let text = if self.client == Client::Pydraughts && self.variant == Variant::English {
            turn_english_board(&text)
        } else {
            text
        };
        self.engine
            .set_position(self.variant, &text, &moves)
            .map_err(|e| format!("pos: {e} (the previous position is kept)"))?;
        // Limits do not carry over from one search to the next (Scan resets them here);
        // a refused `pos` changes nothing, the limits included.
        self.limits = Limits::default();
        self.position = (text, moves);
        // The draw rules are the referee's (a client whose rules lack this one asks for a
        // move here, and gets one), but a game its history has ended is said to be over.
        if let Some(reason) = self.engine.drawn_by_history() {
            send(
                &self.out,
                &Reply::Info(InfoFields {
                    message: Some(history_draw_message(&reason)),
                    ..InfoFields::default()
                }),
            );
        }
        Ok(())
    }

    /// The limits were checked when the line was decoded.
    fn level(&mut self, limits: &[LevelLimit]) {
        for l in limits {
            match l {
                LevelLimit::Depth(d) => self.limits.depth = Some(*d),
                LevelLimit::Nodes(n) => self.limits.nodes = Some(*n),
                LevelLimit::MoveTime(t) => self.limits.move_time = Some(*t),
                LevelLimit::Time(t) => self.limits.time = Some(*t),
                LevelLimit::Inc(t) => self.limits.increment = *t,
                LevelLimit::Moves(m) => {
                    self.limits.moves_to_go = (*m > 0).then_some((*m).min(10_000) as u32)
                }
                LevelLimit::Infinite => self.limits.infinite = true,
                // draughtsnet's handicap levels: not modelled, accepted.
                LevelLimit::Handicap(_) => {}
            }
        }
    }

    /// `done` for a move given without a search (a forced move, a book move).
    fn played_at_once(&self, mv: String) {
        send(
            &self.out,
            &Reply::Done {
                mv: Some(mv),
                ponder: None,
            },
        );
    }

    fn go(&mut self, mode: GoMode) -> Result<(), String> {
        let no_move = Reply::Done {
            mv: None,
            ponder: None,
        };
        // Every `go` uses the limits up, one that has no move to give too.
        let mut limits = std::mem::take(&mut self.limits);
        if let Some(e) = self.unplayable("go") {
            // Every `go` gets its `done`: a client waiting for it must not hang.
            send_error(&self.out, &e);
            send(&self.out, &no_move);
            return Ok(());
        }
        if let Some(o) = self.engine.outcome() {
            send_error(
                &self.out,
                &format!("the game is over ({o}): no move to give"),
            );
            send(&self.out, &no_move);
            return Ok(());
        }
        match mode {
            // A move must come: with no limit set, in the default move time.
            GoMode::Think => limits = limits.or_default_move_time(),
            GoMode::Ponder => {
                limits = limits.or_default_move_time();
                limits.ponder = true
            }
            GoMode::Analyze => {
                if limits.is_unbounded() {
                    limits.infinite = true;
                }
            }
        }
        let flip = self.client.flips_move_rows(self.variant);
        let legal = self.engine.legal_moves();
        if legal.is_empty() {
            send_error(&self.out, "the game is over: no legal move");
            send(&self.out, &no_move);
            return Ok(());
        }
        if legal.len() == 1 && mode == GoMode::Think {
            // A forced move needs no thought.
            let mv = if flip {
                flip_move_rows(&legal[0])
            } else {
                legal[0].clone()
            };
            self.played_at_once(mv);
            return Ok(());
        }
        // A move to play (not pondering, not analysing) from the book, if the position
        // is in it: answered at once, with an info line that says so.
        if mode == GoMode::Think
            && let Some(pick) = self.settings.book.pick(&self.engine, self.position.1.len())
        {
            let mv = if flip {
                flip_move_rows(&pick.mv)
            } else {
                pick.mv
            };
            let info = Line {
                command: "info".into(),
                args: vec![
                    ("depth".into(), Some("0".into())),
                    (
                        "score".into(),
                        Some(format!("{:.2}", hub_score(pick.score))),
                    ),
                    ("nodes".into(), Some("0".into())),
                    ("time".into(), Some("0.000".into())),
                    ("pv".into(), Some(mv.clone())),
                    ("book".into(), Some("true".into())),
                ],
            };
            send(&self.out, &Reply::Other(info));
            self.played_at_once(mv);
            return Ok(());
        }
        self.searching.store(true, Ordering::Release);
        let out_info = Arc::clone(&self.out);
        let out_done = Arc::clone(&self.out);
        let searching = Arc::clone(&self.searching);
        // The engine answers in typed moves; they are written here, in the client's
        // numbering.
        let variant = self.variant;
        let text = move |mv: &AnyMove| {
            let hub = format_hub_any(variant, mv);
            if flip { flip_move_rows(&hub) } else { hub }
        };
        self.engine.go(
            limits,
            move |info: Info| {
                let pv = info.pv_moves.iter().map(text).collect();
                send(&out_info, &info_reply(&info, pv))
            },
            move |done: Done| {
                send(
                    &out_done,
                    &Reply::Done {
                        mv: done.best_move.as_ref().map(text),
                        ponder: done.ponder_move.as_ref().map(text),
                    },
                );
                searching.store(false, Ordering::Release);
            },
        );
        Ok(())
    }
}

/// The variants as the Hub names them: exactly the ones tammi plays.
fn hub_variants() -> Vec<&'static str> {
    ALL_VARIANTS.iter().map(|v| v.hub_name()).collect()
}

/// The type a `param` line announces for `p` (`variants`: the Hub names of the variants
/// played).
fn param_type(p: &Param, variants: &[&str]) -> ParamType {
    let words = |w: &[&str]| ParamType::Enum(w.iter().map(|v| v.to_string()).collect());
    match p.kind {
        Kind::Int { min, max } => ParamType::Int {
            min: min as i64,
            max: max as i64,
        },
        Kind::Bool => ParamType::Bool,
        Kind::Choice { words: w, .. } => words(w),
        Kind::Variant => words(variants),
        Kind::Text => ParamType::String,
    }
}

/// What `pos` says of a game its moves have drawn by the rules. No `=` in it: pydraughts
/// splits `info` fields at every `=`.
fn history_draw_message(reason: &DrawReason) -> String {
    let outcome = Outcome::Draw(*reason);
    format!(
        "the game is over by its moves ({outcome}); go still gives a move, the referee applies the draw rules"
    )
}

/// `info`, its principal variation `pv` written in the Hub form.
fn info_reply(info: &Info, pv: Vec<String>) -> Reply {
    Reply::Info(InfoFields {
        depth: Some(info.depth),
        seldepth: Some(info.seldepth),
        score: Some(hub_score(info.score)),
        nodes: Some(info.nodes),
        time: Some(info.time.as_secs_f64()),
        nps: Some(info.nps as f64 / 1e6),
        pv: Some(pv),
        message: None,
    })
}

/// The Hub's number for a score (written with two decimals): men; a game end `n` plies
/// away is `±(100 - n/100)`, above the 90 that clients read as "plies to the end"; a
/// database result `n` plies from the database is `±(90 - n/100)`, between the 80 and 90
/// that clients read as a database win (Scan's conventions for both).
pub fn hub_score(score: Score) -> f64 {
    let signed = |n: i32, base: i32| {
        let v = (base * 100 - n.abs().clamp(1, 999)) as f64 / 100.0;
        if n > 0 { v } else { -v }
    };
    match score {
        Score::Eval(c) => c as f64 / 100.0,
        Score::GameEnd(n) => {
            let v = (10_000 - n.abs().min(9_999)) as f64 / 100.0;
            if n > 0 { v } else { -v }
        }
        Score::Database(n) => signed(n, 90),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_flip_of_the_8x8_numbers() {
        assert_eq!(flip_rows_8x8(9), 21);
        assert_eq!(flip_rows_8x8(21), 9);
        assert_eq!(flip_rows_8x8(1), 29);
        assert_eq!(flip_rows_8x8(32), 4);
        for n in 1..=32 {
            assert_eq!(flip_rows_8x8(flip_rows_8x8(n)), n);
        }
        assert_eq!(flip_move_rows("9-13"), "21-17");
        assert_eq!(flip_move_rows("22x15x18"), "10x19x14");
        assert_eq!(flip_move_rows("10x28x14x23"), "22x8x11x18");
        assert_eq!(flip_move_rows("bogus"), "bogus");
    }

    #[test]
    fn pydraughts_english_board_turned() {
        // pydraughts' B:W18:B5 (Black to move) arrives as W, a black man on 15, a white one on 28.
        let mut text = vec!['e'; 33];
        text[0] = 'W';
        text[15] = 'b';
        text[28] = 'w';
        let text: String = text.into_iter().collect();
        let turned = turn_english_board(&text);
        let mut want = vec!['e'; 33];
        want[0] = 'B';
        want[18] = 'w';
        want[5] = 'b';
        assert_eq!(turned, want.into_iter().collect::<String>());
        assert_eq!(turn_english_board("W:W18:B5"), "W:W18:B5");
    }
}
