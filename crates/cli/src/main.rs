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
        /// Do not draw the figures (DIR/figures/*.svg, *.png); the report then has none.
        #[arg(long)]
        no_plots: bool,
        /// Do not write DIR/report.html.
        #[arg(long)]
        no_report: bool,
        /// Refuse runs whose estimated output exceeds SIZE (default 1GiB, or output.max_size),
        /// e.g. 10GiB or unlimited.
        #[arg(long, value_name = "SIZE")]
        max_output: Option<String>,
    },
    /// Many runs over a parameter grid ([sweep] table), in parallel and resumable.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sweep {
        #[command(subcommand)]
        action: Option<SweepAction>,
        /// Sweep file: a scenario plus a [sweep] table.
        #[arg(required = true)]
        file: Option<PathBuf>,
        /// Output folder (default: out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs at a time (default: all cores; at most the runs to do and 4 per core).
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Refuse grids of more runs than this (default 100000).
        #[arg(long, value_name = "N")]
        max_runs: Option<u64>,
        /// Run only slice I of N (1-based), e.g. --shard 2/4, or `auto` to take it from a job
        /// array (SLURM_ARRAY_TASK_ID/COUNT, or JOB_COMPLETION_INDEX with CCLAB_SHARD_COUNT).
        /// Slices may share one --out folder; or merge their folders with `cclab sweep merge`.
        #[arg(long, value_name = "I/N|auto")]
        shard: Option<String>,
        /// Keep each run's own output folder in DIR/runs/<run id>.
        #[arg(long)]
        keep_runs: bool,
        /// Override a key of the base scenario (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Do not draw the sweep figures; the report then has none.
        #[arg(long)]
        no_plots: bool,
        /// Do not write DIR/report.html.
        #[arg(long)]
        no_report: bool,
    },
    /// Re-run a source paper's experiments: `cclab reproduce list` shows them; NAME runs one
    /// and writes DIR/report.md (the paper's numbers beside ours), results.csv and figures.
    Reproduce {
        /// An experiment from `cclab reproduce list`, or `list`.
        name: String,
        /// Shorter runs and thinner grids (every figure kept), to check that it all runs.
        #[arg(long)]
        quick: bool,
        /// Output folder (default: out/reproduce-<NAME>, or out/reproduce-<NAME>-quick).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs at a time (default: all cores).
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Run only slice I of N of every study (as for `cclab sweep`); the report is written
        /// by the invocation that finds every study complete.
        #[arg(long, value_name = "I/N|auto")]
        shard: Option<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// One self-contained report.html (tables, figures, interactive charts) for the output
    /// folder of `run` or `sweep`, into DIR/report.html.
    Report {
        dir: PathBuf,
        /// Show this scenario file's text in the report (the folder does not keep it).
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
    },
    /// Figures (SVG and PNG) from an output folder of `run` or `sweep`, into DIR/figures.
    Plot {
        dir: PathBuf,
        /// svg, png or both.
        #[arg(long, default_value = "both")]
        format: String,
        /// Run folders: only from this time on, e.g. 10s.
        #[arg(long)]
        from: Option<String>,
        /// Run folders: only up to this time, e.g. 15s.
        #[arg(long)]
        to: Option<String>,
        /// Sweep folders: a results.csv column to plot, e.g. aggregate.utilization (repeatable).
        #[arg(long = "metric")]
        metrics: Vec<String>,
        /// Sweep folders: the swept key on the x axis.
        #[arg(long)]
        x: Option<String>,
        /// Sweep folders: the swept key that makes the lines (default: the algorithm key).
        #[arg(long)]
        series: Option<String>,
    },
    /// Validate a scenario without running it.
    Check {
        file: PathBuf,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// As for `run`: the output size limit the check applies.
        #[arg(long, value_name = "SIZE")]
        max_output: Option<String>,
        /// Sweep files: refuse grids of more runs than this (default 100000).
        #[arg(long, value_name = "N")]
        max_runs: Option<u64>,
    },
    /// List the congestion-control algorithms and slow-start variants with their parameters.
    Algorithms,
    /// Run the scenario's flows as real kernel TCP through its bottleneck, emulated in real
    /// time (needs root and /dev/net/tun; docs/emulation.md). Writes run's folder format.
    Emulate {
        file: PathBuf,
        /// Output folder (default: out/<scenario name>-emulated).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override a scenario key, e.g. --set flows.0.cc=bbr (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// No progress line.
        #[arg(long, short)]
        quiet: bool,
        /// Do not draw the figures (DIR/figures/*.svg, *.png); the report then has none.
        #[arg(long)]
        no_plots: bool,
        /// Do not write DIR/report.html.
        #[arg(long)]
        no_report: bool,
    },
    /// Two run folders side by side (e.g. `run` and `emulate` of one scenario): the summary
    /// metrics with absolute and relative differences (B - A, (B - A)/A).
    Compare {
        dir_a: PathBuf,
        dir_b: PathBuf,
        /// Also write DIR/comparison.csv and the two runs' cwnd, goodput, RTT and queue on
        /// the same axes in DIR/figures/.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The sender or receiver program `emulate` starts inside each host's namespace.
    #[command(name = "emulate-endpoint", hide = true)]
    EmulateEndpoint {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(Subcommand)]
enum SweepAction {
    /// Gather the folders of sweep shards into one folder and one results.csv.
    Merge {
        /// The merged folder.
        #[arg(long)]
        out: PathBuf,
        /// Shard folders (of the same sweep).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Do not draw the sweep figures; the report then has none.
        #[arg(long)]
        no_plots: bool,
        /// Do not write DIR/report.html.
        #[arg(long)]
        no_report: bool,
    },
    /// Print the sweep's run list (index, run id, parameters, replicate, seed) and its count.
    Plan {
        file: PathBuf,
        /// Override a key of the base scenario (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// Refuse grids of more runs than this (default 100000).
        #[arg(long, value_name = "N")]
        max_runs: Option<u64>,
    },
    /// How many runs of a sweep folder are done, failed or missing (exit 1 unless all done).
    Status { dir: PathBuf },
    /// Write an sbatch script that runs the sweep as a Slurm job array (it does not submit).
    Slurm {
        file: PathBuf,
        /// The shared output folder (default: out/<scenario name>); created now.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Array tasks; each runs its slice of the runs (default: one per run, at most 1000).
        #[arg(long, value_name = "N")]
        tasks: Option<usize>,
        /// Cores per task (--cpus-per-task); a task runs that many runs at once.
        #[arg(long, value_name = "C", default_value_t = 1)]
        cpus: usize,
        /// Slurm partition (--partition).
        #[arg(long, value_name = "P")]
        partition: Option<String>,
        /// Time limit per task in Slurm's format (--time), e.g. 2:00:00.
        #[arg(long, value_name = "T")]
        time: Option<String>,
        /// Where to write the script (default: DIR/slurm/<name>.sbatch).
        #[arg(long, value_name = "PATH")]
        script: Option<PathBuf>,
        /// Override a key of the base scenario (repeatable; passed on to every task).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// Refuse grids of more runs than this (default 100000).
        #[arg(long, value_name = "N")]
        max_runs: Option<u64>,
    },
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

/// Exit status after Ctrl-C or SIGTERM (128 + SIGINT, the shell's convention).
const INTERRUPTED: i32 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C, SIGTERM, SIGHUP: remove the temporary files and folders being written (a
    // killed run could otherwise leave gigabytes of hidden .tmp files), then exit.
    // Without a handler (it cannot be installed twice) the signals still end the process;
    // the next run into the same folder removes what is left.
    let _ = ctrlc::set_handler(|| {
        eprintln!("interrupted; temporary files removed");
        cclab_analysis::output::remove_temporaries_and_exit(INTERRUPTED)
    });
    let outcome = match cli.command {
        Command::Run {
            file,
            out,
            overrides,
            quiet,
            no_plots,
            no_report,
            max_output,
        } => commands::run::run(
            &file,
            out,
            &overrides,
            max_output.as_deref(),
            quiet,
            commands::run::Drawing {
                plots: !no_plots,
                report: !no_report,
            },
        ),
        Command::Sweep {
            action:
                Some(SweepAction::Merge {
                    out,
                    dirs,
                    no_plots,
                    no_report,
                }),
            ..
        } => commands::sweep::merge::merge(&out, &dirs, no_plots, no_report),
        Command::Sweep {
            action:
                Some(SweepAction::Plan {
                    file,
                    overrides,
                    max_runs,
                }),
            ..
        } => commands::sweep::plan::plan(&file, &overrides, max_runs),
        Command::Sweep {
            action: Some(SweepAction::Status { dir }),
            ..
        } => commands::sweep::status::status(&dir),
        Command::Sweep {
            action:
                Some(SweepAction::Slurm {
                    file,
                    out,
                    tasks,
                    cpus,
                    partition,
                    time,
                    script,
                    overrides,
                    max_runs,
                }),
            ..
        } => commands::sweep::slurm::slurm(commands::sweep::slurm::SlurmArgs {
            file,
            out,
            overrides,
            max_runs,
            tasks,
            cpus,
            partition,
            time,
            script,
        }),
        Command::Sweep {
            action: None,
            file,
            out,
            jobs,
            max_runs,
            shard,
            keep_runs,
            overrides,
            quiet,
            no_plots,
            no_report,
        } => commands::sweep::runner::sweep(commands::sweep::runner::SweepArgs {
            file: file.expect("clap requires FILE without a subcommand"),
            out,
            overrides,
            jobs,
            max_runs,
            shard,
            keep_runs,
            quiet,
            no_plots,
            no_report,
        }),
        Command::Reproduce {
            name,
            quick,
            out,
            jobs,
            shard,
            quiet,
        } => commands::reproduce::reproduce(commands::reproduce::ReproduceArgs {
            name,
            quick,
            out,
            jobs,
            shard,
            quiet,
        }),
        Command::Report { dir, scenario } => commands::report::report(&dir, scenario.as_deref()),
        Command::Plot {
            dir,
            format,
            from,
            to,
            metrics,
            x,
            series,
        } => commands::plot::plot(commands::plot::PlotArgs {
            dir,
            format,
            from,
            to,
            metrics,
            x,
            series,
        }),
        Command::Check {
            file,
            overrides,
            max_output,
            max_runs,
        } => commands::check::check(&file, &overrides, max_output.as_deref(), max_runs),
        Command::Algorithms => {
            emit(&commands::algorithms::listing());
            Ok(())
        }
        Command::Emulate {
            file,
            out,
            overrides,
            quiet,
            no_plots,
            no_report,
        } => commands::emulate::emulate(
            &file,
            out,
            &overrides,
            quiet,
            commands::run::Drawing {
                plots: !no_plots,
                report: !no_report,
            },
        ),
        Command::Compare { dir_a, dir_b, out } => {
            commands::compare::compare(&dir_a, &dir_b, out.as_deref())
        }
        Command::EmulateEndpoint { args } => commands::emulate::endpoint(&args),
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
