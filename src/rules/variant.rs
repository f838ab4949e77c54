//! The variants tammi plays: their names, rule switches and draw rules.
//!
//! A diagonal variant is a zero-sized type implementing [`Rules`]; the generator reads its
//! switches as constants, so each variant gets its own specialised code. The runtime
//! [`Variant`] enum names them at the program's edges (command line, protocols, PDN).

use std::fmt;
use std::str::FromStr;

use super::bits::Bits;
use super::geometry::{DiagonalGeometry, GEOMETRY_8, GEOMETRY_10, GEOMETRY_12};

/// A side. White sits at the bottom (high square numbers on diagonal boards).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    White,
    Black,
}

impl Color {
    #[inline(always)]
    pub fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// How a game is won.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Goal {
    /// The side to move with no legal move (no pieces, or all blocked) loses.
    Normal,
    /// Antidraughts: the side to move with no legal move wins.
    Losing,
    /// Breakthrough: the first side to crown a king wins (and no move also loses).
    Breakthrough,
}

/// The rule switches of a diagonal variant.
pub trait Rules:
    'static + Copy + Send + Sync + Default + fmt::Debug + Eq + std::hash::Hash
{
    /// `u64` for 8x8 and 10x10, `u128` for 12x12.
    type B: Bits;
    const VARIANT: Variant;
    const GEO: &'static DiagonalGeometry;
    /// Kings move and capture along whole diagonals.
    const FLYING_KINGS: bool;
    const MEN_CAPTURE_BACKWARD: bool;
    /// The capture taking the most pieces is compulsory (a king counts as one).
    const MAX_CAPTURE: bool;
    /// A man reaching the last row during a capture is crowned there and goes on as a king
    /// (russian); elsewhere it stays a man unless the move ends there.
    const PROMOTE_IN_CAPTURE: bool;
    /// A capture by a king whose last victim is a king must end on the square right behind
    /// it (killer draughts; earlier landings stay free).
    const KILLER: bool;
    const FIRST: Color;
    const GOAL: Goal;
}

macro_rules! diagonal_rules {
    ($(#[$doc:meta])* $name:ident, $variant:ident, $b:ty, $geo:expr,
     flying: $fly:expr, backward: $back:expr, max: $max:expr, promote_in_capture: $pic:expr,
     killer: $killer:expr, first: $first:ident, goal: $goal:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Rules for $name {
            type B = $b;
            const VARIANT: Variant = Variant::$variant;
            const GEO: &'static DiagonalGeometry = &$geo;
            const FLYING_KINGS: bool = $fly;
            const MEN_CAPTURE_BACKWARD: bool = $back;
            const MAX_CAPTURE: bool = $max;
            const PROMOTE_IN_CAPTURE: bool = $pic;
            const KILLER: bool = $killer;
            const FIRST: Color = Color::$first;
            const GOAL: Goal = Goal::$goal;
        }
    };
}

diagonal_rules!(
    /// American checkers / English draughts: short kings, men capture forward only, free choice.
    English, English, u64, GEOMETRY_8,
    flying: false, backward: false, max: false, promote_in_capture: false,
    killer: false, first: Black, goal: Normal);
diagonal_rules!(
    /// International draughts (FMJD), 10x10.
    International, International, u64, GEOMETRY_10,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: false, first: White, goal: Normal);
diagonal_rules!(
    /// Russian draughts: free choice, crowning during a capture.
    Russian, Russian, u64, GEOMETRY_8,
    flying: true, backward: true, max: false, promote_in_capture: true,
    killer: false, first: White, goal: Normal);
diagonal_rules!(
    /// Brazilian draughts: international rules on 8x8.
    Brazilian, Brazilian, u64, GEOMETRY_8,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: false, first: White, goal: Normal);
diagonal_rules!(
    /// Canadian draughts: international rules on 12x12.
    Canadian, Canadian, u128, GEOMETRY_12,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: false, first: White, goal: Normal);
diagonal_rules!(
    /// Killer draughts: international, but a king's capture ending on a king stops right behind it.
    Killer, Killer, u64, GEOMETRY_10,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: true, first: White, goal: Normal);
diagonal_rules!(
    /// Breakthrough: international moves; the first to crown wins.
    Breakthrough, Breakthrough, u64, GEOMETRY_10,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: false, first: White, goal: Breakthrough);
diagonal_rules!(
    /// Losing draughts (antidraughts): international moves; no move left wins.
    Losing, Losing, u64, GEOMETRY_10,
    flying: true, backward: true, max: true, promote_in_capture: false,
    killer: false, first: White, goal: Losing);

/// Every variant tammi plays, as named at the edges.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Variant {
    English,
    International,
    Russian,
    Brazilian,
    Canadian,
    Turkish,
    Killer,
    Breakthrough,
    Losing,
}

/// Which of the notations a board uses by default.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Notation {
    /// Square numbers: `32-28`, `28x19`.
    Numeric,
    /// Letter–number squares: `c3-d4`, `e3:c5`.
    Letter,
}

impl FromStr for Notation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "numeric" | "number" | "n" => Ok(Notation::Numeric),
            "letter" | "alpha" | "algebraic" | "a" => Ok(Notation::Letter),
            _ => Err(format!(
                "unknown notation '{s}' (expected numeric or letter)"
            )),
        }
    }
}

/// A draw rule counted in plies since the last reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// A position occurring this many times is a draw.
    pub repetitions: u8,
    /// Plies without a capture and without a man moving (english: 40 moves each = 80 plies;
    /// international: 25 moves each with only kings moving = 50 plies).
    pub reversible_plies: Option<u16>,
    /// Plies allowed in the few-pieces endings of the FMJD rules: 3 kings (or 2 kings + a man,
    /// a king + 2 men) against a lone king, and 2 pieces or fewer against a lone king.
    pub three_against_one_plies: Option<u16>,
    pub two_against_one_plies: Option<u16>,
}

pub const ALL_VARIANTS: [Variant; 9] = [
    Variant::English,
    Variant::International,
    Variant::Russian,
    Variant::Brazilian,
    Variant::Canadian,
    Variant::Turkish,
    Variant::Killer,
    Variant::Breakthrough,
    Variant::Losing,
];

impl Variant {
    /// The canonical name (the Hub name where Scan has one: `normal`, `killer`, `bt`, `losing`
    /// are accepted as aliases).
    pub fn name(self) -> &'static str {
        match self {
            Variant::English => "english",
            Variant::International => "international",
            Variant::Russian => "russian",
            Variant::Brazilian => "brazilian",
            Variant::Canadian => "canadian",
            Variant::Turkish => "turkish",
            Variant::Killer => "killer",
            Variant::Breakthrough => "breakthrough",
            Variant::Losing => "losing",
        }
    }

    /// The name Scan's Hub protocol uses.
    pub fn hub_name(self) -> &'static str {
        match self {
            Variant::International => "normal",
            Variant::Breakthrough => "bt",
            v => v.name(),
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::English => &["english", "american", "checkers"],
            Variant::International => &["international", "normal", "intl"],
            Variant::Russian => &["russian"],
            Variant::Brazilian => &["brazilian"],
            Variant::Canadian => &["canadian"],
            Variant::Turkish => &["turkish"],
            Variant::Killer => &["killer"],
            Variant::Breakthrough => &["breakthrough", "bt"],
            Variant::Losing => &["losing", "antidraughts"],
        }
    }

    /// Board width (and height).
    pub fn width(self) -> u32 {
        match self {
            Variant::English | Variant::Russian | Variant::Brazilian | Variant::Turkish => 8,
            Variant::Canadian => 12,
            _ => 10,
        }
    }

    /// Playable squares.
    pub fn squares(self) -> u32 {
        match self {
            Variant::Turkish => 64,
            v => v.width() * v.width() / 2,
        }
    }

    /// The notation the variant's literature and PDN GameType use.
    pub fn default_notation(self) -> Notation {
        match self {
            Variant::Russian | Variant::Brazilian | Variant::Turkish => Notation::Letter,
            _ => Notation::Numeric,
        }
    }

    /// The side that moves first.
    pub fn first_to_move(self) -> Color {
        match self {
            Variant::English => Color::Black,
            _ => Color::White,
        }
    }

    /// How the game is won.
    pub fn goal(self) -> Goal {
        match self {
            Variant::Losing => Goal::Losing,
            Variant::Breakthrough => Goal::Breakthrough,
            _ => Goal::Normal,
        }
    }

    /// PDN GameType number.
    pub fn pdn_game_type(self) -> u32 {
        match self {
            Variant::English => 21,
            Variant::Russian => 25,
            Variant::Brazilian => 26,
            Variant::Canadian => 27,
            Variant::Turkish => 30,
            _ => 20,
        }
    }

    pub fn draw_rules(self) -> DrawRules {
        match self {
            // WCDF: 40 moves by each side without a man advancing and without a capture.
            Variant::English => DrawRules {
                repetitions: 3,
                reversible_plies: Some(80),
                three_against_one_plies: None,
                two_against_one_plies: None,
            },
            // FMJD: 25 moves each with only kings and no capture; 16 moves each for
            // 3 pieces (2 kings + 1) against a lone king; 5 moves each for 2 against 1.
            Variant::International
            | Variant::Killer
            | Variant::Breakthrough
            | Variant::Canadian
            | Variant::Brazilian => DrawRules {
                repetitions: 3,
                reversible_plies: Some(50),
                three_against_one_plies: Some(32),
                two_against_one_plies: Some(10),
            },
            // Russian federation rules: 15 moves each with only kings moving and no capture.
            Variant::Russian => DrawRules {
                repetitions: 3,
                reversible_plies: Some(30),
                three_against_one_plies: Some(30),
                two_against_one_plies: None,
            },
            Variant::Turkish | Variant::Losing => DrawRules {
                repetitions: 3,
                reversible_plies: None,
                three_against_one_plies: None,
                two_against_one_plies: None,
            },
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.trim().to_ascii_lowercase();
        ALL_VARIANTS
            .iter()
            .copied()
            .find(|v| v.aliases().contains(&lower.as_str()))
            .ok_or_else(|| {
                let names: Vec<&str> = ALL_VARIANTS.iter().map(|v| v.name()).collect();
                format!(
                    "unknown variant '{s}' (expected one of: {}; aliases american, checkers, normal, bt)",
                    names.join(", ")
                )
            })
    }
}
