//! The game on the page, as the rules see it: a PDN game record (start position, main
//! line with the variations a loaded file had) and a cursor into its main line. Every
//! question the page asks (the board, the legal moves, whether the game is over) and
//! every change it asks for (a move, a FEN, a PDN file) is answered here by replaying the
//! record through the rules core: the server never takes the page's word for a position.

use crate::notation::{format_hub_move, format_move, parse_move, parse_position, write_fen};
use crate::pdn::{self, Line, PdnMove, Pos, ReadOptions, WriteOptions};
use crate::rules::{Board, Color, Game, Goal, Layout, Move, Notation, Outcome, Variant};
use crate::with_board;

use super::json;

/// Plies a record may hold: a bound on what one session keeps and replays.
pub const MAX_PLIES: usize = 2000;

/// A fresh record of `variant` from its start or from `fen` (a PDN FEN or Hub position).
pub fn new_record(variant: Variant, fen: Option<&str>) -> Result<pdn::Game, String> {
    let fen = match fen.map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(with_board!(variant, P => {
            parse_position::<P>(text)
                .map(|p| write_fen(&p, Notation::Numeric))
                .map_err(|e| format!("not a {variant} position: {e}"))?
        })),
    };
    Ok(pdn::Game {
        number: 1,
        pos: Pos::default(),
        tags: Vec::new(),
        variant,
        fen: fen.map(|f| (f, Pos::default())),
        main_line: Line::default(),
        result: None,
        first_move_number: 1,
        warnings: Vec::new(),
    })
}

/// Game `which` (1-based) of a PDN text, its main line checked against the rules.
pub fn load_pdn(text: &str, which: usize) -> Result<pdn::Game, String> {
    let games = pdn::read_pdn(text, &ReadOptions::default()).map_err(|e| e.to_string())?;
    let count = games.len();
    let game = games
        .into_iter()
        .nth(which.saturating_sub(1))
        .ok_or_else(|| format!("the PDN has {count} game(s); there is no game {which}"))?;
    let errors = with_board!(game.variant, P => game.check::<P>());
    if let Some(e) = errors.iter().find(|e| !e.in_variation) {
        return Err(e.to_string());
    }
    if game.main_line.moves.len() > MAX_PLIES {
        return Err(format!("the game has more than {MAX_PLIES} plies"));
    }
    Ok(game)
}

/// The record as PDN text.
pub fn save_pdn(record: &pdn::Game) -> Result<String, String> {
    pdn::write_game(record, &WriteOptions::default()).map_err(|e| e.to_string())
}

/// One ply of the main line as shown.
struct Ply {
    text: String,
    from: u32,
    to: u32,
}

/// The main line replayed up to a ply.
struct Replay<P: Board> {
    /// Since the last `/FEN/` setup (the history the draw rules see).
    game: Game<P>,
    plies: Vec<Ply>,
}

fn replay<P: Board>(record: &pdn::Game, upto: usize) -> Result<Replay<P>, String> {
    let start = record.start_position::<P>().map_err(|e| e.to_string())?;
    let mut game = Game::new(start);
    let mut plies = Vec::new();
    for (i, m) in record.main_line.moves.iter().take(upto).enumerate() {
        let step = pdn::resolve(game.position(), m, record.number, i + 1, false)
            .map_err(|e| e.to_string())?;
        if m.setup.is_some() {
            game = Game::new(step.before);
        }
        let notation = P::VARIANT.default_notation();
        plies.push(Ply {
            text: format_move(&step.before, &step.mv, &step.legal, notation),
            from: P::square_of_bit(step.mv.from as u32),
            to: P::square_of_bit(step.mv.to as u32),
        });
        game.play(&step.mv)
            .map_err(|e| format!("ply {}: {e}", i + 1))?;
    }
    Ok(Replay { game, plies })
}

/// Why the game is over, said for a person: "black wins: white has no legal move".
fn describe<P: Board>(game: &Game<P>, outcome: Outcome) -> String {
    let reason = match outcome {
        Outcome::Draw(_) => return outcome.to_string(),
        Outcome::Win(_) => {
            let mover = game.position().side();
            let kings = game.position().kings();
            match P::VARIANT.goal() {
                Goal::Breakthrough if kings.any() => "a man reached the last row".to_string(),
                Goal::Losing => format!("{} has no move left", mover.name()),
                _ => format!("{} has no legal move", mover.name()),
            }
        }
    };
    format!("{outcome}: {reason}")
}

use crate::rules::Bits;

/// The part of the page's state that the record decides, as JSON object members (no
/// braces): the board, the legal moves with their routes, the move list, the outcome.
pub fn view_json(record: &pdn::Game, cursor: usize) -> Result<String, String> {
    with_board!(record.variant, P => view_with::<P>(record, cursor))
}

fn view_with<P: Board>(record: &pdn::Game, cursor: usize) -> Result<String, String> {
    let all = replay::<P>(record, usize::MAX)?;
    let here = replay::<P>(record, cursor)?;
    let variant = P::VARIANT;
    let facts = variant.facts();
    let pos = here.game.position();
    let outcome = here.game.outcome();
    let mut legal = Vec::new();
    if outcome.is_none() {
        legal = here.game.legal_moves();
    }
    let notation = variant.default_notation();
    let moves: Vec<String> = legal
        .iter()
        .map(|mv| {
            let routes: Vec<String> = pos
                .routes(mv)
                .into_iter()
                .map(|r| json::numbers(&r.into_iter().map(P::square_of_bit).collect::<Vec<_>>()))
                .collect();
            format!(
                "{{\"text\":{},\"routes\":[{}]}}",
                json::string(&format_move(pos, mv, &legal, notation)),
                routes.join(",")
            )
        })
        .collect();
    let squares: Vec<String> = (1..=P::square_count())
        .map(|n| {
            let (file, rank) = P::coords(P::bit_of_square(n).expect("square on the board"));
            format!("[{file},{rank}]")
        })
        .collect();
    let plies: Vec<String> = all
        .plies
        .iter()
        .zip(&record.main_line.moves)
        .map(|(p, m)| {
            let variations: Vec<String> = m
                .variations
                .iter()
                .map(|v| {
                    v.moves
                        .iter()
                        .map(|m| m.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            format!(
                "{{\"text\":{},\"comments\":{},\"variations\":{}}}",
                json::string(&p.text),
                json::strings(&m.comments),
                json::strings(&variations)
            )
        })
        .collect();
    let last = here
        .plies
        .last()
        .map_or("null".to_string(), |p| json::numbers(&[p.from, p.to]));
    let start = record.start_position::<P>().map_err(|e| e.to_string())?;
    let tags: Vec<String> = record
        .tags
        .iter()
        .filter(|t| ["Event", "White", "Black", "Result", "Date"].contains(&t.name.as_str()))
        .map(|t| format!("{}:{}", json::string(&t.name), json::string(&t.value)))
        .collect();
    Ok(format!(
        "\"variant\":{},\"width\":{},\"layout\":{},\"notation\":{},\"squares\":[{}],\
         \"board\":{},\"side\":{},\"fen\":{},\"legal\":[{}],\"ply\":{},\"plies\":[{}],\
         \"startSide\":{},\"firstMover\":{},\"last\":{},\"outcome\":{},\"tags\":{{{}}}",
        json::string(variant.name()),
        facts.width,
        json::string(match facts.layout {
            Layout::Diagonal => "diagonal",
            Layout::Orthogonal => "orthogonal",
        }),
        json::string(match notation {
            Notation::Numeric => "numeric",
            Notation::Letter => "letter",
        }),
        squares.join(","),
        json::string(&crate::notation::write_hub_position(pos)),
        json::string(pos.side().name()),
        json::string(&write_fen(pos, Notation::Numeric)),
        moves.join(","),
        here.plies.len(),
        plies.join(","),
        json::string(start.side().name()),
        json::string(variant.first_to_move().name()),
        last,
        outcome.map_or("null".to_string(), |o| json::string(&describe(
            &here.game, o
        ))),
        tags.join(",")
    ))
}

/// Where the game stands at `cursor`: the side to move and whether the game is over.
pub fn status(record: &pdn::Game, cursor: usize) -> Result<(Color, bool), String> {
    with_board!(record.variant, P => {
        let r = replay::<P>(record, cursor)?;
        Ok((r.game.position().side(), r.game.outcome().is_some()))
    })
}

/// Play `text` (any notation tammi reads, the Hub form included) at `cursor`: checked
/// against the legal moves there and refused with the reason if it is not one of them,
/// or if the game is over. The moves after the cursor are replaced, unless `text` is the
/// next move of the line, which is then just stepped over (keeping what follows).
pub fn play(record: &mut pdn::Game, cursor: &mut usize, text: &str) -> Result<String, String> {
    with_board!(record.variant, P => play_with::<P>(record, cursor, text))
}

fn play_with<P: Board>(
    record: &mut pdn::Game,
    cursor: &mut usize,
    text: &str,
) -> Result<String, String> {
    let r = replay::<P>(record, *cursor)?;
    if let Some(o) = r.game.outcome() {
        return Err(format!("the game is over ({})", describe(&r.game, o)));
    }
    if *cursor >= MAX_PLIES {
        return Err(format!("a game here holds at most {MAX_PLIES} plies"));
    }
    let pos = r.game.position();
    let legal = r.game.legal_moves();
    let mv: Move<P::B> = parse_move(pos, text, &legal).map_err(|e| e.to_string())?;
    let shown = format_move(pos, &mv, &legal, P::VARIANT.default_notation());
    if let Some(next) = record.main_line.moves.get(*cursor)
        && next.setup.is_none()
        && pdn::resolve(pos, next, record.number, *cursor + 1, false).is_ok_and(|s| s.mv == mv)
    {
        *cursor += 1;
        return Ok(shown);
    }
    record.main_line.moves.truncate(*cursor);
    record.main_line.moves.push(PdnMove {
        text: shown.clone(),
        ..PdnMove::default()
    });
    record.result = None;
    *cursor += 1;
    Ok(shown)
}

/// The Hub `pos` line for the position at `cursor`, with the moves since the start (or
/// the last setup) so that the engine sees the repetitions.
pub fn hub_position(record: &pdn::Game, cursor: usize) -> Result<String, String> {
    with_board!(record.variant, P => {
        let r = replay::<P>(record, cursor)?;
        let moves: Vec<String> = r.game.moves().iter().map(format_hub_move::<P>).collect();
        Ok(format!(
            "pos fen={} moves=\"{}\"",
            write_fen(r.game.start(), Notation::Numeric),
            moves.join(" ")
        ))
    })
}

/// An engine's principal variation (Hub moves) from the position at `cursor`, in the
/// variant's notation, and the route of its first move (for the arrow). Moves that do
/// not replay end the line: the engine is trusted no more than the page.
pub fn pv(record: &pdn::Game, cursor: usize, hub_moves: &[String]) -> (Vec<String>, Vec<u32>) {
    with_board!(record.variant, P => {
        let Ok(r) = replay::<P>(record, cursor) else {
            return (Vec::new(), Vec::new());
        };
        let mut pos = *r.game.position();
        let mut texts = Vec::new();
        let mut arrow = Vec::new();
        for m in hub_moves.iter().take(64) {
            let mut legal = Vec::new();
            pos.generate(&mut legal);
            let Ok(mv) = parse_move(&pos, m, &legal) else { break };
            if texts.is_empty() {
                arrow = pos.routes(&mv).into_iter().next().unwrap_or_default()
                    .into_iter().map(P::square_of_bit).collect();
            }
            texts.push(format_move(&pos, &mv, &legal, P::VARIANT.default_notation()));
            pos = pos.play(&mv);
        }
        (texts, arrow)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_checked_and_the_line_replaced() {
        let mut rec = new_record(Variant::International, None).unwrap();
        let mut cursor = 0;
        assert_eq!(play(&mut rec, &mut cursor, "32-28").unwrap(), "32-28");
        assert!(play(&mut rec, &mut cursor, "32-28").is_err());
        assert_eq!(cursor, 1);
        play(&mut rec, &mut cursor, "19-23").unwrap();
        cursor = 1;
        play(&mut rec, &mut cursor, "18-22").unwrap();
        assert_eq!(rec.main_line.moves.len(), 2);
        assert_eq!(rec.main_line.moves[1].text, "18-22");
        assert!(
            hub_position(&rec, 2)
                .unwrap()
                .ends_with("moves=\"32-28 18-22\"")
        );
    }

    #[test]
    fn a_bad_fen_is_refused() {
        assert!(new_record(Variant::English, Some("W:W99:B1")).is_err());
        assert!(new_record(Variant::English, Some("B:W21-32:B1-12")).is_ok());
    }
}
