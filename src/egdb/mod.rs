//! Endgame databases: the exact result (win, loss or draw for the side to move) of every
//! position with few pieces, found by retrograde analysis ([`build`]) and probed by the
//! search, for every variant of the rules core whose positions are their pieces alone and
//! whose board has at most 64 squares (see [`index::unsupported`]): english, italian and
//! the other short-king 8x8 games, russian and brazilian, international and killer,
//! turkish.
//!
//! One indexing ([`index`]) and one builder ([`build`]) serve every board: what differs
//! (squares, promotion rows, how pieces move) is read from the rules core. A database of
//! up to `n` pieces holds every material slice of 2 to `n` pieces, two bits a position,
//! White to move only: the rules treat the colours alike, so a position with Black to
//! move is looked up with the colours exchanged and the board turned round. The file
//! names its variant, and a database is only ever probed for positions of that variant.
//! The values ignore the draw counters (e.g. english's 40-move rule): like every
//! draughts database, they say what perfect play reaches, and the search keeps the
//! counters. There is no distance to the win yet.

pub mod build;
pub mod index;

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::rules::{Bits, Board, Color, Variant};
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
}

const MAGIC: &[u8] = b"tammi endgame database v2\n";
/// Bytes of the header's variant name (its canonical name, padded with spaces).
const NAME_BYTES: usize = 16;

/// The database: one packed table per slice, four positions a byte.
pub struct Database {
    variant: Variant,
    max_pieces: usize,
    /// While building, the tables hold both sides to move (the slices built later look
    /// up both); once built, White to move only.
    both_sides: bool,
    tables: Vec<Option<Vec<u8>>>,
    geo: Box<Geometry>,
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
            both_sides: false,
            tables: vec![None; Slice::ID_LIMIT],
            geo: Box::new(crate::with_egdb_board!(variant, P => Geometry::of::<P>())),
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
        self.tables.iter().flatten().map(Vec::len).sum()
    }

    /// Build every slice of 2 to `max_pieces` pieces (at most 6) of `variant`, calling
    /// `progress` after each with (slice, slices done, slices in all).
    pub fn build(
        variant: Variant,
        max_pieces: usize,
        progress: impl FnMut(&Slice, usize, usize),
    ) -> Result<Database> {
        check_request(variant, max_pieces)?;
        Ok(crate::with_egdb_board!(variant, P => Database::build_for::<P>(max_pieces, progress)))
    }

    fn build_for<P: EgdbBoard>(
        max_pieces: usize,
        mut progress: impl FnMut(&Slice, usize, usize),
    ) -> Database {
        let mut db = Database::empty(P::VARIANT, max_pieces);
        db.both_sides = true;
        let slices = all_slices(max_pieces);
        let geo = Geometry::with_unmoves::<P>();
        for (k, slice) in slices.iter().enumerate() {
            let values = build::solve_slice::<P>(&db, &geo, slice);
            db.tables[slice.id()] = Some(pack(values.into_iter()));
            progress(slice, k + 1, slices.len());
        }
        // Keep White to move (the even indices).
        for slice in &slices {
            let full = db.tables[slice.id()].take().expect("built");
            let half = (0..geo.size(slice) as usize / 2).map(|i| unpack(&full, 2 * i));
            db.tables[slice.id()] = Some(pack(half));
        }
        db.both_sides = false;
        db
    }

    /// The value of `sq` if the database holds it.
    #[inline]
    pub fn probe_squares(&self, sq: &Squares) -> Option<Wld> {
        if sq.side == Color::Black && !self.both_sides {
            return self.probe_squares(&self.geo.flipped(sq));
        }
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
        let table = self.tables[slice.id()].as_ref()?;
        let i = self.geo.index(sq) as usize;
        Some(unpack(table, if self.both_sides { i } else { i / 2 }))
    }

    /// The value of `pos` if the database holds it: a position of the database's
    /// variant with at most its piece count (any other gets None).
    #[inline]
    pub fn probe<P: Board>(&self, pos: &P) -> Option<Wld> {
        if P::VARIANT != self.variant
            || (pos.white() | pos.black()).count() as usize > self.max_pieces
        {
            return None;
        }
        self.probe_squares(&self.geo.squares(pos))
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
                .map(|s| self.tables[s.id()].as_ref().map_or(0, Vec::len))
                .sum();
            out.push(format!(
                "{n} pieces: {} slices, {positions} indices (White to move), {bytes} bytes",
                of_n.len()
            ));
        }
        out.push(format!("total: {} bytes", self.bytes()));
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
            f.write_all(self.tables[slice.id()].as_ref().expect("built"))?;
        }
        f.flush()?;
        Ok(())
    }

    /// Check `samples` positions, drawn at random (a slice, then a position of it, both
    /// sides to move; the same `seed` draws the same ones), against their successors: a
    /// win needs a move to a lost position, a loss needs every move to reach a won one
    /// (or no move), anything else is a draw. A damaged or wrongly built file breaks
    /// this somewhere; a sound one never does.
    pub fn verify(&self, samples: u64, seed: u64) -> Verification {
        crate::with_egdb_board!(self.variant, P => self.verify_for::<P>(samples, seed))
    }

    fn verify_for<P: EgdbBoard>(&self, samples: u64, seed: u64) -> Verification {
        let slices = all_slices(self.max_pieces);
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            // xorshift64*: quality enough to spread samples, no dependency.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut out = Verification::default();
        let mut moves = Vec::new();
        while out.checked < samples {
            let slice = &slices[(next() % slices.len() as u64) as usize];
            let Some(sq) = self.geo.decode(slice, next() % self.geo.size(slice)) else {
                continue; // an index that is no position (two men on one square)
            };
            let pos: P = self.geo.position(&sq);
            let stored = self.probe_squares(&sq).expect("a slice of this database");
            pos.generate(&mut moves);
            let mut win = false;
            let mut all_won = true;
            for m in &moves {
                match self.probe_squares(&self.geo.squares(&pos.play(m))) {
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
            return Err(bad("wrong header"));
        }
        let name = String::from_utf8_lossy(&header[MAGIC.len()..MAGIC.len() + NAME_BYTES]);
        let variant: Variant = name
            .trim()
            .parse()
            .map_err(|_| bad(&format!("unknown variant {:?}", name.trim())))?;
        let n = header[MAGIC.len() + NAME_BYTES] as usize;
        check_request(variant, n).map_err(|e| bad(&format!("{e:#}")))?;
        let empty = Database::empty(variant, n);
        let expected = header.len() as u64
            + all_slices(n)
                .iter()
                .map(|s| stored_len(&empty.geo, s) as u64)
                .sum::<u64>();
        if size < expected {
            return Err(bad("truncated"));
        }
        if size > expected {
            return Err(bad("trailing bytes"));
        }
        Ok(Unread {
            file: f,
            db: empty,
            path: path.to_path_buf(),
        })
    }
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
    /// The database, its tables not read yet.
    db: Database,
    path: std::path::PathBuf,
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

    /// Read the tables.
    pub fn read(mut self) -> Result<Database> {
        let mut db = self.db;
        for slice in all_slices(db.max_pieces) {
            let mut table = vec![0u8; stored_len(&db.geo, &slice)];
            self.file
                .read_exact(&mut table)
                .with_context(|| format!("reading the endgame database {}", self.path.display()))?;
            db.tables[slice.id()] = Some(table);
        }
        Ok(db)
    }
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
        let db = Database::build(Variant::English, 4, |_, _, _| {}).unwrap();
        let geo = Geometry::with_unmoves::<Pos>();
        let mut checked = 0;
        for slice in all_slices(4) {
            // The largest 4-piece slices take long by iteration; two-thirds of them still
            // cover men, kings and promotions.
            if geo.size(&slice) > 600_000 {
                continue;
            }
            let slow = build::solve_slice_by_iteration::<Pos>(&db, &geo, &slice);
            for (i, v) in slow.iter().enumerate() {
                // Both sides to move: Black's through the flipped lookup.
                let Some(sq) = geo.decode(&slice, i as u64) else {
                    continue;
                };
                assert_eq!(db.probe_squares(&sq), Some(*v), "{slice:?} index {i}");
                checked += 1;
            }
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    /// Every position of 2 to `n` pieces of `P`, solved by plain iteration to a fixed
    /// point from `generate` and `play` alone: no predecessors, no symmetry, no order of
    /// slices; both sides to move. A position is won if a move reaches a lost one, lost
    /// if every move (or none) reaches a won one, and what is never decided is drawn.
    fn plain_solve<P: EgdbBoard>(geo: &Geometry, n: usize) -> Vec<(Slice, Vec<Wld>)> {
        let slices = all_slices(n);
        let mut value: Vec<Vec<Option<Wld>>> = vec![Vec::new(); Slice::ID_LIMIT];
        for s in &slices {
            value[s.id()] = vec![None; geo.size(s) as usize];
        }
        let mut open: Vec<(Slice, u64, P)> = Vec::new();
        for s in &slices {
            for i in 0..geo.size(s) {
                if let Some(sq) = geo.decode(s, i) {
                    open.push((*s, i, geo.position(&sq)));
                }
            }
        }
        let mut moves = Vec::new();
        loop {
            let mut decided = Vec::new();
            open.retain(|(s, i, pos)| {
                pos.generate(&mut moves);
                let (mut win, mut all_won) = (false, true);
                for m in &moves {
                    let next = pos.play(m);
                    let v = if next.pieces(next.side()).is_empty() {
                        Some(Wld::Loss)
                    } else {
                        let sq = geo.squares(&next);
                        value[sq.slice().id()][geo.index(&sq) as usize]
                    };
                    match v {
                        Some(Wld::Loss) => win = true,
                        Some(Wld::Win) => {}
                        _ => all_won = false,
                    }
                }
                let v = if win {
                    Wld::Win
                } else if all_won {
                    Wld::Loss
                } else {
                    return true;
                };
                decided.push((*s, *i, v));
                false
            });
            if decided.is_empty() {
                break;
            }
            for (s, i, v) in decided {
                value[s.id()][i as usize] = Some(v);
            }
        }
        slices
            .iter()
            .map(|s| {
                let v = std::mem::take(&mut value[s.id()]);
                (*s, v.into_iter().map(|v| v.unwrap_or(Wld::Draw)).collect())
            })
            .collect()
    }

    #[test]
    fn every_variants_database_agrees_with_a_plain_fixed_point_solver() {
        fn check<P: EgdbBoard>(n: usize) -> [u64; 3] {
            let db = Database::build(P::VARIANT, n, |_, _, _| {}).unwrap();
            let geo = Geometry::of::<P>();
            let mut counts = [0u64; 3];
            for (slice, values) in plain_solve::<P>(&geo, n) {
                for (i, v) in values.iter().enumerate() {
                    let Some(sq) = geo.decode(&slice, i as u64) else {
                        continue;
                    };
                    assert_eq!(
                        db.probe_squares(&sq),
                        Some(*v),
                        "{} {slice:?} index {i}",
                        P::VARIANT
                    );
                    counts[v.bits() as usize] += 1;
                }
            }
            counts
        }
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| unsupported(*v).is_none())
        {
            let [draws, wins, losses] = crate::with_egdb_board!(v, P => check::<P>(3));
            // Every kind of result occurs (a wrong solver that called all draws fails).
            assert!(
                draws > 1000 && wins > 1000 && losses > 1000,
                "{v}: {draws} {wins} {losses}"
            );
        }
    }

    #[test]
    fn textbook_endings() {
        let db = Database::build(Variant::English, 4, |_, _, _| {}).unwrap();
        // A king against a king: drawn.
        assert_eq!(
            probe_fen(&db, Color::White, &[(18, true)], &[(1, true)]),
            Wld::Draw
        );
        // Two kings against one: won for the two, whoever moves (no capture in sight).
        assert_eq!(
            probe_fen(&db, Color::White, &[(18, true), (19, true)], &[(1, true)]),
            Wld::Win
        );
        assert_eq!(
            probe_fen(&db, Color::Black, &[(18, true), (19, true)], &[(1, true)]),
            Wld::Loss
        );
        // A lone man against a king far away, its path clear: White to move crowns at
        // once (square 5 to 1) and it is a draw, not a loss.
        assert_eq!(
            probe_fen(&db, Color::White, &[(5, false)], &[(32, true)]),
            Wld::Draw
        );
        // A man en prise: White's man on 14, Black's king on 9 and 18 empty; Black to
        // move takes it and wins.
        assert_eq!(
            probe_fen(&db, Color::Black, &[(14, false)], &[(9, true)]),
            Wld::Win
        );
    }

    #[test]
    fn verification_passes_a_sound_database_and_catches_a_damaged_one() {
        let mut db = Database::build(Variant::English, 4, |_, _, _| {}).unwrap();
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
        db.tables[slice.id()].as_mut().unwrap().fill(0);
        let v = db.verify(50_000, 1);
        assert!(v.inconsistent > 100, "{v:?}");
        assert!(v.examples[0].contains("stored"), "{:?}", v.examples);
    }

    #[test]
    fn save_and_load_round_trip_and_reject_bad_files() {
        let db = Database::build(Variant::English, 3, |_, _, _| {}).unwrap();
        let dir = std::env::temp_dir().join(format!("tammi-egdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("e3.egdb");
        db.save(&path).unwrap();
        let back = Database::load(&path).unwrap();
        assert_eq!(back.tables, db.tables);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        std::fs::write(&path, b"hello").unwrap();
        let err = Database::load(&path).unwrap_err().to_string();
        assert!(err.contains("wrong header"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
