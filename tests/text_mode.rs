//! Plain `tammi`: the text mode for people, driven through its standard input.

use std::io::Write;
use std::process::{Command, Stdio};

fn session(input: &str) -> String {
    crate::common::text_session(input)
}

#[test]
fn moves_in_either_notation_and_the_move_list_in_pairs() {
    let out = session("32-28\ng7-f6\ngame\nnotation letter\ngame\nquit\n");
    assert!(out.contains("1. 32-28 19-23"), "{out}");
    assert!(out.contains("1. d4-e5 g7-f6"), "{out}");
    // The capture that follows is the only legal move and is offered.
    assert!(out.contains("White to move: 28x19"), "{out}");
}

#[test]
fn captures_list_every_landing_square_and_undo_takes_back() {
    let out = session(
        "new english\nfen W:W30:B25,26,17,18\nnotation letter\nc1:e3:c5\ngame\nundo\nmoves\nquit\n",
    );
    assert!(out.contains("1. ... c1:e3:c5"), "{out}");
    assert!(out.contains("2 legal: c1:a3:c5 c1:e3:c5"), "{out}");
}

#[test]
fn the_engine_plays_and_bad_input_is_explained() {
    let out = session("depth 3\ngo\n99-98\nnew chess\nlevel fast\nfen W:W99\nundo\nquit\n");
    assert!(out.contains("tammi plays"), "{out}");
    assert!(out.contains("is not on the board"), "{out}");
    assert!(out.contains("unknown variant 'chess'"), "{out}");
    assert!(out.contains("level takes seconds"), "{out}");
}

#[test]
fn new_variants_start_from_their_start_position() {
    let out = session("new turkish\nnew canadian\nquit\n");
    assert!(
        out.contains("turkish draughts") && out.contains("canadian draughts"),
        "{out}"
    );
    assert!(out.contains("White to move: a3-a4"), "{out}");
}

/// The text mode with raw bytes on its input (which need not be UTF-8).
fn session_bytes(input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "exit status {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// Issue 16: one byte that is not UTF-8 is read leniently and named; the game goes on.
#[test]
fn invalid_utf8_is_read_leniently_and_the_game_goes_on() {
    let out = session_bytes(b"32-28\n\xff\n19-23\x80\n19-23\ngame\nquit\n");
    assert!(out.contains("not UTF-8"), "{out}");
    assert!(out.contains("1. 32-28 19-23"), "{out}");
}

/// Issue 16: `quit` typed while `analyze` runs ends tammi (what follows is not read).
#[test]
fn quit_during_analyze_quits() {
    let out = session("analyze\nquit\n32-28\ngame\n");
    assert!(out.contains("scores from White's view"), "{out}");
    assert!(!out.contains("1. 32-28"), "{out}");
}

/// Issue 16: commands in capitals work, and a word that is no command and no move says
/// what was expected (not "'ELP' is not a square").
#[test]
fn commands_in_any_case_and_unknown_words_say_what_was_expected() {
    let out = session("HELP\nfrobnicate\nquit\n");
    assert!(out.contains("commands:"), "{out}");
    assert!(!out.contains("is not a square"), "{out}");
    assert!(
        out.contains("unknown command 'frobnicate': expected a command"),
        "{out}"
    );
}

/// Issue 16: a database result reads as one, not as 81 men ahead.
#[test]
fn database_results_read_as_database_win() {
    let dir = std::env::temp_dir().join(format!("tammi-text-egdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("english3.egdb");
    tammi::egdb::Database::build(tammi::rules::Variant::English, 3, &mut |_, _, _| {})
        .unwrap()
        .save(&db)
        .unwrap();
    let out = session(&format!(
        "new english\negdb {}\nfen W:WK18,K19:BK1,K23\ndepth 3\ngo\ngame\nquit\n",
        db.display()
    ));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.contains("endgame database"), "{out}");
    assert!(out.contains("score database win"), "{out}");
}

/// A `tammi` text mode driven line by line, its output read as it comes.
struct Live {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Live {
    fn start() -> Live {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // The prompt `> ` has no line end: split on it too.
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                for part in line.split("> ") {
                    if tx.send(part.to_string()).is_err() {
                        return;
                    }
                }
            }
        });
        Live {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The first line containing `word`, waiting at most `within`.
    fn until(&mut self, word: &str, within: std::time::Duration) -> String {
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.contains(word) => return l,
                Ok(_) => {}
                Err(e) => panic!("no '{word}' within {within:?}: {e}"),
            }
        }
    }

    /// Whether the process ends within `within`.
    fn exits_within(&mut self, within: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text mode read no input while it thought: after `level 60` and `go`, a `stop`,
/// `quit` or the end of the input took effect only when the minute was over. Now `stop`
/// (or Enter) plays the best move so far at once, and `quit` or the end of the input
/// end tammi at once. The bounds only catch the old wait, with room to spare.
#[test]
fn stop_quit_and_the_end_of_input_are_heard_while_the_engine_thinks() {
    use std::time::Duration;
    let patience = Duration::from_secs(15);
    let mut live = Live::start();
    // The search is what is listened to: from the start a book move would come at once.
    live.send("book off\nlevel 60\ngo\n");
    live.until("scores from", patience);
    std::thread::sleep(Duration::from_millis(300));
    live.send("stop\n");
    live.until("tammi plays", patience);
    live.send("go\n");
    live.until("scores from", patience);
    std::thread::sleep(Duration::from_millis(300));
    live.send("\n");
    live.until("tammi plays", patience);
    live.send("go\n");
    live.until("scores from", patience);
    std::thread::sleep(Duration::from_millis(300));
    live.send("quit\n");
    assert!(live.exits_within(patience), "no exit after quit");

    let mut live = Live::start();
    // The search is what is listened to: from the start a book move would come at once.
    live.send("book off\nlevel 60\ngo\n");
    live.until("scores from", patience);
    std::thread::sleep(Duration::from_millis(300));
    drop(live.stdin.take());
    assert!(
        live.exits_within(patience),
        "no exit at the end of the input"
    );
}

/// Lines typed while the engine thinks (other than stop and quit) are handled after its
/// move, in order, a `quit` after them too: piped input keeps its meaning.
#[test]
fn lines_sent_during_a_search_wait_for_it() {
    let out = session("depth 4\ngo\nboard\ngame\nquit\n");
    let played = out.find("tammi plays").expect("the engine played");
    let listed = out.find("1. ").expect("the game listed");
    assert!(played < listed, "{out}");
}

/// The help lists every variant of the variant table (it lacked italian, pool, czech,
/// spanish and thai); `new` with more than one word is refused, not read as its first;
/// a refused level says what stays.
#[test]
fn help_new_and_level_say_what_they_take() {
    let out = session("help\nnew normal extra\nlevel 1e9\ndepth 0\nquit\n");
    for v in tammi::rules::ALL_VARIANTS {
        assert!(
            out.contains(v.name()),
            "{} missing from the help: {out}",
            v.name()
        );
    }
    assert!(out.contains("new takes at most one variant name"), "{out}");
    // The one game of the session: the refused `new` started none.
    assert_eq!(out.matches("international draughts").count(), 1, "{out}");
    assert!(out.contains("the limit stays 2 seconds a move"), "{out}");
}

/// `set` checks a value against the table of settings: a bad one is refused saying what
/// is wrong and what stays, and changes nothing; a good one shows in `settings`; the Hub's
/// own parameters are not the text mode's.
#[test]
fn set_checks_against_the_table_and_keeps_the_old_value() {
    let out = session(
        "set threads 0\nset book-ply x\nset bogus 1\nset client pydraughts\n\
         set eval network\nset threads 2\nsettings\nquit\n",
    );
    for said in [
        "error: threads must be from 1 to 256, got 0; threads stays '1'",
        "error: book-ply must be a whole number from 0 to 1000, got 'x'; book-ply stays '60'",
        "error: unknown parameter 'bogus' (the parameters: variant threads",
        "error: client is a Hub parameter",
        "has no network evaluation (only english has one); eval stays 'patterns'",
        "threads=2",
    ] {
        assert!(out.contains(said), "{said}: {out}");
    }
    let listed = out.split("settings (").nth(1).expect("the settings list");
    for kept in ["book-ply=60 ", "eval=patterns ", "threads=2 "] {
        assert!(listed.contains(kept), "{kept}: {listed}");
    }
}
