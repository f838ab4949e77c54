//! `tammi tune label`: a search score for every position of a `tune games` file.
//!
//! A game's result says little about one of its positions when the games are played at a
//! few thousand nodes a move: in international draughts a one-man lead wins only 60% of
//! them (K ≈ 0.42). A search of the position itself is a far less noisy target, and
//! `tune fit --lambda` blends the two. The score is written as a third column, from
//! White's view in centi-men, so `tune fit` can still read the file with results alone.
//!
//! Each position is searched with a fresh hash table, so a label depends only on the
//! position, the budget and the build's weights: the file is the same for any thread
//! count, and a file cut short is resumed where it stops.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::data::{self, DECIDED};
use crate::rules::{Color, Variant};
use crate::search::engine::{Engine, Score};
use crate::search::limits::{EngineOptions, Limits};

/// What `tune label` does: a search score for every position of `data`, written to
/// `out` (through `out.part`, resumed from it). The fields are the command's flags (see
/// `tammi tune label --help`).
#[derive(Clone, Debug)]
pub struct LabelConfig {
    /// Variant of the positions.
    pub variant: Variant,
    /// A file written by 'tune games'.
    pub data: PathBuf,
    /// The labelled file to write.
    pub out: PathBuf,
    /// Nodes searched per position.
    pub nodes: u64,
    /// Positions searched at once (one engine each).
    pub threads: usize,
    /// Search with the weights of this file instead of the built-in ones.
    pub weights: Option<PathBuf>,
    pub evaluation: EvalConfig,
    /// Search with this endgame database (a file, or a directory holding the variant's).
    pub egdb: Option<PathBuf>,
}

/// The evaluation the tuning commands play or search with (their `--eval` and
/// `--network` flags; the Hub's `eval` and `network` parameters).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalConfig {
    /// The evaluation (default: the variant's network where it has one, else patterns).
    pub eval: Option<crate::eval::EvalKind>,
    /// Play with this network file instead of the built-in network (implies the
    /// network evaluation).
    pub network: Option<PathBuf>,
}

impl EvalConfig {
    /// The evaluation these flags select for `variant` (a network file asks for the
    /// network).
    pub fn kind(&self, variant: Variant) -> crate::eval::EvalKind {
        match (self.eval, &self.network) {
            (Some(kind), _) => kind,
            (None, Some(_)) => crate::eval::EvalKind::Network,
            (None, None) => crate::eval::EvalKind::default_for(variant),
        }
    }

    /// For the files' header lines: what evaluated `variant`.
    pub fn describe(&self, variant: Variant) -> String {
        match (self.kind(variant), &self.network) {
            (crate::eval::EvalKind::Network, Some(p)) => format!("network {}", p.display()),
            (kind, _) => kind.to_string(),
        }
    }
}

/// The evaluation the tuning commands' engines play `variant` with: the weights of
/// `path` and the evaluation of `eval` (their `--weights`, `--eval` and `--network`).
pub fn eval_settings(
    variant: Variant,
    path: Option<&Path>,
    eval: &EvalConfig,
) -> Result<crate::eval::EvalSettings> {
    let mut settings = crate::eval::EvalSettings::default();
    if let Some(p) = path {
        let w = crate::eval::weights::read_file(p, variant).map_err(|e| anyhow::anyhow!(e))?;
        settings
            .replace_weights(variant, Some(w))
            .map_err(|e| anyhow::anyhow!(e))?;
    }
    let kind = eval.kind(variant);
    if let Some(p) = &eval.network {
        if kind == crate::eval::EvalKind::Patterns {
            bail!(
                "--network {} needs the network evaluation, but --eval is patterns",
                p.display()
            );
        }
        let net = crate::eval::network::read_file(p).map_err(|e| anyhow::anyhow!(e))?;
        settings
            .replace_network(variant, Some(net))
            .map_err(|e| anyhow::anyhow!(e))?;
    }
    settings
        .select(variant, kind)
        .map_err(|e| anyhow::anyhow!("--eval: {e}"))?;
    Ok(settings)
}

/// The `--egdb` of the tuning commands: the database file that `path` names for `variant`
/// (itself, or the variant's file in a directory), its header read and checked; its
/// tables are read by whoever probes it (the engines load it from the returned path).
pub fn tuning_egdb(
    variant: Variant,
    path: Option<&Path>,
) -> Result<Option<(PathBuf, crate::egdb::Unread)>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let Some(file) = crate::egdb::locate(path, variant)? else {
        bail!(
            "--egdb {}: the directory holds no {variant} endgame database",
            path.display()
        );
    };
    let db =
        crate::egdb::Database::open(&file).with_context(|| format!("--egdb {}", path.display()))?;
    if db.variant() != variant {
        bail!(
            "--egdb {}: a database of {}, not of {variant}",
            file.display(),
            db.variant()
        );
    }
    Ok(Some((file, db)))
}

/// The most nodes a label may cost (a million positions at this budget is days).
const MAX_NODES: u64 = 100_000_000;

/// Positions searched between two writes of the output (and progress reports).
const BLOCK: usize = 4096;

/// One data line: the position and the result as written in the input.
struct Row {
    fen: String,
    result: String,
}

/// The comments and the data lines of `path`.
fn read_input(path: &Path) -> Result<(Vec<String>, Vec<Row>)> {
    let (mut comments, mut rows) = (Vec::new(), Vec::new());
    data::read_lines(&[path.to_path_buf()], |line, _| {
        match line {
            data::Line::Comment(text) => comments.push(text.to_string()),
            data::Line::Data(labels) => rows.push(Row {
                fen: labels.fen.to_string(),
                result: labels.result_text.to_string(),
            }),
        }
        Ok(())
    })?;
    Ok((comments, rows))
}

/// The data lines already in `part` (from an interrupted run), checked against `input`.
fn resume_point(part: &Path, input: &[Row]) -> Result<usize> {
    let Ok(file) = std::fs::File::open(part) else {
        return Ok(0);
    };
    let mut done = 0;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.with_context(|| format!("reading {}", part.display()))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fen = text.split_whitespace().next().unwrap_or("");
        if text.split_whitespace().count() != 3 {
            // A line cut by the interruption: rewritten from here.
            break;
        }
        match input.get(done) {
            Some(l) if l.fen == fen => done += 1,
            _ => bail!(
                "{} does not continue the input: its position {} differs (remove it to start again)",
                part.display(),
                done + 1
            ),
        }
    }
    Ok(done)
}

/// The `# games N ...` footer of a `tune games` file.
fn is_footer(comment: &str) -> bool {
    comment.starts_with("# games")
}

/// The score of a search from White's view, in centi-men.
pub fn white_score(score: Option<Score>, side: Color) -> i32 {
    let s = match score {
        Some(Score::Eval(v)) => v.clamp(-DECIDED, DECIDED),
        Some(Score::GameEnd(n)) | Some(Score::Database(n)) => DECIDED * n.signum(),
        None => 0,
    };
    if side == Color::White { s } else { -s }
}

/// The side to move of a FEN (`W:...` or `B:...`).
fn side_of(fen: &str) -> Color {
    if fen.starts_with('B') {
        Color::Black
    } else {
        Color::White
    }
}

/// Run `tune label`; progress goes to standard error.
pub fn run_label(a: &LabelConfig) -> Result<()> {
    if !(1..=MAX_NODES).contains(&a.nodes) {
        bail!("--nodes must be between 1 and {MAX_NODES}, got {}", a.nodes);
    }
    if !(1..=EngineOptions::MAX_THREADS).contains(&a.threads) {
        bail!(
            "--threads must be between 1 and {}",
            EngineOptions::MAX_THREADS
        );
    }
    let eval = eval_settings(a.variant, a.weights.as_deref(), &a.evaluation)?;
    let egdb = tuning_egdb(a.variant, a.egdb.as_deref())?;
    let (comments, input) = read_input(&a.data)?;
    let part = PathBuf::from(format!("{}.part", a.out.display()));
    let from = resume_point(&part, &input)?;
    // Rewrite what was done (dropping a cut last line), then append.
    let mut kept = String::new();
    if from > 0 {
        let text = std::fs::read_to_string(&part)?;
        let mut n = 0;
        for line in text.lines() {
            if n == from {
                break;
            }
            kept.push_str(line);
            kept.push('\n');
            if !line.trim().is_empty() && !line.starts_with('#') {
                n += 1;
            }
        }
        eprintln!(
            "resuming {}: {from} of {} positions done",
            part.display(),
            input.len()
        );
    }
    let file = std::fs::File::create(&part)
        .with_context(|| format!("cannot create {}", part.display()))?;
    let mut out = BufWriter::new(file);
    if from == 0 {
        writeln!(
            out,
            "# tammi tune label: variant {}, {} nodes a position, weights {}, eval {}{}, from {}",
            a.variant,
            a.nodes,
            a.weights
                .as_ref()
                .map_or("built-in".to_string(), |p| p.display().to_string()),
            a.evaluation.describe(a.variant),
            egdb.as_ref()
                .map_or(String::new(), |(f, _)| format!(", egdb {}", f.display())),
            a.data.display()
        )?;
        for c in comments.iter().filter(|c| !is_footer(c)) {
            writeln!(out, "{c}")?;
        }
    } else {
        out.write_all(kept.as_bytes())?;
    }

    let options = EngineOptions {
        threads: 1,
        hash_mb: 1,
        egdb: egdb.map(|(file, _)| file),
        ..EngineOptions::default()
    };
    let mut engines = (0..a.threads)
        .map(|_| {
            let mut engine = Engine::new(options.clone())?;
            engine.set_eval(eval.clone());
            Ok(engine)
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| anyhow::anyhow!(e))?;
    let limits = Limits::nodes(a.nodes);
    let start = Instant::now();
    let mut at = from;
    while at < input.len() {
        let block = &input[at..(at + BLOCK).min(input.len())];
        let scores: Vec<AtomicI32> = block.iter().map(|_| AtomicI32::new(0)).collect();
        let next = AtomicUsize::new(0);
        let failure = std::sync::Mutex::new(None::<String>);
        std::thread::scope(|scope| {
            for engine in engines.iter_mut() {
                let (next, scores, failure, limits) = (&next, &scores, &failure, &limits);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= block.len() {
                            return;
                        }
                        let fen = &block[i].fen;
                        engine.new_game();
                        if let Err(e) = engine.set_position(a.variant, fen, &[]) {
                            failure
                                .lock()
                                .unwrap()
                                .get_or_insert(format!("position {}: {fen}: {e}", at + i + 1));
                            return;
                        }
                        let done = engine.think(limits.clone(), |_| {});
                        scores[i].store(white_score(done.score, side_of(fen)), Ordering::Relaxed);
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().unwrap() {
            out.flush()?;
            bail!("{e}");
        }
        for (line, s) in block.iter().zip(&scores) {
            writeln!(
                out,
                "{} {} {}",
                line.fen,
                line.result,
                s.load(Ordering::Relaxed)
            )?;
        }
        out.flush()
            .with_context(|| format!("writing {}", part.display()))?;
        at += block.len();
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let rate = (at - from) as f64 / secs;
        eprintln!(
            "positions {at}/{}  {:.0}/s  {:.0} s, about {:.0} s left",
            input.len(),
            rate,
            secs,
            (input.len() - at) as f64 / rate
        );
    }
    // The input's footer (its game count, which `tune fit` reports) stays last.
    for c in comments.iter().filter(|c| is_footer(c)) {
        writeln!(out, "{c}")?;
    }
    writeln!(out, "# labelled {} positions", input.len())?;
    out.flush()?;
    drop(out);
    std::fs::rename(&part, &a.out)
        .with_context(|| format!("cannot rename {} to {}", part.display(), a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_from_whites_view_and_bounded() {
        assert_eq!(white_score(Some(Score::Eval(120)), Color::White), 120);
        assert_eq!(white_score(Some(Score::Eval(120)), Color::Black), -120);
        assert_eq!(
            white_score(Some(Score::Eval(99_999)), Color::White),
            DECIDED
        );
        assert_eq!(
            white_score(Some(Score::GameEnd(-7)), Color::White),
            -DECIDED
        );
        assert_eq!(
            white_score(Some(Score::Database(3)), Color::Black),
            -DECIDED
        );
        assert_eq!(white_score(None, Color::Black), 0);
        assert_eq!(side_of("B:W18,21-32:B1-12"), Color::Black);
        assert_eq!(side_of("W:W18,21-32:B1-12"), Color::White);
    }
}
