//! Rules of the 8x8 family (issue 18) that perft cannot show: which captures the
//! precedence rules leave, italian men and kings, thai kings. Square numbers are each
//! variant's own: italian 1 = a8 … 32 = h1 (FID art. 2.4); spanish 1 = h1 … 32 = a8;
//! pool, czech and thai as english (1 = b8 … 32 = g1).

use crate::common;
use common::{letter, numeric};
use tammi::notation::parse_position;
use tammi::perft::perft;
use tammi::rules::{Bits, Board, Italian, Position, Variant};

#[test]
fn italian_men_cannot_take_kings() {
    // FID art. 5.3(b). The man on 22 (d3) faces a man on 18 (c4) and a king on 19 (e4).
    assert_eq!(numeric(Variant::Italian, "W:W22:B18"), ["22x13"]);
    assert_eq!(numeric(Variant::Italian, "W:W22:BK18"), ["22-19"]);
    assert_eq!(numeric(Variant::Italian, "W:W22:BK18,19"), ["22x15"]);
    // A king may take a king.
    assert_eq!(numeric(Variant::Italian, "W:WK22:BK18"), ["22x13"]);
    // Elsewhere men take kings.
    assert_eq!(numeric(Variant::English, "B:W22:BK18"), ["18x25"]);
}

#[test]
fn italian_kings_step_one_square() {
    // Art. 4.7: a king on 22 (d3) steps to c4, e4, c2 and e2 only.
    assert_eq!(
        numeric(Variant::Italian, "W:WK22:B1"),
        ["22-18", "22-19", "22-26", "22-27"]
    );
}

#[test]
fn italian_precedence_most_pieces_then_with_the_king() {
    // Art. 6.6: the man's two pieces (22x13x6: 18 and 10) beat the king's one (27x20).
    assert_eq!(numeric(Variant::Italian, "W:W22,K27:B18,10,23"), ["22x6"]);
    // Art. 6.7: one piece each: the king takes.
    assert_eq!(numeric(Variant::Italian, "W:W22,K27:B18,23"), ["27x20"]);
}

#[test]
fn italian_precedence_most_kings_then_the_king_met_first() {
    // Art. 6.8: a king on 22 may take the man on 18 or the king on 19: the king.
    assert_eq!(numeric(Variant::Italian, "W:WK22:B18,K19"), ["22x15"]);
    // Art. 6.9: two pieces, one of them a king, either way: 18 then the king on 10
    // (ending on 6), or the king on 19 then 12 (ending on 8). The king met first decides.
    assert_eq!(numeric(Variant::Italian, "W:WK22:B18,K10,K19,12"), ["22x8"]);
    // With the kings the other way round, the other route.
    assert_eq!(numeric(Variant::Italian, "W:WK22:BK18,10,19,K12"), ["22x6"]);
    // English has none of these rules: the same position seen in a mirror (english
    // squares 23, 19, 11, 18 and 9) leaves the choice free.
    assert_eq!(
        numeric(Variant::English, "W:WK23:B19,K11,K18,9"),
        ["23x5", "23x7"]
    );
}

#[test]
fn italian_notation_names_only_the_route_that_is_legal() {
    // The king on 22 takes 18, 10, 11 and 19 round the square either way: from 22 over
    // 18 first (a man) or over 19 first (a king). Only the king-first route is legal, so
    // only it has a name, and the move is written short.
    let pos: Position<Italian> = parse_position("W:WK22:B18,10,11,K19").unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    assert_eq!(list.len(), 1);
    let routes = pos.routes(&list[0]);
    assert_eq!(routes.len(), 1, "{routes:?}");
    let squares: Vec<u32> = routes[0]
        .iter()
        .map(|&b| Position::<Italian>::square_of_bit(b))
        .collect();
    assert_eq!(squares, [22, 15, 6, 13, 22]);
}

#[test]
fn spanish_takes_the_most_pieces_then_the_most_kings() {
    // A man on 11 (d3) over 14 (e4) or over the king on 15 (c4): the king.
    assert_eq!(numeric(Variant::Spanish, "W:W11:B14,K15"), ["11x20"]);
    // Two men (14, then 21 from f5) outrank one king.
    assert_eq!(numeric(Variant::Spanish, "W:W11:B14,21,K15"), ["11x25"]);
    // Men capture forward only: a man behind is safe.
    assert_eq!(numeric(Variant::Spanish, "W:W11:B7"), ["11-14", "11-15"]);
}

#[test]
fn czech_kings_capture_first() {
    // The man on c3 could take d4, the king on h2 takes f4: only the king's captures, to
    // any square behind (czech rules art. 4.14; otherwise free choice).
    assert_eq!(
        letter(Variant::Czech, "W:Wc3,Kh2:Bd4,f4"),
        ["h2:b8", "h2:c7", "h2:d6", "h2:e5"]
    );
    // Without a king able to capture, the men choose freely.
    assert_eq!(
        letter(Variant::Czech, "W:Wc3,a3:Bd4,b4"),
        ["a3:c5", "c3:a5", "c3:e5"]
    );
}

#[test]
fn pool_is_free_choice_with_flying_kings_and_backward_men() {
    // The king on 29 (a1) lands anywhere behind 22 (c3); the man on 18 takes backward.
    assert_eq!(
        numeric(Variant::Pool, "W:WK29:B22"),
        ["29x11", "29x15", "29x18", "29x4", "29x8"]
    );
    assert_eq!(numeric(Variant::Pool, "W:W18:B22"), ["18x25"]);
    // One piece or two: free choice (APCA rule 20).
    assert_eq!(
        numeric(Variant::Pool, "W:W22,28:B18,10,24"),
        ["22x6", "28x19"]
    );
}

#[test]
fn thai_kings_land_right_behind_and_pieces_go_at_once() {
    // The king on 29 (a1) takes 22 (c3) and stops on 18 (d4), right behind it.
    assert_eq!(numeric(Variant::Thai, "W:WK29:B22"), ["29x18"]);
    // A king on 18 (d4) takes 15 (e5) and turns back across the emptied squares to take
    // 22 (c3), or the other way round: both pieces either way.
    assert_eq!(numeric(Variant::Thai, "W:WK18:B15,22"), ["18x11", "18x25"]);
    // Where pieces stay until the move ends, the first one blocks the way back.
    assert_eq!(
        numeric(Variant::Pool, "W:WK18:B15,22"),
        ["18x11", "18x25", "18x29", "18x4", "18x8"]
    );
}

#[test]
fn thai_starts_with_eight_men_each() {
    let start = Position::<tammi::rules::Thai>::start();
    assert_eq!(start.white().count(), 8);
    assert_eq!(start.black().count(), 8);
    assert_eq!(perft(&start, 1, true), 7);
}
