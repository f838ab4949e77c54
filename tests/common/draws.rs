//! Games that end by each draw rule of each variant, built from the rules core: king walks
//! that never capture, never allow a capture and never repeat (so only a move counter
//! can end them), and shuffles that repeat a position for the third time.

use std::collections::HashSet;

use tammi::notation::{format_hub_move, parse_position, write_fen};
use tammi::rules::{Bits, Board, DrawReason, Game, Notation, Outcome, Variant};
use tammi::with_board;

/// A game from `fen` whose last move, `moves.last()`, draws it for `reason`.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub variant: Variant,
    pub fen: String,
    /// Hub form.
    pub moves: Vec<String>,
    pub reason: DrawReason,
}

impl Scenario {
    /// The outcome the rules give at the end.
    pub fn outcome(&self) -> Outcome {
        Outcome::Draw(self.reason)
    }

    /// The FEN after the first `plies` moves.
    pub fn fen_after(&self, plies: usize) -> String {
        with_board!(self.variant, P => {
            let game = replay::<P>(&self.fen, &self.moves[..plies]);
            write_fen(game.position(), Notation::Numeric)
        })
    }
}

/// The game of `fen` and `moves` (Hub form), every move checked.
pub fn replay<P: Board>(fen: &str, moves: &[String]) -> Game<P> {
    let start: P = parse_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut game = Game::new(start);
    for m in moves {
        let mv = tammi::notation::parse_move(game.position(), m, &game.legal_moves())
            .unwrap_or_else(|e| panic!("{fen} {m}: {e}"));
        game.play(&mv).unwrap();
    }
    game
}

/// `plies` king moves from `fen` that never capture, never allow a capture and never
/// repeat a position, found by depth-first search. Hub form.
pub fn king_walk(variant: Variant, fen: &str, plies: usize) -> Vec<String> {
    fn dfs<P: Board>(pos: &P, left: usize, seen: &mut HashSet<u64>, out: &mut Vec<String>) -> bool {
        if left == 0 {
            return true;
        }
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        for m in &legal {
            if m.is_capture() || !pos.kings().has(m.from as u32) {
                continue;
            }
            let child = pos.play(m);
            if child.has_capture() || !seen.insert(Board::hash(&child)) {
                continue;
            }
            out.push(format_hub_move::<P>(m));
            if dfs(&child, left - 1, seen, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    with_board!(variant, P => {
        let pos: P = parse_position(fen).unwrap();
        let mut seen = HashSet::from([Board::hash(&pos)]);
        let mut out = Vec::new();
        assert!(dfs(&pos, plies, &mut seen, &mut out), "no walk of {plies} plies from {fen}");
        out
    })
}

/// Eight plies from `fen`: a king of the side to move goes and comes back, so does one of
/// the other side, twice; the last ply (the other side's) brings the start position back
/// for the third time. No position on the way has a capture.
pub fn shuffle(variant: Variant, fen: &str) -> Vec<String> {
    shuffle_pieces(variant, fen, true)
}

/// As [`shuffle`], with men (`kings` false: turkish men stepping sideways) or kings.
pub fn shuffle_pieces(variant: Variant, fen: &str, kings: bool) -> Vec<String> {
    with_board!(variant, P => {
        let p0: P = parse_position(fen).unwrap();
        let quiet = |p: &P| -> Vec<tammi::rules::Move<<P as Board>::B>> {
            let mut l = Vec::new();
            p.generate(&mut l);
            l.into_iter()
                .filter(|m| !m.is_capture() && p.kings().has(m.from as u32) == kings)
                .filter(|m| !m.promote)
                .filter(|m| !p.play(m).has_capture())
                .collect()
        };
        let back = |p: &P, m: &tammi::rules::Move<<P as Board>::B>| {
            quiet(p).into_iter().find(|r| r.from == m.to && r.to == m.from)
        };
        for m1 in quiet(&p0) {
            let p1 = p0.play(&m1);
            for m2 in quiet(&p1) {
                let p2 = p1.play(&m2);
                let Some(r1) = back(&p2, &m1) else { continue };
                let p3 = p2.play(&r1);
                let Some(r2) = back(&p3, &m2) else { continue };
                if p3.play(&r2) == p0 {
                    let cycle: Vec<String> =
                        [m1, m2, r1, r2].iter().map(format_hub_move::<P>).collect();
                    return [cycle.clone(), cycle].concat();
                }
            }
        }
        panic!("no shuffle from {fen}")
    })
}

/// A man move first (so the move rule starts again but the material stands), then a
/// king walk: ends by a few-pieces rule where the move rule counts as long.
fn man_then_walk(variant: Variant, fen: &str, plies: usize) -> Vec<String> {
    let first = with_board!(variant, P => {
        let pos: P = parse_position(fen).unwrap();
        let mut l = Vec::new();
        pos.generate(&mut l);
        let m = l
            .iter()
            .find(|m| !pos.kings().has(m.from as u32) && !m.promote && !pos.play(m).has_capture())
            .expect("a quiet man move");
        (format_hub_move::<P>(m), write_fen(&pos.play(m), Notation::Numeric))
    });
    let mut moves = vec![first.0];
    moves.extend(king_walk(variant, &first.1, plies - 1));
    moves
}

/// Every draw rule of every variant, each with a game that ends by it. Breakthrough has
/// none that can happen: a king ends its game, and a man move is irreversible.
pub fn scenarios() -> Vec<Scenario> {
    use DrawReason::*;
    let s = |variant, fen: &str, moves, reason| Scenario {
        variant,
        fen: fen.to_string(),
        moves,
        reason,
    };
    let three = Repetition { times: 3 };
    let mut out = vec![
        s(
            Variant::English,
            "B:WK30:BK1,K2,K3",
            shuffle(Variant::English, "B:WK30:BK1,K2,K3"),
            three,
        ),
        s(
            Variant::English,
            "W:WK29,K30,K31:BK1,K2",
            king_walk(Variant::English, "W:WK29,K30,K31:BK1,K2", 80),
            MoveRule { moves: 40 },
        ),
    ];
    // The FMJD rules on every board that plays them.
    // (variant, the first square of White's back row, where the lone king stands: off
    // the long diagonal on 8x8, where three kings leave it no safe square)
    for (variant, b, lone) in [
        (Variant::International, 46, 4),
        (Variant::Killer, 46, 4),
        (Variant::Brazilian, 29, 1),
        (Variant::Canadian, 67, 4),
    ] {
        let fen = |w: &[u32], bl: &[u32], side: char| {
            let k = |v: &[u32]| {
                v.iter()
                    .map(|n| format!("K{n}"))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            format!("{side}:W{}:B{}", k(w), k(bl))
        };
        let rep = fen(&[b], &[1, 2, 3], 'B');
        let moves = fen(&[b, b + 1, b + 2, b + 3], &[1, 2], 'W');
        let sixteen = fen(&[b, b + 1, b + 2], &[lone], 'W');
        let five = fen(&[b, b + 1], &[lone], 'W');
        out.push(s(variant, &rep, shuffle(variant, &rep), three));
        out.push(s(
            variant,
            &moves,
            king_walk(variant, &moves, 50),
            MoveRule { moves: 25 },
        ));
        out.push(s(
            variant,
            &sixteen,
            king_walk(variant, &sixteen, 32),
            FewPieces {
                pieces: 3,
                moves: 16,
            },
        ));
        out.push(s(
            variant,
            &five,
            king_walk(variant, &five, 10),
            FewPieces {
                pieces: 2,
                moves: 5,
            },
        ));
    }
    // Russian: 15 moves each for both rules.
    out.push(s(
        Variant::Russian,
        "B:WKa1:BKb8,Kd8,Kf8",
        shuffle(Variant::Russian, "B:WKa1:BKb8,Kd8,Kf8"),
        three,
    ));
    out.push(s(
        Variant::Russian,
        "W:WK29,K30,K31,K32:BK1,K2",
        king_walk(Variant::Russian, "W:WK29,K30,K31,K32:BK1,K2", 30),
        MoveRule { moves: 15 },
    ));
    out.push(s(
        Variant::Russian,
        "W:WK29,K30,22:BK1",
        man_then_walk(Variant::Russian, "W:WK29,K30,22:BK1", 30),
        FewPieces {
            pieces: 3,
            moves: 15,
        },
    ));
    // The 8x8 family (issue 18). Italian (FID art. 9.3(b1), 10.4): the fourth occurrence,
    // and 40 moves each; pool (APCA rule 26): 15 moves each; czech, spanish and thai:
    // threefold repetition only.
    let cycle = shuffle(Variant::Italian, "B:WK30:BK1,K2,K3");
    out.push(s(
        Variant::Italian,
        "B:WK30:BK1,K2,K3",
        [&cycle[..4], &cycle[..]].concat(),
        Repetition { times: 4 },
    ));
    out.push(s(
        Variant::Italian,
        "W:WK29,K30,K31:BK1,K2",
        king_walk(Variant::Italian, "W:WK29,K30,K31:BK1,K2", 80),
        MoveRule { moves: 40 },
    ));
    out.push(s(
        Variant::Pool,
        "W:WK29,K30,K31,K32:BK1,K2",
        king_walk(Variant::Pool, "W:WK29,K30,K31,K32:BK1,K2", 30),
        MoveRule { moves: 15 },
    ));
    // (spanish squares count from White's corner: its lone king stands on 4, b1)
    for (variant, fen) in [
        (Variant::Pool, "B:WK29:BK1,K2,K3"),
        (Variant::Czech, "B:WK29:BK1,K2,K3"),
        (Variant::Spanish, "B:WK4:BK30,K31,K32"),
        (Variant::Thai, "B:WK29:BK1,K2,K3"),
    ] {
        out.push(s(variant, fen, shuffle(variant, fen), three));
    }
    // Turkish and losing: threefold repetition only.
    out.push(s(
        Variant::Turkish,
        "B:WKa1:BKh8,Kg8,Kf8",
        shuffle(Variant::Turkish, "B:WKa1:BKh8,Kg8,Kf8"),
        three,
    ));
    // Turkish men step sideways and back: those positions repeat too (White, a man
    // ahead, would not repeat; Black's last step draws).
    out.push(s(
        Variant::Turkish,
        "W:Wa3,b3:Bh6",
        shuffle_pieces(Variant::Turkish, "W:Wa3,b3:Bh6", false),
        three,
    ));
    out.push(s(
        Variant::Losing,
        "B:WK46,K47,K48:BK1",
        shuffle(Variant::Losing, "B:WK46,K47,K48:BK1"),
        three,
    ));
    out
}
