//! The evaluation weights: `name value` lines from the files under `tuning/weights/`,
//! embedded at build time so the binary carries its own numbers.

use crate::rules::Variant;

macro_rules! weights {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// Every weight the evaluation reads (see `tuning/README.md` for units).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Weights {
            $($(#[$doc])* pub $name: i32,)*
        }

        impl Weights {
            /// The names a weights file must define, each exactly once.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }

            fn zero() -> Self {
                Weights { $($name: 0,)* }
            }
        }
    };
}

weights! {
    /// Material: one man (the unit, normally 100).
    man,
    /// Material: one king.
    king,
    /// Per row a man has advanced from its own back row.
    tempo,
    /// Per man on its own back row.
    back_rank,
    /// Per man on the central squares.
    centre_man,
    /// Per man on the side files.
    edge_man,
    /// Per empty square the men can step to.
    man_mobility,
    /// Per man with no step available.
    man_blocked,
    /// Per man in the opponent's half supported from behind.
    outpost,
    /// Per man of difference between the wings.
    balance,
    /// A man with a free path to promotion.
    runaway,
    /// Subtracted from `runaway` per row still to go.
    runaway_row,
    /// Per king on the central squares.
    centre_king,
    /// Per square a king can reach.
    king_mobility,
    /// Mobility counted up to this many squares per king.
    king_mobility_cap,
    /// Per king with no move.
    king_trapped,
    /// Per king on the rim.
    king_edge,
    /// Per king on the long diagonal.
    king_main_diagonal,
    /// Kings-only wins: per step between the stronger side's kings and the defender.
    king_chase,
    /// The side ahead in material gains this much as the board empties.
    trade_ahead,
    /// Percent of the score kept in a known drawish ending.
    drawish_scale_pct,
    /// Percent kept for three pieces against a lone king off the long diagonal.
    three_vs_one_scale_pct,
}

impl Weights {
    /// Parse a weights file; the error names the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let mut w = Weights::zero();
        let mut seen: Vec<&str> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!(
                    "line {}: expected 'name value', found '{line}'",
                    i + 1
                ));
            };
            let value: i32 = value
                .parse()
                .map_err(|_| format!("line {}: '{value}' is not an integer", i + 1))?;
            if seen.contains(&name) {
                return Err(format!("line {}: '{name}' is given twice", i + 1));
            }
            let slot = w
                .slot(name)
                .ok_or_else(|| format!("line {}: unknown weight '{name}'", i + 1))?;
            *slot = value;
            seen.push(name);
        }
        let missing: Vec<&str> = Weights::NAMES
            .iter()
            .copied()
            .filter(|n| !seen.contains(n))
            .collect();
        if !missing.is_empty() {
            return Err(format!("missing weights: {}", missing.join(", ")));
        }
        Ok(w)
    }

    /// The weights built into the binary for `variant`.
    pub fn embedded(variant: Variant) -> Weights {
        let (file, text) = embedded_text(variant);
        // The files are part of the source tree and checked by the tests below, so a
        // failure here is a build defect, not a user error.
        Weights::parse(text).unwrap_or_else(|e| panic!("tuning/weights/{file}: {e}"))
    }
}

/// The file (name and text) holding the weights of `variant`'s family.
pub fn embedded_text(variant: Variant) -> (&'static str, &'static str) {
    match variant {
        Variant::English => (
            "english.txt",
            include_str!("../../tuning/weights/english.txt"),
        ),
        Variant::International | Variant::Killer | Variant::Canadian => (
            "international.txt",
            include_str!("../../tuning/weights/international.txt"),
        ),
        Variant::Russian | Variant::Brazilian => (
            "russian.txt",
            include_str!("../../tuning/weights/russian.txt"),
        ),
        Variant::Turkish => (
            "turkish.txt",
            include_str!("../../tuning/weights/turkish.txt"),
        ),
        Variant::Breakthrough => (
            "breakthrough.txt",
            include_str!("../../tuning/weights/breakthrough.txt"),
        ),
        Variant::Losing => (
            "losing.txt",
            include_str!("../../tuning/weights/losing.txt"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ALL_VARIANTS;

    #[test]
    fn every_embedded_file_parses() {
        for v in ALL_VARIANTS {
            let (file, text) = embedded_text(v);
            let w = Weights::parse(text).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_ne!(w.man, 0, "{file}: a man must be worth something");
        }
    }

    #[test]
    fn bad_files_are_rejected_with_the_line() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        assert!(Weights::parse(&full).is_ok());
        let e = Weights::parse(&format!("{full}man 2\n")).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = Weights::parse(&format!("{full}bishop 3\n")).unwrap_err();
        assert!(e.contains("unknown weight 'bishop'"), "{e}");
        let e = Weights::parse("man x").unwrap_err();
        assert!(e.starts_with("line 1"), "{e}");
        let e = Weights::parse("man 100 # only this").unwrap_err();
        assert!(e.contains("missing weights: king"), "{e}");
    }
}
