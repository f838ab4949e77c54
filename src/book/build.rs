//! `tammi book build`: a book grown by drop-out expansion (Lincke, "Strategies for the
//! automatic construction of opening books", Computers and Games 2000).
//!
//! The book is a graph of positions (transpositions merged). Every position that is not
//! expanded has a searched score (a fixed node budget, one thread, the hash table
//! cleared before each search: the same command gives the same book, and a resumed
//! build the same book as one that ran through). An expanded position's score is the
//! minimax of its children's. Each step expands the leaf with the lowest *expansion
//! priority*, defined from the roots down:
//!
//! ```text
//! priority(leaf)     = 0
//! priority(expanded) = min over moves m of  1 + priority(child) + error(m) / dropout
//! error(m)           = score(best move) - score(m)      (centi-men, >= 0)
//! ```
//!
//! so a move `dropout` centi-men worse than the best is followed as if it were one ply
//! deeper: the main lines are grown deep, the nearly-as-good ones broad enough to give
//! the choice that makes games vary, and poor moves are left as searched leaves (still
//! listed with their scores). Lincke's method was chosen over plain best-first (too
//! narrow for variety) and fixed-width trees (too broad to be deep) because this single
//! weight trades the two and needs nothing but leaf scores; it treats both sides alike
//! since tammi plays either.
//!
//! The build state (every position with its score, the moves between them and the
//! options that made them) is written next to the book as `BOOK.state` every
//! `checkpoint`, with the book itself; running the same command again continues from
//! it, and a larger `positions` grows the book further.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::rules::Variant;
use crate::search::engine::Engine;
use crate::search::limits::{EngineOptions, Limits};

use super::{Book, BookMove, Entry, checksum, encode_score, position_key, write_atomically};

/// The most book positions a build may aim at: with about ten children each, the state
/// stays under a few hundred megabytes.
pub const MAX_POSITIONS: usize = 1_000_000;
/// The score given to a position with no legal move (searched as such; see `leaf_score`).
const FIRST_LINE: &str = "tammi-book-state 1";

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub variant: Variant,
    /// The roots: positions (Hub position strings or FENs) with moves played from them.
    pub roots: Vec<(String, Vec<String>)>,
    /// How the roots were given (recorded in the state, checked on resume).
    pub roots_label: String,
    /// Expanded positions to reach.
    pub positions: usize,
    /// Nodes per leaf search.
    pub nodes: u64,
    /// Centi-men of error worth one ply of depth (see the module documentation).
    pub dropout: u32,
    /// Hash table of the leaf searches, MB.
    pub hash_mb: usize,
    pub egdb: Option<PathBuf>,
    /// How often the state and the book are written.
    pub checkpoint: Duration,
}

/// Progress reported after each expansion.
#[derive(Clone, Debug)]
pub struct Progress {
    pub expanded: usize,
    pub target: usize,
    /// Positions in the graph (searched leaves included).
    pub nodes: usize,
    pub searches: u64,
    /// Time spent building, this run and earlier ones.
    pub elapsed: Duration,
    /// Of this run only.
    pub run_elapsed: Duration,
    pub run_expanded: usize,
    pub written: bool,
}

impl Progress {
    /// The time still needed at this run's rate.
    pub fn eta(&self) -> Option<Duration> {
        if self.run_expanded == 0 {
            return None;
        }
        let per = self.run_elapsed.as_secs_f64() / self.run_expanded as f64;
        Some(Duration::from_secs_f64(
            per * self.target.saturating_sub(self.expanded) as f64,
        ))
    }
}

/// How the build ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub expanded: usize,
    pub book_positions: usize,
    pub searches: u64,
    pub elapsed: Duration,
    /// Nothing was left to expand before `positions` was reached.
    pub exhausted: bool,
}

#[derive(Clone, Debug)]
struct Node {
    /// The Hub position string.
    pos: String,
    /// Distance from the nearest root.
    ply: u32,
    /// The searched score, side to move's view (see `encode_score`).
    leaf: i32,
    expanded: bool,
    /// (Hub move, child index), in the move generator's order.
    children: Vec<(String, u32)>,
}

struct State {
    header: Vec<(String, String)>,
    nodes: Vec<Node>,
    roots: Vec<u32>,
    index: HashMap<String, u32>,
    searches: u64,
    elapsed: Duration,
}

/// The path of the build state of the book at `out`.
pub fn state_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".state");
    PathBuf::from(s)
}

fn header_of(o: &BuildOptions) -> Vec<(String, String)> {
    let roots: String = o
        .roots
        .iter()
        .map(|(p, m)| format!("{p} {}\n", m.join(" ")))
        .collect();
    vec![
        ("variant".into(), o.variant.hub_name().into()),
        ("roots".into(), o.roots_label.clone()),
        (
            "roots-checksum".into(),
            format!("{:016x}", checksum(roots.as_bytes())),
        ),
        ("nodes".into(), o.nodes.to_string()),
        ("dropout".into(), o.dropout.to_string()),
        ("hash".into(), o.hash_mb.to_string()),
        (
            "egdb".into(),
            o.egdb
                .as_ref()
                .map_or("-".into(), |p| p.display().to_string()),
        ),
    ]
}

/// Check before any work that the book can be written at `out` and whether a build is
/// to be resumed: a book without its state (not made by this build, or finished and
/// tidied) is not overwritten.
pub fn check_output(out: &Path) -> Result<bool, String> {
    let state = state_path(out);
    let resume = state.exists();
    if out.is_dir() {
        return Err(format!("{} is a directory", out.display()));
    }
    if out.exists() && !resume {
        return Err(format!(
            "{} exists and has no build state ({}) to continue from; remove it or choose another path",
            out.display(),
            state.display()
        ));
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(format!("directory {} does not exist", dir.display()));
    }
    // A trial write: a read-only directory fails now, not after an hour of searching.
    let mut probe = out.as_os_str().to_owned();
    probe.push(".probe");
    let probe = PathBuf::from(probe);
    std::fs::write(&probe, b"")
        .map_err(|e| format!("cannot write next to {}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(resume)
}

/// Build (or continue building) the book at `out`; `progress` is called after every
/// expansion.
pub fn build(
    o: &BuildOptions,
    out: &Path,
    mut progress: impl FnMut(&Progress),
) -> Result<Outcome, String> {
    if o.positions == 0 || o.positions > MAX_POSITIONS {
        return Err(format!(
            "positions must be from 1 to {MAX_POSITIONS}, got {}",
            o.positions
        ));
    }
    if o.nodes == 0 || o.dropout == 0 {
        return Err("nodes and dropout must be positive".into());
    }
    if o.roots.is_empty() {
        return Err("no root to build from".into());
    }
    let resume = check_output(out)?;
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mb: o.hash_mb,
        egdb: o.egdb.clone(),
        ..EngineOptions::default()
    })?;
    let header = header_of(o);
    let mut st = if resume {
        let s = read_state(&state_path(out))?;
        if s.header != header {
            let differ: Vec<String> = header
                .iter()
                .zip(&s.header)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("{} was '{}', now '{}'", a.0, b.1, a.1))
                .collect();
            return Err(format!(
                "{} was built with other options ({}); use the same ones to continue, or another path",
                state_path(out).display(),
                differ.join("; ")
            ));
        }
        s
    } else {
        let mut s = State {
            header,
            nodes: Vec::new(),
            roots: Vec::new(),
            index: HashMap::new(),
            searches: 0,
            elapsed: Duration::ZERO,
        };
        for (pos, moves) in &o.roots {
            engine
                .set_position(o.variant, pos, moves)
                .map_err(|e| format!("root '{pos} {}': {e}", moves.join(" ")))?;
            let hub = engine.hub_position();
            if s.index.contains_key(&hub) {
                continue;
            }
            let leaf = leaf_score(&mut engine, o, &hub)?;
            s.searches += 1;
            let i = s.nodes.len() as u32;
            s.nodes.push(Node {
                pos: hub.clone(),
                ply: 0,
                leaf,
                expanded: false,
                children: Vec::new(),
            });
            s.index.insert(hub, i);
            s.roots.push(i);
        }
        s
    };
    let run_start = Instant::now();
    let before = st.elapsed;
    let mut last_write = Instant::now();
    let mut run_expanded = 0;
    let mut exhausted = false;
    loop {
        let expanded = st.nodes.iter().filter(|n| n.expanded).count();
        if expanded >= o.positions {
            break;
        }
        let Some(leaf) = next_leaf(&st, o.dropout) else {
            exhausted = true;
            break;
        };
        expand(&mut st, &mut engine, o, leaf)?;
        run_expanded += 1;
        st.elapsed = before + run_start.elapsed();
        let write = last_write.elapsed() >= o.checkpoint;
        if write {
            save(&st, o, out)?;
            last_write = Instant::now();
        }
        progress(&Progress {
            expanded: expanded + 1,
            target: o.positions,
            nodes: st.nodes.len(),
            searches: st.searches,
            elapsed: st.elapsed,
            run_elapsed: run_start.elapsed(),
            run_expanded,
            written: write,
        });
    }
    st.elapsed = before + run_start.elapsed();
    let book = save(&st, o, out)?;
    Ok(Outcome {
        expanded: st.nodes.iter().filter(|n| n.expanded).count(),
        book_positions: book.len(),
        searches: st.searches,
        elapsed: st.elapsed,
        exhausted,
    })
}

/// The searched score of `pos` (side to move's view), from a cleared table.
fn leaf_score(engine: &mut Engine, o: &BuildOptions, pos: &str) -> Result<i32, String> {
    engine.set_position(o.variant, pos, &[])?;
    engine.new_game();
    let done = engine.think(Limits::nodes(o.nodes), |_| {});
    // No score: the game is over on the board, lost for the side to move (it is never
    // expanded; see `expand`).
    Ok(done.score.map_or(-super::GAME_END + 1, encode_score))
}

fn expand(st: &mut State, engine: &mut Engine, o: &BuildOptions, at: u32) -> Result<(), String> {
    let pos = st.nodes[at as usize].pos.clone();
    let ply = st.nodes[at as usize].ply;
    engine.set_position(o.variant, &pos, &[])?;
    let moves = if engine.outcome().is_some() {
        Vec::new()
    } else {
        engine.legal_moves()
    };
    let mut children = Vec::with_capacity(moves.len());
    for mv in moves {
        engine.set_position(o.variant, &pos, std::slice::from_ref(&mv))?;
        let child = engine.hub_position();
        let i = match st.index.get(&child) {
            Some(&i) => {
                let n = &mut st.nodes[i as usize];
                n.ply = n.ply.min(ply + 1);
                i
            }
            None => {
                let leaf = leaf_score(engine, o, &child)?;
                st.searches += 1;
                let i = st.nodes.len() as u32;
                st.nodes.push(Node {
                    pos: child.clone(),
                    ply: ply + 1,
                    leaf,
                    expanded: false,
                    children: Vec::new(),
                });
                st.index.insert(child, i);
                i
            }
        };
        children.push((mv, i));
    }
    let n = &mut st.nodes[at as usize];
    n.children = children;
    n.expanded = true;
    Ok(())
}

/// The nodes reachable from the roots, children before parents; an edge back to a node
/// still on the path (a repetition, possible with kings) is ignored there.
fn post_order(st: &State) -> Vec<u32> {
    // 0 unseen, 1 on the path, 2 done.
    let mut mark = vec![0u8; st.nodes.len()];
    let mut order = Vec::with_capacity(st.nodes.len());
    for &r in &st.roots {
        if mark[r as usize] != 0 {
            continue;
        }
        let mut stack: Vec<(u32, usize)> = vec![(r, 0)];
        mark[r as usize] = 1;
        while let Some(&mut (n, ref mut next)) = stack.last_mut() {
            let children = &st.nodes[n as usize].children;
            if *next < children.len() {
                let c = children[*next].1;
                *next += 1;
                if mark[c as usize] == 0 {
                    mark[c as usize] = 1;
                    stack.push((c, 0));
                }
            } else {
                mark[n as usize] = 2;
                order.push(n);
                stack.pop();
            }
        }
    }
    order
}

/// Minimax values (side to move's view) of every node, and the book positions under
/// each (counted along every path, saturating).
fn values(st: &State, order: &[u32]) -> (Vec<i32>, Vec<u32>) {
    let mut value: Vec<i32> = st.nodes.iter().map(|n| n.leaf).collect();
    let mut count = vec![0u32; st.nodes.len()];
    let mut done = vec![false; st.nodes.len()];
    for &n in order {
        let node = &st.nodes[n as usize];
        if node.expanded {
            count[n as usize] = 1;
            if !node.children.is_empty() {
                let mut best = i32::MIN;
                for &(_, c) in &node.children {
                    // A child not done yet is on a cycle: its searched score stands in.
                    let v = if done[c as usize] {
                        value[c as usize]
                    } else {
                        st.nodes[c as usize].leaf
                    };
                    best = best.max(-v);
                    if done[c as usize] {
                        count[n as usize] = count[n as usize].saturating_add(count[c as usize]);
                    }
                }
                value[n as usize] = best;
            }
        }
        done[n as usize] = true;
    }
    (value, count)
}

/// The leaf to expand next: down from the root of lowest priority, along the move of
/// lowest priority; `None` when every line ends in a finished game.
fn next_leaf(st: &State, dropout: u32) -> Option<u32> {
    let order = post_order(st);
    let (value, _) = values(st, &order);
    let mut prio = vec![f64::INFINITY; st.nodes.len()];
    let mut done = vec![false; st.nodes.len()];
    // Through each expanded node, the child its priority comes from.
    let mut via = vec![u32::MAX; st.nodes.len()];
    for &n in &order {
        let node = &st.nodes[n as usize];
        if !node.expanded {
            prio[n as usize] = 0.0;
        } else {
            for &(_, c) in &node.children {
                if !done[c as usize] {
                    continue;
                }
                let error = (value[n as usize] + value[c as usize]).max(0) as f64;
                let p = 1.0 + prio[c as usize] + error / dropout as f64;
                if p < prio[n as usize] {
                    prio[n as usize] = p;
                    via[n as usize] = c;
                }
            }
        }
        done[n as usize] = true;
    }
    let mut n = *st
        .roots
        .iter()
        .filter(|&&r| prio[r as usize].is_finite())
        .min_by(|a, b| prio[**a as usize].total_cmp(&prio[**b as usize]))?;
    while st.nodes[n as usize].expanded {
        n = via[n as usize];
        if n == u32::MAX {
            return None;
        }
    }
    Some(n)
}

/// The playing book of the state: every expanded position with its moves, scored by
/// minimax.
fn to_book(st: &State, variant: Variant) -> Book {
    let order = post_order(st);
    let (value, count) = values(st, &order);
    let mut book = Book::new(variant);
    for &n in &order {
        let node = &st.nodes[n as usize];
        if !node.expanded || node.children.is_empty() || node.children.len() > super::MAX_MOVES {
            continue;
        }
        let mut moves: Vec<BookMove> = node
            .children
            .iter()
            .map(|(mv, c)| BookMove {
                mv: mv.clone(),
                score: (-value[*c as usize]).clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                count: count[*c as usize],
            })
            .collect();
        // Best first; the generator's order among equals (a stable sort).
        moves.sort_by_key(|m| std::cmp::Reverse(m.score));
        book.entries.insert(
            position_key(variant, &node.pos),
            Entry {
                ply: node.ply.min(255) as u8,
                moves,
            },
        );
    }
    book
}

/// Write the state and the book; returns the book.
fn save(st: &State, o: &BuildOptions, out: &Path) -> Result<Book, String> {
    let mut text = String::new();
    let _ = writeln!(text, "{FIRST_LINE}");
    for (k, v) in &st.header {
        let _ = writeln!(text, "{k} {v}");
    }
    let _ = writeln!(text, "searches {}", st.searches);
    let _ = writeln!(text, "seconds {:.3}", st.elapsed.as_secs_f64());
    let roots: Vec<String> = st.roots.iter().map(u32::to_string).collect();
    let _ = writeln!(text, "root-nodes {}", roots.join(" "));
    let _ = writeln!(text, "positions {}", st.nodes.len());
    for n in &st.nodes {
        let children: Vec<String> = n.children.iter().map(|(m, c)| format!("{m}={c}")).collect();
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}",
            n.pos,
            n.ply,
            n.leaf,
            if n.expanded { 'E' } else { 'L' },
            children.join(" ")
        );
    }
    let _ = writeln!(text, "end {:016x}", checksum(text.as_bytes()));
    let book = to_book(st, o.variant);
    // The state first: a book is never newer than the state it was made from.
    write_atomically(&state_path(out), text.as_bytes())?;
    book.write_file(out)?;
    Ok(book)
}

fn read_state(path: &Path) -> Result<State, String> {
    let bad = |what: &str| format!("build state {}: {what}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| bad(&format!("cannot read: {e}")))?;
    let body_end = text
        .rfind("end ")
        .ok_or_else(|| bad("no end line (truncated?)"))?;
    let (body, end) = text.split_at(body_end);
    let sum = end.trim().strip_prefix("end ").unwrap_or("");
    if u64::from_str_radix(sum, 16).ok() != Some(checksum(body.as_bytes())) {
        return Err(bad("the checksum does not match (damaged or truncated)"));
    }
    let mut lines = body.lines();
    if lines.next() != Some(FIRST_LINE) {
        return Err(bad("not a tammi book build state"));
    }
    let mut header = Vec::new();
    for _ in 0..7 {
        let l = lines.next().ok_or_else(|| bad("short header"))?;
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        header.push((k.to_string(), v.to_string()));
    }
    let mut field = |name: &str| -> Result<String, String> {
        let l = lines.next().ok_or_else(|| bad("short header"))?;
        l.strip_prefix(name)
            .and_then(|r| r.strip_prefix(' ').or(Some(r).filter(|r| r.is_empty())))
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("expected '{name}'")))
    };
    let searches: u64 = field("searches")?.parse().map_err(|_| bad("searches"))?;
    let seconds: f64 = field("seconds")?.parse().map_err(|_| bad("seconds"))?;
    let roots_text = field("root-nodes")?;
    let count: usize = field("positions")?.parse().map_err(|_| bad("positions"))?;
    let mut nodes = Vec::new();
    let mut index = HashMap::new();
    for (i, l) in lines.enumerate() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 5 {
            return Err(bad(&format!("position line {}", i + 1)));
        }
        let mut children = Vec::new();
        for c in f[4].split_whitespace() {
            let (m, c) = c.split_once('=').ok_or_else(|| bad("a move"))?;
            let c: u32 = c.parse().map_err(|_| bad("a child"))?;
            if c as usize >= count {
                return Err(bad("a child out of range"));
            }
            children.push((m.to_string(), c));
        }
        nodes.push(Node {
            pos: f[0].to_string(),
            ply: f[1].parse().map_err(|_| bad("a ply"))?,
            leaf: f[2].parse().map_err(|_| bad("a score"))?,
            expanded: f[3] == "E",
            children,
        });
        index.insert(f[0].to_string(), i as u32);
    }
    if nodes.len() != count {
        return Err(bad("the number of positions does not match"));
    }
    let roots = roots_text
        .split_whitespace()
        .map(|r| r.parse::<u32>().ok().filter(|&r| (r as usize) < count))
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(|| bad("root-nodes"))?;
    Ok(State {
        header,
        nodes,
        roots,
        index,
        searches,
        elapsed: Duration::from_secs_f64(seconds.max(0.0)),
    })
}
