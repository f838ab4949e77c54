//! Static evaluation: a score in centi-men (100 = one man) from the side to move's view.
//!
//! One evaluation per variant family: [`diagonal`] serves every diagonal board (short or
//! flying kings, any size, normal, breakthrough and losing goals, each with its own weights
//! file) and [`orthogonal`] serves turkish. Weights come from `tuning/weights/` (see
//! [`weights`]); the families turn them into per-square bitboard masks once, when a
//! search starts, so evaluating is a few dozen shifts and popcounts.

pub mod diagonal;
pub mod endgame;
pub mod frisian;
pub mod network;
mod network_simd;
pub mod orthogonal;
pub mod rectangles;
pub mod weights;

pub use network::{Accumulator, Network};
pub use weights::{Term, Weights};

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

use crate::rules::{Board, Variant};

/// A board type the search can evaluate.
pub trait Evaluate: Board {
    /// Masks and weights precomputed for one variant.
    type Tables: Send + Sync + 'static;
    fn build_tables(w: &Weights) -> Self::Tables;
    /// The score of `self` for the side to move, in centi-men.
    fn evaluate(&self, t: &Self::Tables) -> i32;
    /// The evaluation as features of the weights (for tuning), if this family has it.
    fn trace(&self, _t: &Self::Tables) -> Option<Features> {
        None
    }
}

/// The evaluation of one position as a linear function of the weights, from White's
/// view: `coarse · params + sparse_coarse · params + (fine · params) / denom` (Rust's
/// integer division) equals the white-relative evaluation whenever `linear` holds.
/// Indices follow [`Weights::params`]. Weights that enter non-linearly
/// (`king_mobility_cap`, the `*_pct` scalings) have no feature; `linear` is false when
/// such a scaling changed the score (drawish endings), and then the dot product is the
/// score before scaling.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Counts in whole units per parameter.
    pub coarse: Vec<i32>,
    /// Counts in units of `1/denom` per parameter (the tapered tables, `trade_ahead`).
    pub fine: Vec<i32>,
    pub denom: i32,
    pub linear: bool,
    /// Sparse whole-unit counts of the parameters past `coarse` (the patterns, too many to
    /// hold densely): (parameter index, count); an index may repeat. Their weights are in
    /// 1/[`weights::PATTERN_UNIT`] centi-men.
    pub sparse_coarse: Vec<(u32, i32)>,
    /// Sparse counts in units of `1/denom` (the tapered patterns of 10x10 boards), of
    /// weights in 1/PATTERN_UNIT centi-men.
    pub sparse_fine: Vec<(u32, i32)>,
}

impl Features {
    /// Zero counts for `n` parameters.
    pub fn new(n: usize, denom: i32) -> Features {
        Features {
            coarse: vec![0; n],
            fine: vec![0; n],
            denom,
            linear: true,
            sparse_coarse: Vec::new(),
            sparse_fine: Vec::new(),
        }
    }

    /// The evaluation these features give with `params` (white's view, before scaling):
    /// `coarse + (fine · U + patterns) / (denom · U)` with `U` = PATTERN_UNIT and the
    /// patterns in 1/(denom · U) centi-men, rounded towards zero once, as the search's
    /// evaluation does.
    pub fn dot(&self, params: &[i32]) -> i32 {
        let c: i64 = self
            .coarse
            .iter()
            .zip(params)
            .map(|(&a, &b)| a as i64 * b as i64)
            .sum();
        let f: i64 = self
            .fine
            .iter()
            .zip(params)
            .map(|(&a, &b)| a as i64 * b as i64)
            .sum();
        let sparse = |s: &[(u32, i32)]| -> i64 {
            s.iter()
                .map(|&(i, n)| params[i as usize] as i64 * n as i64)
                .sum()
        };
        let (p, pf) = (sparse(&self.sparse_coarse), sparse(&self.sparse_fine));
        let (d, u) = (self.denom as i64, weights::PATTERN_UNIT as i64);
        (c + (f * u + p * d + pf) / (d * u)) as i32
    }

    /// The non-zero features as (parameter, value) with value = coarse + fine / denom, a
    /// pattern's divided by PATTERN_UNIT too: the value times the weight (in its file's
    /// units) is centi-men.
    pub fn sparse(&self) -> Vec<(u32, f32)> {
        let u = weights::PATTERN_UNIT as f32;
        self.coarse
            .iter()
            .zip(&self.fine)
            .enumerate()
            .filter(|(_, (c, f))| **c != 0 || **f != 0)
            .map(|(i, (&c, &f))| (i as u32, c as f32 + f as f32 / self.denom as f32))
            .chain(self.sparse_coarse.iter().map(|&(i, n)| (i, n as f32 / u)))
            .chain(
                self.sparse_fine
                    .iter()
                    .map(|&(i, n)| (i, n as f32 / (self.denom as f32 * u))),
            )
            .collect()
    }
}

/// The evaluation of one variant, ready to use. Cloning shares the tables.
pub struct Evaluator<P: Evaluate> {
    tables: Arc<P::Tables>,
    /// The network, when it is the selected evaluation ([`EvalSettings::select`]); then it, not the
    /// tables, scores positions.
    net: Option<Arc<Network>>,
}

impl<P: Evaluate> Clone for Evaluator<P> {
    fn clone(&self) -> Self {
        Evaluator {
            tables: Arc::clone(&self.tables),
            net: self.net.clone(),
        }
    }
}

/// Which evaluation a variant plays with: the pattern tables or the network (english
/// only, see [`network`]). A variant plays with its network when it has one
/// ([`EvalKind::default_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvalKind {
    Patterns,
    Network,
}

impl EvalKind {
    /// What `variant` plays with unless told otherwise: its built-in network where it
    /// has one (english: the network outscored the pattern tables at equal time, see
    /// docs/results.md), else the pattern tables.
    pub fn default_for(variant: Variant) -> EvalKind {
        if embedded_network_text(variant).is_some() {
            EvalKind::Network
        } else {
            EvalKind::Patterns
        }
    }
}

impl std::str::FromStr for EvalKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "patterns" | "pattern" => Ok(EvalKind::Patterns),
            "network" | "nnue" => Ok(EvalKind::Network),
            _ => Err(format!(
                "eval must be patterns or network, got '{}'",
                crate::notation::echo(s)
            )),
        }
    }
}

impl std::fmt::Display for EvalKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EvalKind::Patterns => "patterns",
            EvalKind::Network => "network",
        })
    }
}

/// The network file embedded for `variant`, if it has one.
pub fn embedded_network_text(variant: Variant) -> Option<&'static str> {
    match variant {
        Variant::English => Some(include_str!("../../tuning/weights/english-net.txt")),
        _ => None,
    }
}

/// The built-in network of `variant`, parsed once per process (a memo of the binary's
/// constants: it never changes).
fn embedded_network(variant: Variant) -> Option<Arc<Network>> {
    static PARSED: Lazy<Mutex<HashMap<Variant, Arc<Network>>>> =
        Lazy::new(|| Mutex::new(HashMap::new()));
    let text = embedded_network_text(variant)?;
    let mut parsed = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    let net = parsed.entry(variant).or_insert_with(|| {
        // The embedded file is checked by the tests: a bad one is a broken build.
        Arc::new(Network::parse(text).expect("the embedded network file parses"))
    });
    Some(Arc::clone(net))
}

/// The tables of `P`'s built-in weights, built once per process (a memo of the binary's
/// constants: parsing a weights file of patterns and expanding it takes milliseconds,
/// far too long to repeat for every position a protocol sets up).
fn embedded_tables<P: Evaluate>() -> Arc<P::Tables> {
    static BUILT: Lazy<Mutex<HashMap<Variant, Arc<dyn Any + Send + Sync>>>> =
        Lazy::new(|| Mutex::new(HashMap::new()));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let entry = built
        .entry(P::VARIANT)
        .or_insert_with(|| Arc::new(Arc::new(P::build_tables(&Weights::embedded(P::VARIANT)))));
    entry
        .downcast_ref::<Arc<P::Tables>>()
        .expect("one board type per variant")
        .clone()
}

/// Weights that replace a variant's built-in ones, with their tables built on first use
/// (for the board type of that variant).
struct GivenWeights {
    weights: Weights,
    tables: once_cell::sync::OnceCell<Arc<dyn Any + Send + Sync>>,
}

/// How an engine evaluates each variant: the evaluation selected (patterns or network)
/// and the weights and network given in place of the built-in ones. An engine owns one
/// (see `Engine::set_eval`), so engines in one process may evaluate differently; cloning
/// shares the weights and networks, which are never changed in place.
#[derive(Clone, Default)]
pub struct EvalSettings {
    kinds: HashMap<Variant, EvalKind>,
    weights: HashMap<Variant, Arc<GivenWeights>>,
    networks: HashMap<Variant, Arc<Network>>,
}

impl std::fmt::Debug for EvalSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalSettings")
            .field("kinds", &self.kinds)
            .field("weights", &self.weights.keys().collect::<Vec<_>>())
            .field("networks", &self.networks.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl EvalSettings {
    /// The evaluation `variant` is played with: the one selected, else its default.
    pub fn selected(&self, variant: Variant) -> EvalKind {
        self.kinds
            .get(&variant)
            .copied()
            .unwrap_or_else(|| EvalKind::default_for(variant))
    }

    /// Evaluate `variant` with `kind`. The network is for 32-square boards that have one
    /// (english, or a network given by [`EvalSettings::replace_network`]); on error
    /// nothing changes.
    pub fn select(&mut self, variant: Variant, kind: EvalKind) -> Result<(), String> {
        if kind == EvalKind::Network && self.network_for(variant).is_none() {
            // The front ends say what stays in force (the Hub's `eval stays '...'`).
            return Err(format!(
                "{variant} has no network evaluation (only english has one)"
            ));
        }
        self.kinds.insert(variant, kind);
        Ok(())
    }

    /// `variant`'s network: the one given, else the built-in one.
    pub fn network_for(&self, variant: Variant) -> Option<Arc<Network>> {
        if variant.squares() != 32 {
            return None;
        }
        match self.networks.get(&variant) {
            Some(n) => Some(Arc::clone(n)),
            None => embedded_network(variant),
        }
    }

    /// Use `net` as `variant`'s network (`None`: the built-in one again). Only
    /// 32-square boards take a network; on error nothing changes.
    pub fn replace_network(
        &mut self,
        variant: Variant,
        net: Option<Network>,
    ) -> Result<(), String> {
        match net {
            Some(_) if variant.squares() != 32 => Err(format!(
                "a network evaluates 32-square boards, but {variant} has {}",
                variant.squares()
            )),
            Some(n) => {
                self.networks.insert(variant, Arc::new(n));
                Ok(())
            }
            None => {
                self.networks.remove(&variant);
                Ok(())
            }
        }
    }

    /// Play `variant` with `weights` (`None`: the built-in weights again). The weights
    /// must be for the variant's board size; on error nothing changes.
    pub fn replace_weights(
        &mut self,
        variant: Variant,
        weights: Option<Weights>,
    ) -> Result<(), String> {
        match weights {
            Some(w) if w.squares() != variant.squares() as usize => Err(format!(
                "weights for {} squares, but {variant} has {}",
                w.squares(),
                variant.squares()
            )),
            Some(weights) => {
                let given = GivenWeights {
                    weights,
                    tables: once_cell::sync::OnceCell::new(),
                };
                self.weights.insert(variant, Arc::new(given));
                Ok(())
            }
            None => {
                self.weights.remove(&variant);
                Ok(())
            }
        }
    }

    /// Whether `variant` plays with weights given in place of its built-in ones.
    pub fn has_given_weights(&self, variant: Variant) -> bool {
        self.weights.contains_key(&variant)
    }
}

impl<P: Evaluate> Evaluator<P> {
    /// The built-in evaluation of `P`'s variant (its default kind, built-in weights and
    /// network).
    pub fn new() -> Self {
        Self::with_settings(&EvalSettings::default())
    }

    /// The evaluation `settings` give `P`'s variant.
    pub fn with_settings(settings: &EvalSettings) -> Self {
        let tables = match settings.weights.get(&P::VARIANT) {
            Some(given) => given
                .tables
                .get_or_init(|| Arc::new(Arc::new(P::build_tables(&given.weights))))
                .downcast_ref::<Arc<P::Tables>>()
                .expect("one board type per variant")
                .clone(),
            None => embedded_tables::<P>(),
        };
        let net = (settings.selected(P::VARIANT) == EvalKind::Network && Network::fits::<P>())
            .then(|| settings.network_for(P::VARIANT))
            .flatten();
        Evaluator { tables, net }
    }
    /// The pattern evaluation with the weights `w` (no network: for tuning them).
    pub fn with_weights(w: &Weights) -> Self {
        Evaluator {
            tables: Arc::new(P::build_tables(w)),
            net: None,
        }
    }
    /// The network this evaluator scores with, if it is one (the search then keeps its
    /// accumulators, see [`Network::update`]).
    #[inline(always)]
    pub fn network(&self) -> Option<&Network> {
        self.net.as_deref()
    }
    /// `pos`'s score (by the network from scratch when that is selected).
    #[inline(always)]
    pub fn evaluate(&self, pos: &P) -> i32 {
        match &self.net {
            Some(n) => n.evaluate(pos),
            None => pos.evaluate(&self.tables),
        }
    }
    /// `pos`'s features (see [`Features`]), if the variant's evaluation is traceable.
    pub fn trace(&self, pos: &P) -> Option<Features> {
        pos.trace(&self.tables)
    }
}

impl<P: Evaluate> Default for Evaluator<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// Chebyshev distance between two (file, rank) squares: king steps on an empty board.
#[inline(always)]
pub(crate) fn distance(a: (u8, u8), b: (u8, u8)) -> i32 {
    (a.0 as i32 - b.0 as i32)
        .abs()
        .max((a.1 as i32 - b.1 as i32).abs())
}
