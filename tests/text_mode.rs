//! Plain `tammi`: the text mode for people, driven through its standard input.

use std::io::Write;
use std::process::{Command, Stdio};

fn session(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
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
