//! Kings and promotion: flying and short kings, crowning at the end of a move, russian
//! crowning during a capture, english crowning ending the move, Turkish promotion.

use crate::common;
use common::{letter, numeric};
use tammi::notation::parse_position;
use tammi::rules::{Board, Position, Russian, Variant};

#[test]
fn flying_kings_move_along_whole_diagonals() {
    // A king on a1 of an empty 8x8 board sees all of the long diagonal.
    assert_eq!(letter(Variant::Brazilian, "W:WKa1:Bh8").len(), 6);
    assert_eq!(letter(Variant::Russian, "W:WKa1:Bh8").len(), 6);
    // On 10x10, square 46 (a1): nine squares.
    assert_eq!(numeric(Variant::International, "W:WK46:B1").len(), 9);
}

#[test]
fn english_kings_step_one_square() {
    // A king on 18 (d4) in the middle has four single steps.
    assert_eq!(
        numeric(Variant::English, "W:WK18:B1"),
        ["18-14", "18-15", "18-22", "18-23"]
    );
}

#[test]
fn men_are_crowned_on_the_last_row() {
    let pos: Position<Russian> = parse_position("W:Wb6:Bh8").unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    assert!(list.iter().all(|m| m.promote == (pos.play(m).kings() != 0)));
    assert_eq!(letter(Variant::Russian, "W:Wb6:Bh8"), ["b6-a7", "b6-c7"]);
    let to_row = letter(Variant::Russian, "W:Wc7:Bh8");
    assert_eq!(to_row, ["c7-b8", "c7-d8"]);
}

#[test]
fn international_man_passing_the_last_row_stays_a_man() {
    // b6 takes c7 landing on d8, then e7 backward landing on f6: it ends as a man.
    let fen = "W:Wb6:Bc7,e7";
    assert_eq!(letter(Variant::Brazilian, fen), ["b6:f6"]);
    let pos: Position<tammi::rules::Brazilian> = parse_position(fen).unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    assert!(!list[0].promote);
}

#[test]
fn russian_man_is_crowned_during_the_capture_and_goes_on_as_a_king() {
    // Crowned on d8, the new king takes e7 and may land on f6, g5 or h4.
    assert_eq!(
        letter(Variant::Russian, "W:Wb6:Bc7,e7"),
        ["b6:f6", "b6:g5", "b6:h4"]
    );
    let pos: Position<Russian> = parse_position("W:Wb6:Bc7,e7").unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    assert!(list.iter().all(|m| m.promote));
}

#[test]
fn english_crowning_ends_the_move() {
    // 9 (b6) takes 6 (c7) and is crowned on 2 (d8): it may not go on over 7 (e7).
    assert_eq!(numeric(Variant::English, "W:W9:B6,7"), ["9x2"]);
}

#[test]
fn turkish_men_move_forward_and_sideways_and_promote_at_the_end() {
    assert_eq!(
        letter(Variant::Turkish, "W:Wd4:Ba8"),
        ["d4-c4", "d4-d5", "d4-e4"]
    );
    // A man reaching the last row by capture and able to go on sideways must go on
    // (maximum capture) and is crowned where it ends.
    assert_eq!(letter(Variant::Turkish, "W:Wd6:Bd7,e8"), ["d6:f8"]);
}
