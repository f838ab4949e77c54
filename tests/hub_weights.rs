//! The Hub parameter `weights`: a weights file replaces the variant's built-in evaluation
//! (for trying a fitted file without a new build); a bad file is an error that keeps the
//! weights in use.

use tammi::eval::Weights;

use crate::common;

use common::hub::Hub;

/// The answer to a `set-param`: `None` when accepted, else the error line.
fn set(hub: &mut Hub, name: &str, value: &str) -> Option<String> {
    hub.send(&format!("set-param name={name} value=\"{value}\""));
    hub.send("ping");
    hub.until("pong")
        .into_iter()
        .find(|l| l.starts_with("error"))
}

/// The score (men) of a depth-1 search of the start position.
fn score(hub: &mut Hub) -> f64 {
    hub.send("pos");
    hub.send("level depth=1");
    hub.send("go analyze");
    let lines = hub.until("done");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info"))
        .expect("an info line");
    let score = info
        .split_whitespace()
        .find_map(|w| w.strip_prefix("score="))
        .expect("a score");
    score.parse().unwrap()
}

/// An international weights file: every scalar 0 but `man` 100 and `tempo` 500.
fn tempo_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut w = Weights::unscaled(50);
    w.man = 100;
    w.tempo = 500;
    let path = dir.join("tempo.txt");
    std::fs::write(&path, w.to_text(&["test".into()])).unwrap();
    path
}

#[test]
fn a_weights_file_replaces_the_built_in_one_until_reset() {
    let dir = std::env::temp_dir().join(format!("tammi-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = tempo_file(&dir);
    let mut hub = Hub::ready();
    let built_in = score(&mut hub);
    assert!(built_in.abs() < 2.0, "built-in score {built_in}");

    assert_eq!(set(&mut hub, "weights", good.to_str().unwrap()), None);
    // One man advanced one row: 5 men of tempo for White, the side that moved.
    let tempo = score(&mut hub);
    assert!(tempo > 4.0, "score with tempo 500: {tempo}");

    // Bad files are refused and leave the weights in use.
    let bad_line = dir.join("bad.txt");
    std::fs::write(&bad_line, "man 100\nbishop 3\n").unwrap();
    for (value, why) in [
        ("/nonexistent/weights.txt", "cannot read"),
        (dir.to_str().unwrap(), "not a regular file"),
        (
            bad_line.to_str().unwrap(),
            "line 2: unknown weight 'bishop'",
        ),
    ] {
        let e = set(&mut hub, "weights", value).expect("an error");
        assert!(e.contains(why), "{value}: {e}");
        assert_eq!(score(&mut hub), tempo, "after {value}");
    }
    // An english file for an international board: the wrong number of squares.
    let mut english = Weights::zero(32);
    english.man = 100;
    let short = dir.join("english.txt");
    let text = english.to_text(&[]);
    let text: String = text
        .lines()
        .filter(|l| !l.contains("square"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&short, text + "man_square_opening 1 2 3\n").unwrap();
    let e = set(&mut hub, "weights", short.to_str().unwrap()).expect("an error");
    assert!(e.contains("needs 50 values"), "{e}");

    // An empty value, or a change of variant, goes back to the built-in weights.
    assert_eq!(set(&mut hub, "weights", ""), None);
    assert_eq!(score(&mut hub), built_in);
    assert_eq!(set(&mut hub, "weights", good.to_str().unwrap()), None);
    assert_eq!(set(&mut hub, "variant", "english"), None);
    assert_eq!(set(&mut hub, "variant", "normal"), None);
    assert_eq!(score(&mut hub), built_in);
    std::fs::remove_dir_all(&dir).ok();
}
