//! A played game judged by the database: the moves that let a database win go or lost a
//! database draw, and the database wins the game did not turn into wins (drawn by a
//! move-count rule, say). This is how a match shows that the distances keep won endings
//! won: every position the database holds has a value, so each move that changes the
//! value the game is heading for is a mistake of the side that played it.

use super::{Database, Wld, distance::is_conversion};
use crate::rules::{Board, Color, Move};

/// What a position is worth to the players, whoever is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Won(Color),
    Drawn,
}

impl Outcome {
    fn of(value: Wld, to_move: Color) -> Outcome {
        match value {
            Wld::Win => Outcome::Won(to_move),
            Wld::Loss => Outcome::Won(to_move.opposite()),
            Wld::Draw => Outcome::Drawn,
        }
    }

    /// Points for `side`, doubled (a win 2, a draw 1, a loss 0), to tell better from worse.
    fn points(self, side: Color) -> u8 {
        match self {
            Outcome::Won(c) if c == side => 2,
            Outcome::Won(_) => 0,
            Outcome::Drawn => 1,
        }
    }

    /// The outcome of a PDN result tag or terminator (`1-0`, `0-1`, `1/2-1/2`, and the
    /// `2-0`/`0-2`/`1-1` of the 10x10 world); `*` and anything else is unknown.
    pub fn of_result(result: &str) -> Option<Outcome> {
        match result.trim() {
            "1-0" | "2-0" => Some(Outcome::Won(Color::White)),
            "0-1" | "0-2" => Some(Outcome::Won(Color::Black)),
            "1/2-1/2" | "1-1" | "½-½" => Some(Outcome::Drawn),
            _ => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Won(Color::White) => "a white win",
            Outcome::Won(Color::Black) => "a black win",
            Outcome::Drawn => "a draw",
        }
    }
}

/// A move that made the database's outcome worse for the side that played it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slip {
    /// The move's ply in the game, from 1.
    pub ply: usize,
    pub mover: Color,
    pub before: Outcome,
    pub after: Outcome,
}

/// The database's view of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Review {
    /// The first position the database holds: its ply (0 is the start) and outcome.
    pub entered: Option<(usize, Outcome)>,
    pub slips: Vec<Slip>,
    /// The outcome of the last position, when the database holds it.
    pub last: Option<Outcome>,
    /// When the last position is a database win: the ply where the winner's last stretch
    /// without a conversion began (where the win arose, or its last conversion since),
    /// with the distance to conversion there when the distances are loaded.
    pub stretch: Option<(usize, Option<u8>)>,
    /// The ply of the last position (the number of moves).
    pub end_ply: usize,
}

impl Review {
    /// The side that held a database win at the end of the game and did not win it, given
    /// the game's result (None when the result is unknown or agrees).
    pub fn unconverted(&self, result: Option<Outcome>) -> Option<Color> {
        match (self.last?, result?) {
            (Outcome::Won(c), r) if r != Outcome::Won(c) => Some(c),
            _ => None,
        }
    }

    /// Whether the game ended before the win it held at the end could be converted: fewer
    /// plies after its stretch began than the distance to conversion there. A move-count
    /// rule that draws the game on the ply after the loser walks into a lost ending is no
    /// fault of the winner (nor is any draw before the conversion could be forced).
    pub fn ended_too_soon(&self) -> bool {
        matches!(self.stretch, Some((ply, Some(d))) if self.end_ply - ply < d as usize)
    }
}

/// Walk a game (its moves, each with the position it was played from) through the
/// database. Only positions of the database's variant with at most its pieces are judged;
/// the pieces never grow in a game, so from the first such position on every one is.
pub fn review<P: Board>(db: &Database, moves: &[(P, Move<P::B>)], end: &P) -> Review {
    let mut out = Review {
        end_ply: moves.len(),
        ..Review::default()
    };
    let mut previous: Option<Outcome> = None;
    let positions = moves.iter().map(|(p, _)| p).chain(std::iter::once(end));
    for (ply, pos) in positions.enumerate() {
        let Some(value) = db.probe(pos) else {
            previous = None;
            continue;
        };
        let now = Outcome::of(value, pos.side());
        let converted = ply > 0 && {
            let (p, m) = &moves[ply - 1];
            is_conversion(p, m)
        };
        match now {
            Outcome::Won(_) if previous == Some(now) && !converted => {}
            Outcome::Won(_) => out.stretch = Some((ply, db.distance(pos))),
            Outcome::Drawn => out.stretch = None,
        }
        if out.entered.is_none() {
            out.entered = Some((ply, now));
        }
        if let Some(before) = previous {
            // The side that moved into `pos` is the one not to move in it.
            let mover = pos.side().opposite();
            if now.points(mover) < before.points(mover) {
                out.slips.push(Slip {
                    ply,
                    mover,
                    before,
                    after: now,
                });
            }
        }
        previous = Some(now);
        out.last = Some(now);
    }
    if previous.is_none() {
        out.last = None;
        out.stretch = None;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{English, Position, Variant};

    type E = Position<English>;
    type Game = Vec<(E, Move<<E as Board>::B>)>;

    fn moves(pos: &E) -> Vec<Move<<E as Board>::B>> {
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        legal
    }

    fn outcome(db: &Database, pos: &E) -> Outcome {
        Outcome::of(db.probe(pos).unwrap(), pos.side())
    }

    /// From `pos`, the side to move plays the first move that turns its win into the
    /// given outcome, and then the other side its first move.
    fn slip_game(db: &Database, pos: E, into: Outcome) -> (Game, E) {
        let m = moves(&pos)
            .into_iter()
            .find(|m| outcome(db, &pos.play(m)) == into)
            .expect("a move with that outcome");
        let after = pos.play(&m);
        let reply = moves(&after)[0];
        (vec![(pos, m), (after, reply)], after.play(&reply))
    }

    #[test]
    fn a_move_that_lets_a_win_go_is_the_movers_slip() {
        let db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        // Two kings against one, White to move: won for White.
        let start: E = parse_fen("W:WK10,K19:BK1").unwrap();
        assert_eq!(outcome(&db, &start), Outcome::Won(Color::White));
        // White hangs a king: one king against one is a draw.
        let (game, end) = slip_game(&db, start, Outcome::Drawn);
        let r = review(&db, &game, &end);
        assert_eq!(r.entered, Some((0, Outcome::Won(Color::White))));
        assert_eq!(
            r.slips,
            vec![Slip {
                ply: 1,
                mover: Color::White,
                before: Outcome::Won(Color::White),
                after: Outcome::Drawn,
            }]
        );
        assert_eq!(r.last, Some(Outcome::Drawn));
        assert_eq!(r.unconverted(Some(Outcome::Drawn)), None);
    }

    #[test]
    fn moves_that_keep_the_value_are_no_slips_and_a_win_not_won_is_unconverted() {
        let db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        let mut pos: E = parse_fen("W:WK10,K19:BK1").unwrap();
        let mut game = Vec::new();
        // Six plies in which each side plays a move keeping the database value.
        for _ in 0..6 {
            let keep = outcome(&db, &pos);
            let m = moves(&pos)
                .into_iter()
                .find(|m| outcome(&db, &pos.play(m)) == keep)
                .unwrap();
            game.push((pos, m));
            pos = pos.play(&m);
        }
        let r = review(&db, &game, &pos);
        assert!(r.slips.is_empty(), "{:?}", r.slips);
        assert_eq!(r.last, Some(Outcome::Won(Color::White)));
        // Ended there as a draw (a move-count rule, say): White did not convert.
        assert_eq!(r.unconverted(Some(Outcome::Drawn)), Some(Color::White));
        assert_eq!(r.unconverted(Some(Outcome::Won(Color::White))), None);
        assert_eq!(r.unconverted(None), None);
    }

    #[test]
    fn positions_with_more_pieces_are_not_judged() {
        let db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        let start = E::start();
        let m = moves(&start)[0];
        let r = review(&db, &[(start, m)], &start.play(&m));
        assert_eq!(r.entered, None);
        assert!(r.slips.is_empty());
        assert_eq!((r.last, r.stretch, r.end_ply), (None, None, 1));
    }

    #[test]
    fn a_game_ended_before_the_win_could_be_converted_is_told_apart() {
        let mut db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        db.build_distances(3, &mut |_| {}).unwrap();
        let start: E = parse_fen("W:WK10,K19:BK1").unwrap();
        let d = db.distance(&start).unwrap() as usize;
        assert!(d > 2, "two kings need a while to catch one: {d}");
        // Both sides keep the value without converting (no capture: kings only), as long
        // as they can, up to d + 2 plies.
        let mut pos = start;
        let mut game = Vec::new();
        while game.len() < d + 2 {
            let keep = outcome(&db, &pos);
            let Some(m) = moves(&pos)
                .into_iter()
                .find(|m| !is_conversion(&pos, m) && outcome(&db, &pos.play(m)) == keep)
            else {
                break;
            };
            game.push((pos, m));
            pos = pos.play(&m);
        }
        assert!(game.len() >= d, "the win was held {} plies", game.len());
        for plies in [1, d - 1, d, game.len()] {
            let end = game.get(plies).map_or(pos, |(p, _)| *p);
            let r = review(&db, &game[..plies], &end);
            assert_eq!(r.stretch, Some((0, Some(d as u8))));
            assert_eq!(r.unconverted(Some(Outcome::Drawn)), Some(Color::White));
            // Fewer plies than the distance: the game ended too soon to convert.
            assert_eq!(r.ended_too_soon(), plies < d, "after {plies} plies");
        }
        // Without the distances the review cannot tell.
        let plain = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        let r = review(&plain, &game[..1], &game[1].0);
        assert_eq!(r.stretch, Some((0, None)));
        assert!(!r.ended_too_soon());
    }

    #[test]
    fn outcomes_of_results() {
        assert_eq!(Outcome::of_result("1-0"), Some(Outcome::Won(Color::White)));
        assert_eq!(Outcome::of_result("0-2"), Some(Outcome::Won(Color::Black)));
        assert_eq!(Outcome::of_result("1/2-1/2"), Some(Outcome::Drawn));
        assert_eq!(Outcome::of_result("*"), None);
    }
}
