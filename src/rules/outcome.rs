//! Game end: who has won when the side to move has no legal move (or, in breakthrough,
//! when a king has been crowned). Draws need the game's history: the variant's
//! [`DrawRules`](super::DrawRules) are applied by [`super::game`].

use std::fmt;

use super::bits::Bits;
use super::board::Board;
use super::game::DrawReason;
use super::variant::{Color, Goal};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    Win(Color),
    /// Drawn by the variant's rules ([`super::game::drawn`]).
    Draw(DrawReason),
}

impl fmt::Display for Outcome {
    /// "white wins", "draw by threefold repetition", "draw: 25 moves with kings only".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(c) => write!(f, "{} wins", c.name()),
            Outcome::Draw(r @ DrawReason::Repetition { .. }) => write!(f, "draw by {r}"),
            Outcome::Draw(r) => write!(f, "draw: {r}"),
        }
    }
}

/// The result of the game if it is over in `pos`; `has_moves` says whether the side to
/// move has any legal move.
pub fn outcome<P: Board>(pos: &P, has_moves: bool) -> Option<Outcome> {
    let mover = pos.side();
    match P::VARIANT.goal() {
        Goal::Breakthrough => {
            // The first king on the board decides the game.
            if (pos.kings() & pos.white()).any() {
                return Some(Outcome::Win(Color::White));
            }
            if (pos.kings() & pos.black()).any() {
                return Some(Outcome::Win(Color::Black));
            }
            (!has_moves).then_some(Outcome::Win(mover.opposite()))
        }
        Goal::Losing => (!has_moves).then_some(Outcome::Win(mover)),
        Goal::Normal => (!has_moves).then_some(Outcome::Win(mover.opposite())),
    }
}
