//! The rules core: bitboards, geometry, variants, positions, move generation, and the
//! game (history, draw rules, outcome) in [`game`].
//!
//! Everything here is exact and allocation-free on the hot paths; no `unsafe`.

pub mod bits;
pub mod board;
pub mod capture;
pub mod diagonal;
pub mod frisian;
pub mod game;
pub mod geometry;
pub mod outcome;
pub mod turkish;
pub mod variant;
pub mod zobrist;

pub use bits::Bits;
pub use board::{AnyMove, Board, Move, MoveList, Setup, SetupError, offers_by_definition};
pub use diagonal::Position;
pub use frisian::{FrisianBoard, FrisianPosition, FryskBoard};
pub use game::{Counters, DrawReason, Game, PlayError};
pub use outcome::{Outcome, outcome};
pub use turkish::TurkishPosition;
pub use variant::{
    ALL_VARIANTS, Brazilian, Breakthrough, Canadian, Color, DrawRules, English, Goal,
    International, Killer, Layout, Losing, Notation, Rules, Russian, Switches, Variant,
    VariantFacts,
};
// The 8x8 family (issue 18).
pub use variant::{Czech, Italian, Pool, Spanish, Thai};

/// Run `$body` with `$P` bound to the board type of `$variant` (type erasure at the edges:
/// generic code is monomorphised once per variant and chosen here at run time).
#[macro_export]
macro_rules! with_board {
    ($variant:expr, $P:ident => $body:expr) => {
        $crate::with_board!(@diagonal $variant, $P, $body;
            English International Russian Brazilian Canadian Killer Breakthrough Losing
            Italian Pool Czech Spanish Thai)
    };
    // Each diagonal variant's board is `Position` of its rules type, of the same name.
    (@diagonal $variant:expr, $P:ident, $body:expr; $($d:ident)*) => {{
        use $crate::rules::Variant as V;
        match $variant {
            $(V::$d => {
                type $P = $crate::rules::Position<$crate::rules::$d>;
                $body
            })*
            V::Turkish => {
                type $P = $crate::rules::TurkishPosition;
                $body
            }
            V::Frisian => {
                type $P = $crate::rules::FrisianBoard;
                $body
            }
            V::Frysk => {
                type $P = $crate::rules::FryskBoard;
                $body
            }
        }
    }};
}
