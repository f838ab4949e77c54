//! Endgame databases: the exact result (win, loss or draw for the side to move) of every
//! position with few pieces, found by retrograde analysis ([`build`]) and probed by the
//! search, for every variant of the rules core whose positions are their pieces alone and
//! whose board has at most 64 squares (see [`index::unsupported`]): english, italian and
//! the other short-king 8x8 games, russian and brazilian, international and killer,
//! turkish.
//!
//! One indexing ([`index`]) and one builder ([`build`]) serve every board: what differs
//! (squares, promotion rows, how pieces move) is read from the rules core. A database of
//! up to `n` pieces holds every material slice of 2 to `n` pieces, White to move only:
//! the rules treat the colours alike, so a position with Black to move is looked up with
//! the colours exchanged and the board turned round. A slice is stored in coded blocks
//! ([`compress`]) with a checksum, positions with a capture left out and resolved when
//! probed; a build writes each slice as it finishes and resumes ([`resume`]). The file
//! names its variant, and a database is only ever probed for positions of that variant.
//! The values ignore the draw counters (e.g. english's 40-move rule): like every
//! draughts database, they say what perfect play reaches, and the search keeps the
//! counters; the distance to conversion ([`distance`], a file of its own beside the
//! database) lets the engine's root choose, among the moves that keep a win, one that
//! converts soonest, so that a won ending is won within those counters.

pub mod build;
pub mod compress;
pub mod distance;
pub mod index;
pub mod resume;
pub mod review;

use std::any::Any;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

use crate::parallel;
use crate::rules::{Bits, Board, Color, MoveList, Variant};
use compress::{BLOCK, DONT_CARE};
pub use index::{EgdbBoard, MAX_PIECES, supported_names, unsupported};
use index::{Geometry, Slice, Squares};

/// A position's value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wld {
    Win,
    Loss,
    Draw,
}

impl Wld {
    fn bits(self) -> u8 {
        match self {
            Wld::Draw => 0,
            Wld::Win => 1,
            Wld::Loss => 2,
        }
    }
    fn from_bits(b: u8) -> Wld {
        match b {
            1 => Wld::Win,
            2 => Wld::Loss,
            _ => Wld::Draw,
        }
    }
}

/// What [`Database::probe_speed`] measured.
#[derive(Debug, Clone, Copy)]
pub struct ProbeSpeed {
    /// Probes a second of random positions, each once (blocks mostly read from the
    /// file's data and decoded).
    pub cold: f64,
    /// Probes a second of 256 positions again and again (blocks in the cache).
    pub warm: f64,
    /// Probes that gave a value (all of them, in a sound database: kept so that the
    /// probes are not optimised away).
    pub answered: u64,
}

/// What [`Database::verify`] found.
#[derive(Clone, Debug, Default)]
pub struct Verification {
    pub checked: u64,
    /// Positions whose stored value disagrees with their successors'.
    pub inconsistent: u64,
    /// Stored values of the positions checked: draws, wins, losses.
    pub counts: [u64; 3],
    /// The first few inconsistent positions (FEN and values).
    pub examples: Vec<String>,
    /// With distances loaded: won or lost positions (every eighth checked) whose
    /// distance was checked against their successors', and those that disagree.
    pub distance_checked: u64,
    pub distance_inconsistent: u64,
}

const MAGIC: &[u8] = b"tammi endgame database v4\n";
/// Bytes of the header's variant name (its canonical name, padded with spaces).
const NAME_BYTES: usize = 16;
/// The start of every slice's section in a file.
const SECTION: &[u8] = b"SLCE";
/// Decoded blocks kept for probes (a direct-mapped cache of this many blocks).
const CACHE_BLOCKS: usize = 512;

/// One slice's values.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Table {
    /// While building: both sides to move, two bits a position, four to a byte (the
    /// slices built later look up both).
    Full(Vec<u8>),
    /// Built: White to move, coded in blocks (see [`compress`]) with the slice's `code`;
    /// a position where White must capture holds no value of its own. (The distance
    /// tables, bytes coded without a slice code, have none.)
    Coded {
        offsets: Vec<u32>,
        data: Vec<u8>,
        code: Option<Box<compress::Code>>,
    },
}

impl Table {
    fn bytes(&self) -> usize {
        match self {
            Table::Full(t) => t.len(),
            Table::Coded { offsets, data, .. } => data.len() + 4 * offsets.len(),
        }
    }

    /// A slice's values as [`compress::encode`] codes them (None if `data` does not start
    /// with a code, or the first block not after it).
    fn values(offsets: Vec<u32>, data: Vec<u8>) -> Option<Table> {
        let code = compress::Code::read(&data)?;
        if offsets.first() != Some(&(compress::CODE_BYTES as u32)) {
            return None;
        }
        Some(Table::Coded {
            offsets,
            data,
            code: Some(Box::new(code)),
        })
    }
}

/// A decoded block: its key (slice id and block number), and its positions' values.
struct CachedBlock {
    key: u64,
    values: Box<[u8; BLOCK]>,
}

/// The database: one table per slice, and the block cache of its probes.
pub struct Database {
    variant: Variant,
    max_pieces: usize,
    tables: Vec<Option<Table>>,
    geo: Box<Geometry>,
    cache: Vec<Mutex<CachedBlock>>,
    /// Distance to conversion of each slice of 2 to `distance_pieces` pieces (0: none),
    /// coded bytes (see [`distance`]).
    distances: Vec<Option<Table>>,
    distance_pieces: usize,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Database({}, {} pieces, {} bytes)",
            self.variant,
            self.max_pieces,
            self.bytes()
        )
    }
}

fn pack(values: impl ExactSizeIterator<Item = Wld>) -> Vec<u8> {
    let mut out = vec![0u8; values.len().div_ceil(4)];
    for (i, v) in values.enumerate() {
        out[i / 4] |= v.bits() << (2 * (i % 4));
    }
    out
}

#[inline(always)]
fn unpack(table: &[u8], i: usize) -> Wld {
    Wld::from_bits((table[i / 4] >> (2 * (i % 4))) & 3)
}

/// A slice's White-to-move values, one byte each (two bits' worth, don't-cares
/// included), from its table in memory or its coded blocks.
fn white_values(table: &Table, positions: usize) -> Vec<u8> {
    match table {
        Table::Full(t) => (0..positions).map(|i| unpack(t, 2 * i).bits()).collect(),
        Table::Coded {
            offsets,
            data,
            code,
        } => {
            use rayon::prelude::*;
            let code = code.as_ref().expect("a table of values");
            let mut out = vec![0u8; positions];
            // On every thread: a resumed 10x10 build decodes gigabytes of these.
            out.par_chunks_mut(BLOCK)
                .enumerate()
                .for_each(|(b, chunk)| {
                    let coded = &data[offsets[b] as usize..offsets[b + 1] as usize];
                    assert!(
                        compress::decode_block(code, coded, chunk),
                        "a checked table"
                    );
                });
            out
        }
    }
}

/// Every index of `slice`, both sides to move (a draw where an index is no position),
/// packed two bits a position as a [`Table::Full`] holds them: a position with a capture
/// resolved through `db`'s probes of the slices it reaches, any other read by `white`
/// from its White-to-move form (Black to move: the colours exchanged and the board
/// turned round, a position of the mirror slice). Packed as they are made: a 10x10
/// six-piece slice has billions of positions.
fn both_sides<P: EgdbBoard>(
    db: &Database,
    slice: &Slice,
    white: impl Fn(&Squares) -> Wld + Sync,
) -> Vec<u8> {
    /// Bytes (four positions each) per parallel work unit.
    const CHUNK_BYTES: usize = 1 << 12;
    let geo = &db.geo;
    let size = geo.size(slice) as usize;
    let value = |i: usize| {
        let Some(sq) = geo.decode(slice, i as u64) else {
            return Wld::Draw;
        };
        let pos: P = geo.position(&sq);
        if pos.has_capture() {
            return db.probe(&pos).expect("captures lead to slices before");
        }
        if sq.side == Color::White {
            white(&sq)
        } else {
            white(&geo.flipped(&sq))
        }
    };
    let mut packed = vec![0u8; size.div_ceil(4)];
    parallel::for_each_chunk_mut(&mut packed, CHUNK_BYTES, &|c, bytes| {
        for (b, byte) in bytes.iter_mut().enumerate() {
            let first = 4 * (c * CHUNK_BYTES + b);
            *byte = (first..(first + 4).min(size))
                .enumerate()
                .fold(0u8, |byte, (k, i)| byte | value(i).bits() << (2 * k));
        }
    });
    packed
}

/// A stored slice's White-to-move values packed two bits a position (don't-cares
/// included): read with [`unpack`] at the index halved.
fn packed_white_values(table: &Table, positions: usize) -> Vec<u8> {
    use rayon::prelude::*;
    white_values(table, positions)
        .par_chunks(4)
        .map(|four| {
            four.iter()
                .enumerate()
                .fold(0u8, |byte, (k, v)| byte | (v & 3) << (2 * k))
        })
        .collect()
}

thread_local! {
    /// Move lists for resolving captures at probe time, one per depth of the capture
    /// search and board type: probes allocate only the first time.
    static MOVE_LISTS: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` with a move list of `B` from this thread's pool.
fn with_move_list<B: Bits, R>(f: impl FnOnce(&mut MoveList<B>) -> R) -> R {
    let taken = MOVE_LISTS.with(|pool| {
        let mut pool = pool.borrow_mut();
        let i = pool.iter().position(|l| l.is::<MoveList<B>>())?;
        pool.swap_remove(i).downcast::<MoveList<B>>().ok()
    });
    let mut list = taken.unwrap_or_default();
    let r = f(&mut list);
    MOVE_LISTS.with(|pool| pool.borrow_mut().push(list));
    r
}

/// Bytes of a slice's table, White to move only (the side is the index's low bit).
fn stored_len(geo: &Geometry, slice: &Slice) -> usize {
    (geo.size(slice) as usize / 2).div_ceil(4)
}

/// The piece counts a database of `variant` may hold, or why it has none.
pub fn check_request(variant: Variant, max_pieces: usize) -> Result<()> {
    if let Some(why) = unsupported(variant) {
        bail!("{why}; databases exist for {}", supported_names());
    }
    if !(2..=MAX_PIECES).contains(&max_pieces) {
        bail!("a {variant} endgame database holds 2 to {MAX_PIECES} pieces, not {max_pieces}");
    }
    Ok(())
}

/// Every slice of a database of `max_pieces`, in build (and file) order.
fn all_slices(max_pieces: usize) -> Vec<Slice> {
    (2..=max_pieces).flat_map(Slice::with_pieces).collect()
}

impl Database {
    fn empty(variant: Variant, max_pieces: usize) -> Database {
        Database {
            variant,
            max_pieces,
            tables: vec![None; Slice::ID_LIMIT],
            cache: (0..CACHE_BLOCKS)
                .map(|_| {
                    Mutex::new(CachedBlock {
                        key: u64::MAX,
                        values: Box::new([0; BLOCK]),
                    })
                })
                .collect(),
            geo: Box::new(crate::with_egdb_board!(variant, P => Geometry::of::<P>())),
            distances: vec![None; Slice::ID_LIMIT],
            distance_pieces: 0,
        }
    }

    /// The variant whose positions the database holds.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The geometry of the database's board.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The largest piece count held.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// Memory the tables take.
    pub fn bytes(&self) -> usize {
        self.tables.iter().flatten().map(Table::bytes).sum()
    }

    /// Build every slice of 2 to `max_pieces` pieces (at most 7) of `variant`, calling
    /// `progress` after each with (slice, slices done, slices in all). The progress
    /// functions of the builders are `dyn`: a closure's own type would make the builder
    /// generic, compiled again with every variant's code in each crate that calls it.
    pub fn build(
        variant: Variant,
        max_pieces: usize,
        progress: &mut dyn FnMut(&Slice, usize, usize),
    ) -> Result<Database> {
        check_request(variant, max_pieces)?;
        Ok(crate::with_egdb_board!(variant, P => Database::build_for::<P>(max_pieces, progress)))
    }

    fn build_for<P: EgdbBoard>(
        max_pieces: usize,
        mut progress: impl FnMut(&Slice, usize, usize),
    ) -> Database {
        let mut db = Database::empty(P::VARIANT, max_pieces);
        let slices = all_slices(max_pieces);
        let geo = Geometry::with_unmoves::<P>();
        for (k, slice) in slices.iter().enumerate() {
            let values = build::solve_slice::<P>(&db, &geo, slice);
            db.tables[slice.id()] = Some(Table::Full(pack(values.into_iter())));
            progress(slice, k + 1, slices.len());
        }
        let coded: Vec<Table> = slices.iter().map(|s| db.coded::<P>(s)).collect();
        for (slice, table) in slices.iter().zip(coded) {
            db.set_table(slice, table);
        }
        db
    }

    /// Put in a slice's table, and forget the cached blocks (they may be its old ones).
    fn set_table(&mut self, slice: &Slice, table: Table) {
        self.tables[slice.id()] = Some(table);
        self.clear_cache();
    }

    /// Forget the cached blocks.
    fn clear_cache(&mut self) {
        for entry in &mut self.cache {
            entry.get_mut().unwrap_or_else(|e| e.into_inner()).key = u64::MAX;
        }
    }

    /// The stored form of a slice built in full: White to move, a position where White
    /// must capture (or an index that is no position) left as "don't care".
    fn coded<P: EgdbBoard>(&self, slice: &Slice) -> Table {
        let Some(Table::Full(full)) = &self.tables[slice.id()] else {
            panic!("{slice:?} is not built in full");
        };
        let n = self.geo.size(slice) as usize / 2;
        let mut values = vec![DONT_CARE; n];
        parallel::for_each_chunk_mut(&mut values, BLOCK, &|b, chunk| {
            for (k, v) in chunk.iter_mut().enumerate() {
                let i = b * BLOCK + k;
                if let Some(sq) = self.geo.decode(slice, 2 * i as u64)
                    && !self.geo.position::<P>(&sq).has_capture()
                {
                    *v = unpack(full, 2 * i).bits();
                }
            }
        });
        let (offsets, data) = compress::encode(&values);
        Table::values(offsets, data).expect("a coded table")
    }

    /// The value of `sq` if the database holds it, for a position where the side to
    /// move has no capture (a built table holds no value for the others: see
    /// [`Database::probe`]).
    #[inline]
    pub fn probe_squares(&self, sq: &Squares) -> Option<Wld> {
        let slice = sq.slice();
        if slice.side_pieces(sq.side) == 0 {
            return Some(Wld::Loss);
        }
        if slice.side_pieces(sq.side.opposite()) == 0 {
            return Some(Wld::Win);
        }
        if slice.pieces() > self.max_pieces {
            return None;
        }
        if let Table::Full(t) = self.tables[slice.id()].as_ref()? {
            return Some(unpack(t, self.geo.index(sq) as usize));
        }
        // Stored: White to move; Black to move is the same as White to move with the
        // colours exchanged and the board turned (a slice with the counts exchanged).
        let white = if sq.side == Color::White {
            *sq
        } else {
            self.geo.flipped(sq)
        };
        let slice = white.slice();
        match self.tables[slice.id()].as_ref()? {
            Table::Full(t) => Some(unpack(t, self.geo.index(sq) as usize)),
            Table::Coded {
                offsets,
                data,
                code,
            } => {
                let code = code.as_deref()?;
                let i = self.geo.index(&white) as usize / 2;
                let (block, k) = (i / BLOCK, i % BLOCK);
                let coded = data.get(offsets[block] as usize..offsets[block + 1] as usize)?;
                let key = (slice.id() as u64) << 40 | block as u64;
                let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize % CACHE_BLOCKS;
                let v = match self.cache[slot].try_lock() {
                    Ok(mut entry) => {
                        if entry.key != key {
                            let len = BLOCK.min(self.geo.size(&slice) as usize / 2 - block * BLOCK);
                            entry.key = u64::MAX;
                            if !compress::decode_block(code, coded, &mut entry.values[..len]) {
                                return None;
                            }
                            entry.key = key;
                        }
                        entry.values[k]
                    }
                    // Another thread has the slot: read the value straight from the code.
                    Err(_) => compress::value_at(code, coded, k)?,
                };
                Some(Wld::from_bits(v))
            }
        }
    }

    /// The value of `pos` if the database holds it: a position of the database's
    /// variant with at most its piece count (any other gets None). A position with a
    /// capture is resolved by searching its captures (the rules core's) to positions
    /// without one.
    #[inline]
    pub fn probe<P: Board>(&self, pos: &P) -> Option<Wld> {
        if P::VARIANT != self.variant
            || (pos.white() | pos.black()).count() as usize > self.max_pieces
        {
            return None;
        }
        if !pos.has_capture() {
            return self.probe_squares(&self.geo.squares(pos));
        }
        with_move_list::<P::B, _>(|moves| {
            pos.generate(moves);
            let (mut win, mut all_won) = (false, true);
            for m in moves.iter() {
                match self.probe(&pos.play(m))? {
                    Wld::Loss => win = true,
                    Wld::Win => {}
                    Wld::Draw => all_won = false,
                }
            }
            Some(if win {
                Wld::Win
            } else if all_won {
                Wld::Loss
            } else {
                Wld::Draw
            })
        })
    }

    /// The header and sizes, one line each, for `tammi egdb info`.
    pub fn describe(&self) -> Vec<String> {
        let slices = all_slices(self.max_pieces);
        let mut out = vec![
            format!("variant: {}", self.variant),
            format!("pieces: 2 to {}", self.max_pieces),
            format!("slices: {}", slices.len()),
        ];
        for n in 2..=self.max_pieces {
            let of_n: Vec<&Slice> = slices.iter().filter(|s| s.pieces() == n).collect();
            let positions: u64 = of_n.iter().map(|s| self.geo.size(s) / 2).sum();
            let bytes: usize = of_n
                .iter()
                .map(|s| self.tables[s.id()].as_ref().map_or(0, Table::bytes))
                .sum();
            let plain: usize = of_n.iter().map(|s| stored_len(&self.geo, s)).sum();
            let distances: usize = of_n
                .iter()
                .map(|s| self.distances[s.id()].as_ref().map_or(0, Table::bytes))
                .sum();
            let distances = if n <= self.distance_pieces {
                format!(", distances {distances} bytes")
            } else {
                String::new()
            };
            out.push(format!(
                "{n} pieces: {} slices, {positions} indices (White to move), {bytes} bytes \
                 ({plain} at two bits a position){distances}",
                of_n.len()
            ));
        }
        let plain: usize = slices.iter().map(|s| stored_len(&self.geo, s)).sum();
        out.push(format!(
            "total: {} bytes ({plain} at two bits a position)",
            self.bytes()
        ));
        out.push(if self.distance_pieces == 0 {
            "distance to conversion: none (tammi egdb distance writes FILE.dtc)".to_string()
        } else {
            format!(
                "distance to conversion: 2 to {} pieces, {} bytes",
                self.distance_pieces,
                self.distance_bytes()
            )
        });
        out
    }

    /// Write the database to `path`.
    pub fn save(&self, path: &Path) -> Result<()> {
        let f =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        self.write_to(f)
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Write the database to an open file (see [`Database::save`]).
    pub fn write_to(&self, file: std::fs::File) -> Result<()> {
        let mut f = std::io::BufWriter::new(file);
        f.write_all(MAGIC)?;
        f.write_all(format!("{:<NAME_BYTES$}", self.variant.name()).as_bytes())?;
        f.write_all(&[self.max_pieces as u8])?;
        for slice in all_slices(self.max_pieces) {
            let Some(Table::Coded { offsets, data, .. }) = &self.tables[slice.id()] else {
                panic!("{slice:?} is not built");
            };
            write_section(&mut f, &slice, self.geo.size(&slice) / 2, offsets, data)?;
        }
        f.flush()?;
        Ok(())
    }

    /// Check `samples` positions, drawn at random (a slice, then a position of it, both
    /// sides to move; the same `seed` draws the same ones), against their successors: a
    /// win needs a move to a lost position, a loss needs every move to reach a won one
    /// (or no move), anything else is a draw. A damaged or wrongly built file breaks
    /// this somewhere; a sound one never does. With distances loaded, every eighth won
    /// or lost position's distance is checked the same way (see
    /// [`distance`]: the best of its moves' plus one).
    pub fn verify(&self, samples: u64, seed: u64) -> Verification {
        crate::with_egdb_board!(self.variant, P => self.verify_for::<P>(samples, seed))
    }

    /// Random positions of the database: a slice, then a position of it, both sides to
    /// move (the same `seed` draws the same ones).
    fn sampler<P: EgdbBoard>(&self, seed: u64) -> impl FnMut() -> (Slice, P) + '_ {
        let slices = all_slices(self.max_pieces);
        // xorshift64*: quality enough to spread samples.
        let mut rng = crate::rng::XorShift64Star::seeded(seed);
        let mut next = move || rng.next_u64();
        move || loop {
            let slice = slices[(next() % slices.len() as u64) as usize];
            // An index that is no position (two men on one square) is drawn again.
            if let Some(sq) = self.geo.decode(&slice, next() % self.geo.size(&slice)) {
                return (slice, self.geo.position(&sq));
            }
        }
    }

    /// Probes a second, measured on `probes` random positions (as [`Database::verify`]
    /// draws them): first each probed once, its block mostly not in the cache (`cold`),
    /// then a set of 256 of them probed over and over until `probes` probes are done,
    /// their blocks decoded and cached by then (`warm`: what the search's probes of
    /// nearby positions cost).
    pub fn probe_speed(&self, probes: u64, seed: u64) -> ProbeSpeed {
        crate::with_egdb_board!(self.variant, P => self.probe_speed_for::<P>(probes, seed))
    }

    fn probe_speed_for<P: EgdbBoard>(&self, probes: u64, seed: u64) -> ProbeSpeed {
        let mut draw = self.sampler::<P>(seed);
        let positions: Vec<P> = (0..probes).map(|_| draw().1).collect();
        let mut found = 0u64;
        let start = std::time::Instant::now();
        for p in &positions {
            found += u64::from(self.probe(p).is_some());
        }
        let cold = probes as f64 / start.elapsed().as_secs_f64().max(1e-9);
        let set = &positions[..positions.len().min(256)];
        for p in set {
            found += u64::from(self.probe(p).is_some());
        }
        let start = std::time::Instant::now();
        for p in set.iter().cycle().take(probes as usize) {
            found += u64::from(self.probe(p).is_some());
        }
        let warm = probes as f64 / start.elapsed().as_secs_f64().max(1e-9);
        ProbeSpeed {
            cold,
            warm,
            answered: found,
        }
    }

    fn verify_for<P: EgdbBoard>(&self, samples: u64, seed: u64) -> Verification {
        let mut draw = self.sampler::<P>(seed);
        let mut out = Verification::default();
        let mut moves = Vec::new();
        while out.checked < samples {
            let (slice, pos): (Slice, P) = draw();
            let stored = self.probe(&pos).expect("a slice of this database");
            pos.generate(&mut moves);
            let mut win = false;
            let mut all_won = true;
            for m in &moves {
                match self.probe(&pos.play(m)) {
                    Some(Wld::Loss) => win = true,
                    Some(Wld::Win) => {}
                    _ => all_won = false,
                }
            }
            let implied = if win {
                Wld::Win
            } else if all_won {
                Wld::Loss
            } else {
                Wld::Draw
            };
            out.checked += 1;
            out.counts[stored.bits() as usize] += 1;
            // A distance costs a few hundred probes to check: every eighth position.
            if out.checked % 8 == 0 && stored != Wld::Draw && slice.pieces() <= self.distance_pieces
            {
                out.distance_checked += 1;
                if let Some(why) = self.distance_disagrees(&pos, stored == Wld::Win) {
                    out.distance_inconsistent += 1;
                    if out.examples.len() < 5 {
                        out.examples.push(format!(
                            "{}: {why}",
                            crate::notation::write_fen(&pos, P::VARIANT.default_notation())
                        ));
                    }
                }
            }
            if implied != stored {
                out.inconsistent += 1;
                if out.examples.len() < 5 {
                    out.examples.push(format!(
                        "{}: stored {stored:?}, its moves give {implied:?}",
                        crate::notation::write_fen(&pos, P::VARIANT.default_notation())
                    ));
                }
            }
        }
        out
    }

    /// Read a database written by [`Database::save`].
    pub fn load(path: &Path) -> Result<Database> {
        Database::open(path)?.read()
    }

    /// Check that `path` is a database file and open it, reading only its header: what
    /// can be wrong with a file is found at once, and [`Unread::read`] then reads the
    /// tables (the slow part, which a caller may leave to another thread).
    ///
    /// Anything but a regular file is refused before it is opened: opening a FIFO
    /// blocks until some other process writes to it, and a device never ends.
    pub fn open(path: &Path) -> Result<Unread> {
        let reading = || format!("reading the endgame database {}", path.display());
        let meta = std::fs::metadata(path).with_context(reading)?;
        if !meta.is_file() {
            let kind = special_file_kind(&meta.file_type());
            bail!(
                "the endgame database {} is {kind}; expected a file written by tammi egdb build",
                path.display()
            );
        }
        let file = std::fs::File::open(path).with_context(reading)?;
        let size = file.metadata().with_context(reading)?.len();
        // Read straight into the tables: the file is never held twice in memory.
        let mut f = std::io::BufReader::new(file);
        let bad = |why: &str| {
            anyhow::anyhow!("{} is not a tammi endgame database: {why}", path.display())
        };
        let mut header = vec![0u8; MAGIC.len() + NAME_BYTES + 1];
        if f.read_exact(&mut header).is_err() || !header.starts_with(MAGIC) {
            // The same words with another version: an earlier format, not damage.
            if header.starts_with(&MAGIC[..MAGIC.len() - 3]) && header[..MAGIC.len()] != *MAGIC {
                bail!(
                    "{} is a tammi endgame database of an earlier format (before the \
                     Huffman-coded blocks): build it again with this tammi",
                    path.display()
                );
            }
            return Err(bad("wrong header"));
        }
        let name = String::from_utf8_lossy(&header[MAGIC.len()..MAGIC.len() + NAME_BYTES]);
        let variant: Variant = name
            .trim()
            .parse()
            .map_err(|_| bad(&format!("unknown variant {:?}", name.trim())))?;
        let n = header[MAGIC.len() + NAME_BYTES] as usize;
        check_request(variant, n).map_err(|e| bad(&format!("{e:#}")))?;
        let distance = distance::distance_path(path);
        Ok(Unread {
            file: f,
            db: Box::new(Database::empty(variant, n)),
            path: path.to_path_buf(),
            left: size - header.len() as u64,
            distance: std::fs::symlink_metadata(&distance)
                .is_ok()
                .then_some(distance),
        })
    }
}

/// The database file that `path` names for `variant`: `path` itself when it is a file,
/// or, when it is a directory (one that holds the databases of several variants, as a
/// GUI's settings name one place for all of them), the database of `variant` in it with
/// the most pieces (`None` when it holds none of `variant`; the file names do not
/// matter, each file's header says what it is). Files in the directory that are not
/// databases (distance files, a build's `.part`, anything else) are passed over; a
/// directory that holds no database of any variant is an error, which names it.
pub fn locate(path: &Path, variant: Variant) -> Result<Option<std::path::PathBuf>> {
    let meta = std::fs::metadata(path)
        .with_context(|| format!("reading the endgame database {}", path.display()))?;
    if !meta.is_dir() {
        return Ok(Some(path.to_path_buf()));
    }
    let entries = std::fs::read_dir(path)
        .with_context(|| format!("listing the endgame database directory {}", path.display()))?;
    let mut names: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        // A build's OUT.part has a database's header but not its slices yet.
        .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "part"))
        .collect();
    // Equal piece counts are decided by the name, not by the directory's order.
    names.sort();
    let mut any = false;
    let mut best: Option<(usize, std::path::PathBuf)> = None;
    for p in names {
        // Only the header is read; a file that is not a database is not one of them.
        let Ok(unread) = Database::open(&p) else {
            continue;
        };
        any = true;
        if unread.variant() == variant && best.as_ref().is_none_or(|b| unread.max_pieces() > b.0) {
            best = Some((unread.max_pieces(), p));
        }
    }
    if !any {
        bail!(
            "the endgame database directory {} holds no file written by tammi egdb build",
            path.display()
        );
    }
    Ok(best.map(|b| b.1))
}

/// What a file that is not a regular file is, for the error message.
fn special_file_kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    "not a regular file"
}

/// A database file whose header has been checked and whose tables are still to be read
/// (see [`Database::open`]).
pub struct Unread {
    file: std::io::BufReader<std::fs::File>,
    /// The database, its tables not read yet (boxed: an `Unread` travels in the engine's
    /// messages, which stay small).
    db: Box<Database>,
    path: std::path::PathBuf,
    /// Bytes of the file after the header.
    left: u64,
    /// The distance file beside it (`FILE.dtc`), if there is one, to read with it.
    distance: Option<std::path::PathBuf>,
}

impl Unread {
    /// The largest piece count the file holds.
    pub fn max_pieces(&self) -> usize {
        self.db.max_pieces
    }

    /// The variant the file is for.
    pub fn variant(&self) -> Variant {
        self.db.variant
    }

    /// The distance file that [`Unread::read`] will read with the tables, if any.
    pub fn distance_file(&self) -> Option<&Path> {
        self.distance.as_deref()
    }

    /// Read the tables without the distance file beside them (to build a new one).
    pub fn without_distances(mut self) -> Unread {
        self.distance = None;
        self
    }

    /// Read the tables, and the distance file beside them if there is one: a damaged
    /// distance file fails the whole read (remove it, or build it again).
    pub fn read(mut self) -> Result<Database> {
        let mut db = *self.db;
        for slice in all_slices(db.max_pieces) {
            let (table, len) =
                read_section(&mut self.file, &db.geo, &slice, self.left).map_err(|why| {
                    anyhow::anyhow!(
                        "{} is not a sound tammi endgame database: slice {}: {why}",
                        self.path.display(),
                        slice.name()
                    )
                })?;
            self.left -= len;
            db.tables[slice.id()] = Some(table);
        }
        if self.left > 0 {
            bail!(
                "{} is not a sound tammi endgame database: {} trailing bytes",
                self.path.display(),
                self.left
            );
        }
        if let Some(d) = &self.distance {
            db.load_distances(d).with_context(|| {
                format!(
                    "the distance file beside {} (remove it, or write it again with tammi \
                     egdb distance)",
                    self.path.display()
                )
            })?;
        }
        Ok(db)
    }
}

/// Write one slice's section: `SLCE`, the slice's four counts, its positions (White to
/// move) as u64, its blocks as u32, its data's length as u64, the block offsets (u32
/// each), the data, and the FNV-1a checksum of all before it (u64). Little-endian.
fn write_section(
    f: &mut impl Write,
    slice: &Slice,
    positions: u64,
    offsets: &[u32],
    data: &[u8],
) -> std::io::Result<()> {
    write_tagged_section(f, SECTION, slice, positions, offsets, data)
}

/// [`write_section`] with another four-byte tag than `SLCE` (the distance file's).
fn write_tagged_section(
    f: &mut impl Write,
    tag: &[u8],
    slice: &Slice,
    positions: u64,
    offsets: &[u32],
    data: &[u8],
) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(24 + 4 * offsets.len());
    head.extend_from_slice(tag);
    head.extend_from_slice(&[slice.men[0], slice.kings[0], slice.men[1], slice.kings[1]]);
    head.extend_from_slice(&positions.to_le_bytes());
    head.extend_from_slice(&((offsets.len() - 1) as u32).to_le_bytes());
    head.extend_from_slice(&(data.len() as u64).to_le_bytes());
    for o in offsets {
        head.extend_from_slice(&o.to_le_bytes());
    }
    f.write_all(&head)?;
    f.write_all(data)?;
    f.write_all(&compress::checksum(&[&head, data]).to_le_bytes())
}

/// Read the section of `slice` (see [`write_section`]) with at most `left` bytes in the
/// file: the table and the bytes read, or what is wrong.
fn read_section(
    f: &mut impl Read,
    geo: &Geometry,
    slice: &Slice,
    left: u64,
) -> std::result::Result<(Table, u64), String> {
    let (table, len) = read_tagged_section(f, SECTION, geo, slice, left)?;
    let Table::Coded { offsets, data, .. } = table else {
        unreachable!("a section reads as a coded table")
    };
    let table = Table::values(offsets, data)
        .ok_or("the slice's code is not a code (the file is damaged)")?;
    Ok((table, len))
}

/// [`read_section`] of a section tagged `tag`.
fn read_tagged_section(
    f: &mut impl Read,
    tag: &[u8],
    geo: &Geometry,
    slice: &Slice,
    left: u64,
) -> std::result::Result<(Table, u64), String> {
    let truncated = |_| "truncated".to_string();
    let mut head = vec![0u8; 24];
    f.read_exact(&mut head).map_err(truncated)?;
    if &head[..4] != tag {
        return Err("no section header where one should start".into());
    }
    let counts = [slice.men[0], slice.kings[0], slice.men[1], slice.kings[1]];
    if head[4..8] != counts {
        return Err(format!("the section is of slice {:?}", &head[4..8]));
    }
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap());
    let positions = u64_at(8);
    let blocks = u32::from_le_bytes(head[16..20].try_into().unwrap()) as u64;
    if positions != geo.size(slice) / 2 || blocks != positions.div_ceil(BLOCK as u64) {
        return Err(format!("{positions} positions in {blocks} blocks"));
    }
    let mut rest = [0u8; 4];
    f.read_exact(&mut rest).map_err(truncated)?;
    head.extend_from_slice(&rest);
    let data_len = u64::from_le_bytes(head[20..28].try_into().unwrap());
    let total = 28 + 4 * (blocks + 1) + data_len + 8;
    if total > left {
        return Err("truncated".into());
    }
    let mut offsets_raw = vec![0u8; 4 * (blocks as usize + 1)];
    f.read_exact(&mut offsets_raw).map_err(truncated)?;
    head.extend_from_slice(&offsets_raw);
    let mut data = vec![0u8; data_len as usize];
    f.read_exact(&mut data).map_err(truncated)?;
    let mut sum = [0u8; 8];
    f.read_exact(&mut sum).map_err(truncated)?;
    if u64::from_le_bytes(sum) != compress::checksum(&[&head, &data]) {
        return Err("checksum mismatch (the file is damaged)".into());
    }
    let offsets: Vec<u32> = offsets_raw
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    if offsets.windows(2).any(|w| w[0] > w[1]) || *offsets.last().unwrap() as u64 != data_len {
        return Err("block offsets out of order".into());
    }
    Ok((
        Table::Coded {
            offsets,
            data,
            code: None,
        },
        total,
    ))
}

/// The 4-piece english and russian databases, built once for all the unit tests that
/// only read them (each build takes seconds), on a pool of 4 threads whatever the
/// machine (see `the_values_do_not_depend_on_the_threads`).
#[cfg(test)]
pub(crate) fn four_piece_database(variant: Variant) -> &'static Database {
    use std::sync::OnceLock;
    static ENGLISH: OnceLock<Database> = OnceLock::new();
    static RUSSIAN: OnceLock<Database> = OnceLock::new();
    let cell = match variant {
        Variant::English => &ENGLISH,
        Variant::Russian => &RUSSIAN,
        _ => panic!("no shared test database of {variant}"),
    };
    cell.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| Database::build(variant, 4, &mut |_, _, _| {}))
            .unwrap()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{ALL_VARIANTS, Board, Setup};
    use index::Pos;

    fn probe_fen(db: &Database, side: Color, white: &[(u32, bool)], black: &[(u32, bool)]) -> Wld {
        let bit = |(sq, k): &(u32, bool)| (Pos::bit_of_square(*sq).unwrap(), *k);
        let setup = Setup {
            side,
            white: white.iter().map(bit).collect(),
            black: black.iter().map(bit).collect(),
        };
        let p = Pos::from_setup(&setup).unwrap();
        db.probe(&p).unwrap()
    }

    #[test]
    fn retrograde_agrees_with_plain_iteration_up_to_four_pieces() {
        // Build with retrograde analysis, then solve every slice again by iterating to a
        // fixed point over the same smaller slices: the two must agree everywhere.
        let db = four_piece_database(Variant::English);
        let geo = Geometry::with_unmoves::<Pos>();
        let mut checked = 0;
        for slice in all_slices(4) {
            // The largest 4-piece slices take long by iteration; two-thirds of them still
            // cover men, kings and promotions.
            if geo.size(&slice) > 600_000 {
                continue;
            }
            let slow = build::solve_slice_by_iteration::<Pos>(db, &geo, &slice);
            for (i, v) in slow.iter().enumerate() {
                // Both sides to move: Black's through the flipped lookup.
                let Some(sq) = geo.decode(&slice, i as u64) else {
                    continue;
                };
                let pos: Pos = geo.position(&sq);
                assert_eq!(db.probe(&pos), Some(*v), "{slice:?} index {i}");
                checked += 1;
            }
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    /// Every position of 2 to `n` pieces of `P`, solved by plain iteration to a fixed
    /// point from `generate` and `play` alone: no predecessors, no symmetry, no order of
    /// slices; both sides to move. A position is won if a move reaches a lost one, lost
    /// if every move (or none) reaches a won one, and what is never decided is drawn.
    ///
    /// Each position's successors are found once (in parallel, slice by slice) and kept
    /// as numbers (a slice's first number plus the index), so that each sweep is lookups
    /// only; a sweep reads the values the same sweep has decided, which only shortens
    /// the iteration (values go from undecided to decided, never back).
    fn plain_solve<P: EgdbBoard>(geo: &Geometry, n: usize) -> Vec<(Slice, Vec<Wld>)> {
        /// A move that takes the opponent's last piece (a lost position for them).
        const TAKES_ALL: u32 = u32::MAX;
        const OPEN: u8 = 0;
        const WIN: u8 = 1;
        const LOSS: u8 = 2;
        const NOT_A_POSITION: u8 = 3;
        let slices = all_slices(n);
        let mut first = vec![0u64; Slice::ID_LIMIT];
        let mut total = 0u64;
        for s in &slices {
            first[s.id()] = total;
            total += geo.size(s);
        }
        assert!(
            total < TAKES_ALL as u64,
            "{total} positions: too many to number"
        );
        // Per slice: each index's successors (flat) and their count (u32::MAX: the
        // index is no position).
        let mut per_slice: Vec<(Vec<u32>, Vec<u32>)> = vec![Default::default(); slices.len()];
        parallel::for_each_chunk_mut(&mut per_slice, 1, &|k, out| {
            let s = &slices[k];
            let (mut succ, mut count) = (Vec::new(), Vec::new());
            let mut moves = Vec::new();
            for i in 0..geo.size(s) {
                let Some(sq) = geo.decode(s, i) else {
                    count.push(u32::MAX);
                    continue;
                };
                let pos: P = geo.position(&sq);
                pos.generate(&mut moves);
                for m in &moves {
                    let next = pos.play(m);
                    succ.push(if next.pieces(next.side()).is_empty() {
                        TAKES_ALL
                    } else {
                        let sq = geo.squares(&next);
                        (first[sq.slice().id()] + geo.index(&sq)) as u32
                    });
                }
                count.push(moves.len() as u32);
            }
            out[0] = (succ, count);
        });
        // Position p's successors are succ[end[p]..end[p + 1]].
        let mut value = Vec::with_capacity(total as usize);
        let mut end = Vec::with_capacity(total as usize + 1);
        end.push(0u64);
        let mut succ = Vec::new();
        for (s, c) in per_slice {
            let mut at = succ.len() as u64;
            for c in c {
                if c == u32::MAX {
                    value.push(NOT_A_POSITION);
                } else {
                    value.push(OPEN);
                    at += c as u64;
                }
                end.push(at);
            }
            succ.extend_from_slice(&s);
        }
        loop {
            let mut changed = false;
            for p in 0..value.len() {
                if value[p] != OPEN {
                    continue;
                }
                let (mut win, mut all_won) = (false, true);
                for &t in &succ[end[p] as usize..end[p + 1] as usize] {
                    let v = if t == TAKES_ALL {
                        LOSS
                    } else {
                        value[t as usize]
                    };
                    win |= v == LOSS;
                    all_won &= v == WIN;
                }
                if win || all_won {
                    value[p] = if win { WIN } else { LOSS };
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        slices
            .iter()
            .map(|s| {
                let at = first[s.id()] as usize;
                let values = value[at..at + geo.size(s) as usize]
                    .iter()
                    .map(|&v| match v {
                        WIN => Wld::Win,
                        LOSS => Wld::Loss,
                        _ => Wld::Draw,
                    })
                    .collect();
                (*s, values)
            })
            .collect()
    }

    /// Build `P`'s database of up to `n` pieces and compare every position with
    /// [`plain_solve`]; the counts of draws, wins and losses compared.
    fn agrees_with_the_plain_solver<P: EgdbBoard>(n: usize) -> [u64; 3] {
        let db = Database::build(P::VARIANT, n, &mut |_, _, _| {}).unwrap();
        let geo = Geometry::of::<P>();
        let mut counts = [0u64; 3];
        for (slice, values) in plain_solve::<P>(&geo, n) {
            for (i, v) in values.iter().enumerate() {
                let Some(sq) = geo.decode(&slice, i as u64) else {
                    continue;
                };
                assert_eq!(
                    db.probe(&geo.position::<P>(&sq)),
                    Some(*v),
                    "{} {slice:?} index {i}",
                    P::VARIANT
                );
                counts[v.bits() as usize] += 1;
            }
        }
        counts
    }

    #[test]
    fn every_variants_database_agrees_with_a_plain_fixed_point_solver() {
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| unsupported(*v).is_none())
        {
            let [draws, wins, losses] =
                crate::with_egdb_board!(v, P => agrees_with_the_plain_solver::<P>(3));
            // Every kind of result occurs (a wrong solver that called all draws fails).
            assert!(
                draws > 1000 && wins > 1000 && losses > 1000,
                "{v}: {draws} {wins} {losses}"
            );
        }
    }

    /// The same for 4 pieces: minutes in release, so these three run in `.ci/run`
    /// (`cargo test --release --lib -- --ignored four_piece`), each variant's counts and
    /// time printed.
    fn four_pieces_agree(variants: &[Variant]) {
        for &v in variants {
            assert!(unsupported(v).is_none(), "{v}");
            let t = std::time::Instant::now();
            let [draws, wins, losses] =
                crate::with_egdb_board!(v, P => agrees_with_the_plain_solver::<P>(4));
            eprintln!(
                "{v}, 4 pieces: {draws} drawn, {wins} won, {losses} lost, as the plain solver; {:.1} s",
                t.elapsed().as_secs_f64()
            );
            assert!(
                draws > 10_000 && wins > 10_000 && losses > 10_000,
                "{v}: {draws} {wins} {losses}"
            );
        }
    }

    /// The variants of the three 4-piece checks: the 8x8 diagonal ones, the 10x10 ones,
    /// turkish.
    const FOUR_PIECE_CHECKS: [&[Variant]; 3] = [
        &[
            Variant::English,
            Variant::Italian,
            Variant::Pool,
            Variant::Czech,
            Variant::Spanish,
            Variant::Thai,
            Variant::Russian,
            Variant::Brazilian,
        ],
        &[Variant::International, Variant::Killer],
        &[Variant::Turkish],
    ];

    #[test]
    #[ignore = "minutes in release; .ci/run runs it"]
    fn four_piece_databases_of_the_8x8_diagonal_variants_agree_with_the_plain_solver() {
        four_pieces_agree(FOUR_PIECE_CHECKS[0]);
    }

    #[test]
    #[ignore = "minutes in release; .ci/run runs it"]
    fn four_piece_databases_of_the_10x10_variants_agree_with_the_plain_solver() {
        four_pieces_agree(FOUR_PIECE_CHECKS[1]);
    }

    #[test]
    #[ignore = "minutes in release; .ci/run runs it"]
    fn the_four_piece_turkish_database_agrees_with_the_plain_solver() {
        four_pieces_agree(FOUR_PIECE_CHECKS[2]);
    }

    #[test]
    fn every_variant_with_a_database_has_a_four_piece_check() {
        for v in ALL_VARIANTS {
            let listed = FOUR_PIECE_CHECKS.iter().any(|c| c.contains(&v));
            assert_eq!(listed, unsupported(v).is_none(), "{v}");
        }
    }

    #[test]
    fn textbook_endings() {
        let db = four_piece_database(Variant::English);
        // A king against a king: drawn.
        assert_eq!(
            probe_fen(db, Color::White, &[(18, true)], &[(1, true)]),
            Wld::Draw
        );
        // Two kings against one: won for the two, whoever moves (no capture in sight).
        assert_eq!(
            probe_fen(db, Color::White, &[(18, true), (19, true)], &[(1, true)]),
            Wld::Win
        );
        assert_eq!(
            probe_fen(db, Color::Black, &[(18, true), (19, true)], &[(1, true)]),
            Wld::Loss
        );
        // A lone man against a king far away, its path clear: White to move crowns at
        // once (square 5 to 1) and it is a draw, not a loss.
        assert_eq!(
            probe_fen(db, Color::White, &[(5, false)], &[(32, true)]),
            Wld::Draw
        );
        // A man en prise: White's man on 14, Black's king on 9 and 18 empty; Black to
        // move takes it and wins.
        assert_eq!(
            probe_fen(db, Color::Black, &[(14, false)], &[(9, true)]),
            Wld::Win
        );
    }

    #[test]
    fn verification_passes_a_sound_database_and_catches_a_damaged_one() {
        // A copy of the shared database's tables (this test damages one), its cache empty.
        let shared = four_piece_database(Variant::English);
        let mut db = Database::empty(Variant::English, 4);
        db.tables = shared.tables.clone();
        let v = db.verify(50_000, 1);
        assert_eq!(v.checked, 50_000);
        assert_eq!(v.inconsistent, 0, "{:?}", v.examples);
        assert!(v.counts.iter().all(|&c| c > 1000), "{:?}", v.counts);
        // Call every position of one two-against-one slice a draw: most are wins or
        // losses, and the positions around them now disagree.
        let slice = Slice::with_pieces(3)
            .into_iter()
            .find(|s| s.kings == [2, 1] && s.men == [0, 0])
            .unwrap();
        let (offsets, data) = compress::encode(&vec![0; db.geo.size(&slice) as usize / 2]);
        db.set_table(&slice, Table::values(offsets, data).unwrap());
        let v = db.verify(50_000, 1);
        assert!(v.inconsistent > 100, "{v:?}");
        assert!(v.examples[0].contains("stored"), "{:?}", v.examples);
    }

    #[test]
    fn save_and_load_round_trip_and_reject_bad_files() {
        let db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        let dir = std::env::temp_dir().join(format!("tammi-egdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("e3.egdb");
        db.save(&path).unwrap();
        let back = Database::load(&path).unwrap();
        assert_eq!(back.tables, db.tables);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.pop().unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        bytes.push(last);
        // A damaged byte anywhere is found (never read as another value).
        let header = MAGIC.len() + NAME_BYTES + 1;
        for at in (header..bytes.len()).step_by(41) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            let err = Database::load(&path).unwrap_err().to_string();
            assert!(
                err.contains("not a sound tammi endgame database"),
                "{at}: {err}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(7);
        std::fs::write(&path, &longer).unwrap();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(err.contains("trailing"), "{err}");
        std::fs::write(&path, b"hello").unwrap();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(err.contains("wrong header"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
