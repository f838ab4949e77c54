//! The little HTTP/1.1 the page needs, on `std::net`, with every limit explicit: one
//! request per connection (`Connection: close`), a request head of at most
//! [`MAX_HEAD`] bytes, a body of at most [`MAX_BODY`] bytes announced by
//! `Content-Length` (no chunked uploads), and a read timeout on the socket. Whatever a
//! client sends, the server holds at most `MAX_HEAD + MAX_BODY` bytes for it.
//!
//! Why not a crate: the small synchronous servers (tiny_http 0.12) read a header line
//! without a length limit and start a thread per connection without a cap, the two
//! things the load test must not find; the async ones bring a runtime the engine does
//! not otherwise need. What is here is a bounded reader and a response writer.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

/// The request line and headers together.
pub const MAX_HEAD: usize = 8 * 1024;
/// A body: a pasted FEN or a PDN file to load.
pub const MAX_BODY: usize = 1024 * 1024;

/// A request as read: the method, the path without its query, the query's pairs
/// (percent-decoded), the headers the server looks at, and the body.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub host: Option<String>,
    pub origin: Option<String>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request was not read: the status to answer with and a message (`None`: the
/// connection went away or timed out, nothing to answer).
#[derive(Debug)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

fn refuse(status: u16, message: impl Into<String>) -> Option<Refusal> {
    Some(Refusal {
        status,
        message: message.into(),
    })
}

/// Read one request from `stream`, all of it before `deadline`.
pub fn read_request(stream: &mut TcpStream, deadline: Instant) -> Result<Request, Option<Refusal>> {
    let mut buf = vec![0u8; MAX_HEAD];
    let mut filled = 0;
    let head_end = loop {
        if let Some(i) = find(&buf[..filled], b"\r\n\r\n") {
            break i;
        }
        if filled == MAX_HEAD {
            return Err(refuse(
                431,
                format!("the request head is longer than {MAX_HEAD} bytes"),
            ));
        }
        match read_before(stream, &mut buf[filled..], deadline) {
            Ok(0) | Err(_) => return Err(None),
            Ok(n) => filled += n,
        }
    };
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| refuse(400, "the request head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(refuse(505, "only HTTP/1.x is spoken here"));
    }
    if !target.starts_with('/') {
        return Err(refuse(400, "the request target must be a path"));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut req = Request {
        method: method.to_string(),
        path: percent_decode(path)
            .ok_or_else(|| refuse(400, "bad percent-encoding in the path"))?,
        query: parse_query(query)
            .ok_or_else(|| refuse(400, "bad percent-encoding in the query"))?,
        ..Request::default()
    };
    let mut length = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(refuse(400, "malformed header line"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                length = value
                    .parse()
                    .map_err(|_| refuse(400, "Content-Length is not a number"))?;
            }
            "transfer-encoding" => return Err(refuse(411, "send the body with Content-Length")),
            "host" => req.host = Some(value.to_string()),
            "origin" => req.origin = Some(value.to_string()),
            _ => {}
        }
    }
    if length > MAX_BODY {
        return Err(refuse(
            413,
            format!("the body is {length} bytes; at most {MAX_BODY} are accepted"),
        ));
    }
    let already = &buf[head_end + 4..filled];
    if already.len() > length {
        return Err(refuse(
            400,
            "more bytes than Content-Length (one request per connection)",
        ));
    }
    let mut body = Vec::with_capacity(length);
    body.extend_from_slice(already);
    let mut rest = length - already.len();
    let mut chunk = [0u8; 16 * 1024];
    while rest > 0 {
        let want = rest.min(chunk.len());
        match read_before(stream, &mut chunk[..want], deadline) {
            Ok(0) | Err(_) => return Err(None),
            Ok(n) => {
                body.extend_from_slice(&chunk[..n]);
                rest -= n;
            }
        }
    }
    req.body = body;
    Ok(req)
}

/// A read that gives up at `deadline`: a client sending a byte now and then cannot
/// hold a worker for longer than that.
fn read_before(
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: Instant,
) -> std::io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(std::io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(buf)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `a=1&b=x%20y` into pairs; `None` on bad percent-encoding or invalid UTF-8.
pub fn parse_query(query: &str) -> Option<Vec<(String, String)>> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Some((percent_decode(k)?, percent_decode(&v.replace('+', " "))?))
        })
        .collect()
}

/// `%41` to `A`; `None` on a bad escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        421 => "Misdirected Request",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// The headers every answer carries: no caching, no sniffing, and a policy that lets the
/// page load nothing but this server's own assets.
const COMMON_HEADERS: &str = "Connection: close\r\nCache-Control: no-store\r\n\
X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:\r\n";

/// Write a whole response and let the connection close.
pub fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &[u8]) {
    respond_with(stream, status, content_type, &[], body)
}

/// [`respond`] with extra header lines (`Name: value`, no line ends).
pub fn respond_with(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra: &[String],
    body: &[u8],
) {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{COMMON_HEADERS}",
        reason(status),
        body.len()
    );
    for h in extra {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    // A client that went away is nobody's error.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// The head of an event stream (Server-Sent Events): the body follows, event by event.
pub fn start_event_stream(stream: &mut TcpStream) -> std::io::Result<()> {
    let head =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{COMMON_HEADERS}\r\n");
    stream.write_all(head.as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        assert_eq!(
            parse_query("a=1&b=x%20y+z&c"),
            Some(vec![
                ("a".into(), "1".into()),
                ("b".into(), "x y z".into()),
                ("c".into(), String::new())
            ])
        );
        assert_eq!(parse_query("a=%zz"), None);
        assert_eq!(parse_query("a=%4"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
