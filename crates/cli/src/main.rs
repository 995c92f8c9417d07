//! `cclab`: run, check and list congestion-control experiments.
//!
//! Exit status: 0 on success, 2 for bad input (scenario errors, usage), 1 for a run that
//! failed (I/O, a violated simulator invariant). Errors are one sentence on stderr.

mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cclab",
    version,
    about = "A laboratory for TCP congestion control"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and write its output folder.
    Run {
        /// Scenario file (TOML).
        file: PathBuf,
        /// Output folder (default: out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override a scenario key, e.g. --set flows.0.cc=cubic (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Validate a scenario without running it.
    Check {
        file: PathBuf,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// List the congestion-control algorithms and slow-start variants with their parameters.
    Algorithms,
}

/// Print to stdout; a closed pipe (`cclab algorithms | head`) is not an error.
pub fn emit(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// How a command failed: bad input (exit 2) or a failed run (exit 1).
pub enum Failure {
    BadInput(anyhow::Error),
    RunFailed(anyhow::Error),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Run {
            file,
            out,
            overrides,
            quiet,
        } => commands::run::run(&file, out, &overrides, quiet),
        Command::Check { file, overrides } => commands::check::check(&file, &overrides),
        Command::Algorithms => {
            emit(&commands::algorithms::listing());
            Ok(())
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadInput(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::RunFailed(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
