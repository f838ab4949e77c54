//! What the search needs to know about the game beyond the board: Zobrist keys updated
//! move by move, the draw counters, and the draw rules of the variant applied to them.

use crate::rules::zobrist::{KEYS, SIDE};
use crate::rules::{Bits, Board, Color, DrawRules, Move};

/// The plies counted by the draw rules since their last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Plies in a row with only kings moving and nothing captured (the 25-move rule in
    /// international, 40 moves in english). Positions before the last such reset can
    /// never recur, so this is also the repetition window.
    pub reversible: u16,
    /// Plies since the last capture or promotion: how long the current material has
    /// stood (the FMJD few-pieces endings).
    pub material: u16,
}

impl Counters {
    /// The counters after `mv` is played in `pos`.
    #[inline(always)]
    pub fn after<P: Board>(self, pos: &P, mv: &Move<P::B>) -> Counters {
        let capture = mv.is_capture();
        let king_move = pos.kings().has(mv.from as u32);
        Counters {
            reversible: if king_move && !capture {
                self.reversible.saturating_add(1)
            } else {
                0
            },
            material: if capture || mv.promote {
                0
            } else {
                self.material.saturating_add(1)
            },
        }
    }
}

/// Zobrist piece kinds, as in [`crate::rules::zobrist`]: white man, white king, black man,
/// black king.
#[inline(always)]
fn kind(color: Color, king: bool) -> usize {
    (color as usize) * 2 + king as usize
}

/// The key of `pos.play(mv)` from the key of `pos`, updating only what the move changes
/// (equal to `Board::hash` of the child; checked by the tests).
#[inline(always)]
pub fn key_after<P: Board>(pos: &P, key: u64, mv: &Move<P::B>) -> u64 {
    let me = pos.side();
    let kings = pos.kings();
    let was_king = kings.has(mv.from as u32);
    let mut k = key ^ SIDE;
    k ^= KEYS[kind(me, was_king)][mv.from as usize];
    k ^= KEYS[kind(me, was_king || mv.promote)][mv.to as usize];
    if mv.captured.any() {
        let opp = me.opposite();
        for sq in mv.captured.squares() {
            k ^= KEYS[kind(opp, kings.has(sq))][sq as usize];
        }
    }
    k
}

/// Whether the game is drawn by a counter of `rules`, before `pos`'s side moves.
#[inline]
pub fn drawn_by_counters<P: Board>(pos: &P, c: Counters, rules: &DrawRules) -> bool {
    if rules.reversible_plies.is_some_and(|n| c.reversible >= n) {
        return true;
    }
    let (three, two) = (rules.three_against_one_plies, rules.two_against_one_plies);
    if three.is_none() && two.is_none() {
        return false;
    }
    let (w, b, k) = (pos.white(), pos.black(), pos.kings());
    // A lone king on one side; on the other three pieces or fewer with a king among them.
    let lone_king = |me: P::B| me.count() == 1 && (me & k).any();
    let strong = if lone_king(b) {
        w
    } else if lone_king(w) {
        b
    } else {
        return false;
    };
    if (strong & k).is_empty() {
        return false;
    }
    match strong.count() {
        1 | 2 => two.or(three).is_some_and(|n| c.material >= n),
        3 => three.is_some_and(|n| c.material >= n),
        _ => false,
    }
}

/// Repetition: whether the current position (`key`) has occurred often enough to end the
/// game. `keys` holds the earlier positions of the game and of the search path, oldest
/// first; positions at index `root` or later are in the search tree, where a single
/// repetition already scores as a draw (the side that could avoid it would).
#[inline]
pub fn repeated(keys: &[u64], key: u64, c: Counters, root: usize, repetitions: u8) -> bool {
    let n = keys.len();
    let window = (c.reversible as usize).min(n);
    let mut seen = 0;
    // The same side is to move two, four, ... plies back.
    let mut back = 2;
    while back <= window {
        let i = n - back;
        if keys[i] == key {
            if i >= root {
                return true;
            }
            seen += 1;
            if seen + 1 >= repetitions as usize {
                return true;
            }
        }
        back += 2;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Position};

    #[test]
    fn counters_follow_the_rules() {
        let pos: Position<International> =
            crate::notation::parse_fen("W:WK46,28:BK5").expect("fen");
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        let c = Counters {
            reversible: 4,
            material: 9,
        };
        for m in &legal {
            let after = c.after(&pos, m);
            if pos.kings().has(m.from as u32) {
                assert_eq!(after.reversible, 5);
            } else {
                assert_eq!(after.reversible, 0, "a man move resets");
            }
            assert_eq!(after.material, 10);
        }
    }

    #[test]
    fn few_pieces_endings() {
        let rules = crate::rules::Variant::International.draw_rules();
        let three: Position<International> =
            crate::notation::parse_fen("W:WK46,K47,K48:BK5").expect("fen");
        let at = |m| Counters {
            reversible: 0,
            material: m,
        };
        assert!(!drawn_by_counters(&three, at(31), &rules));
        assert!(drawn_by_counters(&three, at(32), &rules));
        let two: Position<International> =
            crate::notation::parse_fen("W:WK46,30:BK5").expect("fen");
        assert!(!drawn_by_counters(&two, at(9), &rules));
        assert!(drawn_by_counters(&two, at(10), &rules));
        let english = crate::rules::Variant::English.draw_rules();
        let e: Position<English> = crate::notation::parse_fen("W:WK1,K2:BK32").expect("fen");
        assert!(!drawn_by_counters(&e, at(500), &english));
    }
}
