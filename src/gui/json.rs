//! JSON text for the page: the server only writes JSON (requests arrive as query
//! parameters and plain-text bodies), so a string escaper is all it takes.

/// `s` as a JSON string literal, quotes included.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // `<` too, so that no text can close a script element if JSON ever lands in one.
            c if (c as u32) < 0x20 || c == '<' || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of strings.
pub fn strings<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| string(s.as_ref())).collect();
    format!("[{}]", parts.join(","))
}

/// A JSON array of numbers.
pub fn numbers(items: &[u32]) -> String {
    let parts: Vec<String> = items.iter().map(u32::to_string).collect();
    format!("[{}]", parts.join(","))
}

/// `{"error": message}`.
pub fn error(message: &str) -> String {
    format!("{{\"error\":{}}}", string(message))
}

#[cfg(test)]
mod tests {
    #[test]
    fn strings_escape() {
        assert_eq!(super::string("a\"b\\c\n</"), "\"a\\\"b\\\\c\\n\\u003c/\"");
        assert_eq!(super::string("\u{1}"), "\"\\u0001\"");
    }
}
