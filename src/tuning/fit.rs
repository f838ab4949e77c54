//! `tammi tune fit`: the evaluation's features of labelled positions (see
//! [`crate::eval::Features`]), a logistic model `sigmoid(K · eval / 100)` of the results
//! (or of the search scores, `--lambda`), `K` fitted first on the starting weights, then
//! full-batch Adam on the weights; writes a complete weights file whose header says how
//! it was made.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::data;
use crate::eval::weights::{PATTERN_LIMIT, PATTERN_UNIT};
use crate::eval::{Evaluate, Evaluator, Weights};
use crate::rules::Variant;
use crate::with_board;

/// What `tune fit` does: the weights of `variant` fitted to the positions of `data`,
/// written to `out`. The fields are the command's flags (see `tammi tune fit --help`).
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Variant of the weights fitted.
    pub variant: Variant,
    /// Data files written by 'tune games'.
    pub data: Vec<PathBuf>,
    /// The weights file to write.
    pub out: PathBuf,
    /// Full passes of Adam over the training positions.
    pub epochs: usize,
    /// Adam's step size, in centi-men.
    pub lr: f64,
    /// L2 penalty on the per-square table entries.
    pub l2: f64,
    /// Starting weights file (default: the built-in weights of the variant).
    pub base: Option<PathBuf>,
    /// Print the loss every this many epochs (and at the last).
    pub report_every: usize,
    /// Keep the pattern values as they are in `base` (fit the scalars and tables only).
    pub keep_patterns: bool,
    /// Fit the rectangle tables (10x10 boards), from zero when `base` has none.
    pub rectangles: bool,
    /// L2 penalty on the rectangle entries.
    pub l2_rectangles: f64,
    /// Fit the rectangles alone (with `rectangles`), the other weights as in `base`.
    pub rectangles_only: bool,
    /// Share of the search score in the target (0: the game result alone, 1: the score
    /// alone); above 0 every position needs a score ('tune label').
    pub lambda: f64,
}

/// Whether the fit leaves the weight `name` alone: the unit, and those that enter
/// non-linearly.
fn fixed(name: &str) -> bool {
    name == "man" || name == "king_mobility_cap" || Weights::SCALINGS.contains(&name)
}

/// Positions as sparse feature rows of the free weights, the fixed weights' part of each
/// position's evaluation summed once into its `offset` (a fit of the rectangles alone
/// then keeps 16 features a position instead of every one).
#[derive(Default)]
pub struct Dataset {
    start: Vec<usize>,
    offset: Vec<f32>,
    index: Vec<u32>,
    value: Vec<f32>,
    result: Vec<f32>,
    /// The search score from White's view (centi-men), NaN where the data has none.
    score: Vec<f32>,
}

impl Dataset {
    fn len(&self) -> usize {
        self.result.len()
    }
    /// Add a position: its features, of which those of the weights `fixed` are summed
    /// with their values in `w` into the offset.
    fn push(
        &mut self,
        features: &[(u32, f32)],
        fixed: &[bool],
        w: &[f64],
        result: f32,
        score: f32,
    ) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let mut offset = 0.0;
        for &(i, v) in features {
            if fixed[i as usize] {
                offset += w[i as usize] * v as f64;
            } else {
                self.index.push(i);
                self.value.push(v);
            }
        }
        self.start.push(self.index.len());
        self.offset.push(offset as f32);
        self.result.push(result);
        self.score.push(score);
    }
    /// Replace each result by `(1 - lambda) * result + lambda * sigmoid(k * score / 100)`.
    fn blend(&mut self, k: f64, lambda: f64) {
        for (r, &s) in self.result.iter_mut().zip(&self.score) {
            let p = sigmoid(k * s as f64 / 100.0);
            *r = ((1.0 - lambda) * *r as f64 + lambda * p) as f32;
        }
    }
    fn row(&self, k: usize) -> (&[u32], &[f32]) {
        let (a, b) = (self.start[k], self.start[k + 1]);
        (&self.index[a..b], &self.value[a..b])
    }
    fn eval(&self, k: usize, w: &[f64]) -> f64 {
        let (idx, val) = self.row(k);
        self.offset[k] as f64
            + idx
                .iter()
                .zip(val)
                .map(|(&i, &v)| w[i as usize] * v as f64)
                .sum::<f64>()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Positions per parallel work item of [`loss`] and [`gradient`]: large enough that a
/// gradient vector per item costs little beside the rows it sums.
const CHUNK: usize = 1 << 16;

/// Mean cross-entropy of the model with scale `k` and weights `w`.
fn loss(d: &Dataset, w: &[f64], k: f64) -> f64 {
    if d.len() == 0 {
        return 0.0;
    }
    let eps = 1e-12;
    let total: f64 = (0..d.len())
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|i| {
            let p = sigmoid(k * d.eval(i, w) / 100.0).clamp(eps, 1.0 - eps);
            let y = d.result[i] as f64;
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / d.len() as f64
}

/// Gradient vectors summed at once, at most: each holds every weight (4.3 million with the
/// rectangles), so one per chunk of ten million positions would take gigabytes.
const PARTS: usize = 16;

/// The gradient of [`loss`] with respect to `w`, summed over chunks of positions in
/// parallel: the chunks are dealt into [`PARTS`] fixed runs, each summed into its own
/// vector in chunk order, and the runs added in order, so the result depends neither on
/// the thread count nor on the scheduling, and memory stays bounded by the parts.
fn gradient(d: &Dataset, w: &[f64], k: f64) -> Vec<f64> {
    let chunks = d.len().div_ceil(CHUNK);
    let per_part = chunks.div_ceil(PARTS).max(1);
    let parts: Vec<Vec<f64>> = (0..chunks.div_ceil(per_part))
        .into_par_iter()
        .map(|part| {
            let mut g = vec![0.0; w.len()];
            let first = part * per_part * CHUNK;
            let last = ((part + 1) * per_part * CHUNK).min(d.len());
            for i in first..last {
                let p = sigmoid(k * d.eval(i, w) / 100.0);
                let e = (p - d.result[i] as f64) * k / 100.0;
                let (idx, val) = d.row(i);
                for (&j, &v) in idx.iter().zip(val) {
                    g[j as usize] += e * v as f64;
                }
            }
            g
        })
        .collect();
    let mut g = vec![0.0; w.len()];
    for part in parts {
        g.iter_mut().zip(part).for_each(|(a, b)| *a += b);
    }
    let n = d.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= n);
    g
}

/// The `k` minimising the loss, by golden-section search on [0.01, 10].
fn fit_k(d: &Dataset, w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (0.01f64, 10.0f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if loss(d, w, a) < loss(d, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Read the data files into training and validation sets (see [`data::Games`]), with
/// the features of `eval`: (training, validation, positions skipped, games, positions).
/// `fixed` and `w` say which features are summed into each position's offset (see
/// [`Dataset::push`]).
fn load<P: Evaluate>(
    files: &[PathBuf],
    eval: &Evaluator<P>,
    need_score: bool,
    fixed: &[bool],
    w: &[f64],
) -> Result<(Dataset, Dataset, usize, usize, usize)> {
    let (mut train, mut valid) = (Dataset::default(), Dataset::default());
    let (mut skipped, mut seen) = (0usize, 0usize);
    let games = data::read_positions::<P>(files, need_score, |p| {
        let f = eval
            .trace(&p.pos)
            .ok_or_else(|| anyhow::anyhow!("{} has no traceable evaluation", P::VARIANT))?;
        if !f.linear {
            skipped += 1;
            return Ok(());
        }
        let set = if p.validation { &mut valid } else { &mut train };
        set.push(&f.sparse(), fixed, w, p.result, p.score.unwrap_or(f32::NAN));
        seen += 1;
        Ok(())
    })?;
    Ok((train, valid, skipped, games, seen))
}

/// The most epochs a fit may ask for (about a day on the data tammi's weights come from).
const MAX_EPOCHS: usize = 1_000_000;

/// The settings of `tune fit`, checked before any data is read: `nan` and `inf` read as
/// numbers, and a fit with them only writes a file of zeros.
fn check_fit_config(a: &FitConfig) -> Result<()> {
    if !(a.lr.is_finite() && a.lr > 0.0 && a.lr <= 1000.0) {
        bail!(
            "--lr must be a number above 0 and at most 1000 (Adam's step, centi-men), got {}",
            a.lr
        );
    }
    if !(a.l2.is_finite() && (0.0..=1.0).contains(&a.l2)) {
        bail!("--l2 must be a number from 0 to 1, got {}", a.l2);
    }
    if !(1..=MAX_EPOCHS).contains(&a.epochs) {
        bail!(
            "--epochs must be between 1 and {MAX_EPOCHS}, got {}",
            a.epochs
        );
    }
    if a.report_every == 0 {
        bail!("--report-every must be at least 1");
    }
    if !(a.l2_rectangles.is_finite() && (0.0..=1.0).contains(&a.l2_rectangles)) {
        bail!(
            "--l2-rectangles must be a number from 0 to 1, got {}",
            a.l2_rectangles
        );
    }
    if !(0.0..=1.0).contains(&a.lambda) {
        bail!("--lambda must be a number from 0 to 1, got {}", a.lambda);
    }
    Ok(())
}

/// Weights beyond this many centi-men (ten million men) mean the fit ran away; they would
/// not even round to the integers a weights file holds.
const MAX_WEIGHT: f64 = 1e9;

/// An error if the fit has diverged: a loss or a weight that is not a finite number, or a
/// weight beyond [`MAX_WEIGHT`]. No weights file is written after one.
fn diverged(epoch: usize, losses: &[f64], w: &[f64], lr: f64) -> Result<()> {
    let bad_loss = losses.iter().find(|l| !l.is_finite());
    let bad_weight = w.iter().find(|x| !(x.is_finite() && x.abs() <= MAX_WEIGHT));
    let what = match (bad_loss, bad_weight) {
        (Some(l), _) => format!("the loss is {l}"),
        (None, Some(x)) => format!("a weight reached {x}"),
        (None, None) => return Ok(()),
    };
    bail!(
        "the fit diverged at epoch {epoch} ({what}); no weights file written (try a smaller --lr than {lr})"
    )
}

/// Run `tune fit`: the losses go to standard output, the rest to standard error.
pub fn run_fit(a: &FitConfig) -> Result<()> {
    check_fit_config(a)?;
    if a.variant == Variant::Turkish {
        bail!("tune fit works on the diagonal variants; turkish has no traceable evaluation");
    }
    let squares = a.variant.squares() as usize;
    let (base, base_name) = match &a.base {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            let w = Weights::parse(&text, squares)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            (w, p.display().to_string())
        }
        None => (
            Weights::embedded(a.variant),
            format!(
                "built-in {}",
                crate::eval::weights::embedded_text(a.variant).0
            ),
        ),
    };
    let mut base = base;
    if a.rectangles {
        base.add_rectangles()
            .map_err(|e| anyhow::anyhow!("--rectangles: {e}, not on {}", a.variant))?;
    }
    let params = base.params();
    let mut w: Vec<f64> = params.iter().map(|&v| v as f64).collect();
    let patterns_from = Weights::NAMES.len() + 4 * squares;
    let rectangles_from = patterns_from + base.patterns.len();
    let free: Vec<bool> = (0..w.len())
        .map(|i| {
            let fixed = i < Weights::NAMES.len() && fixed(Weights::NAMES[i]);
            // The rectangles of a base that has them are fitted only when asked.
            let kept = (a.keep_patterns && i >= patterns_from && i < rectangles_from)
                || (a.rectangles_only && i < rectangles_from)
                || (!a.rectangles && i >= rectangles_from);
            !fixed && !kept
        })
        .collect();
    let held: Vec<bool> = free.iter().map(|f| !f).collect();
    let started = Instant::now();
    let (mut train, mut valid, skipped, games, seen) = with_board!(a.variant, P => {
        load::<P>(&a.data, &Evaluator::<P>::with_weights(&base), a.lambda > 0.0, &held, &w)?
    });
    if train.len() == 0 {
        bail!("no usable position in the data");
    }
    eprintln!(
        "{} positions ({} training, {} validation), {} skipped (scaled endings), features in {:.1} s",
        seen,
        train.len(),
        valid.len(),
        skipped,
        started.elapsed().as_secs_f64()
    );
    // Pattern weights are in 1/PATTERN_UNIT centi-men, the rest in centi-men: per weight,
    // Adam's step (--lr, centi-men) and the L2 penalty (on centi-men) in its own units.
    let unit: Vec<f64> = (0..w.len())
        .map(|i| {
            if i >= patterns_from {
                PATTERN_UNIT as f64
            } else {
                1.0
            }
        })
        .collect();
    // K is fitted on the results alone; the scores, in the evaluation's units, are then
    // turned into probabilities by the same K.
    let k = fit_k(&train, &w);
    if a.lambda > 0.0 {
        train.blend(k, a.lambda);
        valid.blend(k, a.lambda);
    }
    let (train0, valid0) = (loss(&train, &w, k), loss(&valid, &w, k));
    println!("K = {k:.4}");
    println!("epoch 0: loss {train0:.6} (validation {valid0:.6})");
    diverged(0, &[train0, valid0], &w, a.lr)?;

    // Adam.
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    for epoch in 1..=a.epochs {
        let mut g = gradient(&train, &w, k);
        for (j, gj) in g.iter_mut().enumerate().skip(Weights::NAMES.len()) {
            let l2 = if j >= rectangles_from {
                a.l2_rectangles
            } else {
                a.l2
            };
            *gj += l2 * w[j] / (unit[j] * unit[j]);
        }
        let t = epoch as i32;
        for j in 0..w.len() {
            if !free[j] {
                continue;
            }
            m[j] = b1 * m[j] + (1.0 - b1) * g[j];
            v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
            let mh = m[j] / (1.0 - b1.powi(t));
            let vh = v[j] / (1.0 - b2.powi(t));
            w[j] -= a.lr * unit[j] * mh / (vh.sqrt() + eps);
        }
        // Checked every epoch (cheap beside the gradient): once a weight is NaN every later
        // epoch is NaN too.
        diverged(epoch, &[], &w, a.lr)?;
        if epoch % a.report_every == 0 || epoch == a.epochs {
            let (t, v) = (loss(&train, &w, k), loss(&valid, &w, k));
            println!("epoch {epoch}: loss {t:.6} (validation {v:.6})");
            diverged(epoch, &[t, v], &w, a.lr)?;
        }
    }
    // Pattern and rectangle values are held within ±PATTERN_LIMIT centi-men.
    let limit = (PATTERN_LIMIT * PATTERN_UNIT) as f64;
    let rounded: Vec<i32> = w
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if i >= patterns_from {
                x.clamp(-limit, limit).round() as i32
            } else {
                x.round() as i32
            }
        })
        .collect();
    let wr: Vec<f64> = rounded.iter().map(|&x| x as f64).collect();
    let (train1, valid1) = (loss(&train, &wr, k), loss(&valid, &wr, k));
    println!("rounded: loss {train1:.6} (validation {valid1:.6})");
    diverged(a.epochs, &[train1, valid1], &wr, a.lr)?;
    let mut out = base.clone();
    out.set_params(&rounded);
    let files: Vec<String> = a.data.iter().map(|p| p.display().to_string()).collect();
    let header = vec![
        format!("Evaluation weights: {} (trained).", a.variant),
        format!(
            "Produced by `tammi tune fit --variant {}{} --epochs {} --lr {} --l2 {} --lambda {}` from {}",
            a.variant,
            if a.rectangles {
                format!(
                    " --rectangles{} --l2-rectangles {}",
                    if a.rectangles_only {
                        " --rectangles-only"
                    } else {
                        ""
                    },
                    a.l2_rectangles
                )
            } else {
                String::new()
            },
            a.epochs,
            a.lr,
            a.l2,
            a.lambda,
            files.join(" ")
        ),
        format!(
            "({} games, {} positions: {} training, {} validation; {} skipped), starting from {}.",
            games,
            seen,
            train.len(),
            valid.len(),
            skipped,
            base_name
        ),
        format!(
            "K = {k:.4}; cross-entropy loss {train0:.6} -> {train1:.6} (validation {valid0:.6} -> {valid1:.6})."
        ),
        "Units: centi-men (100 = one man) unless said otherwise; see tuning/README.md.".into(),
    ];
    write_weights(&a.out, &out.to_text(&header))?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

fn write_weights(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_weights_folded_into_the_offset_score_the_same() {
        let features = [(0, 1.0), (1, 2.0), (2, -1.0), (4, 0.5)];
        let w = [3.0, 5.0, 7.0, 100.0, 8.0];
        let (mut all, mut folded) = (Dataset::default(), Dataset::default());
        all.push(&features, &[false; 5], &w, 1.0, f32::NAN);
        folded.push(
            &features,
            &[true, false, true, true, false],
            &w,
            1.0,
            f32::NAN,
        );
        assert_eq!(all.eval(0, &w), 3.0 + 10.0 - 7.0 + 4.0);
        assert_eq!(folded.eval(0, &w), all.eval(0, &w));
        assert_eq!(folded.row(0).0, &[1, 4]);
        // The gradient reaches the free weights alone, and equally either way.
        let (ga, gf) = (gradient(&all, &w, 1.0), gradient(&folded, &w, 1.0));
        assert_eq!((ga[1], ga[4]), (gf[1], gf[4]));
        assert_eq!((gf[0], gf[2], gf[3]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn a_diverged_fit_is_an_error_naming_the_epoch() {
        assert!(diverged(3, &[0.6, 0.61], &[100.0, -2.5], 1.0).is_ok());
        let e = diverged(7, &[f64::NAN], &[1.0], 2.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the fit diverged at epoch 7 (the loss is NaN); no weights file written"),
            "{e}"
        );
        let e = diverged(1, &[], &[1.0, f64::INFINITY], 5.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("(a weight reached inf)") && e.contains("than 5"),
            "{e}"
        );
        let e = diverged(2, &[0.5], &[2e9], 1.0).unwrap_err().to_string();
        assert!(e.contains("a weight reached 2000000000"), "{e}");
    }
}
