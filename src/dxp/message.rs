//! DXP (DamExchange) messages: fixed-width ASCII fields, one type character first, each
//! message ended by a NUL byte on the wire (the framing lives in the connection code).

use std::fmt;

/// A colour as DXP writes it: `W` white, `Z` black (*zwart*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxpColor {
    White,
    Black,
}

impl DxpColor {
    fn char(self) -> char {
        match self {
            DxpColor::White => 'W',
            DxpColor::Black => 'Z',
        }
    }
    fn parse(c: u8, field: &str) -> Result<Self, DxpError> {
        match c {
            b'W' => Ok(DxpColor::White),
            b'Z' => Ok(DxpColor::Black),
            other => Err(DxpError(format!(
                "{field}: expected W or Z, found '{}'",
                other as char
            ))),
        }
    }
}

/// Where a requested game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The normal start position, White to move.
    Initial,
    /// A given position: side to move and 50 squares (`e`, `w`, `W`, `z`, `Z`).
    Position { to_move: DxpColor, squares: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    GameRequest {
        version: u8,
        name: String,
        follower_color: DxpColor,
        minutes: u16,
        moves: u16,
        start: Start,
    },
    GameAccept {
        name: String,
        code: u8,
    },
    Move {
        seconds: u16,
        from: u8,
        to: u8,
        captured: Vec<u8>,
    },
    GameEnd {
        reason: u8,
        stop: u8,
    },
    Chat(String),
    BackRequest {
        move_number: u16,
        to_move: DxpColor,
    },
    BackAccept {
        code: u8,
    },
}

/// A malformed message: what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxpError(pub String);

impl fmt::Display for DxpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Game-acceptance codes.
pub const ACCEPT: u8 = 0;
pub const WRONG_VERSION: u8 = 1;
pub const NOT_THIS_GAME: u8 = 2;
pub const REFUSE_ALL: u8 = 3;

/// Game-end reasons.
pub const END_NONE: u8 = 0;
pub const END_RESIGN: u8 = 1;
pub const END_DRAW: u8 = 2;
pub const END_WIN: u8 = 3;

fn name_field(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .take(32)
        .collect();
    format!("{clean:<32}")
}

impl Message {
    /// The message text without the trailing NUL.
    pub fn encode(&self) -> String {
        match self {
            Message::GameRequest {
                version,
                name,
                follower_color,
                minutes,
                moves,
                start,
            } => {
                let mut s = format!(
                    "R{version:02}{}{}{minutes:03}{moves:03}",
                    name_field(name),
                    follower_color.char()
                );
                match start {
                    Start::Initial => s.push('A'),
                    Start::Position { to_move, squares } => {
                        s.push('B');
                        s.push(to_move.char());
                        s.push_str(squares);
                    }
                }
                s
            }
            Message::GameAccept { name, code } => format!("A{}{code}", name_field(name)),
            Message::Move {
                seconds,
                from,
                to,
                captured,
            } => {
                let mut s = format!(
                    "M{:04}{from:02}{to:02}{:02}",
                    (*seconds).min(9999),
                    captured.len()
                );
                for c in captured {
                    s.push_str(&format!("{c:02}"));
                }
                s
            }
            Message::GameEnd { reason, stop } => format!("E{reason}{stop}"),
            Message::Chat(text) => {
                let clean: String = text
                    .chars()
                    .map(|c| {
                        if c.is_ascii() && !c.is_ascii_control() {
                            c
                        } else {
                            '?'
                        }
                    })
                    .take(126)
                    .collect();
                format!("C{}", if clean.is_empty() { " ".into() } else { clean })
            }
            Message::BackRequest {
                move_number,
                to_move,
            } => format!("B{move_number:03}{}", to_move.char()),
            Message::BackAccept { code } => format!("K{code}"),
        }
    }

    /// Parse one message (without its NUL). Strict: every field has its exact width, every
    /// number is zero-padded digits, every square is 1–50 and the message is exactly as
    /// long as its type and fields say. A message one character too long or short is
    /// refused rather than guessed at, so a garbled move is never played as another.
    pub fn decode(text: &str) -> Result<Message, DxpError> {
        if !text.is_ascii() {
            return Err(DxpError("message holds non-ASCII characters".into()));
        }
        if let Some(c) = text.bytes().find(|b| !(b' '..=b'~').contains(b)) {
            return Err(DxpError(format!(
                "message holds a control character (code {c}): only printable ASCII is allowed"
            )));
        }
        let mut chars = text.chars();
        let kind = chars.next().ok_or_else(|| {
            DxpError(
                "an empty message (a NUL byte alone): expected a type letter (R, A, M, E, C, \
                     B or K) and its fields"
                    .into(),
            )
        })?;
        if text.len() > MAX_LENGTH {
            return Err(DxpError(format!(
                "message is {} characters long: at most {MAX_LENGTH} allowed",
                text.len()
            )));
        }
        let body = &text[1..];
        let exact = |len: usize, what: &str| -> Result<(), DxpError> {
            match body.len().cmp(&len) {
                std::cmp::Ordering::Equal => Ok(()),
                std::cmp::Ordering::Less => Err(DxpError(format!(
                    "{what} is too short: {} characters after the type, {len} expected",
                    body.len()
                ))),
                std::cmp::Ordering::Greater => Err(DxpError(format!(
                    "{what} is too long: {} characters after the type, {len} expected",
                    body.len()
                ))),
            }
        };
        let at_least = |len: usize, what: &str| -> Result<(), DxpError> {
            if body.len() < len {
                Err(DxpError(format!(
                    "{what} is too short: {} characters after the type, at least {len} expected",
                    body.len()
                )))
            } else {
                Ok(())
            }
        };
        match kind {
            'R' => {
                at_least(42, "GAMEREQ")?;
                let version = number(&body[0..2], "protocol version")? as u8;
                let name = body[2..34].trim_end().to_string();
                let follower_color = DxpColor::parse(body.as_bytes()[34], "follower's colour")?;
                let minutes = number(&body[35..38], "thinking time")?;
                let moves = number(&body[38..41], "number of moves")?;
                let start = match body.as_bytes()[41] {
                    b'A' => {
                        exact(42, "GAMEREQ with start A")?;
                        Start::Initial
                    }
                    b'B' => {
                        exact(42 + 1 + 50, "GAMEREQ with start B (a position)")?;
                        let to_move = DxpColor::parse(body.as_bytes()[42], "colour to move")?;
                        let squares = body[43..93].to_string();
                        if let Some(bad) = squares.chars().find(|c| !"ewWzZ".contains(*c)) {
                            return Err(DxpError(format!(
                                "position holds '{bad}' (expected e, w, W, z or Z)"
                            )));
                        }
                        Start::Position { to_move, squares }
                    }
                    other => {
                        return Err(DxpError(format!(
                            "start must be A or B, found '{}'",
                            other as char
                        )));
                    }
                };
                Ok(Message::GameRequest {
                    version,
                    name,
                    follower_color,
                    minutes,
                    moves,
                    start,
                })
            }
            'A' => {
                exact(33, "GAMEACC")?;
                Ok(Message::GameAccept {
                    name: body[0..32].trim_end().to_string(),
                    code: code(&body[32..33], "acceptance code", REFUSE_ALL)?,
                })
            }
            'M' => {
                at_least(10, "MOVE")?;
                let seconds = number(&body[0..4], "time")?;
                let from = square(&body[4..6], "from square")?;
                let to = square(&body[6..8], "to square")?;
                let n = number(&body[8..10], "capture count")? as usize;
                if n > MAX_CAPTURES {
                    return Err(DxpError(format!(
                        "capture count {n} is more than the {MAX_CAPTURES} pieces a side has"
                    )));
                }
                exact(
                    10 + 2 * n,
                    &format!(
                        "MOVE with {n} captured piece{}",
                        if n == 1 { "" } else { "s" }
                    ),
                )?;
                let mut captured: Vec<u8> = Vec::with_capacity(n);
                for i in 0..n {
                    let at = 10 + 2 * i;
                    let c = square(&body[at..at + 2], "captured square")?;
                    // A square named twice would match a capture of fewer pieces.
                    if captured.contains(&c) {
                        return Err(DxpError(format!("captured square {c:02} named twice")));
                    }
                    captured.push(c);
                }
                Ok(Message::Move {
                    seconds,
                    from,
                    to,
                    captured,
                })
            }
            'E' => {
                exact(2, "GAMEEND")?;
                Ok(Message::GameEnd {
                    reason: code(&body[0..1], "reason", END_WIN)?,
                    stop: code(&body[1..2], "stop code", 1)?,
                })
            }
            'C' => {
                if body.is_empty() {
                    return Err(DxpError("CHAT without text".into()));
                }
                Ok(Message::Chat(body.to_string()))
            }
            'B' => {
                exact(4, "BACKREQ")?;
                Ok(Message::BackRequest {
                    move_number: number(&body[0..3], "move number")?,
                    to_move: DxpColor::parse(body.as_bytes()[3], "colour to move")?,
                })
            }
            'K' => {
                exact(1, "BACKACC")?;
                Ok(Message::BackAccept {
                    code: code(&body[0..1], "code", 2)?,
                })
            }
            other => Err(DxpError(format!("unknown message type '{other}'"))),
        }
    }
}

/// The protocol's longest message: 127 characters before the NUL.
pub const MAX_LENGTH: usize = 127;

/// A side has 20 pieces: no capture takes more.
const MAX_CAPTURES: usize = 20;

/// A zero-padded decimal field: digits only (no sign, no blanks).
fn number(s: &str, field: &str) -> Result<u16, DxpError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DxpError(format!(
            "{field} '{s}' is not a zero-padded number"
        )));
    }
    // At most four digits: always fits.
    Ok(s.parse().expect("digits"))
}

/// A one-digit code from 0 to `max`.
fn code(s: &str, field: &str, max: u8) -> Result<u8, DxpError> {
    let n = number(s, field)?;
    if n > max as u16 {
        return Err(DxpError(format!("{field} {n} is not one of 0 to {max}")));
    }
    Ok(n as u8)
}

/// A square of the 10x10 board, 01 to 50.
fn square(s: &str, field: &str) -> Result<u8, DxpError> {
    let n = number(s, field)?;
    if !(1..=50).contains(&n) {
        return Err(DxpError(format!(
            "{field} {s} is out of range (squares are 01 to 50)"
        )));
    }
    Ok(n as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_examples_decode() {
        assert_eq!(
            Message::decode("M0012061100").unwrap(),
            Message::Move {
                seconds: 12,
                from: 6,
                to: 11,
                captured: vec![]
            }
        );
        assert_eq!(
            Message::decode("M001205250422122320").unwrap(),
            Message::Move {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![22, 12, 23, 20]
            }
        );
        let r = Message::decode("R01Tornado voor Windows 4.0        W060075A").unwrap();
        assert_eq!(
            r,
            Message::GameRequest {
                version: 1,
                name: "Tornado voor Windows 4.0".into(),
                follower_color: DxpColor::White,
                minutes: 60,
                moves: 75,
                start: Start::Initial
            }
        );
        assert_eq!(r.encode(), "R01Tornado voor Windows 4.0        W060075A");
    }

    #[test]
    fn messages_round_trip() {
        let msgs = [
            Message::GameAccept {
                name: "tammi".into(),
                code: 0,
            },
            Message::GameEnd { reason: 2, stop: 1 },
            Message::Chat("hello there".into()),
            Message::BackRequest {
                move_number: 12,
                to_move: DxpColor::Black,
            },
            Message::BackAccept { code: 0 },
            Message::GameRequest {
                version: 1,
                name: "x".into(),
                follower_color: DxpColor::Black,
                minutes: 5,
                moves: 0,
                start: Start::Position {
                    to_move: DxpColor::Black,
                    squares: "e".repeat(50),
                },
            },
        ];
        for m in msgs {
            assert_eq!(Message::decode(&m.encode()).unwrap(), m);
        }
    }

    #[test]
    fn malformed_messages_are_errors_not_panics() {
        for bad in [
            "",
            "M12",
            "Mabcd061100",
            "M0012061102",
            "R01x",
            "E",
            "X123",
            "B12",
            "K",
            "Rzz",
            "é",
            // One character too many or too few, out-of-range squares, bad codes.
            "M0001322800x",
            "M000132280",
            "M0001992800",
            "M0001002800",
            "M0001322801010",
            "M00013228020101",
            "M0001322821",
            "E000",
            "E41",
            "E02",
            "K3",
            "K00",
            "B012W ",
            "B012w",
            "C",
            "M 001322800",
            "M+001322800",
            "M0001322800\t",
        ] {
            assert!(Message::decode(bad).is_err(), "{bad}");
        }
    }
}
