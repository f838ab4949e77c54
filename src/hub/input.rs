//! Lines of a protocol's input, read on a thread of their own so that the loop that
//! handles them can answer `ping`, `stop` or `quit` while a search runs (the Hub and the
//! text mode read their input this way).

use std::io::BufRead;

use crossbeam_channel::{Receiver, unbounded};

/// What the reader saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputEvent {
    /// One line without its end, bytes that are not UTF-8 read as U+FFFD; the flag says
    /// whether any byte was replaced.
    Line(String, bool),
    /// A line longer than the limit, skipped whole (its length in bytes is not kept).
    TooLong(usize),
    /// The end of the input: the other side is gone.
    Eof,
}

/// Read `input` line by line on a new thread, each line at most `max_line` bytes (a
/// longer one is skipped in bounded pieces, so a huge line cannot exhaust memory). The
/// thread ends after sending `Eof`, or when the receiver is dropped.
pub fn spawn_reader<R: BufRead + Send + 'static>(
    mut input: R,
    max_line: usize,
) -> Receiver<InputEvent> {
    let (tx, rx) = unbounded();
    std::thread::Builder::new()
        .name("tammi-input".into())
        .spawn(move || {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let mut long = false;
                loop {
                    let mut chunk = Vec::new();
                    let n = std::io::Read::take(&mut input, 64 * 1024)
                        .read_until(b'\n', &mut chunk)
                        .unwrap_or(0);
                    if n == 0 {
                        if buf.is_empty() && !long {
                            let _ = tx.send(InputEvent::Eof);
                            return;
                        }
                        break;
                    }
                    let ended = chunk.last() == Some(&b'\n');
                    if buf.len() + chunk.len() > max_line {
                        long = true;
                        buf.clear();
                    } else {
                        buf.extend_from_slice(&chunk);
                    }
                    if ended {
                        break;
                    }
                }
                let event = if long {
                    InputEvent::TooLong(max_line)
                } else {
                    while matches!(buf.last(), Some(b'\n' | b'\r')) {
                        buf.pop();
                    }
                    match String::from_utf8(std::mem::take(&mut buf)) {
                        Ok(text) => InputEvent::Line(text, false),
                        Err(e) => {
                            InputEvent::Line(String::from_utf8_lossy(e.as_bytes()).into(), true)
                        }
                    }
                };
                if tx.send(event).is_err() {
                    return;
                }
            }
        })
        .expect("spawning the input thread");
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_long_lines_bad_bytes_and_the_end() {
        let text = b"ping\r\n\xffgo\nxxxxxxxxxxxx\nlast".to_vec();
        let rx = spawn_reader(std::io::Cursor::new(text), 8);
        let got: Vec<InputEvent> = rx.iter().collect();
        assert_eq!(
            got,
            vec![
                InputEvent::Line("ping".into(), false),
                InputEvent::Line("\u{fffd}go".into(), true),
                InputEvent::TooLong(8),
                InputEvent::Line("last".into(), false),
                InputEvent::Eof,
            ]
        );
    }
}
