//! The binary training-data format (`tune games --format bin`): a few bytes a position
//! where the text format spends a FEN. Written and read here only; [`super::data`] reads
//! both formats through the same `read_positions`, choosing by the file's first bytes.
//!
//! Layout (integers little-endian):
//!
//! ```text
//! header   magic      8 bytes  89 't' 'a' 'm' 'm' 'i' 1A 0A
//!          version    u16      1
//!          variant    u8 length, then the variant's name (ASCII, e.g. "international")
//!          flags      u8       bit 0: every position has a search score; others 0
//!          provenance u32 length (at most 1 MiB), then UTF-8: the command that made it
//! game     result     u8       White's view: 0 loss, 1 draw, 2 win
//!          count      u32      positions of the game (0 allowed: a game with no quiet one)
//!          count x    position packed (below), then an i16 score if flag bit 0
//! end      tag        u8       0xFF
//!          totals     5 x u64  games, positions, White's losses, draws, wins
//! ```
//!
//! A position is its side to move (0 White, 1 Black) then each square 1..=N (N the
//! variant's square count) as a base-5 digit (0 empty, 1 white man, 2 white king, 3 black
//! man, 4 black king), three digits a byte (`d0 + 5 d1 + 25 d2`, below 125), the last byte
//! padded with zeros: `ceil((N + 1) / 3)` bytes, 17 on 10x10, 11 on 8x8. As in a FEN,
//! frisian's count of a king's moves in a row is not kept.
//!
//! A file is whole only with its end record, whose totals must match the games before it,
//! and nothing after it: a truncated file, a bad magic, another version, unknown flags, a
//! byte out of range or a position the rules refuse is an error naming the file and the
//! byte offset (and the game record, counted from 1). A file being written has no end
//! record until its last game is in (`tune games` writes `OUT.part` and renames it).

use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::rules::{Bits, Board, Color, Setup, Variant};

/// The first bytes of a binary file (a high byte first, so no text file starts so).
pub const MAGIC: [u8; 8] = *b"\x89tammi\x1a\n";
/// The version this build writes and reads.
pub const VERSION: u16 = 1;
const END: u8 = 0xFF;
const MAX_PROVENANCE: usize = 1 << 20;

/// What the header says.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub variant: Variant,
    /// Every position has a search score.
    pub scores: bool,
    /// The command that made the file.
    pub provenance: String,
}

impl Header {
    pub fn to_bytes(&self) -> Vec<u8> {
        let name = self.variant.name().as_bytes();
        // At most MAX_PROVENANCE bytes, cut at a character's start.
        let mut cut = self.provenance.len().min(MAX_PROVENANCE);
        while !self.provenance.is_char_boundary(cut) {
            cut -= 1;
        }
        let prov = &self.provenance.as_bytes()[..cut];
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&VERSION.to_le_bytes());
        v.push(name.len() as u8);
        v.extend_from_slice(name);
        v.push(u8::from(self.scores));
        v.extend_from_slice(&(prov.len() as u32).to_le_bytes());
        v.extend_from_slice(prov);
        v
    }
}

/// Games, positions and White's losses, draws and wins of a file (its end record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub games: u64,
    pub positions: u64,
    /// White's losses, draws and wins.
    pub score: [u64; 3],
}

impl Totals {
    pub fn add(&mut self, other: &Totals) {
        self.games += other.games;
        self.positions += other.positions;
        for i in 0..3 {
            self.score[i] += other.score[i];
        }
    }

    /// `white +W =D -L`.
    pub fn white_score(&self) -> String {
        let [l, d, w] = self.score;
        format!("white +{w} ={d} -{l}")
    }

    /// The footer line of a text file of `tune games` with these totals:
    /// `# games N positions M white +W =D -L`.
    pub fn footer(&self) -> String {
        format!(
            "# games {} positions {} {}",
            self.games,
            self.positions,
            self.white_score()
        )
    }

    /// The totals of a text file's comment line if it is a footer (it starts `# games`):
    /// `Err` when it starts so but is not a whole one.
    pub fn parse_footer(comment: &str) -> Option<Result<Totals, String>> {
        let words: Vec<&str> = comment.strip_prefix('#')?.split_whitespace().collect();
        if words.first() != Some(&"games") {
            return None;
        }
        let n = |x: &str, sign: char| x.strip_prefix(sign)?.parse().ok();
        Some(match words[..] {
            ["games", g, "positions", p, "white", w, d, l] => {
                match (g.parse(), p.parse(), n(l, '-'), n(d, '='), n(w, '+')) {
                    (Ok(games), Ok(positions), Some(l), Some(d), Some(w)) => Ok(Totals {
                        games,
                        positions,
                        score: [l, d, w],
                    }),
                    _ => Err(format!("a bad footer '{comment}'")),
                }
            }
            _ => Err(format!("a bad footer '{comment}'")),
        })
    }

    /// The end record of a file with these totals.
    pub fn end_record(&self) -> Vec<u8> {
        let mut v = vec![END];
        for x in [
            self.games,
            self.positions,
            self.score[0],
            self.score[1],
            self.score[2],
        ] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v
    }
}

/// Bytes of a packed position of `variant`.
pub fn packed_len(variant: Variant) -> usize {
    (variant.squares() as usize + 1).div_ceil(3)
}

/// Appends `pos` packed (see the module docs).
pub fn pack<P: Board>(pos: &P, out: &mut Vec<u8>) {
    let (white, kings) = (pos.white(), pos.kings());
    let black = pos.black();
    let digit = |n: u32| -> u8 {
        let Some(bit) = P::bit_of_square(n) else {
            return 0;
        };
        let k = u8::from(kings.has(bit));
        if white.has(bit) {
            1 + k
        } else if black.has(bit) {
            3 + k
        } else {
            0
        }
    };
    let n = P::square_count();
    let side = u8::from(pos.side() == Color::Black);
    let digits = std::iter::once(side).chain((1..=n).map(digit));
    let mut byte = 0u8;
    let mut place = 1u8;
    for (i, d) in digits.enumerate() {
        byte += d * place;
        if i % 3 == 2 {
            out.push(byte);
            (byte, place) = (0, 1);
        } else {
            place *= 5;
        }
    }
    if place != 1 {
        out.push(byte);
    }
}

/// The position packed in `bytes` (exactly [`packed_len`] of them), or what is wrong.
pub fn unpack<P: Board>(bytes: &[u8]) -> Result<P, String> {
    let n = P::square_count() as usize;
    if bytes.len() != (n + 1).div_ceil(3) {
        return Err(format!(
            "a packed position is {} bytes",
            (n + 1).div_ceil(3)
        ));
    }
    let mut digits = Vec::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if b >= 125 {
            return Err(format!("byte {b} of a packed position is above 124"));
        }
        digits.extend([b % 5, b / 5 % 5, b / 25]);
    }
    if digits[0] > 1 || digits[n + 1..].iter().any(|&d| d != 0) {
        return Err("bad side to move or padding in a packed position".into());
    }
    let mut setup = Setup {
        side: if digits[0] == 0 {
            Color::White
        } else {
            Color::Black
        },
        white: Vec::new(),
        black: Vec::new(),
    };
    for (i, &d) in digits[1..=n].iter().enumerate() {
        if d == 0 {
            continue;
        }
        let bit = P::bit_of_square(i as u32 + 1)
            .ok_or_else(|| format!("square {} is not on the board", i + 1))?;
        let list = if d <= 2 {
            &mut setup.white
        } else {
            &mut setup.black
        };
        list.push((bit, d == 2 || d == 4));
    }
    P::from_setup(&setup).map_err(|e| format!("not a valid position: {e:?}"))
}

/// Writes one game record: `result` is White's (0, 0.5 or 1), `packed` its positions
/// packed one after another, `scores` one a position if the file has them.
pub fn write_game(
    out: &mut impl Write,
    variant: Variant,
    result: f64,
    packed: &[u8],
    scores: Option<&[i16]>,
) -> std::io::Result<u64> {
    let len = packed_len(variant);
    let count = packed.len() / len;
    debug_assert_eq!(packed.len() % len, 0);
    let mut rec = vec![(result * 2.0).round() as u8];
    rec.extend_from_slice(&(count as u32).to_le_bytes());
    for (i, p) in packed.chunks(len).enumerate() {
        rec.extend_from_slice(p);
        if let Some(s) = scores {
            rec.extend_from_slice(&s[i].to_le_bytes());
        }
    }
    out.write_all(&rec)?;
    Ok(rec.len() as u64)
}

/// Whether the file at `path` starts like a binary data file (its first byte is the
/// magic's): such a file is read as binary, and refused if the rest is not.
pub fn is_binary(path: &Path) -> Result<bool> {
    let mut first = [0u8; 1];
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let n = f
        .read(&mut first)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(n == 1 && first[0] == MAGIC[0])
}

/// One game record as read.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// White's result: 0, 0.5 or 1.
    pub result: f32,
    /// The positions packed, one after another.
    pub packed: Vec<u8>,
    /// Their scores, if the file has them.
    pub scores: Vec<i16>,
    /// The record's bytes as in the file.
    pub raw: Vec<u8>,
}

/// Reads a binary file record by record, checking each.
pub struct Reader {
    path: PathBuf,
    input: BufReader<std::fs::File>,
    offset: u64,
    header: Header,
    /// Counted from the records so far.
    totals: Totals,
    ended: bool,
}

impl Reader {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Reader> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut r = Reader {
            path: path.to_path_buf(),
            input: BufReader::new(file),
            offset: 0,
            header: Header {
                variant: Variant::English,
                scores: false,
                provenance: String::new(),
            },
            totals: Totals::default(),
            ended: false,
        };
        let magic = r.bytes(8, "the header")?;
        if magic != MAGIC {
            bail!(
                "{}: byte 0: not a tammi binary data file (bad magic)",
                r.at()
            );
        }
        let version = u16::from_le_bytes(r.array::<2>("the header")?);
        if version != VERSION {
            bail!(
                "{}: byte 8: format version {version}, this build reads version {VERSION}",
                r.at()
            );
        }
        let len = r.array::<1>("the header")?[0] as usize;
        let at = r.offset;
        let name = r.bytes(len, "the header")?;
        let variant = std::str::from_utf8(&name)
            .ok()
            .and_then(|n| n.parse::<Variant>().ok())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: byte {at}: unknown variant '{}'",
                    r.at(),
                    String::from_utf8_lossy(&name)
                )
            })?;
        let at = r.offset;
        let flags = r.array::<1>("the header")?[0];
        if flags > 1 {
            bail!("{}: byte {at}: unknown flags {flags:#04x}", r.at());
        }
        let at = r.offset;
        let len = u32::from_le_bytes(r.array::<4>("the header")?) as usize;
        if len > MAX_PROVENANCE {
            bail!("{}: byte {at}: provenance of {len} bytes", r.at());
        }
        let prov = r.bytes(len, "the header")?;
        let provenance = String::from_utf8(prov)
            .map_err(|_| anyhow::anyhow!("{}: byte {at}: provenance is not UTF-8", r.at()))?;
        r.header = Header {
            variant,
            scores: flags == 1,
            provenance,
        };
        Ok(r)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The totals of the records read so far (at the end: the file's, checked).
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// Refuses a file of another variant than `variant`.
    pub fn expect_variant(&self, variant: Variant) -> Result<()> {
        if self.header.variant != variant {
            bail!(
                "{}: byte 10: the file holds {} positions, not {variant}",
                self.at(),
                self.header.variant
            );
        }
        Ok(())
    }

    fn at(&self) -> String {
        self.path.display().to_string()
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<Vec<u8>> {
        let mut v = vec![0u8; n];
        let mut got = 0;
        while got < n {
            match self.input.read(&mut v[got..]) {
                Ok(0) => bail!(
                    "{}: byte {}: truncated in {what} (the file ends {} bytes short)",
                    self.at(),
                    self.offset + got as u64,
                    n - got
                ),
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("{}: byte {}", self.at(), self.offset + got as u64)
                    });
                }
            }
        }
        self.offset += n as u64;
        Ok(v)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        Ok(self.bytes(N, what)?.try_into().expect("N bytes"))
    }

    /// The next game, or `None` after the end record (checked against the games read,
    /// and the file's last bytes).
    pub fn next_game(&mut self) -> Result<Option<GameRecord>> {
        if self.ended {
            return Ok(None);
        }
        let record = self.totals.games + 1;
        let start = self.offset;
        let what = format!("game record {record}");
        let tag = self.array::<1>(&what).with_context(|| {
            format!(
                "no end record: the file was cut short after {} games",
                record - 1
            )
        })?[0];
        if tag == END {
            let what = "the end record";
            let mut n = [0u64; 5];
            for x in &mut n {
                *x = u64::from_le_bytes(self.array::<8>(what)?);
            }
            let said = Totals {
                games: n[0],
                positions: n[1],
                score: [n[2], n[3], n[4]],
            };
            if said != self.totals {
                bail!(
                    "{}: byte {start}: the end record counts {said:?}, the records {:?}",
                    self.at(),
                    self.totals
                );
            }
            let mut rest = [0u8; 1];
            if self.input.read(&mut rest)? != 0 {
                bail!(
                    "{}: byte {}: bytes after the end record",
                    self.at(),
                    self.offset
                );
            }
            self.ended = true;
            return Ok(None);
        }
        if tag > 2 {
            bail!(
                "{}: byte {start}: game record {record}: result byte {tag} (0, 1, 2 or 255 expected)",
                self.at()
            );
        }
        let count = u32::from_le_bytes(self.array::<4>(&what)?) as usize;
        let len = packed_len(self.header.variant);
        let mut packed = Vec::new();
        let mut scores = Vec::new();
        let mut raw = vec![tag];
        raw.extend_from_slice(&(count as u32).to_le_bytes());
        for _ in 0..count {
            let p = self.bytes(len, &what)?;
            raw.extend_from_slice(&p);
            packed.extend_from_slice(&p);
            if self.header.scores {
                let s = self.array::<2>(&what)?;
                raw.extend_from_slice(&s);
                scores.push(i16::from_le_bytes(s));
            }
        }
        self.totals.games += 1;
        self.totals.positions += count as u64;
        self.totals.score[tag as usize] += 1;
        Ok(Some(GameRecord {
            result: tag as f32 / 2.0,
            packed,
            scores,
            raw,
        }))
    }

    /// Where position `i` of the game just read starts, for errors.
    pub fn position_offset(&self, game: &GameRecord, i: usize) -> u64 {
        let per = packed_len(self.header.variant) as u64 + if self.header.scores { 2 } else { 0 };
        self.offset - game.raw.len() as u64 + 5 + per * i as u64
    }
}

/// Reads `path` whole, checking every record and position (as `P`); its header and totals.
pub fn check_file<P: Board>(path: &Path) -> Result<(Header, Totals)> {
    let mut r = Reader::open(path)?;
    r.expect_variant(P::VARIANT)?;
    let len = packed_len(P::VARIANT);
    while let Some(g) = r.next_game()? {
        for (i, p) in g.packed.chunks(len).enumerate() {
            unpack::<P>(p).map_err(|e| {
                anyhow::anyhow!(
                    "{}: byte {}: game record {}: {e}",
                    path.display(),
                    r.position_offset(&g, i),
                    r.totals().games
                )
            })?;
        }
    }
    Ok((r.header().clone(), r.totals()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rng::MixChain;
    use crate::rules::{English, International, Position};

    /// Positions of `games` random games of `P` (results cycling loss, draw, win), with
    /// scores: what a test writes and reads back.
    pub(crate) fn random_games<P: Board>(seed: u64, games: usize) -> Vec<(f64, Vec<(P, i16)>)> {
        let mut rng = MixChain::new(seed);
        let mut list = Vec::new();
        (0..games)
            .map(|g| {
                let mut pos = P::start();
                let mut positions = Vec::new();
                for _ in 0..rng.below(40) {
                    pos.generate(&mut list);
                    if list.is_empty() {
                        break;
                    }
                    pos = pos.play(&list[rng.below(list.len())]);
                    let score = rng.below(6001) as i16 - 3000;
                    positions.push((pos, score));
                }
                ((g % 3) as f64 / 2.0, positions)
            })
            .collect()
    }

    /// The file of `games`, with scores or not.
    pub(crate) fn write_file<P: Board>(games: &[(f64, Vec<(P, i16)>)], scores: bool) -> Vec<u8> {
        let mut v = Header {
            variant: P::VARIANT,
            scores,
            provenance: "a test: ünïcode".into(),
        }
        .to_bytes();
        let mut totals = Totals::default();
        for (result, positions) in games {
            let mut packed = Vec::new();
            positions.iter().for_each(|(p, _)| pack(p, &mut packed));
            let s: Vec<i16> = positions.iter().map(|&(_, s)| s).collect();
            write_game(
                &mut v,
                P::VARIANT,
                *result,
                &packed,
                scores.then_some(&s[..]),
            )
            .unwrap();
            totals.games += 1;
            totals.positions += positions.len() as u64;
            totals.score[(result * 2.0) as usize] += 1;
        }
        v.extend_from_slice(&totals.end_record());
        v
    }

    pub(crate) fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tammi-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn positions_pack_to_their_length_and_back() {
        fn check<P: Board>(pos: P) {
            let mut v = Vec::new();
            pack(&pos, &mut v);
            assert_eq!(v.len(), packed_len(P::VARIANT));
            assert_eq!(unpack::<P>(&v).unwrap(), pos);
            // A byte out of range, and a wrong length, are refused.
            let mut bad = v.clone();
            bad[0] = 125;
            assert!(unpack::<P>(&bad).is_err());
            assert!(unpack::<P>(&v[1..]).is_err());
        }
        check(Position::<International>::start());
        check(Position::<International>::start().pass());
        check(Position::<English>::start());
        assert_eq!(packed_len(Variant::International), 17);
        assert_eq!(packed_len(Variant::English), 11);
    }

    /// Writes `games` to a file, reads it back record by record: the same games, the
    /// same positions, results and scores, and the totals.
    fn round_trip<P: Board>(seed: u64) {
        let games = random_games::<P>(seed, 7);
        for scores in [false, true] {
            let path = temp(&format!("rt-{}-{scores}.bin", P::VARIANT));
            std::fs::write(&path, write_file(&games, scores)).unwrap();
            let (header, totals) = check_file::<P>(&path).unwrap();
            assert_eq!(header.provenance, "a test: ünïcode");
            assert_eq!((header.variant, header.scores), (P::VARIANT, scores));
            assert_eq!(totals.games, 7);
            let mut r = Reader::open(&path).unwrap();
            for (result, positions) in &games {
                let g = r.next_game().unwrap().unwrap();
                assert_eq!(g.result as f64, *result);
                // The pieces and the side to move (frisian's count of a king's moves is
                // not kept, as in a FEN).
                let key = |p: &P| {
                    (
                        p.white().to_u128(),
                        p.black().to_u128(),
                        p.kings().to_u128(),
                        p.side(),
                    )
                };
                let got: Vec<_> = g
                    .packed
                    .chunks(packed_len(P::VARIANT))
                    .map(|b| key(&unpack::<P>(b).unwrap()))
                    .collect();
                let want: Vec<_> = positions.iter().map(|(p, _)| key(p)).collect();
                assert_eq!(got, want);
                let want: Vec<i16> = positions.iter().map(|&(_, s)| s).collect();
                assert_eq!(g.scores, if scores { want } else { Vec::new() });
            }
            assert!(r.next_game().unwrap().is_none());
        }
    }

    #[test]
    fn files_round_trip_in_every_board_size() {
        round_trip::<Position<International>>(1);
        round_trip::<Position<English>>(2);
        round_trip::<Position<crate::rules::Canadian>>(3);
        round_trip::<crate::rules::TurkishPosition>(4);
        round_trip::<crate::rules::FrisianBoard>(5);
    }

    #[test]
    fn a_file_cut_anywhere_is_refused_naming_where() {
        let games = random_games::<Position<International>>(7, 3);
        let whole = write_file(&games, true);
        let path = temp("cut.bin");
        let read = |bytes: &[u8]| -> Result<Totals> {
            std::fs::write(&path, bytes).unwrap();
            let (_, t) = check_file::<Position<International>>(&path)?;
            Ok(t)
        };
        assert_eq!(read(&whole).unwrap().games, 3);
        for cut in 1..whole.len() {
            let e = format!("{:#}", read(&whole[..cut]).unwrap_err());
            assert!(e.contains(&*path.to_string_lossy()), "cut {cut}: {e}");
            assert!(e.contains("byte "), "cut {cut}: {e}");
        }
        // A byte more after the end record.
        let mut more = whole.clone();
        more.push(0);
        assert!(format!("{:#}", read(&more).unwrap_err()).contains("after the end record"));
    }

    #[test]
    fn a_bad_header_or_record_is_refused() {
        let games = random_games::<Position<English>>(9, 2);
        let whole = write_file(&games, false);
        let path = temp("bad.bin");
        let read = |bytes: &[u8]| -> String {
            std::fs::write(&path, bytes).unwrap();
            format!("{:#}", check_file::<Position<English>>(&path).unwrap_err())
        };
        let with = |i: usize, b: u8| {
            let mut v = whole.clone();
            v[i] = b;
            v
        };
        assert!(read(&with(1, b'T')).contains("bad magic"));
        assert!(read(&with(8, 2)).contains("format version 2"));
        assert!(read(&with(11, b'x')).contains("unknown variant"));
        let flags = 11 + "english".len();
        assert!(read(&with(flags, 4)).contains("unknown flags"));
        // A result byte out of range (the first game record follows the header).
        let header_len = Header {
            variant: Variant::English,
            scores: false,
            provenance: "a test: ünïcode".into(),
        }
        .to_bytes()
        .len();
        assert!(read(&with(header_len, 7)).contains("game record 1: result byte 7"));
        // A square's byte out of range.
        assert!(read(&with(header_len + 5, 200)).contains("above 124"));
        // Totals that do not match the records.
        let n = whole.len();
        assert!(read(&with(n - 40, 9)).contains("the end record counts"));
        // Another variant's file.
        std::fs::write(&path, &whole).unwrap();
        let e = check_file::<Position<International>>(&path).unwrap_err();
        assert!(format!("{e:#}").contains("holds english positions, not international"));
    }
}
