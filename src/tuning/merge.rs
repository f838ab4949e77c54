//! `tammi tune merge`: shards of `tune games` (played by seed on many machines) made one
//! file, games in the order of the shards given. Every shard is read whole and checked
//! first (binary: every record and position, the end record; text: every line a
//! position of the variant, the `# games` footer counting them); shards of other variants
//! or formats (text and binary, scored and not) are refused before anything is written.
//! The output goes through `OUT.part`, renamed when whole.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::data::{self, DataFormat, Line};
use super::record::{self, Totals};
use crate::rules::Variant;
use crate::with_board;

/// What `tune merge` does: `shards` into `out`.
#[derive(Clone, Debug)]
pub struct MergeConfig {
    pub out: PathBuf,
    pub shards: Vec<PathBuf>,
}

/// What a shard holds, as checked.
#[derive(Clone, Debug)]
pub struct Shard {
    pub path: PathBuf,
    pub format: DataFormat,
    pub variant: Variant,
    /// Binary: every position has a search score.
    pub scores: bool,
    /// The command that made it (binary: the provenance; text: the first header line).
    pub provenance: String,
    pub totals: Totals,
}

/// Reads `path` whole and says what it holds, or what is wrong with it.
pub fn check_shard(path: &Path) -> Result<Shard> {
    if record::is_binary(path)? {
        let header = record::Reader::open(path)?.header().clone();
        let (header, totals) = with_board!(header.variant, P => record::check_file::<P>(path))?;
        return Ok(Shard {
            path: path.to_path_buf(),
            format: DataFormat::Bin,
            variant: header.variant,
            scores: header.scores,
            provenance: header.provenance,
            totals,
        });
    }
    // Text: the variant from the header of `tune games`, the totals from its footer.
    let mut first = None;
    let mut footer = None;
    let mut positions = 0u64;
    data::read_lines(&[path.to_path_buf()], |line, at| {
        match line {
            Line::Comment(text) => {
                first.get_or_insert_with(|| text.to_string());
                match Totals::parse_footer(text) {
                    Some(Ok(t)) => footer = Some(t),
                    Some(Err(e)) => bail!("{at}: {e}"),
                    None => {}
                }
            }
            Line::Data(_) => positions += 1,
        }
        Ok(())
    })?;
    let provenance = first.unwrap_or_default();
    let variant = provenance
        .split_once("variant ")
        .and_then(|(_, rest)| rest.split([',', ' ']).next())
        .and_then(|v| v.parse::<Variant>().ok())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: line 1: no '# tammi tune games: variant V, ...' header",
                path.display()
            )
        })?;
    let Some(totals) = footer else {
        bail!(
            "{}: no '# games N positions M ...' footer: not a whole 'tune games' file",
            path.display()
        );
    };
    if totals.positions != positions {
        bail!(
            "{}: the footer counts {} positions, the file holds {positions}",
            path.display(),
            totals.positions
        );
    }
    // Every line a position of the variant.
    with_board!(variant, P => data::read_positions::<P>(&[path.to_path_buf()], false, |_| Ok(())))?;
    Ok(Shard {
        path: path.to_path_buf(),
        format: DataFormat::Text,
        variant,
        scores: false,
        provenance,
        totals,
    })
}

/// Run `tune merge`: the shards' counts and the total to standard output, progress to
/// standard error. Returns the totals written.
pub fn run_merge(a: &MergeConfig) -> Result<Totals> {
    if a.shards.is_empty() {
        bail!("no shards to merge");
    }
    if a.shards.iter().any(|s| s == &a.out) {
        bail!("{} is both a shard and the output", a.out.display());
    }
    let mut shards: Vec<Shard> = Vec::new();
    for (i, path) in a.shards.iter().enumerate() {
        eprintln!(
            "checking {} ({} of {})",
            path.display(),
            i + 1,
            a.shards.len()
        );
        let s = check_shard(path)?;
        if let Some(f) = shards.first() {
            let what = |s: &Shard| {
                format!(
                    "{} {}{}",
                    s.variant,
                    if s.format == DataFormat::Bin {
                        "binary"
                    } else {
                        "text"
                    },
                    if s.scores { " with scores" } else { "" }
                )
            };
            if (s.variant, s.format, s.scores) != (f.variant, f.format, f.scores) {
                bail!(
                    "{} holds {}, {} holds {}: shards to merge must be of one variant and format",
                    s.path.display(),
                    what(&s),
                    f.path.display(),
                    what(f)
                );
            }
        }
        println!(
            "{}: games {} positions {} {}",
            path.display(),
            s.totals.games,
            s.totals.positions,
            s.totals.white_score()
        );
        shards.push(s);
    }
    let mut total = Totals::default();
    shards.iter().for_each(|s| total.add(&s.totals));
    let first = &shards[0];
    let provenance = format!(
        "tammi tune merge of {} shards, the first made by: {}",
        shards.len(),
        first.provenance.trim_start_matches("# ")
    );
    let part = PathBuf::from(format!("{}.part", a.out.display()));
    let file = std::fs::File::create(&part)
        .with_context(|| format!("cannot create {}", part.display()))?;
    let mut out = BufWriter::new(file);
    let write = |out: &mut BufWriter<std::fs::File>| -> Result<()> {
        match first.format {
            DataFormat::Bin => {
                let header = record::Header {
                    variant: first.variant,
                    scores: first.scores,
                    provenance,
                };
                out.write_all(&header.to_bytes())?;
                for s in &shards {
                    eprintln!("copying {}", s.path.display());
                    let mut r = record::Reader::open(&s.path)?;
                    while let Some(g) = r.next_game()? {
                        out.write_all(&g.raw)?;
                    }
                }
                out.write_all(&total.end_record())?;
            }
            DataFormat::Text => {
                writeln!(out, "# {provenance}")?;
                for s in &shards {
                    eprintln!("copying {}", s.path.display());
                    data::read_lines(std::slice::from_ref(&s.path), |line, _| {
                        if let Line::Data(l) = line {
                            match l.score {
                                Some(sc) => writeln!(out, "{} {} {sc}", l.fen, l.result_text)?,
                                None => writeln!(out, "{} {}", l.fen, l.result_text)?,
                            }
                        }
                        Ok(())
                    })?;
                }
                writeln!(out, "{}", total.footer())?;
            }
        }
        out.flush()?;
        Ok(())
    };
    write(&mut out).with_context(|| format!("writing {}", part.display()))?;
    drop(out);
    std::fs::rename(&part, &a.out)
        .with_context(|| format!("cannot rename {} to {}", part.display(), a.out.display()))?;
    println!(
        "{}: {} shards, games {} positions {} {}",
        a.out.display(),
        shards.len(),
        total.games,
        total.positions,
        total.white_score()
    );
    Ok(total)
}
