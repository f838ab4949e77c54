//! Time management (Scan's scheme): share the remaining time over the moves expected before
//! the next control, with a soft limit (do not start another iteration after it) and a hard
//! limit (abort the search), and stretch the soft limit while the best move keeps changing.

use std::time::Duration;

use super::limits::Limits;

/// Moves assumed to remain in a sudden-death game (or with an increment).
const MOVES_HORIZON: u32 = 30;
/// The hard limit may reach this many soft budgets...
const HARD_OVER_SOFT: u32 = 5;
/// ...but never more than this share of the usable time, except on the last move before
/// a control, where most of the clock may go.
const HARD_SHARE: f64 = 0.5;
const HARD_SHARE_LAST_MOVE: f64 = 0.9;

/// The time one search may use, measured from its start (or from `ponder_hit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Stop deepening once past this (scaled by the best move's stability).
    pub soft: Duration,
    /// Abort the search here.
    pub hard: Duration,
}

/// The budget for `limits`, or `None` when time does not limit the search.
///
/// The hard limit never exceeds the remaining clock time minus `overhead` (so the engine
/// cannot lose on time however slow the machine), and `soft <= hard` always.
pub fn allocate(limits: &Limits, overhead: Duration) -> Option<Budget> {
    if limits.infinite {
        return None;
    }
    let mut best: Option<Budget> = None;
    if let Some(t) = limits.move_time {
        // Use the whole move time, less the overhead (and at most half of it goes there).
        let hard = t.saturating_sub(overhead).max(t / 2);
        best = Some(Budget { soft: hard, hard });
    }
    if let Some(remaining) = limits.time {
        let usable = remaining.saturating_sub(overhead);
        let moves = limits
            .moves_to_go
            .unwrap_or(MOVES_HORIZON)
            .clamp(1, MOVES_HORIZON);
        // The increment is added before each move, this one included. Each move pays the
        // overhead; when that would eat the whole share, still think a little.
        let share_per_move = (remaining + limits.increment * (moves - 1)) / moves;
        let soft = share_per_move
            .saturating_sub(overhead)
            .max(usable / (2 * moves));
        let share = if moves == 1 {
            HARD_SHARE_LAST_MOVE
        } else {
            HARD_SHARE
        };
        let hard = (soft * HARD_OVER_SOFT).min(usable.mul_f64(share));
        let clock = Budget {
            soft: soft.min(hard),
            hard,
        };
        best = Some(match best {
            Some(b) => Budget {
                soft: b.soft.min(clock.soft),
                hard: b.hard.min(clock.hard),
            },
            None => clock,
        });
    }
    best
}

/// How far past the soft limit the search may go, from the best move's recent history:
/// more time while it changes, less once it has held for several iterations.
pub fn stability_factor(changes: f64, stable_iterations: u32) -> f64 {
    let base = 0.8 + 0.7 * changes;
    let calm = if stable_iterations >= 4 { 0.7 } else { 1.0 };
    (base * calm).clamp(0.5, 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn forms() {
        let o = ms(50);
        assert_eq!(allocate(&Limits::infinite(), o), None);
        assert_eq!(allocate(&Limits::depth(5), o), None);
        let b = allocate(&Limits::move_time(ms(1000)), o).unwrap();
        assert_eq!((b.soft, b.hard), (ms(950), ms(950)));
        let b = allocate(&Limits::clock(ms(60_000), ms(0), None), o).unwrap();
        assert!(b.soft > ms(1000) && b.soft < ms(3000), "{b:?}");
        assert!(b.hard <= ms(30_000));
        let b = allocate(&Limits::clock(ms(10_000), ms(0), Some(1)), o).unwrap();
        assert!(b.hard > ms(8000) && b.hard < ms(9950), "{b:?}");
        let b = allocate(&Limits::clock(ms(1_000), ms(5_000), None), o).unwrap();
        assert!(b.hard <= ms(950), "{b:?}");
    }
}
