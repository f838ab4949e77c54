//! Plain `tammi`: a text mode for a person at a terminal. A board diagram, the legal moves,
//! moves typed in either notation, the engine playing or analysing, undo, new games in any
//! variant, FEN in and out, and the game's move list in move pairs.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::time::Duration;

use crossbeam_channel::{Receiver, select};

use tammi::hub::input::{InputEvent, spawn_reader};
use tammi::notation::{
    echo, format_hub_move, format_move, format_route, parse_move, parse_position, square_name,
    write_fen,
};
use tammi::rules::{ALL_VARIANTS, Bits, Board, Color, Move, Notation, Variant};
use tammi::search::engine::{Done, Engine, Info};
use tammi::search::limits::Limits;
use tammi::settings::{self, Applied, Applies, PARAMS, Param, Settings, Value};
use tammi::with_board;

/// `words` separated by spaces, in lines of at most 58 characters, the lines after the
/// first indented to the help's second column.
fn wrapped<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    let mut width = 0;
    for word in words {
        if width + word.len() + 1 > 58 {
            text.push_str("\n                    ");
            width = 0;
        } else if width > 0 {
            text.push(' ');
            width += 1;
        }
        text.push_str(word);
        width += word.len();
    }
    text
}

/// The settings the text mode has: the table's, but for the Hub's own (how it talks to a
/// GUI).
fn text_settings() -> impl Iterator<Item = &'static Param> {
    PARAMS.iter().filter(|p| p.applies != Applies::Protocol)
}

/// The command list; the variants come from the variant table, the settings from the
/// table of parameters.
fn help() -> String {
    let variants = wrapped(ALL_VARIANTS.iter().map(|v| v.name()));
    let names = wrapped(text_settings().map(|p| p.name));
    format!(
        "\
commands:
  <move>            play a move: 32-28, 28x19, c3-d4, e3:c5, cd4 ...
  go                the engine plays a move (see level); stop or Enter makes it
                    play at once, quit ends tammi
  analyze           analyse until you press Enter (or type stop; quit ends tammi)
  moves             list the legal moves
  undo              take back the last move
  new [VARIANT]     a new game; VARIANT is one of
                    {variants}
  fen [FEN]         show the position as FEN, or set one
  level N | depth N | nodes N
                    engine limit: N seconds a move, or a depth, or nodes
                    (default: {} seconds a move)
  notation numeric|letter
  set NAME VALUE    change a setting (the Hub's parameters by the same names):
                    {names}
  settings          the settings with their values, ranges and meanings
  book on|off|FILE  play the opening from the built-in book (on, the default),
                    search every move (off), or play from a book file
                    (tammi book build)
  egdb FILE|DIR     use an endgame database (tammi egdb build), or a directory
                    of them (its file of the variant played); egdb off
  game              the move list in move pairs
  board             show the board
  help, quit
scores are from the view of the side to move: +0.15 men, \"win in 7 plies\" (a game
end), \"database win\" (the endgame database's result)",
        Limits::DEFAULT_MOVE_TIME.as_secs()
    )
}

/// The text mode's input: lines read on their own thread (so that `stop` and `quit`
/// are heard while the engine thinks), and the lines that came during a search and wait
/// for it to end.
struct Input {
    events: Receiver<InputEvent>,
    pending: VecDeque<InputEvent>,
}

impl Input {
    fn new<R: BufRead + Send + 'static>(input: R) -> Input {
        Input {
            events: spawn_reader(input, MAX_LINE),
            pending: VecDeque::new(),
        }
    }

    /// Listen while the engine thinks, until its result comes through `done`: `stop` (or
    /// Enter) ends the search, and in analysis any line does; `quit` or the end of the
    /// input ends tammi at once (the flag). Other lines wait for the search to end, and
    /// so does a `quit` that comes after them (piped input is handled in its order).
    /// Lines that were already waiting when the search began came after its command:
    /// they act on it first.
    fn listen(
        &mut self,
        engine: &Engine,
        analyse: bool,
        done: &Receiver<Done>,
    ) -> (Option<Done>, bool) {
        let mut early = std::mem::take(&mut self.pending);
        let mut quit = false;
        // Once the input has ended nothing more can come: only the result is awaited.
        let mut ended = false;
        loop {
            let event = match early.pop_front() {
                _ if quit => return (done.recv().ok(), true),
                Some(e) => e,
                None if ended => return (done.recv().ok(), false),
                None => select! {
                    recv(done) -> d => return (d.ok(), false),
                    recv(self.events) -> e => e.unwrap_or(InputEvent::Eof),
                },
            };
            let word = match &event {
                InputEvent::Line(l, _) => Some(l.trim().to_ascii_lowercase()),
                InputEvent::Eof => {
                    ended = true;
                    Some("quit".into())
                }
                InputEvent::TooLong(_) => None,
            };
            match word {
                Some(w) if is_quit(&w) && self.pending.is_empty() => {
                    quit = true;
                    engine.stop();
                }
                Some(w) if w.is_empty() || w == "stop" => engine.stop(),
                _ => {
                    if analyse {
                        engine.stop();
                    }
                    self.pending.push_back(event);
                }
            }
        }
    }

    /// The next line (waiting for it); `None` at the end of the input.
    fn next(&mut self, out: &mut dyn Write) -> std::io::Result<Option<String>> {
        loop {
            let event = match self.pending.pop_front() {
                Some(e) => e,
                None => self.events.recv().unwrap_or(InputEvent::Eof),
            };
            match event {
                InputEvent::Eof => return Ok(None),
                InputEvent::TooLong(max) => {
                    writeln!(out, "error: a line longer than {max} bytes was ignored")?
                }
                InputEvent::Line(text, replaced) => {
                    if replaced {
                        writeln!(
                            out,
                            "note: the line holds bytes that are not UTF-8; they are read as \u{fffd}"
                        )?;
                    }
                    return Ok(Some(text));
                }
            }
        }
    }
}

/// Longer lines are skipped (a FEN of the largest board is far below this).
const MAX_LINE: usize = 1 << 16;

fn is_quit(word: &str) -> bool {
    matches!(word, "quit" | "exit" | "q")
}

/// What ends one variant's session.
enum Next {
    Switch(Variant, Option<String>),
    Quit,
}

/// Run the text mode on `input` until `quit` or the end of the input.
pub fn run<R: BufRead + Send + 'static>(input: R, out: &mut dyn Write) -> anyhow::Result<i32> {
    let mut input = Input::new(input);
    let input = &mut input;
    let mut engine = Engine::default();
    let mut limits = Limits::move_time(Limits::DEFAULT_MOVE_TIME);
    let mut settings = Settings::default();
    let mut next = (Variant::International, None);
    writeln!(
        out,
        "tammi {} — type help for the commands",
        env!("CARGO_PKG_VERSION")
    )?;
    loop {
        let (variant, fen) = next;
        let step = with_board!(variant, P => session::<P>(input, out, &mut engine, &mut limits, &mut settings, fen)?);
        match step {
            Next::Switch(v, fen) => next = (v, fen),
            Next::Quit => return Ok(0),
        }
    }
}

/// The game on the board (the rules core's: history, draw rules, outcome) and the
/// notation it is shown in.
struct Game<P: Board> {
    game: tammi::rules::Game<P>,
    notation: Notation,
}

impl<P: Board> Game<P> {
    fn position(&self) -> P {
        *self.game.position()
    }
    fn legal(&self) -> Vec<tammi::rules::Move<P::B>> {
        self.game.legal_moves()
    }
    fn hub_moves(&self) -> Vec<String> {
        self.game.moves().iter().map(format_hub_move::<P>).collect()
    }
    /// Why no move can be played, if the game is over by the rules.
    fn over(&self) -> Option<String> {
        self.game
            .outcome()
            .map(|o| format!("the game is over ({o}): undo, new or fen to go on"))
    }
}

fn session<P: Board>(
    input: &mut Input,
    out: &mut dyn Write,
    engine: &mut Engine,
    limits: &mut Limits,
    settings: &mut Settings,
    fen: Option<String>,
) -> anyhow::Result<Next> {
    let start = match fen {
        Some(f) => match parse_position::<P>(&f) {
            Ok(p) => p,
            Err(e) => {
                writeln!(out, "error: {e}")?;
                P::start()
            }
        },
        None => P::start(),
    };
    let mut game = Game::<P> {
        game: tammi::rules::Game::new(start),
        notation: P::VARIANT.default_notation(),
    };
    writeln!(out, "{} draughts", P::VARIANT)?;
    show(out, &game)?;
    loop {
        write!(out, "> ")?;
        out.flush()?;
        let Some(line) = input.next(out)? else {
            return Ok(Next::Quit);
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = words.first() else {
            continue;
        };
        // Commands in any case (`HELP`, `Quit`); moves and FENs keep theirs.
        let lower = command.to_ascii_lowercase();
        let arg = words.get(1).copied();
        match lower.as_str() {
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "help" | "?" => writeln!(out, "{}", help())?,
            "board" | "d" => show(out, &game)?,
            "moves" => {
                let pos = game.position();
                let legal = game.legal();
                let names: Vec<String> = legal
                    .iter()
                    .map(|m| format_move(&pos, m, &legal, game.notation))
                    .collect();
                writeln!(out, "{} legal: {}", names.len(), names.join(" "))?;
            }
            "undo" => {
                if game.game.undo().is_none() {
                    writeln!(out, "nothing to undo")?;
                } else {
                    show(out, &game)?;
                }
            }
            "new" => {
                if words.len() > 2 {
                    writeln!(
                        out,
                        "error: new takes at most one variant name, got '{}'",
                        echo(line.trim())
                    )?;
                    continue;
                }
                let v = match arg {
                    Some(name) => match name.parse::<Variant>() {
                        Ok(v) => v,
                        Err(e) => {
                            writeln!(out, "error: {e}")?;
                            continue;
                        }
                    },
                    None => P::VARIANT,
                };
                return new_game(out, engine, settings, P::VARIANT, v);
            }
            "set" => {
                let rest = line.trim()[3..].trim();
                let (name, value) = rest
                    .split_once(char::is_whitespace)
                    .map_or((rest, ""), |(n, v)| (n, v.trim()));
                if name.is_empty() {
                    writeln!(
                        out,
                        "error: set takes a setting and its value, such as set threads 2 \
                         (settings lists them)"
                    )?;
                    continue;
                }
                if let Some(v) = set(out, engine, settings, P::VARIANT, name, value)? {
                    return new_game(out, engine, settings, P::VARIANT, v);
                }
            }
            "settings" => {
                writeln!(out, "settings (set NAME VALUE changes one):")?;
                for p in text_settings() {
                    let value = match p.applies {
                        Applies::Game => P::VARIANT.name().to_string(),
                        _ => settings
                            .value(engine, P::VARIANT, p.name)
                            .unwrap_or_default(),
                    };
                    let shown = format!("{}={value}", p.name);
                    writeln!(out, "  {shown:<24} {}: {}", p.range(), p.help)?;
                }
            }
            "fen" => match arg {
                None => writeln!(out, "{}", write_fen(&game.position(), game.notation))?,
                Some(_) => {
                    let text = line.trim()[3..].trim();
                    match parse_position::<P>(text) {
                        Ok(p) => {
                            game.game = tammi::rules::Game::new(p);
                            show(out, &game)?;
                        }
                        Err(e) => writeln!(out, "error: {e}")?,
                    }
                }
            },
            "notation" => match arg.map(str::parse::<Notation>) {
                Some(Ok(n)) => game.notation = n,
                Some(Err(e)) => writeln!(out, "error: {e}")?,
                None => writeln!(out, "notation is {:?}", game.notation)?,
            },
            "level" | "depth" | "nodes" => match level(&lower, arg) {
                Ok(l) => {
                    *limits = l;
                    writeln!(out, "ok")?;
                }
                Err(e) => writeln!(out, "error: {e}; the limit stays {}", describe(limits))?,
            },
            "game" | "history" => writeln!(out, "{}", move_pairs(&game))?,
            // The book's and the database's words of old: the settings by other names.
            "book" => {
                let what = line.trim()[4..].trim();
                let book = &settings.book;
                match what {
                    "" => writeln!(
                        out,
                        "book {}{}",
                        if book.enabled { "on" } else { "off" },
                        book.file
                            .as_ref()
                            .map_or(String::new(), |(p, _)| format!(", file {}", echo(p)))
                    )?,
                    "on" => match apply(
                        engine,
                        settings,
                        P::VARIANT,
                        &[("book-file", ""), ("book", "true")],
                    ) {
                        Ok(()) => writeln!(out, "book on (built-in)")?,
                        Err(e) => writeln!(out, "error: {e}")?,
                    },
                    "off" => match apply(engine, settings, P::VARIANT, &[("book", "false")]) {
                        Ok(()) => writeln!(out, "book off: every move is searched")?,
                        Err(e) => writeln!(out, "error: {e}")?,
                    },
                    path => match apply(
                        engine,
                        settings,
                        P::VARIANT,
                        &[("book-file", path), ("book", "true")],
                    ) {
                        Ok(()) => writeln!(out, "book {}", echo(path))?,
                        Err(e) => writeln!(out, "error: {e}")?,
                    },
                }
            }
            "egdb" => {
                let path = line.trim()[4..].trim();
                let path = if path == "off" { "" } else { path };
                match apply(engine, settings, P::VARIANT, &[("egdb", path)]) {
                    Ok(()) if path.is_empty() => writeln!(out, "no endgame database")?,
                    Ok(()) => writeln!(out, "endgame database {}", echo(path))?,
                    Err(e) => writeln!(out, "error: {e}")?,
                }
            }
            "go" | "analyze" | "analyse" => {
                if let Some(why) = game.over() {
                    writeln!(out, "{why}")?;
                    continue;
                }
                let analyse = lower != "go";
                if let Err(e) = engine.set_position(
                    P::VARIANT,
                    &write_fen(game.game.start(), Notation::Numeric),
                    &game.hub_moves(),
                ) {
                    writeln!(out, "error: {e}")?;
                    continue;
                }
                if !analyse && let Some(pick) = settings.book.pick(engine, game.game.ply()) {
                    let pos = game.position();
                    let legal = game.legal();
                    match Move::among(&pick.chosen, &legal) {
                        Some(mv) => {
                            writeln!(
                                out,
                                "tammi plays {} (book, {}, chosen from {} of {} book moves)",
                                format_route(&pos, &mv, game.notation),
                                pick.score,
                                pick.choices,
                                pick.book_moves
                            )?;
                            play(out, &mut game, &mv)?;
                        }
                        None => writeln!(out, "error: book move {} is not legal here", pick.mv)?,
                    }
                    continue;
                }
                let side = if game.position().side() == Color::White {
                    "White"
                } else {
                    "Black"
                };
                writeln!(out, "scores from {side}'s view (the side to move)")?;
                out.flush()?;
                let (tx, rx) = crossbeam_channel::bounded(1);
                let l = if analyse {
                    Limits::infinite()
                } else {
                    limits.clone()
                };
                engine.go(
                    l,
                    |i: Info| {
                        println!(
                            "depth {:>2}  score {:>10}  nodes {:>11}  {:>6.2}s  {}",
                            i.depth,
                            i.score.to_string(),
                            i.nodes,
                            i.time.as_secs_f64(),
                            i.pv.join(" ")
                        );
                    },
                    move |d| {
                        let _ = tx.send(d);
                    },
                );
                let (done, quit) = input.listen(engine, analyse, &rx);
                let done =
                    done.ok_or_else(|| anyhow::anyhow!("the search ended without a result"))?;
                engine.wait();
                if quit {
                    if let Some(best) = &done.best_text {
                        writeln!(out, "best {best}")?;
                    }
                    return Ok(Next::Quit);
                }
                if let (false, Some(best)) = (analyse, done.best_move) {
                    let pos = game.position();
                    match done.best_among(&game.legal()) {
                        Some(mv) => {
                            writeln!(
                                out,
                                "tammi plays {}",
                                format_route(&pos, &mv, game.notation)
                            )?;
                            play(out, &mut game, &mv)?;
                        }
                        None => writeln!(out, "error: the engine's move {best:?} is not legal")?,
                    }
                } else if let Some(best) = &done.best_text {
                    writeln!(out, "best {best}")?;
                }
            }
            // Nothing is running between searches.
            "stop" => {}
            _ => {
                let pos = game.position();
                let legal = game.legal();
                if let Some(why) = game.over() {
                    writeln!(out, "{why}")?;
                    continue;
                }
                let text = line.trim();
                // A word with no digit is no move in any notation: a mistyped command.
                if !text.chars().any(|c| c.is_ascii_digit()) {
                    writeln!(
                        out,
                        "unknown command '{}': expected a command (type help for the list) or \
                         a move such as 32-28 or c3-d4",
                        echo(command)
                    )?;
                    continue;
                }
                match parse_move(&pos, text, &legal) {
                    Ok(mv) => play(out, &mut game, &mv)?,
                    Err(e) => writeln!(out, "{e} — type help for the commands")?,
                }
            }
        }
    }
}

/// Apply `values` (settings by name) in order, an engine option waited for; stops at the
/// first error, which says what is wrong.
fn apply(
    engine: &mut Engine,
    settings: &mut Settings,
    variant: Variant,
    values: &[(&str, &str)],
) -> Result<(), String> {
    for (name, value) in values {
        if let Applied::Options(o) = settings.apply(engine, variant, name, value)? {
            engine.set_options(o)?;
        }
    }
    Ok(())
}

/// `set NAME VALUE`: the setting checked against the table and applied, or an error that
/// says what is wrong and what stays. A new variant is returned for a new game.
fn set(
    out: &mut dyn Write,
    engine: &mut Engine,
    settings: &mut Settings,
    variant: Variant,
    name: &str,
    value: &str,
) -> std::io::Result<Option<Variant>> {
    let p = match settings::find(name) {
        Ok(p) => p,
        Err(e) => {
            writeln!(out, "error: {e}")?;
            return Ok(None);
        }
    };
    match p.applies {
        Applies::Protocol => writeln!(
            out,
            "error: {} is a Hub parameter (how tammi talks to a GUI); the text mode has none",
            p.name
        )?,
        Applies::Game => match p.parse(value) {
            Ok(Value::Variant(v)) => return Ok(Some(v)),
            Ok(other) => writeln!(out, "error: {other:?} is not a variant")?,
            Err(e) => writeln!(out, "error: {e}; the variant stays {variant}")?,
        },
        _ => match apply(engine, settings, variant, &[(p.name, value)]) {
            Ok(()) => writeln!(
                out,
                "{}={}",
                p.name,
                settings.value(engine, variant, p.name).unwrap_or_default()
            )?,
            Err(e) => writeln!(
                out,
                "error: {e}; {} stays '{}'",
                p.name,
                settings.value(engine, variant, p.name).unwrap_or_default()
            )?,
        },
    }
    Ok(None)
}

/// A new game of `new` after one of `old`: the engine forgets the old one, and files
/// named for the old variant's evaluation and book give way to the new one's built-in
/// ones.
fn new_game(
    out: &mut dyn Write,
    engine: &mut Engine,
    settings: &mut Settings,
    old: Variant,
    new: Variant,
) -> anyhow::Result<Next> {
    engine.new_game();
    if let Err(e) = settings.variant_changed(engine, old, new) {
        writeln!(out, "error: {e}")?;
    }
    Ok(Next::Switch(new, None))
}

/// Play `mv` (one of the legal moves) and show the board, or say why it cannot be played.
fn play<P: Board>(
    out: &mut dyn Write,
    game: &mut Game<P>,
    mv: &tammi::rules::Move<P::B>,
) -> std::io::Result<()> {
    match game.game.play(mv) {
        Ok(()) => show(out, game),
        Err(e) => writeln!(out, "error: {e}"),
    }
}

/// The limit in force, as the text mode's commands set it.
fn describe(limits: &Limits) -> String {
    match (limits.depth, limits.nodes, limits.move_time) {
        (Some(d), _, _) => format!("depth {d}"),
        (_, Some(n), _) => format!("{n} nodes"),
        (_, _, Some(t)) => format!("{} seconds a move", t.as_secs_f64()),
        _ => limits.to_string(),
    }
}

fn level(command: &str, arg: Option<&str>) -> Result<Limits, String> {
    let v = arg.ok_or_else(|| format!("{command} needs a number"))?;
    match command {
        "depth" => match v.parse::<u32>() {
            Ok(d) if (1..=100).contains(&d) => Ok(Limits::depth(d)),
            _ => Err(format!(
                "depth must be a whole number from 1 to 100, got '{v}'"
            )),
        },
        "nodes" => match v.parse::<u64>() {
            Ok(n) if n > 0 => Ok(Limits::nodes(n)),
            _ => Err(format!("nodes must be a positive whole number, got '{v}'")),
        },
        _ => match v.parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 && s < 1e6 => {
                Ok(Limits::move_time(Duration::from_secs_f64(s)))
            }
            _ => Err(format!("level takes seconds per move, got '{v}'")),
        },
    }
}

/// The move list in pairs, `1. c3-d4 d6-c5`, captures with every landing square.
fn move_pairs<P: Board>(game: &Game<P>) -> String {
    if game.game.moves().is_empty() {
        return "no moves yet".into();
    }
    let first = P::VARIANT.first_to_move();
    let mut pos = *game.game.start();
    let mut text = String::new();
    let mut number = 1;
    if pos.side() != first {
        text.push_str("1. ...");
    }
    for mv in game.game.moves() {
        let name = format_route(&pos, mv, game.notation);
        if pos.side() == first {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("{number}. {name}"));
        } else {
            text.push_str(&format!(" {name}"));
            number += 1;
        }
        pos = pos.play(mv);
    }
    text
}

/// The board seen from White, with file letters and rank numbers; on diagonal boards the
/// light squares stay blank and the square numbers of the left column are given.
fn diagram<P: Board>(pos: &P, notation: Notation) -> String {
    let width = P::VARIANT.width();
    let k = pos.kings();
    let mut s = String::new();
    for rank in (1..=width).rev() {
        s.push_str(&format!("{rank:>3} "));
        let mut first_square = None;
        for file in 0..width {
            let c = match P::bit_at(file, rank) {
                None => ' ',
                Some(b) => {
                    first_square.get_or_insert(b);
                    if pos.white().has(b) {
                        if k.has(b) { 'W' } else { 'w' }
                    } else if pos.black().has(b) {
                        if k.has(b) { 'B' } else { 'b' }
                    } else {
                        '.'
                    }
                }
            };
            s.push(' ');
            s.push(c);
        }
        if let (Notation::Numeric, Some(b)) = (notation, first_square) {
            s.push_str(&format!("   {}", square_name::<P>(b, Notation::Numeric)));
        }
        s.push('\n');
    }
    s.push_str("    ");
    for file in 0..width {
        s.push(' ');
        s.push((b'a' + file as u8) as char);
    }
    s
}

fn show<P: Board>(out: &mut dyn Write, game: &Game<P>) -> std::io::Result<()> {
    let pos = game.position();
    writeln!(out, "{}", diagram(&pos, game.notation))?;
    let legal = game.legal();
    match game.game.outcome() {
        Some(o) => writeln!(out, "game over: {o}"),
        None => {
            let side = if pos.side() == Color::White {
                "White"
            } else {
                "Black"
            };
            let names: Vec<String> = legal
                .iter()
                .map(|m| format_move(&pos, m, &legal, game.notation))
                .collect();
            writeln!(out, "{side} to move: {}", names.join(" "))
        }
    }
}
