use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "tammi", version, about = "tammi — a draughts engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve Tchuka Ruma, the mancala solitaire.
    Tchuka(tammi::tchuka::TchukaArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Some(Command::Tchuka(args)) => tammi::tchuka::run(&args),
        None => Ok(0),
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}
