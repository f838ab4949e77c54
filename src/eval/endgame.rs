//! Endgame knowledge shared by the evaluation families: which material balances are known
//! draws, which are drawish (scaled down), and which are kings-only wins to drive home.

use crate::rules::{Bits, Color};

use super::Weights;

/// Piece counts, indexed by colour (`Color::White as usize` = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Material {
    pub men: [u32; 2],
    pub kings: [u32; 2],
}

impl Material {
    /// The counts of a board given by its white, black and king sets (every evaluation
    /// family reads its material here, so a king is never counted as a man in one of them).
    #[inline(always)]
    pub fn of<B: Bits>(white: B, black: B, kings: B) -> Material {
        Material {
            men: [(white & !kings).count(), (black & !kings).count()],
            kings: [(white & kings).count(), (black & kings).count()],
        }
    }
}

/// What the material says about the game's likely result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Nothing special.
    Normal,
    /// A dead draw (a lone king against a lone king): the score is 0.
    Drawn,
    /// Usually a draw: the score is scaled down to `drawish_scale_pct`.
    Drawish,
    /// Three pieces against a lone king that does not hold the long diagonal: winnable,
    /// scaled to `three_vs_one_scale_pct`.
    ThreeVsOne,
    /// Kings only and a won balance: the stronger side is told to close in.
    Chase(Color),
    /// Flying kings, men on the board and a king that may hold the balance: `few[c]`, side
    /// `c` has three pieces or fewer against at least one king (a king stops so few
    /// pieces from winning); `even`, both sides have the same number of kings and their
    /// men differ by one at most (the kings cancel and one man is rarely enough). Which
    /// side is ahead is the score's to say: see [`scale`].
    KingHeld { few: [bool; 2], even: bool },
}

#[inline(always)]
fn idx(c: Color) -> usize {
    c as usize
}

/// Classify `m`. `flying`: kings move along whole lines. `lone_king_holds_long_diagonal`
/// is asked only for three pieces against a lone king of the given colour.
pub fn classify(
    m: &Material,
    flying: bool,
    lone_king_holds_long_diagonal: impl FnOnce(Color) -> bool,
) -> Ending {
    let pieces = |c: Color| m.men[idx(c)] + m.kings[idx(c)];
    let lone_king = |c: Color| m.men[idx(c)] == 0 && m.kings[idx(c)] == 1;
    if m.men == [0, 0] {
        let (w, b) = (m.kings[0], m.kings[1]);
        if w == b {
            return if w == 1 {
                Ending::Drawn
            } else {
                Ending::Drawish
            };
        }
        let (strong, s, weak) = if w > b {
            (Color::White, w, b)
        } else {
            (Color::Black, b, w)
        };
        if weak == 0 {
            return Ending::Normal;
        }
        if !flying {
            // Short kings: an extra king wins (two against one is the textbook case).
            return Ending::Chase(strong);
        }
        // Flying kings: two against one cannot win; three win only if the defender is
        // kept off the long diagonal; four always win. With more defenders, one extra
        // king is not enough.
        return match (s, weak) {
            (_, 1) if s <= 2 => Ending::Drawish,
            (3, 1) if lone_king_holds_long_diagonal(strong.opposite()) => Ending::Drawish,
            (3, 1) => Ending::ThreeVsOne,
            (_, 1) => Ending::Chase(strong),
            _ if s <= weak + 1 => Ending::Drawish,
            _ => Ending::Normal,
        };
    }
    if flying {
        // A king and a man (or two pieces with a king) against a lone king: a draw with
        // correct defence, the FMJD five-move rule exists for this reason.
        for strong in [Color::White, Color::Black] {
            let weak = strong.opposite();
            if lone_king(weak) && pieces(strong) <= 2 && m.kings[idx(strong)] >= 1 {
                return Ending::Drawish;
            }
        }
        let few =
            [Color::White, Color::Black].map(|c| pieces(c) <= 3 && m.kings[idx(c.opposite())] >= 1);
        let even = m.kings[0] == m.kings[1] && m.kings[0] >= 1 && m.men[0].abs_diff(m.men[1]) <= 1;
        if few != [false, false] || even {
            return Ending::KingHeld { few, even };
        }
    }
    Ending::Normal
}

/// Apply the scaling of `ending` to a white-relative `score`.
#[inline]
pub fn scale(score: i32, ending: Ending, w: &Weights) -> i32 {
    match ending {
        Ending::Drawn => 0,
        Ending::Drawish => score * w.drawish_scale_pct / 100,
        Ending::ThreeVsOne => score * w.three_vs_one_scale_pct / 100,
        Ending::KingHeld { few, even } => {
            let ahead = if score > 0 {
                Color::White
            } else {
                Color::Black
            };
            if few[idx(ahead)] {
                score * w.king_held_scale_pct / 100
            } else if even {
                score * w.kings_even_scale_pct / 100
            } else {
                score
            }
        }
        Ending::Normal | Ending::Chase(_) => score,
    }
}

/// Whether `scale` leaves every score of `ending` as it is (the tuner fits only such
/// positions, whose score is linear in the weights).
pub fn unscaled(ending: Ending, w: &Weights) -> bool {
    match ending {
        Ending::Normal | Ending::Chase(_) => true,
        Ending::Drawn => false,
        Ending::Drawish => w.drawish_scale_pct == 100,
        Ending::ThreeVsOne => w.three_vs_one_scale_pct == 100,
        Ending::KingHeld { few, even } => {
            (few == [false, false] || w.king_held_scale_pct == 100)
                && (!even || w.kings_even_scale_pct == 100)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(wm: u32, wk: u32, bm: u32, bk: u32) -> Material {
        Material {
            men: [wm, bm],
            kings: [wk, bk],
        }
    }

    #[test]
    fn material_counts_kings_apart_from_men() {
        // White men on 0 and 1, a white king on 2; black man on 10, black kings on 11 and 12.
        let (white, black, kings) = (0b111u64, 0b1_1100_0000_0000u64, 0b1_1000_0000_0100u64);
        assert_eq!(Material::of(white, black, kings), mat(2, 1, 1, 2));
        assert_eq!(Material::of(0u64, 0, 0), mat(0, 0, 0, 0));
    }

    #[test]
    fn known_draws_and_wins() {
        let never = |_: Color| -> bool { panic!("not asked") };
        assert_eq!(classify(&mat(0, 1, 0, 1), true, never), Ending::Drawn);
        assert_eq!(classify(&mat(0, 1, 0, 1), false, never), Ending::Drawn);
        assert_eq!(classify(&mat(0, 2, 0, 1), true, never), Ending::Drawish);
        assert_eq!(
            classify(&mat(0, 2, 0, 1), false, never),
            Ending::Chase(Color::White)
        );
        assert_eq!(classify(&mat(0, 3, 0, 1), true, |_| true), Ending::Drawish);
        assert_eq!(
            classify(&mat(0, 3, 0, 1), true, |_| false),
            Ending::ThreeVsOne
        );
        assert_eq!(
            classify(&mat(0, 1, 0, 4), true, never),
            Ending::Chase(Color::Black)
        );
        assert_eq!(classify(&mat(1, 1, 0, 1), true, never), Ending::Drawish);
        assert_eq!(classify(&mat(5, 0, 5, 0), true, never), Ending::Normal);
        // A king against three pieces, and kings level with the men a man apart.
        assert_eq!(
            classify(&mat(2, 1, 5, 1), true, never),
            Ending::KingHeld {
                few: [true, false],
                even: false
            }
        );
        assert_eq!(
            classify(&mat(4, 1, 3, 1), true, never),
            Ending::KingHeld {
                few: [false, false],
                even: true
            }
        );
        assert_eq!(classify(&mat(4, 2, 3, 1), true, never), Ending::Normal);
        // Short kings: no such holding.
        assert_eq!(classify(&mat(2, 1, 5, 1), false, never), Ending::Normal);
    }

    #[test]
    fn a_held_ending_scales_only_the_side_ahead() {
        let mut w = Weights::zero(50);
        w.king_held_scale_pct = 10;
        w.kings_even_scale_pct = 50;
        // White has three pieces against Black's king and five men.
        let held = classify(&mat(2, 1, 5, 1), true, |_| false);
        assert_eq!(scale(200, held, &w), 20);
        assert_eq!(scale(-200, held, &w), -200);
        let even = classify(&mat(4, 1, 3, 1), true, |_| false);
        assert_eq!(scale(200, even, &w), 100);
        assert_eq!(scale(-200, even, &w), -100);
        assert!(!unscaled(held, &w));
        w.king_held_scale_pct = 100;
        w.kings_even_scale_pct = 100;
        assert!(unscaled(held, &w) && unscaled(even, &w));
    }
}
