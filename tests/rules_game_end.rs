//! Game end: the side to move with no legal move loses (wins in losing draughts); in
//! breakthrough the first king decides. Draw rules are data per variant.

use tammi::notation::parse_position;
use tammi::rules::{
    Board, Breakthrough, Color, English, International, Losing, Outcome, Position, Variant, outcome,
};

fn over<P: Board>(fen: &str) -> Option<Outcome> {
    let pos: P = parse_position(fen).unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    outcome(&pos, !list.is_empty())
}

#[test]
fn no_pieces_loses() {
    assert_eq!(
        over::<Position<International>>("W:W:B1"),
        Some(Outcome::Win(Color::Black))
    );
}

#[test]
fn all_pieces_blocked_loses() {
    // White's man on 29 (a1) is blocked by 25 (b2), itself backed up by 22 (c3).
    assert_eq!(
        over::<Position<English>>("W:W29:B25,22"),
        Some(Outcome::Win(Color::Black))
    );
    assert_eq!(over::<Position<English>>("B:W21-32:B1-12"), None);
}

#[test]
fn losing_draughts_reverses_the_result() {
    assert_eq!(
        over::<Position<Losing>>("W:W:B1"),
        Some(Outcome::Win(Color::White))
    );
}

#[test]
fn breakthrough_is_won_by_the_first_king() {
    assert_eq!(
        over::<Position<Breakthrough>>("B:WK3,40:B10,20"),
        Some(Outcome::Win(Color::White))
    );
    assert_eq!(over::<Position<Breakthrough>>("B:W33:B10,20"), None);
}

#[test]
fn draw_rules_are_the_federations() {
    let english = Variant::English.draw_rules();
    assert_eq!(english.repetitions, 3);
    assert_eq!(english.reversible_plies, Some(80)); // 40 moves each
    let intl = Variant::International.draw_rules();
    assert_eq!(intl.reversible_plies, Some(50)); // 25 moves each
    assert_eq!(intl.three_against_one_plies, Some(32)); // 16 moves each
    assert_eq!(intl.two_against_one_plies, Some(10)); // 5 moves each
}
