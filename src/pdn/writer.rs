//! Games to PDN, strictly: the seven standard tags first (filled in when missing), then
//! GameType (always), Variant (killer, breakthrough, losing, frysk) and FEN (when not the start, and always for frysk),
//! then the other tags in the order read; move numbers recomputed; moves rewritten from
//! the replayed [`Move`]s in the variant's notation, with the full route only where PDN
//! requires it (two captures sharing start and end); comments, NAGs, strengths and variations kept; lines wrapped.
//!
//! [`Move`]: crate::rules::Move

use super::game::{Game, Line, MoveError, resolve};
use crate::notation::{format_move, format_route, write_fen};
use crate::rules::{Board, Notation, Variant};
use crate::with_board;

/// How to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Square notation; `None`: the variant's own (numeric, or letter–number for russian,
    /// brazilian and turkish).
    pub notation: Option<Notation>,
    /// Write every capture with all its landing squares, not only the ambiguous ones.
    pub full_routes: bool,
    /// Start each move pair of the main line on a new line (`1. c3-d4 d6-c5`).
    pub pair_per_line: bool,
    /// Wrap move text before this column.
    pub width: usize,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            notation: None,
            full_routes: false,
            pair_per_line: false,
            width: 80,
        }
    }
}

impl WriteOptions {
    /// The letter–number listing: one move pair per line, captures with `:` and every
    /// landing square.
    pub fn letter_listing() -> Self {
        WriteOptions {
            notation: Some(Notation::Letter),
            full_routes: true,
            pair_per_line: true,
            width: 80,
        }
    }
}

/// The seven tags every PDN game carries, in order, with the value written when missing.
const STANDARD_TAGS: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Write several games, separated by blank lines.
pub fn write_games(games: &[Game], opts: &WriteOptions) -> Result<String, MoveError> {
    let mut out = String::new();
    for (i, g) in games.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&write_game(g, opts)?);
    }
    Ok(out)
}

/// Write one game (tags, blank line, move text, newline). Fails on a move that does not
/// replay: a game is only written from legal moves.
pub fn write_game(game: &Game, opts: &WriteOptions) -> Result<String, MoveError> {
    with_board!(game.variant, P => write_with::<P>(game, opts))
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A chunk of move text; `glue` chunks attach to the previous one with no space.
struct Piece {
    text: String,
    glue: bool,
    /// Start a new line here (move pairs in the listing form).
    break_before: bool,
}

struct Writer<'a> {
    game: &'a Game,
    opts: &'a WriteOptions,
    notation: Notation,
    pieces: Vec<Piece>,
    /// 0 when the game's first move is the variant's first mover's, else 1: turns plies
    /// into move numbers.
    offset: usize,
}

impl Writer<'_> {
    fn push(&mut self, text: String) {
        self.pieces.push(Piece {
            text,
            glue: false,
            break_before: false,
        });
    }

    fn glue(&mut self, text: &str) {
        self.pieces.push(Piece {
            text: text.to_string(),
            glue: true,
            break_before: false,
        });
    }

    fn comment(&mut self, text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.is_empty() {
            self.push("{}".into());
            return;
        }
        // Whitespace inside a comment carries no meaning, so long comments wrap too.
        let last = words.len() - 1;
        for (i, w) in words.iter().enumerate() {
            let open = if i == 0 { "{" } else { "" };
            let close = if i == last { "}" } else { "" };
            self.push(format!("{open}{w}{close}"));
        }
    }

    fn line<P: Board>(
        &mut self,
        start: &P,
        line: &Line,
        first_ply: usize,
        depth: usize,
    ) -> Result<(), MoveError> {
        for c in &line.comments {
            self.comment(c);
        }
        let mut pos = *start;
        let mut need_number = true;
        for (i, m) in line.moves.iter().enumerate() {
            let ply = first_ply + i;
            let step = resolve(&pos, m, self.game.number, ply, depth > 0)?;
            if m.setup.is_some() {
                self.push(format!("/{}/", write_fen(&step.before, Notation::Numeric)));
                need_number = true;
            }
            let text = if self.opts.full_routes {
                format_route(&step.before, &step.mv, self.notation)
            } else {
                format_move(&step.before, &step.mv, &step.legal, self.notation)
            };
            let number = self.game.first_move_number as usize + (ply - 1 + self.offset) / 2;
            let first_mover = step.before.side() == P::VARIANT.first_to_move();
            let mut piece = match (first_mover, need_number) {
                (true, _) => format!("{number}. {text}"),
                (false, true) => format!("{number}... {text}"),
                (false, false) => text,
            };
            if let Some(s) = &m.strength {
                piece.push_str(s);
            }
            self.pieces.push(Piece {
                text: piece,
                glue: false,
                break_before: self.opts.pair_per_line
                    && depth == 0
                    && (first_mover || i == 0)
                    && !self.pieces.is_empty(),
            });
            need_number = false;
            for n in &m.nags {
                self.push(format!("${n}"));
            }
            for c in &m.comments {
                self.comment(c);
                need_number = true;
            }
            for v in &m.variations {
                self.push("(".into());
                let before_variation = self.pieces.len();
                self.line(&step.before, v, ply, depth + 1)?;
                if let Some(p) = self.pieces.get_mut(before_variation) {
                    p.glue = true;
                }
                self.glue(")");
                need_number = true;
            }
            pos = step.before.play(&step.mv);
        }
        Ok(())
    }

    /// Join the pieces into lines of at most `width` columns (a longer piece gets its own).
    fn wrap(&self, result: &str) -> String {
        let mut words: Vec<(String, bool)> = Vec::new();
        for p in &self.pieces {
            match words.last_mut() {
                Some(last) if p.glue => last.0.push_str(&p.text),
                _ => words.push((p.text.clone(), p.break_before)),
            }
        }
        words.push((result.to_string(), self.opts.pair_per_line));
        let mut out = String::new();
        let mut col = 0;
        for (w, brk) in words {
            let len = w.chars().count();
            if col > 0 && (brk || col + 1 + len > self.opts.width) {
                out.push('\n');
                col = 0;
            }
            if col > 0 {
                out.push(' ');
                col += 1;
            }
            out.push_str(&w);
            col += len;
        }
        out.push('\n');
        out
    }
}

fn write_with<P: Board>(game: &Game, opts: &WriteOptions) -> Result<String, MoveError> {
    let start = game.start_position::<P>()?;
    let result = game
        .result
        .as_deref()
        .or(game.tag("Result"))
        .unwrap_or("*")
        .to_string();
    let mut out = String::new();
    for (name, default) in STANDARD_TAGS {
        let value = match name {
            "Result" => result.as_str(),
            _ => game.tag(name).unwrap_or(default),
        };
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    }
    // Always the GameType, even 20 (PDN's default): without it a reader guesses the board
    // from the squares, and the letter squares of a 10x10 game that stays within a1-h8
    // read as an 8x8 game. The variants sharing GameType 20 name themselves in a Variant
    // tag, as lidraughts does.
    out.push_str(&format!("[GameType \"{}\"]\n", P::VARIANT.pdn_game_type()));
    let variant_tag = P::VARIANT.facts().pdn_variant_tag;
    if variant_tag {
        out.push_str(&format!("[Variant \"{}\"]\n", P::VARIANT.name()));
    }
    // frysk! shares frisian's GameType 40 but not its start: readers that know only the
    // GameType (pydraughts) need the FEN to set its five men each up.
    if start != P::start() || P::VARIANT == Variant::Frysk {
        out.push_str(&format!(
            "[FEN \"{}\"]\n",
            write_fen(&start, Notation::Numeric)
        ));
    }
    for t in &game.tags {
        let written = STANDARD_TAGS.iter().any(|(n, _)| *n == t.name)
            || t.name == "GameType"
            || t.name == "FEN"
            || (variant_tag && t.name == "Variant");
        if !written {
            out.push_str(&format!("[{} \"{}\"]\n", t.name, escape(&t.value)));
        }
    }
    out.push('\n');
    let mut w = Writer {
        game,
        opts,
        notation: opts.notation.unwrap_or(P::VARIANT.default_notation()),
        pieces: Vec::new(),
        offset: usize::from(start.side() != P::VARIANT.first_to_move()),
    };
    w.line(&start, &game.main_line, 1, 0)?;
    out.push_str(&w.wrap(&result));
    Ok(out)
}
