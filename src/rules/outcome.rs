//! Game end: who has won when the side to move has no legal move (or, in breakthrough,
//! when a king has been crowned). Draw rules live in [`DrawRules`](super::DrawRules) and
//! are applied by whoever keeps the game's history.

use super::bits::Bits;
use super::board::Board;
use super::variant::{Color, Goal};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    Win(Color),
    Draw,
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
