//! `tammi gui`: a board in the browser. A small HTTP server on the loopback interface
//! serves one page (its HTML, script and style are compiled into the binary: no files,
//! no network) and a JSON API over the rules core; the engine runs as a `tammi hub`
//! child process per page that asks for a search, its lines streamed to the page as
//! Server-Sent Events.
//!
//! - [`http`]: reading requests with hard limits, writing responses.
//! - [`server`]: the routes, the worker pool, the event streams, the session reaper.
//! - [`session`]: one page's game, engine and streams.
//! - [`record`]: the game record against the rules (every move checked here).
//! - [`engine`]: the Hub child process.
//! - [`watch`]: a match between two engines, shown live; the engines a page may choose.

pub mod engine;
pub mod http;
pub mod json;
pub mod record;
pub mod server;
pub mod session;
pub mod watch;

/// The page, compiled in.
pub mod assets {
    pub const INDEX_HTML: &str = include_str!("assets/index.html");
    pub const APP_JS: &str = include_str!("assets/app.js");
    pub const STYLE_CSS: &str = include_str!("assets/style.css");
}
