//! A PDN game as read: tags, start position, the main line with its annotations and
//! variations, and the result. Moves are kept as the text that was read; replaying them
//! against the legal moves of the variant's board (`main_line`, `check`) turns them into
//! [`Move`]s, so one `Game` type serves every board.

use std::fmt;

use super::lexer::Pos;
use crate::notation::{MoveTextError, parse_fen, parse_move};
use crate::rules::{Board, Move, Variant};

/// A tag pair, `[Name "value"]`, in the order read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub value: String,
    pub pos: Pos,
}

/// One move of a line, with what was written around it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnMove {
    /// The move as read (`32-28`, `c3:e5`, `26x17x10x1`).
    pub text: String,
    pub pos: Pos,
    /// `!`, `?!`, `(!?)`, … as written.
    pub strength: Option<String>,
    /// Numeric annotation glyphs (`$12` is 12).
    pub nags: Vec<u32>,
    /// Comments after the move.
    pub comments: Vec<String>,
    /// Alternatives to this move: each starts from the position before it.
    pub variations: Vec<Line>,
    /// A `/FEN/` setup written just before the move: the position it is played from.
    pub setup: Option<(String, Pos)>,
    /// When `text` fits more than one legal move (old files write a capture by its start
    /// and end only) and the moves after it fit only one of them: that one, in Hub form
    /// (`from`, `to`, the captured squares), set by the reader.
    pub decided: Option<String>,
}

/// A sequence of moves: the main line or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// Comments before the first move.
    pub comments: Vec<String>,
    pub moves: Vec<PdnMove>,
}

impl Line {
    /// Moves in this line and, recursively, in its variations.
    pub fn move_count(&self) -> usize {
        self.moves
            .iter()
            .map(|m| 1 + m.variations.iter().map(Line::move_count).sum::<usize>())
            .sum()
    }
}

/// Moves replayed: each with the position it is played from.
pub type Replayed<P> = Vec<(P, Move<<P as Board>::B>)>;

/// A game from a PDN file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// 1-based position in the file.
    pub number: usize,
    /// Where the game's first token is.
    pub pos: Pos,
    pub tags: Vec<Tag>,
    /// From the GameType tag, `--variant`, or inferred from the file (see the module docs).
    pub variant: Variant,
    /// The FEN tag's text (`None`: the variant's start position).
    pub fen: Option<(String, Pos)>,
    pub main_line: Line,
    /// The termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`, `2-0`, …), if one was written.
    pub result: Option<String>,
    /// The number of the first move (`23.` in a game from a position); 1 if none was written.
    pub first_move_number: u32,
    /// What the reader read by its plain meaning rather than strictly (a capture decided by
    /// the moves after it, a man on its crowning row read as a king); `--strict` refuses
    /// games with any.
    pub warnings: Vec<Warning>,
}

/// Something read leniently: which game, where, and what was made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub game: usize,
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}, {}: {}", self.game, self.pos, self.message)
    }
}

/// A move (or a FEN) that does not fit the game: which game, which ply, where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveError {
    pub game: usize,
    /// 1-based ply counted from the game's start along the line the move is in; 0 for an
    /// error in the start position.
    pub ply: usize,
    pub pos: Pos,
    /// The move text (or FEN) at fault.
    pub text: String,
    pub message: String,
    /// The move is inside a variation, not in the main line.
    pub in_variation: bool,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.game)?;
        if self.ply > 0 {
            write!(f, ", ply {}", self.ply)?;
            if self.in_variation {
                f.write_str(" (in a variation)")?;
            }
        }
        write!(f, ", {}: {}", self.pos, self.message)
    }
}

impl std::error::Error for MoveError {}

impl Game {
    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.value.as_str())
    }

    /// Moves in the main line and the variations.
    pub fn move_count(&self) -> usize {
        self.main_line.move_count()
    }

    /// The start position: the FEN tag, or the variant's start.
    pub fn start_position<P: Board>(&self) -> Result<P, MoveError> {
        debug_assert_eq!(P::VARIANT, self.variant);
        match &self.fen {
            None => Ok(P::start()),
            Some((fen, pos)) => parse_fen(fen).map_err(|e| MoveError {
                game: self.number,
                ply: 0,
                pos: *pos,
                text: fen.clone(),
                message: format!("invalid FEN tag '{fen}': {e}"),
                in_variation: false,
            }),
        }
    }

    /// Replay the main line: each move with the position it is played from.
    pub fn main_line<P: Board>(&self) -> Result<Replayed<P>, MoveError> {
        let mut pos = self.start_position::<P>()?;
        let mut out = Vec::with_capacity(self.main_line.moves.len());
        for (i, m) in self.main_line.moves.iter().enumerate() {
            let step = resolve(&pos, m, self.number, i + 1, false)?;
            pos = step.before.play(&step.mv);
            out.push((step.before, step.mv));
        }
        Ok(out)
    }

    /// Replay everything, variations included, and report every move that does not fit.
    /// A line stops at its first bad move (what follows cannot be placed); other lines go on.
    pub fn check<P: Board>(&self) -> Vec<MoveError> {
        let mut errors = Vec::new();
        match self.start_position::<P>() {
            Ok(start) => check_line(&start, &self.main_line, self.number, 1, false, &mut errors),
            Err(e) => errors.push(e),
        }
        errors
    }
}

/// A move resolved against its position.
pub struct Step<P: Board> {
    /// The position the move is played from (after a `/FEN/` setup, if any).
    pub before: P,
    pub legal: Vec<Move<P::B>>,
    pub mv: Move<P::B>,
}

/// Match `m` against the legal moves after `pos` (or after its own setup): the way to walk
/// variations; `game` and `ply` only label the error.
pub fn resolve<P: Board>(
    pos: &P,
    m: &PdnMove,
    game: usize,
    ply: usize,
    in_variation: bool,
) -> Result<Step<P>, MoveError> {
    let err = |pos: Pos, text: &str, message: String| MoveError {
        game,
        ply,
        pos,
        text: text.to_string(),
        message,
        in_variation,
    };
    let before = match &m.setup {
        None => *pos,
        Some((fen, at)) => parse_fen::<P>(fen)
            .map_err(|e| err(*at, fen, format!("invalid setup '/{fen}/': {e}")))?,
    };
    let mut legal = Vec::new();
    before.generate(&mut legal);
    // A move the reader decided by what follows is parsed in that form; errors still
    // quote the text as written.
    let text = m.decided.as_deref().unwrap_or(&m.text);
    let mv = parse_move(&before, text, &legal).map_err(|e| {
        let side = before.side().name();
        let e = match e {
            MoveTextError::Ambiguous { .. } => {
                format!("{e} (the moves after it do not tell which)")
            }
            e => e.to_string(),
        };
        err(m.pos, &m.text, format!("{e}, {side} to move"))
    })?;
    Ok(Step { before, legal, mv })
}

fn check_line<P: Board>(
    start: &P,
    line: &Line,
    game: usize,
    first_ply: usize,
    in_variation: bool,
    errors: &mut Vec<MoveError>,
) {
    let mut pos = *start;
    for (i, m) in line.moves.iter().enumerate() {
        let ply = first_ply + i;
        let step = resolve(&pos, m, game, ply, in_variation);
        // Errors in text order: the move, then its variations. The variations replace
        // this move, so they start where it would be played (after its setup if it has
        // one, else from the line's position).
        let var_start = match &step {
            Ok(s) => Some(s.before),
            Err(e) => {
                errors.push(e.clone());
                m.setup.is_none().then_some(pos)
            }
        };
        if let Some(vs) = var_start {
            for v in &m.variations {
                check_line(&vs, v, game, ply, true, errors);
            }
        }
        match step {
            Ok(s) => pos = s.before.play(&s.mv),
            Err(_) => return,
        }
    }
}
