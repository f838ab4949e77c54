//! Notation: squares, moves, FEN and the Hub position string, in every variant.

pub mod echo;
pub mod fen;
pub mod movetext;
pub mod square;

pub use echo::echo;
pub use fen::{
    PositionError, parse_fen, parse_fen_crowning, parse_hub_position, parse_position, write_fen,
    write_hub_position,
};
pub use movetext::{
    MoveTextError, format_hub_any, format_hub_move, format_move, format_route, parse_move,
};
pub use square::{parse_square, square_name};
