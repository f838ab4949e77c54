//! Positions and move generation for the diagonal variants (all but Turkish).
//!
//! One generator serves every diagonal variant; the [`Rules`] constants switch flying kings,
//! backward captures by men, the maximum-capture rule, crowning during a capture and the
//! killer landing rule, and are folded away at compile time.

use std::marker::PhantomData;

use super::bits::Bits;
use super::board::{Board, Move, MoveList, Setup, SetupError, offers_by_definition};
use super::capture::{CaptureSink, Collect, Path};
use super::geometry::reverse;
use super::variant::{Color, Rules, Variant};

/// A diagonal-board position: three bitboards and the side to move (copy-make).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position<R: Rules> {
    white: R::B,
    black: R::B,
    kings: R::B,
    side: Color,
    rules: PhantomData<R>,
}

impl<R: Rules> Position<R> {
    /// A position from its bitboards, unchecked: the caller guarantees disjoint colours,
    /// kings among the pieces and no man on its promotion row (the endgame database builds
    /// positions this way, millions of times).
    #[inline(always)]
    pub fn from_parts(white: R::B, black: R::B, kings: R::B, side: Color) -> Self {
        Position {
            white,
            black,
            kings,
            side,
            rules: PhantomData,
        }
    }

    #[inline(always)]
    fn board_mask() -> R::B {
        R::B::from_u128(R::GEO.board)
    }

    /// One diagonal step of every square in `b`, off-board results dropped.
    #[inline(always)]
    fn step(b: R::B, d: usize) -> R::B {
        let s = R::GEO.shift[d];
        (if d < 2 { b >> s } else { b << s }) & Self::board_mask()
    }

    /// One step backward: the squares from which a step in direction `d` reaches `b`.
    #[inline(always)]
    fn step_back(b: R::B, d: usize) -> R::B {
        Self::step(b, reverse(d))
    }

    #[inline(always)]
    fn ray(d: usize, sq: u32) -> R::B {
        R::B::from_u128(R::GEO.rays[d][sq as usize])
    }

    /// The first square of `set` met when walking in direction `d` (up = toward bit 0).
    #[inline(always)]
    fn nearest(set: R::B, d: usize) -> u32 {
        if d < 2 { set.msb() } else { set.lsb() }
    }

    /// The empty squares a flying piece on `sq` sees in direction `d`, and the first
    /// occupied square if any.
    #[inline(always)]
    fn open_ray(d: usize, sq: u32, occ: R::B) -> (R::B, Option<u32>) {
        let ray = Self::ray(d, sq);
        let blockers = ray & occ;
        if blockers.is_empty() {
            (ray, None)
        } else {
            let b = Self::nearest(blockers, d);
            (ray ^ (Self::ray(d, b) | R::B::bit(b)), Some(b))
        }
    }

    #[inline(always)]
    fn forward_dirs(c: Color) -> [usize; 2] {
        match c {
            Color::White => [0, 1],
            Color::Black => [2, 3],
        }
    }

    /// The directions in which men of `c` capture.
    #[inline(always)]
    fn man_capture_dirs(c: Color) -> &'static [usize] {
        if R::MEN_CAPTURE_BACKWARD {
            &[0, 1, 2, 3]
        } else if c == Color::White {
            &[0, 1]
        } else {
            &[2, 3]
        }
    }

    /// The pieces of `opp` a man may take (italian men cannot take kings).
    #[inline(always)]
    fn man_targets(&self, opp: R::B) -> R::B {
        if R::MEN_CAPTURE_KINGS {
            opp
        } else {
            opp & !self.kings
        }
    }

    #[inline(always)]
    fn me_opp(&self) -> (R::B, R::B) {
        match self.side {
            Color::White => (self.white, self.black),
            Color::Black => (self.black, self.white),
        }
    }

    /// The row where men of `c` are crowned.
    #[inline(always)]
    fn promo_row(c: Color) -> R::B {
        R::B::from_u128(match c {
            Color::White => R::GEO.top_row,
            Color::Black => R::GEO.bottom_row,
        })
    }

    /// Men of the side to move that can start a capture (bitboard test, no search).
    #[inline(always)]
    fn capturing_men(&self, men: R::B, opp: R::B, empty: R::B) -> R::B {
        let mut from = R::B::ZERO;
        if R::MEN_CAPTURE_BACKWARD {
            for d in 0..4 {
                from |= Self::step_back(Self::step_back(empty, d) & opp, d);
            }
        } else {
            for d in Self::forward_dirs(self.side) {
                from |= Self::step_back(Self::step_back(empty, d) & opp, d);
            }
        }
        from & men
    }

    /// Whether the king on `sq` can capture anything (`captured` pieces can't be taken again).
    #[inline(always)]
    fn king_can_capture(sq: u32, occ: R::B, targets: R::B) -> bool {
        Self::king_can_capture_but(sq, occ, targets, 4)
    }

    /// As [`Self::king_can_capture`], but not in direction `along` (4: every direction).
    #[inline(always)]
    fn king_can_capture_but(sq: u32, occ: R::B, targets: R::B, along: usize) -> bool {
        let empty = !occ & Self::board_mask();
        if R::FLYING_KINGS {
            (0..4).any(|d| {
                d != along
                    && match Self::open_ray(d, sq, occ).1 {
                        Some(b) => targets.has(b) && (Self::step(R::B::bit(b), d) & empty).any(),
                        None => false,
                    }
            })
        } else {
            (0..4).any(|d| {
                let mid = Self::step(R::B::bit(sq), d) & targets;
                (Self::step(mid, d) & empty).any()
            })
        }
    }

    fn generate_captures<S: CaptureSink<R::B>>(&self, sink: &mut S) {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let empty = Self::board_mask() & !occ;
        let men = me & !self.kings;
        for from in self
            .capturing_men(men, self.man_targets(opp), empty)
            .squares()
        {
            let mut path = Path::new(from);
            self.step_captures::<S, false>(
                sink,
                from,
                from,
                occ ^ R::B::bit(from),
                opp,
                R::B::ZERO,
                &mut path,
            );
        }
        for from in (me & self.kings).squares() {
            let occ = occ ^ R::B::bit(from);
            if !Self::king_can_capture(from, occ, opp) {
                continue;
            }
            let mut path = Path::new(from);
            if R::FLYING_KINGS {
                self.king_captures(
                    sink,
                    from,
                    from,
                    occ,
                    opp,
                    R::B::ZERO,
                    false,
                    4,
                    true,
                    &mut path,
                );
            } else {
                self.step_captures::<S, true>(sink, from, from, occ, opp, R::B::ZERO, &mut path);
            }
        }
    }

    /// A capture by a piece that jumps one square at a time from `at`, with `captured`
    /// already jumped (still on the board as blockers: `occ` keeps them): a man, or with
    /// `KING` an english king (all four directions, never crowned).
    #[allow(clippy::too_many_arguments)]
    fn step_captures<S: CaptureSink<R::B>, const KING: bool>(
        &self,
        sink: &mut S,
        from: u32,
        at: u32,
        occ: R::B,
        opp: R::B,
        captured: R::B,
        path: &mut Path,
    ) {
        let targets = if KING { opp } else { self.man_targets(opp) } & !captured;
        let empty = Self::board_mask() & !occ;
        let promo = Self::promo_row(self.side);
        let mut extended = false;
        let dirs: &[usize] = if KING {
            &[0, 1, 2, 3]
        } else {
            Self::man_capture_dirs(self.side)
        };
        for &d in dirs {
            let mid = Self::step(R::B::bit(at), d) & targets;
            let land = Self::step(mid, d) & empty;
            if land.is_empty() {
                continue;
            }
            extended = true;
            let land_sq = land.lsb();
            let now = captured | mid;
            path.push(land_sq);
            if !KING && R::PROMOTE_IN_CAPTURE && promo.has(land_sq) {
                // Russian: crowned on the spot, the capture goes on as a king's.
                self.king_captures(sink, from, land_sq, occ, opp, now, true, d, true, path);
            } else {
                self.step_captures::<S, KING>(sink, from, land_sq, occ, opp, now, path);
            }
            path.pop();
        }
        if !extended && captured.any() {
            let mv = Move {
                from: from as u8,
                to: at as u8,
                promote: !KING && promo.has(at),
                captured,
            };
            sink.add(mv, path);
        }
    }

    /// A flying king's capture sequence from `at`; `came` is the direction of the last jump
    /// (4 at the start). `promote` marks a man crowned during this capture (russian).
    /// `straight_on`: the capture may go on in direction `came` from here; a sink counting
    /// every route goes on straight only from the first square behind the piece taken
    /// (stopping further along the same line is the same route, as dctl counts them).
    #[allow(clippy::too_many_arguments)]
    fn king_captures<S: CaptureSink<R::B>>(
        &self,
        sink: &mut S,
        from: u32,
        at: u32,
        occ: R::B,
        opp: R::B,
        captured: R::B,
        promote: bool,
        came: usize,
        straight_on: bool,
        path: &mut Path,
    ) {
        let targets = opp & !captured;
        // Thai: the pieces taken have left the board already.
        let occ = if R::REMOVE_AT_ONCE {
            occ & !captured
        } else {
            occ
        };
        let mut extended = false;
        for d in 0..4 {
            // Jumping back is impossible anyway: the piece just taken still blocks the way
            // (where pieces leave at once, thai, the king may turn back across it).
            if !R::REMOVE_AT_ONCE && came < 4 && d == reverse(came) {
                continue;
            }
            if S::EVERY_ROUTE && !straight_on && d == came {
                continue;
            }
            let b = match Self::open_ray(d, at, occ).1 {
                Some(b) if targets.has(b) => b,
                _ => continue,
            };
            let (mut land, _) = Self::open_ray(d, b, occ);
            if land.is_empty() {
                continue;
            }
            if R::LAND_BEHIND {
                // Thai: the king lands on the square right behind the piece.
                land = R::B::bit(Self::nearest(land, d));
            }
            extended = true;
            let now = captured | R::B::bit(b);
            let rest = opp & !now;
            let occ_on = if R::REMOVE_AT_ONCE {
                occ ^ R::B::bit(b)
            } else {
                occ
            };
            // A king must land where the capture can go on, if there is such a square.
            let first = Self::nearest(land, d);
            let mut going_on = R::B::ZERO;
            for l in land.squares() {
                let along = if S::EVERY_ROUTE && l != first { d } else { 4 };
                if Self::king_can_capture_but(l, occ_on, rest, along) {
                    going_on |= R::B::bit(l);
                }
            }
            if going_on.any() {
                for l in going_on.squares() {
                    let straight = !S::EVERY_ROUTE || l == first;
                    path.push(l);
                    self.king_captures(sink, from, l, occ, opp, now, promote, d, straight, path);
                    path.pop();
                }
            } else {
                // Killer: a capture whose last victim is a king ends right behind it.
                let ends = if R::KILLER && self.kings.has(b) {
                    R::B::bit(Self::nearest(land, d))
                } else {
                    land
                };
                for l in ends.squares() {
                    path.push(l);
                    let mv = Move {
                        from: from as u8,
                        to: l as u8,
                        promote,
                        captured: now,
                    };
                    sink.add(mv, path);
                    path.pop();
                }
            }
        }
        if !extended && captured.any() {
            let mv = Move {
                from: from as u8,
                to: at as u8,
                promote,
                captured,
            };
            sink.add(mv, path);
        }
    }

    fn generate_quiet(&self, out: &mut MoveList<R::B>) {
        let (me, _) = self.me_opp();
        let occ = self.white | self.black;
        let empty = Self::board_mask() & !occ;
        let men = me & !self.kings;
        let promo = Self::promo_row(self.side);
        for d in Self::forward_dirs(self.side) {
            for to in (Self::step(men, d) & empty).squares() {
                let from = Self::step_back(R::B::bit(to), d).lsb();
                out.push(Move {
                    from: from as u8,
                    to: to as u8,
                    promote: promo.has(to),
                    captured: R::B::ZERO,
                });
            }
        }
        for from in (me & self.kings).squares() {
            for d in 0..4 {
                let targets = if R::FLYING_KINGS {
                    Self::open_ray(d, from, occ).0
                } else {
                    Self::step(R::B::bit(from), d) & empty
                };
                for to in targets.squares() {
                    out.push(Move {
                        from: from as u8,
                        to: to as u8,
                        promote: false,
                        captured: R::B::ZERO,
                    });
                }
            }
        }
    }

    /// Captures counted without building them, in the common case where only men can
    /// capture and no capture can go on past its first jump: then every jump is a move of
    /// its own (all of length one, none equal). `None` when the full generator is needed.
    #[inline]
    fn count_single_jumps(&self) -> Option<u64> {
        let (me, opp) = self.me_opp();
        if (me & self.kings).any() {
            return None;
        }
        let opp = self.man_targets(opp);
        if R::MOST_KINGS && (opp & self.kings).any() {
            // A man's jump taking a king outranks one taking a man (spanish).
            return None;
        }
        let occ = self.white | self.black;
        let empty = Self::board_mask() & !occ;
        let dirs = Self::man_capture_dirs(self.side);
        // jumpers[d]: squares from which a man can jump in direction d.
        let mut jumpers = [R::B::ZERO; 4];
        for &d in dirs {
            jumpers[d] = Self::step_back(Self::step_back(empty, d) & opp, d);
        }
        let promo = Self::promo_row(self.side);
        let mut n = 0;
        for &d in dirs {
            let land = Self::step(Self::step(me & jumpers[d], d), d);
            // Going on from a landing square in any direction but back: after the jump the
            // origin is empty and the landing square full, but neither is a square such a
            // second jump looks at (only the jump straight back would, and the piece just
            // taken blocks that one).
            let mut going_on = R::B::ZERO;
            for &d2 in dirs {
                if d2 != reverse(d) {
                    going_on |= jumpers[d2];
                }
            }
            if (land & going_on).any() || (R::PROMOTE_IN_CAPTURE && (land & promo).any()) {
                return None;
            }
            n += land.count();
        }
        Some(n as u64)
    }

    /// Every capture the precedence rules allow into `out` (`DEDUP`: one per distinct move,
    /// else one per route).
    #[inline(always)]
    fn collect_captures<const DEDUP: bool>(&self, out: &mut MoveList<R::B>) {
        if R::RANKED {
            self.generate_captures(&mut Ranked::<R, DEDUP> {
                out,
                kings: self.kings,
                best: 0,
            });
        } else if R::MAX_CAPTURE {
            self.generate_captures(&mut Collect::<R::B, true, DEDUP>::new(out));
        } else {
            self.generate_captures(&mut Collect::<R::B, false, DEDUP>::new(out));
        }
    }

    /// Quiet moves counted without building them (perft's last ply).
    #[inline]
    fn count_quiet(&self) -> u64 {
        let (me, _) = self.me_opp();
        let occ = self.white | self.black;
        let empty = Self::board_mask() & !occ;
        let men = me & !self.kings;
        let mut n = 0;
        for d in Self::forward_dirs(self.side) {
            n += (Self::step(men, d) & empty).count();
        }
        let kings = me & self.kings;
        if kings.any() {
            if R::FLYING_KINGS {
                for k in kings.squares() {
                    for d in 0..4 {
                        n += Self::open_ray(d, k, occ).0.count();
                    }
                }
            } else {
                for d in 0..4 {
                    n += (Self::step(kings, d) & empty).count();
                }
            }
        }
        n as u64
    }
}

/// A capture's rank under the variant's precedence rules, higher first: the count (where
/// the most must be taken), whether a king makes it, how many kings it takes, and which
/// jumps take kings, the first jump weighing most (italian, FID art. 6.6 to 6.9; czech:
/// the king alone; spanish: the count then the kings). `kings` are the position's.
#[inline(always)]
fn rank<R: Rules>(kings: R::B, mv: &Move<R::B>, path: &Path) -> u32 {
    let mut key = 0;
    if R::MAX_CAPTURE {
        key |= mv.captured.count() << 24;
    }
    if R::KING_FIRST && kings.has(mv.from as u32) {
        key |= 1 << 23;
    }
    if R::MOST_KINGS {
        key |= (mv.captured & kings).count() << 16;
    }
    if R::KINGS_EARLY {
        // Short pieces only (italian): a jump's victim is midway between two landings in
        // the ghost layout. At most 12 jumps on 8x8, so 16 bits hold the order.
        let mut jumps = path.squares();
        let mut at = jumps.next().unwrap_or(0);
        for (i, land) in jumps.enumerate() {
            if kings.has((at + land) / 2) {
                key |= 1 << (15 - i);
            }
            at = land;
        }
    }
    key
}

/// Collects the captures of the best rank (see [`rank`]); `DEDUP` as in [`Collect`].
struct Ranked<'a, R: Rules, const DEDUP: bool> {
    out: &'a mut Vec<Move<R::B>>,
    kings: R::B,
    best: u32,
}

impl<R: Rules, const DEDUP: bool> CaptureSink<R::B> for Ranked<'_, R, DEDUP> {
    const EVERY_ROUTE: bool = !DEDUP;
    #[inline(always)]
    fn add(&mut self, mv: Move<R::B>, path: &Path) {
        let key = rank::<R>(self.kings, &mv, path);
        if key < self.best {
            return;
        }
        if key > self.best {
            self.out.clear();
            self.best = key;
        }
        if DEDUP && self.out.contains(&mv) {
            return;
        }
        self.out.push(mv);
    }
}

/// The routes of one capture that rank best among its routes (for notation).
struct RankedRoutes<R: Rules> {
    target: Move<R::B>,
    kings: R::B,
    best: u32,
    routes: Vec<Vec<u32>>,
}

impl<R: Rules> CaptureSink<R::B> for RankedRoutes<R> {
    fn add(&mut self, mv: Move<R::B>, path: &Path) {
        if mv != self.target {
            return;
        }
        let key = rank::<R>(self.kings, &mv, path);
        if key < self.best {
            return;
        }
        if key > self.best {
            self.routes.clear();
            self.best = key;
        }
        let route: Vec<u32> = path.squares().collect();
        if !self.routes.contains(&route) {
            self.routes.push(route);
        }
    }
}

impl<R: Rules> Board for Position<R> {
    type B = R::B;
    const VARIANT: Variant = R::VARIANT;

    fn start() -> Self {
        // Men fill the rows on each side of `start_gap` empty middle rows (two, but four in
        // thai). Black's are the top rows, whatever the numbering: the plain layout's first
        // squares (see `DiagonalGeometry::new`).
        let width = R::GEO.width;
        let rows = (width - R::VARIANT.facts().start_gap) / 2;
        let per_side = rows * width / 2;
        let plain = |n: u32| R::B::bit(n + n / width);
        let mut black = R::B::ZERO;
        let mut white = R::B::ZERO;
        for n in 0..per_side {
            black |= plain(n);
            white |= plain(R::GEO.squares - 1 - n);
        }
        Position {
            white,
            black,
            kings: R::B::ZERO,
            side: R::FIRST,
            rules: PhantomData,
        }
    }

    #[inline(always)]
    fn side(&self) -> Color {
        self.side
    }
    #[inline(always)]
    fn white(&self) -> R::B {
        self.white
    }
    #[inline(always)]
    fn black(&self) -> R::B {
        self.black
    }
    #[inline(always)]
    fn kings(&self) -> R::B {
        self.kings
    }

    fn generate(&self, out: &mut MoveList<R::B>) {
        out.clear();
        if self.has_capture() {
            self.collect_captures::<true>(out);
        } else {
            self.generate_quiet(out);
        }
    }

    fn generate_every_route(&self, out: &mut MoveList<R::B>) {
        out.clear();
        if self.has_capture() {
            self.collect_captures::<false>(out);
        } else {
            self.generate_quiet(out);
        }
    }

    fn routes(&self, mv: &Move<R::B>) -> Vec<Vec<u32>> {
        if !mv.is_capture() {
            return vec![vec![mv.from as u32, mv.to as u32]];
        }
        // Only the routes that rank as the move does play it (italian: the same pieces
        // taken in another order may meet the king later, and that route is not legal).
        let mut sink = RankedRoutes::<R> {
            target: *mv,
            kings: self.kings,
            best: 0,
            routes: Vec::new(),
        };
        self.generate_captures(&mut sink);
        sink.routes
    }

    #[inline]
    fn count_moves(&self, scratch: &mut MoveList<R::B>) -> u64 {
        if self.has_capture() {
            if let Some(n) = self.count_single_jumps() {
                return n;
            }
            scratch.clear();
            self.collect_captures::<true>(scratch);
            scratch.len() as u64
        } else {
            self.count_quiet()
        }
    }

    #[inline]
    fn has_capture(&self) -> bool {
        let (me, opp) = self.me_opp();
        let occ = self.white | self.black;
        let empty = Self::board_mask() & !occ;
        let men = me & !self.kings;
        if self.capturing_men(men, self.man_targets(opp), empty).any() {
            return true;
        }
        let kings = me & self.kings;
        if kings.is_empty() {
            return false;
        }
        if R::FLYING_KINGS {
            kings
                .squares()
                .any(|k| Self::king_can_capture(k, occ ^ R::B::bit(k), opp))
        } else {
            (0..4).any(|d| (Self::step(Self::step(kings, d) & opp, d) & empty).any())
        }
    }

    #[inline]
    fn play(&self, mv: &Move<R::B>) -> Self {
        let from = R::B::bit(mv.from as u32);
        let to = R::B::bit(mv.to as u32);
        let (mut me, mut opp) = self.me_opp();
        me = (me ^ from) | to;
        opp &= !mv.captured;
        let mut kings = self.kings & !mv.captured;
        if kings.has(mv.from as u32) || mv.promote {
            kings = (kings ^ (kings & from)) | to;
        }
        let (white, black) = match self.side {
            Color::White => (me, opp),
            Color::Black => (opp, me),
        };
        Position {
            white,
            black,
            kings,
            side: self.side.opposite(),
            rules: PhantomData,
        }
    }

    #[inline(always)]
    /// From the bitboards when the opponent has only men and no capture yet (the
    /// quiescence search's case): a man's step from `f` to `t` then gives the opponent a
    /// capture exactly when an opponent man next to `t` can jump it (landing beyond `t`
    /// on an empty square, or on `f` itself), or when a piece of ours next to `f` can now
    /// be jumped into `f`. Anywhere else, by the definition.
    fn capture_offers(&self, out: &mut MoveList<R::B>) {
        let (me, opp) = self.me_opp();
        if (opp & self.kings).any() || self.has_capture() || self.pass().has_capture() {
            return offers_by_definition(self, out);
        }
        out.clear();
        let empty = Self::board_mask() & !(self.white | self.black);
        let men = me & !self.kings;
        let promo = Self::promo_row(self.side);
        let victims = if R::MEN_CAPTURE_KINGS {
            me
        } else {
            me & !self.kings
        };
        let their_dirs = Self::man_capture_dirs(self.side.opposite());
        // Squares that would be captured into if empty: each holds a man whose leaving
        // opens a capture.
        let mut opening = R::B::ZERO;
        for &e in their_dirs {
            opening |= Self::step(Self::step(opp, e) & victims, e);
        }
        let opening = opening & men;
        for m in Self::forward_dirs(self.side) {
            let targets = Self::step(men, m) & empty;
            let mut jumped = R::B::ZERO;
            for &e in their_dirs {
                // Landing beyond `t`: empty now, or the square the man comes from.
                let landing_free = if e == reverse(m) {
                    Self::board_mask()
                } else {
                    Self::step_back(empty, e)
                };
                jumped |= Self::step(opp, e) & landing_free;
            }
            if !R::MEN_CAPTURE_KINGS {
                jumped &= !promo; // crowned on arrival: men cannot take it
            }
            let offers = targets & (jumped | Self::step(opening, m));
            for to in offers.squares() {
                let from = Self::step_back(R::B::bit(to), m).lsb();
                out.push(Move {
                    from: from as u8,
                    to: to as u8,
                    promote: promo.has(to),
                    captured: R::B::ZERO,
                });
            }
        }
    }

    fn pass(&self) -> Self {
        Position {
            side: self.side.opposite(),
            ..*self
        }
    }

    fn capture_search<S: CaptureSink<R::B>>(&self, sink: &mut S) {
        self.generate_captures(sink)
    }

    fn from_setup(setup: &Setup) -> Result<Self, SetupError> {
        let (white, black, kings) = setup.bitboards(Self::promo_row, Self::square_of_bit)?;
        Ok(Position {
            white,
            black,
            kings,
            side: setup.side,
            rules: PhantomData,
        })
    }

    fn square_count() -> u32 {
        R::GEO.squares
    }
    fn bit_of_square(n: u32) -> Option<u32> {
        (1..=R::GEO.squares)
            .contains(&n)
            .then(|| R::GEO.bit_of_square[n as usize] as u32)
    }
    fn square_of_bit(bit: u32) -> u32 {
        R::GEO.square_of_bit[bit as usize] as u32
    }
    fn coords(bit: u32) -> (u32, u32) {
        R::GEO.coords(bit)
    }
    fn bit_at(file: u32, rank: u32) -> Option<u32> {
        R::GEO.bit_at(file, rank)
    }
    fn promotion_row(color: Color) -> R::B {
        Self::promo_row(color)
    }
}
