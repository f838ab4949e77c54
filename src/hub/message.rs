//! The Hub messages as types: what a GUI sends ([`Command`]) and what an engine answers
//! ([`Reply`]), each with `encode` (one line) and `decode` (from a parsed [`Line`]).
//! `tammi hub` decodes commands and encodes replies; the match runner's Hub client does
//! the reverse, so the two sides cannot drift apart.
//!
//! Decoding is strict about what it reads (a `level` value that is no number is an error
//! naming it) and lenient about what it does not need: an unknown argument of a reply is
//! ignored, an unknown reply is [`Reply::Other`], for the engines of others.

use std::time::Duration;

use super::line::{Line, LineError, parse_line, quote};
use crate::notation::echo;

/// One `level` limit.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelLimit {
    /// `depth=N` (Scan also reads `ply=N`), 1 to 200.
    Depth(u32),
    /// `nodes=N`, at least 1.
    Nodes(u64),
    /// `move-time=S`: seconds for this move.
    MoveTime(Duration),
    /// `time=S`: the clock.
    Time(Duration),
    /// `inc=S`: the increment per move.
    Inc(Duration),
    /// `moves=N`: moves to the next time control (0: none).
    Moves(u64),
    Infinite,
    /// draughtsnet's handicap levels (accepted, not modelled).
    Handicap(Option<String>),
}

/// How `go` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoMode {
    Think,
    Ponder,
    Analyze,
}

/// What a GUI sends to an engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Hub,
    Init,
    SetParam {
        name: String,
        value: String,
    },
    /// `pos`: a position string (`pos=`) or a FEN (`fen=`), `None` for the start, and the
    /// moves played from it.
    Pos {
        pos: Option<String>,
        fen: Option<String>,
        moves: Vec<String>,
    },
    Level(Vec<LevelLimit>),
    Go(GoMode),
    Ping,
    Stop,
    PonderHit,
    NewGame,
    Quit,
}

/// A parameter's type as declared in a `param` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamType {
    Int {
        min: i64,
        max: i64,
    },
    Bool,
    /// The values allowed.
    Enum(Vec<String>),
    String,
    /// A type this side does not know (kept as written).
    Other(String),
}

/// What an engine answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `id name=... version=... author=... country=...`: the fields given, in order.
    Id(Vec<(String, String)>),
    Param {
        name: String,
        value: Option<String>,
        kind: Option<ParamType>,
    },
    Wait,
    Ready,
    Pong,
    /// Progress; every field is optional in the protocol.
    Info(InfoFields),
    /// `done move=... ponder=...`; no move (`move=""`) when the game is over.
    Done {
        mv: Option<String>,
        ponder: Option<String>,
    },
    Error(String),
    /// Anything else (another engine's extension), as parsed.
    Other(Line),
}

/// The fields of an `info` line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfoFields {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// In men, from the side to move's view (Scan's conventions beyond 80: see protocol.md).
    pub score: Option<f64>,
    pub nodes: Option<u64>,
    /// Seconds since `go`.
    pub time: Option<f64>,
    /// Millions of nodes per second.
    pub nps: Option<f64>,
    /// The principal variation, Hub moves; `None` when the line has no `pv`.
    pub pv: Option<Vec<String>>,
    /// Words for a person (tammi's extension; clients ignore fields they do not know).
    pub message: Option<String>,
}

/// `name=value` with the value quoted where the syntax requires it.
fn arg(name: &str, value: &str) -> String {
    format!(" {name}={}", quote(value))
}

fn seconds(d: &Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

impl Command {
    /// One Hub line.
    pub fn encode(&self) -> String {
        match self {
            Command::Hub => "hub".into(),
            Command::Init => "init".into(),
            Command::SetParam { name, value } => {
                format!("set-param{}{}", arg("name", name), arg("value", value))
            }
            Command::Pos { pos, fen, moves } => {
                let mut s = String::from("pos");
                if let Some(p) = pos {
                    s.push_str(&arg("pos", p));
                }
                if let Some(f) = fen {
                    s.push_str(&arg("fen", f));
                }
                if !moves.is_empty() {
                    s.push_str(&arg("moves", &moves.join(" ")));
                }
                s
            }
            Command::Level(limits) => {
                let mut s = String::from("level");
                for l in limits {
                    s.push(' ');
                    s.push_str(&match l {
                        LevelLimit::Depth(d) => format!("depth={d}"),
                        LevelLimit::Nodes(n) => format!("nodes={n}"),
                        LevelLimit::MoveTime(t) => format!("move-time={}", seconds(t)),
                        LevelLimit::Time(t) => format!("time={}", seconds(t)),
                        LevelLimit::Inc(t) => format!("inc={}", seconds(t)),
                        LevelLimit::Moves(m) => format!("moves={m}"),
                        LevelLimit::Infinite => "infinite".into(),
                        LevelLimit::Handicap(None) => "handicap".into(),
                        LevelLimit::Handicap(Some(v)) => format!("handicap={}", quote(v)),
                    });
                }
                s
            }
            Command::Go(GoMode::Think) => "go think".into(),
            Command::Go(GoMode::Ponder) => "go ponder".into(),
            Command::Go(GoMode::Analyze) => "go analyze".into(),
            Command::Ping => "ping".into(),
            Command::Stop => "stop".into(),
            Command::PonderHit => "ponder-hit".into(),
            Command::NewGame => "new-game".into(),
            Command::Quit => "quit".into(),
        }
    }

    /// Parse and decode one line (the syntax error, or what is wrong with the command).
    pub fn decode(text: &str) -> Result<Command, String> {
        let line = parse_line(text).map_err(|LineError(e)| e)?;
        Command::from_line(&line)
    }

    /// The command of a parsed line; the error says what is wrong and what was expected.
    pub fn from_line(line: &Line) -> Result<Command, String> {
        Ok(match line.command.as_str() {
            "hub" => Command::Hub,
            "init" => Command::Init,
            "set-param" => {
                let name = line
                    .get("name")
                    .ok_or("set-param needs name=... and value=...")?;
                let value = line
                    .get("value")
                    .ok_or_else(|| format!("set-param name={} needs value=...", echo(name)))?;
                Command::SetParam {
                    name: name.to_string(),
                    value: value.to_string(),
                }
            }
            "pos" => pos_from_line(line)?,
            "level" => Command::Level(
                line.args
                    .iter()
                    .map(|(n, v)| level_limit(n, v.as_deref()))
                    .collect::<Result<_, _>>()?,
            ),
            "go" => Command::Go(match line.args.first().map(|(n, _)| n.as_str()) {
                None | Some("think") => GoMode::Think,
                Some("ponder") => GoMode::Ponder,
                Some("analyze" | "analyse") => GoMode::Analyze,
                Some(other) => {
                    return Err(format!(
                        "go: unknown mode '{}' (expected think, ponder or analyze)",
                        echo(other)
                    ));
                }
            }),
            "ping" => Command::Ping,
            "stop" => Command::Stop,
            "ponder-hit" => Command::PonderHit,
            "new-game" => Command::NewGame,
            "quit" => Command::Quit,
            other => return Err(format!("unknown command '{}'", echo(other))),
        })
    }
}

/// `pos`: refuse what is not understood before anything changes (a stray word is usually a
/// move list that lost its quotes, and searching without it would answer for the wrong
/// side).
fn pos_from_line(line: &Line) -> Result<Command, String> {
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in &line.args {
        match (name.as_str(), value) {
            ("pos" | "fen" | "moves", Some(_)) => {}
            ("start", None) => {}
            ("pos" | "fen" | "moves", None) => {
                return Err(format!("pos: '{name}' needs a value ({name}=...)"));
            }
            (other, None) if line.has("moves") && looks_like_move(other) => {
                return Err(format!(
                    "pos: '{}' is not an argument: a list of several moves must be quoted, \
                     moves=\"32-28 19-23\"",
                    echo(other)
                ));
            }
            (other, _) => {
                return Err(format!(
                    "pos: unknown argument '{}' (expected pos=..., fen=..., moves=\"...\" \
                     or start)",
                    echo(other)
                ));
            }
        }
        if seen.contains(&name.as_str()) {
            return Err(format!("pos: '{name}' is given twice"));
        }
        seen.push(name);
    }
    // `pos`, `pos start` and `pos pos=""` mean the start position.
    let text = |name: &str| {
        line.get(name)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    };
    // An empty FEN is kept, for the position parser to refuse.
    let (pos, fen) = (text("pos"), line.get("fen").map(|f| f.trim().to_string()));
    if line.get("fen").is_some() && line.get("pos").is_some() {
        return Err("pos: give pos=... or fen=..., not both".into());
    }
    Ok(Command::Pos {
        pos,
        fen,
        moves: line
            .get("moves")
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    })
}

/// A word such as `19-23` or `28x19`: squares joined by `-` or `x`.
fn looks_like_move(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == 'x' || c == ':')
}

fn level_limit(name: &str, value: Option<&str>) -> Result<LevelLimit, String> {
    let v = value.unwrap_or("");
    let seconds = |v: &str| -> Result<Duration, String> {
        let s: f64 = v
            .trim()
            .parse()
            .map_err(|_| format!("level {name}: '{}' is not a number of seconds", echo(v)))?;
        if !s.is_finite() || !(0.0..=1e7).contains(&s) {
            return Err(format!("level {name}: {v} is out of range"));
        }
        Ok(Duration::from_secs_f64(s))
    };
    let count = |v: &str| -> Result<u64, String> {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("level {name}: '{}' is not a whole number", echo(v)))
    };
    Ok(match name {
        "depth" | "ply" => {
            let d = count(v)?;
            if d == 0 || d > 200 {
                return Err(format!("level {name}: {d} is out of range (1-200)"));
            }
            LevelLimit::Depth(d as u32)
        }
        "nodes" => {
            let n = count(v)?;
            if n == 0 {
                return Err("level nodes: must be at least 1".into());
            }
            LevelLimit::Nodes(n)
        }
        "move-time" => LevelLimit::MoveTime(seconds(v)?),
        "time" => LevelLimit::Time(seconds(v)?),
        "inc" => LevelLimit::Inc(seconds(v)?),
        "moves" => LevelLimit::Moves(count(v)?),
        "infinite" => LevelLimit::Infinite,
        "handicap" => LevelLimit::Handicap(value.map(str::to_string)),
        other => return Err(format!("level: unknown limit '{}'", echo(other))),
    })
}

impl ParamType {
    /// The `type=...` argument and the ones that go with it.
    fn encode(&self) -> String {
        match self {
            ParamType::Int { min, max } => format!(" type=int min={min} max={max}"),
            ParamType::Bool => " type=bool".into(),
            ParamType::Enum(values) => format!(" type=enum{}", arg("values", &values.join(" "))),
            ParamType::String => " type=string".into(),
            ParamType::Other(t) => arg("type", t),
        }
    }

    fn from_line(line: &Line) -> Option<ParamType> {
        let number = |n: &str| line.get(n).and_then(|v| v.trim().parse::<i64>().ok());
        Some(match line.get("type")? {
            "int" => match (number("min"), number("max")) {
                (Some(min), Some(max)) => ParamType::Int { min, max },
                _ => ParamType::Other("int".into()),
            },
            "bool" => ParamType::Bool,
            "enum" => ParamType::Enum(
                line.get("values")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ),
            "string" => ParamType::String,
            other => ParamType::Other(other.to_string()),
        })
    }
}

impl Reply {
    /// One Hub line.
    pub fn encode(&self) -> String {
        match self {
            Reply::Id(fields) => {
                let mut s = String::from("id");
                for (n, v) in fields {
                    s.push_str(&arg(n, v));
                }
                s
            }
            Reply::Param { name, value, kind } => {
                let mut s = format!("param{}", arg("name", name));
                if let Some(v) = value {
                    s.push_str(&arg("value", v));
                }
                if let Some(k) = kind {
                    s.push_str(&k.encode());
                }
                s
            }
            Reply::Wait => "wait".into(),
            Reply::Ready => "ready".into(),
            Reply::Pong => "pong".into(),
            Reply::Info(i) => {
                let mut s = String::from("info");
                let mut num = |n: &str, v: Option<String>| {
                    if let Some(v) = v {
                        s.push_str(&format!(" {n}={v}"));
                    }
                };
                num("depth", i.depth.map(|d| d.to_string()));
                num("seldepth", i.seldepth.map(|d| d.to_string()));
                num("score", i.score.map(|v| format!("{v:.2}")));
                num("nodes", i.nodes.map(|n| n.to_string()));
                num("time", i.time.map(|t| format!("{t:.3}")));
                num("nps", i.nps.map(|n| format!("{n:.1}")));
                if let Some(pv) = &i.pv {
                    s.push_str(&arg("pv", &pv.join(" ")));
                }
                if let Some(m) = &i.message {
                    s.push_str(&arg("message", m));
                }
                s
            }
            Reply::Done { mv, ponder } => match (mv, ponder) {
                (Some(m), Some(p)) => format!("done{}{}", arg("move", m), arg("ponder", p)),
                (Some(m), None) => format!("done{}", arg("move", m)),
                (None, _) => "done move=\"\"".into(),
            },
            Reply::Error(message) => format!("error{}", arg("message", message)),
            Reply::Other(line) => {
                let mut s = line.command.clone();
                for (n, v) in &line.args {
                    match v {
                        Some(v) => s.push_str(&arg(n, v)),
                        None => s.push_str(&format!(" {n}")),
                    }
                }
                s
            }
        }
    }

    /// Parse and decode one line. `done move=` (no value: an engine whose game is over)
    /// breaks the strict syntax but is an answer all the same, a `done` without a move.
    pub fn decode(text: &str) -> Result<Reply, LineError> {
        match parse_line(text) {
            Ok(line) => Ok(Reply::from_line(&line)),
            Err(_) if text.split_whitespace().next() == Some("done") => Ok(Reply::Done {
                mv: None,
                ponder: None,
            }),
            Err(e) => Err(e),
        }
    }

    /// The reply of a parsed line; what cannot be read (a score that is no number) is
    /// left out rather than refused.
    pub fn from_line(line: &Line) -> Reply {
        let text = |n: &str| line.get(n).map(str::to_string);
        let number = |n: &str| line.get(n).and_then(|v| v.trim().parse::<f64>().ok());
        let whole = |n: &str| line.get(n).and_then(|v| v.trim().parse::<u64>().ok());
        match line.command.as_str() {
            "id" => Reply::Id(
                line.args
                    .iter()
                    .map(|(n, v)| (n.clone(), v.clone().unwrap_or_default()))
                    .collect(),
            ),
            "param" => match line.get("name") {
                Some(name) => Reply::Param {
                    name: name.to_string(),
                    value: text("value"),
                    kind: ParamType::from_line(line),
                },
                None => Reply::Other(line.clone()),
            },
            "wait" => Reply::Wait,
            "ready" => Reply::Ready,
            "pong" => Reply::Pong,
            "info" => Reply::Info(InfoFields {
                depth: whole("depth").map(|d| d.min(u32::MAX as u64) as u32),
                seldepth: whole("seldepth").map(|d| d.min(u32::MAX as u64) as u32),
                score: number("score"),
                nodes: whole("nodes"),
                time: number("time"),
                nps: number("nps"),
                pv: line
                    .get("pv")
                    .map(|p| p.split_whitespace().map(str::to_string).collect()),
                message: text("message"),
            }),
            "done" => Reply::Done {
                mv: text("move").filter(|m| !m.is_empty()),
                ponder: text("ponder").filter(|m| !m.is_empty()),
            },
            "error" => Reply::Error(line.get("message").unwrap_or("error").to_string()),
            _ => Reply::Other(line.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands() -> Vec<Command> {
        vec![
            Command::Hub,
            Command::Init,
            Command::SetParam {
                name: "variant".into(),
                value: "normal".into(),
            },
            Command::SetParam {
                name: "egdb".into(),
                value: String::new(),
            },
            Command::SetParam {
                name: "weights".into(),
                value: "/tmp/my weights.txt".into(),
            },
            Command::Pos {
                pos: None,
                fen: None,
                moves: vec![],
            },
            Command::Pos {
                pos: Some("Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww".into()),
                fen: None,
                moves: vec!["32-28".into(), "19-23".into(), "28x19x23".into()],
            },
            Command::Pos {
                pos: None,
                fen: Some("W:W32:B28,5".into()),
                moves: vec!["32x23x28".into()],
            },
            Command::Level(vec![]),
            Command::Level(vec![
                LevelLimit::Time(Duration::from_millis(2500)),
                LevelLimit::Inc(Duration::from_millis(500)),
                LevelLimit::Moves(40),
            ]),
            Command::Level(vec![
                LevelLimit::Depth(12),
                LevelLimit::Nodes(20_000),
                LevelLimit::MoveTime(Duration::from_millis(1)),
                LevelLimit::Infinite,
                LevelLimit::Handicap(None),
                LevelLimit::Handicap(Some("3".into())),
            ]),
            Command::Go(GoMode::Think),
            Command::Go(GoMode::Ponder),
            Command::Go(GoMode::Analyze),
            Command::Ping,
            Command::Stop,
            Command::PonderHit,
            Command::NewGame,
            Command::Quit,
        ]
    }

    fn replies() -> Vec<Reply> {
        vec![
            Reply::Id(vec![
                ("name".into(), "tammi".into()),
                ("version".into(), "0.1.0".into()),
                ("author".into(), "the tammi developers".into()),
                ("country".into(), "FI".into()),
            ]),
            Reply::Param {
                name: "variant".into(),
                value: Some("normal".into()),
                kind: Some(ParamType::Enum(vec!["normal".into(), "english".into()])),
            },
            Reply::Param {
                name: "threads".into(),
                value: Some("1".into()),
                kind: Some(ParamType::Int { min: 1, max: 64 }),
            },
            Reply::Param {
                name: "egdb".into(),
                value: Some(String::new()),
                kind: Some(ParamType::String),
            },
            Reply::Param {
                name: "ponder".into(),
                value: Some("false".into()),
                kind: Some(ParamType::Bool),
            },
            Reply::Param {
                name: "book".into(),
                value: None,
                kind: Some(ParamType::Other("file".into())),
            },
            Reply::Param {
                name: "x".into(),
                value: None,
                kind: None,
            },
            Reply::Wait,
            Reply::Ready,
            Reply::Pong,
            Reply::Info(InfoFields {
                depth: Some(7),
                seldepth: Some(15),
                score: Some(-0.15),
                nodes: Some(123_456),
                time: Some(0.125),
                nps: Some(1.5),
                pv: Some(vec!["32-28".into(), "19-23".into()]),
                message: None,
            }),
            Reply::Info(InfoFields {
                message: Some("the game is drawn: a repetition".into()),
                ..InfoFields::default()
            }),
            Reply::Info(InfoFields {
                pv: Some(vec![]),
                ..InfoFields::default()
            }),
            Reply::Info(InfoFields::default()),
            Reply::Done {
                mv: Some("32x23x28".into()),
                ponder: Some("5-10".into()),
            },
            Reply::Done {
                mv: Some("32-28".into()),
                ponder: None,
            },
            Reply::Done {
                mv: None,
                ponder: None,
            },
            Reply::Error("variant frisian is not played (tammi plays ...)".into()),
            Reply::Other(parse_line("feature ab=\"c d\" flag").unwrap()),
        ]
    }

    #[test]
    fn commands_round_trip() {
        for c in commands() {
            let line = c.encode();
            assert_eq!(Command::decode(&line), Ok(c.clone()), "{line}");
            // And the text is stable: encoding what was decoded gives the same line.
            assert_eq!(Command::decode(&line).unwrap().encode(), line);
        }
    }

    #[test]
    fn replies_round_trip() {
        for r in replies() {
            let line = r.encode();
            assert_eq!(Reply::decode(&line), Ok(r.clone()), "{line}");
            assert_eq!(Reply::decode(&line).unwrap().encode(), line);
        }
    }

    #[test]
    fn the_lines_are_the_ones_the_protocol_documents() {
        assert_eq!(
            Command::Level(vec![
                LevelLimit::Time(Duration::from_millis(2500)),
                LevelLimit::Inc(Duration::from_millis(500))
            ])
            .encode(),
            "level time=2.500 inc=0.500"
        );
        assert_eq!(
            Command::Pos {
                pos: Some("W:W32:B5".into()),
                fen: None,
                moves: vec!["32-28".into(), "5-10".into()]
            }
            .encode(),
            "pos pos=W:W32:B5 moves=\"32-28 5-10\""
        );
        assert_eq!(
            Reply::Done {
                mv: None,
                ponder: None
            }
            .encode(),
            "done move=\"\""
        );
        assert_eq!(Reply::Error("a b".into()).encode(), "error message=\"a b\"");
        assert_eq!(
            Reply::Info(InfoFields {
                depth: Some(3),
                seldepth: Some(5),
                score: Some(0.1),
                nodes: Some(10),
                time: Some(0.0),
                nps: Some(0.0),
                pv: Some(vec!["32-28".into()]),
                message: None,
            })
            .encode(),
            "info depth=3 seldepth=5 score=0.10 nodes=10 time=0.000 nps=0.0 pv=32-28"
        );
    }

    #[test]
    fn what_other_engines_send_is_read() {
        // `done move=` breaks the strict syntax; it is a done without a move.
        assert_eq!(
            Reply::decode("done move="),
            Ok(Reply::Done {
                mv: None,
                ponder: None
            })
        );
        // A score that is no number is left out, the rest kept.
        let Ok(Reply::Info(i)) = Reply::decode("info depth=4 score=mate") else {
            panic!()
        };
        assert_eq!((i.depth, i.score), (Some(4), None));
        assert!(Reply::decode("info pv=\"32-28").is_err());
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        for (line, wanted) in [
            (
                "level depth=abc",
                "level depth: 'abc' is not a whole number",
            ),
            ("level depth=0", "out of range (1-200)"),
            ("level move-time=-1", "level move-time: -1 is out of range"),
            ("level speed=3", "unknown limit 'speed'"),
            ("go sideways", "unknown mode 'sideways'"),
            ("pos moves=\"32-28 19-23\" 28x19", "must be quoted"),
            ("pos moves", "'moves' needs a value"),
            ("pos pos=a pos=b", "given twice"),
            ("pos pos=a fen=b", "not both"),
            ("pos colour=white", "unknown argument 'colour'"),
            ("set-param value=3", "needs name="),
            ("set-param name=hash", "needs value="),
            ("frobnicate", "unknown command 'frobnicate'"),
            ("pos moves=\"32-28", "unclosed quote"),
        ] {
            let e = Command::decode(line).unwrap_err();
            assert!(e.contains(wanted), "{line}: {e}");
        }
    }
}
