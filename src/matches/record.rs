//! What a match keeps of its games: how each ended, the finished game, the running
//! totals, and the game as PDN.

use std::collections::HashMap;

use anyhow::Result;

use super::openings::Opening;
use super::runner::MatchConfig;
use super::stats::{Pentanomial, Wdl};
use crate::notation::parse_position;
use crate::pdn::{self, Game, Line, PdnMove, Pos, Tag, WriteOptions};
use crate::rules::{Board, Color};
use crate::with_board;

/// Why an engine lost a game outside the rules of draughts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    IllegalMove,
    TimeForfeit,
    Crash,
    Unresponsive,
}

impl Fault {
    pub const ALL: [Fault; 4] = [
        Fault::IllegalMove,
        Fault::TimeForfeit,
        Fault::Crash,
        Fault::Unresponsive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::IllegalMove => "illegal move",
            Fault::TimeForfeit => "time forfeit",
            Fault::Crash => "crash",
            Fault::Unresponsive => "unresponsive",
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules: the side to move had no legal move (or, in breakthrough, a king).
    Normal,
    Repetition,
    /// The variant's rule of so many moves each without progress.
    MoveRule(u16),
    /// The FMJD few-pieces endings (and russian 3 against 1).
    FewPieces,
    MaxPlies,
    DrawScore,
    WinScore,
    /// Engine `engine` (0 or 1) answered `done` with no move while it had legal moves:
    /// by the Hub protocol that says its game is over, so it gave the game up.
    NoMove {
        engine: usize,
    },
    /// Engine `engine` (0 or 1) lost by this fault.
    Fault {
        engine: usize,
        fault: Fault,
    },
}

impl Ending {
    /// The PDN Termination tag.
    pub fn termination(&self) -> String {
        match self {
            Ending::Normal => "normal".into(),
            Ending::Repetition => "adjudication: repetition".into(),
            Ending::MoveRule(n) => format!("adjudication: {n}-move rule"),
            Ending::FewPieces => "adjudication: few pieces rule".into(),
            Ending::MaxPlies => "adjudication: maximum length".into(),
            Ending::DrawScore => "adjudication: draw by score".into(),
            Ending::WinScore => "adjudication: win by score".into(),
            Ending::NoMove { .. } => "resignation: no move given".into(),
            Ending::Fault { fault, .. } => fault.name().into(),
        }
    }

    /// For the summary of game ends: the termination without its `adjudication: ` prefix.
    pub fn short(&self) -> String {
        let t = self.termination();
        t.strip_prefix("adjudication: ").unwrap_or(&t).to_string()
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Game number from 0 (the Round tag is this + 1).
    pub index: usize,
    /// Which engine (0 or 1) had White.
    pub white: usize,
    pub opening: Opening,
    /// Every move from the opening's start, opening included, in the Hub form.
    pub moves: Vec<String>,
    /// `None`: a draw.
    pub winner: Option<Color>,
    pub ending: Ending,
    /// What went wrong, for a fault (also written as a PDN comment).
    pub detail: Option<String>,
}

impl GameRecord {
    pub fn engine_of(&self, color: Color) -> usize {
        if color == Color::White {
            self.white
        } else {
            1 - self.white
        }
    }

    /// Points (1, ½, 0) of engine `e`.
    pub fn points(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) if self.engine_of(c) == e => 1.0,
            Some(_) => 0.0,
        }
    }

    pub fn result_text(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// Running totals of a match.
#[derive(Clone, Debug)]
pub struct Tally {
    pub names: [String; 2],
    /// Engine 1's results.
    pub wdl: Wdl,
    pub penta: Pentanomial,
    /// Engine 1's points in the first finished game of each unfinished pair.
    half_pairs: HashMap<usize, f64>,
    pub white_wins: u32,
    pub black_wins: u32,
    pub draws: u32,
    /// Losses by fault, per engine, in the order of [`Fault::ALL`].
    pub faults: [[u32; 4]; 2],
    pub restarts: [u32; 2],
    /// Game ends by kind, in order of first appearance.
    pub endings: Vec<(String, u32)>,
}

impl Tally {
    pub fn new(names: [String; 2]) -> Tally {
        Tally {
            names,
            wdl: Wdl::default(),
            penta: Pentanomial::default(),
            half_pairs: HashMap::new(),
            white_wins: 0,
            black_wins: 0,
            draws: 0,
            faults: [[0; 4]; 2],
            restarts: [0; 2],
            endings: Vec::new(),
        }
    }

    pub fn add(&mut self, g: &GameRecord) {
        let p = g.points(0);
        if p == 1.0 {
            self.wdl.wins += 1;
        } else if p == 0.0 {
            self.wdl.losses += 1;
        } else {
            self.wdl.draws += 1;
        }
        match g.winner {
            Some(Color::White) => self.white_wins += 1,
            Some(Color::Black) => self.black_wins += 1,
            None => self.draws += 1,
        }
        let pair = g.index / 2;
        match self.half_pairs.remove(&pair) {
            Some(first) => self.penta.counts[((first + p) * 2.0).round() as usize] += 1,
            None => {
                self.half_pairs.insert(pair, p);
            }
        }
        if let Ending::Fault { engine, fault } = g.ending {
            let k = Fault::ALL.iter().position(|&f| f == fault).expect("listed");
            self.faults[engine][k] += 1;
        }
        let kind = g.ending.short();
        match self.endings.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.endings.push((kind, 1)),
        }
    }

    pub fn games(&self) -> u32 {
        self.wdl.games()
    }
}

/// The game as PDN, through the project's writer (which replays and rewrites the moves
/// in the variant's notation).
pub fn pdn_text(
    cfg: &MatchConfig,
    names: &[String; 2],
    date: &str,
    g: &GameRecord,
) -> Result<String> {
    let tag = |name: &str, value: String| Tag {
        name: name.to_string(),
        value,
        pos: Pos::default(),
    };
    let mut tags = vec![
        tag("Event", cfg.event.clone()),
        tag("Site", cfg.site.clone()),
        tag("Date", date.to_string()),
        tag("Round", (g.index + 1).to_string()),
        tag("White", names[g.white].clone()),
        tag("Black", names[1 - g.white].clone()),
        tag("Result", g.result_text().to_string()),
        tag("Termination", g.ending.termination()),
        tag("TimeControl", cfg.tc.describe()),
    ];
    if let Some(name) = &g.opening.name {
        tags.push(tag("Opening", name.clone()));
    }
    let mut line = Line {
        comments: Vec::new(),
        moves: g
            .moves
            .iter()
            .map(|m| PdnMove {
                text: m.clone(),
                ..PdnMove::default()
            })
            .collect(),
    };
    if let Some(d) = &g.detail {
        // A comment cannot hold braces.
        let who = match g.ending {
            Ending::Fault { engine, .. } | Ending::NoMove { engine } => {
                format!("{}: ", names[engine])
            }
            _ => String::new(),
        };
        let text = format!("{who}{d}").replace(['{', '}'], "'");
        match line.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => line.comments.push(text),
        }
    }
    let start_is_standard = with_board!(cfg.variant, P => parse_position::<P>(&g.opening.start).ok() == Some(P::start()));
    let game = Game {
        number: g.index + 1,
        pos: Pos::default(),
        tags,
        variant: cfg.variant,
        fen: (!start_is_standard).then(|| (g.opening.start.clone(), Pos::default())),
        main_line: line,
        result: Some(g.result_text().to_string()),
        first_move_number: 1,
        warnings: Vec::new(),
    };
    let mut text = pdn::write_game(&game, &WriteOptions::default())
        .map_err(|e| anyhow::anyhow!("cannot write game {} as PDN: {e}", g.index + 1))?;
    text.push('\n');
    Ok(text)
}

/// Today's date (UTC) as PDN writes it: `2025.01.31`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
