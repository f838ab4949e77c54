//! Tokens to games: tag pairs, then move text up to a result or the next game's tags;
//! variations nest; then each game gets its variant (GameType tag, `--variant`, or the
//! file-level guess described in the module docs).

use std::fmt;

use super::game::{Game, Line, PdnMove, Tag, resolve};
use super::lexer::{LexError, Lexer, Pos, Token, TokenKind};
use crate::notation::parse_fen_crowning;
use crate::rules::{ALL_VARIANTS, Board, Variant};
use crate::with_board;

/// What the reader needs beyond the text.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// The variant of games without a GameType tag (and the refinement of GameType 20:
    /// killer, breakthrough, losing). `None`: infer it from the file.
    pub variant: Option<Variant>,
}

/// Text that is not PDN: which game, where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnError {
    pub game: usize,
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}, {}: {}", self.game, self.pos, self.message)
    }
}

impl std::error::Error for PdnError {}

/// Read every game of a PDN text.
pub fn read_pdn(text: &str, opts: &ReadOptions) -> Result<Vec<Game>, PdnError> {
    let mut parser = Parser {
        lexer: Lexer::new(text),
        peeked: None,
        game: 1,
        depth: 0,
    };
    let mut games = Vec::new();
    while let Some(game) = parser.game()? {
        games.push(game);
        parser.game = games.len() + 1;
    }
    assign_variants(&mut games, opts)?;
    games.iter_mut().for_each(super::settle::settle);
    Ok(games)
}

struct Parser {
    lexer: Lexer,
    peeked: Option<Token>,
    /// Number of the game being read, for error messages.
    game: usize,
    /// Variations open around the current token.
    depth: usize,
}

/// Variations nested deeper than this are refused: the reader, checker and writer recurse
/// once per level, and no real annotation goes near it.
const MAX_VARIATION_DEPTH: usize = 100;

impl Parser {
    fn error(&self, pos: Pos, message: impl Into<String>) -> PdnError {
        PdnError {
            game: self.game,
            pos,
            message: message.into(),
        }
    }

    fn lex_error(&self, e: LexError) -> PdnError {
        self.error(e.pos, e.message)
    }

    fn peek(&mut self) -> Result<Option<&Token>, PdnError> {
        if self.peeked.is_none() {
            self.peeked = self.lexer.next_token().map_err(|e| self.lex_error(e))?;
        }
        Ok(self.peeked.as_ref())
    }

    fn next(&mut self) -> Result<Option<Token>, PdnError> {
        self.peek()?;
        Ok(self.peeked.take())
    }

    /// One game: tags, move text, and the result or the next game's tags.
    fn game(&mut self) -> Result<Option<Game>, PdnError> {
        let Some(pos) = self.peek()?.map(|t| t.pos) else {
            return Ok(None);
        };
        let mut game = Game {
            number: self.game,
            pos,
            tags: Vec::new(),
            variant: Variant::International,
            fen: None,
            main_line: Line::default(),
            result: None,
            first_move_number: 0,
            warnings: Vec::new(),
        };
        let mut setup = None;
        loop {
            let (next_game, is_result) = match self.peek()? {
                None => break,
                Some(t) => (
                    // Tags after move text, or a tag the game already has, start the
                    // next game (a game may end without a result).
                    matches!(&t.kind, TokenKind::Tag { name, .. }
                        if !game.main_line.moves.is_empty()
                            || game.tags.iter().any(|g| &g.name == name)),
                    matches!(t.kind, TokenKind::Result(_)),
                ),
            };
            if next_game {
                break;
            }
            let tok = self.next()?.expect("peeked");
            if is_result {
                if let TokenKind::Result(r) = tok.kind {
                    game.result = Some(r);
                }
                break;
            }
            match tok.kind {
                TokenKind::Tag { name, value } => {
                    if name == "FEN" {
                        game.fen = Some((value.clone(), tok.pos));
                    }
                    game.tags.push(Tag {
                        name,
                        value,
                        pos: tok.pos,
                    });
                }
                TokenKind::Setup(fen) if game.main_line.moves.is_empty() => {
                    // A setup before the first move is the game's start position.
                    game.fen = Some((fen, tok.pos));
                }
                TokenKind::MoveNumber { number, .. }
                    if game.main_line.moves.is_empty() && game.first_move_number == 0 =>
                {
                    game.first_move_number = number;
                }
                TokenKind::VariationEnd => {
                    return Err(self.error(tok.pos, "')' closes no variation"));
                }
                _ => self.line_token(tok, &mut game.main_line, &mut setup)?,
            }
        }
        if let Some((_, pos)) = setup {
            return Err(self.error(pos, "setup '/.../' is not followed by a move"));
        }
        if game.first_move_number == 0 {
            game.first_move_number = 1;
        }
        let empty = game.tags.is_empty() && game.main_line.moves.is_empty();
        if empty && game.result.is_none() {
            // Only comments after the last game: nothing to keep.
            return Ok(None);
        }
        Ok(Some(game))
    }

    /// A token of move text that means the same in the main line and in a variation.
    fn line_token(
        &mut self,
        tok: Token,
        line: &mut Line,
        setup: &mut Option<(String, Pos)>,
    ) -> Result<(), PdnError> {
        match tok.kind {
            TokenKind::Move(text) => line.moves.push(PdnMove {
                text,
                pos: tok.pos,
                setup: setup.take(),
                ..PdnMove::default()
            }),
            // A strength or NAG before any move has nothing to annotate: dropped.
            TokenKind::Strength(s) => {
                if let Some(last) = line.moves.last_mut() {
                    last.strength.get_or_insert_with(String::new).push_str(&s);
                }
            }
            TokenKind::Nag(n) => {
                if let Some(last) = line.moves.last_mut() {
                    last.nags.push(n);
                }
            }
            TokenKind::Comment(c) => match line.moves.last_mut() {
                Some(last) => last.comments.push(c),
                None => line.comments.push(c),
            },
            TokenKind::VariationStart => {
                if line.moves.is_empty() {
                    return Err(
                        self.error(tok.pos, "a variation '(' must follow the move it replaces")
                    );
                }
                let variation = self.variation(tok.pos)?;
                line.moves
                    .last_mut()
                    .expect("checked")
                    .variations
                    .push(variation);
            }
            TokenKind::Setup(fen) => *setup = Some((fen, tok.pos)),
            // Numbers are recomputed from the position; a result inside a variation
            // (seen in the wild) says nothing about the game.
            TokenKind::MoveNumber { .. } | TokenKind::Result(_) => {}
            TokenKind::Tag { .. } | TokenKind::VariationEnd => {
                unreachable!("handled by the callers")
            }
        }
        Ok(())
    }

    /// The moves of a variation up to its `)`.
    fn variation(&mut self, open: Pos) -> Result<Line, PdnError> {
        if self.depth >= MAX_VARIATION_DEPTH {
            return Err(self.error(
                open,
                format!("variations nested more than {MAX_VARIATION_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        let line = self.variation_body(open);
        self.depth -= 1;
        line
    }

    fn variation_body(&mut self, open: Pos) -> Result<Line, PdnError> {
        let mut line = Line::default();
        let mut setup = None;
        loop {
            let Some(tok) = self.next()? else {
                return Err(self.error(open, "variation '(' is never closed"));
            };
            match tok.kind {
                TokenKind::VariationEnd => break,
                TokenKind::Tag { .. } => {
                    return Err(self.error(
                        open,
                        format!("variation '(' is not closed before the tags at {}", tok.pos),
                    ));
                }
                _ => self.line_token(tok, &mut line, &mut setup)?,
            }
        }
        if let Some((_, pos)) = setup {
            return Err(self.error(pos, "setup '/.../' is not followed by a move"));
        }
        if line.moves.is_empty() {
            return Err(self.error(open, "empty variation '()'"));
        }
        Ok(line)
    }
}

/// PDN GameType numbers tammi does not play, for a helpful error.
fn unsupported_game_type(n: u32) -> Option<&'static str> {
    Some(match n {
        28 => "portuguese",
        41 => "spantsiretti",
        _ => return None,
    })
}

/// The variant of a GameType value: `"20"` or the long form `"20,W,10,10,N2,0"`.
pub fn variant_of_game_type(value: &str) -> Result<Variant, String> {
    let first = value.split(',').next().unwrap_or("").trim();
    let n: u32 = first
        .parse()
        .map_err(|_| format!("GameType '{value}' does not start with a game number"))?;
    Variant::of_pdn_game_type(n).ok_or_else(|| {
        let what = unsupported_game_type(n)
            .map(|name| format!(" ({name})"))
            .unwrap_or_default();
        let played: Vec<String> = ALL_VARIANTS
            .iter()
            .filter(|v| !v.facts().pdn_variant_tag)
            .map(|v| format!("{} {v}", v.pdn_game_type()))
            .collect();
        format!(
            "GameType {n}{what} is not supported (tammi plays {})",
            played.join(", ")
        )
    })
}

fn assign_variants(games: &mut [Game], opts: &ReadOptions) -> Result<(), PdnError> {
    let mut untyped = Vec::new();
    for (i, g) in games.iter_mut().enumerate() {
        // A Variant tag naming one of tammi's variants (tammi writes it for killer,
        // breakthrough and losing, which share GameType 20; lidraughts writes
        // "Antidraughts") refines the GameType; other values ("Standard") say nothing.
        let named: Option<Variant> = g.tag("Variant").and_then(|v| v.parse().ok());
        let Some(t) = g.tags.iter().find(|t| t.name == "GameType") else {
            match named {
                Some(v) => g.variant = v,
                None => untyped.push(i),
            }
            continue;
        };
        let v = variant_of_game_type(&t.value).map_err(|message| PdnError {
            game: g.number,
            pos: t.pos,
            message,
        })?;
        let same_board = |o: Variant| o.pdn_game_type() == v.pdn_game_type();
        g.variant = match (named, opts.variant) {
            (Some(n), _) if same_board(n) => n,
            // `--variant killer` on a GameType 20 game: same board, the user's rules.
            (_, Some(o)) if same_board(o) => o,
            _ => v,
        };
    }
    if untyped.is_empty() {
        return Ok(());
    }
    let variant = match opts.variant {
        Some(v) => v,
        None => {
            let sample: Vec<&Game> = untyped.iter().map(|&i| &games[i]).collect();
            infer_variant(&sample)
        }
    };
    for i in untyped {
        games[i].variant = variant;
    }
    Ok(())
}

/// The largest squares seen in move text and FEN: numbers, and letter–number files/ranks.
#[derive(Default)]
struct SquareSpan {
    max_number: u32,
    letters: bool,
    max_file: u32,
    max_rank: u32,
}

impl SquareSpan {
    fn square(&mut self, s: &str) {
        let s = s.trim().trim_start_matches('K');
        if s.is_empty() {
            return;
        }
        if s.bytes().all(|b| b.is_ascii_digit()) {
            // `3228`: two squares run together.
            if s.len() >= 4 && s.len().is_multiple_of(2) {
                for c in s.as_bytes().chunks(2) {
                    self.square(std::str::from_utf8(c).unwrap_or(""));
                }
            } else if let Ok(n) = s.parse::<u32>() {
                self.max_number = self.max_number.max(n);
            }
            return;
        }
        let letters: String = s.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let digits = &s[letters.len()..];
        if let (Some(file), Ok(rank)) = (letters.chars().last(), digits.parse::<u32>()) {
            self.letters = true;
            self.max_file = self
                .max_file
                .max(file.to_ascii_lowercase() as u32 - 'a' as u32);
            self.max_rank = self.max_rank.max(rank);
        }
    }

    fn line(&mut self, line: &Line) {
        for m in &line.moves {
            for part in m.text.split(['-', 'x', 'X', ':', '×']) {
                self.square(part);
            }
            m.variations.iter().for_each(|v| self.line(v));
        }
    }

    fn fen(&mut self, fen: &str) {
        for group in fen.split(':').skip(1) {
            let body = group.trim().get(1..).unwrap_or("");
            for item in body.split(',') {
                item.trim_end_matches('.')
                    .split('-')
                    .for_each(|s| self.square(s));
            }
        }
    }
}

/// Guess the variant of games without a GameType tag, from the whole file: letter–number
/// squares within a–h/1–8 mean russian (else brazilian, if only that replays), within
/// a–j/1–10 international, beyond canadian; square numbers up to 32 mean english (unless the
/// games only replay as international: `32-28` opens many international fragments), up to
/// 50 international, beyond canadian. Among the candidates the one under which the main
/// lines replay furthest wins; ties go to the first.
fn infer_variant(games: &[&Game]) -> Variant {
    let mut span = SquareSpan::default();
    for g in games {
        span.line(&g.main_line);
        if let Some((fen, _)) = &g.fen {
            span.fen(fen);
        }
    }
    let candidates: &[Variant] = if span.letters {
        if span.max_file < 8 && span.max_rank <= 8 {
            &[Variant::Russian, Variant::Brazilian]
        } else if span.max_file < 10 && span.max_rank <= 10 {
            &[Variant::International]
        } else {
            &[Variant::Canadian]
        }
    } else if span.max_number <= 32 {
        &[Variant::English, Variant::International]
    } else if span.max_number <= 50 {
        &[Variant::International]
    } else {
        &[Variant::Canadian]
    };
    if candidates.len() == 1 {
        return candidates[0];
    }
    let mut best = (candidates[0], 0);
    for &v in candidates {
        let score: usize = games
            .iter()
            .map(|g| with_board!(v, P => replayable_plies::<P>(g)))
            .sum();
        if score > best.1 {
            best = (v, score);
        }
    }
    best.0
}

/// How many main-line moves replay legally under `P` before the first that does not.
fn replayable_plies<P: Board>(game: &Game) -> usize {
    // Leniently, as the game will be read once its variant is known (problem collections
    // set men on their crowning row).
    let start = match &game.fen {
        None => Ok(P::start()),
        Some((fen, _)) => parse_fen_crowning::<P>(fen).map(|(pos, _)| pos),
    };
    let Ok(mut pos) = start else {
        return 0;
    };
    let mut n = 0;
    for (i, m) in game.main_line.moves.iter().enumerate() {
        match resolve(&pos, m, game.number, i + 1, false) {
            Ok(step) => {
                pos = step.before.play(&step.mv);
                n += 1;
            }
            Err(_) => break,
        }
    }
    n
}
