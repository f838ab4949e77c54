//! `tammi gui`: bind the address, say where the page is, serve it.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};

use anyhow::{Context, Result};

use tammi::gui::server;

#[derive(clap::Args, Debug)]
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
}

pub fn run(args: &GuiArgs) -> Result<i32> {
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
    server::serve(listener).context("the server stopped")?;
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
