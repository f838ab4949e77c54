//! `tammi gui`: bind the address, say where the page is, serve it.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};

use anyhow::{Context, Result};

use tammi::gui::engine::MAX_ENGINES;
use tammi::gui::server;
use tammi::gui::watch::{MAX_GAMES, MAX_WATCHES, Roster, TIME_CONTROLS};

const AFTER_HELP: &str = "\
Watch (a match between two engines, shown live with clocks):
  The page chooses each engine by name only, never by command. 'tammi' is always there:
  this program itself ('tammi hub'), with the opening book on or off. Other Hub engines
  are available only when named here: --engine scan=\"/opt/scan/scan hub\" (repeatable;
  NAME is 1-32 letters, digits, '.', '_' or '-'; COMMAND is split at blanks, quotes
  group words). Whoever can open the page can start those commands, with the arguments
  given here and no others: name only engines you trust, and keep --listen on loopback
  unless everyone who can reach it may run them.
  A match is played by tammi's match runner ('tammi match') with a game clock, one of
  {TCS}
  (seconds per game + increment per move), 1 to {GAMES} games, colours alternating, from
  the start position (english: the three-move ballots). At most {WATCHES} match runs at
  a time; its two engines count against the {ENGINES} engine processes the server allows.
  The engines are killed when the match ends, when its page stops it, and when the page
  is closed.";

#[derive(clap::Args, Debug)]
#[command(after_help = after_help())]
pub struct GuiArgs {
    /// Port to listen on (0: any free port; the address is printed either way).
    #[arg(long, default_value_t = 8642)]
    pub port: u16,
    /// Address to listen on. The default is loopback only; any other address lets every
    /// machine that can reach it use the board and the engine.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub listen: IpAddr,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    pub open: bool,
    /// A Hub engine the page may choose for a match, as NAME=COMMAND (repeatable; see
    /// below).
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    pub engines: Vec<String>,
    /// Seconds after which a board no page shows any more is ended, with its engine
    /// (1 to 86400).
    #[arg(long, value_name = "SECONDS", default_value_t = server::SESSION_IDLE.as_secs())]
    pub session_idle: u64,
}

fn after_help() -> String {
    AFTER_HELP
        .replace("{TCS}", &TIME_CONTROLS.join(", "))
        .replace("{GAMES}", &MAX_GAMES.to_string())
        .replace("{WATCHES}", &MAX_WATCHES.to_string())
        .replace("{ENGINES}", &MAX_ENGINES.to_string())
}

pub fn run(args: &GuiArgs) -> Result<i32> {
    let mut roster = Roster::default();
    for e in &args.engines {
        roster
            .add(e)
            .map_err(|why| anyhow::anyhow!("--engine {why}"))?;
    }
    if !(1..=86_400).contains(&args.session_idle) {
        anyhow::bail!(
            "--session-idle {}: expected 1 to 86400 seconds",
            args.session_idle
        );
    }
    let addr = SocketAddr::new(args.listen, args.port);
    let listener = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    let url = server::url(bound);
    // The first line says where the page is (tests read it; port 0 shows the real port).
    // Nothing more needs standard output: a reader that goes away stops no server.
    let mut out = std::io::stdout();
    let mut text = format!("tammi gui: open {url}\n");
    if !bound.ip().is_loopback() {
        text.push_str(&format!(
            "warning: listening on {bound}: anyone who can reach it can use the board and the engine\n"
        ));
    }
    text.push_str("(Ctrl-C stops the server)\n");
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    if args.open {
        open_browser(&url);
    }
    server::serve(
        listener,
        roster,
        std::time::Duration::from_secs(args.session_idle),
    )
    .context("the server stopped")?;
    Ok(0)
}

/// Ask the desktop to open `url`; a machine without one only gets a message.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("could not start {opener} to open the page ({e}); open {url} yourself");
    }
}
