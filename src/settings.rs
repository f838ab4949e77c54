//! The engine's parameters, declared once: name, type and range, default, a line of help,
//! and how each applies. Every front end takes its settings from this table: the Hub
//! announces it (`param` lines) and checks every `set-param` against it, the text mode's
//! `set` and `settings` and `tammi analyze --set` use the same names and checks, and
//! protocol.md's list is compared with it by a test.
//!
//! [`Settings::apply`] applies a value to an [`Engine`] and its opening book, the same way
//! for each front end; what only one protocol has (the Hub's `client`, a refused variant)
//! stays in that front end.

use crate::book::BookPlayer;
use crate::eval::EvalKind;
use crate::notation::echo;
use crate::rules::Variant;
use crate::search::engine::Engine;
use crate::search::limits::EngineOptions;

/// What a parameter's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number in a range.
    Int {
        min: u64,
        max: u64,
    },
    Bool,
    /// One of `words`; each alias is read as the word beside it.
    Choice {
        words: &'static [&'static str],
        aliases: &'static [(&'static str, &'static str)],
    },
    /// One of the variants tammi plays (any of its names).
    Variant,
    /// A path or other text; empty means "none" or "the built-in one".
    Text,
}

/// What a new value changes, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// The game: a new variant starts a new game from its start position.
    Game,
    /// The engine's options, from the next search on; a new table or database is
    /// prepared when set (the Hub does it in the background).
    Engine,
    /// The engine's evaluation of the variant played; the position set up before is set
    /// up again with it.
    Eval,
    /// The opening book, from the next move on.
    Book,
    /// How the Hub talks to its GUI: a Hub parameter only.
    Protocol,
}

/// One parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    /// The value at start, as the front ends show it.
    pub default: &'static str,
    pub help: &'static str,
    pub applies: Applies,
}

const fn param(
    name: &'static str,
    kind: Kind,
    default: &'static str,
    applies: Applies,
    help: &'static str,
) -> Param {
    Param {
        name,
        kind,
        default,
        help,
        applies,
    }
}

const fn int(min: u64, max: u64) -> Kind {
    Kind::Int { min, max }
}

/// Every parameter, in the order the Hub announces them and the text mode lists them.
pub const PARAMS: &[Param] = &[
    param(
        "variant",
        Kind::Variant,
        "international",
        Applies::Game,
        "the variant played; a new one starts a game from its start position",
    ),
    param(
        "threads",
        int(1, EngineOptions::MAX_THREADS as u64),
        "1",
        Applies::Engine,
        "search threads (Lazy SMP)",
    ),
    param(
        "hash",
        int(1, EngineOptions::MAX_HASH_MB as u64),
        "64",
        Applies::Engine,
        "transposition table size in megabytes",
    ),
    // Scan's form of the hash size.
    param(
        "tt-size",
        int(16, 32),
        "22",
        Applies::Engine,
        "Scan's form of the table size: log2 of 16-byte entries (22 = 64 MB)",
    ),
    param(
        "ponder",
        Kind::Bool,
        "false",
        Applies::Protocol,
        "whether the GUI may send go ponder",
    ),
    param(
        "client",
        Kind::Choice {
            words: &["lidraughts", "pydraughts"],
            aliases: &[("scan", "lidraughts")],
        },
        "lidraughts",
        Applies::Protocol,
        "whose square conventions the GUI follows (pydraughts: its HubEngine)",
    ),
    param(
        "multipv",
        int(1, EngineOptions::MAX_MULTIPV as u64),
        "1",
        Applies::Engine,
        "lines reported in analysis",
    ),
    param(
        "move-overhead",
        int(0, EngineOptions::MAX_MOVE_OVERHEAD_MS),
        "30",
        Applies::Engine,
        "milliseconds kept back per move for communication delays",
    ),
    param(
        "egdb",
        Kind::Text,
        "",
        Applies::Engine,
        "an endgame database (tammi egdb build) or a directory of them; empty: none",
    ),
    param(
        "weights",
        Kind::Text,
        "",
        Applies::Eval,
        "a weights file for the variant played; empty: the built-in one",
    ),
    param(
        "eval",
        Kind::Choice {
            words: &["patterns", "network"],
            aliases: &[("pattern", "patterns"), ("nnue", "network")],
        },
        "patterns",
        Applies::Eval,
        "the evaluation of the variant played (english plays its network by default)",
    ),
    param(
        "network",
        Kind::Text,
        "",
        Applies::Eval,
        "a network file for the variant played (english); empty: the built-in one",
    ),
    // The opening book (protocol.md, "Opening books").
    param(
        "book",
        Kind::Bool,
        "true",
        Applies::Book,
        "play from the opening book where the position is in it; false: search every move",
    ),
    param(
        "book-file",
        Kind::Text,
        "",
        Applies::Book,
        "a book file of the variant played (tammi book build); empty: the built-in book",
    ),
    param(
        "book-ply",
        int(0, BookPlayer::MAX_PLY as u64),
        "60",
        Applies::Book,
        "the book is consulted while the game has at most this many plies",
    ),
    param(
        "book-margin",
        int(0, BookPlayer::MAX_MARGIN as u64),
        "4",
        Applies::Book,
        "centi-men below the best book move a move may be and still be chosen",
    ),
    param(
        "book-seed",
        int(0, u32::MAX as u64),
        "0",
        Applies::Book,
        "seed of the random choice among book moves; 0: from the clock",
    ),
];

/// The parameter called `name`; the error names the parameters there are.
pub fn find(name: &str) -> Result<&'static Param, String> {
    PARAMS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        format!(
            "unknown parameter '{}' (the parameters: {})",
            echo(name),
            names.join(" ")
        )
    })
}

/// A value checked against its parameter's type and range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(u64),
    Bool(bool),
    /// One of a choice's words (an alias already read as its word).
    Word(&'static str),
    Variant(Variant),
    /// Trimmed.
    Text(String),
}

impl Param {
    /// The values allowed, for a person: `1 to 256`, `true or false`, ...
    pub fn range(&self) -> String {
        match self.kind {
            Kind::Int { min, max } => format!("{min} to {max}"),
            Kind::Bool => "true or false".into(),
            Kind::Choice { words, .. } => words.join(" or "),
            Kind::Variant => "a variant".into(),
            Kind::Text => "a path, or empty".into(),
        }
    }

    /// `value` checked against this parameter's type and range; the error says what is
    /// allowed.
    pub fn parse(&self, value: &str) -> Result<Value, String> {
        let name = self.name;
        let t = value.trim();
        match self.kind {
            Kind::Int { .. } => self.int(value).map(Value::Int),
            Kind::Bool => self.bool(value).map(Value::Bool),
            Kind::Choice { words, aliases } => {
                let lower = t.to_ascii_lowercase();
                let alias = aliases.iter().find(|(a, _)| *a == lower).map(|(_, w)| *w);
                words
                    .iter()
                    .copied()
                    .find(|w| *w == lower)
                    .or(alias)
                    .map(Value::Word)
                    .ok_or_else(|| {
                        format!("{name} must be {}, got '{}'", self.range(), echo(value))
                    })
            }
            Kind::Variant => t.parse().map(Value::Variant),
            Kind::Text => Ok(Value::Text(t.to_string())),
        }
    }

    /// `value` as this whole-number parameter's value; the error says what is allowed.
    pub fn int(&self, value: &str) -> Result<u64, String> {
        let Kind::Int { min, max } = self.kind else {
            return Err(format!("{} is not a number", self.name));
        };
        let name = self.name;
        let v: u64 = value.trim().parse().map_err(|_| {
            format!(
                "{name} must be a whole number from {min} to {max}, got '{}'",
                echo(value)
            )
        })?;
        if !(min..=max).contains(&v) {
            return Err(format!("{name} must be from {min} to {max}, got {v}"));
        }
        Ok(v)
    }

    /// `value` as this true/false parameter's value.
    pub fn bool(&self, value: &str) -> Result<bool, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(format!(
                "{} must be true or false, got '{}'",
                self.name,
                echo(value)
            )),
        }
    }
}

/// Scan's `tt-size` for a table of `mb` megabytes (log2 of 16-byte entries).
pub fn tt_size_of(mb: usize) -> u32 {
    ((mb as u64) << 20 >> 4).max(1 << 16).ilog2().min(32)
}

/// What applying a value left for the caller to do.
#[derive(Debug)]
#[must_use]
pub enum Applied {
    /// Nothing: it is in force.
    Done,
    /// Set these engine options (a table or database to prepare: the front end decides
    /// whether it waits for that).
    Options(EngineOptions),
}

/// The state the engine and book parameters set, beside the engine itself: the opening
/// book player and the evaluation files named (the engine holds what was read from them).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub book: BookPlayer,
    /// The `weights` parameter: a weights file replacing the variant's built-in one.
    pub weights: String,
    /// The `network` parameter: a network file replacing the variant's built-in one.
    pub network: String,
}

impl Settings {
    /// The value in force of the engine, evaluation or book parameter `name`, for
    /// `engine` playing `variant`; `None` for the others (the game's and the protocol's).
    pub fn value(&self, engine: &Engine, variant: Variant, name: &str) -> Option<String> {
        let o = engine.options();
        let book = &self.book;
        Some(match name {
            "threads" => o.threads.to_string(),
            "hash" => o.hash_mb.to_string(),
            "tt-size" => tt_size_of(o.hash_mb).to_string(),
            "multipv" => o.multipv.to_string(),
            "move-overhead" => o.move_overhead.as_millis().to_string(),
            "egdb" => o
                .egdb
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            "weights" => self.weights.clone(),
            "eval" => engine.eval().selected(variant).to_string(),
            "network" => self.network.clone(),
            "book" => book.enabled.to_string(),
            "book-file" => book.file.as_ref().map_or(String::new(), |(p, _)| p.clone()),
            "book-ply" => book.max_ply.to_string(),
            "book-margin" => book.margin.to_string(),
            "book-seed" => book.seed.to_string(),
            _ => return None,
        })
    }

    /// Check `value` against parameter `name` of the engine, its evaluation or the book
    /// (the position being of `variant`) and apply it. On error nothing changes; the
    /// message says what is wrong.
    pub fn apply(
        &mut self,
        engine: &mut Engine,
        variant: Variant,
        name: &str,
        value: &str,
    ) -> Result<Applied, String> {
        let p = find(name)?;
        let mut o = engine.options().clone();
        let path = |t: &str| (!t.is_empty()).then(|| std::path::PathBuf::from(t));
        match (p.name, p.parse(value)?) {
            ("threads", Value::Int(n)) => o.threads = n as usize,
            ("hash", Value::Int(n)) => o.hash_mb = n as usize,
            // Scan's size: log2 of 16-byte entries.
            ("tt-size", Value::Int(bits)) => {
                o.hash_mb = (((1u64 << bits) * 16) >> 20)
                    .clamp(1, EngineOptions::MAX_HASH_MB as u64)
                    as usize
            }
            ("multipv", Value::Int(n)) => o.multipv = n as usize,
            ("move-overhead", Value::Int(ms)) => {
                o.move_overhead = std::time::Duration::from_millis(ms)
            }
            ("egdb", Value::Text(t)) => o.egdb = path(&t),
            ("weights", Value::Text(t)) => {
                let weights = match path(&t) {
                    Some(f) => Some(crate::eval::weights::read_file(&f, variant)?),
                    None => None,
                };
                let mut eval = engine.eval().clone();
                eval.replace_weights(variant, weights)?;
                // The position set up before is evaluated with them too.
                engine.set_eval(eval);
                self.weights = t;
                return Ok(Applied::Done);
            }
            ("eval", Value::Word(w)) => {
                let kind: EvalKind = w.parse()?;
                let mut eval = engine.eval().clone();
                eval.select(variant, kind)?;
                engine.set_eval(eval);
                return Ok(Applied::Done);
            }
            ("network", Value::Text(t)) => {
                let net = match path(&t) {
                    Some(f) => Some(crate::eval::network::read_file(&f)?),
                    None => None,
                };
                let mut eval = engine.eval().clone();
                eval.replace_network(variant, net)?;
                engine.set_eval(eval);
                self.network = t;
                return Ok(Applied::Done);
            }
            ("book", Value::Bool(b)) => self.book.enabled = b,
            ("book-file", Value::Text(t)) => self.book.set_file(&t, Some(variant))?,
            ("book-ply", Value::Int(n)) => self.book.max_ply = n as u32,
            ("book-margin", Value::Int(n)) => self.book.margin = n as u32,
            ("book-seed", Value::Int(n)) => self.book.set_seed(n),
            // The game's and the protocol's parameters are the front ends' own; one that
            // reaches here is a bug, said as one.
            (other, _) => {
                return Err(format!(
                    "parameter '{other}' is not an engine or book setting"
                ));
            }
        }
        if p.applies == Applies::Book {
            return Ok(Applied::Done);
        }
        Ok(Applied::Options(o))
    }

    /// The variant played changes from `old` to `new`: the evaluation files named were
    /// for `old`, so its built-in weights and network come back; a book file is of one
    /// variant, so the new one plays from its built-in book.
    pub fn variant_changed(
        &mut self,
        engine: &mut Engine,
        old: Variant,
        new: Variant,
    ) -> Result<(), String> {
        if !self.weights.is_empty() || !self.network.is_empty() {
            let mut eval = engine.eval().clone();
            eval.replace_weights(old, None)?;
            eval.replace_network(old, None)?;
            engine.set_eval(eval);
            self.weights.clear();
            self.network.clear();
        }
        if self
            .book
            .file
            .as_ref()
            .is_some_and(|(_, b)| b.variant != new)
        {
            self.book.file = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_in_range() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(PARAMS[..i].iter().all(|q| q.name != p.name), "{}", p.name);
            if let Kind::Int { min, max } = p.kind {
                assert!(min <= max, "{}", p.name);
            }
            assert!(p.parse(p.default).is_ok(), "{}'s default", p.name);
            assert!(!p.help.is_empty(), "{}", p.name);
        }
        let threads = find("threads").unwrap();
        assert_eq!(threads.int(" 2 "), Ok(2));
        assert!(threads.int("0").unwrap_err().contains("from 1 to"));
        assert!(threads.int("two").unwrap_err().contains("whole number"));
        assert_eq!(find("ponder").unwrap().bool("Off"), Ok(false));
        assert!(find("ponder").unwrap().bool("maybe").is_err());
        assert!(
            find("bb-size")
                .unwrap_err()
                .contains("unknown parameter 'bb-size'")
        );
        let client = find("client").unwrap();
        assert_eq!(client.parse("Scan"), Ok(Value::Word("lidraughts")));
        assert_eq!(
            client.parse("xboard").unwrap_err(),
            "client must be lidraughts or pydraughts, got 'xboard'"
        );
    }

    /// The defaults the table states are the ones the engine and the book start with.
    #[test]
    fn the_defaults_are_the_engine_s() {
        let engine = Engine::default();
        let settings = Settings::default();
        for p in PARAMS {
            if let Some(v) = settings.value(&engine, Variant::International, p.name) {
                assert_eq!(v, p.default, "{}", p.name);
            }
        }
        assert_eq!(tt_size_of(64).to_string(), find("tt-size").unwrap().default);
    }

    /// A refused value leaves the settings and the engine as they were.
    #[test]
    fn a_refused_value_changes_nothing() {
        let mut engine = Engine::default();
        let mut s = Settings::default();
        let v = Variant::International;
        for (name, value, says) in [
            ("threads", "0", "threads must be from 1 to 256, got 0"),
            ("book-ply", "1001", "book-ply must be from 0 to 1000"),
            ("eval", "network", "has no network evaluation"),
            ("book", "maybe", "book must be true or false"),
            ("weights", "/nonexistent/w.txt", "w.txt"),
            ("colour", "white", "unknown parameter 'colour'"),
            ("client", "pydraughts", "not an engine or book setting"),
        ] {
            let e = s.apply(&mut engine, v, name, value).unwrap_err();
            assert!(e.contains(says), "{name}={value}: {e}");
        }
        let (fresh, fresh_engine) = (Settings::default(), Engine::default());
        for p in PARAMS {
            assert_eq!(
                s.value(&engine, v, p.name),
                fresh.value(&fresh_engine, v, p.name),
                "{}",
                p.name
            );
        }
        let Ok(Applied::Options(o)) = s.apply(&mut engine, v, "tt-size", "20") else {
            panic!("tt-size is an engine option");
        };
        assert_eq!(o.hash_mb, 16);
    }
}
