//! The evaluation weights: `name value` lines from the files under `tuning/weights/`,
//! embedded at build time so the binary carries its own numbers.

use super::rectangles;
use crate::rules::{ALL_VARIANTS, Layout, Variant};

macro_rules! weights {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// Every weight the evaluation reads (see `tuning/README.md` for units): the named
        /// scalars, then the per-square tables (one value per playable square).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Weights {
            $($(#[$doc])* pub $name: i32,)*
            /// Per man on each square, counted from its own side's view, with the board
            /// full (tapered towards `man_square_endgame` as pieces come off).
            pub man_square_opening: Vec<i32>,
            /// Per man on each square with the board empty.
            pub man_square_endgame: Vec<i32>,
            /// Per king on each square, board full.
            pub king_square_opening: Vec<i32>,
            /// Per king on each square, board empty.
            pub king_square_endgame: Vec<i32>,
            /// 8x8 and 10x10 boards: a value per configuration of each 4x4 window (see
            /// [`pattern_windows`]), at `(phase * windows + window) * PATTERN_STATES +
            /// index` (one phase on 8x8, opening then endgame on 10x10); empty elsewhere.
            pub patterns: Vec<i32>,
            /// 10x10 boards: the rectangle tables (see [`super::rectangles`]), all
            /// [`super::rectangles::PARAMS`] of them, or none when the file has no
            /// `rectangles` line.
            pub rectangles: Vec<i32>,
        }

        /// The scalar weights by position, for evaluations that index them (`Term::tempo as
        /// usize` is the index of `tempo` in [`Weights::NAMES`] and [`Weights::params`]).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Term {
            $($name,)*
        }

        impl Weights {
            /// The percentages that scale a whole score in the endings `endgame` knows; a
            /// score is linear in the other weights (but `king_mobility_cap`).
            pub const SCALINGS: [&'static str; 4] = [
                "drawish_scale_pct",
                "three_vs_one_scale_pct",
                "king_held_scale_pct",
                "kings_even_scale_pct",
            ];

            /// The scalar names a weights file must define, each exactly once.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }

            /// The scalar weights in [`Weights::NAMES`] order.
            pub fn scalars(&self) -> Vec<i32> {
                vec![$(self.$name),*]
            }

            /// All zero but the scalings, which keep every score whole (100): scores are
            /// then linear in the weights, as a test of single features wants.
            pub fn unscaled(squares: usize) -> Self {
                let mut w = Self::zero(squares);
                for name in Self::SCALINGS {
                    *w.slot(name).expect("every scaling is a weight") = 100;
                }
                w
            }

            /// A copy without the rectangle tables (17 MB as `i32`s), for the search's
            /// tables, which hold their own compact copy of them.
            pub fn without_rectangles(&self) -> Self {
                Weights {
                    $($name: self.$name,)*
                    man_square_opening: self.man_square_opening.clone(),
                    man_square_endgame: self.man_square_endgame.clone(),
                    king_square_opening: self.king_square_opening.clone(),
                    king_square_endgame: self.king_square_endgame.clone(),
                    patterns: self.patterns.clone(),
                    rectangles: Vec::new(),
                }
            }

            /// All zero, with tables of `squares` entries.
            pub fn zero(squares: usize) -> Self {
                Weights {
                    $($name: 0,)*
                    man_square_opening: vec![0; squares],
                    man_square_endgame: vec![0; squares],
                    king_square_opening: vec![0; squares],
                    king_square_endgame: vec![0; squares],
                    patterns: vec![0; pattern_params(squares)],
                    rectangles: Vec::new(),
                }
            }
        }
    };
}

weights! {
    /// Material: one man (the unit, normally 100).
    man,
    /// Material: one king.
    king,
    /// Material: a side's first king, on top of `king`.
    king_first,
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
    /// Flying kings: percent kept when the side ahead has three pieces or fewer against
    /// a king.
    king_held_scale_pct,
    /// Flying kings: percent kept when the kings are level and the men a man apart at
    /// most.
    kings_even_scale_pct,
}

/// Patterns: the board is covered by overlapping 4x4 windows (corners on every even row
/// and column that leaves room for the window: 9 windows on 8x8, 16 on 10x10), 8
/// playable squares each. Seen from each side's own view (the board turned half a circle
/// for Black, as for the tables), a window's squares are in a configuration of empty /
/// own piece / opponent's piece: `3^8` of them, each with a value. The windows are
/// numbered from 1 row by row, from the far left one (the opponent's back rows) to the
/// near right one. 12x12 boards have none (their bitboards are wider than the windows'
/// shifts are written for).
pub fn pattern_windows(squares: usize) -> usize {
    match board_of(squares) {
        Some((Layout::Diagonal, w @ (8 | 10))) => ((w / 2 - 1) * (w / 2 - 1)) as usize,
        _ => 0,
    }
}
/// Value sets per configuration: one on 8x8; on 10x10 an opening and an endgame value,
/// blended by the pieces on the board as the per-square tables are (the long 10x10
/// opening and its endings want different shapes).
pub fn pattern_phases(squares: usize) -> usize {
    match board_of(squares) {
        Some((Layout::Diagonal, 10)) => 2,
        _ => 1,
    }
}

/// How many rectangle values a board with `squares` playable squares can have: the
/// 10x10 diagonal boards have [`rectangles::PARAMS`], the others none.
pub fn rectangle_params(squares: usize) -> usize {
    match board_of(squares) {
        Some((Layout::Diagonal, 10)) => rectangles::PARAMS,
        _ => 0,
    }
}

/// The board whose tables have `squares` entries (a weights file names no variant, and
/// the variants of one board share their files): its layout and width, from the variant
/// table.
fn board_of(squares: usize) -> Option<(Layout, u32)> {
    ALL_VARIANTS
        .iter()
        .find(|v| v.squares() as usize == squares)
        .map(|v| (v.facts().layout, v.width()))
}
/// Pattern values are held in 1/PATTERN_UNIT centi-men. A fitted pattern value is
/// mostly a fraction of a centi-man (sixteen windows a side add up), and whole centi-men
/// rounded nine in ten of international's fitted values to 0 or ±1: finer steps keep
/// what the fit found. A file says its unit with a `pattern_unit N` line (a divisor of
/// this; files without one are in whole centi-men).
pub const PATTERN_UNIT: i32 = 32;
/// The largest pattern value in centi-men, in absolute value: the search keeps White's
/// value less Black's in 16 bits of 1/PATTERN_UNIT centi-men.
pub const PATTERN_LIMIT: i32 = 500;
/// Configurations of one window: three states for each of its 8 squares.
pub const PATTERN_STATES: usize = 6561;

/// How many pattern values a board with `squares` playable squares has.
pub fn pattern_params(squares: usize) -> usize {
    pattern_windows(squares) * pattern_phases(squares) * PATTERN_STATES
}

/// A window configuration as text, from the side's own view: four rows of two squares,
/// far row first, left square first, `.` empty, `o` own piece, `x` opponent's, e.g.
/// `o./.x/../oo`. Square `i` (0-based, that order) is the base-3 digit `i` of the index.
pub fn pattern_text(index: usize) -> String {
    window_text(index, 8, ['.', 'o', 'x'])
}

/// The configuration `index` of a window of `squares` squares as text: rows of two
/// squares joined by `/`, square `i` (base-3 digit `i`) written as `symbols[digit]`.
pub fn window_text(index: usize, squares: usize, symbols: [char; 3]) -> String {
    let mut out = String::with_capacity(squares * 3 / 2);
    let mut x = index;
    for i in 0..squares {
        if i > 0 && i % 2 == 0 {
            out.push('/');
        }
        out.push(symbols[x % 3]);
        x /= 3;
    }
    out
}

/// The index of a configuration written by [`pattern_text`].
pub fn parse_pattern(text: &str) -> Result<usize, String> {
    let cells: Vec<char> = text.chars().filter(|&c| c != '/').collect();
    let shape_ok = text.len() == 11
        && text
            .chars()
            .enumerate()
            .all(|(i, c)| (c == '/') == (i % 3 == 2));
    if !shape_ok || cells.len() != 8 {
        return Err(format!(
            "'{text}' is not a window configuration (four rows of two squares, e.g. o./.x/../oo)"
        ));
    }
    let mut index = 0;
    for &c in cells.iter().rev() {
        let d = match c {
            '.' => 0,
            'o' => 1,
            'x' => 2,
            _ => return Err(format!("'{text}': '{c}' is not '.', 'o' or 'x'")),
        };
        index = index * 3 + d;
    }
    Ok(index)
}

/// `pattern_unit N`: the pattern values after it are in 1/N centi-men; N divides
/// [`PATTERN_UNIT`] so every value is held exactly.
fn parse_pattern_unit(values: &[&str], patterns_seen: bool) -> Result<i32, String> {
    if patterns_seen {
        return Err("'pattern_unit' must come before the first pattern line".into());
    }
    match values {
        [v] => match v.parse::<i32>() {
            Ok(n) if n > 0 && PATTERN_UNIT % n == 0 => Ok(n),
            _ => Err(format!(
                "pattern_unit '{v}' is not a divisor of {PATTERN_UNIT} (1, 2, 4, ... {PATTERN_UNIT})"
            )),
        },
        _ => Err(format!(
            "expected 'pattern_unit N', found 'pattern_unit {}'",
            values.join(" ")
        )),
    }
}

/// The per-square tables, in the order of [`Weights::params`].
pub const TABLES: [&str; 4] = [
    "man_square_opening",
    "man_square_endgame",
    "king_square_opening",
    "king_square_endgame",
];

impl Weights {
    /// Parse a weights file for a board of `squares` playable squares; the error names
    /// the line and what is wrong with it. Every scalar must be given exactly once; the
    /// tables may be left out (all zero) but, when given, hold exactly `squares` integers.
    pub fn parse(text: &str, squares: usize) -> Result<Weights, String> {
        let mut w = Weights::zero(squares);
        let mut seen: Vec<&str> = Vec::new();
        // Whole centi-men until a `pattern_unit` line says otherwise.
        let (mut file_unit, mut patterns_seen) = (1, false);
        // The `rectangles` line (its number and what it announces) and the data after it.
        let (mut rect_header, mut rect_data) = (None, String::new());
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let name = parts.next().unwrap_or("");
            let values: Vec<&str> = parts.collect();
            if name == "rectangles" {
                let at = |e: String| format!("line {}: {e}", i + 1);
                if rect_header.is_some() {
                    return Err(at("'rectangles' is given twice".into()));
                }
                if rectangle_params(squares) == 0 {
                    return Err(at("rectangles exist on 10x10 diagonal boards only".into()));
                }
                rect_header = Some((i + 1, rectangles::parse_header(&values).map_err(at)?));
                continue;
            }
            if name == "rectangle_data" {
                if rect_header.is_none() {
                    return Err(format!(
                        "line {}: 'rectangle_data' before the 'rectangles' line",
                        i + 1
                    ));
                }
                match values[..] {
                    [data] => rect_data.push_str(data),
                    _ => {
                        return Err(format!(
                            "line {}: expected 'rectangle_data BASE64', found '{line}'",
                            i + 1
                        ));
                    }
                }
                continue;
            }
            if name == "pattern" {
                w.parse_pattern_line(&values, squares, file_unit)
                    .map_err(|e| format!("line {}: {e}", i + 1))?;
                patterns_seen = true;
                continue;
            }
            if name == "pattern_unit" {
                file_unit = parse_pattern_unit(&values, patterns_seen)
                    .map_err(|e| format!("line {}: {e}", i + 1))?;
                continue;
            }
            if values.is_empty() {
                return Err(format!(
                    "line {}: expected 'name value', found '{line}'",
                    i + 1
                ));
            }
            let mut numbers = Vec::with_capacity(values.len());
            for v in &values {
                numbers.push(
                    v.parse::<i32>()
                        .map_err(|_| format!("line {}: '{v}' is not an integer", i + 1))?,
                );
            }
            if seen.contains(&name) {
                return Err(format!("line {}: '{name}' is given twice", i + 1));
            }
            if let Some(table) = w.table_mut(name) {
                if numbers.len() != squares {
                    return Err(format!(
                        "line {}: '{name}' needs {squares} values (one per square), found {}",
                        i + 1,
                        numbers.len()
                    ));
                }
                *table = numbers;
            } else {
                let slot = w
                    .slot(name)
                    .ok_or_else(|| format!("line {}: unknown weight '{name}'", i + 1))?;
                if numbers.len() != 1 {
                    return Err(format!(
                        "line {}: '{name}' takes one value, found {}",
                        i + 1,
                        numbers.len()
                    ));
                }
                *slot = numbers[0];
            }
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
        if let Some((line, announced)) = rect_header {
            w.rectangles = rectangles::decode(announced, &rect_data)
                .map_err(|e| format!("line {line} and the rectangle_data after it: {e}"))?;
        }
        Ok(w)
    }

    /// `pattern WINDOW CONFIGURATION VALUE`, e.g. `pattern 5 o./.x/../oo -12`; on 10x10
    /// `pattern WINDOW CONFIGURATION OPENING ENDGAME`.
    /// `file_unit`: the values are in 1/file_unit centi-men (a divisor of
    /// [`PATTERN_UNIT`]); they are held in 1/PATTERN_UNIT.
    fn parse_pattern_line(
        &mut self,
        values: &[&str],
        squares: usize,
        file_unit: i32,
    ) -> Result<(), String> {
        let windows = pattern_windows(squares);
        let phases = pattern_phases(squares);
        if windows == 0 {
            return Err("patterns exist on 8x8 and 10x10 boards only".into());
        }
        let shape = if phases == 1 {
            "'pattern WINDOW CONFIGURATION VALUE'"
        } else {
            "'pattern WINDOW CONFIGURATION OPENING ENDGAME'"
        };
        if values.len() != 2 + phases {
            return Err(format!(
                "expected {shape}, found 'pattern {}'",
                values.join(" ")
            ));
        }
        let (window, config) = (values[0], values[1]);
        let window: usize = match window.parse() {
            Ok(n) if (1..=windows).contains(&n) => n,
            _ => {
                return Err(format!(
                    "pattern window '{window}' is not a number from 1 to {windows}"
                ));
            }
        };
        let index = parse_pattern(config)?;
        let mut numbers = Vec::with_capacity(phases);
        for value in &values[2..] {
            let v: i32 = value
                .parse()
                .map_err(|_| format!("'{value}' is not an integer"))?;
            if v.abs() > PATTERN_LIMIT * file_unit {
                return Err(format!(
                    "pattern {window} {config} is {v}, beyond ±{} (±{PATTERN_LIMIT} centi-men)",
                    PATTERN_LIMIT * file_unit
                ));
            }
            numbers.push(v * (PATTERN_UNIT / file_unit));
        }
        if numbers.iter().all(|&v| v == 0) {
            return Err(format!(
                "pattern {window} {config} is 0 (leave zero patterns out)"
            ));
        }
        let slots: Vec<usize> = (0..phases)
            .map(|p| (p * windows + window - 1) * PATTERN_STATES + index)
            .collect();
        if slots.iter().any(|&i| self.patterns[i] != 0) {
            return Err(format!("pattern {window} {config} is given twice"));
        }
        for (&i, &v) in slots.iter().zip(&numbers) {
            self.patterns[i] = v;
        }
        Ok(())
    }

    /// Whether any pattern value is non-zero (else the evaluation skips the patterns).
    pub fn has_patterns(&self) -> bool {
        self.patterns.iter().any(|&v| v != 0)
    }

    /// Whether any rectangle value is non-zero (else the evaluation skips them).
    pub fn has_rectangles(&self) -> bool {
        self.rectangles.iter().any(|&v| v != 0)
    }

    /// Give a 10x10 board's weights their rectangle tables, all zero, if they have none
    /// (to fit them from nothing); an error on other boards.
    pub fn add_rectangles(&mut self) -> Result<(), String> {
        let n = rectangle_params(self.squares());
        if n == 0 {
            return Err("rectangles exist on 10x10 diagonal boards only".into());
        }
        if self.rectangles.is_empty() {
            self.rectangles = vec![0; n];
        }
        Ok(())
    }

    fn table_mut(&mut self, name: &str) -> Option<&mut Vec<i32>> {
        match name {
            "man_square_opening" => Some(&mut self.man_square_opening),
            "man_square_endgame" => Some(&mut self.man_square_endgame),
            "king_square_opening" => Some(&mut self.king_square_opening),
            "king_square_endgame" => Some(&mut self.king_square_endgame),
            _ => None,
        }
    }

    /// The tables in [`TABLES`] order.
    pub fn tables(&self) -> [&[i32]; 4] {
        [
            &self.man_square_opening,
            &self.man_square_endgame,
            &self.king_square_opening,
            &self.king_square_endgame,
        ]
    }

    /// Playable squares of the tables.
    pub fn squares(&self) -> usize {
        self.man_square_opening.len()
    }

    /// Whether any table entry is non-zero.
    pub fn has_square_tables(&self) -> bool {
        self.tables().iter().any(|t| t.iter().any(|&v| v != 0))
    }

    /// Every weight as one vector: the scalars in [`Weights::NAMES`] order, then the four
    /// tables in [`TABLES`] order (the layout of the evaluation's features).
    pub fn params(&self) -> Vec<i32> {
        let mut v = self.scalars();
        for t in self.tables() {
            v.extend_from_slice(t);
        }
        v.extend_from_slice(&self.patterns);
        v.extend_from_slice(&self.rectangles);
        v
    }

    /// The inverse of [`Weights::params`].
    pub fn set_params(&mut self, v: &[i32]) {
        let n = self.squares();
        assert_eq!(
            v.len(),
            Weights::NAMES.len() + 4 * n + self.patterns.len() + self.rectangles.len(),
            "parameter count"
        );
        for (i, name) in Weights::NAMES.iter().enumerate() {
            *self.slot(name).expect("a known name") = v[i];
        }
        let mut at = Weights::NAMES.len();
        for name in TABLES {
            let t = self.table_mut(name).expect("a known table");
            t.copy_from_slice(&v[at..at + n]);
            at += n;
        }
        let len = self.patterns.len();
        self.patterns.copy_from_slice(&v[at..at + len]);
        at += len;
        let len = self.rectangles.len();
        self.rectangles.copy_from_slice(&v[at..at + len]);
    }

    /// The name of parameter `i` of [`Weights::params`]: `tempo`, `man_square_opening[5]`
    /// (squares numbered from 1).
    pub fn param_name(&self, i: usize) -> String {
        let ns = Weights::NAMES.len();
        if i < ns {
            return Weights::NAMES[i].to_string();
        }
        let n = self.squares();
        let rect_from = ns + 4 * n + self.patterns.len();
        if i >= rect_from {
            let r = i - rect_from;
            let per_phase = rectangles::TABLES * rectangles::STATES;
            let phase = if r < per_phase { "opening" } else { "endgame" };
            let (table, config) = (r % per_phase / rectangles::STATES, r % rectangles::STATES);
            return format!(
                "rectangle {} {} ({phase})",
                table + 1,
                rectangles::configuration_text(config)
            );
        }
        if i >= ns + 4 * n {
            let p = i - ns - 4 * n;
            let windows = pattern_windows(n);
            let (set, config) = (p / PATTERN_STATES, p % PATTERN_STATES);
            let phase = match (pattern_phases(n), set / windows) {
                (1, _) => "",
                (_, 0) => " (opening)",
                _ => " (endgame)",
            };
            return format!(
                "pattern {} {}{phase}",
                set % windows + 1,
                pattern_text(config)
            );
        }
        format!("{}[{}]", TABLES[(i - ns) / n], (i - ns) % n + 1)
    }

    /// The file text (the format [`Weights::parse`] reads), after `header` comment lines.
    pub fn to_text(&self, header: &[String]) -> String {
        let mut out = String::new();
        for h in header {
            out.push_str(&format!("# {h}\n"));
        }
        out.push('\n');
        for (name, v) in Weights::NAMES.iter().zip(self.scalars()) {
            out.push_str(&format!("{name:<22} {v}\n"));
        }
        // One line per table; a wider gap between board rows keeps it readable.
        let per_row = match board_of(self.squares()) {
            Some((Layout::Diagonal, w)) => w as usize / 2,
            Some((Layout::Orthogonal, w)) => w as usize,
            None => self.squares().max(1),
        };
        out.push_str(
            "\n# Per-square tables, from each side's own view: the first value is the far\n",
        );
        out.push_str("# left square of the opponent's back row, the last the near right one.\n");
        for (name, t) in TABLES.iter().zip(self.tables()) {
            out.push_str(name);
            for (k, v) in t.iter().enumerate() {
                out.push_str(if k % per_row == 0 { "   " } else { " " });
                out.push_str(&format!("{v:>3}"));
            }
            out.push('\n');
        }
        if self.has_patterns() {
            let n = self.squares();
            let (windows, phases) = (pattern_windows(n), pattern_phases(n));
            out.push_str(if phases == 1 {
                "\n# Patterns: pattern WINDOW CONFIGURATION VALUE (see tuning/README.md).\n"
            } else {
                "\n# Patterns: pattern WINDOW CONFIGURATION OPENING ENDGAME (see tuning/README.md).\n"
            });
            out.push_str("# The configurations left out are worth 0.\n");
            out.push_str(&format!(
                "# Values in 1/{PATTERN_UNIT} centi-men:\npattern_unit {PATTERN_UNIT}\n"
            ));
            let per_phase = windows * PATTERN_STATES;
            for k in 0..per_phase {
                let values: Vec<i32> = (0..phases)
                    .map(|p| self.patterns[p * per_phase + k])
                    .collect();
                if values.iter().any(|&v| v != 0) {
                    let (window, index) = (k / PATTERN_STATES + 1, k % PATTERN_STATES);
                    out.push_str(&format!("pattern {window} {}", pattern_text(index)));
                    for v in values {
                        out.push_str(&format!(" {v}"));
                    }
                    out.push('\n');
                }
            }
        }
        if !self.rectangles.is_empty() {
            out.push_str(
                "\n# Rectangles: 4 tables of 3^12 configurations, opening and endgame values in\n",
            );
            out.push_str(&format!(
                "# 1/{PATTERN_UNIT} centi-men, packed (see src/eval/rectangles.rs).\n"
            ));
            out.push_str(&rectangles::encode(&self.rectangles));
        }
        out
    }

    /// The weights built into the binary for `variant`.
    pub fn embedded(variant: Variant) -> Weights {
        let (file, text) = embedded_text(variant);
        // The files are part of the source tree and checked by the tests below, so a
        // failure here is a build defect, not a user error.
        Weights::parse(text, variant.squares() as usize)
            .unwrap_or_else(|e| panic!("tuning/weights/{file}: {e}"))
    }
}

/// The largest weights file read at run time (the trained 10x10 files are a few MB).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A weights file for `variant` from disk (the Hub parameter `weights`); the error says
/// what is wrong with the file or which line is.
pub fn read_file(path: &std::path::Path, variant: Variant) -> Result<Weights, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{shown} has {} bytes, more than a weights file ({} MB at most)",
            meta.len(),
            MAX_FILE_BYTES >> 20
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Weights::parse(&text, variant.squares() as usize).map_err(|e| format!("{shown}: {e}"))
}

/// Every weights file built into the binary, by name (each variant names its file in its
/// table entry, `VariantFacts::weights`).
const EMBEDDED: [(&str, &str); 14] = [
    (
        "english.txt",
        include_str!("../../tuning/weights/english.txt"),
    ),
    (
        "international.txt",
        include_str!("../../tuning/weights/international.txt"),
    ),
    (
        "killer.txt",
        include_str!("../../tuning/weights/killer.txt"),
    ),
    (
        "canadian.txt",
        include_str!("../../tuning/weights/canadian.txt"),
    ),
    (
        "russian.txt",
        include_str!("../../tuning/weights/russian.txt"),
    ),
    (
        "turkish.txt",
        include_str!("../../tuning/weights/turkish.txt"),
    ),
    (
        "breakthrough.txt",
        include_str!("../../tuning/weights/breakthrough.txt"),
    ),
    (
        "losing.txt",
        include_str!("../../tuning/weights/losing.txt"),
    ),
    // The 8x8 family (issue 18).
    (
        "italian.txt",
        include_str!("../../tuning/weights/italian.txt"),
    ),
    ("pool.txt", include_str!("../../tuning/weights/pool.txt")),
    ("czech.txt", include_str!("../../tuning/weights/czech.txt")),
    (
        "spanish.txt",
        include_str!("../../tuning/weights/spanish.txt"),
    ),
    ("thai.txt", include_str!("../../tuning/weights/thai.txt")),
    (
        "frisian.txt",
        include_str!("../../tuning/weights/frisian.txt"),
    ),
];

/// The file (name and text) holding the weights of `variant`'s family.
pub fn embedded_text(variant: Variant) -> (&'static str, &'static str) {
    let file = variant.facts().weights;
    EMBEDDED
        .iter()
        .find(|(name, _)| *name == file)
        .copied()
        .unwrap_or_else(|| panic!("{file}, the weights of {variant}, is not built in"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ALL_VARIANTS;

    #[test]
    fn every_embedded_file_parses() {
        for v in ALL_VARIANTS {
            let (file, text) = embedded_text(v);
            let w = Weights::parse(text, v.squares() as usize)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_ne!(w.man, 0, "{file}: a man must be worth something");
        }
        // And no file is built in that no variant reads.
        for (file, _) in EMBEDDED {
            assert!(
                ALL_VARIANTS.iter().any(|v| v.facts().weights == file),
                "{file}"
            );
        }
    }

    #[test]
    fn rectangle_lines_round_trip_and_fail_clearly() {
        // From the built-in file without its own rectangles: two entries only.
        let mut w = Weights::embedded(Variant::International);
        w.rectangles.clear();
        w.add_rectangles().unwrap();
        w.rectangles[7] = 5;
        w.rectangles[rectangles::PARAMS - 1] = -9 * PATTERN_UNIT;
        let text = w.to_text(&["test".into()]);
        assert_eq!(Weights::parse(&text, 50).unwrap(), w);
        let line_of = |prefix: &str| text.lines().position(|l| l.starts_with(prefix)).unwrap() + 1;
        let header = line_of("rectangles ");
        // A cut file: the data end early, and the checksum says so, naming the line.
        let cut = &text[..text.len() - 4];
        let e = Weights::parse(cut, 50).unwrap_err();
        assert!(
            e.starts_with(&format!("line {header} and the rectangle_data")),
            "{e}"
        );
        assert!(e.contains("checksum"), "{e}");
        // Data without the header line, a second header, a bad header, a small board.
        let data_only: String = text
            .lines()
            .filter(|l| !l.starts_with("rectangles "))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = Weights::parse(&data_only, 50).unwrap_err();
        assert!(
            e.contains("'rectangle_data' before the 'rectangles' line"),
            "{e}"
        );
        let e = Weights::parse(&format!("{text}rectangles 0 0\n"), 50).unwrap_err();
        assert!(e.contains("'rectangles' is given twice"), "{e}");
        let bad = text.replace("rectangles 2 ", "rectangles two ");
        let e = Weights::parse(&bad, 50).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "line {header}: expected 'rectangles ENTRIES CHECKSUM'"
            )),
            "{e}"
        );
        let english = format!(
            "{}rectangles 0 cbf29ce484222325\n",
            embedded_text(Variant::English).1
        );
        let e = Weights::parse(&english, 32).unwrap_err();
        assert!(e.contains("10x10 diagonal boards only"), "{e}");
        // An empty table set announced as such reads as all zero.
        let without: String = embedded_text(Variant::International)
            .1
            .lines()
            .filter(|l| !l.starts_with("rectangle"))
            .map(|l| format!("{l}\n"))
            .collect();
        let empty = format!("{without}rectangles 0 cbf29ce484222325\n");
        let w = Weights::parse(&empty, 50).unwrap();
        assert_eq!(w.rectangles.len(), rectangles::PARAMS);
        assert!(!w.has_rectangles());
    }

    #[test]
    fn bad_files_are_rejected_with_the_line() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        assert!(Weights::parse(&full, 32).is_ok());
        let e = Weights::parse(&format!("{full}man 2\n"), 32).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = Weights::parse(&format!("{full}bishop 3\n"), 32).unwrap_err();
        assert!(e.contains("unknown weight 'bishop'"), "{e}");
        let e = Weights::parse("man x", 32).unwrap_err();
        assert!(e.starts_with("line 1"), "{e}");
        let e = Weights::parse("man 100 # only this", 32).unwrap_err();
        assert!(e.contains("missing weights: king"), "{e}");
        let e = Weights::parse("man 100 3", 32).unwrap_err();
        assert!(e.contains("line 1: 'man' takes one value, found 2"), "{e}");
    }

    #[test]
    fn pattern_lines_parse_round_trip_and_fail_clearly() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        let text = format!("{full}pattern 5 o./.x/../oo -12\npattern 9 ../../../.. 3\n");
        let w = Weights::parse(&text, 32).unwrap();
        let i = parse_pattern("o./.x/../oo").unwrap();
        assert_eq!(pattern_text(i), "o./.x/../oo");
        // A file without `pattern_unit` is in whole centi-men.
        assert_eq!(w.patterns[4 * PATTERN_STATES + i], -12 * PATTERN_UNIT);
        assert_eq!(w.patterns[8 * PATTERN_STATES], 3 * PATTERN_UNIT);
        assert_eq!(Weights::parse(&w.to_text(&[]), 32).unwrap(), w);
        for (bad, why) in [
            ("pattern 10 o./.x/../oo 1", "from 1 to 9"),
            ("pattern 1 o./.x/../o 1", "not a window configuration"),
            ("pattern 1 o./.y/../oo 1", "'y' is not"),
            ("pattern 1 o./.x/../oo", "expected 'pattern WINDOW"),
            ("pattern 1 o./.x/../oo 0", "leave zero patterns out"),
            ("pattern 1 o./.x/../oo z", "'z' is not an integer"),
            ("pattern 1 o./.x/../oo 501", "beyond ±500 (±500 centi-men)"),
            ("pattern_unit 3", "not a divisor of 32"),
            ("pattern_unit 0", "not a divisor of 32"),
            ("pattern_unit", "expected 'pattern_unit N'"),
            ("pattern_unit 4 4", "expected 'pattern_unit N'"),
        ] {
            let e = Weights::parse(&format!("{full}{bad}\n"), 32).unwrap_err();
            assert!(
                e.contains(why) && e.starts_with(&format!("line {}", Weights::NAMES.len() + 1)),
                "{bad}: {e}"
            );
        }
        let twice = format!("{full}pattern 1 o./../../.. 1\npattern 1 o./../../.. 2\n");
        assert!(
            Weights::parse(&twice, 32)
                .unwrap_err()
                .contains("given twice")
        );
        let e = Weights::parse(&format!("{full}pattern 1 o./../../.. 1\n"), 72).unwrap_err();
        assert!(e.contains("8x8 and 10x10 boards only"), "{e}");
    }

    #[test]
    fn pattern_unit_scales_the_values_after_it() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        let i = parse_pattern("o./.x/../oo").unwrap();
        // 16 in 1/16 centi-men is one centi-man; in 1/32, 5 stays 5.
        for (unit, value, held) in [(16, 16, PATTERN_UNIT), (32, 5, 5), (1, 2, 2 * PATTERN_UNIT)] {
            let text = format!("{full}pattern_unit {unit}\npattern 5 o./.x/../oo {value}\n");
            let w = Weights::parse(&text, 32).unwrap();
            assert_eq!(w.patterns[4 * PATTERN_STATES + i], held, "unit {unit}");
            assert_eq!(Weights::parse(&w.to_text(&[]), 32).unwrap(), w);
        }
        // The limit is in centi-men whatever the unit.
        let e = Weights::parse(
            &format!("{full}pattern_unit 32\npattern 5 o./.x/../oo 16001\n"),
            32,
        )
        .unwrap_err();
        assert!(
            e.contains(&format!("line {}", Weights::NAMES.len() + 2))
                && e.contains("beyond ±16000"),
            "{e}"
        );
        // A unit after the values it would have scaled is refused, not applied late.
        let e = Weights::parse(
            &format!("{full}pattern 5 o./.x/../oo 1\npattern_unit 32\n"),
            32,
        )
        .unwrap_err();
        assert!(
            e.contains(&format!("line {}", Weights::NAMES.len() + 2))
                && e.contains("before the first pattern"),
            "{e}"
        );
    }

    #[test]
    fn tapered_pattern_lines_on_10x10() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        let text = format!("{full}pattern 16 o./.x/../oo -12 7\npattern 1 ../../../.. 0 3\n");
        let w = Weights::parse(&text, 50).unwrap();
        let i = parse_pattern("o./.x/../oo").unwrap();
        let per_phase = 16 * PATTERN_STATES;
        assert_eq!(w.patterns.len(), 2 * per_phase);
        assert_eq!(w.patterns[15 * PATTERN_STATES + i], -12 * PATTERN_UNIT);
        assert_eq!(
            w.patterns[per_phase + 15 * PATTERN_STATES + i],
            7 * PATTERN_UNIT
        );
        assert_eq!(w.patterns[0], 0);
        assert_eq!(w.patterns[per_phase], 3 * PATTERN_UNIT);
        assert_eq!(Weights::parse(&w.to_text(&[]), 50).unwrap(), w);
        let n = Weights::NAMES.len() + 4 * 50;
        assert_eq!(
            w.param_name(n + per_phase + 15 * PATTERN_STATES + i),
            "pattern 16 o./.x/../oo (endgame)"
        );
        for (bad, why) in [
            ("pattern 17 o./.x/../oo 1 1", "from 1 to 16"),
            ("pattern 1 o./.x/../oo 1", "OPENING ENDGAME"),
            ("pattern 1 o./.x/../oo 0 0", "leave zero patterns out"),
            ("pattern 1 o./.x/../oo 1 10001", "beyond"),
        ] {
            let e = Weights::parse(&format!("{full}{bad}\n"), 50).unwrap_err();
            assert!(
                e.contains(why) && e.starts_with(&format!("line {}", Weights::NAMES.len() + 1)),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn square_tables_parse_and_round_trip() {
        let full: String = Weights::NAMES.iter().map(|n| format!("{n} 1\n")).collect();
        let row: Vec<String> = (1..=32).map(|i| (i - 16).to_string()).collect();
        let text = format!("{full}man_square_opening {}\n", row.join(" "));
        let w = Weights::parse(&text, 32).unwrap();
        assert_eq!(w.man_square_opening[0], -15);
        assert_eq!(w.man_square_opening[31], 16);
        // Tables left out are zero.
        assert_eq!(w.king_square_endgame, vec![0; 32]);
        let again = Weights::parse(&w.to_text(&["a header".into()]), 32).unwrap();
        assert_eq!(again, w);
        let mut p = w.params();
        p[Weights::NAMES.len() + 32 + 4] = 77;
        let mut w2 = w.clone();
        w2.set_params(&p);
        assert_eq!(w2.man_square_endgame[4], 77);
        assert_eq!(
            w2.param_name(Weights::NAMES.len() + 32 + 4),
            "man_square_endgame[5]"
        );

        let short = format!("{full}king_square_opening 1 2 3\n");
        let e = Weights::parse(&short, 32).unwrap_err();
        let line = Weights::NAMES.len() + 1;
        assert!(
            e.contains(&format!(
                "line {line}: 'king_square_opening' needs 32 values"
            )),
            "{e}"
        );
        let twice = format!("{text}man_square_opening {}\n", row.join(" "));
        let e = Weights::parse(&twice, 32).unwrap_err();
        assert!(e.contains("'man_square_opening' is given twice"), "{e}");
        let e = Weights::parse(&format!("{full}man_square_opening 1 x\n"), 32).unwrap_err();
        assert!(e.contains("'x' is not an integer"), "{e}");
    }
}
