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
pub mod orthogonal;
pub mod weights;

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
    /// hold densely): (parameter index, count); an index may repeat.
    pub sparse_coarse: Vec<(u32, i32)>,
    /// Sparse counts in units of `1/denom` (the tapered patterns of 10x10 boards).
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

    /// The evaluation these features give with `params` (white's view, before scaling).
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
        (c + p + (f + pf) / self.denom as i64) as i32
    }

    /// The non-zero features as (parameter, value) with value = coarse + fine / denom.
    pub fn sparse(&self) -> Vec<(u32, f32)> {
        self.coarse
            .iter()
            .zip(&self.fine)
            .enumerate()
            .filter(|(_, (c, f))| **c != 0 || **f != 0)
            .map(|(i, (&c, &f))| (i as u32, c as f32 + f as f32 / self.denom as f32))
            .chain(self.sparse_coarse.iter().map(|&(i, n)| (i, n as f32)))
            .chain(
                self.sparse_fine
                    .iter()
                    .map(|&(i, n)| (i, n as f32 / self.denom as f32)),
            )
            .collect()
    }
}

/// The evaluation of one variant, ready to use. Cloning shares the tables.
pub struct Evaluator<P: Evaluate> {
    tables: Arc<P::Tables>,
}

impl<P: Evaluate> Clone for Evaluator<P> {
    fn clone(&self) -> Self {
        Evaluator {
            tables: Arc::clone(&self.tables),
        }
    }
}

/// The evaluation of each variant, built on first use: parsing a weights file of
/// patterns and expanding it into tables takes milliseconds, far too long to repeat for
/// every position a protocol sets up.
static BUILT: Lazy<Mutex<HashMap<Variant, Arc<dyn Any + Send + Sync>>>> =
    Lazy::new(|| Mutex::new(HashMap::new()));
/// Weights that replace the embedded ones of a variant in this process (the Hub
/// parameter `weights`): for trying a freshly fitted file without a new build.
static REPLACED: Lazy<Mutex<HashMap<Variant, Weights>>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// Play `variant` with `weights` from now on in this process (`None`: the embedded
/// weights again). The weights must be for the variant's board size.
pub fn replace_weights(variant: Variant, weights: Option<Weights>) -> Result<(), String> {
    if let Some(w) = &weights
        && w.squares() != variant.squares() as usize
    {
        return Err(format!(
            "weights for {} squares, but {variant} has {}",
            w.squares(),
            variant.squares()
        ));
    }
    let mut replaced = REPLACED.lock().unwrap_or_else(|e| e.into_inner());
    match weights {
        Some(w) => replaced.insert(variant, w),
        None => replaced.remove(&variant),
    };
    BUILT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&variant);
    Ok(())
}

impl<P: Evaluate> Evaluator<P> {
    /// With the weights embedded in the binary for `P`'s variant, or those given to
    /// [`replace_weights`]; built once per process and shared.
    pub fn new() -> Self {
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        let entry = built.entry(P::VARIANT).or_insert_with(|| {
            let replaced = REPLACED.lock().unwrap_or_else(|e| e.into_inner());
            let tables = match replaced.get(&P::VARIANT) {
                Some(w) => P::build_tables(w),
                None => P::build_tables(&Weights::embedded(P::VARIANT)),
            };
            Arc::new(Arc::new(tables))
        });
        let tables = entry
            .downcast_ref::<Arc<P::Tables>>()
            .expect("one board type per variant")
            .clone();
        Evaluator { tables }
    }
    pub fn with_weights(w: &Weights) -> Self {
        Evaluator {
            tables: Arc::new(P::build_tables(w)),
        }
    }
    #[inline(always)]
    pub fn evaluate(&self, pos: &P) -> i32 {
        pos.evaluate(&self.tables)
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
