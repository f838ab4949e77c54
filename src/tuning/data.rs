//! The training data of the tuning pipeline: text files of one position a line,
//! `FEN RESULT [SCORE]`, written by `tune games` (the position as a PDN FEN and the
//! game's result from White's view) and `tune label` (a search score from White's view
//! added, in centi-men). `#` lines are comments; `# games N ...` is the footer of a
//! `tune games` file.
//!
//! The same data can be written in a binary format of a few bytes a position (`tune
//! games --format bin`), laid out and read in [`super::record`]; a file is told binary
//! by its first byte.
//!
//! One reader for every command that reads them: [`read_lines`] gives the lines as
//! written (`tune label`, text files only), [`read_positions`] the positions parsed from
//! either format, each placed in its game and marked for training or validation by the
//! one rule of [`Games`] (`tune fit`, `tune net-fit`), which looks only at the positions
//! and so splits a text file and a binary file of the same games alike.

use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use super::record;
use crate::notation::parse_position;
use crate::rules::{Bits, Board, Color};

/// The format `tune games` writes: text lines (`FEN RESULT`) or the binary records of
/// [`super::record`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DataFormat {
    #[default]
    Text,
    Bin,
}

impl std::str::FromStr for DataFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<DataFormat, String> {
        match s {
            "text" => Ok(DataFormat::Text),
            "bin" => Ok(DataFormat::Bin),
            _ => Err(format!("unknown format '{s}' (text or bin)")),
        }
    }
}

/// The largest search score a file holds, in centi-men: what `tune label` writes for a
/// game end or a database result. Far enough past any evaluation that the blended target
/// is a certain win, and small enough that the fit's sigmoid stays finite.
pub const DECIDED: i32 = 3000;

/// The labels of one position, as read from its line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Labels<'a> {
    /// The position (not parsed).
    pub fen: &'a str,
    /// The result as written (`1`, `0.5`, `1-0`, ...).
    pub result_text: &'a str,
    /// The result from White's view: 1, 0.5 or 0.
    pub result: f32,
    /// The search score from White's view (centi-men), if the line has one.
    pub score: Option<f32>,
}

/// One line of a data file (empty lines are skipped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Line<'a> {
    /// A `#` line, trimmed.
    Comment(&'a str),
    /// A position with its labels.
    Data(Labels<'a>),
}

/// `FEN RESULT [SCORE]`: the result is 1, 0.5 or 0 (also 1-0, 1/2-1/2, 0-1); the score
/// (written by 'tune label') an integer from White's view, at most [`DECIDED`] either way.
pub fn parse_line(text: &str) -> Result<Labels<'_>> {
    let mut parts = text.split_whitespace();
    let (Some(fen), Some(result_text), score, None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        bail!("expected 'FEN RESULT' or 'FEN RESULT SCORE', found '{text}'");
    };
    let score = match score {
        None => None,
        Some(s) => match s.parse::<i32>() {
            Ok(v) if v.abs() <= DECIDED => Some(v as f32),
            _ => bail!("score '{s}' is not an integer from -{DECIDED} to {DECIDED}"),
        },
    };
    let result = match result_text {
        "1" | "1.0" | "1-0" => 1.0,
        "0" | "0.0" | "0-1" => 0.0,
        "0.5" | "1/2-1/2" => 0.5,
        _ => bail!("result '{result_text}' is not 1, 0.5 or 0"),
    };
    Ok(Labels {
        fen,
        result_text,
        result,
        score,
    })
}

/// Where a line is, for error messages: `FILE: line N`.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    pub path: &'a Path,
    /// 1-based.
    pub line: usize,
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: line {}", self.path.display(), self.line)
    }
}

/// Every line of `files` in order, to `visit` with where it is. A line that is not
/// `FEN RESULT [SCORE]` is an error naming the file and line; an error of `visit`'s is
/// returned as it is.
pub fn read_lines(
    files: &[PathBuf],
    mut visit: impl FnMut(Line<'_>, At<'_>) -> Result<()>,
) -> Result<()> {
    for path in files {
        if record::is_binary(path)? {
            bail!(
                "{}: a binary data file; this command reads text files ('tune games --format text')",
                path.display()
            );
        }
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let at = At { path, line: n + 1 };
            let line = line.with_context(|| at.to_string())?;
            let text = line.trim();
            if text.starts_with('#') {
                visit(Line::Comment(text), at)?;
                continue;
            }
            if text.is_empty() {
                continue;
            }
            let labels = parse_line(text).with_context(|| at.to_string())?;
            visit(Line::Data(labels), at)?;
        }
    }
    Ok(())
}

/// The games of a data file, told apart without any marker: a game's positions are
/// consecutive and pieces only come off, so more pieces than on the position before
/// means a new game. Every 10th game (the 10th, 20th, ...) is kept apart whole for
/// validation: the positions of one game are alike, and a game on both sides of the
/// split would flatter the validation loss. The count runs on across files.
#[derive(Clone, Debug)]
pub struct Games {
    game: usize,
    last_pieces: u32,
}

impl Default for Games {
    fn default() -> Games {
        Games {
            game: 0,
            last_pieces: u32::MAX,
        }
    }
}

impl Games {
    /// Place the next position, with `pieces` pieces on the board; whether its game is
    /// one kept for validation.
    pub fn validation(&mut self, pieces: u32) -> bool {
        if pieces > self.last_pieces {
            self.game += 1;
        }
        self.last_pieces = pieces;
        self.game % 10 == 9
    }
}

/// One position of a data file, parsed.
#[derive(Clone, Debug)]
pub struct Labelled<P> {
    pub pos: P,
    /// The result from White's view: 1, 0.5 or 0.
    pub result: f32,
    /// The search score from White's view (centi-men), if the line has one.
    pub score: Option<f32>,
    /// Whether the position's game is kept for validation (see [`Games`]).
    pub validation: bool,
}

/// Every position of `files` in order, parsed as `P`, to `visit`; with `need_score`, a
/// position without a search score is an error. Text and binary files (see
/// [`super::record`]) may be mixed. Returns the games the files count (a text file's
/// footer, `# games N`; a binary file's end record).
pub fn read_positions<P: Board>(
    files: &[PathBuf],
    need_score: bool,
    mut visit: impl FnMut(Labelled<P>) -> Result<()>,
) -> Result<usize> {
    let mut games = Games::default();
    let mut footer_games = 0;
    let mut place = |pos: P, result: f32, score: Option<f32>| {
        let pieces = (pos.pieces(Color::White) | pos.pieces(Color::Black)).count();
        visit(Labelled {
            pos,
            result,
            score,
            validation: games.validation(pieces),
        })
    };
    for path in files {
        if record::is_binary(path)? {
            let mut reader = record::Reader::open(path)?;
            reader.expect_variant(P::VARIANT)?;
            if need_score && !reader.header().scores {
                bail!(
                    "{}: the positions have no search score (--lambda needs 'tune label' data)",
                    path.display()
                );
            }
            let len = record::packed_len(P::VARIANT);
            while let Some(game) = reader.next_game()? {
                for (i, packed) in game.packed.chunks(len).enumerate() {
                    let pos = record::unpack::<P>(packed).map_err(|e| {
                        anyhow!(
                            "{}: byte {}: game record {}: {e}",
                            path.display(),
                            reader.position_offset(&game, i),
                            reader.totals().games
                        )
                    })?;
                    let score = game.scores.get(i).map(|&s| f32::from(s));
                    place(pos, game.result, score)?;
                }
            }
            footer_games += reader.totals().games as usize;
            continue;
        }
        read_lines(std::slice::from_ref(path), |line, at| match line {
            Line::Comment(text) => {
                if let Some(Ok(t)) = super::record::Totals::parse_footer(text) {
                    footer_games += t.games as usize;
                }
                Ok(())
            }
            Line::Data(labels) => {
                if need_score && labels.score.is_none() {
                    bail!(
                        "{at}: the position has no search score (--lambda needs 'tune label' data)"
                    );
                }
                let fen = labels.fen;
                let pos: P = parse_position(fen)
                    .map_err(|e| anyhow!("invalid {} position '{fen}': {e}", P::VARIANT))
                    .with_context(|| at.to_string())?;
                place(pos, labels.result, labels.score)
            }
        })?;
    }
    Ok(footer_games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tenth_game_is_kept_for_validation() {
        let mut games = Games::default();
        // Twenty games of three positions each: pieces come off within a game and go
        // back up where the next one starts.
        let marks: Vec<bool> = (0..20)
            .flat_map(|_| [24, 20, 18])
            .map(|pieces| games.validation(pieces))
            .collect();
        for (i, &m) in marks.iter().enumerate() {
            let game = i / 3;
            assert_eq!(m, game % 10 == 9, "position {i} of game {game}");
        }
        // The same piece count again is the same game.
        let mut games = Games::default();
        assert!((0..30).all(|_| !games.validation(12)));
    }

    #[test]
    fn text_and_binary_files_of_the_same_games_read_alike() {
        use super::super::record::tests::{random_games, temp, write_file};
        use crate::notation::write_fen;
        use crate::rules::{English, Notation, Position};
        type P = Position<English>;
        let games = random_games::<P>(11, 40);
        let bin = temp("same.bin");
        std::fs::write(&bin, write_file(&games, true)).unwrap();
        let mut text = String::from("# a test\n");
        for (result, positions) in &games {
            for (p, score) in positions {
                let fen = write_fen(p, Notation::Numeric);
                text += &format!("{fen} {result} {score}\n");
            }
        }
        let positions: usize = games.iter().map(|(_, p)| p.len()).sum();
        // The footer's White score is not read back: zero will do.
        let footer = super::super::record::Totals {
            games: games.len() as u64,
            positions: positions as u64,
            score: [0; 3],
        };
        text += &format!("{}\n", footer.footer());
        let txt = temp("same.txt");
        std::fs::write(&txt, text).unwrap();
        let read = |files: &[PathBuf]| {
            let mut v = Vec::new();
            let games = read_positions::<P>(files, true, |l| {
                v.push((l.pos, l.result, l.score, l.validation));
                Ok(())
            })
            .unwrap();
            (games, v)
        };
        let (games_text, from_text) = read(std::slice::from_ref(&txt));
        assert_eq!(games_text, 40);
        assert_eq!(read(std::slice::from_ref(&bin)), (40, from_text.clone()));
        assert!(from_text.iter().any(|p| p.3) && from_text.iter().any(|p| !p.3));
        // Mixed, in either order: the same positions and the split running on across files.
        let (_, mixed) = read(&[bin.clone(), txt.clone()]);
        assert_eq!(mixed, read(&[txt.clone(), bin.clone()]).1);
        let strip = |v: &[(P, f32, Option<f32>, bool)]| {
            v.iter().map(|p| (p.0, p.1, p.2)).collect::<Vec<_>>()
        };
        assert_eq!(
            strip(&mixed),
            strip(&[from_text.clone(), from_text].concat())
        );
        // The reader of lines (tune label) refuses a binary file, naming it.
        let e = read_lines(std::slice::from_ref(&bin), |_, _| Ok(())).unwrap_err();
        assert!(
            e.to_string().contains("same.bin: a binary data file"),
            "{e}"
        );
    }

    #[test]
    fn lines_are_a_fen_a_result_and_maybe_a_score() {
        let l = parse_line("B:W18,21-32:B1-12,14 1/2-1/2 -42").unwrap();
        assert_eq!(
            (l.fen, l.result_text, l.result, l.score),
            ("B:W18,21-32:B1-12,14", "1/2-1/2", 0.5, Some(-42.0))
        );
        assert_eq!(parse_line("W:W1:B2 1-0").unwrap().score, None);
        for bad in ["W:W1:B2", "W:W1:B2 2", "W:W1:B2 1 3001", "W:W1:B2 1 0 0"] {
            assert!(parse_line(bad).is_err(), "{bad}");
        }
    }
}
