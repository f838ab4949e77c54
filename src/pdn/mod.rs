//! PDN (Portable Draughts Notation) games: reading, checking and writing.
//!
//! - [`lexer`]: text to tokens (tags, comments, variations, moves, …) with line and column.
//! - [`reader`]: tokens to [`Game`]s, and each game's variant.
//! - [`game`]: the game model; replaying its moves against the rules.
//! - [`writer`]: games back to strict PDN, in either notation.
//!
//! **Reading is lenient**: `1- 6`, `05-10`, `28:19`, `3228`, `12.32-28`, UTF-8 or Latin-1,
//! CRLF, a byte-order mark, `%` and `;` line comments, strengths such as `(!?)`, results
//! `2-0`/`0-2`/`1-1`/`0-0`. Games end at a result or at the next game's tags. What cannot be
//! read (a nested or unclosed comment, an unclosed variation or tag, stray text outside a
//! comment) is a [`PdnError`] naming the game, line and column; a move that is not legal
//! where it stands is a [`MoveError`] from [`Game::check`], naming the game, ply, line and
//! column.
//!
//! **What old files mean plainly** is read with a [`Warning`] on the game (see [`settle`]):
//! a capture written by its start and end only where two routes lead there, decided by the
//! moves after it (one the rest does not decide stays an ambiguous-move error), and a man
//! on its crowning row in a setup, read as a king. `--strict` on the command line refuses
//! such games.
//!
//! **The variant of a game** is its GameType tag (20 international, 21 english, 25 russian,
//! 26 brazilian, 27 canadian, 30 or 43 turkish; the long form `20,W,10,10,N2,0` too; other
//! types are an error), refined by a Variant tag naming one of tammi's variants (killer,
//! breakthrough, losing or antidraughts share GameType 20; tammi writes that tag, and
//! GameType always, so that it reads back what it writes). `--variant` gives the variant
//! of games without the tag, and refines GameType 20 into killer, breakthrough or losing
//! (a Variant tag in the file comes first). Without either, the variant is inferred
//! from all untagged games of the file together: letter–number squares within a–h and 1–8
//! mean russian (brazilian if only that replays), within a–j/1–10 international, else
//! canadian; square numbers up to 32 mean english (international if the games replay
//! further that way, as fragments opening `32-28` do), up to 50 international, else
//! canadian. Turkish is never guessed.

pub mod game;
pub mod lexer;
pub mod reader;
pub mod settle;
pub mod writer;

use std::path::Path;

use anyhow::{Context, Result, bail};

pub use game::{Game, Line, MoveError, PdnMove, Replayed, Step, Tag, Warning, resolve};
pub use lexer::Pos;
pub use reader::{PdnError, ReadOptions, read_pdn, variant_of_game_type};
pub use writer::{WriteOptions, write_game, write_games};

use crate::notation::{format_move, write_fen};
use crate::rules::{Board, Notation, Variant};
use crate::with_board;

/// File bytes to text: UTF-8 when valid (a byte-order mark dropped), else Latin-1, which
/// older PDN files use and which maps every byte to a character.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Read every game of a PDN file; errors name the file, game, line and column.
pub fn read_file(path: &Path, opts: &ReadOptions) -> Result<Vec<Game>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    read_pdn(&decode(&bytes), opts).with_context(|| format!("{} is not valid PDN", path.display()))
}

/// A position reached in a game, with what an engine needs to continue from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamePosition {
    pub variant: Variant,
    /// The game's start position (PDN FEN, numeric squares).
    pub start_fen: String,
    /// The position after `ply` plies of the main line.
    pub fen: String,
    /// The main-line moves from `start_fen` to `fen`, in the variant's notation (each reads
    /// back with `notation::parse_move`).
    pub moves: Vec<String>,
    /// The ply reached (the game's length when none was asked for).
    pub ply: usize,
}

/// The position after `ply` plies (default: all) of the main line of game `game` (1-based)
/// of a PDN file: for `tammi pdn fen` and `tammi analyze --pdn`.
pub fn position_at(
    path: &Path,
    game: usize,
    ply: Option<usize>,
    opts: &ReadOptions,
) -> Result<GamePosition> {
    let games = read_file(path, opts)?;
    game_position(nth_game(&games, game, path)?, ply).with_context(|| path.display().to_string())
}

/// Game `game` (1-based) of those read from `path`, or an error saying how many there are.
pub fn nth_game<'a>(games: &'a [Game], game: usize, path: &Path) -> Result<&'a Game> {
    if game == 0 || game > games.len() {
        bail!(
            "{} has {} game{}; there is no game {game}",
            path.display(),
            games.len(),
            if games.len() == 1 { "" } else { "s" }
        );
    }
    Ok(&games[game - 1])
}

/// [`position_at`] for a game already read.
pub fn game_position(game: &Game, ply: Option<usize>) -> Result<GamePosition> {
    with_board!(game.variant, P => game_position_with::<P>(game, ply))
}

fn game_position_with<P: Board>(game: &Game, ply: Option<usize>) -> Result<GamePosition> {
    let length = game.main_line.moves.len();
    let ply = ply.unwrap_or(length);
    if ply > length {
        bail!(
            "game {} has {length} plies in its main line; there is no ply {ply}",
            game.number
        );
    }
    let mut start = game.start_position::<P>()?;
    let mut pos = start;
    let mut moves = Vec::with_capacity(ply);
    for (i, m) in game.main_line.moves.iter().take(ply).enumerate() {
        let step = game::resolve(&pos, m, game.number, i + 1, false)?;
        if m.setup.is_some() {
            // A setup mid-game starts the history afresh.
            start = step.before;
            moves.clear();
        }
        let notation = P::VARIANT.default_notation();
        moves.push(format_move(&step.before, &step.mv, &step.legal, notation));
        pos = step.before.play(&step.mv);
    }
    Ok(GamePosition {
        variant: game.variant,
        start_fen: write_fen(&start, Notation::Numeric),
        fen: write_fen(&pos, Notation::Numeric),
        moves,
        ply,
    })
}
