//! A small neural-network evaluation for 32-square boards (english), efficiently
//! updatable: the first layer is kept as an accumulator that a move changes by a few row
//! additions.
//!
//! Shape: 128 inputs per perspective (own men, own kings, opponent's men, opponent's kings
//! on 32 squares, each seen from that side's own view: White reads square *s* as index
//! *s* − 1, Black as 32 − *s*, the board turned half a circle), a first layer of
//! [`HIDDEN`] units per perspective (an `i16` accumulator per perspective, both kept up to
//! date), clipped ReLU, the side to move's half then the other's into [`L2`] units (`i8`
//! weights, `i32` sums), clipped ReLU, one output.
//!
//! Phase buckets: the second and third layers exist once per *bucket* (1 to
//! [`MAX_BUCKETS`], the file says how many), the bucket chosen by the number of pieces on
//! the board ([`bucket`]); the accumulator is shared. An opening and an ending weigh the
//! same first-layer features differently, and the small output layers are where that
//! difference costs least to learn (the accumulator, the expensive part to update, stays
//! one). With one bucket the network is the plain one above.
//!
//! Integer scaling (the float network the trainer fits maps onto it exactly, up to
//! rounding): first-layer weights and biases are `round(w · QA)` (QA = 127, so an
//! activation of 1.0 is 127); second and third layer weights are `round(w · QB)` (QB = 64,
//! so they lie within ±127/64), their biases `round(b · QA · QB)`. A hidden sum is shifted
//! right by 6 (÷ QB) back to activation units before it is clipped to 0..=127. The output
//! `y · QA · QB` is the float network's logit `y`; the evaluation is
//! `y · cp_per_logit` centi-men (the header's scale: the logit of a win, as the trainer's
//! sigmoid reads it, per centi-man).
//!
//! Inner loops run over fixed-size arrays so the compiler vectorises them; the second
//! layer, which the compiler did not vectorise well, is written by hand in
//! [`super::network_simd`] (the evaluation's only `unsafe`).

use super::network_simd::{self, PairWeights};
use crate::rules::{Bits, Board, Color};

/// Inputs per perspective: 4 piece kinds × 32 squares.
pub const INPUTS: usize = 128;
/// First-layer units per perspective.
pub const HIDDEN: usize = 128;
/// Second-layer units.
pub const L2: usize = 32;
/// Activation scale of the first layer (1.0 = QA).
pub const QA: i32 = 127;
/// Weight scale of the second and third layers.
pub const QB: i32 = 64;
/// log2 of QB: the shift from a second-layer sum back to activation units.
const QB_SHIFT: u32 = 6;
/// The largest magnitude a float weight of the second or third layer may have (the `i8`
/// range over QB); the trainer clips to it.
pub const MAX_I8_WEIGHT: f32 = 127.0 / QB as f32;
/// The most output buckets a network may have.
pub const MAX_BUCKETS: usize = 8;
/// The format's first word; version 1 is the one-bucket network (no `buckets` in the
/// shape), version 2 one with several buckets.
const MAGIC: &str = "tammi-network";

/// The output bucket of a position with `pieces` pieces (1..=24) among `buckets`: the
/// piece counts cut into `buckets` equal spans (fewest pieces first). The one definition
/// of the bucket, shared by the evaluation and the trainer.
#[inline(always)]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    (pieces.saturating_sub(1) as usize * buckets / 24).min(buckets - 1)
}

/// The pieces on the board of `pos` (its bucket's input).
#[inline(always)]
pub fn pieces<P: Board>(pos: &P) -> u32 {
    (pos.white() | pos.black()).count()
}

/// Whether `pos` is a dead draw by its material alone, as [`super::endgame::classify`]
/// has it (a lone king against a lone king; asked only with two pieces on the board).
fn dead_draw<P: Board>(pos: &P) -> bool {
    use super::endgame::{Ending, Material, classify};
    let m = Material::of(pos.white(), pos.black(), pos.kings());
    // Short kings: the network evaluates the 32-square boards of english and italian.
    classify(&m, false, |_| false) == Ending::Drawn
}

/// The first-layer sums of both perspectives (index 0: White's view, 1: Black's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [[0; HIDDEN]; 2],
        }
    }
}

/// The second and third layers of one output bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputLayers {
    /// The second layer's `i8` weights (held as `i16`, the lanes of the vector
    /// multiply-add) by pairs of its 2·HIDDEN inputs (side to move's first), the layout of
    /// its hot loop ([`network_simd`]); read and set with [`OutputLayers::l2_weight`] and
    /// [`OutputLayers::set_l2_weight`].
    l2_pairs: PairWeights,
    pub l2_b: [i32; L2],
    /// `i8` values held as `i32`.
    pub l3_w: [i32; L2],
    pub l3_b: i32,
}

impl OutputLayers {
    fn zeroed() -> OutputLayers {
        OutputLayers {
            l2_pairs: [[0; 2 * L2]; HIDDEN],
            l2_b: [0; L2],
            l3_w: [0; L2],
            l3_b: 0,
        }
    }

    /// Second-layer unit `j`'s weight on input `i` (of 2·HIDDEN, the side to move's first).
    pub fn l2_weight(&self, j: usize, i: usize) -> i16 {
        self.l2_pairs[i / 2][2 * j + i % 2]
    }

    /// Set second-layer unit `j`'s weight on input `i`.
    pub fn set_l2_weight(&mut self, j: usize, i: usize, w: i16) {
        self.l2_pairs[i / 2][2 * j + i % 2] = w;
    }
}

/// An integer network, ready to evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// One row of HIDDEN per input.
    pub l1_w: Box<[[i16; HIDDEN]; INPUTS]>,
    pub l1_b: [i16; HIDDEN],
    /// The output layers of each bucket (1 to [`MAX_BUCKETS`]; see [`bucket`]), fewest
    /// pieces first.
    pub out: Box<[OutputLayers]>,
    /// Centi-men per logit unit of the output.
    pub cp_per_logit: i32,
    /// The file's `#` lines (how it was made).
    pub header: Vec<String>,
}

/// The input of a piece of `color` (a king if `king`) on square `square` (1-based, the
/// variant's numbering: White's back row is 29–32) seen from `persp`.
#[inline(always)]
pub fn feature(persp: Color, color: Color, king: bool, square: u32) -> usize {
    let plane = 2 * (color != persp) as usize + king as usize;
    let sq = match persp {
        Color::White => square - 1,
        Color::Black => 32 - square,
    } as usize;
    plane * 32 + sq
}

/// Call `f` with each set bit of `b`.
#[inline(always)]
fn each_bit<B: Bits>(b: B, mut f: impl FnMut(u32)) {
    let mut x = b.to_u128();
    while x != 0 {
        f(x.trailing_zeros());
        x &= x - 1;
    }
}

/// The four piece sets of `pos`: (colour, king, bits).
#[inline(always)]
fn planes<P: Board>(pos: &P) -> [(Color, bool, P::B); 4] {
    let k = pos.kings();
    [
        (Color::White, false, pos.white() & !k),
        (Color::White, true, pos.white() & k),
        (Color::Black, false, pos.black() & !k),
        (Color::Black, true, pos.black() & k),
    ]
}

/// The active inputs of `pos` from `persp`'s view.
pub fn active_features<P: Board>(pos: &P, persp: Color) -> Vec<usize> {
    let mut out = Vec::with_capacity(24);
    for (c, king, bits) in planes(pos) {
        each_bit(bits, |b| {
            out.push(feature(persp, c, king, P::square_of_bit(b)))
        });
    }
    out
}

#[inline(always)]
fn add_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline(always)]
fn sub_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

impl Network {
    /// Whether boards of type `P` can be evaluated (32 squares numbered 1–32).
    pub fn fits<P: Board>() -> bool {
        P::square_count() == 32
    }

    /// The accumulator of `pos` computed from scratch (the reference the incremental
    /// update must equal).
    pub fn refresh<P: Board>(&self, pos: &P) -> Accumulator {
        let mut acc = Accumulator { v: [self.l1_b; 2] };
        for (p, persp) in [Color::White, Color::Black].into_iter().enumerate() {
            for f in active_features(pos, persp) {
                add_row(&mut acc.v[p], &self.l1_w[f]);
            }
        }
        acc
    }

    /// The accumulator of `child` from that of its parent `parent` (see
    /// [`Network::update_into`]).
    pub fn update<P: Board>(&self, acc: &Accumulator, parent: &P, child: &P) -> Accumulator {
        let mut out = Accumulator::default();
        self.update_into(acc, &mut out, parent, child);
        out
    }

    /// Write into `out` the accumulator of `child` from `acc`, that of its parent
    /// `parent`. The pieces that changed (a move's from and to squares, its captures, a
    /// crowning) are found as the difference of the two positions' piece sets, so this
    /// serves any move. The common moves (a quiet move, a single capture) are summed in
    /// one pass over the parent's row, without first copying it: the copy and the row
    /// passes were the update's cost.
    #[inline]
    pub fn update_into<P: Board>(
        &self,
        acc: &Accumulator,
        out: &mut Accumulator,
        parent: &P,
        child: &P,
    ) {
        let (before, after) = (planes(parent), planes(child));
        // The input rows (White's view, Black's view) of the first two pieces that left
        // and the first that came, and how many there were: enough for the fast paths.
        let rows = |c, king, s| {
            (
                feature(Color::White, c, king, s),
                feature(Color::Black, c, king, s),
            )
        };
        let (mut gone, mut came) = ([(0usize, 0usize); 2], (0usize, 0usize));
        let (mut ng, mut nc) = (0, 0);
        for (&(c, king, old), &(_, _, new)) in before.iter().zip(&after) {
            each_bit(old & !new, |b| {
                if ng < 2 {
                    gone[ng] = rows(c, king, P::square_of_bit(b));
                }
                ng += 1;
            });
            each_bit(new & !old, |b| {
                came = rows(c, king, P::square_of_bit(b));
                nc += 1;
            });
        }
        for p in 0..2 {
            let row = |f: (usize, usize)| &self.l1_w[if p == 0 { f.0 } else { f.1 }];
            let (a, o) = (&acc.v[p], &mut out.v[p]);
            match (ng, nc) {
                (1, 1) => {
                    let (g, c) = (row(gone[0]), row(came));
                    for i in 0..HIDDEN {
                        o[i] = a[i].wrapping_sub(g[i]).wrapping_add(c[i]);
                    }
                }
                (2, 1) => {
                    let (g0, g1, c) = (row(gone[0]), row(gone[1]), row(came));
                    for i in 0..HIDDEN {
                        o[i] = a[i]
                            .wrapping_sub(g0[i])
                            .wrapping_sub(g1[i])
                            .wrapping_add(c[i]);
                    }
                }
                // Several captures (or a position that is no child of the parent): the
                // parent's row, then every change.
                _ => {
                    *o = *a;
                    for (&(c, king, old), &(_, _, new)) in before.iter().zip(&after) {
                        each_bit(old & !new, |b| {
                            sub_row(o, row(rows(c, king, P::square_of_bit(b))))
                        });
                        each_bit(new & !old, |b| {
                            add_row(o, row(rows(c, king, P::square_of_bit(b))))
                        });
                    }
                }
            }
        }
    }

    /// The number of output buckets.
    pub fn buckets(&self) -> usize {
        self.out.len()
    }

    /// The output in units of `1 / (QA · QB)` logits, for `side` to move with `pieces`
    /// pieces on the board (they choose the bucket).
    #[inline]
    pub fn raw_output(&self, acc: &Accumulator, side: Color, pieces: u32) -> i32 {
        let layers = &self.out[bucket(pieces, self.out.len())];
        let (us, them) = match side {
            Color::White => (&acc.v[0], &acc.v[1]),
            Color::Black => (&acc.v[1], &acc.v[0]),
        };
        let mut a = [0i16; 2 * HIDDEN];
        let (lo, hi) = a.split_at_mut(HIDDEN);
        for (o, &x) in lo.iter_mut().zip(us) {
            *o = x.clamp(0, QA as i16);
        }
        for (o, &x) in hi.iter_mut().zip(them) {
            *o = x.clamp(0, QA as i16);
        }
        let mut out = layers.l3_b;
        let sums = network_simd::sums(&a, &layers.l2_pairs);
        for ((&z, &b), &w3) in sums.iter().zip(&layers.l2_b).zip(&layers.l3_w) {
            // Rounded (not floored) back to activation units: no bias against the float
            // network the trainer fits.
            let h = ((z + b + (QB >> 1)) >> QB_SHIFT).clamp(0, QA);
            out += h * w3;
        }
        out
    }

    /// The evaluation in centi-men of `pos`, whose accumulator is `acc`, for its side to
    /// move.
    #[inline]
    pub fn output<P: Board>(&self, acc: &Accumulator, pos: &P) -> i32 {
        let n = pieces(pos);
        // A lone king against a lone king is a dead draw: exactly 0, as the pattern
        // evaluation says. A network fitted to scores and results need not give 0 there
        // (the fifth english network does not), and the search then reports its score
        // instead of the draw.
        if n == 2 && dead_draw(pos) {
            return 0;
        }
        let raw = self.raw_output(acc, pos.side(), n) as i64;
        (raw * self.cp_per_logit as i64 / (QA * QB) as i64) as i32
    }

    /// `pos` evaluated from scratch, in centi-men for its side to move.
    pub fn evaluate<P: Board>(&self, pos: &P) -> i32 {
        self.output(&self.refresh(pos), pos)
    }

    /// The file text of this network: the header lines, the shape line, then each
    /// section as its name and value count followed by the values. One bucket writes
    /// version 1 (the files from before buckets, unchanged); several write version 2,
    /// whose output sections hold every bucket's values, bucket after bucket.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for h in &self.header {
            let _ = writeln!(s, "# {h}");
        }
        let nb = self.buckets();
        let (version, buckets) = match nb {
            1 => (1, String::new()),
            _ => (2, format!(" buckets {nb}")),
        };
        let _ = writeln!(
            s,
            "{MAGIC} {version} inputs {INPUTS} hidden {HIDDEN} l2 {L2}{buckets} cp-per-logit {}",
            self.cp_per_logit
        );
        let line = |s: &mut String, v: &mut dyn Iterator<Item = i32>| {
            let words: Vec<String> = v.map(|x| x.to_string()).collect();
            let _ = writeln!(s, "{}", words.join(" "));
        };
        let _ = writeln!(s, "l1.bias {HIDDEN}");
        line(&mut s, &mut self.l1_b.iter().map(|&x| x as i32));
        let _ = writeln!(s, "l1.weights {}", INPUTS * HIDDEN);
        for row in self.l1_w.iter() {
            line(&mut s, &mut row.iter().map(|&x| x as i32));
        }
        let _ = writeln!(s, "l2.bias {}", L2 * nb);
        for o in &self.out {
            line(&mut s, &mut o.l2_b.iter().copied());
        }
        let _ = writeln!(s, "l2.weights {}", L2 * 2 * HIDDEN * nb);
        for o in &self.out {
            for j in 0..L2 {
                line(
                    &mut s,
                    &mut (0..2 * HIDDEN).map(|i| o.l2_weight(j, i) as i32),
                );
            }
        }
        let _ = writeln!(s, "l3.bias {nb}");
        line(&mut s, &mut self.out.iter().map(|o| o.l3_b));
        let _ = writeln!(s, "l3.weights {}", L2 * nb);
        for o in &self.out {
            line(&mut s, &mut o.l3_w.iter().copied());
        }
        s
    }

    /// Parse a network file; the error says what is wrong and where.
    pub fn parse(text: &str) -> Result<Network, String> {
        let mut header = Vec::new();
        // Words with their line numbers, past the comments.
        let mut words: Vec<(usize, &str)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let (body, comment) = match line.find('#') {
                Some(i) => (&line[..i], Some(line[i + 1..].trim())),
                None => (line, None),
            };
            if let Some(c) = comment
                && body.trim().is_empty()
                && words.is_empty()
            {
                header.push(c.to_string());
            }
            words.extend(body.split_whitespace().map(|w| (n + 1, w)));
        }
        let mut it = words.into_iter().peekable();
        // The shape line: the magic word, the version, then name/value pairs.
        let expect = |it: &mut std::iter::Peekable<std::vec::IntoIter<(usize, &str)>>,
                      what: &str|
         -> Result<(usize, String), String> {
            it.next()
                .map(|(n, w)| (n, w.to_string()))
                .ok_or_else(|| format!("the file ends where {what} was expected"))
        };
        let (n, magic) = expect(&mut it, &format!("'{MAGIC}'"))?;
        if magic != MAGIC {
            return Err(format!(
                "line {n}: expected '{MAGIC}' (a network file), found '{magic}'"
            ));
        }
        let (n, version) = expect(&mut it, "the format version")?;
        let v2 = match version.as_str() {
            "1" => false,
            "2" => true,
            _ => {
                return Err(format!(
                    "line {n}: format version {version}, but this build reads versions 1 and 2"
                ));
            }
        };
        let mut cp_per_logit = None;
        // Version 2 names its bucket count; version 1 has one bucket.
        let mut buckets = 1;
        let shape: &[(&str, Option<usize>)] = if v2 {
            &[
                ("inputs", Some(INPUTS)),
                ("hidden", Some(HIDDEN)),
                ("l2", Some(L2)),
                ("buckets", None),
                ("cp-per-logit", None),
            ]
        } else {
            &[
                ("inputs", Some(INPUTS)),
                ("hidden", Some(HIDDEN)),
                ("l2", Some(L2)),
                ("cp-per-logit", None),
            ]
        };
        for &(name, want) in shape {
            let (n, w) = expect(&mut it, &format!("'{name}'"))?;
            if w == "buckets" && !v2 {
                return Err(format!(
                    "line {n}: 'buckets' in a version 1 shape (a network with buckets is \
                     version 2)"
                ));
            }
            if w != name {
                return Err(format!(
                    "line {n}: expected '{name}' in the shape, found '{w}'"
                ));
            }
            let (n, v) = expect(&mut it, &format!("the value of '{name}'"))?;
            let v: usize = v
                .parse()
                .map_err(|_| format!("line {n}: '{name}' must be a whole number, got '{v}'"))?;
            match want {
                Some(w) if w != v => {
                    return Err(format!(
                        "line {n}: the network has {name} {v}, but this build's has {w} \
                         (a network of another shape)"
                    ));
                }
                Some(_) => {}
                None if name == "buckets" => {
                    if !(1..=MAX_BUCKETS).contains(&v) {
                        return Err(format!(
                            "line {n}: buckets must be between 1 and {MAX_BUCKETS}, got {v}"
                        ));
                    }
                    buckets = v;
                }
                None => {
                    if !(1..=100_000).contains(&v) {
                        return Err(format!(
                            "line {n}: cp-per-logit must be between 1 and 100000, got {v}"
                        ));
                    }
                    cp_per_logit = Some(v as i32);
                }
            }
        }
        let mut section = |name: &str,
                           count: usize,
                           lo: i64,
                           hi: i64|
         -> Result<Vec<i32>, String> {
            let (n, w) = expect(&mut it, &format!("section '{name}'"))?;
            if w != name {
                return Err(format!("line {n}: expected section '{name}', found '{w}'"));
            }
            let (n, c) = expect(&mut it, &format!("the value count of '{name}'"))?;
            if c != count.to_string() {
                return Err(format!(
                    "line {n}: section '{name}' must have {count} values, the file says {c}"
                ));
            }
            let mut out = Vec::with_capacity(count);
            for k in 0..count {
                let Some((n, w)) = it.next() else {
                    return Err(format!(
                        "the file is truncated: section '{name}' ends after {k} of its {count} values"
                    ));
                };
                match w.parse::<i64>() {
                    Ok(v) if (lo..=hi).contains(&v) => out.push(v as i32),
                    _ => {
                        return Err(format!(
                            "line {n}: '{w}' in section '{name}' is not an integer from {lo} to {hi}"
                        ));
                    }
                }
            }
            Ok(out)
        };
        let (i16r, i8r, i32r) = (
            (i16::MIN as i64, i16::MAX as i64),
            (-127, 127),
            (i32::MIN as i64 / 4, i32::MAX as i64 / 4),
        );
        let l1_b = section("l1.bias", HIDDEN, i16r.0, i16r.1)?;
        let l1_w = section("l1.weights", INPUTS * HIDDEN, i16r.0, i16r.1)?;
        let nb = buckets;
        let l2_b = section("l2.bias", L2 * nb, i32r.0, i32r.1)?;
        let l2_w = section("l2.weights", L2 * 2 * HIDDEN * nb, i8r.0, i8r.1)?;
        let l3_b = section("l3.bias", nb, i32r.0, i32r.1)?;
        let l3_w = section("l3.weights", L2 * nb, i8r.0, i8r.1)?;
        if let Some((n, w)) = it.next() {
            return Err(format!(
                "line {n}: '{w}' after the last section (too many values, or a network of another shape)"
            ));
        }
        let mut net = Network::zeroed(cp_per_logit.unwrap_or(100), nb);
        net.header = header;
        for (d, &s) in net.l1_b.iter_mut().zip(&l1_b) {
            *d = s as i16;
        }
        for (row, src) in net.l1_w.iter_mut().zip(l1_w.chunks_exact(HIDDEN)) {
            for (d, &s) in row.iter_mut().zip(src) {
                *d = s as i16;
            }
        }
        for (b, o) in net.out.iter_mut().enumerate() {
            o.l2_b.copy_from_slice(&l2_b[b * L2..(b + 1) * L2]);
            let w = &l2_w[b * L2 * 2 * HIDDEN..(b + 1) * L2 * 2 * HIDDEN];
            for (j, src) in w.chunks_exact(2 * HIDDEN).enumerate() {
                for (i, &s) in src.iter().enumerate() {
                    o.set_l2_weight(j, i, s as i16);
                }
            }
            o.l3_b = l3_b[b];
            o.l3_w.copy_from_slice(&l3_w[b * L2..(b + 1) * L2]);
        }
        Ok(net)
    }

    /// A network of zeros with `buckets` output buckets (1 to [`MAX_BUCKETS`]; evaluates
    /// everything as 0).
    pub fn zeroed(cp_per_logit: i32, buckets: usize) -> Network {
        assert!(
            (1..=MAX_BUCKETS).contains(&buckets),
            "buckets must be between 1 and {MAX_BUCKETS}, got {buckets}"
        );
        Network {
            l1_w: Box::new([[0; HIDDEN]; INPUTS]),
            l1_b: [0; HIDDEN],
            out: vec![OutputLayers::zeroed(); buckets].into_boxed_slice(),
            cp_per_logit,
            header: Vec::new(),
        }
    }

    /// A hand-built network that counts material (a man about 100 centi-men, a king about
    /// 125): each first-layer unit copies one input, eight second-layer units count the
    /// side to move's men and kings, eight the opponent's. The placeholder before a
    /// trained network, and a check of the plumbing (a man up scores about a man).
    pub fn material() -> Network {
        let mut n = Network::zeroed(135, 1);
        for (k, row) in n.l1_w.iter_mut().enumerate() {
            row[k % HIDDEN] = QA as i16;
        }
        let o = &mut n.out[0];
        for j in 0..16 {
            // Inputs 0..64 are the side to move's men and kings, 64..128 the opponent's.
            let base = if j < 8 { 0 } else { 64 };
            for k in 0..32 {
                o.set_l2_weight(j, base + k, 4);
                o.set_l2_weight(j, base + 32 + k, 5);
            }
        }
        for (j, w) in o.l3_w.iter_mut().enumerate().take(16) {
            *w = if j < 8 { 95 } else { -95 };
        }
        n.header = vec!["hand-built: material only (Network::material)".into()];
        n
    }

    /// A one-bucket network of random weights in the ranges a trained one uses (for
    /// tests).
    pub fn random(seed: u64) -> Network {
        Network::random_buckets(seed, 1)
    }

    /// A network of random weights with `buckets` output buckets (for tests; its first
    /// bucket is [`Network::random`]'s).
    pub fn random_buckets(seed: u64, buckets: usize) -> Network {
        let mut rng = crate::rng::XorShift64::seeded(seed);
        let mut next = move |lo: i32, hi: i32| lo + rng.below((hi - lo + 1) as usize) as i32;
        let mut n = Network::zeroed(100, buckets);
        for x in n.l1_b.iter_mut() {
            *x = next(-20, 60) as i16;
        }
        for row in n.l1_w.iter_mut() {
            for x in row.iter_mut() {
                *x = next(-40, 40) as i16;
            }
        }
        for o in n.out.iter_mut() {
            for j in 0..L2 {
                for i in 0..2 * HIDDEN {
                    o.set_l2_weight(j, i, next(-127, 127) as i16);
                }
            }
            for x in o.l2_b.iter_mut() {
                *x = next(-4000, 4000);
            }
            for x in o.l3_w.iter_mut() {
                *x = next(-127, 127);
            }
            o.l3_b = next(-500, 500);
        }
        n
    }
}

/// Whether searches check every accumulator against the one from scratch (tests; debug
/// builds always do).
static VERIFY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Make every search of this process check its accumulators (a failed check panics).
pub fn verify(on: bool) {
    VERIFY.store(on, std::sync::atomic::Ordering::Relaxed);
}

#[inline(always)]
pub fn verifying() -> bool {
    VERIFY.load(std::sync::atomic::Ordering::Relaxed)
}

/// Read a network file (at most 16 MB); the error names the file and what is wrong.
pub fn read_file(path: &std::path::Path) -> Result<Network, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    if meta.len() > 16 << 20 {
        return Err(format!(
            "{shown} has {} bytes, more than a network file (16 MB at most)",
            meta.len()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Network::parse(&text).map_err(|e| format!("{shown}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::English;
    type Pos = crate::rules::Position<English>;

    #[test]
    fn feature_indices_are_a_half_turn_apart() {
        // White's man on 32 (White's near right corner) is Black's man on 1 from Black's view.
        assert_eq!(feature(Color::White, Color::White, false, 32), 31);
        assert_eq!(feature(Color::Black, Color::Black, false, 1), 31);
        assert_eq!(feature(Color::White, Color::Black, true, 1), 3 * 32);
        let start = Pos::start();
        let mut w = active_features(&start, Color::White);
        let mut b = active_features(&start, Color::Black);
        w.sort();
        b.sort();
        // The start position is symmetric: both sides see the same inputs.
        assert_eq!(w, b);
        assert_eq!(w.len(), 24);
    }

    #[test]
    fn text_round_trips_and_start_is_symmetric() {
        let mut n = Network::random(7);
        n.header = vec!["made by a test".into()];
        let back = Network::parse(&n.to_text()).unwrap();
        assert_eq!(back, n);
        // The start position looks the same to both sides, so it scores the same for
        // either side to move.
        let start = Pos::start();
        assert_eq!(n.evaluate(&start), n.evaluate(&start.pass()));
    }

    #[test]
    fn buckets_cut_the_piece_counts_evenly() {
        // One bucket: everything in it.
        assert!((1..=24).all(|p| bucket(p, 1) == 0));
        // Four: 1-6, 7-12, 13-18, 19-24 pieces.
        let four: Vec<usize> = (1..=24).map(|p| bucket(p, 4)).collect();
        assert_eq!(four[..6], [0; 6]);
        assert_eq!(four[6..12], [1; 6]);
        assert_eq!(four[12..18], [2; 6]);
        assert_eq!(four[18..], [3; 6]);
        // Every count in range, each bucket used, never decreasing with the pieces.
        for b in 1..=MAX_BUCKETS {
            let all: Vec<usize> = (1..=24).map(|p| bucket(p, b)).collect();
            assert!(all.windows(2).all(|w| w[0] <= w[1]), "{b}: {all:?}");
            assert_eq!((all[0], all[23]), (0, b - 1), "{b}: {all:?}");
            assert!((0..b).all(|k| all.contains(&k)), "{b}: {all:?}");
        }
        // Out of range stays in range.
        assert_eq!(bucket(0, 4), 0);
        assert_eq!(bucket(30, 4), 3);
    }

    #[test]
    fn bucketed_network_round_trips_and_uses_its_buckets() {
        let mut n = Network::random_buckets(9, 4);
        n.header = vec!["four buckets".into()];
        let text = n.to_text();
        assert!(
            text.contains(
                "tammi-network 2 inputs 128 hidden 128 l2 32 buckets 4 cp-per-logit 100\n"
            ),
            "{}",
            &text[..200]
        );
        for section in [
            "l2.bias 128\n",
            "l2.weights 32768\n",
            "l3.bias 4\n",
            "l3.weights 128\n",
        ] {
            assert!(text.contains(section), "{section}");
        }
        let back = Network::parse(&text).unwrap();
        assert_eq!(back.buckets(), 4);
        assert_eq!(back, n);
        // The first bucket is the one-bucket network's, the others differ from it.
        let one = Network::random(9);
        assert_eq!(n.out[0], one.out[0]);
        assert!(n.out[1..].iter().all(|o| *o != n.out[0]));
        // The bucket follows the piece count: the same accumulator scores differently
        // with 24 pieces (bucket 3) and with 2 (bucket 0), as the one-bucket network
        // scores bucket 0.
        let acc = n.refresh(&Pos::start());
        let (full, bare) = (
            n.raw_output(&acc, Color::White, 24),
            n.raw_output(&acc, Color::White, 2),
        );
        assert_ne!(full, bare);
        assert_eq!(bare, one.raw_output(&acc, Color::White, 2));
        assert_eq!(bare, one.raw_output(&acc, Color::White, 24));
    }

    #[test]
    fn shipped_version_1_file_round_trips_byte_for_byte() {
        let text = crate::eval::embedded_network_text(crate::rules::Variant::English).unwrap();
        assert!(text.contains("\ntammi-network 1 inputs 128 hidden 128 l2 32 cp-per-logit"));
        let n = Network::parse(text).unwrap();
        assert_eq!(n.buckets(), 1);
        assert_eq!(n.to_text(), text);
    }

    #[test]
    fn wrong_bucket_counts_are_clear_errors() {
        let text = Network::random_buckets(4, 3).to_text();
        let line = "l2 32 buckets 3 cp-per-logit";
        assert!(text.contains(line));
        for bad in ["0", "9", "-1", "x"] {
            let e =
                Network::parse(&text.replace(line, &format!("l2 32 buckets {bad} cp-per-logit")))
                    .unwrap_err();
            assert!(e.contains("buckets") && e.contains(bad), "{bad}: {e}");
        }
        let e = Network::parse(&text.replace(line, "l2 32 buckets 9 cp-per-logit")).unwrap_err();
        assert!(e.contains("between 1 and 8, got 9"), "{e}");
        // A bucket count that does not match the sections.
        let e = Network::parse(&text.replace(line, "l2 32 buckets 4 cp-per-logit")).unwrap_err();
        assert!(e.contains("l2.bias") && e.contains("128"), "{e}");
        // Version 2 must name its buckets; version 1 must not.
        let e = Network::parse(&text.replace("buckets 3 ", "")).unwrap_err();
        assert!(e.contains("expected 'buckets'"), "{e}");
        let e = Network::parse(&text.replace("tammi-network 2", "tammi-network 1")).unwrap_err();
        assert!(e.contains("'buckets' in a version 1 shape"), "{e}");
        let e = Network::parse(&text.replace("tammi-network 2", "tammi-network 3")).unwrap_err();
        assert!(e.contains("format version 3"), "{e}");
    }

    #[test]
    fn wrong_shape_or_truncation_is_a_clear_error() {
        let text = Network::random(3).to_text();
        let e = Network::parse(&text.replace("hidden 128", "hidden 256")).unwrap_err();
        assert!(
            e.contains("hidden 256") && e.contains("another shape"),
            "{e}"
        );
        let cut = &text[..text.len() / 2];
        let e = Network::parse(cut).unwrap_err();
        assert!(e.contains("truncated") && e.contains("l1.weights"), "{e}");
        let e = Network::parse(&format!("{text} 5\n")).unwrap_err();
        assert!(e.contains("after the last section"), "{e}");
        let e = Network::parse(&text.replacen("l2.weights 8192\n", "l2.weights 8192\n300 ", 1))
            .unwrap_err();
        assert!(e.contains("'300'") && e.contains("l2.weights"), "{e}");
        let e = Network::parse("name 1\n").unwrap_err();
        assert!(e.contains("network file"), "{e}");
    }

    #[test]
    fn incremental_update_equals_refresh_over_random_games() {
        // Random games (captures and crownings included: english games of up to 200
        // plies), the accumulator carried move by move and compared with the one from
        // scratch at every position, and the outputs too (of a one-bucket and a
        // four-bucket network).
        for net in [Network::random(11), Network::random_buckets(11, 4)] {
            update_equals_refresh(&net);
        }
    }

    fn update_equals_refresh(net: &Network) {
        let mut rng = crate::rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
        let mut moves = Vec::new();
        let (mut checked, mut kings_seen, mut captures) = (0, false, 0);
        for _game in 0..60 {
            let mut pos = Pos::start();
            let mut acc = net.refresh(&pos);
            for _ply in 0..200 {
                pos.generate(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.below(moves.len())];
                captures += mv.is_capture() as u32;
                let child = pos.play(&mv);
                acc = net.update(&acc, &pos, &child);
                pos = child;
                assert_eq!(acc, net.refresh(&pos));
                assert_eq!(net.output(&acc, &pos), net.evaluate(&pos));
                kings_seen |= pos.kings().any();
                checked += 1;
            }
        }
        assert!(
            checked > 3000 && kings_seen && captures > 500,
            "{checked} {captures}"
        );
    }

    #[test]
    fn embedded_network_parses() {
        let text = crate::eval::embedded_network_text(crate::rules::Variant::English).unwrap();
        Network::parse(text).unwrap();
    }

    #[test]
    fn material_network_counts_material() {
        let n = Network::material();
        let start = Pos::start();
        assert_eq!(n.evaluate(&start), 0);
        // White a man up (Black's man on 1 gone), either side to move.
        let up: Pos = crate::notation::fen::parse_position(
            "W:W21,22,23,24,25,26,27,28,29,30,31,32:B2,3,4,5,6,7,8,9,10,11,12",
        )
        .unwrap();
        let e = n.evaluate(&up);
        assert!((60..=130).contains(&e), "{e}");
        assert_eq!(n.evaluate(&up.pass()), -e);
    }

    #[test]
    fn integer_output_follows_the_scaling() {
        // One active second-layer unit at full activation, output weight 64 (1.0): the
        // output is one logit, cp_per_logit centi-men.
        let mut n = Network::zeroed(135, 1);
        n.l1_b = [QA as i16; HIDDEN];
        n.out[0].set_l2_weight(0, 0, QB as i16); // 1.0 from the first unit of the side to move
        n.out[0].l3_w[0] = QB;
        let pos = Pos::start();
        assert_eq!(n.raw_output(&n.refresh(&pos), Color::White, 24), QA * QB);
        assert_eq!(n.evaluate(&pos), 135);
    }
}
