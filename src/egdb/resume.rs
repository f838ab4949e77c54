//! Resumable builds: the database file grows one slice section at a time as the slices
//! finish, so an interrupted build keeps what it had done.
//!
//! A build writes `OUT.part`: the header, then each slice's section (see
//! [`super::write_section`]) as soon as the slice is solved, read back and checked
//! before the next one starts. A rerun with the same variant and piece count reads the
//! sections of `OUT.part` that are whole and sound, drops whatever follows (a section cut
//! short by the interruption), takes the slices it read back into memory, and goes on
//! with the rest. When every slice is there, `OUT.part` is renamed `OUT`. The file is the
//! same byte for byte however many runs it took: each section depends only on the slice.
//!
//! The slices a later slice still reaches are held in full (both sides to move, two bits
//! a position, captures included) while it is built. Made again from the file, each
//! capture position is resolved by a search: for the 10x10 six-piece slices, most of an
//! hour at every resume. So such a slice is also kept on disk beside `OUT.part`, as it
//! was held (see [`full_path`]), while it is needed, and a resume reads it back from
//! there; a missing or damaged copy is made again from the file.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::index::{EgdbBoard, Geometry, Slice};
use super::{
    Database, MAGIC, NAME_BYTES, Table, Wld, all_slices, both_sides, build, check_request, pack,
    packed_white_values, read_section, unpack, write_section,
};
use crate::rules::Variant;

/// What a build reports after each slice.
pub struct Progress<'a> {
    pub slice: &'a Slice,
    /// Slices done (read back from an earlier run or built now) and in all.
    pub done: usize,
    pub all: usize,
    /// Whether the slice came from an earlier run's file.
    pub resumed: bool,
    /// Seconds since this run started, and the estimate of the seconds left (from the
    /// positions built so far in this run and those still to build).
    pub elapsed: f64,
    pub left: Option<f64>,
}

/// How a build runs.
pub struct BuildOptions {
    /// The memory the build may use, in MB: a slice that would need more is refused
    /// before it starts (with what it needs).
    pub memory_mb: usize,
    /// Stop after building this many slices in this run (tests of resumption use it to
    /// stand in for an interruption).
    pub max_slices: Option<usize>,
}

/// `OUT.part`: where a build writes before the file takes its name.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// The bytes a slice of `size` indices takes at most while it is built: the builder's
/// state and option counters (a byte each) and the positions waiting to be taken back
/// (a bit each). What follows takes less: the values (a byte each, the state freed or
/// reused) with the packed table (a quarter), then the packed table with the White-to-move
/// values being coded (half a byte).
fn build_bytes(size: u64) -> u64 {
    size * 2 + size / 8
}

/// The slice with the colours exchanged (its Black-to-move values are this one's
/// White-to-move values, the board turned).
fn mirror(s: &Slice) -> Slice {
    Slice {
        men: [s.men[1], s.men[0]],
        kings: [s.kings[1], s.kings[0]],
    }
}

/// Whether slice `t`, done, is held in full (both sides to move, two bits each) while
/// slice `k` of `slices` (the build order) is built: while a slice still to build reaches
/// it, or is its mirror, to be made from it. Otherwise it is held in its stored form.
/// This is what bounds the memory of the largest builds: the 10x10 six-piece slices hold
/// 46 billion positions a side, and each reaches only the few slices a capture or a
/// crowning leads to.
fn held_in_full(slices: &[Slice], k: usize, t: &Slice) -> bool {
    slices[k..].iter().any(|s| s.reaches(t) || mirror(s) == *t)
}

/// What a build of a database will take, known before it starts.
pub struct Plan {
    pub slices: usize,
    /// Positions with White to move (as many with Black to move).
    pub positions: u64,
    /// The largest slice's name and positions (both sides to move).
    pub largest: (String, u64),
    /// The least memory the build needs, in bytes, and the slice that needs it (its own
    /// build, and the slices it reaches held in full); the stored forms come on top.
    pub memory: (u64, String),
}

impl Database {
    /// The [`Plan`] of a build of `variant` with 2 to `max_pieces` pieces.
    pub fn plan(variant: Variant, max_pieces: usize) -> Result<Plan> {
        check_request(variant, max_pieces)?;
        let geo = crate::with_egdb_board!(variant, P => Geometry::of::<P>());
        let slices = all_slices(max_pieces);
        let largest = slices
            .iter()
            .max_by_key(|s| geo.size(s))
            .expect("a database has slices");
        let (need, at) = memory_floor(&geo, &slices, 0)
            .max_by_key(|(need, _)| *need)
            .expect("a database has slices");
        Ok(Plan {
            slices: slices.len(),
            positions: slices.iter().map(|s| geo.size(s) / 2).sum(),
            largest: (largest.name(), geo.size(largest)),
            memory: (need, slices[at].name()),
        })
    }
}

/// For each slice from `from` on: the least memory its build needs (in bytes: its own
/// build and the slices held in full meanwhile), and its place in `slices`.
fn memory_floor<'a>(
    geo: &'a Geometry,
    slices: &'a [Slice],
    from: usize,
) -> impl Iterator<Item = (u64, usize)> + 'a {
    (from..slices.len()).map(move |k| {
        let held: u64 = slices[..k]
            .iter()
            .filter(|s| held_in_full(slices, k, s))
            .map(|s| full_bytes(geo, s) as u64)
            .sum();
        (held + build_bytes(geo.size(&slices[k])), k)
    })
}

/// The outcome of [`Database::build_to`].
pub enum Built {
    /// Every slice is in `OUT`, and here.
    Complete(Database),
    /// Stopped by `max_slices`; `OUT.part` holds the slices done so far.
    Stopped { done: usize, all: usize },
}

impl Database {
    /// Build the database of `variant` with 2 to `max_pieces` pieces into the file
    /// `out`, resuming from `OUT.part` if an earlier run left one (see the module doc).
    /// `OUT.part` is opened before any work, so an unwritable path fails at once.
    pub fn build_to(
        variant: Variant,
        max_pieces: usize,
        out: &Path,
        options: &BuildOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Built> {
        check_request(variant, max_pieces)?;
        crate::with_egdb_board!(variant, P => build_to::<P>(max_pieces, out, options, progress))
    }
}

fn build_to<P: EgdbBoard>(
    max_pieces: usize,
    out: &Path,
    options: &BuildOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<Built> {
    let start = Instant::now();
    if std::fs::metadata(out).is_ok_and(|m| !m.is_file()) {
        bail!(
            "--out {}: exists and is not a regular file; expected a file name to write",
            out.display()
        );
    }
    let (mut file, part) = open_partial(out)?;
    let mut db = Database::empty(P::VARIANT, max_pieces);
    let geo = Geometry::with_unmoves::<P>();
    let slices = all_slices(max_pieces);
    let header = header_bytes(P::VARIANT, max_pieces);

    // What an earlier run finished.
    let (resumed, mut end) = read_finished(&mut file, &part, &db, &header, &slices)?;
    file.set_len(end)
        .and_then(|_| file.seek(SeekFrom::Start(end)).map(|_| ()))
        .with_context(|| format!("writing {}", part.display()))?;
    if end == 0 {
        file.write_all(&header)
            .with_context(|| format!("writing {}", part.display()))?;
        end = header.len() as u64;
    }
    let mut coded: Vec<Option<Table>> = vec![None; Slice::ID_LIMIT];
    for (slice, table) in slices.iter().zip(resumed) {
        coded[slice.id()] = Some(table);
    }
    // A stored slice is of use when its mirror (the colours exchanged) is stored too:
    // its Black-to-move values are the mirror's White-to-move ones.
    // The slices of use: a prefix of those stored, each with its mirror among them or
    // its values kept in full beside the file (a slice is kept so until its mirror is
    // made; without this, a run stopped between a slice and its mirror, an hour or more
    // apart among the 10x10 six-piece slices, would build all of them again). The
    // copies read here are checked (see [`read_full`]); one found damaged ends the
    // prefix before its slice.
    let mut kept: Vec<Option<Vec<u8>>> = (0..Slice::ID_LIMIT).map(|_| None).collect();
    let mut finished = slices
        .iter()
        .take_while(|s| coded[s.id()].is_some())
        .count();
    let index_of = |t: &Slice| {
        slices
            .iter()
            .position(|s| s == t)
            .expect("a slice of the build")
    };
    'prefix: loop {
        for (k, s) in slices[..finished].iter().enumerate() {
            if index_of(&mirror(s)) < finished || kept[s.id()].is_some() {
                continue;
            }
            kept[s.id()] = read_full(&full_path(&part, s), s, full_bytes(&geo, s));
            if kept[s.id()].is_none() {
                finished = k;
                continue 'prefix;
            }
        }
        break;
    }
    if finished < slices.len() {
        // Rebuilt from the first slice not of use: the file must stay in build order.
        for s in &slices[finished..] {
            if let Some(t) = coded[s.id()].take() {
                end -= section_len(&t);
            }
        }
        file.set_len(end)
            .with_context(|| format!("writing {}", part.display()))?;
        file.seek(SeekFrom::Start(end))?;
    }
    let needed_after = |k: usize, t: &Slice| held_in_full(&slices, k, t);
    // A slice whose mirror (the colours exchanged) was built before it is not solved
    // again: solving the mirror gave the values of both sides to move, and those of this
    // slice are the mirror's, the colours exchanged and the board turned round. Only the
    // slices that are their own mirror and one of each other pair are solved: half the
    // work of solving every slice.
    let made_from_mirror = |k: usize| {
        let m = mirror(&slices[k]);
        m != slices[k] && slices[..k].contains(&m)
    };
    // What each slice still to build needs at least (its own build, and the slices it
    // reaches held in full meanwhile) is known now: a build that cannot fit --memory is
    // refused before any work, not hours in at its largest slice. (The check before each
    // slice below also counts the stored forms held, known only as they are made.)
    let budget = options.memory_mb as u64 * 1_000_000;
    // The slice that needs the most is named: what --memory must be.
    if let Some((need, k)) = memory_floor(&geo, &slices, finished).max_by_key(|(need, _)| *need) {
        let slice = &slices[k];
        let held = need - build_bytes(geo.size(slice));
        if need > budget {
            if finished == 0 {
                // Only the header was written: leave nothing behind.
                let _ = std::fs::remove_file(&part);
            }
            bail!(
                "slice {} needs about {} MB ({} MB to build it, {} MB for the slices it \
                 reaches, held in full), more than --memory {} MB; give more memory or fewer \
                 --pieces ({})",
                slice.name(),
                need.div_ceil(1_000_000),
                build_bytes(geo.size(slice)).div_ceil(1_000_000),
                held / 1_000_000,
                options.memory_mb,
                if finished > 0 {
                    format!(
                        "nothing more was built; the slices done are kept in {}",
                        part.display()
                    )
                } else {
                    "nothing was built".to_string()
                }
            );
        }
    }
    // Back in memory in full (both sides to move), for the slices still to build: from
    // the copies kept on disk, or made again from the file.
    for s in &slices[..finished] {
        if needed_after(finished, s) && kept[s.id()].is_none() {
            kept[s.id()] = read_full(&full_path(&part, s), s, full_bytes(&geo, s));
        }
    }
    for s in &slices[finished..] {
        kept[s.id()] = None;
    }
    let to_expand =
        |s: &Slice| index_of(s) < finished && needed_after(finished, s) && kept[s.id()].is_none();
    let white: Vec<Option<Vec<u8>>> = (0..Slice::ID_LIMIT)
        .map(|id| {
            let s = slices[..finished].iter().find(|s| s.id() == id)?;
            if !to_expand(s) && !to_expand(&mirror(s)) {
                return None;
            }
            Some(packed_white_values(
                coded[id].as_ref()?,
                geo.size(s) as usize / 2,
            ))
        })
        .collect();
    for (k, slice) in slices[..finished].iter().enumerate() {
        db.tables[slice.id()] = if let Some(full) = kept[slice.id()].take() {
            Some(Table::Full(full))
        } else if needed_after(finished, slice) {
            let full = expand::<P>(&db, &white, slice);
            keep_full(&full_path(&part, slice), slice, &full);
            Some(Table::Full(full))
        } else {
            remove_full(&part, slice);
            coded[slice.id()].take()
        };
        progress(&Progress {
            slice,
            done: k + 1,
            all: slices.len(),
            resumed: true,
            elapsed: start.elapsed().as_secs_f64(),
            left: None,
        });
    }
    drop(white);

    let to_build: u64 = (finished..slices.len())
        .filter(|&k| !made_from_mirror(k))
        .map(|k| geo.size(&slices[k]))
        .sum();
    let (mut built_positions, built_start) = (0u64, Instant::now());
    for (k, slice) in slices.iter().enumerate().skip(finished) {
        if options.max_slices.is_some_and(|m| k - finished >= m) {
            return Ok(Built::Stopped {
                done: k,
                all: slices.len(),
            });
        }
        let size = geo.size(slice);
        let held = db.bytes() as u64;
        let need = held + build_bytes(size);
        if need > budget {
            bail!(
                "slice {} ({size} positions) needs about {} MB with the {} MB of the slices \
                 before it, more than --memory {} MB; give more memory (the slices done are \
                 kept in {} for the next run)",
                slice.name(),
                need.div_ceil(1_000_000),
                held / 1_000_000,
                options.memory_mb,
                part.display()
            );
        }
        let from_mirror = made_from_mirror(k);
        let values = if from_mirror {
            from_mirror_values(&db, slice, &mirror(slice))
        } else {
            build::solve_slice::<P>(&db, &geo, slice)
        };
        db.tables[slice.id()] = Some(Table::Full(pack(values.into_iter())));
        if needed_after(k + 1, slice) {
            let Some(Table::Full(full)) = &db.tables[slice.id()] else {
                unreachable!()
            };
            keep_full(&full_path(&part, slice), slice, full);
        }
        let table = db.coded::<P>(slice);
        let Table::Coded { offsets, data, .. } = &table else {
            unreachable!()
        };
        let mut w = std::io::BufWriter::new(&mut file);
        write_section(&mut w, slice, size / 2, offsets, data)
            .and_then(|_| w.flush())
            .with_context(|| format!("writing {}", part.display()))?;
        drop(w);
        file.sync_data()
            .with_context(|| format!("writing {}", part.display()))?;
        // Read it back: what is on the disk is what was built.
        file.seek(SeekFrom::Start(end))?;
        let left = file.metadata()?.len() - end;
        let (back, len) = read_section(&mut BufReader::new(&mut file), &db.geo, slice, left)
            .map_err(|why| {
                anyhow::anyhow!(
                    "{}: slice {} read back: {why}",
                    part.display(),
                    slice.name()
                )
            })?;
        if back != table {
            bail!(
                "{}: slice {} read back differs from what was written",
                part.display(),
                slice.name()
            );
        }
        end += len;
        file.seek(SeekFrom::Start(end))?;
        coded[slice.id()] = Some(table);
        for done in &slices[..=k] {
            if matches!(db.tables[done.id()], Some(Table::Full(_))) && !needed_after(k + 1, done) {
                db.tables[done.id()] = coded[done.id()].take();
                remove_full(&part, done);
            }
        }
        if !from_mirror {
            built_positions += size;
        }
        let rate = built_positions as f64 / built_start.elapsed().as_secs_f64().max(1e-3);
        progress(&Progress {
            slice,
            done: k + 1,
            all: slices.len(),
            resumed: false,
            elapsed: start.elapsed().as_secs_f64(),
            left: Some((to_build - built_positions) as f64 / rate),
        });
    }
    drop(file);
    std::fs::rename(&part, out)
        .with_context(|| format!("renaming {} to {}", part.display(), out.display()))?;
    for slice in &slices {
        remove_full(&part, slice);
    }
    for slice in &slices {
        if let Some(table) = coded[slice.id()].take() {
            db.tables[slice.id()] = Some(table);
        }
    }
    db.clear_cache();
    Ok(Built::Complete(db))
}

/// Where a slice held in full is kept on disk while a slice still to build needs it:
/// `OUT.part.full-NAME` (`NAME` the slice's counts, as `1401` for a man and four kings
/// against a king).
pub(crate) fn full_path(part: &Path, slice: &Slice) -> PathBuf {
    let mut name = part.as_os_str().to_owned();
    name.push(format!(".full-{}", slice.name()));
    PathBuf::from(name)
}

const FULL_MAGIC: &[u8] = b"tammi slice in full v1\n";

/// The bytes of `slice` held in full: two bits a position, both sides to move.
fn full_bytes(geo: &Geometry, slice: &Slice) -> usize {
    (geo.size(slice) as usize).div_ceil(4)
}

/// Keep `full` (the values of `slice` held in full) at `path`: written under another
/// name and renamed when whole, with the slice's counts, its length and a checksum, so a
/// copy cut short or damaged is never read. Only a saving of time: a copy that cannot be
/// written is left out, and the slice is made again from the file at the next resume.
fn keep_full(path: &Path, slice: &Slice, full: &[u8]) {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let head = full_head(slice, full.len());
    let sum = super::compress::checksum(&[&head, full]);
    let written = File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        w.write_all(&head)?;
        w.write_all(full)?;
        w.write_all(&sum.to_le_bytes())?;
        w.into_inner().map_err(|e| e.into_error())?.sync_data()
    });
    if written.and_then(|()| std::fs::rename(&tmp, path)).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

fn full_head(slice: &Slice, len: usize) -> Vec<u8> {
    let mut head = FULL_MAGIC.to_vec();
    head.extend_from_slice(&[slice.men[0], slice.kings[0], slice.men[1], slice.kings[1]]);
    head.extend_from_slice(&(len as u64).to_le_bytes());
    head
}

/// The values of `slice` kept at `path` by [`keep_full`], if they are there, whole, of
/// this slice and `len` bytes long, and their checksum holds.
fn read_full(path: &Path, slice: &Slice, len: usize) -> Option<Vec<u8>> {
    let head = full_head(slice, len);
    let mut f = File::open(path).ok()?;
    if f.metadata().ok()?.len() != (head.len() + len + 8) as u64 {
        return None;
    }
    let mut got = vec![0u8; head.len()];
    f.read_exact(&mut got).ok()?;
    let mut full = vec![0u8; len];
    f.read_exact(&mut full).ok()?;
    let mut sum = [0u8; 8];
    f.read_exact(&mut sum).ok()?;
    (got == head && u64::from_le_bytes(sum) == super::compress::checksum(&[&head, &full]))
        .then_some(full)
}

/// The copy of `slice` kept beside `part`, no longer needed.
fn remove_full(part: &Path, slice: &Slice) {
    let _ = std::fs::remove_file(full_path(part, slice));
}

/// `OUT.part` (see [`partial_path`]) opened to read what an earlier run left and to go
/// on writing, created if it is not there.
pub(crate) fn open_partial(out: &Path) -> Result<(File, PathBuf)> {
    let part = partial_path(out);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&part)
        .with_context(|| {
            format!(
                "--out {}: cannot create {} (is the directory there and writable?)",
                out.display(),
                part.display()
            )
        })?;
    Ok((file, part))
}

/// The bytes of a stored slice's section.
fn section_len(t: &Table) -> u64 {
    let Table::Coded { offsets, data, .. } = t else {
        panic!("a stored slice")
    };
    28 + 4 * offsets.len() as u64 + data.len() as u64 + 8
}

/// The file's header: magic, variant, pieces.
fn header_bytes(variant: Variant, max_pieces: usize) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(format!("{:<NAME_BYTES$}", variant.name()).as_bytes());
    h.push(max_pieces as u8);
    h
}

/// The sound sections at the start of an earlier run's `OUT.part` (in build order),
/// and where they end (0: no usable header, start afresh). A file of another variant or
/// piece count is refused rather than overwritten.
fn read_finished(
    file: &mut File,
    part: &Path,
    db: &Database,
    header: &[u8],
    slices: &[Slice],
) -> Result<(Vec<Table>, u64)> {
    let size = file.metadata()?.len();
    if size == 0 {
        return Ok((Vec::new(), 0));
    }
    let mut r = BufReader::new(&mut *file);
    let mut head = vec![0u8; header.len()];
    if r.read_exact(&mut head).is_err() || head != header {
        bail!(
            "{} is there but is not an earlier build of this database ({} up to {} pieces); \
             remove it to start afresh",
            part.display(),
            db.variant,
            db.max_pieces
        );
    }
    let mut end = header.len() as u64;
    let mut tables = Vec::new();
    for slice in slices {
        match read_section(&mut r, &db.geo, slice, size - end) {
            Ok((table, len)) => {
                tables.push(table);
                end += len;
            }
            // Cut short or damaged by the interruption: built again.
            Err(_) => break,
        }
    }
    Ok((tables, end))
}

/// The values of `slice`, both sides to move, from those of its mirror `m`, held in full:
/// a position of one is a position of the other with the colours exchanged and the board
/// turned round, of the same value for the side to move (the database variants' rules
/// treat the colours alike; a test checks it for each). Read for every position, those
/// with a capture included: `m` holds their values as its first pass settled them (or
/// as a resumed build resolved them), exact either way, so they need no search here.
fn from_mirror_values(db: &Database, slice: &Slice, m: &Slice) -> Vec<Wld> {
    use rayon::prelude::*;
    let Some(Table::Full(full)) = &db.tables[m.id()] else {
        panic!("{m:?} is held in full until its mirror is made");
    };
    let geo = &db.geo;
    (0..geo.size(slice) as usize)
        .into_par_iter()
        .map(|i| match geo.decode(slice, i as u64) {
            Some(sq) => unpack(full, geo.index(&geo.flipped(&sq)) as usize),
            None => Wld::Draw,
        })
        .collect()
}

/// A stored (White to move) slice back in full, both sides to move (`white` holds the
/// stored slices' White-to-move values; the mirror slice is stored too).
fn expand<P: EgdbBoard>(db: &Database, white: &[Option<Vec<u8>>], slice: &Slice) -> Vec<u8> {
    both_sides::<P>(db, slice, |w| {
        let table = white[w.slice().id()]
            .as_ref()
            .expect("the mirror slice is stored too");
        unpack(table, db.geo.index(w) as usize / 2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(max_slices: Option<usize>) -> BuildOptions {
        BuildOptions {
            memory_mb: 1000,
            max_slices,
        }
    }

    #[test]
    fn an_interrupted_build_resumes_to_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("tammi-egdb-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for variant in [Variant::English, Variant::Russian] {
            let whole = dir.join(format!("{variant}-whole.egdb"));
            let built =
                Database::build_to(variant, 3, &whole, &options(None), &mut |_| {}).unwrap();
            assert!(matches!(built, Built::Complete(_)));
            let bytes = std::fs::read(&whole).unwrap();

            let parts = dir.join(format!("{variant}-parts.egdb"));
            let run = |max: Option<usize>| {
                let mut resumed = 0;
                let mut built = 0;
                let r = Database::build_to(variant, 3, &parts, &options(max), &mut |p| {
                    if p.resumed {
                        resumed += 1;
                    } else {
                        built += 1;
                        assert!(p.left.is_some());
                    }
                })
                .unwrap();
                (r, resumed, built)
            };
            let (r, resumed, built) = run(Some(3));
            assert!(matches!(r, Built::Stopped { done: 3, .. }), "{variant}");
            assert_eq!((resumed, built), (0, 3));
            assert!(!parts.exists() && partial_path(&parts).exists());
            // Every slice stored is read back, those whose mirror is not stored yet from
            // their copies kept in full: none is built again.
            let (r, resumed, built) = run(Some(4));
            assert!(matches!(r, Built::Stopped { done: 7, .. }), "{variant}");
            assert_eq!((resumed, built), (3, 4), "{variant}");
            // The slices still needed are kept in full beside the file, as the file
            // would make them again; a damaged copy is not read but made again.
            let part = partial_path(&parts);
            let kept: Vec<Slice> = all_slices(3)
                .into_iter()
                .filter(|s| full_path(&part, s).exists())
                .collect();
            assert!(!kept.is_empty(), "{variant}");
            let mut db = Database::empty(variant, 3);
            let (tables, _) = read_finished(
                &mut File::open(&part).unwrap(),
                &part,
                &db,
                &header_bytes(variant, 3),
                &all_slices(3),
            )
            .unwrap();
            for (s, t) in all_slices(3).iter().zip(tables) {
                db.tables[s.id()] = Some(t);
            }
            let compared: Vec<Slice> = crate::with_egdb_board!(variant, P => {
                let geo = Geometry::of::<P>();
                let white: Vec<Option<Vec<u8>>> = (0..Slice::ID_LIMIT)
                    .map(|id| {
                        let s = all_slices(3).into_iter().find(|s| s.id() == id)?;
                        let t = db.tables[id].as_ref()?;
                        Some(packed_white_values(t, geo.size(&s) as usize / 2))
                    })
                    .collect();
                let stored = |s: &Slice| white[s.id()].is_some();
                let whole: Vec<Slice> = kept
                    .iter()
                    .filter(|s| stored(s) && stored(&geo.flipped_slice(s)))
                    .copied()
                    .collect();
                for s in &whole {
                    let full = read_full(&full_path(&part, s), s, full_bytes(&geo, s));
                    assert_eq!(full, Some(expand::<P>(&db, &white, s)), "{variant} {s:?}");
                }
                whole
            });
            assert!(!compared.is_empty(), "{variant}");
            let damage = |s: &Slice| {
                let damaged = full_path(&part, s);
                let mut bytes_kept = std::fs::read(&damaged).unwrap();
                let at = bytes_kept.len() / 2;
                bytes_kept[at] ^= 0x10;
                std::fs::write(&damaged, &bytes_kept).unwrap();
            };
            damage(&compared[0]);
            // Its mirror stored, that slice is made again from the file: all 7 read back.
            assert_eq!(run(Some(0)).1, 7, "{variant}");
            // The copy of a slice whose mirror is not stored damaged: the slices from it
            // on are built again.
            let slices = all_slices(3);
            let lone = (0..7)
                .find(|&k| !slices[..7].contains(&mirror(&slices[k])))
                .expect("a slice stored before its mirror");
            assert!(full_path(&part, &slices[lone]).exists(), "{variant}");
            damage(&slices[lone]);
            damage(&compared[0]);
            assert_eq!(run(Some(0)).1, lone, "{variant}");
            // An interruption in the middle of writing a section: half a section more.
            let mut cut = std::fs::read(&part).unwrap();
            let n = cut.len();
            cut.extend_from_slice(&bytes[n..n + (bytes.len() - n) / 2]);
            std::fs::write(&part, &cut).unwrap();
            let (r, resumed, built) = run(None);
            assert!(matches!(r, Built::Complete(_)), "{variant}");
            assert!(resumed >= 5 && built > 0, "{variant}: {resumed} {built}");
            assert!(
                std::fs::read(&parts).unwrap() == bytes,
                "{variant}: the same bytes"
            );
            assert!(!part.exists());
            assert!(
                all_slices(3).iter().all(|s| !full_path(&part, s).exists()),
                "{variant}: the copies kept in full are removed at the end"
            );
            Database::load(&parts).unwrap();
        }
        // A .part of another database is refused, not overwritten.
        let other = dir.join("other.egdb");
        std::fs::write(partial_path(&other), b"something else").unwrap();
        let err = Database::build_to(Variant::English, 3, &other, &options(None), &mut |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("remove it"), "{err}");
        // Too little memory: refused before the slice is built, saying what it needs.
        let small = dir.join("small.egdb");
        let tight = BuildOptions {
            memory_mb: 0,
            max_slices: None,
        };
        let err = Database::build_to(Variant::English, 3, &small, &tight, &mut |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("needs about") && err.contains("--memory 0 MB"),
            "{err}"
        );
        // Enough for the small slices but not for the largest: refused before any.
        let mut built = 0;
        let five = BuildOptions {
            memory_mb: 5,
            max_slices: None,
        };
        let err = Database::build_to(Variant::English, 5, &small, &five, &mut |_| built += 1)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(built, 0, "{err}");
        assert!(
            err.contains("nothing was built") && err.contains("--memory 5 MB"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
