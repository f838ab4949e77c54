//! PDN: the public corpus read and replayed, our fixtures written and read back in every
//! variant and both notations, errors located by game, line and column, lenient reading,
//! the command line, and random damage to PDN text never panicking.

use crate::common;
use std::path::{Path, PathBuf};

use common::{Rng, tammi};
use tammi::notation::{format_hub_move, parse_fen, parse_move};
use tammi::pdn::{
    self, Game, Line, PdnMove, ReadOptions, WriteOptions, read_pdn, resolve, write_game,
    write_games,
};
use tammi::rules::{ALL_VARIANTS, Board, Notation, Variant};
use tammi::with_board;

/// The public PDN corpus lives outside the repository, so the tests over it are ignored by
/// default; `.ci/run` runs them with `TAMMI_PDN_CORPUS=DIR cargo test --test suite --
/// --ignored pdn::`. Run that way without the corpus they fail: they never pass by skipping.
fn corpus() -> PathBuf {
    let dir = std::env::var_os("TAMMI_PDN_CORPUS").unwrap_or_else(|| {
        panic!(
            "TAMMI_PDN_CORPUS is not set: the corpus tests need the PDN corpus directory \
             (.ci/run sets it)"
        )
    });
    let dir = PathBuf::from(dir);
    assert!(
        dir.is_dir(),
        "the PDN corpus is missing: TAMMI_PDN_CORPUS={} is not a directory",
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_every_file_is_read_and_the_fail_file_fails_with_line_and_column() {
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_nested_comment_is_an_error_at_the_inner_brace() {
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_real_games_replay_without_an_illegal_move() {
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_move_strengths_in_parentheses_are_not_variations() {
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_nested_variations_are_kept_and_checked() {
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_fen_tags_with_ranges_and_an_unknown_side() {
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
    // PDN's default, written all the same: a reader that guesses the board from the
    // squares can guess wrong.
    assert!(
        intl.contains("[Result \"2-0\"]\n[GameType \"20\"]\n"),
        "{intl}"
    );
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
}

#[test]
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_letter_listing_writes_every_landing_square() {
    let corpus_english = read(&corpus().join("english_oca_2.0.pdn"));
    let listing = write_game(&corpus_english[0], &WriteOptions::letter_listing()).unwrap();
    assert!(listing.contains(" d2:b4:d6:b8\n0-1\n"), "{listing}");
}

/// A random legal game of `plies` plies from the start, in Hub move texts.
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

/// Game `number` of `variant` with these moves and nothing else.
fn game_of(number: usize, variant: Variant, moves: Vec<String>) -> Game {
    Game {
        number,
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
        warnings: Vec::new(),
    }
}

/// Random legal games in every variant, written in both notations and read back.
#[test]
fn random_games_round_trip_in_every_variant() {
    let mut rng = Rng(0x9d2c_5680);
    for variant in ALL_VARIANTS {
        for round in 0..12 {
            let moves = with_board!(variant, P => random_game::<P>(&mut rng, 150));
            let game = game_of(1, variant, moves);
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
            "[GameType \"28\"]\n1. 9-13 *",
            "game 2, line 4, column 1: GameType 28 (portuguese) is not supported",
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
    for f in EXTRA_FIXTURES {
        seeds.push(pdn::decode(&std::fs::read(fixture(f)).unwrap()));
    }
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_position_at_gives_the_fen_and_the_moves_to_it() {
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
}

#[test]
fn position_at_gives_the_fen_and_the_moves_to_it() {
    let path = fixture("international.pdn");
    let opts = ReadOptions::default();
    let start = pdn::position_at(&path, 1, Some(0), &opts).unwrap();
    assert_eq!(start.fen, start.start_fen);
    assert!(start.moves.is_empty());
    let p = pdn::position_at(&path, 1, Some(10), &opts).unwrap();
    assert_eq!(
        (p.variant, p.ply, p.moves.len()),
        (Variant::International, 10, 10)
    );
    assert_eq!(p.moves[..4], ["34-29", "20-25", "39-34", "14-20"]);
    // The moves replay from the start FEN to the FEN.
    type P = tammi::rules::Position<tammi::rules::International>;
    let mut pos: P = parse_fen(&p.start_fen).unwrap();
    for m in &p.moves {
        let mut legal = Vec::new();
        pos.generate(&mut legal);
        pos = pos.play(&parse_move(&pos, m, &legal).unwrap());
    }
    assert_eq!(pos, parse_fen::<P>(&p.fen).unwrap());
    // A game from a position starts at its FEN tag, black to move.
    let g2 = pdn::position_at(&path, 2, None, &opts).unwrap();
    assert_eq!(g2.start_fen, "B:W28,33,K46:B3,12,K22");
    assert_eq!(g2.moves, ["22-17", "46-37", "17-11", "37-32"]);
    let end = pdn::position_at(&path, 1, None, &opts).unwrap();
    assert_eq!(end.ply, 30);
    let err = pdn::position_at(&path, 1, Some(31), &opts).unwrap_err();
    assert!(
        format!("{err:#}").contains("game 1 has 30 plies in its main line; there is no ply 31"),
        "{err:#}"
    );
    let err = pdn::position_at(&path, 3, None, &opts).unwrap_err();
    assert!(format!("{err:#}").contains("has 2 games"), "{err:#}");
    // A russian game: moves in letters, FEN in numbers.
    let r = pdn::position_at(&fixture("russian.pdn"), 1, Some(5), &opts).unwrap();
    assert_eq!(r.moves, ["a3-b4", "b6-c5", "b4-a5", "c5-d4", "e3:c5"]);
    // A setup in the moves starts the history afresh.
    let s = pdn::position_at(&fixture("setups.pdn"), 3, None, &opts).unwrap();
    assert_eq!(s.start_fen, "W:W29,30:B4");
    assert_eq!(s.moves, ["a1-b2", "h8-g7"]);
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
#[ignore = "needs the PDN corpus: TAMMI_PDN_CORPUS=DIR (.ci/run sets it)"]
fn corpus_pdn_check_reports_the_files() {
    let oca = corpus().join("english_oca_2.0.pdn");
    let (code, out, err) = tammi(&["pdn", "check", oca.to_str().unwrap()]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "43 games, 2280 moves, 0 errors\n", "")
    );
    let fail = corpus().join("FAIL_nested_comment.pdn");
    let (code, out, err) = tammi(&["pdn", "check", fail.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("line 1, column 34"),
        "{err}"
    );
}

#[test]
fn pdn_check_exit_status_and_report() {
    let english = fixture("english.pdn");
    let (code, out, err) = tammi(&["pdn", "check", english.to_str().unwrap()]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "2 games, 25 moves, 0 errors\n", "")
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

    let fail = temp_file(
        "nested.pdn",
        "1. 32-28 19-23 2. 33-29 {a comment {inside} another} *\n",
    );
    let (code, out, err) = tammi(&["pdn", "check", fail.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("game 1, line 1, column 36: nested '{'"),
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

    let intl = fixture("international.pdn");
    let (code, fen, _) = tammi(&[
        "pdn",
        "fen",
        intl.to_str().unwrap(),
        "--game",
        "1",
        "--ply",
        "3",
    ]);
    assert_eq!(code, 0);
    let p = pdn::position_at(&intl, 1, Some(3), &ReadOptions::default()).unwrap();
    assert_eq!(fen.trim(), p.fen);
    assert_ne!(p.fen, p.start_fen);
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
    let (code, _, err) = tammi(&["pdn", "fen", intl.to_str().unwrap(), "--game", "30"]);
    assert_eq!(code, 2);
    assert!(err.contains("has 2 games; there is no game 30"), "{err}");
}

// ---------------------------------------------------------------------------------------
// The project's own fixtures for what the corpus shows: a BOM, CRLF, comments, variations,
// NAGs and strengths; setups; old captures; problems.

/// Fixtures beside the one-variant ones of [`FIXTURES`].
const EXTRA_FIXTURES: [&str; 4] = [
    "annotated.pdn",
    "setups.pdn",
    "english_old_captures.pdn",
    "problems_crowning.pdn",
];

fn texts(line: &Line) -> Vec<&str> {
    line.moves.iter().map(|m| m.text.as_str()).collect()
}

#[test]
fn annotated_fixture_with_bom_crlf_comments_variations_nags_and_strengths() {
    let path = fixture("annotated.pdn");
    let bytes = std::fs::read(&path).unwrap();
    // The fixture must stay as Windows saves it (tests/data/pdn/.gitattributes keeps git
    // from converting it).
    assert!(bytes.starts_with(b"\xef\xbb\xbf%"), "no byte-order mark");
    assert!(
        bytes.windows(2).filter(|w| w == b"\r\n").count()
            == bytes.iter().filter(|&&b| b == b'\n').count(),
        "not CRLF throughout"
    );
    let games = read(&path);
    assert_eq!(
        games.len(),
        1,
        "a result inside a variation does not end the game"
    );
    let g = &games[0];
    assert_eq!(
        g.tags[0].name, "Event",
        "the BOM is not part of the first tag"
    );
    assert_eq!(g.tag("White"), Some("Mäkinen, S."));
    assert_eq!(g.variant, Variant::International);
    assert_eq!(g.main_line.comments, ["Before the first move."]);
    let m = &g.main_line.moves;
    assert_eq!(
        texts(&g.main_line),
        [
            "32-28", "19-23", "28x19", "14x23", "33-28", "23x32", "37x28"
        ],
        "the ';' comment ends at the line end"
    );
    assert_eq!(m[0].strength.as_deref(), Some("!?"));
    assert_eq!(m[1].strength.as_deref(), Some("(!?)"));
    assert!(
        m[1].variations.is_empty(),
        "(!?) is a strength, not a variation"
    );
    assert_eq!(m[4].nags, [14]);
    assert_eq!(m[6].strength.as_deref(), Some("(!!)"));
    assert_eq!(m[6].comments, ["White is fine."]);
    let var = &m[3].variations[0];
    assert_eq!(texts(var), ["13x24", "34-30", "8-13"]);
    assert_eq!(var.moves[2].nags, [10]);
    let inner = &var.moves[1].variations[0];
    assert_eq!(texts(inner), ["37-32", "8-13"]);
    assert_eq!(inner.moves[0].strength.as_deref(), Some("?"));
    assert_eq!(inner.moves[0].nags, [2]);
    assert_eq!(inner.moves[0].comments, ["Slow."]);
    assert_eq!(g.move_count(), 12);
    assert_eq!(g.result.as_deref(), Some("1-0"));
    assert!(g.warnings.is_empty());
    assert_eq!(errors(g), Vec::<String>::new());
    let written = write_game(g, &WriteOptions::default()).unwrap();
    let flat = written.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "{Before the first move.} 1. 32-28!? 19-23(!?) 2. 28x19 14x23 (2... 13x24 3. 34-30 \
             (3. 37-32? $2 {Slow.} 3... 8-13) 3... 8-13 $10) 3. 33-28 $14 23x32 4. 37x28(!!) \
             {White is fine.} 1-0"
        ),
        "{written}"
    );
    assert_same_games(&games, &read_text(&written, None), "annotated");
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
fn setups_fixture_ranges_unknown_side_letters_and_a_setup_in_the_moves() {
    let games = read(&fixture("setups.pdn"));
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(errors(g), Vec::<String>::new(), "game {}", g.number);
    }
    type I = tammi::rules::Position<tammi::rules::International>;
    type E = tammi::rules::Position<tammi::rules::English>;
    let ranges: I = games[0].start_position().unwrap();
    assert_eq!(ranges, I::start(), "W:W31-50:B1-20 is the start");
    assert_eq!(games[1].variant, Variant::English);
    let unknown: E = games[1].start_position().unwrap();
    assert_eq!(
        unknown.side(),
        tammi::rules::Color::Black,
        "'?' is english's first mover"
    );
    assert_eq!(games[2].variant, Variant::Russian);
    let setup = &games[2].main_line.moves[3];
    assert_eq!(setup.text, "a1-b2");
    assert_eq!(
        setup.setup.as_ref().map(|s| s.0.as_str()),
        Some("W:Wa1,c1:Bh8")
    );
    // Written back: FENs in numbers, the setup kept before its move.
    let text = write_games(&games, &WriteOptions::default()).unwrap();
    assert!(text.contains("[FEN \"B:W11,13,29:B2,4,22\"]"), "{text}");
    assert!(text.contains(" d4:b6 /W:W"), "{text}");
    assert_same_games(&games, &read_text(&text, None), "setups");
}

#[test]
fn captures_written_by_start_and_end_are_decided_by_the_moves_after_them() {
    let games = read(&fixture("english_old_captures.pdn"));
    assert_eq!(games.len(), 3);
    // Told by the next move: the route by 17 is the one that leaves a man on 23.
    assert_eq!(errors(&games[0]), Vec::<String>::new());
    let w: Vec<String> = games[0].warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("game 1, line 15, column 4: ply 1: '10x26' could be ")
            && w[0].contains("10x17x26")
            && w[0].contains("10x19x26")
            && w[0].contains(
                "read as 10x17x26, under which 2 of the 2 moves after it replay (0 after 10x19x26)"
            ),
        "{w:?}"
    );
    let text = write_game(&games[0], &WriteOptions::default()).unwrap();
    assert!(text.contains("1. 10x17x26 23-19 2. 5-9 *"), "{text}");
    // Told three moves later: by 23, taking 26 and 18, keeps the man on 17.
    assert_eq!(errors(&games[1]), Vec::<String>::new());
    assert_eq!(games[1].warnings.len(), 1);
    assert!(
        games[1].warnings[0].message.contains("read as 30x23x14"),
        "{:?}",
        games[1].warnings
    );
    let text = write_game(&games[1], &WriteOptions::default()).unwrap();
    assert!(text.contains("1... 30x23x14"), "{text}");
    assert_same_games(
        &games[..2],
        &read_text(
            &write_games(&games[..2], &WriteOptions::default()).unwrap(),
            None,
        ),
        "decided",
    );
    // Never told: both routes fit what follows, so the move stays ambiguous.
    assert!(games[2].warnings.is_empty());
    let e = errors(&games[2]);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("game 3, ply 1, line ")
            && e[0].contains("ambiguous move '30x14': it could be ")
            && e[0].contains("the moves after it do not tell which"),
        "{e:?}"
    );
    assert!(write_game(&games[2], &WriteOptions::default()).is_err());
}

#[test]
fn a_man_on_its_crowning_row_is_read_as_a_king_with_a_warning() {
    let games = read(&fixture("problems_crowning.pdn"));
    assert_eq!(games.len(), 2);
    type E = tammi::rules::Position<tammi::rules::English>;
    for g in &games {
        assert_eq!(errors(g), Vec::<String>::new(), "game {}", g.number);
    }
    let w: Vec<String> = games
        .iter()
        .flat_map(|g| g.warnings.iter().map(|w| w.to_string()))
        .collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("game 1, line 12, column 1: FEN tag: the man on 3 (f8)")
            && w[0].ends_with("stands on the crowning row, read as a king"),
        "{w:?}"
    );
    assert!(
        w[1].starts_with("game 2, line 25, column 1: FEN tag: the men on 2 (d8)")
            && w[1].contains(", 30 (c1)")
            && w[1].ends_with("stand on the crowning row, read as kings"),
        "{w:?}"
    );
    let first: E = games[0].start_position().unwrap();
    assert_eq!(
        tammi::notation::write_fen(&first, Notation::Numeric),
        "W:WK3,K19:B12,K28"
    );
    // Written back, the FEN says what was meant, and reads without a warning.
    let text = write_games(&games, &WriteOptions::default()).unwrap();
    assert!(text.contains("[FEN \"W:WK3,K19:B12,K28\"]"), "{text}");
    let back = read_text(&text, None);
    assert!(back.iter().all(|g| g.warnings.is_empty()));
    assert_same_games(&games, &back, "crowned");
}

#[test]
fn pdn_commands_warn_about_lenient_reading_and_strict_refuses_it() {
    let problems = fixture("problems_crowning.pdn");
    let p = problems.to_str().unwrap();
    let (code, out, err) = tammi(&["pdn", "check", p]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("warning: game 1 (White \"?\", Black \"?\", Event \"Problem with a white man on 3\"), line 12, column 1: FEN tag: the man on 3"),
        "{out}"
    );
    assert_eq!(lines[2], "2 games, 5 moves, 0 errors, 2 warnings");
    let (code, out, _) = tammi(&["pdn", "check", "--strict", p]);
    assert_eq!(code, 1, "{out}");
    assert!(out.lines().next().unwrap().starts_with("game 1 ("), "{out}");
    assert!(out.ends_with("2 games, 5 moves, 2 errors\n"), "{out}");

    let (code, out, err) = tammi(&["pdn", "convert", p]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[FEN \"W:WK3,K19:B12,K28\"]"), "{out}");
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("warning: game ")),
        "{err}"
    );
    let (code, out, err) = tammi(&["pdn", "convert", "--strict", p]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: --strict: game 1 (")
            && err.contains("(and 1 more; tammi pdn check --strict lists them)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, fen, err) = tammi(&["pdn", "fen", p, "--game", "2", "--ply", "0"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fen.trim(), "B:WK2,K24:BK5,K30");
    let (code, _, err) = tammi(&["pdn", "fen", p, "--strict", "--game", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--strict: game 2"), "{err}");

    // The old captures: decided ones are warnings, the undecided one an error.
    let old = fixture("english_old_captures.pdn");
    let (code, out, _) = tammi(&["pdn", "check", old.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("warning: game 1 ") && lines[1].starts_with("warning: game 2 "));
    assert!(lines[2].starts_with("game 3 ") && lines[2].contains("ambiguous move '30x14'"));
    assert_eq!(lines[3], "3 games, 9 moves, 1 errors, 2 warnings");
}

/// A game of each variant: short ones whose letter squares stay within a1-h8 (the 10x10
/// game of the issue: `32-28 19-23 28x19 14x23` is `d4-e5 g7-f6 e5:g7 h8:f6`), and long
/// random ones.
fn every_variant_games() -> Vec<Game> {
    let mut rng = Rng(0x5eed_1616);
    let mut out = Vec::new();
    for variant in ALL_VARIANTS {
        // (frysk! starts from five men each, where 32-28 is no move.)
        if variant.width() == 10 && variant != Variant::Frysk {
            let short = ["32-28", "19-23", "28x19", "14x23"]
                .map(String::from)
                .to_vec();
            out.push(game_of(out.len() + 1, variant, short));
        }
        let moves = with_board!(variant, P => random_game::<P>(&mut rng, 6));
        out.push(game_of(out.len() + 1, variant, moves));
        let moves = with_board!(variant, P => random_game::<P>(&mut rng, 120));
        out.push(game_of(out.len() + 1, variant, moves));
    }
    out
}

#[test]
fn what_tammi_writes_tammi_reads_back_in_every_variant_and_both_notations() {
    let games = every_variant_games();
    for g in &games {
        let written = write_game(g, &WriteOptions::default()).unwrap();
        let name = format!("round-{}-{}.pdn", g.number, g.variant);
        let numeric = temp_file(&name, &written);
        let letters = temp_file(&format!("letters-{name}"), "");
        let again = temp_file(&format!("again-{name}"), "");
        let what = format!("game {} ({})", g.number, g.variant);
        let run = |args: &[&str]| {
            let (code, out, err) = tammi(args);
            assert_eq!((code, err.as_str()), (0, ""), "{what}: {args:?}\n{out}");
            out
        };
        let moves = g.main_line.moves.len();
        let report = format!("1 games, {moves} moves, 0 errors\n");
        assert_eq!(
            run(&["pdn", "check", numeric.to_str().unwrap()]),
            report,
            "{what}"
        );
        run(&[
            "pdn",
            "convert",
            numeric.to_str().unwrap(),
            "--notation",
            "letter",
            "-o",
            letters.to_str().unwrap(),
        ]);
        assert_eq!(
            run(&["pdn", "check", letters.to_str().unwrap()]),
            report,
            "{what}"
        );
        run(&[
            "pdn",
            "convert",
            letters.to_str().unwrap(),
            "--notation",
            "numeric",
            "-o",
            again.to_str().unwrap(),
        ]);
        // No --variant anywhere: the file says what it is.
        for path in [&letters, &again] {
            let back = read(path);
            assert_eq!(back[0].variant, g.variant, "{what}: {}", path.display());
            assert_same_games(std::slice::from_ref(g), &back, &what);
        }
        let numeric_opts = WriteOptions {
            notation: Some(Notation::Numeric),
            ..WriteOptions::default()
        };
        let text = std::fs::read_to_string(&again).unwrap();
        assert_eq!(
            text,
            write_game(g, &numeric_opts).unwrap(),
            "{what}: to letters and back to numbers"
        );
    }
}

#[test]
fn the_variant_tag_names_the_variants_that_share_gametype_20() {
    let v = |text: &str, opt: Option<Variant>| read_text(text, opt)[0].variant;
    assert_eq!(
        v("[GameType \"20\"][Variant \"killer\"] 1. 32-28 *", None),
        Variant::Killer
    );
    assert_eq!(
        v("[Variant \"Antidraughts\"] 1. 32-28 *", None),
        Variant::Losing
    );
    assert_eq!(
        v(
            "[GameType \"20\"][Variant \"Breakthrough\"] 1. 32-28 *",
            Some(Variant::Killer)
        ),
        Variant::Breakthrough,
        "the file's own tag before the option"
    );
    // Values that are not one of tammi's variants, or that contradict the GameType, say
    // nothing.
    assert_eq!(
        v("[GameType \"20\"][Variant \"Standard\"] 1. 32-28 *", None),
        Variant::International
    );
    assert_eq!(
        v("[GameType \"26\"][Variant \"russian\"] 1. c3-d4 *", None),
        Variant::Brazilian
    );
    // Written once, replacing a tag read.
    let g = &read_text("[GameType \"20\"][Variant \"bt\"] 1. 32-28 *", None)[0];
    let text = write_game(g, &WriteOptions::default()).unwrap();
    assert_eq!(text.matches("[Variant ").count(), 1, "{text}");
    assert!(
        text.contains("[GameType \"20\"]\n[Variant \"breakthrough\"]\n"),
        "{text}"
    );
}

/// The default suite must pass on a fresh clone, which has nothing beside it: no test or
/// source may name the directory beside the repository where CI keeps the corpus (the
/// corpus tests take theirs from TAMMI_PDN_CORPUS).
#[test]
fn no_test_or_source_names_the_directory_beside_the_repository() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    walk(&root.join("tests"), &mut files);
    assert!(files.len() > 20, "{files:?}");
    let beside = concat!("..", "/shared");
    let naming: Vec<String> = files
        .iter()
        .filter(|p| std::fs::read_to_string(p).unwrap().contains(beside))
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(naming, Vec::<String>::new(), "these name {beside}");
}
