//! The engine's parameters, declared once: name, type and range. The Hub announces them
//! from this table (`param` lines) and checks every `set-param` value against it before
//! applying it; the text mode reads its settings by the same names; protocol.md's list of
//! parameters is checked against it by a test.

use super::message::ParamType;
use crate::book::BookPlayer;
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
    /// One of these words.
    Choice(&'static [&'static str]),
    /// One of the variants tammi plays (by its Hub name).
    Variant,
    /// A path or other text; empty means "none" or "the built-in one".
    Text,
}

/// One parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
}

const fn param(name: &'static str, kind: Kind) -> Param {
    Param { name, kind }
}

/// Every parameter, in the order the Hub announces them.
pub const PARAMS: &[Param] = &[
    param("variant", Kind::Variant),
    param(
        "threads",
        Kind::Int {
            min: 1,
            max: EngineOptions::MAX_THREADS as u64,
        },
    ),
    param(
        "hash",
        Kind::Int {
            min: 1,
            max: EngineOptions::MAX_HASH_MB as u64,
        },
    ),
    // Scan's form of the hash size: log2 of 16-byte entries.
    param("tt-size", Kind::Int { min: 16, max: 32 }),
    param("ponder", Kind::Bool),
    param("client", Kind::Choice(&["lidraughts", "pydraughts"])),
    param(
        "multipv",
        Kind::Int {
            min: 1,
            max: EngineOptions::MAX_MULTIPV as u64,
        },
    ),
    param(
        "move-overhead",
        Kind::Int {
            min: 0,
            max: EngineOptions::MAX_MOVE_OVERHEAD_MS,
        },
    ),
    param("egdb", Kind::Text),
    param("weights", Kind::Text),
    param("eval", Kind::Choice(&["patterns", "network"])),
    param("network", Kind::Text),
    // The opening book (protocol.md, "Opening books").
    param("book", Kind::Bool),
    param("book-file", Kind::Text),
    param(
        "book-ply",
        Kind::Int {
            min: 0,
            max: BookPlayer::MAX_PLY as u64,
        },
    ),
    param(
        "book-margin",
        Kind::Int {
            min: 0,
            max: BookPlayer::MAX_MARGIN as u64,
        },
    ),
    param(
        "book-seed",
        Kind::Int {
            min: 0,
            max: u32::MAX as u64,
        },
    ),
];

/// The parameter called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

impl Param {
    /// The type announced in the `param` line (`variants`: the Hub names of the variants
    /// played).
    pub fn hub_type(&self, variants: &[&str]) -> ParamType {
        let words = |w: &[&str]| ParamType::Enum(w.iter().map(|v| v.to_string()).collect());
        match self.kind {
            Kind::Int { min, max } => ParamType::Int {
                min: min as i64,
                max: max as i64,
            },
            Kind::Bool => ParamType::Bool,
            Kind::Choice(values) => words(values),
            Kind::Variant => words(variants),
            Kind::Text => ParamType::String,
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
                crate::notation::echo(value)
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
                crate::notation::echo(value)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_ranges_sane() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(PARAMS[..i].iter().all(|q| q.name != p.name), "{}", p.name);
            if let Kind::Int { min, max } = p.kind {
                assert!(min <= max, "{}", p.name);
            }
        }
        let threads = find("threads").unwrap();
        assert_eq!(threads.int(" 2 "), Ok(2));
        assert!(threads.int("0").unwrap_err().contains("from 1 to"));
        assert!(threads.int("two").unwrap_err().contains("whole number"));
        assert_eq!(find("ponder").unwrap().bool("Off"), Ok(false));
        assert!(find("ponder").unwrap().bool("maybe").is_err());
        assert!(find("bb-size").is_none());
    }
}
