//! Frisian rules perft cannot see: orthogonal captures, capture by value and the king
//! tie-break (Art. 11), crowning only where the move ends (Art. 8), the king-move limit
//! (Art. 12) as part of the position, and the kings-only draws.

use crate::common;
use common::numeric;
use tammi::notation::parse_position;
use tammi::rules::game::{Counters, drawn, key_after};
use tammi::rules::{Board, DrawReason, FrisianBoard, FryskBoard, Game, Move, Outcome, Variant};

fn pos(fen: &str) -> FrisianBoard {
    parse_position(fen).unwrap_or_else(|e| panic!("test FEN {fen}: {e}"))
}

fn find(p: &FrisianBoard, from: u32, to: u32) -> Move<u64> {
    let mut list = Vec::new();
    p.generate(&mut list);
    *list
        .iter()
        .find(|m| {
            FrisianBoard::square_of_bit(m.from as u32) == from
                && FrisianBoard::square_of_bit(m.to as u32) == to
        })
        .unwrap_or_else(|| panic!("no move {from}-{to} in {p:?}"))
}

#[test]
fn men_capture_along_files_and_ranks() {
    // 28 is e5: up its file e7 (18) then e9 (8); along its rank g5 (29) then i5 (30).
    assert_eq!(numeric(Variant::Frisian, "W:W28:B18"), ["28x8"]);
    assert_eq!(numeric(Variant::Frisian, "W:W28:B29"), ["28x30"]);
    // Backwards too, and a black man the same way.
    assert_eq!(numeric(Variant::Frisian, "W:W28:B38"), ["28x48"]);
    assert_eq!(numeric(Variant::Frisian, "B:W27:B28"), ["28x26"]);
    // International has none of these: quiet moves only.
    assert_eq!(
        numeric(Variant::International, "W:W28:B18"),
        ["28-22", "28-23"]
    );
}

#[test]
fn kings_capture_in_eight_directions_but_move_on_diagonals() {
    // A king on e1 (48) with a black man far up its file on e7 (18).
    let moves = numeric(Variant::Frisian, "W:WK48:B18");
    assert_eq!(moves, ["48x8"]);
    // With nothing to take, only diagonal moves: 4 up-left (a5 side) and 5 up-right.
    let quiet = numeric(Variant::Frisian, "W:WK48:B1");
    assert_eq!(quiet.len(), 9, "{quiet:?}");
    assert!(quiet.iter().all(|m| m.contains('-')));
}

#[test]
fn the_capture_of_highest_value_is_compulsory() {
    // 28x19 takes the king on 23; 37x26 takes the man on 31: the king is worth more.
    assert_eq!(numeric(Variant::Frisian, "W:W28,37:BK23,31"), ["28x19"]);
    // With a man on 21 too, 37x26x17 takes two men: more than one king.
    assert_eq!(numeric(Variant::Frisian, "W:W28,37:BK23,21,31"), ["37x17"]);
    // International counts pieces only: the same.
    assert_eq!(
        numeric(Variant::International, "W:W28,37:BK23,31"),
        ["28x19", "37x26"]
    );
}

#[test]
fn a_king_must_capture_when_a_man_can_take_the_same_value() {
    // The king on 50 takes the man on 44; the man on 47 takes the man on 42 (47x38).
    let moves = numeric(Variant::Frisian, "W:WK50,47:B44,42");
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| m.starts_with("50x")), "{moves:?}");
    assert!(!moves.contains(&"47x38".to_string()));
    // With a man on 50 instead of the king, either man may take.
    assert_eq!(
        numeric(Variant::Frisian, "W:W50,47:B44,42"),
        ["47x38", "50x39"]
    );
}

#[test]
fn a_man_is_crowned_only_where_its_capture_ends() {
    // d8 (12) takes c9 (7) landing on b10 (1), then b8 (11) down the file to b6 (21).
    let p = pos("W:W12:B7,11");
    let mut list = Vec::new();
    p.generate(&mut list);
    assert_eq!(list.len(), 1);
    assert!(!list[0].promote);
    assert_eq!(FrisianBoard::square_of_bit(list[0].to as u32), 21);
    let after = p.play(&list[0]);
    assert_eq!(after.kings(), 0);
}

/// Quiet king moves of `from` in `p`.
fn king_quiet_moves(p: &FrisianBoard, from: u32) -> usize {
    let mut list = Vec::new();
    p.generate(&mut list);
    list.iter()
        .filter(|m| FrisianBoard::square_of_bit(m.from as u32) == from && !m.is_capture())
        .count()
}

#[test]
fn a_king_makes_at_most_three_quiet_moves_in_a_row_while_men_remain() {
    // White: a king on i1 (50) and a man on a3 (36); Black a lone king on b10 (1).
    let mut g = Game::new(pos("W:WK50,36:BK1"));
    for (f, t) in [(50, 44), (1, 7), (44, 50), (7, 1), (50, 44), (1, 7)] {
        let m = find(g.position(), f, t);
        let (before, key) = (*g.position(), g.key());
        g.play(&m).unwrap();
        // The incremental key follows the counts.
        assert_eq!(g.key(), Board::hash(g.position()));
        assert_eq!(key_after(&before, key, &m), g.key());
    }
    // A fourth quiet move with that king is not allowed; the man must move.
    let p = *g.position();
    assert_eq!(king_quiet_moves(&p, 44), 0);
    assert_eq!(numeric(Variant::Frisian, "W:WK44,36:BK7").len(), 12);
    let mut list = Vec::new();
    p.generate(&mut list);
    assert_eq!(list.len(), 1, "only the man's move 36-31");
    // The same pieces without the history are another position (TT, repetition).
    let fresh = pos("W:WK44,36:BK7");
    assert_ne!(p, fresh);
    assert_ne!(Board::hash(&p), Board::hash(&fresh));
    assert_eq!(king_quiet_moves(&fresh, 44), 11);
    assert_eq!(p.king_moves().count[0], 3);
    assert_eq!(
        Some(p),
        fresh.with_king_moves(tammi::rules::Color::White, 44, 3)
    );
    // A man's move frees the king.
    for (f, t) in [(36, 31), (7, 1)] {
        let m = find(g.position(), f, t);
        g.play(&m).unwrap();
    }
    assert!(king_quiet_moves(g.position(), 44) > 0);
    assert_eq!(g.key(), Board::hash(g.position()));
}

#[test]
fn another_king_or_a_side_of_kings_only_is_free() {
    // Two white kings and a man: moving the other king restarts the count.
    let mut g = Game::new(pos("W:WK50,K46,36:BK1"));
    for (f, t) in [(50, 44), (1, 7), (44, 50), (7, 1), (50, 44), (1, 7)] {
        let m = find(g.position(), f, t);
        g.play(&m).unwrap();
    }
    assert_eq!(king_quiet_moves(g.position(), 44), 0);
    assert!(king_quiet_moves(g.position(), 46) > 0);
    let m = find(g.position(), 46, 41);
    g.play(&m).unwrap();
    let m = find(g.position(), 7, 1);
    g.play(&m).unwrap();
    assert!(king_quiet_moves(g.position(), 44) > 0);
    assert_eq!(g.position().king_moves().count[0], 1);
    // Kings only: no limit.
    let mut g = Game::new(pos("W:WK50:BK1"));
    for (f, t) in [(50, 44), (1, 7), (44, 50), (7, 1), (50, 44), (1, 7)] {
        let m = find(g.position(), f, t);
        g.play(&m).unwrap();
    }
    assert!(king_quiet_moves(g.position(), 44) > 0);
    assert_eq!(g.position().king_moves().count, [0, 0]);
}

#[test]
fn kings_only_endings_are_drawn_after_seven_and_two_moves() {
    let rules = Variant::Frisian.draw_rules();
    let at = |plies| Counters {
        reversible: 0,
        material: plies,
    };
    let check = |fen: &str, plies| {
        let p = pos(fen);
        drawn(&p, Board::hash(&p), at(plies), &[], 0, &rules)
    };
    // Two kings against one: 7 moves each since the last capture or promotion.
    assert_eq!(check("W:WK50,K46:BK1", 13), None);
    assert_eq!(
        check("W:WK50,K46:BK1", 14),
        Some(DrawReason::FewPieces {
            pieces: 2,
            moves: 7
        })
    );
    assert!(check("B:WK50:BK1,K2", 14).is_some());
    // A king and a man, or three kings, against a king: no such rule.
    assert_eq!(check("W:WK50,36:BK1", 200), None);
    assert_eq!(check("W:WK50,K46,K47:BK1", 200), None);
    // One king against one: 2 moves each, played out in a game.
    let mut g = Game::new(pos("W:WK50:BK1"));
    for (ply, (f, t)) in [(50, 44), (1, 7), (44, 39), (7, 1)].into_iter().enumerate() {
        assert_eq!(g.outcome(), None, "ply {ply}");
        let m = find(g.position(), f, t);
        g.play(&m).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::FewPieces {
            pieces: 1,
            moves: 2
        }))
    );
    assert_eq!(
        g.outcome().unwrap().to_string(),
        "draw: 2 moves with one king against a lone king"
    );
}

#[test]
fn frysk_starts_with_five_men_each_on_the_back_rows() {
    let s = FryskBoard::start();
    let squares = |b: u64| -> Vec<u32> { b.squares().map(FryskBoard::square_of_bit).collect() };
    use tammi::rules::Bits;
    assert_eq!(squares(s.white()), [46, 47, 48, 49, 50]);
    assert_eq!(squares(s.black()), [1, 2, 3, 4, 5]);
    let mut list = Vec::new();
    s.generate(&mut list);
    assert_eq!(list.len(), 9);
    assert_eq!("frysk!".parse::<Variant>(), Ok(Variant::Frysk));
}
