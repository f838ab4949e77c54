//! The Hub line syntax: `command name=value name="quoted value" flag`.
//!
//! A value is quoted with `"` when it is empty or holds a space or `=`; there is no escape
//! character. A name without `=value` is a flag. Blanks around `=` are tolerated.

use std::fmt;

/// One parsed line: the command word and its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub command: String,
    pub args: Vec<(String, Option<String>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError(pub String);

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Line {
    /// The value of argument `name` (the last one if repeated); `Some("")` for a flag.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_deref().unwrap_or(""))
    }

    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| n == name)
    }
}

/// Split a line into its command and arguments.
pub fn parse_line(text: &str) -> Result<Line, LineError> {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut i = 0;
    let mut words: Vec<(String, Option<String>)> = Vec::new();
    let skip_blanks = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    while i < chars.len() {
        skip_blanks(&mut i);
        if i >= chars.len() {
            break;
        }
        if chars[i] == '=' {
            return Err(LineError(format!("'=' without a name at column {}", i + 1)));
        }
        let name_start = i;
        let name = read_value(&chars, &mut i, name_start)?;
        let mut j = i;
        skip_blanks(&mut j);
        if j < chars.len() && chars[j] == '=' {
            j += 1;
            skip_blanks(&mut j);
            i = j;
            if i >= chars.len() {
                return Err(LineError(format!("'{name}=' has no value")));
            }
            let value = read_value(&chars, &mut i, name_start)?;
            words.push((name, Some(value)));
        } else {
            words.push((name, None));
        }
    }
    let mut words = words.into_iter();
    match words.next() {
        Some((command, None)) => Ok(Line {
            command,
            args: words.collect(),
        }),
        Some((command, Some(_))) => Err(LineError(format!(
            "a line starts with a command word, not '{command}=...'"
        ))),
        None => Err(LineError("empty line".into())),
    }
}

/// A bare word or a quoted string starting at `*i`.
fn read_value(chars: &[char], i: &mut usize, start: usize) -> Result<String, LineError> {
    if chars[*i] == '"' {
        let open = *i;
        *i += 1;
        let from = *i;
        while *i < chars.len() && chars[*i] != '"' {
            *i += 1;
        }
        if *i >= chars.len() {
            return Err(LineError(format!(
                "unclosed quote opened at column {} (argument starting at column {})",
                open + 1,
                start + 1
            )));
        }
        let s: String = chars[from..*i].iter().collect();
        *i += 1;
        Ok(s)
    } else {
        let from = *i;
        while *i < chars.len() && !chars[*i].is_whitespace() && chars[*i] != '=' {
            *i += 1;
        }
        Ok(chars[from..*i].iter().collect())
    }
}

/// Quote a value when the Hub syntax requires it (empty, blanks, `=` or quotes).
pub fn quote(value: &str) -> String {
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=' || c == '"') {
        // No escape exists: a quote inside a value cannot be written, so it is dropped.
        format!("\"{}\"", value.replace('"', "'"))
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_flags_and_quotes() {
        let l = parse_line("pos pos=Wbbbb moves=\"32-28 17-22\" start").unwrap();
        assert_eq!(l.command, "pos");
        assert_eq!(l.get("pos"), Some("Wbbbb"));
        assert_eq!(l.get("moves"), Some("32-28 17-22"));
        assert!(l.has("start"));
        assert_eq!(l.get("start"), Some(""));
        let l = parse_line("  set-param  name = variant value= \"\" ").unwrap();
        assert_eq!(l.get("name"), Some("variant"));
        assert_eq!(l.get("value"), Some(""));
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(
            parse_line("pos moves=\"32-28")
                .unwrap_err()
                .0
                .contains("unclosed quote")
        );
        assert!(parse_line("").unwrap_err().0.contains("empty"));
        assert!(
            parse_line("level time=")
                .unwrap_err()
                .0
                .contains("no value")
        );
        assert!(parse_line("=x").is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("abc"), "abc");
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote(""), "\"\"");
    }
}
