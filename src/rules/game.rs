//! A game: the start position, the moves played, the current position with its Zobrist
//! key, the keys since the last irreversible move and the draw counters, and the end of
//! the game by the variant's own rules ([`DrawRules`], [`outcome`]).
//!
//! [`drawn`] is the one function that decides "drawn by the rules": the game calls it with
//! its whole history (threefold repetition), the search with its path appended (where a
//! single repetition inside the tree is enough), so the two can never disagree.

use std::fmt;

use super::bits::Bits;
use super::board::{Board, Move, MoveList};
use super::outcome::{Outcome, outcome};
use super::variant::{Color, DrawRules};
use super::zobrist::{KEYS, SIDE};

/// The plies counted by the draw rules since their last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Plies in a row with only kings moving and nothing captured (the 25-move rule in
    /// international, 40 moves in english; in turkish, which has no such rule, men's
    /// sideways steps count too). Positions before the last such reset can never recur,
    /// so this is also the repetition window.
    pub reversible: u16,
    /// Plies since the last capture or promotion: how long the current material has
    /// stood (the FMJD few-pieces endings).
    pub material: u16,
}

impl Counters {
    /// The counters after `mv` is played in `pos`.
    #[inline(always)]
    pub fn after<P: Board>(self, pos: &P, mv: &Move<P::B>) -> Counters {
        let capture = mv.is_capture();
        let king_move = pos.kings().has(mv.from as u32);
        // A man's step along its rank (turkish) can be stepped back: it keeps the
        // position repeatable, like a king's move. (Every diagonal man move changes rank.)
        let sideways = P::MEN_STEP_SIDEWAYS
            && !king_move
            && P::coords(mv.from as u32).1 == P::coords(mv.to as u32).1;
        Counters {
            reversible: if (king_move || sideways) && !capture {
                self.reversible.saturating_add(1)
            } else {
                0
            },
            material: if capture || mv.promote {
                0
            } else {
                self.material.saturating_add(1)
            },
        }
    }
}

/// Zobrist piece kinds, as in [`super::zobrist`]: white man, white king, black man,
/// black king.
#[inline(always)]
fn kind(color: Color, king: bool) -> usize {
    (color as usize) * 2 + king as usize
}

/// The key of `pos.play(mv)` from the key of `pos`, updating only what the move changes
/// (equal to `Board::hash` of the child; checked by the tests).
#[inline(always)]
pub fn key_after<P: Board>(pos: &P, key: u64, mv: &Move<P::B>) -> u64 {
    let me = pos.side();
    let kings = pos.kings();
    let was_king = kings.has(mv.from as u32);
    let mut k = key ^ SIDE ^ pos.state_key_after(mv);
    k ^= KEYS[kind(me, was_king)][mv.from as usize];
    k ^= KEYS[kind(me, was_king || mv.promote)][mv.to as usize];
    if mv.captured.any() {
        let opp = me.opposite();
        for sq in mv.captured.squares() {
            k ^= KEYS[kind(opp, kings.has(sq))][sq as usize];
        }
    }
    k
}

/// Why a game is drawn by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The position occurred for the `times`th time (3: threefold repetition). Inside a
    /// search tree a single repetition already counts.
    Repetition { times: u8 },
    /// `moves` moves each with only kings moving and nothing captured (english: 40
    /// moves without a man move or a capture; international 25, russian 15).
    MoveRule { moves: u16 },
    /// `moves` moves each of `pieces` pieces, a king among them, against a lone king
    /// since the last capture or promotion (the FMJD 16- and 5-move endings).
    FewPieces { pieces: u8, moves: u16 },
}

impl fmt::Display for DrawReason {
    /// "threefold repetition", "25 moves with kings only", "16 moves with three pieces
    /// against a lone king".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DrawReason::Repetition { times: 3 } => write!(f, "threefold repetition"),
            DrawReason::Repetition { times } => write!(f, "{times}-fold repetition"),
            DrawReason::MoveRule { moves } => write!(f, "{moves} moves with kings only"),
            DrawReason::FewPieces { pieces, moves } => {
                let n = ["no", "one", "two", "three"].get(pieces as usize).copied();
                write!(
                    f,
                    "{moves} moves with {} {} against a lone king",
                    n.map_or(pieces.to_string(), str::to_string),
                    if pieces == 1 { "king" } else { "pieces" }
                )
            }
        }
    }
}

/// Whether the position `pos` (key `key`, counters `c`) is drawn by `rules`, and why.
/// `keys` holds the keys of the positions before it, oldest first: the game's (at least
/// those since the last irreversible move), then, in a search, those of the path. Keys at
/// index `tree` or later are inside the search tree, where one earlier occurrence is a
/// draw (the side that could avoid it would); a game passes `keys.len()`.
///
/// Repetition is tested first, then the move rule, then the few-pieces endings (the
/// order in which they are reported when several hold at once).
#[inline]
pub fn drawn<P: Board>(
    pos: &P,
    key: u64,
    c: Counters,
    keys: &[u64],
    tree: usize,
    rules: &DrawRules,
) -> Option<DrawReason> {
    if repeated(keys, key, c, tree, rules.repetitions) {
        return Some(DrawReason::Repetition {
            times: rules.repetitions,
        });
    }
    if let Some(n) = rules.reversible_plies
        && c.reversible >= n
    {
        return Some(DrawReason::MoveRule { moves: n / 2 });
    }
    few_pieces(pos, c, rules)
}

/// Repetition: whether `key` has occurred often enough within the window of `c`.
#[inline]
fn repeated(keys: &[u64], key: u64, c: Counters, tree: usize, repetitions: u8) -> bool {
    let n = keys.len();
    let window = (c.reversible as usize).min(n);
    let mut seen = 0;
    // The same side is to move two, four, ... plies back.
    let mut back = 2;
    while back <= window {
        let i = n - back;
        if keys[i] == key {
            if i >= tree {
                return true;
            }
            seen += 1;
            if seen + 1 >= repetitions as usize {
                return true;
            }
        }
        back += 2;
    }
    false
}

/// The few-pieces endings: a lone king on one side, three pieces or fewer with a king
/// among them on the other, standing long enough.
#[inline]
fn few_pieces<P: Board>(pos: &P, c: Counters, rules: &DrawRules) -> Option<DrawReason> {
    if let Some(r) = kings_only(pos, c, rules) {
        return Some(r);
    }
    let (three, two) = (rules.three_against_one_plies, rules.two_against_one_plies);
    if three.is_none() && two.is_none() {
        return None;
    }
    let (w, b, k) = (pos.white(), pos.black(), pos.kings());
    let lone_king = |me: P::B| me.count() == 1 && (me & k).any();
    let strong = if lone_king(b) {
        w
    } else if lone_king(w) {
        b
    } else {
        return None;
    };
    if (strong & k).is_empty() {
        return None;
    }
    let pieces = strong.count();
    let limit = match pieces {
        // Where the variant has no rule of its own for two pieces, three's applies.
        1 | 2 => two.or(three),
        3 => three,
        _ => None,
    }?;
    (c.material >= limit).then_some(DrawReason::FewPieces {
        pieces: pieces as u8,
        moves: limit / 2,
    })
}

/// Frisian's endings of kings only: two kings against one, or one against one, standing
/// long enough since the last capture or promotion.
#[inline]
fn kings_only<P: Board>(pos: &P, c: Counters, rules: &DrawRules) -> Option<DrawReason> {
    let (two, one) = (
        rules.two_kings_against_king_plies,
        rules.king_against_king_plies,
    );
    if two.is_none() && one.is_none() {
        return None;
    }
    let (w, b, k) = (pos.white(), pos.black(), pos.kings());
    if (w | b) & !k != P::B::ZERO {
        return None;
    }
    let limit = match (w.count(), b.count()) {
        (1, 1) => one,
        (2, 1) | (1, 2) => two,
        _ => None,
    }?;
    let pieces = w.count().max(b.count()) as u8;
    (c.material >= limit).then_some(DrawReason::FewPieces {
        pieces,
        moves: limit / 2,
    })
}

/// Why a move could not be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game is already won (no legal move, or a breakthrough king).
    Over(Outcome),
    /// The move is not one of the position's legal moves; the squares are numbered as
    /// the variant numbers them.
    Illegal { from: u32, to: u32 },
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::Over(o) => write!(f, "the game is over ({o})"),
            PlayError::Illegal { from, to } => write!(
                f,
                "the move from square {from} to square {to} is not legal in this position"
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// What [`Game::undo`] restores.
#[derive(Clone, Copy, Debug)]
struct Before<P> {
    pos: P,
    counters: Counters,
}

/// A game of one variant (the board type `P`).
#[derive(Clone, Debug)]
pub struct Game<P: Board> {
    start: P,
    rules: DrawRules,
    moves: Vec<Move<P::B>>,
    /// The state before each move, for `undo`.
    before: Vec<Before<P>>,
    /// The keys of every earlier position, oldest first (`keys[i]` before move `i`).
    keys: Vec<u64>,
    pos: P,
    key: u64,
    counters: Counters,
}

impl<P: Board> Game<P> {
    /// A game from `start`, every draw counter at zero there (what came before a given
    /// position is unknown).
    pub fn new(start: P) -> Game<P> {
        Game {
            start,
            rules: P::VARIANT.draw_rules(),
            moves: Vec::new(),
            before: Vec::new(),
            keys: Vec::new(),
            pos: start,
            key: Board::hash(&start),
            counters: Counters::default(),
        }
    }

    pub fn start(&self) -> &P {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &P {
        &self.pos
    }

    /// The current position's Zobrist key.
    pub fn key(&self) -> u64 {
        self.key
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    pub fn moves(&self) -> &[Move<P::B>] {
        &self.moves
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The keys of the positions before the current one since the last irreversible
    /// move (a man move or a capture), oldest first: all a repetition can match.
    pub fn history(&self) -> &[u64] {
        let n = self.keys.len();
        &self.keys[n - (self.counters.reversible as usize).min(n)..]
    }

    pub fn legal_moves(&self) -> MoveList<P::B> {
        let mut list = Vec::new();
        self.pos.generate(&mut list);
        list
    }

    /// Play `mv`, if it is legal and the game is not won. A game drawn by the rules may
    /// be played on: a front end that does not claim the draw (a GUI over the Hub)
    /// decides; [`Game::outcome`] says it is drawn.
    pub fn play(&mut self, mv: &Move<P::B>) -> Result<(), PlayError> {
        let legal = self.legal_moves();
        if let Some(o @ Outcome::Win(_)) = outcome(&self.pos, !legal.is_empty()) {
            return Err(PlayError::Over(o));
        }
        if !legal.contains(mv) {
            return Err(PlayError::Illegal {
                from: P::square_of_bit(mv.from as u32),
                to: P::square_of_bit(mv.to as u32),
            });
        }
        self.before.push(Before {
            pos: self.pos,
            counters: self.counters,
        });
        self.keys.push(self.key);
        self.key = key_after(&self.pos, self.key, mv);
        self.counters = self.counters.after(&self.pos, mv);
        self.pos = self.pos.play(mv);
        self.moves.push(*mv);
        Ok(())
    }

    /// Take back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move<P::B>> {
        let mv = self.moves.pop()?;
        let b = self.before.pop().expect("one state per move");
        self.key = self.keys.pop().expect("one key per move");
        self.pos = b.pos;
        self.counters = b.counters;
        Some(mv)
    }

    /// Whether the current position is drawn by the rules, and why.
    pub fn drawn(&self) -> Option<DrawReason> {
        drawn(
            &self.pos,
            self.key,
            self.counters,
            &self.keys,
            self.keys.len(),
            &self.rules,
        )
    }

    /// The end of the game, if it is over: a draw by the rules (tested first, as the
    /// search tests it), or a win (no legal move; breakthrough's first king).
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(r) = self.drawn() {
            return Some(Outcome::Draw(r));
        }
        let mut list = Vec::new();
        let has_moves = self.pos.count_moves(&mut list) > 0;
        outcome(&self.pos, has_moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{English, International, Position, Variant};

    type Intl = Position<International>;

    fn mv<P: Board>(game: &Game<P>, from: u32, to: u32) -> Move<P::B> {
        *game
            .legal_moves()
            .iter()
            .find(|m| {
                P::square_of_bit(m.from as u32) == from && P::square_of_bit(m.to as u32) == to
            })
            .unwrap_or_else(|| panic!("no move {from}-{to}"))
    }

    #[test]
    fn counters_follow_the_rules() {
        let pos: Intl = parse_fen("W:WK46,28:BK5").expect("fen");
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        let c = Counters {
            reversible: 4,
            material: 9,
        };
        for m in &legal {
            let after = c.after(&pos, m);
            if pos.kings().has(m.from as u32) {
                assert_eq!(after.reversible, 5);
            } else {
                assert_eq!(after.reversible, 0, "a man move resets");
            }
            assert_eq!(after.material, 10);
        }
    }

    #[test]
    fn few_pieces_endings() {
        let rules = Variant::International.draw_rules();
        let three: Intl = parse_fen("W:WK46,K47,K48:BK5").expect("fen");
        let at = |m| Counters {
            reversible: 0,
            material: m,
        };
        assert_eq!(few_pieces(&three, at(31), &rules), None);
        assert_eq!(
            few_pieces(&three, at(32), &rules),
            Some(DrawReason::FewPieces {
                pieces: 3,
                moves: 16
            })
        );
        let two: Intl = parse_fen("W:WK46,30:BK5").expect("fen");
        assert_eq!(few_pieces(&two, at(9), &rules), None);
        assert_eq!(
            few_pieces(&two, at(10), &rules),
            Some(DrawReason::FewPieces {
                pieces: 2,
                moves: 5
            })
        );
        // Without a king on the strong side the rule does not apply.
        let men: Intl = parse_fen("W:W31,32:BK50").expect("fen");
        assert_eq!(few_pieces(&men, at(40), &rules), None);
        let english = Variant::English.draw_rules();
        let e: Position<English> = parse_fen("W:WK1,K2:BK32").expect("fen");
        assert_eq!(few_pieces(&e, at(500), &english), None);
    }

    #[test]
    fn play_undo_and_threefold_repetition() {
        let start: Intl = parse_fen("W:WK46:BK1").expect("fen");
        let mut g = Game::new(start);
        let shuffle = [(46, 41), (1, 6), (41, 46), (6, 1)];
        for round in 0..2 {
            for (i, &(f, t)) in shuffle.iter().enumerate() {
                assert_eq!(g.outcome(), None, "round {round} move {i}");
                let m = mv(&g, f, t);
                g.play(&m).unwrap();
                assert_eq!(g.key(), Board::hash(g.position()));
            }
        }
        // The start position stands for the third time.
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::Repetition { times: 3 }))
        );
        assert_eq!(g.history().len(), 8);
        // Undo restores the position, its key and counters: no longer drawn.
        let last = g.undo().unwrap();
        assert_eq!(g.outcome(), None);
        assert_eq!(g.key(), Board::hash(g.position()));
        assert_eq!(g.counters().reversible, 7);
        g.play(&last).unwrap();
        assert!(matches!(g.outcome(), Some(Outcome::Draw(_))));
        // A drawn game may be played on; an illegal move is refused, the game intact.
        let before = g.clone();
        let bad = Move {
            from: 0,
            to: 0,
            promote: false,
            captured: 0u64,
        };
        let e = g.play(&bad).unwrap_err();
        assert!(matches!(e, PlayError::Illegal { .. }), "{e}");
        assert!(e.to_string().contains("not legal"), "{e}");
        assert_eq!(g.ply(), before.ply());
        assert_eq!(g.key(), before.key());
        // A man move makes everything before it unrepeatable.
        let mut g: Game<Intl> = Game::new(parse_fen("W:WK46,31:BK1").expect("fen"));
        let m = mv(&g, 46, 41);
        g.play(&m).unwrap();
        assert_eq!(g.history().len(), 1);
        let m = mv(&g, 1, 6);
        g.play(&m).unwrap();
        let m = mv(&g, 31, 26);
        g.play(&m).unwrap();
        assert_eq!(g.history(), &[] as &[u64]);
    }

    #[test]
    fn a_won_game_takes_no_move() {
        let mut g: Game<Intl> = Game::new(parse_fen("B:W31:B").expect("fen"));
        assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)));
        let any = Move::default();
        let e = g.play(&any).unwrap_err();
        assert_eq!(e, PlayError::Over(Outcome::Win(Color::White)));
        assert_eq!(e.to_string(), "the game is over (white wins)");
    }

    #[test]
    fn reasons_read_as_sentences() {
        let o = |r| Outcome::Draw(r).to_string();
        assert_eq!(
            o(DrawReason::Repetition { times: 3 }),
            "draw by threefold repetition"
        );
        assert_eq!(
            o(DrawReason::MoveRule { moves: 25 }),
            "draw: 25 moves with kings only"
        );
        assert_eq!(
            o(DrawReason::FewPieces {
                pieces: 3,
                moves: 16
            }),
            "draw: 16 moves with three pieces against a lone king"
        );
        assert_eq!(Outcome::Win(Color::Black).to_string(), "black wins");
    }
}
