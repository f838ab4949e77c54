//! The evaluation is a dot product: on thousands of positions, the features the tracer
//! records, multiplied by the weights, give exactly the search's evaluation wherever the
//! tracer says the score is linear.

use crate::common;

use common::{Rng, random_positions};
use tammi::eval::weights::PATTERN_UNIT;
use tammi::eval::{Evaluate, Evaluator, Weights};
use tammi::rules::{Board, Color, English, International, Position, Russian, Variant};

/// Random weights (tables included); the non-linear ones keep their embedded values.
fn random_weights(base: &Weights, rng: &mut Rng) -> Weights {
    let mut p = base.params();
    for (i, v) in p.iter_mut().enumerate() {
        if i < Weights::NAMES.len()
            && (Weights::NAMES[i] == "king_mobility_cap"
                || Weights::SCALINGS.contains(&Weights::NAMES[i]))
        {
            continue;
        }
        *v = rng.below(201) as i32 - 100;
    }
    let mut w = base.clone();
    w.set_params(&p);
    w
}

fn check<P: Evaluate>(seed: u64, count: usize) -> usize {
    let mut rng = Rng(seed);
    let base = Weights::embedded(P::VARIANT);
    let mut linear = 0;
    for (k, w) in [
        base.clone(),
        random_weights(&base, &mut rng),
        random_weights(&base, &mut rng),
    ]
    .iter()
    .enumerate()
    {
        let eval = Evaluator::<P>::with_weights(w);
        let params = w.params();
        for pos in random_positions::<P>(seed + k as u64, count) {
            let f = eval
                .trace(&pos)
                .expect("diagonal evaluations are traceable");
            assert_eq!(
                f.coarse.len() + w.patterns.len() + w.rectangles.len(),
                params.len()
            );
            if !f.linear {
                continue;
            }
            linear += 1;
            let e = eval.evaluate(&pos);
            let white = if pos.side() == Color::White { e } else { -e };
            assert_eq!(
                f.dot(&params),
                white,
                "{}: weights set {k}, {:?}",
                P::VARIANT,
                tammi::notation::write_fen(&pos, P::VARIANT.default_notation())
            );
        }
    }
    linear
}

#[test]
fn english_eval_is_a_dot_product() {
    let n = check::<Position<English>>(11, 3000);
    assert!(n > 8000, "only {n} linear positions");
}

#[test]
fn flying_king_evals_are_dot_products() {
    assert!(check::<Position<International>>(12, 1500) > 3000);
    assert!(check::<Position<Russian>>(13, 1500) > 3000);
}

#[test]
fn tables_are_seen_from_each_side() {
    // A white man on 22 and a black man on 11 stand on the same square from their own
    // sides: with a table alone the position scores 0 for either side to move.
    let mut w = Weights::zero(32);
    w.man = 100;
    w.man_square_opening[21] = 37;
    w.man_square_endgame[21] = 37;
    let eval = Evaluator::<Position<English>>::with_weights(&w);
    let pos: Position<English> = tammi::notation::parse_position("W:W22:B11").unwrap();
    assert_eq!(eval.evaluate(&pos), 0);
    let pos: Position<English> = tammi::notation::parse_position("W:W22:B12").unwrap();
    assert_eq!(eval.evaluate(&pos), 37);
    let pos: Position<English> = tammi::notation::parse_position("B:W21:B11").unwrap();
    assert_eq!(eval.evaluate(&pos), 37);
}

#[test]
fn patterns_are_seen_from_each_side() {
    // Window 1 seen from its own side: the far left 4x4 block, first square = the far
    // left square of the opponent's back row (square 1 for White, 32 for Black).
    let mut w = Weights::unscaled(32);
    w.man = 100;
    let text = "o./../../..";
    let index = tammi::eval::weights::parse_pattern(text).unwrap();
    assert_eq!(tammi::eval::weights::pattern_text(index), text);
    // Weights hold pattern values in 1/PATTERN_UNIT centi-men.
    w.patterns[index] = 50 * PATTERN_UNIT;
    let eval = Evaluator::<Position<English>>::with_weights(&w);
    let score = |fen: &str| {
        let pos: Position<English> = tammi::notation::parse_position(fen).unwrap();
        eval.evaluate(&pos)
    };
    // The men on 22 and 11 stand outside both sides' window 1 (and keep the ending from
    // being scored as a draw).
    // Both sides hold their own square: even.
    assert_eq!(score("W:WK1,22:BK32,11"), 0);
    assert_eq!(score("W:WK1,22:BK31,11"), 50);
    assert_eq!(score("B:WK1,22:BK31,11"), -50);
    assert_eq!(score("B:WK2,22:BK32,11"), 50);
    // An opponent's piece in the window changes the configuration: no longer "o." alone.
    assert_eq!(score("W:WK1,K30,22:BK6,K31,11"), 0);
    // Window 9 is the near right block, whose last square is one's own right back corner.
    let mut w9 = Weights::unscaled(32);
    w9.man = 100;
    let near = tammi::eval::weights::parse_pattern("../../../.o").unwrap();
    w9.patterns[8 * tammi::eval::weights::PATTERN_STATES + near] = 7 * PATTERN_UNIT;
    let eval = Evaluator::<Position<English>>::with_weights(&w9);
    let pos: Position<English> = tammi::notation::parse_position("W:W22,32:B2,11").unwrap();
    assert_eq!(eval.evaluate(&pos), 7);
    let pos: Position<English> = tammi::notation::parse_position("W:W22,32:B1,11").unwrap();
    assert_eq!(eval.evaluate(&pos), 0);
}

#[test]
fn tapered_patterns_on_10x10_are_seen_from_each_side() {
    // International window 1 is the far left 4x4 block (squares 1, 2, 6, 7, 11, 12, 16,
    // 17 for White); Black's window 1 is the board turned round: 50, 49, 45, 44, ...
    let mut w = Weights::unscaled(50);
    w.man = 100;
    let index = tammi::eval::weights::parse_pattern("o./../../..").unwrap();
    let per_phase = 16 * tammi::eval::weights::PATTERN_STATES;
    w.patterns[index] = 40 * PATTERN_UNIT; // opening
    w.patterns[per_phase + index] = 80 * PATTERN_UNIT; // endgame
    let eval = Evaluator::<Position<International>>::with_weights(&w);
    let score = |fen: &str| {
        let pos: Position<International> = tammi::notation::parse_position(fen).unwrap();
        eval.evaluate(&pos)
    };
    // The men on 28 and 23 stand outside both sides' window 1.
    assert_eq!(score("W:WK1,28:BK50,23"), 0);
    // 4 pieces of the 40 at the start: (40 * 4 + 80 * 36) / 40 = 76.
    assert_eq!(score("W:WK1,28:BK49,23"), 76);
    assert_eq!(score("B:WK1,28:BK49,23"), -76);
    assert_eq!(score("B:WK2,28:BK50,23"), 76);
    // A third piece in White's window: no longer "o." alone.
    assert_eq!(score("W:WK1,K7,28:BK49,23"), 0);
}

/// International weights whose every rectangle entry is random (the rest built in).
fn random_rectangles(seed: u64) -> Weights {
    let mut w = Weights::embedded(Variant::International);
    w.add_rectangles().unwrap();
    let mut rng = Rng(seed);
    for v in w.rectangles.iter_mut() {
        *v = rng.below(4001) as i32 - 2000;
    }
    w
}

/// A 10x10 FEN turned half a circle with the colours exchanged: a white piece on square
/// n becomes a black one on 51 - n, and the other side is to move.
fn turned(fen: &str) -> String {
    let parts: Vec<&str> = fen.trim_end_matches('.').split(':').collect();
    let mut lists = [String::new(), String::new()];
    for part in &parts[1..] {
        let (colour, list) = part.split_at(1);
        let mut squares = Vec::new();
        for item in list.split(',').filter(|s| !s.is_empty()) {
            let (king, item) = match item.strip_prefix('K') {
                Some(rest) => ("K", rest),
                None => ("", item),
            };
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()),
                None => (item.parse().unwrap(), item.parse().unwrap()),
            };
            for n in a..=b {
                squares.push(format!("{king}{}", 51 - n));
            }
        }
        // White's pieces go to Black's list and the other way round.
        lists[(colour == "W") as usize] = squares.join(",");
    }
    let side = if parts[0] == "W" { "B" } else { "W" };
    format!("{side}:W{}:B{}", lists[0], lists[1])
}

#[test]
fn rectangles_score_a_position_and_its_half_turn_alike() {
    type P = Position<International>;
    let w = random_rectangles(21);
    let (eval, plain) = (Evaluator::<P>::with_weights(&w), Evaluator::<P>::new());
    let mut changed = 0;
    for pos in random_positions::<P>(21, 2000) {
        let fen = tammi::notation::write_fen(&pos, Variant::International.default_notation());
        let image: P = tammi::notation::parse_position(&turned(&fen)).unwrap();
        assert_eq!(
            eval.evaluate(&pos),
            eval.evaluate(&image),
            "{fen} / {}",
            turned(&fen)
        );
        changed += (eval.evaluate(&pos) != plain.evaluate(&pos)) as usize;
    }
    // The rectangles counted in nearly every position (kings alone read as empty).
    assert!(changed > 1500, "{changed}");
}

#[test]
fn rectangle_windows_read_men_from_each_side() {
    // Table 1 is window 1: the left four files of the top six ranks (squares 1, 2, 6, 7,
    // ... 26, 27). A white man on 27 is its last square (digit 11); a black man on 24 is
    // the same man seen by Black, in his window 1 of the board turned round.
    type P = Position<International>;
    let mut w = Weights::unscaled(50);
    w.man = 100;
    w.add_rectangles().unwrap();
    let per_phase = 4 * tammi::eval::rectangles::STATES;
    let index = 3usize.pow(11);
    assert_eq!(
        tammi::eval::rectangles::configuration_text(index),
        "../../../../../.w"
    );
    w.rectangles[index] = 40 * PATTERN_UNIT; // opening
    w.rectangles[per_phase + index] = 80 * PATTERN_UNIT; // endgame
    let eval = Evaluator::<P>::with_weights(&w);
    let score = |fen: &str| {
        let pos: P = tammi::notation::parse_position(fen).unwrap();
        eval.evaluate(&pos)
    };
    // 3 pieces of the 40 at the start: a man up, and (40 * 3 + 80 * 37) / 40 = 77.
    assert_eq!(score("W:W27,K46:BK5"), 177);
    assert_eq!(score("B:W27,K46:BK5"), -177);
    assert_eq!(score("B:WK46:B24,K5"), 177);
    // Kings read as empty; another man in the window is another configuration.
    assert_eq!(score("W:WK27,K46:BK5"), 0);
    assert_eq!(score("W:W27,K46:B22,K5"), 0);
    // The same man in window 2 (files 3 to 6) is a different entry.
    assert_eq!(score("W:W28,K46:BK5"), 100);
}

#[test]
fn rectangles_keep_the_eval_a_dot_product() {
    type P = Position<International>;
    let w = random_rectangles(31);
    let eval = Evaluator::<P>::with_weights(&w);
    let params = w.params();
    let mut linear = 0;
    for pos in random_positions::<P>(31, 1500) {
        let f = eval.trace(&pos).unwrap();
        if !f.linear {
            continue;
        }
        linear += 1;
        let e = eval.evaluate(&pos);
        let white = if pos.side() == Color::White { e } else { -e };
        assert_eq!(f.dot(&params), white);
    }
    assert!(linear > 1000, "{linear}");
}
