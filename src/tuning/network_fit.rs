//! `tammi tune net-fit`: trains the network evaluation ([`crate::eval::network`]) on the
//! positions of `tune games` (or `tune label`) files. Float training: mini-batch Adam on
//! the sigmoid cross-entropy of the network's output (a logit) against the game result
//! from the side to move's view, optionally blended with the search score
//! (`--lambda`, the score read as `sigmoid(score / cp-per-logit)`); every 10th game kept
//! for validation; seeded and reproducible (the batches are split into a fixed number of
//! parts whatever the thread count, and their gradients summed in order); quantised to
//! the integer format on output.
//!
//! With `--buckets B` the second and third layers are fitted once per bucket of piece
//! counts ([`network::bucket`], the evaluation's own choice), each sample training its
//! own bucket's and the shared first layer.
//!
//! A position and its colour-flipped copy have the same inputs (each side's view is its
//! own), so the data needs no flipped copies.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::data;
use crate::eval::network::{self, HIDDEN, INPUTS, L2, MAX_BUCKETS, MAX_I8_WEIGHT, Network, QA, QB};
use crate::rng::XorShift64;
use crate::rules::{Board, Color, English, Position};

type Pos = Position<English>;

/// What `tune net-fit` does: the english network trained on the positions of `data`,
/// written to `out`. The fields are the command's flags (see `tammi tune net-fit
/// --help`).
#[derive(Clone, Debug)]
pub struct NetFitConfig {
    /// Data files written by 'tune games' or 'tune label' (english).
    pub data: Vec<PathBuf>,
    /// The network file to write.
    pub out: PathBuf,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Adam's step size (of the first epoch).
    pub lr: f32,
    /// The step size's factor from one epoch to the next (1: constant).
    pub lr_decay: f32,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Share of the search score in the target (0: the game result alone); above 0 every
    /// position needs a score ('tune label').
    pub lambda: f32,
    /// Centi-men per logit of the output: the evaluation's scale (and the score's in the
    /// `lambda` target).
    pub cp_per_logit: i32,
    /// Seed of the initial weights and of the order of the positions.
    pub seed: u64,
    /// Output buckets by piece count (1 to 8).
    pub buckets: usize,
}

/// One training position: the active inputs from the side to move's view and from the
/// other side's, and the target probability that the side to move wins.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    us: [u8; 24],
    them: [u8; 24],
    n: u8,
    target: f32,
}

impl Sample {
    /// `pos` with `target` the probability that its side to move wins.
    pub fn new(pos: &Pos, target: f32) -> Sample {
        let side = pos.side();
        let (a, b) = (
            network::active_features(pos, side),
            network::active_features(pos, side.opposite()),
        );
        let mut s = Sample {
            us: [0; 24],
            them: [0; 24],
            n: a.len().min(24) as u8,
            target,
        };
        for (d, &f) in s.us.iter_mut().zip(&a) {
            *d = f as u8;
        }
        for (d, &f) in s.them.iter_mut().zip(&b) {
            *d = f as u8;
        }
        s
    }
}

// Offsets of the layers in the one parameter vector: the shared first layer, then each
// bucket's output layers as one block of BLOCK values. W2, B2, W3 and B3 are bucket 0's
// offsets, bucket b's lie `b · BLOCK` further (one bucket: the layout from before
// buckets, so its runs are unchanged).
const W1: usize = 0;
const B1: usize = W1 + INPUTS * HIDDEN;
const W2: usize = B1 + HIDDEN;
const B2: usize = W2 + L2 * 2 * HIDDEN;
const W3: usize = B2 + L2;
const B3: usize = W3 + L2;
const BLOCK: usize = B3 + 1 - W2;
/// First-layer weights stay within this (24 inputs at most: the accumulator fits i16).
const MAX_W1: f32 = 4.0;

/// The float network: every parameter in one vector (layers at the offsets above).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    pub p: Vec<f32>,
    /// Output buckets (1 to [`MAX_BUCKETS`]).
    pub buckets: usize,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of probability `p` against target `t`, kept finite.
fn xent(p: f32, t: f32) -> f32 {
    let p = p.clamp(1e-7, 1.0 - 1e-7);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// The activations of one forward pass.
struct Forward {
    acc: [f32; 2 * HIDDEN],
    z2: [f32; L2],
    y: f32,
}

impl FloatNet {
    /// Seeded small random weights with `buckets` output buckets; first-layer biases put
    /// the units in their linear range.
    pub fn init(seed: u64, buckets: usize) -> FloatNet {
        assert!((1..=MAX_BUCKETS).contains(&buckets), "buckets {buckets}");
        let mut r = XorShift64::seeded(seed);
        let mut p = vec![0.0; W2 + buckets * BLOCK];
        for x in &mut p[W1..B1] {
            *x = r.uniform(0.2);
        }
        for x in &mut p[B1..W2] {
            *x = 0.3;
        }
        for b in 0..buckets {
            let o = b * BLOCK;
            for x in &mut p[o + W2..o + B2] {
                *x = r.uniform(1.0 / (2.0 * HIDDEN as f32).sqrt());
            }
            for x in &mut p[o + B2..o + W3] {
                *x = 0.1;
            }
            for x in &mut p[o + W3..o + B3] {
                *x = r.uniform(1.0 / (L2 as f32).sqrt());
            }
        }
        FloatNet { p, buckets }
    }

    /// The offset of `s`'s bucket's block from bucket 0's.
    fn block(&self, s: &Sample) -> usize {
        BLOCK * network::bucket(s.n as u32, self.buckets)
    }

    fn forward(&self, s: &Sample) -> Forward {
        let p = &self.p;
        let o = self.block(s);
        let mut acc = [0.0f32; 2 * HIDDEN];
        for (half, feats) in [&s.us, &s.them].into_iter().enumerate() {
            let a = &mut acc[half * HIDDEN..(half + 1) * HIDDEN];
            a.copy_from_slice(&p[B1..W2]);
            for &f in &feats[..s.n as usize] {
                let row = &p[W1 + f as usize * HIDDEN..W1 + (f as usize + 1) * HIDDEN];
                for (x, &w) in a.iter_mut().zip(row) {
                    *x += w;
                }
            }
        }
        let mut a1 = [0.0f32; 2 * HIDDEN];
        for (o, &x) in a1.iter_mut().zip(&acc) {
            *o = x.clamp(0.0, 1.0);
        }
        let mut z2 = [0.0f32; L2];
        let mut y = p[o + B3];
        for j in 0..L2 {
            let row = &p[o + W2 + j * 2 * HIDDEN..o + W2 + (j + 1) * 2 * HIDDEN];
            let z: f32 = row.iter().zip(&a1).map(|(w, a)| w * a).sum::<f32>() + p[o + B2 + j];
            z2[j] = z;
            y += p[o + W3 + j] * z.clamp(0.0, 1.0);
        }
        Forward { acc, z2, y }
    }

    /// The output (logit) for a sample.
    pub fn logit(&self, s: &Sample) -> f32 {
        self.forward(s).y
    }

    /// Add the gradient of the loss of `s` to `g`; returns the loss.
    fn backward(&self, s: &Sample, g: &mut [f32]) -> f32 {
        let p = &self.p;
        let f = self.forward(s);
        let o = self.block(s);
        let prob = sigmoid(f.y);
        let dy = prob - s.target;
        g[o + B3] += dy;
        let mut d1 = [0.0f32; 2 * HIDDEN];
        for j in 0..L2 {
            let a2 = f.z2[j].clamp(0.0, 1.0);
            g[o + W3 + j] += dy * a2;
            if f.z2[j] <= 0.0 || f.z2[j] >= 1.0 {
                continue;
            }
            let d2 = dy * p[o + W3 + j];
            g[o + B2 + j] += d2;
            let (w, w_end) = (o + W2 + j * 2 * HIDDEN, o + W2 + (j + 1) * 2 * HIDDEN);
            let row = &p[w..w_end];
            let grow = &mut g[w..w_end];
            for i in 0..2 * HIDDEN {
                let a1 = f.acc[i].clamp(0.0, 1.0);
                grow[i] += d2 * a1;
                d1[i] += d2 * row[i];
            }
        }
        for (i, d) in d1.iter_mut().enumerate() {
            if f.acc[i] <= 0.0 || f.acc[i] >= 1.0 {
                *d = 0.0;
            }
        }
        for (half, feats) in [&s.us, &s.them].into_iter().enumerate() {
            let d = &d1[half * HIDDEN..(half + 1) * HIDDEN];
            for (gb, &x) in g[B1..W2].iter_mut().zip(d) {
                *gb += x;
            }
            for &ft in &feats[..s.n as usize] {
                let grow = &mut g[W1 + ft as usize * HIDDEN..W1 + (ft as usize + 1) * HIDDEN];
                for (gw, &x) in grow.iter_mut().zip(d) {
                    *gw += x;
                }
            }
        }
        xent(prob, s.target)
    }

    /// Mean loss over `data`.
    pub fn loss(&self, data: &[Sample]) -> f64 {
        if data.is_empty() {
            return f64::NAN;
        }
        let sum: f64 = data
            .par_chunks(4096)
            .map(|c| {
                c.iter()
                    .map(|s| xent(sigmoid(self.logit(s)), s.target) as f64)
                    .sum::<f64>()
            })
            .collect::<Vec<f64>>()
            .iter()
            .sum();
        sum / data.len() as f64
    }

    /// Keep the weights within what the integer format holds.
    fn clip(&mut self) {
        for x in &mut self.p[W1..B1] {
            *x = x.clamp(-MAX_W1, MAX_W1);
        }
        for x in &mut self.p[B1..W2] {
            *x = x.clamp(-MAX_W1, MAX_W1);
        }
        for b in 0..self.buckets {
            let o = b * BLOCK;
            for x in &mut self.p[o + W2..o + B2] {
                *x = x.clamp(-MAX_I8_WEIGHT, MAX_I8_WEIGHT);
            }
            for x in &mut self.p[o + W3..o + B3] {
                *x = x.clamp(-MAX_I8_WEIGHT, MAX_I8_WEIGHT);
            }
        }
    }

    /// The integer network (see the scaling in [`crate::eval::network`]).
    pub fn quantise(&self, cp_per_logit: i32, header: Vec<String>) -> Network {
        let p = &self.p;
        let (qa, qb) = (QA as f32, QB as f32);
        let mut n = Network::zeroed(cp_per_logit, self.buckets);
        n.header = header;
        for (f, row) in n.l1_w.iter_mut().enumerate() {
            for (h, x) in row.iter_mut().enumerate() {
                *x = (p[W1 + f * HIDDEN + h] * qa).round() as i16;
            }
        }
        for (h, x) in n.l1_b.iter_mut().enumerate() {
            *x = (p[B1 + h] * qa).round() as i16;
        }
        for (b, out) in n.out.iter_mut().enumerate() {
            let o = b * BLOCK;
            for j in 0..L2 {
                for i in 0..2 * HIDDEN {
                    let x = (p[o + W2 + j * 2 * HIDDEN + i] * qb)
                        .round()
                        .clamp(-127.0, 127.0);
                    out.set_l2_weight(j, i, x as i16);
                }
            }
            for (j, x) in out.l2_b.iter_mut().enumerate() {
                *x = (p[o + B2 + j] * qa * qb).round() as i32;
            }
            for (j, x) in out.l3_w.iter_mut().enumerate() {
                *x = (p[o + W3 + j] * qb).round().clamp(-127.0, 127.0) as i32;
            }
            out.l3_b = (p[o + B3] * qa * qb).round() as i32;
        }
        n
    }
}

/// Parts of each mini-batch, summed in order: fixed, so the result does not depend on
/// the thread count.
const PARTS: usize = 8;

/// Adam over `train` for `epochs`, the step `lr` times `lr_decay` to the power of the
/// epochs before, printing the losses per epoch (to `log`); returns the losses
/// (training, validation) after each epoch.
#[allow(clippy::too_many_arguments)]
pub fn train(
    net: &mut FloatNet,
    train: &[Sample],
    valid: &[Sample],
    epochs: usize,
    lr: f32,
    lr_decay: f32,
    batch: usize,
    seed: u64,
    log: &mut dyn FnMut(&str),
) -> Vec<(f64, f64)> {
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let params = net.p.len();
    let mut m = vec![0.0f32; params];
    let mut v = vec![0.0f32; params];
    let mut t = 0i32;
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = XorShift64::new(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    let mut out = Vec::new();
    for epoch in 1..=epochs {
        let start = Instant::now();
        let step = lr * lr_decay.powi(epoch as i32 - 1);
        for i in (1..order.len()).rev() {
            let j = rng.below(i + 1);
            order.swap(i, j);
        }
        let mut sum = 0.0f64;
        for idx in order.chunks(batch.max(1)) {
            let part = idx.len().div_ceil(PARTS).max(1);
            let grads: Vec<(Vec<f32>, f64)> = idx
                .par_chunks(part)
                .map(|c| {
                    let mut g = vec![0.0f32; params];
                    let l: f64 = c
                        .iter()
                        .map(|&k| net.backward(&train[k as usize], &mut g) as f64)
                        .sum();
                    (g, l)
                })
                .collect();
            let mut g = vec![0.0f32; params];
            for (gp, l) in &grads {
                for (a, &b) in g.iter_mut().zip(gp) {
                    *a += b;
                }
                sum += l;
            }
            t += 1;
            let scale = 1.0 / idx.len() as f32;
            let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
            for k in 0..params {
                let gk = g[k] * scale;
                m[k] = b1 * m[k] + (1.0 - b1) * gk;
                v[k] = b2 * v[k] + (1.0 - b2) * gk * gk;
                net.p[k] -= step * (m[k] / c1) / ((v[k] / c2).sqrt() + eps);
            }
            net.clip();
        }
        let tl = sum / train.len().max(1) as f64;
        let vl = net.loss(valid);
        log(&format!(
            "epoch {epoch:>4}  training loss {tl:.5}  validation loss {vl:.5}  ({:.1} s)",
            start.elapsed().as_secs_f64()
        ));
        out.push((tl, vl));
    }
    out
}

/// Read the data files: (training, validation), every 10th game kept for validation
/// (see [`data::Games`], the rule of `tune fit` too).
pub fn load(files: &[PathBuf], lambda: f32, cp: i32) -> Result<(Vec<Sample>, Vec<Sample>)> {
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    data::read_positions::<Pos>(files, lambda > 0.0, |p| {
        // Results and scores are from White's view; the target from the mover's.
        let mut target = p.result;
        if let Some(s) = p.score {
            target = (1.0 - lambda) * p.result + lambda * sigmoid(s / cp as f32);
        }
        if p.pos.side() == Color::Black {
            target = 1.0 - target;
        }
        let s = Sample::new(&p.pos, target);
        if p.validation {
            valid.push(s);
        } else {
            train.push(s);
        }
        Ok(())
    })?;
    Ok((train, valid))
}

/// Run `tune net-fit`; the losses and progress go to standard error.
pub fn run_net_fit(a: &NetFitConfig) -> Result<()> {
    if !(a.lr.is_finite() && a.lr > 0.0 && a.lr <= 1.0) {
        bail!("--lr must be in (0, 1], got {}", a.lr);
    }
    if !(a.lr_decay.is_finite() && a.lr_decay > 0.0 && a.lr_decay <= 1.0) {
        bail!("--lr-decay must be in (0, 1], got {}", a.lr_decay);
    }
    if !(a.lambda.is_finite() && (0.0..=1.0).contains(&a.lambda)) {
        bail!("--lambda must be in [0, 1], got {}", a.lambda);
    }
    if a.epochs == 0 || a.epochs > 100_000 {
        bail!("--epochs must be between 1 and 100000, got {}", a.epochs);
    }
    if a.batch == 0 || a.batch > 1 << 20 {
        bail!("--batch must be between 1 and 1048576, got {}", a.batch);
    }
    if !(1..=MAX_BUCKETS).contains(&a.buckets) {
        bail!(
            "--buckets must be between 1 and {MAX_BUCKETS}, got {}",
            a.buckets
        );
    }
    if !(1..=100_000).contains(&a.cp_per_logit) {
        bail!(
            "--cp-per-logit must be between 1 and 100000, got {}",
            a.cp_per_logit
        );
    }
    let t = Instant::now();
    let (train_set, valid) = load(&a.data, a.lambda, a.cp_per_logit)?;
    if train_set.is_empty() {
        bail!("no positions in the data files");
    }
    eprintln!(
        "{} training and {} validation positions read in {:.1} s",
        train_set.len(),
        valid.len(),
        t.elapsed().as_secs_f64()
    );
    let mut net = FloatNet::init(a.seed, a.buckets);
    let v0 = net.loss(&valid);
    eprintln!("epoch    0  validation loss {v0:.5}");
    let losses = train(
        &mut net,
        &train_set,
        &valid,
        a.epochs,
        a.lr,
        a.lr_decay,
        a.batch,
        a.seed,
        &mut |l| eprintln!("{l}"),
    );
    let (tl, vl) = *losses.last().expect("at least one epoch");
    if !(tl.is_finite() && net.p.iter().all(|x| x.is_finite())) {
        bail!("the training diverged (a loss or weight is not finite); no file written");
    }
    let names: Vec<String> = a.data.iter().map(|p| p.display().to_string()).collect();
    let header = vec![
        "Network evaluation: english (trained by tammi tune net-fit).".to_string(),
        format!("data: {}", names.join(" ")),
        format!(
            "{} training, {} validation positions (every 10th game); epochs {}, lr {}, \
             lr-decay {}, batch {}, lambda {}, seed {}, buckets {}",
            train_set.len(),
            valid.len(),
            a.epochs,
            a.lr,
            a.lr_decay,
            a.batch,
            a.lambda,
            a.seed,
            a.buckets
        ),
        format!("validation loss {v0:.5} -> {vl:.5} (training {tl:.5})"),
    ];
    let q = net.quantise(a.cp_per_logit, header);
    std::fs::write(&a.out, q.to_text())
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Bits;

    /// Positions of random english games, labelled by material: the side to move wins
    /// with probability sigmoid(material difference).
    fn synthetic(n: usize, seed: u64) -> Vec<(Pos, Sample)> {
        let mut r = XorShift64::new(seed | 1);
        let mut out = Vec::new();
        let mut moves = Vec::new();
        while out.len() < n {
            let mut pos = Pos::start();
            for _ in 0..120 {
                pos.generate(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(&moves[r.below(moves.len())]);
                let side = pos.side();
                let k = pos.kings();
                let own = pos.pieces(side);
                let opp = pos.pieces(side.opposite());
                let m = (own & !k).count() as f32 + 1.5 * (own & k).count() as f32
                    - (opp & !k).count() as f32
                    - 1.5 * (opp & k).count() as f32;
                out.push((pos, Sample::new(&pos, sigmoid(m))));
            }
        }
        out.truncate(n);
        out
    }

    /// The buckets (of `buckets`) that samples of `data` fall in, each once.
    fn buckets_seen(data: &[Sample], buckets: usize) -> Vec<usize> {
        let mut seen: Vec<usize> = data
            .iter()
            .map(|s| network::bucket(s.n as u32, buckets))
            .collect();
        seen.sort();
        seen.dedup();
        seen
    }

    #[test]
    fn training_lowers_the_loss_reproducibly() {
        let data: Vec<Sample> = synthetic(3000, 5).into_iter().map(|x| x.1).collect();
        let (tr, va) = data.split_at(2500);
        for buckets in [1, 4] {
            let run = || {
                let mut net = FloatNet::init(3, buckets);
                let before = net.loss(va);
                let l = train(&mut net, tr, va, 8, 0.005, 1.0, 128, 9, &mut |_| {});
                (before, l, net)
            };
            let (before, l, net) = run();
            let after = l.last().unwrap().1;
            // The labels' own entropy is the floor; the fit must get well below the start.
            assert!(
                after < before - 0.05,
                "{buckets} buckets: {before} -> {after}"
            );
            let (_, l2, net2) = run();
            assert_eq!(l, l2);
            assert_eq!(net, net2);
        }
        // Every bucket of four had samples to learn from.
        assert_eq!(buckets_seen(tr, 4), [0, 1, 2, 3]);
    }

    #[test]
    fn the_step_shrinks_by_the_decay_each_epoch() {
        let tr: Vec<Sample> = synthetic(600, 6).into_iter().map(|x| x.1).collect();
        let fit = |epochs, decay| {
            let mut net = FloatNet::init(5, 1);
            train(&mut net, &tr, &[], epochs, 0.005, decay, 64, 2, &mut |_| {});
            net
        };
        let moved = |a: &FloatNet, b: &FloatNet| {
            a.p.iter()
                .zip(&b.p)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        let one = fit(1, 1.0);
        // The first epoch takes the full step whatever the decay.
        assert_eq!(fit(1, 1e-6), one);
        // A second epoch at a millionth of the step barely moves a weight; at the full
        // step it moves them by a visible amount.
        assert!(moved(&fit(2, 1e-6), &one) < 1e-4);
        assert!(moved(&fit(2, 1.0), &one) > 1e-3);
    }

    #[test]
    fn the_quantised_network_scores_as_the_float_one() {
        let data = synthetic(400, 8);
        let tr: Vec<Sample> = data.iter().map(|x| x.1).collect();
        // With four buckets every bucket is checked: the integer evaluation must pick the
        // float network's bucket for each position.
        assert_eq!(buckets_seen(&tr, 4), [0, 1, 2, 3]);
        for buckets in [1, 4] {
            let mut net = FloatNet::init(4, buckets);
            train(&mut net, &tr, &[], 4, 0.005, 1.0, 64, 1, &mut |_| {});
            let q = net.quantise(100, Vec::new());
            assert_eq!(q.buckets(), buckets);
            let mut worst = 0.0f32;
            for (pos, s) in &data {
                let float_cp = net.logit(s) * 100.0;
                let int_cp = q.evaluate(pos) as f32;
                worst = worst.max((float_cp - int_cp).abs());
            }
            // Rounding to 1/127 and 1/64 steps: a few centi-men.
            assert!(
                worst < 15.0,
                "{buckets} buckets: worst difference {worst} centi-men"
            );
        }
    }
}
