//! Quoting user input inside error messages: one helper for every message that echoes
//! what was sent, so that a 5 MB line gives a short error and control bytes (NUL, ESC)
//! never reach a terminal or a protocol peer raw.

/// At most this many characters of the input are echoed.
pub const ECHO_CHARS: usize = 60;

/// `text` as an error message quotes it: control characters escaped (`\0`, `\u{1b}`,
/// `\n`), and cut after [`ECHO_CHARS`] characters with the full length said.
pub fn echo(text: &str) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == ECHO_CHARS {
            let total = text.chars().count();
            out.push_str(&format!("... ({total} characters)"));
            return out;
        }
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept() {
        assert_eq!(echo("32-28"), "32-28");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(echo("a\0b\u{1b}[2J"), "a\\0b\\u{1b}[2J");
    }

    #[test]
    fn long_text_is_cut_with_its_length() {
        let long = "x".repeat(5_000_000);
        let e = echo(&long);
        assert!(e.len() < 100, "{e}");
        assert!(e.ends_with("... (5000000 characters)"), "{e}");
    }
}
