//! What a match shows: the progress line while it runs and the final report.

use std::io::{IsTerminal, Write};

use super::record::{Ending, GameRecord, Tally};
use super::runner::{MatchConfig, MatchOutcome};
use super::stats::SprtVerdict;

/// How progress is shown on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressStyle {
    /// One line rewritten in place (standard error is a terminal).
    Live,
    /// One line per finished game.
    Lines,
    Quiet,
}

impl ProgressStyle {
    pub fn detect() -> ProgressStyle {
        if std::io::stderr().is_terminal() {
            ProgressStyle::Live
        } else {
            ProgressStyle::Lines
        }
    }
}

pub(super) fn verdict_text(v: SprtVerdict) -> &'static str {
    match v {
        SprtVerdict::H0 => "H0 (elo0)",
        SprtVerdict::H1 => "H1 (elo1)",
        SprtVerdict::Continue => "nothing yet",
    }
}

/// The progress shown while the match runs.
pub(super) struct Progress {
    style: ProgressStyle,
    shown: bool,
}

impl Progress {
    pub(super) fn new(style: ProgressStyle) -> Progress {
        Progress {
            style,
            shown: false,
        }
    }

    pub(super) fn game(
        &mut self,
        cfg: &MatchConfig,
        t: &Tally,
        g: &GameRecord,
        sprt: Option<(f64, SprtVerdict)>,
    ) {
        let status = status_line(cfg, t, sprt);
        let mut err = std::io::stderr().lock();
        if self.style != ProgressStyle::Quiet
            && let (Ending::Fault { engine, .. } | Ending::NoMove { engine }, Some(d)) =
                (&g.ending, &g.detail)
        {
            // Faults are worth a line of their own, even above the live line.
            let clear = if self.style == ProgressStyle::Live {
                "\r\x1b[K"
            } else {
                ""
            };
            let _ = writeln!(
                err,
                "{clear}game {}: {}: {d}",
                g.index + 1,
                t.names[*engine]
            );
        }
        match self.style {
            ProgressStyle::Quiet => {}
            ProgressStyle::Live => {
                let _ = write!(err, "\r{status}\x1b[K");
                let _ = err.flush();
                self.shown = true;
            }
            ProgressStyle::Lines => {
                let names = &t.names;
                let opening = g
                    .opening
                    .name
                    .as_ref()
                    .map(|n| format!("{n}, "))
                    .unwrap_or_default();
                let _ = writeln!(
                    err,
                    "game {}: {} - {} {} {} ({opening}{} plies) | {status}",
                    g.index + 1,
                    names[g.white],
                    names[1 - g.white],
                    g.result_text(),
                    g.ending.termination(),
                    g.moves.len()
                );
            }
        }
    }

    /// The live line before the first game ends (games can take minutes).
    pub(super) fn start(&mut self, cfg: &MatchConfig, t: &Tally, sprt: Option<(f64, SprtVerdict)>) {
        if self.style == ProgressStyle::Live {
            eprint!("\r{}\x1b[K", status_line(cfg, t, sprt));
            self.shown = true;
        }
    }

    pub(super) fn finish(&mut self) {
        if self.shown {
            eprintln!();
        }
    }
}

/// `12/100  +3 =5 -4  Elo -29.0 ± 95.2  LOS 35.3%  LLR -0.21 [-2.94, 2.94]`
pub fn status_line(cfg: &MatchConfig, t: &Tally, sprt: Option<(f64, SprtVerdict)>) -> String {
    let w = t.wdl;
    let mut s = format!(
        "{}/{}  {} +{} ={} -{}",
        t.games(),
        cfg.games,
        t.names[0],
        w.wins,
        w.draws,
        w.losses
    );
    if let Some(e) = w.elo() {
        s.push_str(&format!("  Elo {}", e.display()));
    }
    s.push_str(&format!("  LOS {:.1}%", 100.0 * w.los()));
    if let (Some(p), Some((llr, _))) = (cfg.sprt, sprt) {
        let (lo, hi) = p.bounds();
        s.push_str(&format!("  LLR {llr:.2} [{lo:.2}, {hi:.2}]"));
    }
    s
}

/// The final report.
pub fn report(cfg: &MatchConfig, m: &MatchOutcome) -> String {
    let t = &m.tally;
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "{} vs {}: {} of {} games played, {}, {}",
        t.names[0],
        t.names[1],
        t.games(),
        cfg.games,
        cfg.variant,
        cfg.tc.describe()
    ));
    line(format!(
        "openings: {}; concurrency {}; {:.1} s",
        cfg.openings_label,
        cfg.concurrency,
        m.elapsed.as_secs_f64()
    ));
    if let Some(why) = &m.stopped {
        line(format!("stopped: {why}"));
    }
    line(String::new());
    let w = t.wdl;
    line(format!(
        "Score of {}: +{} ={} -{}  ({:.1}%)",
        t.names[0],
        w.wins,
        w.draws,
        w.losses,
        100.0 * w.score()
    ));
    if let Some(e) = w.elo() {
        let mut s = format!("Elo difference: {} (95%, trinomial)", e.display());
        if let Some(p) = t.penta.elo().filter(|_| t.penta.pairs() >= 2) {
            s.push_str(&format!(
                "; ± {} pentanomial over {} pairs",
                p.error_text(),
                t.penta.pairs()
            ));
        }
        line(s);
    }
    line(format!(
        "LOS: {:.1}% that {} is stronger",
        100.0 * w.los(),
        t.names[0]
    ));
    if let (Some(p), Some((llr, verdict))) = (cfg.sprt, m.sprt) {
        let (lo, hi) = p.bounds();
        let decision = match verdict {
            SprtVerdict::H1 => format!(
                "H1 accepted: {} is stronger by about {} Elo or more",
                t.names[0], p.elo1
            ),
            SprtVerdict::H0 => format!(
                "H0 accepted: {} is not stronger by {} Elo",
                t.names[0], p.elo1
            ),
            SprtVerdict::Continue => "no decision yet".to_string(),
        };
        line(format!(
            "SPRT ({}): LLR {llr:.2}, bounds [{lo:.2}, {hi:.2}]: {decision}",
            p.describe()
        ));
    }
    line(format!(
        "Results: White won {}, Black won {}, drawn {}",
        t.white_wins, t.black_wins, t.draws
    ));
    line(String::new());
    let width = t.names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    line(format!(
        "{:<width$}  {:>4} {:>4} {:>4}  {:>6}  {:>15}  {:>6}  {:>7} {:>4} {:>5} {:>12} {:>8}",
        "engine",
        "W",
        "D",
        "L",
        "score",
        "Elo",
        "LOS",
        "illegal",
        "time",
        "crash",
        "unresponsive",
        "restarts"
    ));
    for e in 0..2 {
        let r = if e == 0 { w } else { w.reversed() };
        let elo = r.elo().map(|x| x.display()).unwrap_or_else(|| "-".into());
        let f = t.faults[e];
        line(format!(
            "{:<width$}  {:>4} {:>4} {:>4}  {:>5.1}%  {:>15}  {:>5.1}%  {:>7} {:>4} {:>5} {:>12} {:>8}",
            t.names[e],
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.score(),
            elo,
            100.0 * r.los(),
            f[0],
            f[1],
            f[2],
            f[3],
            t.restarts[e]
        ));
    }
    line(
        "(illegal, time, crash, unresponsive: games lost by an illegal move, on time, by exiting, \
         by not answering; restarts: processes started again)"
            .into(),
    );
    line(String::new());
    let ends: Vec<String> = t.endings.iter().map(|(k, n)| format!("{k} {n}")).collect();
    line(format!("Game ends: {}", ends.join(", ")));
    if let Some(p) = &cfg.pdn {
        line(format!("PDN: {}", p.display()));
    }
    out
}
