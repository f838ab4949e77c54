//! The clocks of a match: the time control, each engine's clock during a game, and the
//! margin a move may run over before it is lost on time.

use std::time::Duration;

use anyhow::Result;

/// The fixed part of the time-forfeit margin (`--time-margin`): pipes, process
/// scheduling and a loaded machine delay a `done` by a few milliseconds.
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(50);
/// The proportional part: 10% of the time the move was allowed.
pub const MARGIN_SHARE: f64 = 0.10;

/// A game clock: `time` seconds (for every `moves` moves, or the whole game), plus `inc`
/// added before each move (the Hub convention, this move included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub time: Duration,
    pub inc: Duration,
    pub moves: Option<u32>,
}

impl Clock {
    /// `60`, `60+0.5`, `40/60+0.5` (seconds; moves per control before the `/`).
    pub fn parse(text: &str) -> Result<Clock, String> {
        let bad = || {
            format!(
                "'{text}' is not a time control (expected SECONDS[+INCREMENT], e.g. 60+0.5, or MOVES/SECONDS[+INCREMENT])"
            )
        };
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (
                Some(
                    m.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|&m| m > 0)
                        .ok_or_else(bad)?,
                ),
                r,
            ),
            None => (None, text),
        };
        let (time, inc) = match rest.split_once('+') {
            Some((t, i)) => (t, Some(i)),
            None => (rest, None),
        };
        let seconds = |s: &str| -> Result<Duration, String> {
            let x: f64 = s.trim().parse().map_err(|_| bad())?;
            if !(0.0..1e7).contains(&x) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(x))
        };
        let time = seconds(time)?;
        let inc = inc.map(seconds).transpose()?.unwrap_or_default();
        if time.is_zero() && inc.is_zero() {
            return Err(format!("'{text}': the clock needs some time"));
        }
        Ok(Clock { time, inc, moves })
    }

    /// The PGN-style form: `40/60+0.5`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(m) = self.moves {
            s.push_str(&format!("{m}/"));
        }
        s.push_str(&seconds_text(self.time));
        if !self.inc.is_zero() {
            s.push('+');
            s.push_str(&seconds_text(self.inc));
        }
        s
    }
}

fn seconds_text(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What limits each search. With neither a clock nor a move time, a search that takes
/// longer than `move_timeout` is lost on time (it is a hang guard, not a time control).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    pub clock: Option<Clock>,
    pub move_time: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

impl TimeControl {
    /// For reports and the PDN TimeControl tag: `60+0.5`, `0.1s/move`, `depth 8`, …
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.clock {
            parts.push(c.describe());
        }
        if let Some(t) = self.move_time {
            parts.push(format!("{}s/move", seconds_text(t)));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        parts.join(", ")
    }
}

/// An engine's clock during one game.
pub(super) struct ClockState {
    /// Time left on the clock (zero without a game clock).
    pub(super) remaining: Duration,
    /// Moves made by this engine in this game (for `moves=` controls).
    made: u32,
}

impl ClockState {
    pub(super) fn new(tc: &TimeControl) -> ClockState {
        ClockState {
            remaining: tc.clock.map(|c| c.time).unwrap_or_default(),
            made: 0,
        }
    }

    /// The `level` lines for the next search and the time it is allowed (before the
    /// margin). The increment is added first, as the Hub protocol says.
    pub(super) fn before_move(
        &mut self,
        tc: &TimeControl,
        move_timeout: Duration,
    ) -> (Vec<String>, Duration) {
        let mut levels = Vec::new();
        let mut allowed = move_timeout;
        if let Some(c) = tc.clock {
            self.remaining += c.inc;
            allowed = self.remaining;
            let mut line = String::from("level");
            if let Some(m) = c.moves {
                line.push_str(&format!(" moves={}", m - self.made % m));
            }
            line.push_str(&format!(" time={:.3}", self.remaining.as_secs_f64()));
            if !c.inc.is_zero() {
                line.push_str(&format!(" inc={:.3}", c.inc.as_secs_f64()));
            }
            levels.push(line);
        }
        if let Some(t) = tc.move_time {
            levels.push(format!("level move-time={:.3}", t.as_secs_f64()));
            allowed = if tc.clock.is_some() {
                allowed.min(t)
            } else {
                t
            };
        }
        if let Some(d) = tc.depth {
            levels.push(format!("level depth={d}"));
        }
        if let Some(n) = tc.nodes {
            levels.push(format!("level nodes={n}"));
        }
        (levels, allowed)
    }

    pub(super) fn after_move(&mut self, tc: &TimeControl, elapsed: Duration) {
        if let Some(c) = tc.clock {
            self.remaining = self.remaining.saturating_sub(elapsed);
            self.made += 1;
            if let Some(m) = c.moves
                && self.made.is_multiple_of(m)
            {
                self.remaining += c.time;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse() {
        let c = Clock::parse("60+0.5").unwrap();
        assert_eq!(c.time, Duration::from_secs(60));
        assert_eq!(c.inc, Duration::from_millis(500));
        assert_eq!(c.moves, None);
        assert_eq!(c.describe(), "60+0.5");
        let c = Clock::parse("40/120").unwrap();
        assert_eq!((c.moves, c.describe()), (Some(40), "40/120".to_string()));
        assert!(Clock::parse("x").is_err());
        assert!(Clock::parse("0").is_err());
        assert!(Clock::parse("-3+1").is_err());
    }

    #[test]
    fn increment_is_added_before_each_move() {
        let tc = TimeControl {
            clock: Some(Clock::parse("2+0.5").unwrap()),
            ..TimeControl::default()
        };
        let mut c = ClockState::new(&tc);
        let (levels, allowed) = c.before_move(&tc, Duration::from_secs(60));
        assert_eq!(levels, ["level time=2.500 inc=0.500"]);
        assert_eq!(allowed, Duration::from_millis(2500));
        c.after_move(&tc, Duration::from_millis(1000));
        let (_, allowed) = c.before_move(&tc, Duration::from_secs(60));
        assert_eq!(allowed, Duration::from_millis(2000));
    }

    #[test]
    fn moves_controls_refill_the_clock() {
        let tc = TimeControl {
            clock: Some(Clock::parse("2/10").unwrap()),
            ..TimeControl::default()
        };
        let mut c = ClockState::new(&tc);
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=2 time=10.000"]);
        c.after_move(&tc, Duration::from_secs(3));
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=1 time=7.000"]);
        c.after_move(&tc, Duration::from_secs(3));
        let (levels, _) = c.before_move(&tc, Duration::ZERO);
        assert_eq!(levels, ["level moves=2 time=14.000"]);
    }
}
