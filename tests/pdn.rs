//! PDN: the public corpus read and replayed, our fixtures written and read back in every
//! variant and both notations, errors located by game, line and column, lenient reading,
//! the command line, and random damage to PDN text never panicking.

mod common;
use std::path::{Path, PathBuf};

use common::{Rng, tammi};
use tammi::notation::{format_hub_move, parse_fen, parse_move};
use tammi::pdn::{
    self, Game, Line, PdnMove, ReadOptions, WriteOptions, read_pdn, resolve, write_game,
    write_games,
};
use tammi::rules::{ALL_VARIANTS, Board, Notation, Variant};
use tammi::with_board;

fn corpus() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/pdn-corpus");
    assert!(
        dir.is_dir(),
        "the PDN corpus is missing: expected {} (CI provides it; these tests must not skip)",
        dir.display()
    );
    dir
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pdn")
        .join(name)
}

fn read(path: &Path) -> Vec<Game> {
    pdn::read_file(path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e:#}"))
}

fn read_text(text: &str, variant: Option<Variant>) -> Vec<Game> {
    read_pdn(text, &ReadOptions { variant }).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn errors(game: &Game) -> Vec<String> {
    with_board!(game.variant, P => game.check::<P>())
        .iter()
        .map(|e| e.to_string())
        .collect()
}

/// A game as one comparable string: each move as its Hub form (from, to, captured set),
/// with strength, NAGs, comments (whitespace collapsed) and variations, recursively.
fn canonical(game: &Game) -> String {
    with_board!(game.variant, P => {
        let start: P = game.start_position().unwrap_or_else(|e| panic!("{e}"));
        format!(
            "{} {} [{}] {}",
            game.variant,
            tammi::notation::write_fen(&start, Notation::Numeric),
            canonical_line(&start, &game.main_line, game.number),
            game.result.as_deref().unwrap_or("")
        )
    })
}

fn canonical_line<P: Board>(start: &P, line: &Line, game: usize) -> String {
    let squash = |c: &String| c.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: Vec<String> = line
        .comments
        .iter()
        .map(|c| format!("{{{}}}", squash(c)))
        .collect();
    let mut pos = *start;
    for (i, m) in line.moves.iter().enumerate() {
        let step = resolve(&pos, m, game, i + 1, false).unwrap_or_else(|e| panic!("{e}"));
        let mut s = format_hub_move::<P>(&step.mv);
        s += m.strength.as_deref().unwrap_or("");
        for n in &m.nags {
            s += &format!(" ${n}");
        }
        for c in &m.comments {
            s += &format!(" {{{}}}", squash(c));
        }
        for v in &m.variations {
            s += &format!(" ({})", canonical_line(&step.before, v, game));
        }
        out.push(s);
        pos = step.before.play(&step.mv);
    }
    out.join(" ")
}

/// The tags a reader of our output must see again: the original ones, with GameType and
/// FEN normalised (GameType written as its number, and only off the international board).
fn kept_tags(game: &Game) -> Vec<(String, String)> {
    game.tags
        .iter()
        .filter(|t| t.name != "GameType" && t.name != "FEN")
        .map(|t| (t.name.clone(), t.value.clone()))
        .collect()
}

fn assert_same_games(before: &[Game], after: &[Game], what: &str) {
    assert_eq!(before.len(), after.len(), "{what}: game count");
    for (a, b) in before.iter().zip(after) {
        assert_eq!(canonical(a), canonical(b), "{what}: game {}", a.number);
        for tag in kept_tags(a) {
            assert!(
                kept_tags(b).contains(&tag),
                "{what}: game {} lost tag {tag:?}",
                a.number
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// The public corpus.

#[test]
fn every_corpus_file_is_read_and_the_fail_file_fails_with_line_and_column() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdn"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "corpus has {} PDN files", files.len());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let result = pdn::read_file(&path, &ReadOptions::default());
        if name.starts_with("FAIL_") {
            let err = format!("{:#}", result.expect_err(&name));
            assert!(
                err.contains("line ") && err.contains("column ") && err.contains("game 1"),
                "{name}: {err}"
            );
        } else {
            let games = result.unwrap_or_else(|e| panic!("{name}: {e:#}"));
            let moves: usize = games.iter().map(Game::move_count).sum();
            eprintln!("{name}: {} games, {moves} moves", games.len());
            assert!(!games.is_empty(), "{name}");
        }
    }
}

#[test]
fn nested_comment_is_an_error_at_the_inner_brace() {
    let err = pdn::read_file(
        &corpus().join("FAIL_nested_comment.pdn"),
        &ReadOptions::default(),
    )
    .unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("game 1, line 1, column 34: nested '{' inside a comment")
            && text.contains("opened at line 1, column 25"),
        "{text}"
    );
}

#[test]
fn real_games_replay_without_an_illegal_move() {
    for (file, variant, games, moves) in [
        ("english_oca_2.0.pdn", Variant::English, 43, 2280),
        ("international_wk2003.pdn", Variant::International, 23, 2381),
        ("russian_ussr_championship.pdn", Variant::Russian, 153, 8730),
    ] {
        let read = read(&corpus().join(file));
        assert_eq!(read.len(), games, "{file}");
        let total: usize = read.iter().map(Game::move_count).sum();
        assert_eq!(total, moves, "{file}");
        for g in &read {
            assert_eq!(g.variant, variant, "{file} game {}", g.number);
            assert_eq!(errors(g), Vec::<String>::new(), "{file}");
            assert!(g.result.is_some(), "{file} game {}", g.number);
        }
    }
}

#[test]
fn corpus_details_cyrillic_tags_fen_and_results() {
    let ussr = read(&corpus().join("russian_ussr_championship.pdn"));
    assert_eq!(ussr[0].tag("White"), Some("Блиндер Б."));
    assert_eq!(ussr[0].tag("Round"), Some(""));
    assert_eq!(ussr[0].result.as_deref(), Some("1-0"));
    let oca = read(&corpus().join("english_oca_2.0.pdn"));
    // Tags stay in the order read, unknown or not.
    let names: Vec<&str> = oca[0].tags.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Event", "Date", "Black", "White", "Site", "Result"]);
    // `26x17x10x1`: a full route read as one move.
    let last = oca[0].main_line.moves.last().unwrap();
    assert_eq!(last.text, "26x17x10x1");
}

#[test]
fn move_strengths_in_parentheses_are_not_variations() {
    let g = &read(&corpus().join("movestrength_syntax.pdn"))[0];
    let m = &g.main_line.moves;
    assert_eq!(m.len(), 3);
    assert_eq!(m[0].strength.as_deref(), Some("!?"));
    assert_eq!(m[1].text, "19-23");
    assert_eq!(m[1].strength.as_deref(), Some("(!?!!!)"));
    assert!(m[1].variations.is_empty());
    assert_eq!(
        g.variant,
        Variant::International,
        "32-28 does not open english"
    );
    let written = write_game(g, &WriteOptions::default()).unwrap();
    assert!(
        written.contains("1. 32-28!? 19-23(!?!!!) 2. 28x19 *"),
        "{written}"
    );
}

#[test]
fn nested_variations_are_kept_and_checked() {
    let g = &read(&corpus().join("variation_syntax.pdn"))[0];
    let main: Vec<&str> = g.main_line.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(main, ["32-28", "19-23", "28x19", "14x23"]);
    let var = &g.main_line.moves[1].variations[0];
    let texts: Vec<&str> = var.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["18-23", "38-32", "12-18"]);
    let inner = &var.moves[1].variations[0];
    assert_eq!(inner.moves[0].text, "37-32");
    assert_eq!(inner.moves[0].strength.as_deref(), Some("?"));
    assert_eq!(inner.moves[1].strength.as_deref(), Some("!"));
    assert_eq!(inner.moves[1].comments, [" Black wins "]);
    assert_eq!(g.move_count(), 9);
    assert!(errors(g).is_empty());
    // An illegal move deep in a variation is found, with its ply.
    let bad = read_text(
        "32-28 19-23 (18-23 38-32 (37-32 23-27) 12-18) 28x19 *",
        None,
    );
    let errs = errors(&bad[0]);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0]
            .starts_with("game 1, ply 4 (in a variation), line 1, column 33: illegal move '23-27'"),
        "{errs:?}"
    );
}

#[test]
fn fen_tags_with_ranges_and_an_unknown_side() {
    let games = read(&corpus().join("fen_ranges_examples.pdn"));
    assert_eq!(games.len(), 3);
    type P = tammi::rules::Position<tammi::rules::International>;
    let first: P = games[0].start_position().unwrap();
    assert_eq!(
        first.side(),
        tammi::rules::Color::White,
        "'?' is the first mover"
    );
    let last: P = games[2].start_position().unwrap();
    assert_eq!(last, P::start());
    assert!(games.iter().all(|g| g.main_line.moves.is_empty()));
}

// ---------------------------------------------------------------------------------------
// Writing and reading back.

const FIXTURES: [(&str, Variant); 6] = [
    ("english.pdn", Variant::English),
    ("international.pdn", Variant::International),
    ("russian.pdn", Variant::Russian),
    ("brazilian.pdn", Variant::Brazilian),
    ("canadian.pdn", Variant::Canadian),
    ("turkish.pdn", Variant::Turkish),
];

#[test]
fn fixtures_are_legal_and_in_the_expected_variant() {
    for (file, variant) in FIXTURES {
        let games = read(&fixture(file));
        assert!(!games.is_empty(), "{file}");
        for g in &games {
            assert_eq!(g.variant, variant, "{file} game {}", g.number);
            assert_eq!(errors(g), Vec::<String>::new(), "{file}");
        }
    }
}

#[test]
fn write_then_read_gives_the_same_games_in_every_variant() {
    for (file, _) in FIXTURES {
        let games = read(&fixture(file));
        let text = write_games(&games, &WriteOptions::default()).unwrap();
        let back = read_text(&text, None);
        assert_same_games(&games, &back, file);
        // Writing is a fixed point, and strict: seven tags first, lines within 80 columns.
        assert_eq!(write_games(&back, &WriteOptions::default()).unwrap(), text);
        let tag_names: Vec<&str> = text
            .lines()
            .take(7)
            .map(|l| l[1..].split(' ').next().unwrap())
            .collect();
        assert_eq!(
            tag_names,
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }
}

#[test]
fn writer_uses_each_variants_notation_and_tags() {
    let russian = write_games(&read(&fixture("russian.pdn")), &WriteOptions::default()).unwrap();
    assert!(russian.contains("[GameType \"25\"]"), "{russian}");
    assert!(russian.contains("3. e3:c5 d6:b4"), "{russian}");
    let turkish = write_games(&read(&fixture("turkish.pdn")), &WriteOptions::default()).unwrap();
    assert!(turkish.contains("[GameType \"30\"]") && !turkish.contains("\"43\""));
    assert!(turkish.contains("3. d4:d8"), "{turkish}");
    let canadian = write_games(&read(&fixture("canadian.pdn")), &WriteOptions::default()).unwrap();
    assert!(canadian.contains("[GameType \"27\"]") && canadian.contains("3. 47-41 36x47"));
    let intl = write_games(
        &read(&fixture("international.pdn")),
        &WriteOptions::default(),
    )
    .unwrap();
    assert!(!intl.contains("GameType"), "international is PDN's default");
    assert!(intl.contains("[FEN \"B:W28,33,K46:B3,12,K22\"]"));
    assert!(intl.contains("\n23... 22-17 24. 46-37"), "{intl}");
    assert!(intl.contains("[WhiteRating \"2310\"]\n[TimeControl \"80m+1s\"]"));
    assert!(intl.contains("(1... 17-21 2. 29-24 (2. 32-28 21-26) 2... 19x30 3. 35x24)"));
    assert!(intl.contains(" 8x19 2-0\n"), "{intl}");
    let english = write_games(&read(&fixture("english.pdn")), &WriteOptions::default()).unwrap();
    assert!(
        english.contains("[Annotator \"the \\\"fixture\\\" writer\"]"),
        "{english}"
    );
    assert!(english.contains("[FEN \"W:W30,K32:BK3,17,18,25,26\"]"));
    assert!(english.contains("[SetUp \"1\"]"));
    assert!(english.contains("2. 16-19 24x15 $1"), "{english}");
    assert!(english.contains("1/2-1/2\n"));
}

#[test]
fn ambiguous_captures_keep_their_route_and_others_are_short() {
    let games = read(&fixture("english.pdn"));
    let text = write_game(&games[1], &WriteOptions::default()).unwrap();
    assert!(text.contains("1... 30x23x14 {Two routes"), "{text}");
    let short = write_game(&games[0], &WriteOptions::default()).unwrap();
    assert!(short.contains("7. 9x18 22x15"), "{short}");
}

#[test]
fn letter_listing_is_one_pair_per_line_with_full_routes_and_reads_back() {
    for (file, _) in FIXTURES {
        let games = read(&fixture(file));
        let letter = write_games(&games, &WriteOptions::letter_listing()).unwrap();
        let back = read_text(&letter, None);
        assert_same_games(&games, &back, &format!("{file} as letters"));
        let numeric_opts = WriteOptions {
            notation: Some(Notation::Numeric),
            ..WriteOptions::default()
        };
        let numeric = write_games(&back, &numeric_opts).unwrap();
        assert_same_games(
            &games,
            &read_text(&numeric, None),
            &format!("{file} back to numbers"),
        );
    }
    let russian = write_games(
        &read(&fixture("russian.pdn")),
        &WriteOptions::letter_listing(),
    )
    .unwrap();
    let body: Vec<&str> = russian
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .collect();
    assert_eq!(body[0], "1. a3-b4 b6-c5");
    assert_eq!(body[2], "3. e3:c5 d6:b4");
    assert_eq!(body.last(), Some(&"0-1"));
    // Every landing square, even where the capture is not ambiguous.
    let english = write_games(
        &read(&fixture("english.pdn")),
        &WriteOptions::letter_listing(),
    )
    .unwrap();
    assert!(english.contains("\n3. d6:f4 e3:g5\n"), "{english}");
    let corpus_english = read(&corpus().join("english_oca_2.0.pdn"));
    let listing = write_game(&corpus_english[0], &WriteOptions::letter_listing()).unwrap();
    assert!(listing.contains(" d2:b4:d6:b8\n0-1\n"), "{listing}");
}

/// Random legal games in every variant, written in both notations and read back.
#[test]
fn random_games_round_trip_in_every_variant() {
    fn random_game<P: Board>(rng: &mut Rng, plies: usize) -> Vec<String> {
        let mut pos = P::start();
        let mut list = Vec::new();
        let mut out = Vec::new();
        for _ in 0..plies {
            pos.generate(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list[rng.below(list.len())];
            out.push(format_hub_move::<P>(&mv));
            pos = pos.play(&mv);
        }
        out
    }
    let mut rng = Rng(0x9d2c_5680);
    for variant in ALL_VARIANTS {
        for round in 0..12 {
            let moves = with_board!(variant, P => random_game::<P>(&mut rng, 150));
            let game = Game {
                number: 1,
                pos: Default::default(),
                tags: Vec::new(),
                variant,
                fen: None,
                main_line: Line {
                    comments: Vec::new(),
                    moves: moves
                        .into_iter()
                        .map(|text| PdnMove {
                            text,
                            ..PdnMove::default()
                        })
                        .collect(),
                },
                result: Some("*".into()),
                first_move_number: 1,
            };
            for opts in [WriteOptions::default(), WriteOptions::letter_listing()] {
                let text = write_game(&game, &opts).unwrap();
                let back = read_text(&text, Some(variant));
                assert_same_games(
                    std::slice::from_ref(&game),
                    &back,
                    &format!("{variant} round {round}"),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lenient reading, game separation, variants.

#[test]
fn lenient_reading_of_real_world_sloppiness() {
    // BOM, CRLF, a `%` line comment, `1- 6`, leading zeros, `3228`, `:` captures, moves
    // glued to numbers, `½-½`.
    let text = "\u{feff}[Event \"Sloppy\"]\r\n% a line comment 1-0\r\n[GameType \"21\"]\r\n\r\n\
                1. 11-15 24- 20 2.08-11 28-24 3. 0913 2218 4. 15:22 25x18 5... ½-½\r\n";
    let games = read_text(text, None);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.variant, Variant::English);
    assert_eq!(g.tag("Event"), Some("Sloppy"));
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    let texts: Vec<&str> = g.main_line.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "11-15", "24-20", "08-11", "28-24", "0913", "2218", "15:22", "25x18"
        ]
    );
    assert!(errors(g).is_empty(), "{:?}", errors(g));
    // Latin-1 bytes (not UTF-8) are still read.
    let latin1 = pdn::decode(b"[White \"Ren\xe9\"]\n1. 32-28 *\n");
    assert_eq!(read_text(&latin1, None)[0].tag("White"), Some("René"));
    // An unescaped quote inside a tag value is kept.
    let quoted = read_text("[Event \"The \"Big\" Match\"]\n1. 32-28 *", None);
    assert_eq!(quoted[0].tag("Event"), Some("The \"Big\" Match"));
}

#[test]
fn games_end_at_a_result_or_at_the_next_tags() {
    // Results alone separate games; so do tags after move text, even without a result.
    let text = "1. 32-28 19-23 1-0 1. 31-27 2-0\n[Event \"a\"]\n1. 33-28\n[Event \"b\"]\n\
                [Event \"c\"]\n1. 34-29 *";
    let games = read_text(text, None);
    let summary: Vec<(usize, Option<&str>, Option<&str>)> = games
        .iter()
        .map(|g| (g.main_line.moves.len(), g.tag("Event"), g.result.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (2, None, Some("1-0")),
            (1, None, Some("2-0")),
            (1, Some("a"), None),
            (0, Some("b"), None),
            (1, Some("c"), Some("*")),
        ]
    );
    assert_eq!(games[4].number, 5);
}

#[test]
fn the_variant_comes_from_gametype_then_the_option_then_the_file() {
    let v = |text: &str, opt: Option<Variant>| read_text(text, opt)[0].variant;
    assert_eq!(v("1. 11-15 23-19 *", None), Variant::English);
    assert_eq!(v("1. 32-28 19-23 *", None), Variant::International);
    assert_eq!(v("1. 35-30 *", None), Variant::International);
    assert_eq!(v("1. 44-37 *", None), Variant::International);
    let canadian = "1. 44-37 30-36 2. 49-44 25-32 3. 47-41 36x47 4. 52x41 *";
    assert_eq!(v(canadian, None), Variant::Canadian);
    assert_eq!(v("1. c3-d4 f6-g5 *", None), Variant::Russian);
    assert_eq!(
        v("1. c3-d4 f6-g5 *", Some(Variant::Brazilian)),
        Variant::Brazilian
    );
    assert_eq!(
        v("[GameType \"26\"] 1. c3-d4 *", Some(Variant::Russian)),
        Variant::Brazilian
    );
    assert_eq!(
        v("[GameType \"20\"] 1. 32-28 *", Some(Variant::Killer)),
        Variant::Killer
    );
    assert_eq!(v("[GameType \"43\"] 1. a3-a4 *", None), Variant::Turkish);
    assert_eq!(
        v("[GameType \" 30,W,8,8,A0,0\"] 1. a3-a4 *", None),
        Variant::Turkish
    );
    assert_eq!(
        v("[GameType \"27,W,12,12,N2,0\"] *", None),
        Variant::Canadian
    );
}

// ---------------------------------------------------------------------------------------
// Errors.

#[test]
fn read_errors_name_the_game_line_and_column() {
    let ok_game = "[Event \"first\"]\n1. 32-28 19-23 *\n\n";
    // Nesting past the limit: the 101st '(' is at column 7 * 101.
    let deep = format!("32-28{} *", " (32-28".repeat(5000));
    let cases: &[(&str, &str)] = &[
        (
            "[Event \"x\"]\n1. 32-28 {never closed",
            "game 2, line 5, column 10: comment '{' is never closed",
        ),
        (
            "[Event \"x\"]\n1. 32-28 (19-23 28x19\n*",
            "game 2, line 5, column 10: variation '(' is never closed",
        ),
        (
            "[Event \"x\"]\n1. 32-28 19-23 ) *",
            "game 2, line 5, column 16: ')' closes no variation",
        ),
        (
            "[Event \"x\"]\n1. 32-28 wins *",
            "game 2, line 5, column 10: 'wins' is not a move",
        ),
        (
            "[Event \"x\n1. 32-28 *",
            "game 2, line 4, column 1: tag Event is not closed",
        ),
        (
            "[GameType \"22\"]\n1. 9-13 *",
            "game 2, line 4, column 1: GameType 22 (italian) is not supported",
        ),
        (
            "[GameType \"W\"]\n*",
            "game 2, line 4, column 1: GameType 'W' does not start with a game number",
        ),
        (
            "1. 32-28 /W:W31:B1/ *",
            "game 2, line 4, column 10: setup '/.../' is not followed by a move",
        ),
        (
            "1. 32-28 $ *",
            "game 2, line 4, column 10: '$' must be followed by a NAG number",
        ),
        (
            "( 32-28 ) *",
            "game 2, line 4, column 1: a variation '(' must follow the move it replaces",
        ),
        (
            "[Event \"x\"]\n1. 32-28 (19-23\n[Event \"y\"]",
            "game 2, line 5, column 10: variation '(' is not closed before the tags at line 6, column 1",
        ),
        (
            "1. 32-28 {a {b} }",
            "game 2, line 4, column 13: nested '{' inside a comment",
        ),
        (
            "1. 32-28 ] *",
            "game 2, line 4, column 10: unexpected character ']'",
        ),
        (
            deep.as_str(),
            "game 2, line 4, column 707: variations nested more than 100 deep",
        ),
    ];
    for (bad, want) in cases {
        let text = format!("{ok_game}{bad}");
        let err = read_pdn(&text, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(want),
            "{bad:?}\n  got:  {err}\n  want: {want}"
        );
    }
}

#[test]
fn move_errors_name_the_game_ply_line_and_column() {
    let text = "[Event \"a\"]\n1. 32-28 19-23 *\n\n[Event \"b\"]\n1. 32-28 19-23\n2. 28-22 *\n";
    let games = read_text(text, None);
    assert!(errors(&games[0]).is_empty());
    assert_eq!(
        errors(&games[1]),
        [
            "game 2, ply 3, line 6, column 4: illegal move '28-22' (a capture is compulsory), \
          white to move"
        ]
    );
    // Ambiguity is an error too: PDN wants the route.
    let amb = read_text(
        "[GameType \"21\"][FEN \"W:W30:B25,26,17,18\"] 1... 30x14 *",
        None,
    );
    let e = errors(&amb[0]);
    assert!(
        e[0].contains("ply 1") && e[0].contains("ambiguous move '30x14'"),
        "{e:?}"
    );
    // A bad FEN tag is reported at the tag.
    let fen = read_text("[Event \"a\"]\n[FEN \"W:W31,32:X1\"] 1. 31-27 *", None);
    let e = errors(&fen[0]);
    assert!(
        e[0].starts_with("game 1, line 2, column 1: invalid FEN tag"),
        "{e:?}"
    );
    // Writing refuses illegal games with the same location.
    let err = write_game(&games[1], &WriteOptions::default()).unwrap_err();
    assert_eq!(err.ply, 3);
    assert_eq!((err.pos.line, err.pos.column), (6, 4));
}

#[test]
fn damaged_pdn_never_panics() {
    let mut seeds: Vec<String> = FIXTURES
        .iter()
        .map(|(f, _)| std::fs::read_to_string(fixture(f)).unwrap())
        .collect();
    seeds.push(std::fs::read_to_string(corpus().join("variation_syntax.pdn")).unwrap());
    seeds.push(std::fs::read_to_string(corpus().join("movestrength_syntax.pdn")).unwrap());
    const ALPHABET: &[u8] = b"[](){}$%;/\\\"!?*.-x:0123456789 \n\rabcdefghKWB\xd0\xb1";
    let mut rng = Rng(0xfade);
    for _ in 0..3000 {
        let seed = seeds[rng.below(seeds.len())].as_bytes();
        let mut bytes = seed.to_vec();
        for _ in 0..1 + rng.below(6) {
            let i = rng.below(bytes.len() + 1);
            match rng.below(4) {
                0 if i < bytes.len() => {
                    bytes.remove(i);
                }
                1 => bytes.insert(i, ALPHABET[rng.below(ALPHABET.len())]),
                2 if i < bytes.len() => bytes[i] = ALPHABET[rng.below(ALPHABET.len())],
                _ => {
                    // Move a slice elsewhere: unbalanced brackets, split games.
                    let j = rng.below(bytes.len() + 1);
                    let (a, b) = (i.min(j), i.max(j));
                    let cut: Vec<u8> = bytes.drain(a..b.min(a + 12)).collect();
                    let k = rng.below(bytes.len() + 1);
                    bytes.splice(k..k, cut);
                }
            }
        }
        let text = pdn::decode(&bytes);
        let variant = [None, Some(ALL_VARIANTS[rng.below(ALL_VARIANTS.len())])][rng.below(2)];
        if let Ok(games) = read_pdn(&text, &ReadOptions { variant }) {
            for g in &games {
                let _ = errors(g);
                let _ = write_game(g, &WriteOptions::default());
                let _ = write_game(g, &WriteOptions::letter_listing());
                let _ = pdn::game_position(g, Some(rng.below(40)));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Positions for the engine.

#[test]
fn position_at_gives_the_fen_and_the_moves_to_it() {
    let path = corpus().join("international_wk2003.pdn");
    let start = pdn::position_at(&path, 1, Some(0), &ReadOptions::default()).unwrap();
    assert_eq!(start.fen, start.start_fen);
    assert!(start.moves.is_empty());
    let p = pdn::position_at(&path, 2, Some(10), &ReadOptions::default()).unwrap();
    assert_eq!(p.variant, Variant::International);
    assert_eq!(p.ply, 10);
    assert_eq!(p.moves.len(), 10);
    assert_eq!(p.moves[..4], ["32-28", "18-22", "31-27", "22x31"]);
    // The moves replay from the start FEN to the FEN.
    type P = tammi::rules::Position<tammi::rules::International>;
    let mut pos: P = parse_fen(&p.start_fen).unwrap();
    for m in &p.moves {
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        pos = pos.play(&parse_move(&pos, m, &legal).unwrap());
    }
    assert_eq!(pos, parse_fen::<P>(&p.fen).unwrap());
    let end = pdn::position_at(&path, 1, None, &ReadOptions::default()).unwrap();
    assert_eq!(end.ply, 80);
    let err = pdn::position_at(&path, 1, Some(81), &ReadOptions::default()).unwrap_err();
    assert!(
        format!("{err:#}").contains("game 1 has 80 plies"),
        "{err:#}"
    );
    let err = pdn::position_at(&path, 24, None, &ReadOptions::default()).unwrap_err();
    assert!(format!("{err:#}").contains("has 23 games"), "{err:#}");
    // A russian game: moves in letters, FEN in numbers.
    let r = pdn::position_at(&fixture("russian.pdn"), 1, Some(5), &ReadOptions::default()).unwrap();
    assert_eq!(r.moves, ["a3-b4", "b6-c5", "b4-a5", "c5-d4", "e3:c5"]);
}

// ---------------------------------------------------------------------------------------
// The command line.

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tammi-pdn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn pdn_check_exit_status_and_report() {
    let oca = corpus().join("english_oca_2.0.pdn");
    let (code, out, err) = tammi(&["pdn", "check", oca.to_str().unwrap()]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "43 games, 2280 moves, 0 errors\n", "")
    );

    let bad = temp_file(
        "bad.pdn",
        "[Event \"E\"]\n[White \"W\"]\n[Black \"B\"]\n1. 32-28 19-23 2. 28-22 (2. 28x19 14x23 3. 33-29 23-27) *\n",
    );
    let (code, out, _) = tammi(&["pdn", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "game 1 (White \"W\", Black \"B\", Event \"E\"), ply 3, line 4, column 19: illegal \
             move '28-22' (a capture is compulsory), white to move",
            "game 1 (White \"W\", Black \"B\", Event \"E\"), ply 6 (in a variation), line 4, \
             column 50: illegal move '23-27' (10 legal moves), black to move",
            "1 games, 7 moves, 2 errors",
        ]
    );

    let fail = corpus().join("FAIL_nested_comment.pdn");
    let (code, out, err) = tammi(&["pdn", "check", fail.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("line 1, column 34"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn pdn_convert_and_fen_commands() {
    let russian = fixture("russian.pdn");
    let out_path = temp_file("converted.pdn", "");
    let (code, out, err) = tammi(&[
        "pdn",
        "convert",
        russian.to_str().unwrap(),
        "--notation",
        "numeric",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let numeric = std::fs::read_to_string(&out_path).unwrap();
    assert!(numeric.contains("1. 21-17 9-14"), "{numeric}");
    let (code, letters, _) = tammi(&[
        "pdn",
        "convert",
        out_path.to_str().unwrap(),
        "--notation",
        "letter",
    ]);
    assert_eq!(code, 0);
    assert!(
        letters.contains("\n1. a3-b4 b6-c5\n2. b4-a5 c5-d4\n3. e3:c5 d6:b4\n"),
        "{letters}"
    );

    let wk = corpus().join("international_wk2003.pdn");
    let (code, fen, _) = tammi(&[
        "pdn",
        "fen",
        wk.to_str().unwrap(),
        "--game",
        "2",
        "--ply",
        "3",
    ]);
    assert_eq!(code, 0);
    let p = pdn::position_at(&wk, 2, Some(3), &ReadOptions::default()).unwrap();
    assert_eq!(fen.trim(), p.fen);
    let (code, start, _) = tammi(&[
        "pdn",
        "fen",
        russian.to_str().unwrap(),
        "--ply",
        "0",
        "--notation",
        "letter",
    ]);
    assert_eq!(code, 0);
    assert!(
        start.starts_with("W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:B"),
        "{start}"
    );
    let (code, _, err) = tammi(&["pdn", "fen", wk.to_str().unwrap(), "--game", "30"]);
    assert_eq!(code, 2);
    assert!(err.contains("has 23 games"), "{err}");
}
