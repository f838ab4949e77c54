//! Capturing: compulsory capture, maximum capture, backward captures by men, captured
//! pieces blocking until the move ends, duplicate captures merged, Turkish removal.

use crate::common;
use common::{letter, numeric};
use tammi::notation::parse_position;
use tammi::rules::{Board, TurkishPosition, Variant};

#[test]
fn capture_is_compulsory() {
    // White can capture c3:e5 or move quietly elsewhere: only the capture is legal.
    assert_eq!(letter(Variant::Brazilian, "W:Wc3,h2:Bd4"), ["c3:e5"]);
    assert_eq!(numeric(Variant::English, "W:W22,28:B18"), ["22x15"]);
}

#[test]
fn men_capture_backward_except_in_english() {
    // A white man on d4 with a black man behind it on c3.
    assert_eq!(letter(Variant::Brazilian, "W:Wd4:Bc3"), ["d4:b2"]);
    assert_eq!(letter(Variant::Russian, "W:Wd4:Bc3"), ["d4:b2"]);
    assert_eq!(numeric(Variant::English, "W:W18:B22"), ["18-14", "18-15"]);
}

#[test]
fn maximum_capture_where_the_variant_has_it() {
    // a5 can take one piece, c3 two: brazilian must take two, russian and english choose.
    let fen = "W:Wa5,c3:Bb6,d4,f6";
    assert_eq!(letter(Variant::Brazilian, fen), ["c3:g7"]);
    assert_eq!(letter(Variant::Russian, fen), ["a5:c7", "c3:g7"]);
    assert_eq!(
        numeric(Variant::English, "W:W13,22:B9,18,11"),
        ["13x6", "22x8"]
    );
    // The same choice when the single capture's man could go on backward: a3 takes b4
    // and then d4 from behind, two pieces, so both are maximal.
    assert_eq!(
        letter(Variant::Brazilian, "W:Wa3,c3:Bb4,d4,f6"),
        ["a3:e3", "c3:g7"]
    );
}

#[test]
fn maximum_counts_pieces_not_their_value() {
    // Taking a king (one piece) does not beat taking two men.
    assert_eq!(letter(Variant::Brazilian, "W:Wa5,c3:BKb6,d4,f6"), ["c3:g7"]);
}

#[test]
fn captured_pieces_block_until_the_move_ends() {
    // A king on d2 goes round the square of men c3, e3, e5, c5 in either direction and
    // cannot jump the first man again: four pieces, ending on d2 (both ways: one move),
    // e1 or c1.
    let fen = "W:WKd2:Bc3,e3,c5,e5";
    assert_eq!(letter(Variant::Russian, fen), ["d2:c1", "d2:d2", "d2:e1"]);
    assert_eq!(letter(Variant::Brazilian, fen), ["d2:c1", "d2:d2", "d2:e1"]);
}

#[test]
fn duplicate_captures_are_merged() {
    // The round trip d2:d2 has two routes and one captured set: one move, two routes.
    let pos: tammi::rules::Position<tammi::rules::Russian> =
        parse_position("W:WKd2:Bc3,e3,c5,e5").unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    let round = list.iter().find(|m| m.from == m.to).expect("round trip");
    assert_eq!(pos.routes(round).len(), 2);
}

#[test]
fn a_flying_king_must_land_where_the_capture_goes_on() {
    // Russian: after taking c3 the king could stop on d4, e5, f6 or g7, but only from f6
    // can it go on (over g5... here over e7): it must land there.
    let moves = letter(Variant::Russian, "W:WKa1:Bc3,e7");
    assert_eq!(moves, ["a1:d8"]);
}

#[test]
fn turkish_removes_captured_pieces_at_once() {
    // The king lands on a2, the square of the first man it took: only possible because
    // that man left the board when it was jumped.
    let pos: TurkishPosition = parse_position("W:WKa1:Ba2,c4,d3,b2").unwrap();
    let mut list = Vec::new();
    pos.generate(&mut list);
    let a1 = TurkishPosition::bit_of_square(1).unwrap() as u8;
    let a2 = TurkishPosition::bit_of_square(9).unwrap() as u8;
    assert!(
        list.iter()
            .any(|m| m.from == a1 && m.to == a2 && m.capture_count() == 4),
        "{list:?}"
    );
}

#[test]
fn turkish_kings_never_turn_back_by_180_degrees() {
    // North over a6 and south over a2 are both single captures: taking both would need a
    // 180° turn, so no two-piece capture exists.
    assert_eq!(
        letter(Variant::Turkish, "W:WKa4:Ba6,a2"),
        ["a4:a1", "a4:a7", "a4:a8"]
    );
}

#[test]
fn turkish_perft_counts_paths_but_lists_moves_once() {
    // a1 takes a3 (landing a4 or a5) then a6 (landing a7 or a8): four paths, two moves.
    let pos: TurkishPosition = parse_position("W:WKa1:Ba3,a6").unwrap();
    assert_eq!(tammi::perft::perft(&pos, 1, true), 4);
    assert_eq!(
        letter(Variant::Turkish, "W:WKa1:Ba3,a6"),
        ["a1:a7", "a1:a8"]
    );
}

#[test]
fn killer_capture_ending_on_a_king_stops_right_behind_it() {
    // A white king on 46 takes the black king on 37; in international it may land
    // anywhere from 32 to 5 on the long diagonal, in killer only on 32, right behind.
    let intl = numeric(Variant::International, "W:WK46:BK37,3");
    assert_eq!(
        intl,
        ["46x10", "46x14", "46x19", "46x23", "46x28", "46x32", "46x5"]
    );
    assert_eq!(numeric(Variant::Killer, "W:WK46:BK37,3"), ["46x32"]);
    // Taking a man, the killer king lands anywhere behind it.
    assert_eq!(numeric(Variant::Killer, "W:WK46:B37,3"), intl);
}

#[test]
fn breakthrough_and_losing_move_like_international() {
    for fen in [
        "W:W31-50:B1-20",
        "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    ] {
        let intl = numeric(Variant::International, fen);
        assert_eq!(numeric(Variant::Breakthrough, fen), intl);
        assert_eq!(numeric(Variant::Losing, fen), intl);
    }
}

/// The moves that offer the opponent a capture (the quiescence search's exchanges and
/// sacrifices), from the bitboards, are exactly those after which the opponent must
/// capture, on the positions of random games in every variant.
#[test]
fn capture_offers_from_the_bitboards_are_the_definition() {
    use tammi::rng::SplitMix64;
    use tammi::rules::{ALL_VARIANTS, Bits, Move, offers_by_definition};
    use tammi::with_board;

    fn check<P: Board>(rng: &mut SplitMix64) -> (usize, usize) {
        let sorted = |mut v: Vec<Move<P::B>>| {
            v.sort_by_key(|m| (m.from, m.to));
            v
        };
        let (mut men_only, mut offered) = (0, 0);
        let (mut fast, mut slow, mut legal) = (Vec::new(), Vec::new(), Vec::new());
        for _game in 0..40 {
            let mut pos = P::start();
            for _ply in 0..160 {
                pos.capture_offers(&mut fast);
                offers_by_definition(&pos, &mut slow);
                assert_eq!(
                    sorted(fast.clone()),
                    sorted(slow.clone()),
                    "{:?} {pos:?}",
                    P::VARIANT
                );
                let opp = pos.pieces(pos.side().opposite());
                if !(opp & pos.kings()).any() && !pos.has_capture() && !pos.pass().has_capture() {
                    men_only += 1;
                    offered += !fast.is_empty() as usize;
                }
                pos.generate(&mut legal);
                if legal.is_empty() {
                    break;
                }
                pos = pos.play(&legal[rng.below(legal.len())]);
            }
        }
        (men_only, offered)
    }

    let mut rng = SplitMix64::new(51);
    for v in ALL_VARIANTS {
        let (men_only, offered) = with_board!(v, P => check::<P>(&mut rng));
        // The bitboard case must be the common one, and offers common in it.
        assert!(
            men_only > 500 && offered > 200,
            "{v:?}: {men_only} {offered}"
        );
    }
}
