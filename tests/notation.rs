//! Notation: FEN and Hub position strings on every board, move text in every form,
//! ambiguous captures written and read with their full route.

use crate::common;
use common::{Rng, numeric, random_positions};
use tammi::notation::{
    MoveTextError, format_hub_move, format_move, parse_fen, parse_hub_position, parse_move,
    parse_position, write_fen, write_hub_position,
};
use tammi::rules::{
    Board, Brazilian, Canadian, English, International, Notation, Position, Russian,
    TurkishPosition,
};

fn round_trips<P: Board>(seed: u64) {
    for pos in random_positions::<P>(seed, 400) {
        for notation in [Notation::Numeric, Notation::Letter] {
            let fen = write_fen(&pos, notation);
            let back: P = parse_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(back, pos, "FEN round trip of {fen}");
        }
        let hub = write_hub_position(&pos);
        assert_eq!(hub.len() as u32, P::square_count() + 1);
        assert_eq!(parse_hub_position::<P>(&hub).unwrap(), pos, "{hub}");
        assert_eq!(parse_position::<P>(&hub).unwrap(), pos, "{hub}");
    }
}

#[test]
fn fen_and_hub_position_round_trip_on_every_board() {
    round_trips::<Position<English>>(1);
    round_trips::<Position<International>>(2);
    round_trips::<Position<Russian>>(3);
    round_trips::<Position<Brazilian>>(4);
    round_trips::<Position<Canadian>>(5);
    round_trips::<TurkishPosition>(6);
}

#[test]
fn fen_accepts_ranges_either_group_order_empty_groups_letters_and_a_trailing_dot() {
    let start = Position::<International>::start();
    for fen in [
        "W:W31-50:B1-20",
        "W:B1-20:W31-50",
        "W:W31-50:B1-20.",
        " W : W31-40,41-50 : B1-10,11,12,13,14,15,16-20 ",
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1-20",
    ] {
        assert_eq!(
            parse_fen::<Position<International>>(fen).unwrap(),
            start,
            "{fen}"
        );
    }
    let english = Position::<English>::start();
    assert_eq!(
        parse_fen::<Position<English>>("B:W21-32:B1-12").unwrap(),
        english
    );
    // Letter–number squares on 8x8: a1 = 29, c1 = 30 in english numbering.
    let a: Position<English> = parse_fen("W:Wa1,c1:Bb8").unwrap();
    let n: Position<English> = parse_fen("W:W29,30:B1").unwrap();
    assert_eq!(a, n);
    // An empty colour group, and kings.
    let lone: Position<International> = parse_fen("B:W:BK1").unwrap();
    assert_eq!(lone.white(), 0);
    assert_eq!(lone.kings().count_ones(), 1);
    // '?' as side to move means the variant's first mover.
    let q: Position<English> = parse_fen("?:W29,13,11:B22,4,2").unwrap();
    assert_eq!(q.side(), tammi::rules::Color::Black);
}

#[test]
fn fen_errors_say_what_and_where() {
    let err = |fen: &str| {
        parse_fen::<Position<International>>(fen)
            .unwrap_err()
            .to_string()
    };
    assert!(
        err("X:W31:B1").contains("side to move"),
        "{}",
        err("X:W31:B1")
    );
    let e = err("W:W31,51:B1");
    assert!(e.contains("51") && e.contains("column 7"), "{e}");
    assert!(err("W:W31:B31").contains("twice"));
    assert!(err("W:W3:B40").contains("promotion row"));
    assert!(err("W:W20-10:B1").contains("backwards"));
    assert!(err("").contains("empty"));
}

#[test]
fn moves_are_read_in_every_form() {
    let pos: Position<English> = Position::start();
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let by_number = parse_move(&pos, "11-15", &legal).unwrap();
    // Black moves first in english: a white move is illegal here.
    assert_eq!(
        parse_move(&pos, "22-18", &legal),
        Err(MoveTextError::Illegal {
            text: "22-18".into(),
            hint: "7 legal moves".into()
        })
    );
    assert_eq!(
        parse_move(&pos, "22-18", &legal).unwrap_err().to_string(),
        "illegal move '22-18' (7 legal moves)"
    );
    // Text that is no move at all is malformed, whatever the position.
    for bad in ["", "22-", "HELP", "22-99", "k9-a1", "22/18"] {
        assert!(
            matches!(
                parse_move(&pos, bad, &legal),
                Err(MoveTextError::Malformed(_))
            ),
            "{bad}: {:?}",
            parse_move(&pos, bad, &legal)
        );
    }
    // 11 is f6 in letter–number form, 15 is e5.
    assert_eq!(parse_move(&pos, "f6-e5", &legal).unwrap(), by_number);
    assert_eq!(parse_move(&pos, "f6e5", &legal).unwrap(), by_number);
    assert_eq!(parse_move(&pos, "1115", &legal).unwrap(), by_number);
    // Russian short form: file of the start square and the destination.
    let r: Position<Russian> = Position::start();
    let mut rl = Vec::new();
    r.generate(&mut rl);
    let c3d4 = parse_move(&r, "c3-d4", &rl).unwrap();
    assert_eq!(parse_move(&r, "cd4", &rl).unwrap(), c3d4);
    // cd4 could be c3-d4 only; "cb4" is c3-b4 while "ab4" is a3-b4.
    assert_ne!(
        parse_move(&r, "cb4", &rl).unwrap(),
        parse_move(&r, "ab4", &rl).unwrap()
    );
}

#[test]
fn ambiguous_captures_are_written_with_the_full_route_and_read_back() {
    // The man on 30 (c1) reaches 14 (c5) over 26 and 18, or over 25 and 17.
    let fen = "W:W30:B25,26,17,18";
    assert_eq!(
        numeric(tammi::rules::Variant::English, fen),
        ["30x21x14", "30x23x14"]
    );
    let pos: Position<English> = parse_fen(fen).unwrap();
    let mut legal = Vec::new();
    pos.generate(&mut legal);
    let err = parse_move(&pos, "30x14", &legal).unwrap_err();
    let MoveTextError::Ambiguous { text, candidates } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (text.as_str(), &candidates[..]),
        (
            "30x14",
            &["30x21x14".to_string(), "30x23x14".to_string()][..]
        )
    );
    let err = err.to_string();
    assert!(
        err.contains("ambiguous") && err.contains("30x21x14") && err.contains("30x23x14"),
        "{err}"
    );
    let via23 = parse_move(&pos, "30x23x14", &legal).unwrap();
    assert_eq!(
        format_move(&pos, &via23, &legal, Notation::Numeric),
        "30x23x14"
    );
    assert_eq!(
        format_move(&pos, &via23, &legal, Notation::Letter),
        "c1:e3:c5"
    );
    // The Hub form names the captured squares instead of the route.
    assert_eq!(format_hub_move::<Position<English>>(&via23), "30x14x18x26");
    assert_eq!(parse_move(&pos, "30x14x18x26", &legal).unwrap(), via23);
    assert_eq!(parse_move(&pos, "30x14x26x18", &legal).unwrap(), via23);
    assert_eq!(parse_move(&pos, "c1:e3:c5", &legal).unwrap(), via23);
}

#[test]
fn unambiguous_captures_are_written_short() {
    assert_eq!(
        numeric(tammi::rules::Variant::English, "W:W22:B18,11"),
        ["22x8"]
    );
    assert_eq!(
        common::letter(tammi::rules::Variant::Russian, "W:Wc3:Bd4,f6"),
        ["c3:g7"]
    );
}

#[test]
fn every_legal_move_reads_back_from_its_own_text() {
    fn check<P: Board>(seed: u64) {
        let mut rng = Rng(seed);
        for pos in random_positions::<P>(seed, 300) {
            let mut legal = Vec::new();
            pos.generate(&mut legal);
            let mv = legal[rng.below(legal.len())];
            for notation in [Notation::Numeric, Notation::Letter] {
                let text = format_move(&pos, &mv, &legal, notation);
                assert_eq!(parse_move(&pos, &text, &legal), Ok(mv), "{text}");
            }
            let hub = format_hub_move::<P>(&mv);
            assert_eq!(parse_move(&pos, &hub, &legal), Ok(mv), "{hub}");
        }
    }
    check::<Position<English>>(11);
    check::<Position<International>>(12);
    check::<Position<Russian>>(13);
    check::<Position<Canadian>>(14);
    check::<TurkishPosition>(15);
}
