//! The variants tammi plays: their names, rule switches and draw rules.
//!
//! A diagonal variant is a zero-sized type implementing [`Rules`]; the generator reads its
//! switches as constants, so each variant gets its own specialised code. The runtime
//! [`Variant`] enum names them at the program's edges (command line, protocols, PDN).

use std::fmt;
use std::str::FromStr;

use super::bits::Bits;
use super::geometry::{
    DiagonalGeometry, GEOMETRY_8, GEOMETRY_8_SPANISH, GEOMETRY_8_TURNED, GEOMETRY_10, GEOMETRY_12,
};

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
    /// Men may capture kings (not in italian).
    const MEN_CAPTURE_KINGS: bool;
    /// Among the captures left, one made by a king must be played (czech; italian after
    /// the count).
    const KING_FIRST: bool;
    /// Among the captures left, the one taking the most kings (italian, spanish).
    const MOST_KINGS: bool;
    /// Among the captures left, the one meeting a king earliest (italian; short kings only:
    /// the order is read from the route's midpoints).
    const KINGS_EARLY: bool;
    /// A king's capture lands on the square right behind each piece taken (thai).
    const LAND_BEHIND: bool;
    /// Captured pieces leave the board at once, so a king may cross their squares and turn
    /// back (thai).
    const REMOVE_AT_ONCE: bool;
    /// Captures are ranked by more than their count: a sink that knows the kings decides.
    const RANKED: bool = Self::KING_FIRST || Self::MOST_KINGS || Self::KINGS_EARLY;
    const FIRST: Color;
    const GOAL: Goal;
}

/// A diagonal variant's type: every switch is read from the variant's table entry (see
/// [`VariantFacts`]), so the generator's constants and the facts the edges show cannot
/// disagree. Only the bitboard type is given here (a type cannot come from a table).
macro_rules! diagonal_rules {
    ($(#[$doc:meta])* $name:ident, $b:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Rules for $name {
            type B = $b;
            const VARIANT: Variant = Variant::$name;
            const GEO: &'static DiagonalGeometry = geometry(Variant::$name.facts());
            const FLYING_KINGS: bool = Variant::$name.switches().flying_kings;
            const MEN_CAPTURE_BACKWARD: bool = Variant::$name.switches().men_capture_backward;
            const MAX_CAPTURE: bool = Variant::$name.switches().max_capture;
            const PROMOTE_IN_CAPTURE: bool = Variant::$name.switches().promote_in_capture;
            const KILLER: bool = Variant::$name.switches().killer;
            const MEN_CAPTURE_KINGS: bool = Variant::$name.switches().men_capture_kings;
            const KING_FIRST: bool = Variant::$name.switches().king_first;
            const MOST_KINGS: bool = Variant::$name.switches().most_kings;
            const KINGS_EARLY: bool = Variant::$name.switches().kings_early;
            const LAND_BEHIND: bool = Variant::$name.switches().land_behind;
            const REMOVE_AT_ONCE: bool = Variant::$name.switches().remove_at_once;
            const FIRST: Color = Variant::$name.facts().first;
            const GOAL: Goal = Variant::$name.facts().goal;
        }
    };
}

/// The precomputed geometry of a variant's diagonal board (its width, and whether it is
/// turned and numbered from White's side: see [`DiagonalGeometry`]).
const fn geometry(f: &VariantFacts) -> &'static DiagonalGeometry {
    match (f.width, f.turned, f.numbered_from_white) {
        (8, false, false) => &GEOMETRY_8,
        (8, true, false) => &GEOMETRY_8_TURNED,
        (8, true, true) => &GEOMETRY_8_SPANISH,
        (10, false, false) => &GEOMETRY_10,
        (12, false, false) => &GEOMETRY_12,
        _ => panic!("no such diagonal board (8, 10 or 12 wide; only 8x8 turned)"),
    }
}

diagonal_rules!(
    /// American checkers / English draughts: short kings, men capture forward only, free choice.
    English, u64);
diagonal_rules!(
    /// International draughts (FMJD), 10x10.
    International, u64);
diagonal_rules!(
    /// Russian draughts: free choice, crowning during a capture.
    Russian, u64);
diagonal_rules!(
    /// Brazilian draughts: international rules on 8x8.
    Brazilian, u64);
diagonal_rules!(
    /// Canadian draughts: international rules on 12x12.
    Canadian, u128);
diagonal_rules!(
    /// Killer draughts: international, but a king's capture ending on a king stops right behind it.
    Killer, u64);
diagonal_rules!(
    /// Breakthrough: international moves; the first to crown wins.
    Breakthrough, u64);
diagonal_rules!(
    /// Losing draughts (antidraughts): international moves; no move left wins.
    Losing, u64);
// The 8x8 family (issue 18).
diagonal_rules!(
    /// Italian draughts (FID): turned board, short kings, men cannot take kings, precedence.
    Italian, u64);
diagonal_rules!(
    /// American pool checkers (APCA): flying kings, men capture backward, free choice.
    Pool, u64);
diagonal_rules!(
    /// Czech draughts (ČDF): flying kings, men capture forward, a king's capture first.
    Czech, u64);
diagonal_rules!(
    /// Spanish draughts: turned board, flying kings, the most pieces then the most kings.
    Spanish, u64);
diagonal_rules!(
    /// Thai draughts (mak-hos): flying kings landing right behind, pieces taken at once.
    Thai, u64);

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
    // The 8x8 family (issue 18).
    Italian,
    Pool,
    Czech,
    Spanish,
    Thai,
    Frisian,
    Frysk,
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
    /// Frisian: plies allowed with two kings against one king, and with one king against
    /// one king (kings only on the board), since the last capture or promotion.
    pub two_kings_against_king_plies: Option<u16>,
    pub king_against_king_plies: Option<u16>,
}

pub const ALL_VARIANTS: [Variant; 16] = [
    Variant::English,
    Variant::International,
    Variant::Russian,
    Variant::Brazilian,
    Variant::Canadian,
    Variant::Turkish,
    Variant::Killer,
    Variant::Breakthrough,
    Variant::Losing,
    // The 8x8 family (issue 18).
    Variant::Italian,
    Variant::Pool,
    Variant::Czech,
    Variant::Spanish,
    Variant::Thai,
    Variant::Frisian,
    Variant::Frysk,
];

/// How the squares of a board are laid out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout {
    /// Play on the dark squares only, along the diagonals.
    Diagonal,
    /// Every square, along files and ranks (turkish).
    Orthogonal,
}

/// The rule switches of a diagonal variant (read by [`Rules`]; see its constants).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Switches {
    pub flying_kings: bool,
    pub men_capture_backward: bool,
    pub max_capture: bool,
    pub promote_in_capture: bool,
    pub killer: bool,
    pub men_capture_kings: bool,
    pub king_first: bool,
    pub most_kings: bool,
    pub kings_early: bool,
    pub land_behind: bool,
    pub remove_at_once: bool,
}

/// Everything tammi knows about one variant, stated once: every edge (command line, Hub,
/// PDN, notation, evaluation, the generator's constants) reads it from here.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct VariantFacts {
    /// The canonical name (command line, messages, PDN `Variant` tag).
    pub name: &'static str,
    /// Further names accepted wherever a variant is read (the name and the Hub name are).
    pub aliases: &'static [&'static str],
    /// The name in Scan's Hub protocol.
    pub hub_name: &'static str,
    /// The PDN GameType number tammi writes.
    pub pdn_game_type: u32,
    /// Further GameType numbers read as this variant (what other programs write).
    pub pdn_game_type_aliases: &'static [u32],
    /// Shares its GameType with international: a `Variant` tag names it in PDN.
    pub pdn_variant_tag: bool,
    /// Board width (and height), in squares.
    pub width: u32,
    /// The board is turned (see [`DiagonalGeometry::turned`]).
    pub turned: bool,
    /// Square 1 is on White's side (see [`DiagonalGeometry::from_white`]).
    pub numbered_from_white: bool,
    /// Empty rows between the two armies at the start (2: all but the middle rows full).
    pub start_gap: u32,
    pub layout: Layout,
    /// The notation of the variant's literature and its PDN GameType.
    pub notation: Notation,
    /// The side that moves first.
    pub first: Color,
    pub goal: Goal,
    pub draw_rules: DrawRules,
    /// The evaluation's built-in weights: a file in `tuning/weights/`.
    pub weights: &'static str,
    /// The diagonal generator's switches; `None` for turkish and frisian, whose rules are
    /// their own generators' (`rules/turkish.rs`, `rules/frisian.rs`).
    pub switches: Option<Switches>,
}

/// FMJD: 25 moves each with only kings and no capture; 16 moves each for 3 pieces
/// (2 kings + 1) against a lone king; 5 moves each for 2 against 1.
const FMJD_DRAWS: DrawRules = DrawRules {
    repetitions: 3,
    reversible_plies: Some(50),
    three_against_one_plies: Some(32),
    two_against_one_plies: Some(10),
    two_kings_against_king_plies: None,
    king_against_king_plies: None,
};

/// International rules on any board (brazilian, canadian and the 10x10 variants start here).
const FMJD_SWITCHES: Switches = Switches {
    flying_kings: true,
    men_capture_backward: true,
    max_capture: true,
    promote_in_capture: false,
    killer: false,
    men_capture_kings: true,
    king_first: false,
    most_kings: false,
    kings_early: false,
    land_behind: false,
    remove_at_once: false,
};

const INTERNATIONAL: VariantFacts = VariantFacts {
    name: "international",
    aliases: &["intl"],
    hub_name: "normal",
    pdn_game_type: 20,
    pdn_game_type_aliases: &[],
    pdn_variant_tag: false,
    width: 10,
    turned: false,
    numbered_from_white: false,
    start_gap: 2,
    layout: Layout::Diagonal,
    notation: Notation::Numeric,
    first: Color::White,
    goal: Goal::Normal,
    draw_rules: FMJD_DRAWS,
    weights: "international.txt",
    switches: Some(FMJD_SWITCHES),
};

const ENGLISH: VariantFacts = VariantFacts {
    name: "english",
    aliases: &["american", "checkers"],
    hub_name: "english",
    pdn_game_type: 21,
    width: 8,
    first: Color::Black,
    // WCDF: 40 moves by each side without a man advancing and without a capture.
    draw_rules: DrawRules {
        repetitions: 3,
        reversible_plies: Some(80),
        three_against_one_plies: None,
        two_against_one_plies: None,
        two_kings_against_king_plies: None,
        king_against_king_plies: None,
    },
    weights: "english.txt",
    switches: Some(Switches {
        flying_kings: false,
        men_capture_backward: false,
        max_capture: false,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

const RUSSIAN: VariantFacts = VariantFacts {
    name: "russian",
    aliases: &[],
    hub_name: "russian",
    pdn_game_type: 25,
    width: 8,
    notation: Notation::Letter,
    // Russian federation rules: 15 moves each with only kings moving and no capture.
    draw_rules: DrawRules {
        repetitions: 3,
        reversible_plies: Some(30),
        three_against_one_plies: Some(30),
        two_against_one_plies: None,
        two_kings_against_king_plies: None,
        king_against_king_plies: None,
    },
    weights: "russian.txt",
    switches: Some(Switches {
        max_capture: false,
        promote_in_capture: true,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

const BRAZILIAN: VariantFacts = VariantFacts {
    name: "brazilian",
    aliases: &[],
    hub_name: "brazilian",
    pdn_game_type: 26,
    width: 8,
    notation: Notation::Letter,
    weights: "russian.txt",
    ..INTERNATIONAL
};

const CANADIAN: VariantFacts = VariantFacts {
    name: "canadian",
    aliases: &[],
    hub_name: "canadian",
    pdn_game_type: 27,
    width: 12,
    weights: "canadian.txt",
    ..INTERNATIONAL
};

const TURKISH: VariantFacts = VariantFacts {
    name: "turkish",
    aliases: &[],
    hub_name: "turkish",
    pdn_game_type: 30,
    // 43 is what one program writes for turkish.
    pdn_game_type_aliases: &[43],
    width: 8,
    layout: Layout::Orthogonal,
    notation: Notation::Letter,
    draw_rules: THREEFOLD,
    weights: "turkish.txt",
    switches: None,
    ..INTERNATIONAL
};

const KILLER: VariantFacts = VariantFacts {
    name: "killer",
    hub_name: "killer",
    aliases: &[],
    pdn_variant_tag: true,
    switches: Some(Switches {
        killer: true,
        ..FMJD_SWITCHES
    }),
    // International's weights are trained on international games; killer keeps the
    // hand-set ones.
    weights: "killer.txt",
    ..INTERNATIONAL
};

const BREAKTHROUGH: VariantFacts = VariantFacts {
    name: "breakthrough",
    hub_name: "bt",
    aliases: &[],
    pdn_variant_tag: true,
    goal: Goal::Breakthrough,
    weights: "breakthrough.txt",
    ..INTERNATIONAL
};

const LOSING: VariantFacts = VariantFacts {
    name: "losing",
    hub_name: "losing",
    aliases: &["antidraughts"],
    pdn_variant_tag: true,
    goal: Goal::Losing,
    draw_rules: TURKISH.draw_rules,
    weights: "losing.txt",
    ..INTERNATIONAL
};

// The 8x8 family (issue 18). Each switch cites the rule book's article; the perft counts
// in tests/data/perft.tsv (dctl's, from the FMJD forum's "perft for all recognized
// draughts variants" thread) are the check.

/// Italian draughts, FID Regolamento Tecnico, Capo I (2006).
const ITALIAN: VariantFacts = VariantFacts {
    name: "italian",
    aliases: &[],
    hub_name: "italian",
    // PDN 3.0 GameType 22.
    pdn_game_type: 22,
    width: 8,
    // Art. 2.3: the dark corner on each player's right; 2.4: 1 = Black's corner, a8.
    turned: true,
    first: Color::White,
    // Art. 9.3(b1) as dctl reads it: a position occurring four times; art. 10.4: 40 moves
    // each without a capture or a man moving.
    draw_rules: DrawRules {
        repetitions: 4,
        reversible_plies: Some(80),
        three_against_one_plies: None,
        two_against_one_plies: None,
        two_kings_against_king_plies: None,
        king_against_king_plies: None,
    },
    weights: "italian.txt",
    switches: Some(Switches {
        // Art. 4.7: the king steps one square.
        flying_kings: false,
        // Art. 5.3(a): men capture forward only; 5.3(b): a man may not take a king.
        men_capture_backward: false,
        men_capture_kings: false,
        // Art. 6.6 to 6.9: the most pieces, then with the king, then the most kings, then
        // the king met first.
        max_capture: true,
        king_first: true,
        most_kings: true,
        kings_early: true,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

/// American pool checkers, APCA Tournament Rules of Play.
const POOL: VariantFacts = VariantFacts {
    name: "pool",
    aliases: &["american-pool"],
    hub_name: "pool",
    // PDN 3.0 GameType 23.
    pdn_game_type: 23,
    width: 8,
    // Rule 2: the bottom left corner dark; 5: Black on the first twelve squares; 7: Black
    // moves first.
    first: Color::Black,
    // Rule 26 as dctl reads it: threefold repetition; 30 plies without a capture or a man
    // moving.
    draw_rules: DrawRules {
        repetitions: 3,
        reversible_plies: Some(30),
        three_against_one_plies: None,
        two_against_one_plies: None,
        two_kings_against_king_plies: None,
        king_against_king_plies: None,
    },
    weights: "pool.txt",
    switches: Some(Switches {
        // Rules 14 and 15: men capture backward, kings fly; 16: a man passing the king row
        // during a capture goes on as a man; 20: free choice of capture.
        max_capture: false,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

/// Czech draughts, the ČDF rules (damweb.cz/pravidla/cdfull.html).
const CZECH: VariantFacts = VariantFacts {
    name: "czech",
    aliases: &[],
    hub_name: "czech",
    // PDN 3.0 GameType 29.
    pdn_game_type: 29,
    width: 8,
    // Art. 2.6: letter-number notation.
    notation: Notation::Letter,
    draw_rules: THREEFOLD,
    weights: "czech.txt",
    switches: Some(Switches {
        // Art. 3.9: flying kings; 4.1: men capture forward only; 4.14: a capture with a
        // king comes first, otherwise free choice.
        men_capture_backward: false,
        max_capture: false,
        king_first: true,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

/// Spanish draughts (the Spanish and Portuguese federations' classic game).
const SPANISH: VariantFacts = VariantFacts {
    name: "spanish",
    aliases: &[],
    hub_name: "spanish",
    // PDN 3.0 GameType 24.
    pdn_game_type: 24,
    width: 8,
    // The italian board (a dark square in each player's right corner), numbered from
    // White's right corner: White starts on 1-12 and moves first.
    turned: true,
    numbered_from_white: true,
    draw_rules: THREEFOLD,
    weights: "spanish.txt",
    switches: Some(Switches {
        // Flying kings, men capture forward only, the most pieces then the most kings
        // (FPD Regras das Damas Clássicas).
        men_capture_backward: false,
        most_kings: true,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

/// Thai draughts (mak-hos).
const THAI: VariantFacts = VariantFacts {
    name: "thai",
    aliases: &["makhos", "mak-hos"],
    hub_name: "thai",
    // PDN 3.0 GameType 31.
    pdn_game_type: 31,
    width: 8,
    // Eight men each, on the two back rows.
    start_gap: 4,
    draw_rules: THREEFOLD,
    weights: "thai.txt",
    switches: Some(Switches {
        // Flying kings that land right behind each piece taken, pieces removed as they are
        // taken (so a king may turn back across them), men capture forward only, free
        // choice.
        men_capture_backward: false,
        max_capture: false,
        land_behind: true,
        remove_at_once: true,
        ..FMJD_SWITCHES
    }),
    ..INTERNATIONAL
};

/// Only threefold repetition (variants whose rule books tammi has no move count from).
const THREEFOLD: DrawRules = DrawRules {
    repetitions: 3,
    reversible_plies: None,
    three_against_one_plies: None,
    two_against_one_plies: None,
    two_kings_against_king_plies: None,
    king_against_king_plies: None,
};

/// Frisian (Art. 4–12 of the federation's rules: see `rules/frisian.rs`). GameType 40 (PDN
/// 3.0). Draws: threefold repetition; two kings against one king drawn after seven moves
/// each, one king against one king after two moves each (the rule book draws the latter at
/// once unless one king must fall; like lidraughts, tammi leaves two moves each for that).
/// No 25-move rule: the king-move limit (Art. 12) keeps men moving while a side has them.
const FRISIAN: VariantFacts = VariantFacts {
    name: "frisian",
    aliases: &[],
    hub_name: "frisian",
    pdn_game_type: 40,
    draw_rules: DrawRules {
        two_kings_against_king_plies: Some(14),
        king_against_king_plies: Some(4),
        ..THREEFOLD
    },
    weights: "frisian.txt",
    switches: None,
    ..INTERNATIONAL
};

/// frysk!: frisian rules from five men each on the back rows (W 46–50, B 1–5), as the
/// Frisian federation's youth form and lidraughts play it. Shares GameType 40 (as pydraughts
/// writes it), named by the `Variant` tag; its games carry the start as a FEN.
const FRYSK: VariantFacts = VariantFacts {
    name: "frysk",
    aliases: &["frysk!"],
    hub_name: "frysk",
    pdn_variant_tag: true,
    ..FRISIAN
};

impl Variant {
    /// The variant's table entry.
    pub const fn facts(self) -> &'static VariantFacts {
        match self {
            Variant::English => &ENGLISH,
            Variant::International => &INTERNATIONAL,
            Variant::Russian => &RUSSIAN,
            Variant::Brazilian => &BRAZILIAN,
            Variant::Canadian => &CANADIAN,
            Variant::Turkish => &TURKISH,
            Variant::Killer => &KILLER,
            Variant::Breakthrough => &BREAKTHROUGH,
            Variant::Losing => &LOSING,
            Variant::Italian => &ITALIAN,
            Variant::Pool => &POOL,
            Variant::Czech => &CZECH,
            Variant::Spanish => &SPANISH,
            Variant::Thai => &THAI,
            Variant::Frisian => &FRISIAN,
            Variant::Frysk => &FRYSK,
        }
    }

    /// The diagonal generator's switches (a compile-time error for turkish, which has none).
    pub const fn switches(self) -> Switches {
        match self.facts().switches {
            Some(s) => s,
            None => panic!("not a diagonal variant"),
        }
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The name Scan's Hub protocol uses.
    pub fn hub_name(self) -> &'static str {
        self.facts().hub_name
    }

    /// Every name the variant is read by: its name, its Hub name and its aliases.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        let f = self.facts();
        [f.name, f.hub_name]
            .into_iter()
            .chain(f.aliases.iter().copied())
    }

    /// Board width (and height).
    pub fn width(self) -> u32 {
        self.facts().width
    }

    /// Playable squares.
    pub fn squares(self) -> u32 {
        let w = self.width();
        match self.facts().layout {
            Layout::Diagonal => w * w / 2,
            Layout::Orthogonal => w * w,
        }
    }

    /// The notation the variant's literature and PDN GameType use.
    pub fn default_notation(self) -> Notation {
        self.facts().notation
    }

    /// The side that moves first.
    pub fn first_to_move(self) -> Color {
        self.facts().first
    }

    /// How the game is won.
    pub fn goal(self) -> Goal {
        self.facts().goal
    }

    /// PDN GameType number.
    pub fn pdn_game_type(self) -> u32 {
        self.facts().pdn_game_type
    }

    /// The variant a PDN GameType number means by itself (without a `Variant` tag).
    pub fn of_pdn_game_type(n: u32) -> Option<Variant> {
        ALL_VARIANTS.into_iter().find(|v| {
            let f = v.facts();
            !f.pdn_variant_tag && (f.pdn_game_type == n || f.pdn_game_type_aliases.contains(&n))
        })
    }

    pub fn draw_rules(self) -> DrawRules {
        self.facts().draw_rules
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
            .find(|v| v.names().any(|n| n == lower))
            .ok_or_else(|| {
                let names: Vec<&str> = ALL_VARIANTS.iter().map(|v| v.name()).collect();
                let other: Vec<&str> = ALL_VARIANTS
                    .iter()
                    .flat_map(|v| v.names().skip(1).filter(move |n| *n != v.name()))
                    .collect();
                format!(
                    "unknown variant '{s}' (expected one of: {}; aliases {})",
                    names.join(", "),
                    other.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Position, TurkishPosition};

    /// The generator's constants are the table's (a type per variant, checked one by one).
    fn same_as_table<R: Rules>() {
        let f = R::VARIANT.facts();
        let s = R::VARIANT.switches();
        assert_eq!(R::GEO.width, f.width, "{}", f.name);
        assert_eq!(R::GEO.squares, R::VARIANT.squares(), "{}", f.name);
        assert_eq!(Position::<R>::square_count(), R::VARIANT.squares());
        assert_eq!(
            (R::FLYING_KINGS, R::MEN_CAPTURE_BACKWARD, R::MAX_CAPTURE),
            (s.flying_kings, s.men_capture_backward, s.max_capture)
        );
        assert_eq!(
            (R::PROMOTE_IN_CAPTURE, R::KILLER),
            (s.promote_in_capture, s.killer)
        );
        assert_eq!(
            (
                R::MEN_CAPTURE_KINGS,
                R::KING_FIRST,
                R::MOST_KINGS,
                R::KINGS_EARLY
            ),
            (
                s.men_capture_kings,
                s.king_first,
                s.most_kings,
                s.kings_early
            )
        );
        assert_eq!(
            (R::LAND_BEHIND, R::REMOVE_AT_ONCE),
            (s.land_behind, s.remove_at_once)
        );
        assert_eq!(
            (R::GEO.turned, R::GEO.from_white),
            (f.turned, f.numbered_from_white)
        );
        // The ranked order of italian's route midpoints needs short kings.
        assert!(!(R::KINGS_EARLY && R::FLYING_KINGS), "{}", f.name);
        assert_eq!((R::FIRST, R::GOAL), (f.first, f.goal));
        assert_eq!(Position::<R>::start().side(), f.first, "{}", f.name);
    }

    #[test]
    fn the_generator_reads_the_table() {
        same_as_table::<English>();
        same_as_table::<International>();
        same_as_table::<Russian>();
        same_as_table::<Brazilian>();
        same_as_table::<Canadian>();
        same_as_table::<Killer>();
        same_as_table::<Breakthrough>();
        same_as_table::<Losing>();
        // The 8x8 family (issue 18).
        same_as_table::<Italian>();
        same_as_table::<Pool>();
        same_as_table::<Czech>();
        same_as_table::<Spanish>();
        same_as_table::<Thai>();
        assert_eq!(TurkishPosition::square_count(), Variant::Turkish.squares());
        assert_eq!(TurkishPosition::VARIANT.facts().layout, Layout::Orthogonal);
        use crate::rules::{FrisianBoard, FryskBoard};
        assert_eq!(FrisianBoard::square_count(), Variant::Frisian.squares());
        assert_eq!(FryskBoard::VARIANT, Variant::Frysk);
        assert_eq!(FryskBoard::start().white().count(), 5);
        assert_eq!(FrisianBoard::start().black().count(), 20);
    }

    #[test]
    fn the_table_holds_what_tammi_played_before() {
        use Variant as V;
        let row = |v: V| {
            format!(
                "{} {} {} {} {} {:?} {:?}",
                v.name(),
                v.hub_name(),
                v.pdn_game_type(),
                v.width(),
                v.squares(),
                v.first_to_move(),
                v.default_notation()
            )
        };
        let rows: Vec<String> = ALL_VARIANTS.into_iter().map(row).collect();
        assert_eq!(
            rows,
            [
                "english english 21 8 32 Black Numeric",
                "international normal 20 10 50 White Numeric",
                "russian russian 25 8 32 White Letter",
                "brazilian brazilian 26 8 32 White Letter",
                "canadian canadian 27 12 72 White Numeric",
                "turkish turkish 30 8 64 White Letter",
                "killer killer 20 10 50 White Numeric",
                "breakthrough bt 20 10 50 White Numeric",
                "losing losing 20 10 50 White Numeric",
                // The 8x8 family (issue 18).
                "italian italian 22 8 32 White Numeric",
                "pool pool 23 8 32 Black Numeric",
                "czech czech 29 8 32 White Letter",
                "spanish spanish 24 8 32 White Numeric",
                "thai thai 31 8 32 White Numeric",
                "frisian frisian 40 10 50 White Numeric",
                "frysk frysk 40 10 50 White Numeric",
            ]
        );
        assert_eq!(V::Losing.goal(), Goal::Losing);
        assert_eq!(V::Breakthrough.goal(), Goal::Breakthrough);
        assert_eq!(V::Killer.goal(), Goal::Normal);
        let fmjd = V::International.draw_rules();
        for v in [V::Killer, V::Breakthrough, V::Canadian, V::Brazilian] {
            assert_eq!(v.draw_rules(), fmjd, "{v}");
        }
        assert_eq!(V::English.draw_rules().reversible_plies, Some(80));
        assert_eq!(V::Russian.draw_rules().reversible_plies, Some(30));
        assert_eq!(V::Losing.draw_rules(), V::Turkish.draw_rules());
        assert_eq!(V::Turkish.draw_rules().reversible_plies, None);
        // The 8x8 family (issue 18): FID art. 9.3(b1) and 10.4; APCA rule 26.
        assert_eq!(V::Italian.draw_rules().repetitions, 4);
        assert_eq!(V::Italian.draw_rules().reversible_plies, Some(80));
        assert_eq!(V::Pool.draw_rules().reversible_plies, Some(30));
        for v in [V::Czech, V::Spanish, V::Thai] {
            assert_eq!(v.draw_rules(), THREEFOLD, "{v}");
        }
        assert_eq!(
            ALL_VARIANTS.map(|v| v.facts().start_gap != 2),
            ALL_VARIANTS.map(|v| v == V::Thai)
        );
    }

    #[test]
    fn names_and_game_types_read_back() {
        for v in ALL_VARIANTS {
            for n in v.names() {
                assert_eq!(n.parse::<Variant>(), Ok(v), "{n}");
                assert_eq!(n.to_uppercase().parse::<Variant>(), Ok(v), "{n}");
            }
            let by_number = Variant::of_pdn_game_type(v.pdn_game_type()).unwrap();
            if v == Variant::Frysk {
                assert_eq!(by_number, Variant::Frisian, "{v}");
            } else if v.facts().pdn_variant_tag {
                assert_eq!(by_number, Variant::International, "{v}");
            } else {
                assert_eq!(by_number, v, "{v}");
            }
        }
        for (alias, v) in [
            ("american", Variant::English),
            ("checkers", Variant::English),
            ("intl", Variant::International),
            ("antidraughts", Variant::Losing),
            ("frysk!", Variant::Frysk),
        ] {
            assert_eq!(alias.parse::<Variant>(), Ok(v));
        }
        assert_eq!(Variant::of_pdn_game_type(43), Some(Variant::Turkish));
        assert_eq!(Variant::of_pdn_game_type(40), Some(Variant::Frisian));
        assert_eq!(Variant::of_pdn_game_type(41), None);
        let e = "xiangqi".parse::<Variant>().unwrap_err();
        assert!(
            e.contains("unknown variant 'xiangqi'") && e.contains("normal, "),
            "{e}"
        );
        // Every name is one variant's only.
        for v in ALL_VARIANTS {
            for w in ALL_VARIANTS {
                if v != w {
                    assert!(v.names().all(|n| w.names().all(|m| m != n)), "{v} {w}");
                }
            }
        }
    }
}
