//! Tchuka Ruma: the `tammi tchuka` command and the `tammi::tchuka` solver,
//! checked against a deliberately naive simulator written here from the rules.

use std::collections::HashMap;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tammi::tchuka::{self, Goal, Landing, Outcome};

/// What one sowing did, as seen by the naive simulator.
#[derive(Debug, Clone, PartialEq)]
struct SimSowing {
    hole: usize,
    seeds: u32,
    row: Vec<u32>,
    ruma: u64,
    /// `None` for the ruma.
    lands: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum SimEnd {
    Choose,
    Won,
    Lost,
}

/// Plays a choice seed by seed, exactly as the rules read: take every seed
/// from the hole, drop one in each following place (ruma included, wrapping
/// to the first hole), then look at where the last one fell.
fn sim_choice(row: &mut [u32], ruma: &mut u64, hole: usize) -> (Vec<SimSowing>, SimEnd) {
    assert!(row[hole] > 0, "choosing an empty hole");
    let n = row.len();
    let mut steps = Vec::new();
    let mut from = hole;
    loop {
        assert!(steps.len() < 100_000, "chain does not end");
        let seeds = std::mem::take(&mut row[from]);
        let mut place = from; // n = the ruma
        for _ in 0..seeds {
            place = (place + 1) % (n + 1);
            if place == n {
                *ruma += 1;
            } else {
                row[place] += 1;
            }
        }
        let lands = (place < n).then_some(place);
        steps.push(SimSowing {
            hole: from,
            seeds,
            row: row.to_vec(),
            ruma: *ruma,
            lands,
        });
        match lands {
            None if row.iter().all(|&s| s == 0) => return (steps, SimEnd::Won),
            None => return (steps, SimEnd::Choose),
            Some(p) if row[p] == 1 => return (steps, SimEnd::Lost),
            Some(p) => from = p,
        }
    }
}

type Best = Option<((usize, usize), (usize, usize))>;

/// Best (choices, sowings) and best (sowings, choices) over every winning
/// line, by trying every choice in every position reached (memoised on the
/// row: the ruma never affects the rest of the game); `None` when nothing
/// wins.
fn brute_force(row: &[u32]) -> Best {
    fn go(row: &[u32], memo: &mut HashMap<Vec<u32>, Best>) -> Best {
        if let Some(b) = memo.get(row) {
            return *b;
        }
        let mut best: Best = None;
        for hole in 0..row.len() {
            if row[hole] == 0 {
                continue;
            }
            let mut next = row.to_vec();
            let mut ruma = 0;
            let (steps, end) = sim_choice(&mut next, &mut ruma, hole);
            let rest = match end {
                SimEnd::Lost => None,
                SimEnd::Won => Some(((0, 0), (0, 0))),
                SimEnd::Choose => go(&next, memo),
            };
            if let Some(((c1, s1), (s2, c2))) = rest {
                let k = steps.len();
                let cand = ((c1 + 1, s1 + k), (s2 + k, c2 + 1));
                best = Some(match best {
                    None => cand,
                    Some((a, b)) => (a.min(cand.0), b.min(cand.1)),
                });
            }
        }
        memo.insert(row.to_vec(), best);
        best
    }
    if row.iter().all(|&s| s == 0) {
        return Some(((0, 0), (0, 0)));
    }
    go(row, &mut HashMap::new())
}

/// Every row of `holes` holes with 0..=max seeds in each.
fn all_rows(holes: usize, max: u32) -> Vec<Vec<u32>> {
    let mut rows = vec![vec![]];
    for _ in 0..holes {
        rows = rows
            .into_iter()
            .flat_map(|r: Vec<u32>| {
                (0..=max).map(move |s| {
                    let mut r = r.clone();
                    r.push(s);
                    r
                })
            })
            .collect();
    }
    rows
}

fn tammi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tammi"))
        .arg("tchuka")
        .args(args)
        .output()
        .expect("run tammi")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

/// Parses a printed row `a b c | r`.
fn parse_printed_row(s: &str) -> (Vec<u32>, u64) {
    let (holes, ruma) = s
        .split_once(" | ")
        .unwrap_or_else(|| panic!("no ruma in {s:?}"));
    let holes = holes
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    (holes, ruma.trim().parse().unwrap())
}

/// What the printed solution claims.
struct Printed {
    start: (Vec<u32>, u64),
    choices: usize,
    sowings: usize,
    lines: Vec<PrintedChoice>,
}

/// (hole chosen 1-based, row after the chain, sowing lines of the chain)
type PrintedChoice = (usize, (Vec<u32>, u64), Vec<String>);

fn parse_solution(out: &str) -> Printed {
    let mut lines = out.lines();
    let header = lines.next().expect("header line");
    let (start, rest) = header
        .split_once(": winnable in ")
        .expect("winnable header");
    let (choices, rest) = rest.split_once(" choices (").unwrap();
    let (sowings, _) = rest.split_once(" sowings)").unwrap();
    let mut printed = Printed {
        start: parse_printed_row(start),
        choices: choices.parse().unwrap(),
        sowings: sowings.parse().unwrap(),
        lines: Vec::new(),
    };
    for line in lines {
        if let Some(rest) = line.strip_prefix("choice ") {
            let (_, rest) = rest.split_once(": hole ").unwrap();
            let (hole, row) = rest.split_once(" -> ").unwrap();
            printed
                .lines
                .push((hole.parse().unwrap(), parse_printed_row(row), Vec::new()));
        } else {
            assert!(line.starts_with("  sowing "), "unexpected line {line:?}");
            printed.lines.last_mut().unwrap().2.push(line.to_string());
        }
    }
    printed
}

/// Replays the printed line with the naive simulator; returns its
/// (choices, sowings).
fn replay_printed(out: &str, start: &[u32]) -> (usize, usize) {
    let p = parse_solution(out);
    assert_eq!(p.start, (start.to_vec(), 0));
    let mut row = start.to_vec();
    let mut ruma = 0u64;
    let mut total_sowings = 0;
    let mut finished = false;
    for (i, (hole, after, sowing_lines)) in p.lines.iter().enumerate() {
        assert!(!finished, "choices after the win");
        assert!(
            (1..=row.len()).contains(hole) && row[hole - 1] > 0,
            "choice {} picks hole {hole} of {row:?}, which is not a legal choice",
            i + 1
        );
        let (steps, end) = sim_choice(&mut row, &mut ruma, hole - 1);
        assert_ne!(end, SimEnd::Lost, "choice {} loses", i + 1);
        assert_eq!(after, &(row.clone(), ruma), "row after choice {}", i + 1);
        assert_eq!(
            steps.len(),
            sowing_lines.len(),
            "sowings of choice {}",
            i + 1
        );
        for (j, (step, line)) in steps.iter().zip(sowing_lines).enumerate() {
            let lands = match step.lands {
                None => "the ruma".to_string(),
                Some(h) => format!("hole {}", h + 1),
            };
            let plural = if step.seeds == 1 { "" } else { "s" };
            let rowtext: Vec<String> = step.row.iter().map(|s| s.to_string()).collect();
            let expected = format!(
                "  sowing {}: hole {}, {} seed{plural} -> {} | {}, lands in {lands}",
                j + 1,
                step.hole + 1,
                step.seeds,
                rowtext.join(" "),
                step.ruma
            );
            assert_eq!(line, &expected);
        }
        total_sowings += steps.len();
        finished = end == SimEnd::Won;
    }
    assert!(finished, "the printed line does not win");
    let sum: u32 = start.iter().sum();
    assert_eq!(ruma, sum as u64, "not every seed is in the ruma");
    assert_eq!(p.choices, p.lines.len(), "header choice count");
    assert_eq!(p.sowings, total_sowings, "header sowing count");
    (p.choices, total_sowings)
}

#[test]
fn classic_starts_are_won_by_the_printed_lines() {
    for start in [[2, 2, 2, 2], [6, 6, 6, 6]] {
        let args: Vec<String> = start.iter().map(|s| s.to_string()).collect();
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        for goal in [None, Some("choices"), Some("sowings")] {
            let mut a = args.clone();
            if let Some(g) = goal {
                a.extend(["--goal", g]);
            }
            let out = tammi(&a);
            assert_eq!(out.status.code(), Some(0), "{a:?}: {}", stderr(&out));
            let (c, s) = replay_printed(&stdout(&out), &start);
            let (by_choices, by_sowings) = brute_force(&start).expect("winnable");
            match goal {
                Some("sowings") => assert_eq!((s, c), by_sowings),
                _ => assert_eq!((c, s), by_choices),
            }
        }
    }
    assert!(tchuka::winnable(&[2, 2, 2, 2]));
    assert!(tchuka::winnable(&[6, 6, 6, 6]));
}

#[test]
fn trailing_zero_is_the_ruma() {
    let plain = tammi(&["2", "2", "2", "2"]);
    let with_ruma = tammi(&["2", "2", "2", "2", "0"]);
    let with_bar = tammi(&["2", "2", "2", "2", "|", "0"]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(stdout(&plain), stdout(&with_ruma));
    assert_eq!(stdout(&plain), stdout(&with_bar));
    assert!(stdout(&plain).starts_with("2 2 2 2 | 0: winnable in "));

    // An empty last hole is written with the ruma after it.
    let row = |v: &[&str]| {
        let v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        tchuka::parse_row(&v).unwrap()
    };
    assert_eq!(row(&["1", "0", "0"]).holes, vec![1, 0]);
    assert_eq!(row(&["1", "0", "|", "0"]).holes, vec![1, 0]);
    assert_eq!(row(&["1", "0"]).holes, vec![1]);
    assert_eq!(row(&["3", "3", "|", "5"]).ruma, 5);
    assert_eq!(row(&["3", "3", "5"]).holes, vec![3, 3, 5]);
    // 1 0 | 0 loses (the seed lands in the empty hole); 1 | 0 wins.
    let out = tammi(&["1", "0", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "1 0 | 0: not winnable\n");
    assert_eq!(tammi(&["1", "0"]).status.code(), Some(0));
    // Seeds already in the ruma are carried along in the printed rows.
    let out = tammi(&["1", "|", "4"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("choice 1: hole 1 -> 0 | 5\n"));
    // No seeds at all: every seed is already in the ruma.
    let out = tammi(&["0", "0", "0"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("0 0 | 0: winnable in 0 choices (0 sowings)"));
}

#[test]
fn unwinnable_start_exits_1() {
    let out = tammi(&["1", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "1 1 | 0: not winnable\n");
    assert!(tchuka::solve(&[1, 1], Goal::Choices).is_none());
}

/// OEIS A007780, "Losing initial configurations in 2-hole Tchuka Ruma", is
/// reproduced with n seeds in *each* of the two holes (2n in all); the
/// other reading, n seeds in all, does not match (e.g. n = 4 as 2 2 loses).
#[test]
fn two_holes_match_oeis_a007780() {
    let losing: Vec<u32> = (1..400).filter(|&n| !tchuka::winnable(&[n, n])).collect();
    assert_eq!(
        losing,
        [1, 2, 3, 6, 9, 11, 18, 20, 27, 30, 54, 81, 162, 168, 243]
    );
    // The naive simulator agrees where trying every line is affordable.
    for n in 1..=12 {
        assert_eq!(
            brute_force(&[n, n]).is_some(),
            tchuka::winnable(&[n, n]),
            "{n} {n}"
        );
    }
}

#[test]
fn play_follows_the_rules() {
    for holes in 1..=4 {
        for row in all_rows(holes, 5) {
            for hole in 0..holes {
                let Some(choice) = tchuka::play(&row, hole) else {
                    assert_eq!(row[hole], 0);
                    continue;
                };
                let mut sim_row = row.clone();
                let mut ruma = 0;
                let (steps, end) = sim_choice(&mut sim_row, &mut ruma, hole);
                assert_eq!(choice.hole, hole);
                assert_eq!(choice.sowings.len(), steps.len(), "{row:?} hole {hole}");
                for (s, t) in choice.sowings.iter().zip(&steps) {
                    assert_eq!((s.hole, s.seeds, &s.row), (t.hole, t.seeds, &t.row));
                    let lands = match s.landing {
                        Landing::Ruma => None,
                        Landing::Hole(h) => Some(h),
                    };
                    assert_eq!(lands, t.lands);
                }
                let end2 = match choice.outcome {
                    Outcome::Choose => SimEnd::Choose,
                    Outcome::Won => SimEnd::Won,
                    Outcome::Lost => SimEnd::Lost,
                };
                assert_eq!(end2, end, "{row:?} hole {hole}");
            }
        }
    }
    // Several laps in one sowing, done arithmetically by the library.
    let choice = tchuka::play(&[1000, 0], 0).unwrap();
    let mut sim_row = vec![1000, 0];
    let (steps, _) = sim_choice(&mut sim_row, &mut 0, 0);
    assert_eq!(choice.sowings[0].row, steps[0].row);
}

#[test]
fn solutions_are_shortest_for_their_goal() {
    let mut differ = None;
    for holes in 1..=4 {
        for row in all_rows(holes, 3) {
            let brute = brute_force(&row);
            assert_eq!(tchuka::winnable(&row), brute.is_some(), "{row:?}");
            let by_c = tchuka::solve(&row, Goal::Choices);
            let by_s = tchuka::solve(&row, Goal::Sowings);
            let Some((best_c, best_s)) = brute else {
                assert!(by_c.is_none() && by_s.is_none(), "{row:?}");
                continue;
            };
            let by_c = by_c.expect("winnable");
            let by_s = by_s.expect("winnable");
            assert_eq!((by_c.num_choices(), by_c.num_sowings()), best_c, "{row:?}");
            assert_eq!((by_s.num_sowings(), by_s.num_choices()), best_s, "{row:?}");
            for sol in [&by_c, &by_s] {
                let mut r = row.clone();
                let mut ruma = 0;
                for (i, c) in sol.choices.iter().enumerate() {
                    let (steps, end) = sim_choice(&mut r, &mut ruma, c.hole);
                    assert_eq!(steps.len(), c.sowings.len());
                    assert_eq!(c.row(), &r[..]);
                    let last = i + 1 == sol.choices.len();
                    assert_eq!(end, if last { SimEnd::Won } else { SimEnd::Choose });
                }
            }
            if best_c.1 != best_s.0 && differ.is_none() {
                differ = Some(row.clone());
            }
        }
    }
    // Through the command, on a start where the two goals disagree.
    let row = differ.expect("some small start where the goals give different lines");
    let (best_c, best_s) = brute_force(&row).unwrap();
    let mut args: Vec<String> = row.iter().map(|s| s.to_string()).collect();
    args.push("0".into());
    let mut args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = tammi(&args);
    assert_eq!(replay_printed(&stdout(&out), &row), best_c);
    assert!(
        stdout(&out)
            .lines()
            .next()
            .unwrap()
            .ends_with("shortest by choices")
    );
    args.extend(["--goal", "sowings"]);
    let out = tammi(&args);
    let (c, s) = replay_printed(&stdout(&out), &row);
    assert_eq!((s, c), best_s);
    assert!(
        stdout(&out)
            .lines()
            .next()
            .unwrap()
            .ends_with("shortest by sowings")
    );
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["2", "-1", "2"], &["'-1'", "value 2", "negative"]),
        (
            &["2", "two", "2"],
            &["'two'", "value 2", "not a whole number"],
        ),
        (&["2", "1.5"], &["'1.5'", "value 2", "not a whole number"]),
        (&["0"], &["no holes"]),
        (
            &["99999999999", "1"],
            &["'99999999999'", "value 1", "too large"],
        ),
        (&["4294967295", "1"], &["too many seeds"]),
        (&["2", "|", "2", "0"], &["'|'", "value 2", "ruma"]),
        (&["2", "|", "-3"], &["'-3'", "value 3", "negative"]),
        (&["--table", "0", "5"], &["HOLES", "got 0"]),
        (&["--table", "3", "0"], &["SEEDS", "got 0"]),
        (&["--table", "33", "2"], &["HOLES", "got 33"]),
        (&["--table", "-1", "5"], &["'-1'"]),
        (&["--table", "3", "x"], &["'x'"]),
        (&["--table", "3"], &["--table"]),
        (
            &["--table", "2", "2", "--time-limit", "0"],
            &["--time-limit"],
        ),
        (
            &["--table", "2", "2", "--time-limit", "-1"],
            &["--time-limit"],
        ),
        (&["2", "2", "--time-limit", "0"], &["--time-limit"]),
        (&["2", "2", "--memory", "0"], &["--memory"]),
        (&["2", "2", "--memory", "lots"], &["--memory"]),
        (&["--table", "2", "2", "--memory", "64"], &["--memory"]),
        (&["2", "2", "--goal", "seeds"], &["'seeds'"]),
        (&[], &["SEEDS"]),
    ];
    for (args, words) in cases {
        let out = tammi(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}");
        for w in *words {
            assert!(err.contains(w), "{args:?}: {w:?} not in {err:?}");
        }
    }
    let many = vec!["1"; 33];
    let out = tammi(&many);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("too many holes: 33"));
    assert_eq!(
        tammi(&vec!["0"; 33]).status.code(),
        Some(0),
        "32 holes and the ruma"
    );
}

fn parse_table(out: &str) -> Vec<Vec<char>> {
    out.lines()
        .skip_while(|l| !l.starts_with("holes\\seeds"))
        .skip(1)
        .take_while(|l| {
            let first = l.split_whitespace().next().unwrap_or("");
            !first.is_empty() && first.chars().all(|c| c.is_ascii_digit())
        })
        .map(|l| {
            let mut cells = l.split_whitespace();
            cells.next(); // the number of holes
            cells.map(|c| c.chars().next().unwrap()).collect()
        })
        .collect()
}

#[test]
fn table_matches_winnable() {
    let out = tammi(&["--table", "3", "4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let grid = parse_table(&text);
    assert_eq!(grid.len(), 3, "{text}");
    for (h, row) in grid.iter().enumerate() {
        assert_eq!(row.len(), 4, "{text}");
        for (s, &mark) in row.iter().enumerate() {
            let start = vec![s as u32 + 1; h + 1];
            let expected = if tchuka::winnable(&start) { 'W' } else { '.' };
            assert_eq!(mark, expected, "{start:?} in\n{text}");
        }
    }
    assert!(text.contains("W = winnable"));
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("12/12 cells computed") && last.contains("elapsed"),
        "{last}"
    );
    // Progress goes to a terminal only.
    assert!(stderr(&out).is_empty());

    // The library's table agrees with single solves and, where affordable,
    // with the naive simulator trying every line.
    let lib = tchuka::table(6, 8, None, |_, _| {});
    for (h, row) in lib.iter().enumerate() {
        for (s, &cell) in row.iter().enumerate() {
            let start = vec![s as u32 + 1; h + 1];
            assert_eq!(cell, Some(tchuka::winnable(&start)), "{start:?}");
            if h < 5 && s < 6 {
                assert_eq!(cell, Some(brute_force(&start).is_some()), "{start:?}");
            }
        }
    }
}

#[test]
fn table_time_limit_stops_gracefully() {
    let started = Instant::now();
    let out = tammi(&["--table", "20", "40", "--time-limit", "0.3"]);
    assert!(started.elapsed() < Duration::from_secs(20), "did not stop");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let grid = parse_table(&text);
    assert_eq!(grid.len(), 20);
    assert!(grid.iter().flatten().any(|&c| c == '?'), "{text}");
    // Whatever was computed is right.
    for (h, row) in grid.iter().enumerate().take(3) {
        for (s, &mark) in row.iter().enumerate().take(5) {
            if mark != '?' {
                let w = tchuka::winnable(&vec![s as u32 + 1; h + 1]);
                assert_eq!(mark, if w { 'W' } else { '.' });
            }
        }
    }
    assert!(text.contains("/800 cells computed"), "{text}");
}

/// 32 holes of 30 seeds: far too many positions to solve (the solver's tables grew by
/// about 150 MB a second until the allocator aborted).
fn huge_row() -> Vec<String> {
    vec!["30".to_string(); 32]
}

#[test]
fn a_single_solve_gives_up_at_its_time_limit() {
    let mut args = huge_row();
    args.extend(["--time-limit".to_string(), "0.5".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let out = tammi(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("gave up") && err.contains("--time-limit"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    // Generous: only catches a solve that ignores its limit.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// `--memory` bounds the solver: under an address-space limit (`ulimit -v`) a few times
/// the bound, the process gives up cleanly (exit 3) instead of being aborted by the
/// allocator.
#[cfg(target_os = "linux")]
#[test]
fn a_single_solve_gives_up_at_its_memory_bound() {
    let row = huge_row().join(" ");
    let script =
        format!("ulimit -v 400000 && exec \"$0\" tchuka {row} --memory 100 --time-limit 120",);
    let out = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_tammi")])
        .output()
        .expect("run sh");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{:?}: {err}", out.status);
    assert!(
        err.contains("gave up") && err.contains("memory bound of 100 MB"),
        "{err}"
    );
    // And with the default bound the option is there too, said in the help.
    let help = tammi(&["--help"]);
    assert!(stdout(&help).contains("--memory"), "{}", stdout(&help));
}
