//! Match statistics: Elo difference with its error interval, likelihood of superiority,
//! and the sequential probability ratio test.
//!
//! **Elo** is the logistic model: a score share `s` means `-400·log10(1/s − 1)` Elo.
//!
//! **Error interval** (95%): the normal approximation of the mean score. Two forms:
//! - *trinomial* (the one the live line and the main report use): every game is an
//!   independent draw from {0, ½, 1}; the per-game variance is that of the results seen;
//! - *pentanomial*: games are taken in pairs (the same opening with colours reversed), each
//!   pair scoring 0, ½, 1, 1½ or 2; pairing cancels the opening's bias, so its interval is
//!   usually narrower, and it is the honest one when openings are unbalanced.
//!
//! The interval `[s − z·σ/√n, s + z·σ/√n]` is mapped to Elo and reported as half its width,
//! `(elo(hi) − elo(lo)) / 2`, as cutechess does.
//!
//! **LOS** (likelihood of superiority): `½·(1 + erf((W − L) / √(2(W + L))))`; draws carry no
//! information about which side is stronger.
//!
//! **SPRT**: the generalised SPRT of fishtest's `LLR_logistic` on trinomial results: H0 "the
//! Elo difference is `elo0`" against H1 "it is `elo1`", both in logistic Elo. For each
//! hypothesis the result distribution (loss, draw, win) closest to the observed one with the
//! hypothesis' expected score is found by maximum likelihood (a one-dimensional root, by
//! bisection); the log-likelihood ratio is `N · Σ p̂ᵢ·ln(q1ᵢ / q0ᵢ)`. Result counts of zero
//! are replaced by 0.001 first (fishtest's regularisation), so that a run of draws alone
//! does not make the ratio infinite. The test stops when the ratio leaves
//! `[ln(β/(1−α)), ln((1−β)/α)]`: below, H0 is accepted; above, H1.

use crate::notation::echo;
/// The 97.5% quantile of the standard normal distribution: a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference of a score share in (0, 1); ±infinity at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score share at an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The complementary error function (Numerical Recipes' Chebyshev fit, relative error below
/// 1.2e-7 everywhere: ample for percentages shown with one decimal).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

pub fn erf(x: f64) -> f64 {
    1.0 - erfc(x)
}

/// Wins, draws and losses from one engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn new(wins: u32, draws: u32, losses: u32) -> Self {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score share (0.5 with no games).
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }

    /// The same results seen from the opponent.
    pub fn reversed(&self) -> Wdl {
        Wdl::new(self.losses, self.draws, self.wins)
    }

    /// Likelihood of superiority, in [0, 1].
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }

    /// Elo with the trinomial 95% interval; `None` without games.
    pub fn elo(&self) -> Option<EloEstimate> {
        let n = self.games() as f64;
        if n == 0.0 {
            return None;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        Some(EloEstimate::from_mean(s, var, n))
    }
}

/// An Elo difference and the half-width of its 95% interval (either may be infinite: a
/// score of 0% or 100%, or an interval reaching them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub error: f64,
}

impl EloEstimate {
    /// From a mean score per game, its per-sample variance and the number of samples.
    fn from_mean(mean: f64, variance: f64, samples: f64) -> EloEstimate {
        let half = Z95 * (variance / samples).sqrt();
        let (lo, hi) = (mean - half, mean + half);
        EloEstimate {
            elo: elo_from_score(mean),
            error: (elo_from_score(hi) - elo_from_score(lo)) / 2.0,
        }
    }

    /// `+12.3 ± 25.0` (`+inf`, `± inf` at the edges).
    pub fn display(&self) -> String {
        format!("{} ± {}", signed(self.elo), self.error_text())
    }

    /// The half-width alone: `25.0`, or `inf`.
    pub fn error_text(&self) -> String {
        unsigned(self.error)
    }
}

fn signed(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else if x.abs() < 0.05 {
        "+0.0".into()
    } else {
        format!("{x:+.1}")
    }
}

fn unsigned(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "inf".into()
    }
}

/// Pairs of games on the same opening with colours reversed, by the first engine's total
/// score in the pair: `counts[k]` pairs scored `k / 2` points (0, ½, 1, 1½, 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u32; 5],
}

impl Pentanomial {
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Elo with the pentanomial 95% interval; `None` without pairs.
    pub fn elo(&self) -> Option<EloEstimate> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        // A pair's score per game: 0, ¼, ½, ¾, 1.
        let value = |k: usize| k as f64 / 4.0;
        let mean = (0..5)
            .map(|k| self.counts[k] as f64 * value(k))
            .sum::<f64>()
            / n;
        let var = (0..5)
            .map(|k| self.counts[k] as f64 * (value(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some(EloEstimate::from_mean(mean, var, n))
    }
}

/// The parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// The ratio fell below the lower bound: the difference is `elo0` (or less).
    H0,
    /// The ratio rose above the upper bound: the difference is `elo1` (or more).
    H1,
    Continue,
}

impl Sprt {
    /// Parse `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(format!(
                "'{}': expected elo0,elo1 or elo0,elo1,alpha,beta (e.g. 0,5 or 0,5,0.05,0.05)",
                echo(text)
            ));
        }
        let num = |s: &str| -> Result<f64, String> {
            s.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    format!(
                        "'{}': '{}' is not a number (expected elo0,elo1 such as 0,5)",
                        echo(text),
                        echo(s)
                    )
                })
        };
        let (elo0, elo1) = (num(parts[0])?, num(parts[1])?);
        let (alpha, beta) = if parts.len() == 4 {
            (num(parts[2])?, num(parts[3])?)
        } else {
            (0.05, 0.05)
        };
        if elo0 >= elo1 {
            return Err(format!(
                "'{}': elo0 ({elo0}) must be below elo1 ({elo1}) (expected elo0,elo1 such as 0,5)",
                echo(text)
            ));
        }
        if elo0.abs() >= 1000.0 || elo1.abs() >= 1000.0 {
            return Err(format!(
                "'{}': elo0 and elo1 must be within ±1000 (expected elo0,elo1 such as 0,5)",
                echo(text)
            ));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("--sprt: {name} must be between 0 and 0.5, got {p}"));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// `(ln(β/(1−α)), ln((1−β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 for these results.
    pub fn llr(&self, r: Wdl) -> f64 {
        if r.games() == 0 {
            return 0.0;
        }
        // fishtest's regularisation: an unseen result is given a thousandth of a game.
        let reg = |c: u32| if c == 0 { 1e-3 } else { c as f64 };
        let counts = [reg(r.losses), reg(r.draws), reg(r.wins)];
        let n: f64 = counts.iter().sum();
        let p: Vec<f64> = counts.iter().map(|c| c / n).collect();
        let q0 = mle_with_mean(&p, score_from_elo(self.elo0));
        let q1 = mle_with_mean(&p, score_from_elo(self.elo1));
        n * (0..3).map(|i| p[i] * (q1[i] / q0[i]).ln()).sum::<f64>()
    }

    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::H1
        } else if llr <= lower {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }

    /// `elo0=0 elo1=5 alpha=0.05 beta=0.05`.
    pub fn describe(&self) -> String {
        format!(
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// The distribution over the results (0, ½, 1) of largest likelihood for the empirical
/// distribution `p` (all entries positive) among those with expected score `mean`.
///
/// Lagrange: `qᵢ = pᵢ / (1 + λ(aᵢ − mean))` with λ the root of
/// `Σ pᵢ(aᵢ − mean)/(1 + λ(aᵢ − mean)) = 0`, which decreases in λ on the interval where
/// every denominator is positive; bisection finds it.
fn mle_with_mean(p: &[f64], mean: f64) -> [f64; 3] {
    const RESULTS: [f64; 3] = [0.0, 0.5, 1.0];
    let mean = mean.clamp(1e-9, 1.0 - 1e-9);
    let d: Vec<f64> = RESULTS.iter().map(|a| a - mean).collect();
    // Denominators 1 + λ·d stay positive for λ in (−1/max d, −1/min d).
    let (dmax, dmin) = (d[2], d[0]);
    let (mut lo, mut hi) = (-1.0 / dmax, -1.0 / dmin);
    let f = |lambda: f64| {
        (0..3)
            .map(|i| p[i] * d[i] / (1.0 + lambda * d[i]))
            .sum::<f64>()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    let mut q = [0.0; 3];
    for i in 0..3 {
        q[i] = p[i] / (1.0 + lambda * d[i]);
    }
    // Normalise away the bisection's last rounding.
    let total: f64 = q.iter().sum();
    q.map(|x| x / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_known_values() {
        assert!((erf(0.0)).abs() < 1e-7);
        assert!((erf(1.0) - 0.842_700_792_9).abs() < 1e-6);
        assert!((erf(-0.5) + 0.520_499_877_8).abs() < 1e-6);
        assert!((erfc(3.0) - 2.209_049_699_9e-5).abs() < 1e-9);
    }

    #[test]
    fn mle_keeps_the_mean() {
        let p = [0.3, 0.2, 0.5];
        for mean in [0.4, 0.5, 0.61] {
            let q = mle_with_mean(&p, mean);
            assert!((q[1] * 0.5 + q[2] - mean).abs() < 1e-9, "{q:?}");
        }
        // Asking for the observed mean gives the observed distribution back.
        let q = mle_with_mean(&p, 0.6);
        for i in 0..3 {
            assert!((q[i] - p[i]).abs() < 1e-9);
        }
    }
}
