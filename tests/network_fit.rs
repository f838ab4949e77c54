//! `tammi tune net-fit` end to end on a few self-play games (seconds): it writes a network
//! file that parses and plays, the same flags give the same file, and bad flags or data
//! are one-line errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn tammi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tammi"))
        .args(args)
        .output()
        .expect("running tammi")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tammi-netfit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn net_fit_trains_on_self_play_and_writes_a_network() {
    let games = temp("games.txt");
    let o = tammi(&[
        "tune",
        "games",
        "--variant",
        "english",
        "--games",
        "6",
        "--nodes",
        "300",
        "--out",
        games.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fit_with = |out: &PathBuf, extra: &[&str]| {
        let mut args = vec![
            "tune",
            "net-fit",
            "--data",
            games.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "3",
            "--batch",
            "64",
            "--seed",
            "4",
        ];
        args.extend_from_slice(extra);
        tammi(&args)
    };
    let fit = |out: &PathBuf| fit_with(out, &[]);
    let (a, b) = (temp("a.txt"), temp("b.txt"));
    let o = fit(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let log = stderr(&o);
    assert!(
        log.contains("epoch    3") && log.contains("validation loss"),
        "{log}"
    );
    let net = tammi::eval::network::read_file(&a).unwrap();
    assert!(
        net.header.iter().any(|h| h.contains("net-fit")),
        "{:?}",
        net.header
    );
    assert_eq!(net.buckets(), 1);
    assert!(fit(&b).status.success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Four buckets: a version 2 file of four, saying so in its header, reproducible.
    let (c, d) = (temp("c.txt"), temp("d.txt"));
    let o = fit_with(&c, &["--buckets", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let net4 = tammi::eval::network::read_file(&c).unwrap();
    assert_eq!(net4.buckets(), 4);
    assert!(
        net4.header.iter().any(|h| h.contains("buckets 4")),
        "{:?}",
        net4.header
    );
    assert!(fit_with(&d, &["--buckets", "4"]).status.success());
    assert_eq!(std::fs::read(&c).unwrap(), std::fs::read(&d).unwrap());
    // The trained file plays through the Hub parameters, with no error.
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tammi"))
        .arg("hub")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        "hub\ninit\nset-param name=variant value=english\nset-param name=network value={}\n\
         set-param name=eval value=network\npos\nlevel depth=5\ngo think\nquit\n",
        a.display()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(!out.contains("error"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("done move=")), "{out}");

    // Bad flags and data: one line naming the problem, no file.
    let bad = temp("bad.txt");
    for (flag, expected) in [
        ("--lr=0", "--lr"),
        ("--buckets=0", "--buckets must be between 1 and 8, got 0"),
        ("--buckets=9", "--buckets must be between 1 and 8, got 9"),
        ("--lr-decay=0", "--lr-decay must be in (0, 1]"),
        ("--lr-decay=1.5", "--lr-decay must be in (0, 1]"),
        ("--lr-decay=nan", "--lr-decay must be in (0, 1]"),
    ] {
        let o = tammi(&[
            "tune",
            "net-fit",
            "--data",
            games.to_str().unwrap(),
            "--out",
            bad.to_str().unwrap(),
            flag,
        ]);
        assert!(
            !o.status.success() && stderr(&o).contains(expected),
            "{flag}: {}",
            stderr(&o)
        );
    }
    let junk = temp("junk.txt");
    std::fs::write(&junk, "W:W21:B1 2\n").unwrap();
    let o = tammi(&[
        "tune",
        "net-fit",
        "--data",
        junk.to_str().unwrap(),
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("line 1"),
        "{}",
        stderr(&o)
    );
    assert!(!bad.exists());
}
