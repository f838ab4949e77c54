//! The documents state the present: the README and the tuning reference stay short
//! enough to read (history goes to the dated `docs/results.md` and `tuning/LOG.md`).

fn read(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

#[test]
fn the_readmes_are_at_most_300_lines_and_history_has_its_own_files() {
    for path in ["README.md", "tuning/README.md"] {
        let n = read(path).lines().count();
        assert!(
            n <= 300,
            "{path} has {n} lines: move history to docs/results.md or tuning/LOG.md"
        );
    }
    for path in ["docs/results.md", "tuning/LOG.md"] {
        assert!(!read(path).trim().is_empty(), "{path} is empty");
    }
}

#[test]
fn the_readme_has_one_strength_table_and_one_speed_table() {
    let readme = read("README.md");
    for heading in ["## Strength", "## Speed"] {
        let at: Vec<_> = readme.match_indices(&format!("\n{heading}\n")).collect();
        assert_eq!(at.len(), 1, "one '{heading}' section");
        let section = &readme[at[0].0 + 1..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        // A table's header row is followed by its |---| row.
        let tables = section.matches("\n|---").count();
        assert_eq!(tables, 1, "{heading} holds one table");
    }
}
