//! Distance to conversion: how many plies a won database position needs, at best, to
//! reach the next conversion, and how long a lost one holds out before it.
//!
//! **Conversion** is a capture or a man's move (a step or a promotion): the moves that
//! reset the draw counters of every variant here (english's 40-move rule, the FMJD's
//! 25-move rule and 16/5-move endings, russian's 15-move rule) and that can never be
//! taken back. Between two conversions only kings move, so a won ending that keeps
//! converting is won within the counters whenever the distances fit under them.
//!
//! **The distance** (DTC, "moves to conversion" as Kingsrow has it, but counted in
//! plies) of a position that the win/loss/draw table calls won or lost, for the side to
//! move, is `1 + x` where `x` is the best over its moves (a conversion scores 0, a king's
//! quiet move the distance of the position it reaches):
//! - won: the least over the moves that keep the win (reach a position lost for the
//!   opponent, after a conversion by the win/loss/draw tables of the slice reached);
//! - lost: the greatest over every move (each reaches a position won for the opponent);
//! - a position with no move at all (lost on the spot) has distance 0.
//!
//! So a won position with a winning conversion has distance 1, and the winner's plan of
//! always playing a move of least distance converts within the stated plies whatever the
//! defence, into a position still won (a test plays it out). Values are plies, capped at
//! [`FAR`] ("255 or more"). Drawn positions have none.
//!
//! Built by retrograde analysis within each configuration of a slice's men (see
//! [`slice_distances`]), from the slice's win/loss/draw values alone
//! (the distances of other slices never enter): positions whose distance is decided
//! without a king move (winning conversions, no king move at all) come first, then
//! distance by distance each settled position is taken back one king move (the builder's
//! un-moves of the kings, [`super::build::for_each_king_predecessor`]):
//! a lost position at `d` makes its won predecessors `d + 1` (the first reached is the
//! least), and a won one counts down its lost predecessors' king moves, the last one
//! deciding `d + 1` (the greatest).
//!
//! Distances of 1 and 2 (92% of english's 5-piece won and lost positions, and every
//! position where the side to move must capture, whose moves all convert) are left out
//! of the file and found when probed by a two-ply search over the win/loss/draw probes:
//! a winning conversion at once, or a move to where the other side has only conversions.
//! The file holds the longer ones, which are what the draw rules are about; this keeps it
//! a fraction of the size (english 5 pieces: see docs/results.md).
//!
//! Stored beside the database as `FILE.dtc` (see [`distance_path`]): a header (magic line,
//! the variant's name in 16 bytes, the largest piece count, and the distance up to which
//! positions are searched rather than stored), then each slice's White-to-move distances
//! coded in blocks ([`compress::encode_bytes`]) in a section tagged `DIST` with its
//! checksum, as the database's slices are.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::build::for_each_king_predecessor;
use super::compress::{self, BLOCK, BYTE_DONT_CARE};
use super::index::{EgdbBoard, Geometry, Slice};
use super::{
    Database, NAME_BYTES, Table, Wld, all_slices, both_sides, packed_white_values,
    read_tagged_section, unpack, write_tagged_section,
};
use crate::parallel;
use crate::rules::{Bits, Board, Color, Move, Variant};

/// A stored distance meaning "this many plies or more".
pub const FAR: u8 = 255;
/// Distances up to this are found by a search when probed, not stored (most are: of
/// english's 5 pieces, 92 of every 100 won or lost positions have 1 or 2).
const SEARCHED: u8 = 2;
const MAGIC: &[u8] = b"tammi distance to conversion v1\n";
const SECTION: &[u8] = b"DIST";
/// Positions per parallel work unit.
const CHUNK: usize = 1 << 14;
/// No distance (yet): a draw, an index that is no position, or not settled.
const NONE: u16 = u16::MAX;

/// The distance file that goes with the database file `db`: its name with `.dtc` added
/// (`english5.egdb` and `english5.egdb.dtc`). The engine, `egdb probe` and `egdb info`
/// read it when it is there.
pub fn distance_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".dtc");
    PathBuf::from(name)
}

/// Whether `m`, played in `pos`, is a conversion: a capture or a man's move.
#[inline]
pub fn is_conversion<P: Board>(pos: &P, m: &Move<P::B>) -> bool {
    m.is_capture() || m.promote || (pos.kings() & P::B::bit(m.from as u32)).is_empty()
}

/// The distances of `slice` as they are stored: White to move, [`BYTE_DONT_CARE`] for
/// draws, indices that are no position and distances up to [`SEARCHED`], the others
/// capped at [`FAR`]; and the longest distance of the slice, either side to move. From
/// the win/loss/draw values of `db`, which holds the slice and every slice its
/// conversions reach. An error if the values contradict themselves (a won position with
/// no way to go on winning).
///
/// Only kings move between two conversions, so the distances of one configuration of
/// the men (a run of indices: the men are the index's leading digits) depend on that
/// configuration's positions alone, and on the win/loss/draw values of what its
/// conversions reach: each configuration is solved on its own, on any thread, in
/// memory the size of the configuration.
pub(crate) fn slice_distances<P: EgdbBoard>(
    db: &Database,
    geo: &Geometry,
    slice: &Slice,
) -> std::result::Result<(Vec<u16>, u16), String> {
    let size = geo.size(slice) as usize;
    // The slice's values, both sides to move, two bits each; Black's from the
    // colours-exchanged slice.
    let stored = |s: &Slice| {
        let table = db.tables[s.id()].as_ref().expect("a slice of the database");
        packed_white_values(table, geo.size(s) as usize / 2)
    };
    let (own, turned) = (stored(slice), stored(&geo.flipped_slice(slice)));
    let wld = both_sides::<P>(db, slice, |w| {
        let values = if w.slice() == *slice { &own } else { &turned };
        unpack(values, geo.index(w) as usize / 2)
    });
    drop((own, turned));
    let radices = geo.radices(slice);
    let block = (radices[2] * radices[3] * 2) as usize;
    let mut white = vec![BYTE_DONT_CARE; size / 2];
    let longest = parallel::max_over_chunks_mut(&mut white, block / 2, &|b, out| {
        block_distances::<P>(db, geo, slice, &radices, &wld, b * block, out)
    })?;
    Ok((white, longest))
}

/// One configuration of the men of [`slice_distances`]: the positions from `start`,
/// twice as many as `out` holds (both sides to move), whose White-to-move distances go
/// to `out` in their stored form. The longest distance, or what contradicts.
fn block_distances<P: EgdbBoard>(
    db: &Database,
    geo: &Geometry,
    slice: &Slice,
    radices: &[u64; 4],
    wld: &[u8],
    start: usize,
    out: &mut [u16],
) -> std::result::Result<u16, String> {
    let len = 2 * out.len();
    if geo.decode(slice, start as u64).is_none() {
        return Ok(0); // two men on one square: no position in the whole block
    }
    let value = |i: usize| unpack(wld, i);

    // 1. What is decided without a king move; the king moves of the lost positions.
    let mut dist = vec![NONE; len];
    let mut kings_left = vec![0u8; len];
    let first = |from: usize, dist: &mut [u16], kings_left: &mut [u8]| {
        let mut moves = Vec::new();
        for j in 0..dist.len() {
            let i = start + from + j;
            let v = value(i);
            if v != Wld::Win && v != Wld::Loss {
                continue;
            }
            let sq = geo.decode(slice, i as u64).expect("a valid index");
            let pos: P = geo.position(&sq);
            if pos.has_capture() {
                dist[j] = 1;
                continue;
            }
            pos.generate(&mut moves);
            let mut king_moves = 0u8;
            let mut winning_conversion = false;
            for m in &moves {
                if !is_conversion(&pos, m) {
                    king_moves += 1;
                } else if v == Wld::Win {
                    let after = pos.play(m);
                    let next = geo.squares(&after);
                    let reached = if next.slice() == *slice {
                        value(geo.index_with(radices, &next) as usize)
                    } else {
                        db.probe(&after).expect("a slice of the database")
                    };
                    winning_conversion |= reached == Wld::Loss;
                }
            }
            if v == Wld::Win {
                if winning_conversion {
                    dist[j] = 1;
                }
            } else if king_moves == 0 {
                dist[j] = if moves.is_empty() { 0 } else { 1 };
            } else {
                kings_left[j] = king_moves;
            }
        }
    };
    if len >= 4 * CHUNK {
        // A large configuration (kings alone, or one man): its first pass on every thread.
        parallel::for_each_chunk_pair_mut(&mut dist, &mut kings_left, CHUNK, &|c, d, k| {
            first(c * CHUNK, d, k)
        });
    } else {
        first(0, &mut dist, &mut kings_left);
    }

    // 2. Distance by distance, back along king moves, within the configuration.
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    for (l, &d) in dist.iter().enumerate() {
        if d <= 1 {
            levels[d as usize].push(l as u32);
        }
    }
    let mut d = 0;
    while d < levels.len() {
        let level = std::mem::take(&mut levels[d]);
        let mut next = Vec::new();
        for &l in &level {
            let sq = geo
                .decode(slice, (start + l as usize) as u64)
                .expect("a settled index is valid");
            let lost = value(start + l as usize) == Wld::Loss;
            for_each_king_predecessor::<P>(geo, &sq, |p| {
                let j = geo.index_with(radices, &p) as usize - start;
                if dist[j] != NONE {
                    return;
                }
                if lost {
                    // p wins by moving here; the first settled child is the nearest.
                    dist[j] = (d + 1) as u16;
                    next.push(j as u32);
                } else if value(start + j) == Wld::Loss {
                    kings_left[j] -= 1;
                    if kings_left[j] == 0 {
                        dist[j] = (d + 1) as u16;
                        next.push(j as u32);
                    }
                }
            });
        }
        if !next.is_empty() {
            if d + 1 >= NONE as usize - 1 {
                return Err(format!("slice {}: a distance past {d}", slice.name()));
            }
            if levels.len() < d + 2 {
                levels.push(Vec::new());
            }
            levels[d + 1].extend(next);
        }
        d += 1;
    }
    let mut longest = 0;
    for (l, &d) in dist.iter().enumerate() {
        let v = value(start + l);
        if d == NONE {
            if v == Wld::Win || v == Wld::Loss {
                let sq = geo
                    .decode(slice, (start + l) as u64)
                    .expect("a valid index");
                return Err(format!(
                    "slice {}: {} is {v:?} but never converts (the database contradicts itself)",
                    slice.name(),
                    crate::notation::write_fen(
                        &geo.position::<P>(&sq),
                        P::VARIANT.default_notation()
                    ),
                ));
            }
            continue;
        }
        longest = longest.max(d);
        if l % 2 == 0 && d > SEARCHED as u16 {
            // White to move (the index's low bit); the short distances (every capture
            // position's among them) are found by a search when probed.
            out[l / 2] = d.min(FAR as u16);
        }
    }
    Ok(longest)
}

/// What [`Database::build_distances`] reports after each slice.
pub struct DistanceProgress<'a> {
    pub slice: &'a Slice,
    pub done: usize,
    pub all: usize,
    /// The greatest distance in the slice (plies, before the cap); None for a slice read
    /// back from an earlier run.
    pub longest: Option<u16>,
}

impl Database {
    /// Compute the distance tables of every slice of 2 to `max_pieces` pieces (at most
    /// the database's), replacing any the database had.
    pub fn build_distances(
        &mut self,
        max_pieces: usize,
        progress: &mut dyn FnMut(&DistanceProgress),
    ) -> Result<()> {
        self.check_distance_pieces(max_pieces)?;
        let none = vec![None; Slice::ID_LIMIT];
        crate::with_egdb_board!(self.variant, P => {
            self.build_distances_for::<P>(max_pieces, none, |_, _, _| Ok(()), progress)
        })
    }

    /// [`build_distances`](Self::build_distances), each slice written to `out` as it is
    /// made: to `OUT.part`, renamed to `out` when whole. A run cut short (a crash, a
    /// session's end) is resumed from the sound sections at the start of `OUT.part`.
    pub fn build_distances_to(
        &mut self,
        max_pieces: usize,
        out: &Path,
        progress: &mut dyn FnMut(&DistanceProgress),
    ) -> Result<()> {
        use std::io::{Seek, SeekFrom};
        self.check_distance_pieces(max_pieces)?;
        let (mut file, part) = super::resume::open_partial(out)?;
        let header = self.distance_header(max_pieces);
        let mut done = vec![None; Slice::ID_LIMIT];
        let size = file.metadata()?.len();
        let mut end = 0;
        if size > 0 {
            let mut r = std::io::BufReader::new(&mut file);
            let mut head = vec![0u8; header.len()];
            if r.read_exact(&mut head).is_err() || head != header {
                bail!(
                    "{} is there but is not an earlier run of these distances ({} up to {} \
                     pieces); remove it to start afresh",
                    part.display(),
                    self.variant,
                    max_pieces
                );
            }
            end = header.len() as u64;
            for slice in all_slices(max_pieces) {
                // A section cut short or damaged by the interruption is made again.
                let Ok((table, len)) =
                    read_tagged_section(&mut r, SECTION, &self.geo, &slice, size - end)
                else {
                    break;
                };
                done[slice.id()] = Some(table);
                end += len;
            }
        }
        let writing = |e: std::io::Error| anyhow::anyhow!("writing {}: {e}", part.display());
        file.set_len(end).map_err(writing)?;
        file.seek(SeekFrom::Start(end)).map_err(writing)?;
        if end == 0 {
            file.write_all(&header).map_err(writing)?;
        }
        crate::with_egdb_board!(self.variant, P => {
            self.build_distances_for::<P>(max_pieces, done, |slice, n, table| {
                let Table::Coded { offsets, data, .. } = table else {
                    unreachable!("distances are coded")
                };
                let mut w = std::io::BufWriter::new(&mut file);
                write_tagged_section(&mut w, SECTION, slice, n, offsets, data)
                    .and_then(|()| w.flush())
                    .map_err(writing)?;
                drop(w);
                file.sync_data().map_err(writing)
            }, progress)
        })?;
        drop(file);
        std::fs::rename(&part, out)
            .with_context(|| format!("renaming {} to {}", part.display(), out.display()))
    }

    fn check_distance_pieces(&self, max_pieces: usize) -> Result<()> {
        if !(2..=self.max_pieces).contains(&max_pieces) {
            bail!(
                "distances of 2 to {max_pieces} pieces: this database holds 2 to {}",
                self.max_pieces
            );
        }
        Ok(())
    }

    /// The distance file's header: magic, variant, pieces, the distances searched.
    fn distance_header(&self, pieces: usize) -> Vec<u8> {
        let mut h = MAGIC.to_vec();
        h.extend_from_slice(format!("{:<NAME_BYTES$}", self.variant.name()).as_bytes());
        h.extend_from_slice(&[pieces as u8, SEARCHED]);
        h
    }

    /// The distances of the slices of 2 to `max_pieces` pieces in build order: those of
    /// `done` as they are, the others made and given to `made` (in order, with the
    /// slice's White-to-move positions) as each is finished.
    fn build_distances_for<P: EgdbBoard>(
        &mut self,
        max_pieces: usize,
        mut done: Vec<Option<Table>>,
        mut made: impl FnMut(&Slice, u64, &Table) -> Result<()>,
        mut progress: impl FnMut(&DistanceProgress),
    ) -> Result<()> {
        let geo = Geometry::with_unmoves::<P>();
        let slices = all_slices(max_pieces);
        let mut tables = vec![None; Slice::ID_LIMIT];
        for (k, slice) in slices.iter().enumerate() {
            let longest = if let Some(table) = done[slice.id()].take() {
                tables[slice.id()] = Some(table);
                None
            } else {
                let (white, longest) =
                    slice_distances::<P>(self, &geo, slice).map_err(anyhow::Error::msg)?;
                let (offsets, data) = compress::encode_bytes(&white);
                let table = Table::Coded {
                    offsets,
                    data,
                    code: None,
                };
                made(slice, geo.size(slice) / 2, &table)?;
                tables[slice.id()] = Some(table);
                Some(longest)
            };
            progress(&DistanceProgress {
                slice,
                done: k + 1,
                all: slices.len(),
                longest,
            });
        }
        self.distances = tables;
        self.distance_pieces = max_pieces;
        Ok(())
    }

    /// The largest piece count with distances (0: none loaded).
    pub fn distance_pieces(&self) -> usize {
        self.distance_pieces
    }

    /// Bytes the distance tables take.
    pub fn distance_bytes(&self) -> usize {
        self.distances.iter().flatten().map(Table::bytes).sum()
    }

    /// The distance to conversion of `pos` in plies ([`FAR`]: that or more), if it is won
    /// or lost and the distances of its slice are loaded (see the module doc).
    pub fn distance<P: Board>(&self, pos: &P) -> Option<u8> {
        if P::VARIANT != self.variant
            || (pos.white() | pos.black()).count() as usize > self.distance_pieces
        {
            return None;
        }
        if pos.pieces(pos.side()).is_empty() {
            return Some(0);
        }
        let won = match self.probe(pos)? {
            Wld::Draw => return None,
            v => v == Wld::Win,
        };
        if let Some(d) = self.searched_distance(pos, won, SEARCHED) {
            return Some(d);
        }
        let sq = self.geo.squares(pos);
        let white = if sq.side == Color::White {
            sq
        } else {
            self.geo.flipped(&sq)
        };
        let Table::Coded { offsets, data, .. } = self.distances[white.slice().id()].as_ref()?
        else {
            return None;
        };
        let i = self.geo.index(&white) as usize / 2;
        let coded = data.get(offsets[i / BLOCK] as usize..offsets[i / BLOCK + 1] as usize)?;
        compress::byte_at(coded, i % BLOCK)
    }

    /// The distance of `pos`, won or lost as `won` says, if it is at most `limit`: found
    /// by searching the moves by the definition (see the module doc) with the
    /// win/loss/draw probes. Two plies decide most positions of every slice: a winning
    /// conversion at once (1), or a move to a position whose side has nothing but
    /// conversions (2); the file holds only the others.
    fn searched_distance<P: Board>(&self, pos: &P, won: bool, limit: u8) -> Option<u8> {
        // Probed at the root only (a few times a search): a new list is cheap enough.
        let mut moves = Vec::new();
        pos.generate(&mut moves);
        if moves.is_empty() {
            return Some(0);
        }
        if limit == 0 {
            return None;
        }
        if won {
            let mut best: Option<u8> = None;
            for m in &moves {
                let after = pos.play(m);
                if self.probe(&after) != Some(Wld::Loss) {
                    continue;
                }
                if is_conversion(pos, m) {
                    return Some(1);
                }
                if let Some(d) = self.searched_distance(&after, false, limit - 1) {
                    best = Some(best.map_or(d, |b| b.min(d)));
                }
            }
            best.map(|d| d + 1)
        } else {
            let mut worst = 0;
            for m in moves.iter().filter(|m| !is_conversion(pos, m)) {
                worst = worst.max(self.searched_distance(&pos.play(m), true, limit - 1)?);
            }
            Some(worst + 1)
        }
    }

    /// The distance `m` scores for the side playing it from `pos`: 0 for a conversion,
    /// else the distance of the position it reaches (for the opponent). `None` if that
    /// position has none (not loaded, or drawn).
    pub fn move_distance<P: Board>(&self, pos: &P, m: &Move<P::B>) -> Option<u8> {
        if is_conversion(pos, m) {
            Some(0)
        } else {
            self.distance(&pos.play(m))
        }
    }

    /// Whether the distance of `pos` (won or lost as `won` says) disagrees with its
    /// moves' by the definition (see the module doc): what is wrong, if it does.
    pub(crate) fn distance_disagrees<P: Board>(&self, pos: &P, won: bool) -> Option<String> {
        let stored = self.distance(pos);
        let mut moves = Vec::new();
        pos.generate(&mut moves);
        let mut implied: Option<u16> = None;
        for m in &moves {
            if won && self.probe(&pos.play(m)) != Some(Wld::Loss) {
                continue;
            }
            let Some(d) = self.move_distance(pos, m) else {
                return Some(format!("a move ({}) without a distance", m.from));
            };
            let d = d as u16 + 1;
            implied = Some(match implied {
                None => d,
                Some(i) if won => i.min(d),
                Some(i) => i.max(d),
            });
        }
        // FAR is "that or more": one more than FAR is FAR.
        let implied = implied.map_or(0, |d| d.min(FAR as u16)) as u8;
        (stored != Some(implied))
            .then(|| format!("stored distance {stored:?}, its moves give {implied}"))
    }

    /// Write the distance tables to `path` (as `path.part`, renamed when whole).
    pub fn save_distances(&self, path: &Path) -> Result<()> {
        if self.distance_pieces == 0 {
            bail!("no distances to write");
        }
        let part = super::resume::partial_path(path);
        let file =
            std::fs::File::create(&part).with_context(|| format!("creating {}", part.display()))?;
        let mut f = std::io::BufWriter::new(file);
        let write = |f: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
            f.write_all(&self.distance_header(self.distance_pieces))?;
            for slice in all_slices(self.distance_pieces) {
                let Some(Table::Coded { offsets, data, .. }) = &self.distances[slice.id()] else {
                    panic!("{slice:?} has no distances");
                };
                let n = self.geo.size(&slice) / 2;
                write_tagged_section(f, SECTION, &slice, n, offsets, data)?;
            }
            f.flush()
        };
        write(&mut f).with_context(|| format!("writing {}", part.display()))?;
        drop(f);
        std::fs::rename(&part, path)
            .with_context(|| format!("renaming {} to {}", part.display(), path.display()))
    }

    /// Read the distance file `path` into the database, checking that it is one of the
    /// database's variant with at most its pieces, whole and undamaged: a bad file is
    /// refused (the database is left without distances), never half read.
    pub fn load_distances(&mut self, path: &Path) -> Result<()> {
        let bad = |why: &str| {
            anyhow::anyhow!(
                "{} is not a sound tammi distance file: {why}",
                path.display()
            )
        };
        let meta = std::fs::metadata(path)
            .with_context(|| format!("reading the distance file {}", path.display()))?;
        if !meta.is_file() {
            return Err(bad("not a regular file"));
        }
        let file = std::fs::File::open(path)
            .with_context(|| format!("reading the distance file {}", path.display()))?;
        let mut left = meta.len();
        let mut f = std::io::BufReader::new(file);
        let mut header = vec![0u8; MAGIC.len() + NAME_BYTES + 2];
        if f.read_exact(&mut header).is_err() || !header.starts_with(MAGIC) {
            return Err(bad("wrong header"));
        }
        left -= header.len() as u64;
        let name = String::from_utf8_lossy(&header[MAGIC.len()..MAGIC.len() + NAME_BYTES]);
        let variant: Variant = name
            .trim()
            .parse()
            .map_err(|_| bad(&format!("unknown variant {:?}", name.trim())))?;
        if variant != self.variant {
            return Err(bad(&format!(
                "its distances are of {variant}, the database's positions of {}",
                self.variant
            )));
        }
        let n = header[MAGIC.len() + NAME_BYTES] as usize;
        let searched = header[MAGIC.len() + NAME_BYTES + 1];
        if searched != SEARCHED {
            return Err(bad(&format!(
                "distances up to {searched} left to search, this tammi searches up to \
                 {SEARCHED} (write the file again)"
            )));
        }
        if !(2..=self.max_pieces).contains(&n) {
            return Err(bad(&format!(
                "distances of 2 to {n} pieces, the database holds 2 to {}",
                self.max_pieces
            )));
        }
        let mut tables = vec![None; Slice::ID_LIMIT];
        for slice in all_slices(n) {
            let (table, len) = read_tagged_section(&mut f, SECTION, &self.geo, &slice, left)
                .map_err(|why| bad(&format!("slice {}: {why}", slice.name())))?;
            left -= len;
            tables[slice.id()] = Some(table);
        }
        if left > 0 {
            return Err(bad(&format!("{left} trailing bytes")));
        }
        self.distances = tables;
        self.distance_pieces = n;
        Ok(())
    }
}

impl Geometry {
    /// The slice with the colours' counts exchanged (where its Black-to-move positions
    /// are stored).
    pub fn flipped_slice(&self, s: &Slice) -> Slice {
        Slice {
            men: [s.men[1], s.men[0]],
            kings: [s.kings[1], s.kings[0]],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::Squares;
    use super::*;
    use crate::rules::ALL_VARIANTS;
    use std::collections::HashMap;

    /// Every position of `geo`'s slices of 2 to `n` pieces, both sides to move: used by the
    /// tests below.
    fn every_position(geo: &Geometry, n: usize) -> Vec<Squares> {
        all_slices(n)
            .iter()
            .flat_map(|s| (0..geo.size(s)).filter_map(|i| geo.decode(s, i)))
            .collect()
    }

    type Key = (u64, u64, u64, Color);

    fn key(sq: &Squares) -> Key {
        (sq.white, sq.black, sq.kings, sq.side)
    }

    /// The distances by plain iteration, from `generate`, `play` and the database's
    /// win/loss/draw probes alone (no predecessors, no levels): round `k` settles, at
    /// distance `k`, every won position with a winning move that converts or reaches a
    /// lost position settled before, and every lost position all of whose moves convert
    /// or reach won positions settled before; until a round settles nothing.
    fn plain_distances<P: EgdbBoard>(db: &Database, geo: &Geometry, n: usize) -> HashMap<Key, u16> {
        let mut open: Vec<(P, Wld)> = every_position(geo, n)
            .iter()
            .map(|sq| geo.position::<P>(sq))
            .filter_map(|p| match db.probe(&p) {
                Some(Wld::Draw) => None,
                v => Some((p, v.unwrap())),
            })
            .collect();
        let mut settled: HashMap<Key, u16> = HashMap::new();
        let mut moves = Vec::new();
        for k in 0u16.. {
            let mut now = Vec::new();
            open.retain(|(pos, v)| {
                pos.generate(&mut moves);
                let done = |m: &Move<P::B>| {
                    is_conversion(pos, m) || settled.contains_key(&key(&geo.squares(&pos.play(m))))
                };
                let decided = if *v == Wld::Win {
                    k > 0
                        && moves
                            .iter()
                            .any(|m| db.probe(&pos.play(m)) == Some(Wld::Loss) && done(m))
                } else {
                    (k == 0 && moves.is_empty()) || (k > 0 && moves.iter().all(done))
                };
                if decided {
                    now.push(key(&geo.squares(pos)));
                }
                !decided
            });
            if now.is_empty() && k > 0 {
                break;
            }
            settled.extend(now.into_iter().map(|x| (x, k)));
        }
        assert!(
            open.is_empty(),
            "{} won or lost positions never settle",
            open.len()
        );
        settled
    }

    fn distances_match_plain_iteration<P: EgdbBoard>(n: usize, min_longest: u8) -> u64 {
        let mut db = Database::build(P::VARIANT, n, &mut |_, _, _| {}).unwrap();
        db.build_distances(n, &mut |_| {}).unwrap();
        let geo = Geometry::of::<P>();
        let plain = plain_distances::<P>(&db, &geo, n);
        let mut checked = 0;
        let mut longest = 0;
        for sq in every_position(&geo, n) {
            let pos: P = geo.position(&sq);
            let want = plain.get(&key(&sq)).map(|&d| d.min(FAR as u16) as u8);
            assert_eq!(db.distance(&pos), want, "{} {sq:?}", P::VARIANT);
            checked += want.is_some() as u64;
            longest = longest.max(want.unwrap_or(0));
        }
        // Long distances occur (a solver that stopped at the conversions fails).
        assert!(longest >= min_longest, "{}: longest {longest}", P::VARIANT);
        checked
    }

    #[test]
    fn english_distances_equal_a_plain_fixed_point_iteration() {
        assert!(
            distances_match_plain_iteration::<crate::rules::Position<crate::rules::English>>(3, 15)
                > 10_000
        );
    }

    #[test]
    fn russian_distances_equal_a_plain_fixed_point_iteration() {
        assert!(
            distances_match_plain_iteration::<crate::rules::Position<crate::rules::Russian>>(3, 7)
                > 10_000
        );
    }

    /// From `pos`, the winner always playing a move of least distance among those that
    /// keep the win, against every defence: a conversion comes within `budget` plies and
    /// leaves the winner won. `seen` holds the positions already shown to convert within
    /// a budget (the least one), so each is explored once.
    fn winner_converts_in_time<P: EgdbBoard>(
        db: &Database,
        geo: &Geometry,
        pos: &P,
        budget: u8,
        seen: &mut HashMap<Key, u8>,
    ) {
        assert!(budget >= 1, "no conversion within the distance");
        let k = key(&geo.squares(pos));
        if seen.get(&k).is_some_and(|&b| b <= budget) {
            return;
        }
        let mut moves = Vec::new();
        pos.generate(&mut moves);
        let m = moves
            .iter()
            .filter(|m| db.probe(&pos.play(m)) == Some(Wld::Loss))
            .min_by_key(|m| db.move_distance(pos, m).expect("a distance"))
            .expect("a won position has a winning move");
        if !is_conversion(pos, m) {
            let after = pos.play(m);
            let mut replies = Vec::new();
            after.generate(&mut replies);
            for r in &replies {
                let back = after.play(r);
                assert_eq!(db.probe(&back), Some(Wld::Win));
                if !is_conversion(&after, r) {
                    winner_converts_in_time(db, geo, &back, budget.saturating_sub(2), seen);
                }
            }
        }
        seen.insert(k, budget);
    }

    #[test]
    fn least_distance_play_converts_within_the_distance() {
        type P = crate::rules::Position<crate::rules::English>;
        let mut db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        db.build_distances(3, &mut |_| {}).unwrap();
        let geo = Geometry::of::<P>();
        let (mut starts, mut longest) = (0, 0);
        let mut seen = HashMap::new();
        for sq in every_position(&geo, 3) {
            let pos: P = geo.position(&sq);
            if db.probe(&pos) != Some(Wld::Win) {
                continue;
            }
            let d = db.distance(&pos).unwrap();
            longest = longest.max(d);
            winner_converts_in_time(&db, &geo, &pos, d, &mut seen);
            starts += 1;
        }
        assert!(starts > 10_000 && longest >= 15, "{starts} {longest}");
    }

    #[test]
    fn verification_checks_distances_and_catches_wrong_ones() {
        let mut db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        db.build_distances(3, &mut |_| {}).unwrap();
        let v = db.verify(20_000, 3);
        assert!(v.distance_checked > 1000, "{v:?}");
        assert_eq!(v.distance_inconsistent, 0, "{:?}", v.examples);
        // Two kings against one, every stored distance made 3: most are longer.
        let slice = Slice::with_pieces(3)
            .into_iter()
            .find(|s| s.kings == [2, 1] && s.men == [0, 0])
            .unwrap();
        let n = db.geo.size(&slice) as usize / 2;
        let (offsets, data) = compress::encode_bytes(&vec![3; n]);
        db.distances[slice.id()] = Some(Table::Coded {
            offsets,
            data,
            code: None,
        });
        let v = db.verify(20_000, 3);
        assert!(v.distance_inconsistent > 50, "{v:?}");
        assert!(
            v.examples.iter().any(|e| e.contains("stored distance")),
            "{:?}",
            v.examples
        );
    }

    #[test]
    fn every_variant_builds_distances() {
        for v in ALL_VARIANTS
            .into_iter()
            .filter(|v| super::super::unsupported(*v).is_none())
        {
            let mut db = Database::build(v, 3, &mut |_, _, _| {}).unwrap();
            db.build_distances(3, &mut |_| {}).unwrap();
            assert!(db.distance_bytes() > 0, "{v}");
        }
    }

    #[test]
    fn distance_files_round_trip_and_bad_ones_are_refused() {
        let mut db = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        db.build_distances(3, &mut |_| {}).unwrap();
        let dir = std::env::temp_dir().join(format!("tammi-dtc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("e3.egdb.dtc");
        db.save_distances(&path).unwrap();
        let mut back = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        back.load_distances(&path).unwrap();
        assert_eq!(back.distances, db.distances);
        let bytes = std::fs::read(&path).unwrap();
        let mut fresh = Database::build(Variant::English, 3, &mut |_, _, _| {}).unwrap();
        let mut refused = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let err = fresh.load_distances(&path).unwrap_err().to_string();
            assert_eq!(fresh.distance_pieces(), 0);
            err
        };
        // Cut short anywhere, damaged anywhere, or longer: refused.
        for cut in [bytes.len() - 1, bytes.len() / 2, 40, 0] {
            let err = refused(&bytes[..cut]);
            assert!(
                err.contains("not a sound tammi distance file"),
                "{cut}: {err}"
            );
        }
        for at in (MAGIC.len() + NAME_BYTES..bytes.len()).step_by(37) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x04;
            let err = refused(&bad);
            assert!(
                err.contains("not a sound tammi distance file"),
                "{at}: {err}"
            );
        }
        let err = refused(&[bytes.as_slice(), &[0]].concat());
        assert!(err.contains("trailing"), "{err}");
        // Another variant's distances, or more pieces than the database's.
        let mut russian = Database::build(Variant::Russian, 3, &mut |_, _, _| {}).unwrap();
        russian.build_distances(3, &mut |_| {}).unwrap();
        russian.save_distances(&path).unwrap();
        let err = refused(&std::fs::read(&path).unwrap());
        assert!(err.contains("russian"), "{err}");
        let mut two = Database::build(Variant::English, 2, &mut |_, _, _| {}).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let err = two.load_distances(&path).unwrap_err().to_string();
        assert!(err.contains("2 to 3 pieces"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
