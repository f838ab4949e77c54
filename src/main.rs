use clap::{Parser, Subcommand};

mod cli;

use cli::rules_tools;

#[derive(Parser)]
#[command(
    name = "tammi",
    version,
    about = "tammi — a draughts engine for english, international, russian, brazilian, canadian, turkish and more",
    after_help = "With no command, tammi starts its text mode: a board to play and analyse on at the \
                  terminal (type help there for its commands)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the move tree (move-generator test and benchmark).
    Perft(rules_tools::PerftArgs),
    /// List the legal moves of a position (or of one position per input line).
    Moves(rules_tools::MovesArgs),
    /// Solve Tchuka Ruma, the mancala solitaire.
    Tchuka(cli::tchuka::TchukaArgs),
    /// Read, check and convert PDN game files.
    Pdn(cli::pdn::PdnArgs),
    /// Search a position and print the progress and the best move.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Search fixed positions to a fixed depth: node signature and speed.
    Bench(cli::analyze::BenchArgs),
    /// Speak the Hub protocol on standard input and output (for GUIs and match runners).
    Hub,
    /// Play engine-against-engine games over TCP with the DamExchange protocol.
    Dxp(cli::dxp::DxpArgs),
    /// Play a match between two Hub engines: clocks, adjudication, Elo, SPRT, PDN.
    Match(Box<cli::match_cmd::MatchArgs>),
    /// Build or query endgame databases.
    Egdb(cli::egdb::EgdbArgs),
    /// Serve a board in the browser: play, analyse, load and save PDN (loopback only).
    Gui(cli::gui::GuiArgs),
    /// Build opening books and look into them (size, book moves, the move tammi plays).
    Book(cli::book::BookArgs),
    /// Train the evaluation: self-play games (`tune games`), weight fitting (`tune fit`).
    Tune(cli::tune::TuneArgs),
}

fn main() {
    // Output piped into `head` and the like: stop quietly when the reader goes away, as
    // Unix tools do, instead of reporting a panic from println!.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default_hook(info)
    }));
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            // One line, like every other error: clap's own text without its footer.
            let text = e.render().to_string();
            let message: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more"))
                .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
                .collect();
            eprintln!("{} (see tammi --help)", message.join(" "));
            std::process::exit(2);
        }
    };
    let result = match &parsed.command {
        Some(Command::Perft(a)) => rules_tools::run_perft(a),
        Some(Command::Moves(a)) => rules_tools::run_moves(a),
        Some(Command::Tchuka(a)) => cli::tchuka::run(a),
        Some(Command::Pdn(a)) => cli::pdn::run(a),
        Some(Command::Analyze(a)) => cli::analyze::run_analyze(a),
        Some(Command::Bench(a)) => cli::analyze::run_bench(a),
        Some(Command::Dxp(a)) => cli::dxp::run(a),
        Some(Command::Match(a)) => cli::match_cmd::run_match(a),
        Some(Command::Tune(a)) => cli::tune::run(a),
        Some(Command::Egdb(a)) => cli::egdb::run(a),
        Some(Command::Gui(a)) => cli::gui::run(a),
        Some(Command::Book(a)) => cli::book::run(a),
        Some(Command::Hub) => Ok(tammi::hub::protocol::run(
            std::io::BufReader::new(std::io::stdin()),
            Box::new(std::io::stdout()),
        )),
        // Plain `tammi`: the text mode for a person at a terminal.
        None => cli::text_mode::run(
            std::io::BufReader::new(std::io::stdin()),
            &mut std::io::stdout(),
        ),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            std::process::exit(141);
        }
        Err(e) => {
            // One line: what went wrong and, through the context chain, where.
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every flag and argument of every subcommand, at any depth, has help text.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                let has = arg
                    .get_help()
                    .is_some_and(|h| !h.to_string().trim().is_empty())
                    || arg
                        .get_long_help()
                        .is_some_and(|h| !h.to_string().trim().is_empty());
                if !has {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        let cmd = Cli::command();
        walk(&cmd, "tammi", &mut missing);
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
        // The walk reached the nested subcommands.
        assert!(
            cmd.find_subcommand("egdb")
                .unwrap()
                .find_subcommand("probe")
                .is_some()
        );
    }

    #[test]
    fn the_help_says_that_no_command_starts_the_text_mode() {
        let help = Cli::command().render_help().to_string();
        assert!(
            help.contains("With no command, tammi starts its text mode"),
            "{help}"
        );
    }
}
