//! The history heuristic: quiet moves that caused cut-offs elsewhere in the tree are tried
//! early, indexed by side, start and end square.

use crate::rules::{Color, Move};

/// Scores are kept within ±MAX by the update rule ("history gravity").
const MAX: i32 = 1 << 14;
const SQUARES: usize = 128;

pub struct History {
    table: Vec<i32>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: vec![0; 2 * SQUARES * SQUARES],
        }
    }
}

impl History {
    #[inline(always)]
    fn index<B>(side: Color, mv: &Move<B>) -> usize {
        (side as usize * SQUARES + mv.from as usize) * SQUARES + mv.to as usize
    }

    #[inline(always)]
    pub fn get<B>(&self, side: Color, mv: &Move<B>) -> i32 {
        self.table[Self::index(side, mv)]
    }

    /// Reward (`bonus > 0`) or punish a move; large entries move less, so old knowledge
    /// fades and the scores stay bounded.
    #[inline(always)]
    pub fn update<B>(&mut self, side: Color, mv: &Move<B>, bonus: i32) {
        let b = bonus.clamp(-MAX, MAX);
        let e = &mut self.table[Self::index(side, mv)];
        *e += b - *e * b.abs() / MAX;
    }

    /// The bonus for a cut-off at `depth`.
    #[inline(always)]
    pub fn bonus(depth: i32) -> i32 {
        (depth * depth * 16).min(MAX / 4)
    }
}
