//! Opening books that tammi builds itself ([`build`], `tammi book build`) and plays from
//! (the Hub's `book` parameters, the text mode, DXP).
//!
//! A book maps a position (a 64-bit key of the variant and the Hub position string, so
//! transpositions share an entry) to its book moves, each with the minimaxed score of
//! the book tree below it (centi-men, from the side to move's view) and the number of
//! book positions under it. The file format is described in protocol.md ("Opening
//! books"): a header with a magic, a version, the variant, the number of positions, the
//! length and a checksum of the body; a book whose header, length, checksum or records
//! do not add up is refused with the reason, never read in part.
//!
//! Playing from a book ([`BookPlayer`]): among the moves scored at most `margin` below
//! the best, one is chosen at random (a seeded generator, so that games vary but can be
//! replayed); a book move is checked against the legal moves before it is played, so a
//! key collision can never play an illegal move.

pub mod build;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::rng::SplitMix64;
use crate::rules::{AnyMove, Variant};
use crate::search::engine::{Engine, Score};

/// The first eight bytes of a book file.
pub const MAGIC: [u8; 8] = *b"TAMMIBK\x1a";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
/// magic 8, version 4, variant name 16, positions 4, body length 8, checksum 8.
pub const HEADER_LEN: usize = 48;
/// The most moves a position can list in a book record (a count byte).
const MAX_MOVES: usize = 255;
/// Scores at or beyond these (in absolute value) encode a game end and a database
/// result, not centi-men (see [`encode_score`]).
const GAME_END: i32 = 30_000;
const DATABASE: i32 = 20_000;
/// Evaluations are clamped below the decisive bands.
const MAX_EVAL: i32 = 9_999;

/// The key of a position of `variant` given as its Hub position string: FNV-1a over the
/// variant's name and the string, mixed by splitmix64. The same position reached by
/// different move orders has the same key.
pub fn position_key(variant: Variant, hub_position: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in variant
        .hub_name()
        .bytes()
        .chain(std::iter::once(0))
        .chain(hub_position.trim().bytes())
    {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    crate::rng::splitmix64(h)
}

/// FNV-1a 64 of `bytes`: the body checksum of a book file.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A search score as a book score: centi-men clamped to ±9999; a game end `n` plies
/// away ±(30000 − n); a database win or loss ±20000.
pub fn encode_score(s: Score) -> i32 {
    match s {
        Score::Eval(c) => c.clamp(-MAX_EVAL, MAX_EVAL),
        Score::GameEnd(n) => n.signum() * (GAME_END - n.abs().clamp(1, 999)),
        Score::Database(n) => n.signum() * DATABASE,
    }
}

/// A book score as the score it stands for (the inverse of [`encode_score`]).
pub fn decode_score(s: i32) -> Score {
    if s.abs() > GAME_END - 1000 {
        Score::GameEnd(s.signum() * (GAME_END - s.abs()))
    } else if s.abs() >= DATABASE {
        Score::Database(s.signum())
    } else {
        Score::Eval(s)
    }
}

/// One book move of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The Hub form (`32-28`, `28x19x23`).
    pub mv: String,
    /// The minimaxed score after the move, from the view of the side that plays it
    /// (see [`encode_score`]).
    pub score: i16,
    /// Book positions under the move (counted along every path: a transposition reached
    /// two ways counts twice); 0 when the move leaves the book.
    pub count: u32,
}

/// A position of the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its distance in plies from the nearest root the book was built from.
    pub ply: u8,
    /// Best first.
    pub moves: Vec<BookMove>,
}

/// An opening book of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    pub variant: Variant,
    pub entries: HashMap<u64, Entry>,
}

/// What [`Book::summary`] tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub positions: usize,
    pub moves: usize,
    /// The deepest position's distance from the roots.
    pub max_ply: u8,
    /// Positions at each ply from the roots.
    pub by_ply: Vec<usize>,
}

impl Book {
    pub fn new(variant: Variant) -> Book {
        Book {
            variant,
            entries: HashMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book moves of the position with this key.
    pub fn probe(&self, key: u64) -> Option<&Entry> {
        self.entries.get(&key)
    }

    /// The book moves of `engine`'s current position (which must be of the book's
    /// variant), the ones that are not legal there (a key collision) left out.
    pub fn probe_engine(&self, engine: &Engine) -> Option<Entry> {
        if engine.variant() != self.variant {
            return None;
        }
        let entry = self.probe(position_key(self.variant, &engine.hub_position()))?;
        let legal = engine.legal_moves();
        let moves: Vec<BookMove> = entry
            .moves
            .iter()
            .filter(|m| legal.contains(&m.mv))
            .cloned()
            .collect();
        (!moves.is_empty()).then_some(Entry {
            ply: entry.ply,
            moves,
        })
    }

    pub fn summary(&self) -> Summary {
        let mut by_ply = Vec::new();
        let mut moves = 0;
        for e in self.entries.values() {
            moves += e.moves.len();
            let p = e.ply as usize;
            if by_ply.len() <= p {
                by_ply.resize(p + 1, 0);
            }
            by_ply[p] += 1;
        }
        Summary {
            positions: self.entries.len(),
            moves,
            max_ply: by_ply.len().saturating_sub(1) as u8,
            by_ply,
        }
    }

    /// The file image: header, then the positions in increasing key order (so the same
    /// book always gives the same bytes).
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        let mut keys: Vec<u64> = self.entries.keys().copied().collect();
        keys.sort_unstable();
        let mut body = Vec::new();
        for k in keys {
            let e = &self.entries[&k];
            if e.moves.is_empty() || e.moves.len() > MAX_MOVES {
                return Err(format!(
                    "a book position must have 1 to {MAX_MOVES} moves, not {}",
                    e.moves.len()
                ));
            }
            body.extend_from_slice(&k.to_le_bytes());
            body.push(e.ply);
            body.push(e.moves.len() as u8);
            for m in &e.moves {
                if m.mv.is_empty() || m.mv.len() > 255 || !m.mv.is_ascii() {
                    return Err(format!("book move '{}' cannot be stored", m.mv));
                }
                body.extend_from_slice(&m.score.to_le_bytes());
                body.extend_from_slice(&m.count.to_le_bytes());
                body.push(m.mv.len() as u8);
                body.extend_from_slice(m.mv.as_bytes());
            }
        }
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        let mut name = [0u8; 16];
        let n = self.variant.hub_name().as_bytes();
        name[..n.len()].copy_from_slice(n);
        out.extend_from_slice(&name);
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&body).to_le_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Read a file image, checking everything before trusting anything: the magic, the
    /// version, the variant (`expected`, if given), that the length is the header's,
    /// the checksum, and that the records fill the body exactly with the count given.
    pub fn decode(bytes: &[u8], expected: Option<Variant>) -> Result<Book, String> {
        if bytes.len() < HEADER_LEN {
            return Err(format!(
                "not a tammi book: {} bytes, shorter than the {HEADER_LEN}-byte header (truncated?)",
                bytes.len()
            ));
        }
        if bytes[..8] != MAGIC {
            return Err("not a tammi book (wrong magic number)".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(format!(
                "book format version {version}, this tammi reads version {VERSION}"
            ));
        }
        let name_bytes = &bytes[12..28];
        let end = name_bytes.iter().position(|&b| b == 0).unwrap_or(16);
        if name_bytes[end..].iter().any(|&b| b != 0) {
            return Err("damaged book: the variant name is not zero-padded".into());
        }
        let name = std::str::from_utf8(&name_bytes[..end])
            .map_err(|_| "damaged book: the variant name is not text".to_string())?;
        let variant: Variant = name
            .parse()
            .map_err(|_| format!("damaged book: unknown variant '{}'", name.escape_debug()))?;
        if let Some(v) = expected
            && v != variant
        {
            return Err(format!(
                "the book is for {}, not {}",
                variant.hub_name(),
                v.hub_name()
            ));
        }
        let count = u32_at(28) as usize;
        let body_len = u64_at(32);
        let sum = u64_at(40);
        let body = &bytes[HEADER_LEN..];
        if body.len() as u64 != body_len {
            return Err(format!(
                "damaged book: the header says {body_len} bytes of positions, the file has {} (truncated?)",
                body.len()
            ));
        }
        if checksum(body) != sum {
            return Err("damaged book: the checksum does not match".into());
        }
        // Each record is at least 8 + 1 + 1 + 8 bytes: the count cannot ask for more
        // memory than the body could fill.
        if count > body.len() / 18 {
            return Err(format!(
                "damaged book: {count} positions cannot fit in {} bytes",
                body.len()
            ));
        }
        let mut entries = HashMap::with_capacity(count);
        let mut at = 0usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let s = body
                .get(*at..*at + n)
                .ok_or_else(|| "damaged book: a record runs past the end".to_string())?;
            *at += n;
            Ok(s)
        };
        for _ in 0..count {
            let key = u64::from_le_bytes(take(&mut at, 8)?.try_into().expect("8"));
            let ply = take(&mut at, 1)?[0];
            let n = take(&mut at, 1)?[0] as usize;
            if n == 0 {
                return Err("damaged book: a position without moves".into());
            }
            let mut moves = Vec::with_capacity(n);
            for _ in 0..n {
                let score = i16::from_le_bytes(take(&mut at, 2)?.try_into().expect("2"));
                let count = u32::from_le_bytes(take(&mut at, 4)?.try_into().expect("4"));
                let len = take(&mut at, 1)?[0] as usize;
                let text = take(&mut at, len)?;
                let mv = std::str::from_utf8(text)
                    .ok()
                    .filter(|t| {
                        !t.is_empty()
                            && t.bytes()
                                .all(|b| b.is_ascii_digit() || b == b'-' || b == b'x')
                    })
                    .ok_or_else(|| "damaged book: a move that is no move".to_string())?;
                moves.push(BookMove {
                    mv: mv.to_string(),
                    score,
                    count,
                });
            }
            if entries.insert(key, Entry { ply, moves }).is_some() {
                return Err("damaged book: a position stored twice".into());
            }
        }
        if at != body.len() {
            return Err(format!(
                "damaged book: {} bytes after the last position",
                body.len() - at
            ));
        }
        Ok(Book { variant, entries })
    }

    /// Read and check a book file (see [`Book::decode`]).
    pub fn read_file(path: &Path, expected: Option<Variant>) -> Result<Book, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read book {}: {e}", path.display()))?;
        Book::decode(&bytes, expected).map_err(|e| format!("book {}: {e}", path.display()))
    }

    /// Write the book to `path` through a temporary file renamed into place, so that a
    /// reader (or an interrupted build) never sees half a book.
    pub fn write_file(&self, path: &Path) -> Result<(), String> {
        let bytes = self.encode()?;
        write_atomically(path, &bytes)
    }
}

/// Write `bytes` to `path` by way of `path.tmp` and a rename.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), path.display()))
}

/// The books built into the binary (tuning/README.md says how each was built).
fn builtin_bytes(variant: Variant) -> Option<&'static [u8]> {
    Some(match variant {
        Variant::International => include_bytes!("data/international.book"),
        Variant::English => include_bytes!("data/english.book"),
        Variant::Russian => include_bytes!("data/russian.book"),
        Variant::Brazilian => include_bytes!("data/brazilian.book"),
        Variant::Frisian => include_bytes!("data/frisian.book"),
        _ => return None,
    })
}

/// The built-in book of `variant`, read (and checked) on first use; `None` for a variant
/// without one.
pub fn builtin(variant: Variant) -> Option<&'static Book> {
    static BOOKS: OnceLock<HashMap<Variant, Book>> = OnceLock::new();
    BOOKS
        .get_or_init(|| {
            crate::rules::ALL_VARIANTS
                .iter()
                .filter_map(|&v| {
                    let bytes = builtin_bytes(v)?;
                    // A built-in book is checked by the tests; an empty one is no book.
                    Book::decode(bytes, Some(v))
                        .ok()
                        .filter(|b| !b.is_empty())
                        .map(|b| (v, b))
                })
                .collect()
        })
        .get(&variant)
}

/// The moves of `entry` at most `margin` centi-men below its best, best first.
pub fn candidates(entry: &Entry, margin: u32) -> Vec<&BookMove> {
    let best = entry.moves.iter().map(|m| m.score as i32).max();
    let Some(best) = best else {
        return Vec::new();
    };
    let floor = best.saturating_sub(margin.min(i32::MAX as u32) as i32);
    let mut c: Vec<&BookMove> = entry
        .moves
        .iter()
        .filter(|m| m.score as i32 >= floor)
        .collect();
    c.sort_by_key(|m| std::cmp::Reverse(m.score));
    c
}

/// One of the moves within `margin` of the best, chosen uniformly by `rng`.
pub fn choose<'a>(entry: &'a Entry, margin: u32, rng: &mut SplitMix64) -> Option<&'a BookMove> {
    let c = candidates(entry, margin);
    if c.is_empty() {
        return None;
    }
    Some(c[rng.below(c.len())])
}

/// A book move chosen by [`BookPlayer::pick`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    /// The move as the book file holds it (Hub text).
    pub mv: String,
    /// The same move, typed: one of the engine's legal moves.
    pub chosen: AnyMove,
    pub score: Score,
    /// How many moves were within the margin, and how many the book has.
    pub choices: usize,
    pub book_moves: usize,
}

/// Which book a front end plays from, and how.
#[derive(Clone, Debug)]
pub struct BookPlayer {
    /// Off: every move is searched.
    pub enabled: bool,
    /// A book file replacing the built-in one (its path, as given, and the book).
    pub file: Option<(String, Arc<Book>)>,
    /// The book is consulted while the game has at most this many plies.
    pub max_ply: u32,
    /// Centi-men below the best a book move may be and still be chosen.
    pub margin: u32,
    /// The seed the choice started from (0: from the clock).
    pub seed: u64,
    rng: SplitMix64,
}

impl Default for BookPlayer {
    fn default() -> Self {
        BookPlayer::new(0)
    }
}

impl BookPlayer {
    pub const DEFAULT_MAX_PLY: u32 = 60;
    pub const MAX_PLY: u32 = 1000;
    /// Four centi-men: wide enough that the first moves vary, narrow enough that a line
    /// the book's leaf searches rated worse is not played (with 10 and shallow leaves, the
    /// international book did no better against Scan 2.0 than no book: docs/results.md).
    pub const DEFAULT_MARGIN: u32 = 4;
    pub const MAX_MARGIN: u32 = 10_000;

    /// On, with the built-in books; `seed` 0 seeds from the clock, so that the games of
    /// two runs differ.
    pub fn new(seed: u64) -> BookPlayer {
        BookPlayer {
            enabled: true,
            file: None,
            max_ply: Self::DEFAULT_MAX_PLY,
            margin: Self::DEFAULT_MARGIN,
            seed,
            rng: SplitMix64::new(effective_seed(seed)),
        }
    }

    /// Start the choices again from `seed` (0: from the clock).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.rng = SplitMix64::new(effective_seed(seed));
    }

    /// Play from the book file at `path` (empty: the built-in books again). The file is
    /// read and checked now; on error nothing changes.
    pub fn set_file(&mut self, path: &str, variant: Option<Variant>) -> Result<(), String> {
        let path = path.trim();
        if path.is_empty() {
            self.file = None;
            return Ok(());
        }
        let book = Book::read_file(Path::new(path), variant)?;
        self.file = Some((path.to_string(), Arc::new(book)));
        Ok(())
    }

    /// The book in use for `variant`: the file's if it is of that variant, else the
    /// built-in one.
    pub fn book(&self, variant: Variant) -> Option<&Book> {
        match &self.file {
            Some((_, b)) => (b.variant == variant).then_some(b.as_ref()),
            None => builtin(variant),
        }
    }

    /// The book move to play in `engine`'s position, `ply` plies into the game, if the
    /// book is on, the game is young enough and the position is in the book.
    pub fn pick(&mut self, engine: &Engine, ply: usize) -> Option<Pick> {
        if !self.enabled || ply > self.max_ply as usize {
            return None;
        }
        let entry = self.book(engine.variant())?.probe_engine(engine)?;
        let choices = candidates(&entry, self.margin).len();
        let m = choose(&entry, self.margin, &mut self.rng)?;
        // `probe_engine` kept only legal moves: the text is one of the legal moves'.
        let at = engine.legal_moves().iter().position(|l| *l == m.mv)?;
        Some(Pick {
            chosen: engine.legal().into_iter().nth(at)?,
            mv: m.mv.clone(),
            score: decode_score(m.score as i32),
            choices,
            book_moves: entry.moves.len(),
        })
    }
}

fn effective_seed(seed: u64) -> u64 {
    if seed != 0 {
        return seed;
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    crate::rng::splitmix64(t ^ std::process::id() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Book {
        let mut b = Book::new(Variant::International);
        b.entries.insert(
            7,
            Entry {
                ply: 0,
                moves: vec![
                    BookMove {
                        mv: "32-28".into(),
                        score: 10,
                        count: 3,
                    },
                    BookMove {
                        mv: "33-28".into(),
                        score: 5,
                        count: 1,
                    },
                    BookMove {
                        mv: "31-26".into(),
                        score: -40,
                        count: 0,
                    },
                ],
            },
        );
        b
    }

    #[test]
    fn encode_decode_round_trip() {
        let b = tiny();
        let bytes = b.encode().unwrap();
        assert_eq!(Book::decode(&bytes, Some(Variant::International)), Ok(b));
    }

    #[test]
    fn every_damage_is_refused() {
        let bytes = tiny().encode().unwrap();
        for cut in 0..bytes.len() {
            assert!(Book::decode(&bytes[..cut], None).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut d = bytes.clone();
            d[i] ^= 0x10;
            assert!(
                Book::decode(&d, Some(Variant::International)).is_err(),
                "byte {i}"
            );
        }
        assert!(Book::decode(&bytes, Some(Variant::English)).is_err());
    }

    #[test]
    fn margin_and_seeded_choice() {
        let b = tiny();
        let e = &b.entries[&7];
        assert_eq!(candidates(e, 0).len(), 1);
        assert_eq!(candidates(e, 5).len(), 2);
        assert_eq!(candidates(e, 50).len(), 3);
        let picks = |seed| {
            let mut r = SplitMix64::new(seed);
            (0..20)
                .map(|_| choose(e, 5, &mut r).unwrap().mv.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(3), picks(3));
        let p = picks(3);
        assert!(p.iter().all(|m| m == "32-28" || m == "33-28"));
        assert!(p.iter().any(|m| m == "32-28") && p.iter().any(|m| m == "33-28"));
    }

    #[test]
    fn scores_round_trip() {
        for s in [
            Score::Eval(12),
            Score::Eval(-300),
            Score::GameEnd(7),
            Score::GameEnd(-4),
            Score::Database(1),
            Score::Database(-1),
        ] {
            assert_eq!(decode_score(encode_score(s)), s);
        }
    }

    #[test]
    fn builtin_books_are_sound() {
        for v in [
            Variant::International,
            Variant::English,
            Variant::Russian,
            Variant::Brazilian,
            Variant::Frisian,
        ] {
            let bytes = builtin_bytes(v).unwrap();
            Book::decode(bytes, Some(v)).unwrap();
        }
    }
}
