//! `cclab reproduce`: re-run a source paper's experiments (`seeds/`, seed-spec) through the
//! sweep machinery and write a report that sets our numbers beside the paper's.
//!
//! Each paper is one [`Reproduction`] (a file or folder here). Its studies are sweep files:
//! `cclab reproduce NAME --out DIR` writes each to `DIR/scenarios/<study>.toml`, runs it as
//! `cclab sweep` would into `DIR/runs/<study>/` (parallel, resumable: finished runs are not
//! redone; `--shard I/N` runs one slice of every study), and when every study is complete
//! calls the experiment's analysis, which writes `DIR/report.md`, `DIR/results.csv` and
//! `DIR/figures/`.

mod cc_behaviour_2019;
mod dynamic_vegas;
mod experiment;
mod highspeed_survey;
mod report;
mod smooth_start;
mod start_me_up;

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, anyhow};
use cclab_analysis::results::SweepManifest;
use cclab_analysis::write_atomic;

#[cfg(test)]
pub use experiment::test_row;
pub use experiment::{Reproduction, Studies, Study, metric, param};
pub use report::{Comparison, Report, Verdict};

use super::sweep::runner::{Prepared, SweepArgs, finish, prepare, run_pending, threads_for};
use crate::Failure;

/// Every reproduction, in seed order.
pub const ALL: &[&dyn Reproduction] = &[
    &smooth_start::SmoothStart,
    &highspeed_survey::HighspeedSurvey,
    &start_me_up::StartMeUp,
    &dynamic_vegas::DynamicVegas,
    &cc_behaviour_2019::CcBehaviour2019,
];

pub struct ReproduceArgs {
    pub name: String,
    pub quick: bool,
    pub out: Option<PathBuf>,
    pub jobs: Option<usize>,
    pub shard: Option<String>,
    pub quiet: bool,
}

/// `cclab reproduce list`: name, seed and one line per experiment.
pub fn list() -> String {
    let mut out = String::new();
    for r in ALL {
        let _ = writeln!(out, "{:<20} seed {}  {}", r.name(), r.seed(), r.summary());
    }
    if ALL.is_empty() {
        out.push_str("no reproductions are built yet\n");
    }
    out
}

fn find(name: &str) -> Result<&'static dyn Reproduction, Failure> {
    if let Some(r) = ALL.iter().find(|r| r.name() == name) {
        return Ok(*r);
    }
    let names: Vec<&str> = ALL.iter().map(|r| r.name()).collect();
    let hint = match cclab_cc::params::did_you_mean(name, names.iter().copied()) {
        Some(s) => format!("did you mean `{s}`? "),
        None => String::new(),
    };
    Err(Failure::BadInput(anyhow!(
        "unknown reproduction `{name}`; {hint}`cclab reproduce list` shows them: {}",
        if names.is_empty() {
            "none yet".to_string()
        } else {
            names.join(", ")
        }
    )))
}

fn valid_study_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

pub fn reproduce(args: ReproduceArgs) -> Result<(), Failure> {
    if args.name == "list" {
        crate::emit(&list());
        return Ok(());
    }
    run(find(&args.name)?, &args)
}

/// Run `experiment`'s studies (those not already done) and, when all are complete, its
/// analysis.
fn run(experiment: &dyn Reproduction, args: &ReproduceArgs) -> Result<(), Failure> {
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    let form = if args.quick { "quick" } else { "full" };
    let dir = args.out.clone().unwrap_or_else(|| {
        let suffix = if args.quick { "-quick" } else { "" };
        PathBuf::from("out").join(format!("reproduce-{}{suffix}", experiment.name()))
    });
    let studies = experiment.studies(args.quick);
    for study in &studies {
        assert!(
            valid_study_name(&study.name),
            "study names are file stems (letters, digits, - and _): `{}`",
            study.name
        );
    }
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios)
        .with_context(|| format!("cannot create {}", scenarios.display()))
        .map_err(failed)?;

    let started = Instant::now();
    let mut prepared = Vec::with_capacity(studies.len());
    for study in &studies {
        let file = scenarios.join(format!("{}.toml", study.name));
        let text = format!(
            "# cclab reproduce {} ({form} form), study `{}`: {}\n# Re-run it alone, from the reproduction's folder: cclab sweep scenarios/{}.toml --out runs/{}{}\n\n{}",
            experiment.name(),
            study.name,
            experiment.title(),
            study.name,
            study.name,
            if study.keep_runs { " --keep-runs" } else { "" },
            study.toml
        );
        write_atomic(&file, text.as_bytes())
            .with_context(|| format!("cannot write {}", file.display()))
            .map_err(failed)?;
        let study_sweep = prepare(SweepArgs {
            file,
            out: Some(dir.join("runs").join(&study.name)),
            overrides: Vec::new(),
            jobs: args.jobs,
            max_runs: None,
            shard: args.shard.clone(),
            keep_runs: study.keep_runs,
            quiet: args.quiet,
            no_plots: true,
            no_report: true,
        })?;
        crate::emit(&format!(
            "study {}: sweep {}: {}\n",
            study.name,
            study_sweep.name(),
            study_sweep.counts_text()
        ));
        prepared.push(study_sweep);
    }
    // The studies' runs go to one set of workers, the longest first: run study by study,
    // each study's last long run left a core idle (seven times in highspeed-survey's full
    // form, about 110 s of its 50 min on two cores).
    let sweeps: Vec<&Prepared> = prepared.iter().collect();
    let asked = args.jobs.unwrap_or_else(rayon::current_num_threads);
    let (jobs, capped_text) = threads_for(&sweeps, asked, args.jobs.is_some());
    let pending: usize = sweeps.iter().map(|p| p.pending()).sum();
    crate::emit(&format!(
        "running {pending} runs of {} studies on {jobs} threads{capped_text}, the longest first\n",
        sweeps.len()
    ));
    let (failures, wall) = run_pending(&sweeps, jobs, args.quiet);
    let mut first_failure = None;
    for (study_sweep, failures) in sweeps.iter().zip(failures) {
        if let Err(e) = finish(study_sweep, failures, wall) {
            first_failure.get_or_insert(e);
        }
    }
    if let Some(e) = first_failure {
        return Err(e);
    }
    let elapsed = started.elapsed().as_secs_f64();

    // With --shard, the analysis waits for every slice.
    let mut timing = Vec::new();
    for study in &studies {
        let study_dir = dir.join("runs").join(&study.name);
        let manifest = SweepManifest::read(&study_dir)
            .with_context(|| format!("cannot read {}", study_dir.display()))
            .map_err(failed)?;
        let done = manifest.recorded_count(&study_dir);
        if done < manifest.runs.len() {
            crate::emit(&format!(
                "study {} has {done} of {} runs; run the other slices, then `cclab reproduce {} --out {}{}` again to write the report\n",
                study.name,
                manifest.runs.len(),
                experiment.name(),
                dir.display(),
                if args.quick { " --quick" } else { "" }
            ));
            return Ok(());
        }
        let rows = manifest.rows(&study_dir);
        let run_time: f64 = rows.iter().map(|r| r.wall_s).sum();
        timing.push((study.name.clone(), rows.len(), run_time));
    }

    let mut report = Report::new(&dir);
    experiment
        .analyze(&Studies::new(&dir, args.quick), &mut report)
        .with_context(|| format!("the analysis of {} failed", experiment.name()))
        .map_err(failed)?;
    let path = report
        .write(
            &head(experiment, args.quick),
            &tail(&timing, elapsed, args.jobs),
        )
        .map_err(failed)?;
    crate::emit(&format!("report in {}\n", path.display()));
    Ok(())
}

fn head(experiment: &dyn Reproduction, quick: bool) -> String {
    let mut md = format!(
        "# Reproduction: {}\n\nSeed {}: {}.\n\nWritten by `cclab reproduce {}{}` (cclab {}). The sweep files that ran are in [scenarios/](scenarios/); change one and run it again with `cclab sweep`. Every figure's data is the CSV file beside it; [results.csv](results.csv) is the comparison table.\n",
        experiment.title(),
        experiment.seed(),
        experiment.summary(),
        experiment.name(),
        if quick { " --quick" } else { "" },
        env!("CARGO_PKG_VERSION"),
    );
    if quick {
        md.push_str("\n> **Quick form** (`--quick`): shorter runs and thinner grids than the paper's, to check that everything runs. The numbers below are not the reproduction; run without `--quick` for it.\n");
    }
    md
}

fn tail(timing: &[(String, usize, f64)], elapsed: f64, jobs: Option<usize>) -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut md = String::from(
        "## Running time\n\nMeasured, so it differs between runs (the rest of this report does not).\n\n| study | runs | run time, summed over runs (s) |\n| --- | --- | --- |\n",
    );
    let (mut runs, mut total) = (0, 0.0);
    for (name, count, seconds) in timing {
        let _ = writeln!(md, "| {name} | {count} | {seconds:.1} |");
        runs += count;
        total += seconds;
    }
    let _ = writeln!(
        md,
        "| all | {runs} | {total:.1} |\n\nThis invocation took {elapsed:.1} s of wall time on a machine with {cores} cores ({}); runs recorded by an earlier invocation were not run again and do not count in it.",
        match jobs {
            Some(j) => format!("--jobs {j}"),
            None => "one run per core".to_string(),
        }
    );
    md
}

#[cfg(test)]
mod tests;
