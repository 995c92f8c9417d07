//! Running a sweep: check the grid's size, validate every run, skip recorded runs, run the
//! rest in parallel. Runs are built from their index when they are validated and again when
//! they run, so no more than one scenario per thread is held at a time.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, anyhow};
use cclab_analysis::html_report::{ReportOptions, write_report};
use cclab_analysis::pcap::PcapSink;
use cclab_analysis::results::{Row, SweepManifest};
use cclab_analysis::{CsvSink, RateSeries, summarize, write_summary};
use cclab_scenario::resources::MEMORY_LIMIT_BYTES;
use cclab_scenario::sweep::{DEFAULT_MAX_RUNS, Plan, Sweep};
use cclab_scenario::{RunSpec, load_sweep};
use cclab_sim::{NullSink, Simulation, Tee, TraceSink};
use indicatif::{ProgressBar, ProgressStyle};

use super::{Shard, schedule, shared_folder};
use crate::Failure;

pub struct SweepArgs {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub overrides: Vec<String>,
    pub jobs: Option<usize>,
    /// Refuse grids with more runs (default [`DEFAULT_MAX_RUNS`]).
    pub max_runs: Option<u64>,
    pub shard: Option<String>,
    pub keep_runs: bool,
    pub quiet: bool,
    pub no_plots: bool,
    pub no_report: bool,
}

/// Run one point of the sweep and record its row.
fn run_one(spec: &RunSpec, dir: &Path, keep_runs: bool) -> anyhow::Result<()> {
    let scenario = &spec.scenario;
    let mut rates = RateSeries::for_scenario(scenario);
    let run_dir = dir.join("runs").join(&spec.id);
    let mut files = if keep_runs {
        std::fs::create_dir_all(&run_dir)
            .with_context(|| format!("cannot create {}", run_dir.display()))?;
        let groups = cclab_scenario::sharing::group_names(scenario);
        let sink = if groups.is_empty() {
            CsvSink::create(&run_dir)?
        } else {
            CsvSink::create_with_groups(&run_dir, groups)?
        };
        Some(if scenario.output.trace_packets.is_empty() {
            sink
        } else {
            sink.with_packets(&run_dir)?
        })
    } else {
        None
    };
    // pcap files only go with a run's own folder (--keep-runs).
    let mut pcap = match &files {
        Some(_) => PcapSink::create(&run_dir, scenario)?,
        None => None,
    };
    let started = Instant::now();
    let (mut no_files, mut no_pcap) = (NullSink, NullSink);
    let files_sink: &mut dyn TraceSink = match &mut files {
        Some(f) => f,
        None => &mut no_files,
    };
    let pcap_sink: &mut dyn TraceSink = match &mut pcap {
        Some(p) => p,
        None => &mut no_pcap,
    };
    let result = Simulation::new(scenario)
        .run(
            &mut Tee(files_sink, &mut Tee(pcap_sink, &mut rates)),
            &mut |_| {},
        )
        .with_context(|| format!("run {} failed", spec.id))?;
    let wall = started.elapsed().as_secs_f64();
    let summary = summarize(scenario, result, &rates, wall);
    if let Some(pcap) = pcap {
        pcap.commit()?;
    }
    if let Some(files) = files {
        files.commit()?;
        rates.write_csv(&run_dir)?;
        write_summary(&run_dir, &summary)?;
    }
    let row = Row::new(
        spec.id.clone(),
        spec.index,
        spec.params.clone(),
        spec.replicate,
        &summary,
        wall,
    );
    row.write(&dir.join("rows"))
        .with_context(|| format!("cannot record run {}", spec.id))
}

/// What validating a plan gives: every run id in order, and the largest memory estimate of
/// one run (bytes), which bounds how many may run at once.
pub struct Validated {
    pub ids: Vec<String>,
    pub largest_run_bytes: u64,
    /// Each run's estimated work ([`schedule::work_estimate`]), in order.
    pub work: Vec<u128>,
}

/// Validate every run of `plan` in order, keeping only what running them needs. Runs whose
/// folders are kept (`--keep-runs`) are also held to their output-size limit, as `cclab run`
/// holds a single run; without it a run writes only its row.
pub fn validate(
    plan: &Plan<'_>,
    keep_runs: bool,
) -> Result<Validated, cclab_scenario::ScenarioError> {
    let mut out = Validated {
        ids: Vec::with_capacity(plan.len()),
        largest_run_bytes: 0,
        work: Vec::with_capacity(plan.len()),
    };
    for index in 0..plan.len() {
        let run = plan.run(index)?;
        if keep_runs {
            cclab_scenario::check_output_size(&run.scenario)?;
        }
        out.largest_run_bytes = out
            .largest_run_bytes
            .max(run.scenario.memory_estimate().bytes);
        out.work.push(schedule::work_estimate(&run.scenario));
        out.ids.push(run.id);
    }
    Ok(out)
}

/// What `sweep.json` records of a sweep whose runs are `runs`.
pub fn manifest_of(sweep: &Sweep, name: String, runs: Vec<String>) -> SweepManifest {
    SweepManifest {
        name,
        fingerprint: sweep.fingerprint(),
        axes: sweep.axes.iter().map(|a| a.key.clone()).collect(),
        runs,
    }
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Threads for a sweep: the jobs asked for, but no more than the runs to do (an idle thread
/// is waste), no more than 4 per core (runs are CPU-bound; `--jobs 100000` used to spend
/// minutes creating threads), and no more runs at once than fit in the memory limit a single
/// run is held to. At least one.
pub fn thread_count(asked: usize, runs: usize, cores: usize, run_bytes: u64) -> usize {
    asked
        .min(runs)
        .min(4 * cores)
        .min(memory_threads(run_bytes))
        .max(1)
}

/// How many runs of `run_bytes` fit in [`MEMORY_LIMIT_BYTES`] together (at least one).
fn memory_threads(run_bytes: u64) -> usize {
    usize::try_from(MEMORY_LIMIT_BYTES / run_bytes.max(1))
        .unwrap_or(usize::MAX)
        .max(1)
}

/// A sweep checked and ready to run: its folder and manifest written, the runs of its slice
/// not yet recorded found. [`run_pending`] runs them (with those of other sweeps, as
/// `cclab reproduce` does) and [`finish`] gathers the results.
pub struct Prepared {
    sweep: Sweep,
    max_runs: u64,
    file: PathBuf,
    overrides: Vec<String>,
    dir: PathBuf,
    manifest: SweepManifest,
    shard: Option<Shard>,
    keep_runs: bool,
    no_plots: bool,
    no_report: bool,
    /// Runs in this slice (all of the sweep without `--shard`).
    mine: usize,
    /// Indices of the runs still to do, in plan order, with their estimated work.
    pending: Vec<(usize, u128)>,
    largest_run_bytes: u64,
}

impl Prepared {
    /// The runs still to do.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The sweep's name (its base scenario's).
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// "N runs[, shard I/N has M]; D already done" for messages.
    pub fn counts_text(&self) -> String {
        let shard_text = self.shard.map_or(String::new(), |s| {
            format!(", shard {}/{} has {}", s.index, s.count, self.mine)
        });
        format!(
            "{} runs{shard_text}; {} already done",
            self.manifest.runs.len(),
            self.mine - self.pending.len()
        )
    }
}

/// Check a sweep, create its folder and find the runs still to do (nothing runs).
pub fn prepare(args: SweepArgs) -> Result<Prepared, Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    let sweep = load_sweep(&args.file, &args.overrides).map_err(|e| bad(e.into()))?;
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(|m| bad(anyhow!(m)))?;
    if args.jobs == Some(0) {
        return Err(bad(anyhow!("--jobs 0: give at least one job")));
    }
    let max_runs = args.max_runs.unwrap_or(DEFAULT_MAX_RUNS);
    let plan = sweep.plan(max_runs).map_err(|e| bad(e.into()))?;
    // Every run is checked before anything runs; only the ids are kept.
    let validated = validate(&plan, args.keep_runs).map_err(|e| bad(e.into()))?;
    let name = plan.run(0).map_err(|e| bad(e.into()))?.scenario.name;
    let dir = args.out.unwrap_or_else(|| PathBuf::from("out").join(&name));
    // A run's folder is not a sweep's: mixing them would leave one's files among the other's.
    if let Ok(cclab_analysis::output::FolderKind::Run) = cclab_analysis::output::folder_kind(&dir) {
        return Err(bad(anyhow!(
            "{}: is the folder of a cclab run (it has summary.json); give the sweep another --out",
            dir.display()
        )));
    }
    let rows_dir = dir.join("rows");
    std::fs::create_dir_all(&rows_dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))
        .map_err(failed)?;
    // A killed sweep can leave half-written `.NAME.tmp` files; finished rows are never touched.
    // A slice shares the folder with other slices that may be writing now: it removes only
    // the temporaries of its own runs (left by an earlier, killed attempt at the same slice).
    if shard.is_none() {
        for folder in [&dir, &rows_dir] {
            cclab_analysis::output::remove_stale_temporaries(folder)
                .with_context(|| format!("cannot clean {}", folder.display()))
                .map_err(failed)?;
        }
    }

    let Validated {
        ids,
        largest_run_bytes,
        work,
    } = validated;
    let manifest = manifest_of(&sweep, name, ids);
    let recorded_manifest = SweepManifest::read(&dir).ok();
    if let Some(existing) = &recorded_manifest
        && existing.fingerprint != manifest.fingerprint
    {
        return Err(bad(anyhow!(
            "{}: holds the results of a different sweep (its base scenario, keys, values or seeds differ from {}); choose another --out or delete the folder",
            dir.display(),
            args.file.display()
        )));
    }
    // Written once: the slices of an array starting together must not write it at once.
    if recorded_manifest.is_none() {
        manifest
            .write(&dir)
            .with_context(|| format!("cannot write in {}", dir.display()))
            .map_err(failed)?;
    }

    let mine: Vec<usize> = (0..plan.len())
        .filter(|&i| shard.is_none_or(|s| s.contains(i)))
        .collect();
    if shard.is_some() {
        for &i in &mine {
            cclab_analysis::output::remove_stale_temporary_of(&Row::path(
                &rows_dir,
                &manifest.runs[i],
            ))
            .with_context(|| format!("cannot clean {}", rows_dir.display()))
            .map_err(failed)?;
        }
    }
    let pending: Vec<(usize, u128)> = mine
        .iter()
        .copied()
        .filter(|&i| Row::read(&rows_dir, &manifest.runs[i]).is_none())
        .map(|i| (i, work[i]))
        .collect();
    drop(plan);
    Ok(Prepared {
        sweep,
        max_runs,
        file: args.file,
        overrides: args.overrides,
        dir,
        manifest,
        shard,
        keep_runs: args.keep_runs,
        no_plots: args.no_plots,
        no_report: args.no_report,
        mine: mine.len(),
        pending,
        largest_run_bytes,
    })
}

/// Threads for running `sweeps` together when `asked` were asked for ([`thread_count`]),
/// and why fewer, if so (empty when not).
pub fn threads_for(sweeps: &[&Prepared], asked: usize, user_asked: bool) -> (usize, String) {
    let pending: usize = sweeps.iter().map(|p| p.pending()).sum();
    let largest = sweeps
        .iter()
        .map(|p| p.largest_run_bytes)
        .max()
        .unwrap_or(0);
    let cores = available_cores();
    let jobs = thread_count(asked, pending, cores, largest);
    let by_memory = memory_threads(largest);
    // Memory always gets a word (it is why the sweep is slower than the cores allow); the
    // other caps only when the user asked for a number, the default being ours.
    let capped_text = if jobs == by_memory && jobs < asked.min(pending) {
        format!(
            " (limited by memory: a run may need {:.1} GB and runs at once must fit in {:.1} GB)",
            largest as f64 / 1e9,
            MEMORY_LIMIT_BYTES as f64 / 1e9
        )
    } else if user_asked && jobs < asked {
        format!(
            " (--jobs {asked} capped: at most one thread per run to do and 4 per core, {cores} cores)"
        )
    } else {
        String::new()
    };
    (jobs, capped_text)
}

/// Run the pending runs of `sweeps` together on `jobs` threads, the longest first
/// ([`schedule`]), each recording its row (or its failure). Returns each sweep's failure
/// messages and the wall time taken.
pub fn run_pending(sweeps: &[&Prepared], jobs: usize, quiet: bool) -> (Vec<Vec<String>>, f64) {
    let plans: Vec<Result<Plan<'_>, String>> = sweeps
        .iter()
        .map(|p| p.sweep.plan(p.max_runs).map_err(|e| e.to_string()))
        .collect();
    // (sweep, run index, estimated work) of every pending run, then the order to start them.
    let runs: Vec<(usize, usize, u128)> = sweeps
        .iter()
        .enumerate()
        .flat_map(|(s, p)| p.pending.iter().map(move |&(i, work)| (s, i, work)))
        .collect();
    let work: Vec<u128> = runs.iter().map(|r| r.2).collect();
    let order: Vec<(usize, usize)> = schedule::longest_first(&work)
        .into_iter()
        .map(|k| (runs[k].0, runs[k].1))
        .collect();

    let bar = if !quiet && std::io::stderr().is_terminal() {
        let b = ProgressBar::new(order.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs, {elapsed} elapsed, ~{eta} left",
            )
            .expect("the template is valid"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let failures: Vec<Mutex<Vec<String>>> = sweeps.iter().map(|_| Mutex::new(Vec::new())).collect();
    let started = Instant::now();
    schedule::run_in_order(&order, jobs, |&(s, index)| {
        let prepared = sweeps[s];
        // Validated by `prepare`, so building it again succeeds; an error is reported all
        // the same.
        let outcome = match &plans[s] {
            Ok(plan) => plan
                .run(index)
                .map_err(anyhow::Error::from)
                .and_then(|spec| run_one(&spec, &prepared.dir, prepared.keep_runs)),
            Err(e) => Err(anyhow!("{e}")),
        };
        // `cclab sweep status` reports failed runs from these records.
        let id = &prepared.manifest.runs[index];
        let mut failed = failures[s]
            .lock()
            .expect("no run panics while holding the lock");
        let recorded = match outcome {
            Ok(()) => shared_folder::clear_failure(&prepared.dir, id),
            Err(e) => {
                let message = format!("{e:#}");
                let record = shared_folder::record_failure(&prepared.dir, id, &message);
                failed.push(message);
                record
            }
        };
        if let Err(e) = recorded {
            failed.push(format!("cannot record the outcome of run {id}: {e}"));
        }
        drop(failed);
        bar.inc(1);
    });
    bar.finish_and_clear();
    let failures = failures
        .into_iter()
        .map(|f| f.into_inner().expect("the workers have finished"))
        .collect();
    (failures, started.elapsed().as_secs_f64())
}

/// After its runs: gather the sweep's results (results.csv, figures, report) when it is
/// complete or alone in its folder, and fail if any of its runs did (`failures`, from
/// [`run_pending`]; `wall`: the time they took).
pub fn finish(prepared: &Prepared, failures: Vec<String>, wall: f64) -> Result<(), Failure> {
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    let Prepared {
        dir,
        manifest,
        shard,
        ..
    } = prepared;
    let rows_dir = dir.join("rows");
    let runs = manifest.runs.len();
    // A slice writes the gathered files when it is alone in its folder (its own folder, to
    // be merged later) or when the whole sweep is done; slices sharing a folder otherwise
    // leave them to the last one.
    let recorded = manifest.recorded_count(dir);
    let others_recorded = shard.is_some_and(|s| {
        (0..runs).any(|i| !s.contains(i) && Row::path(&rows_dir, &manifest.runs[i]).exists())
    });
    let gather = shard.is_none() || recorded == runs || !others_recorded;
    if gather {
        let recorded = shared_folder::with_gather_lock(dir, || -> anyhow::Result<usize> {
            let recorded = manifest
                .write_results(dir)
                .with_context(|| format!("cannot write {}", dir.join("results.csv").display()))?;
            if !prepared.no_plots {
                crate::commands::plot::plot_sweep_folder(dir)?;
            }
            if !prepared.no_report {
                let options = ReportOptions {
                    figures: !prepared.no_plots,
                    scenario: crate::commands::report::scenario_text(
                        &prepared.file,
                        &prepared.overrides,
                    ),
                    sections: Vec::new(),
                };
                let path = write_report(dir, &options)?;
                crate::emit(&format!("report in {}\n", path.display()));
            }
            Ok(recorded)
        })
        .with_context(|| format!("cannot lock {}", dir.display()))
        .map_err(failed)?
        .map_err(failed)?;
        crate::emit(&format!(
            "{} of {} runs recorded in {} ({wall:.1} s wall); results in {}\n",
            recorded,
            runs,
            dir.display(),
            dir.join("results.csv").display()
        ));
    } else {
        crate::emit(&format!(
            "{recorded} of {} runs recorded in {} ({wall:.1} s wall); the slice that finishes the sweep writes results.csv (see `cclab sweep status {}`)\n",
            runs,
            dir.display(),
            dir.display()
        ));
    }
    if let Some(first) = failures.first() {
        return Err(failed(anyhow!(
            "{} of {} runs failed (they will be retried on the next run); the first: {first}",
            failures.len(),
            prepared.pending.len()
        )));
    }
    Ok(())
}

pub fn sweep(args: SweepArgs) -> Result<(), Failure> {
    let (jobs_asked, quiet) = (args.jobs, args.quiet);
    let prepared = prepare(args)?;
    let asked = jobs_asked.unwrap_or_else(rayon::current_num_threads);
    let (jobs, capped_text) = threads_for(&[&prepared], asked, jobs_asked.is_some());
    crate::emit(&format!(
        "sweep {}: {}, running {} on {jobs} threads{capped_text}\n",
        prepared.name(),
        prepared.counts_text(),
        prepared.pending()
    ));
    let (mut failures, wall) = run_pending(&[&prepared], jobs, quiet);
    finish(&prepared, failures.remove(0), wall)
}

#[cfg(test)]
mod tests {
    use super::thread_count;

    #[test]
    fn threads_are_the_smallest_of_jobs_runs_cores_and_memory() {
        // (asked, runs, cores, bytes per run) → threads
        assert_eq!(thread_count(100_000, 2, 2, 1_000_000), 2);
        assert_eq!(thread_count(100_000, 50, 2, 1_000_000), 8);
        assert_eq!(thread_count(3, 50, 2, 1_000_000), 3);
        // Runs of 3 GB: 8 GB / 3 GB = 2 at once. (A run over the limit is refused when it is
        // validated; the count would still be one.)
        assert_eq!(thread_count(8, 50, 4, 3_000_000_000), 2);
        assert_eq!(thread_count(8, 50, 4, 9_000_000_000), 1);
        // Nothing left to run: one thread, still a valid pool.
        assert_eq!(thread_count(4, 0, 2, 1_000_000), 1);
    }
}
