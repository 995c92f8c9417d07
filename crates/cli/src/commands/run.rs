use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use cclab_analysis::html_report::ReportOptions;
use cclab_analysis::output::{FolderKind, TemporaryDir, folder_kind};
use cclab_analysis::pcap::PcapSink;
use cclab_analysis::{CsvSink, RateSeries, summarize, summary_table, write_summary};
use cclab_scenario::{Scenario, one_line, shorten};
use cclab_sim::{NullSink, Simulation, Tee, TraceSink};
use indicatif::{ProgressBar, ProgressStyle};

use crate::Failure;

/// Load a scenario for `run` or `check`: `--max-output` replaces `output.max_size`, and the
/// estimated output must fit within it.
pub fn load_checked(
    file: &Path,
    overrides: &[String],
    max_output: Option<&str>,
) -> Result<Scenario, Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let mut scenario = cclab_scenario::load(file, overrides).map_err(|e| bad(e.into()))?;
    if let Some(text) = max_output {
        scenario.output.max_size = if text == "unlimited" {
            None
        } else {
            Some(cclab_scenario::units::parse_bytes(text).map_err(|m| {
                bad(anyhow!(
                    "--max-output {}: {}",
                    shorten(text),
                    cclab_scenario::shorten_quoted(&m)
                ))
            })?)
        };
    }
    cclab_scenario::check_output_size(&scenario).map_err(|e| bad(e.into()))?;
    Ok(scenario)
}

/// Where the run's folder goes, checked before any work: a new or empty folder, or one that
/// holds only an earlier run's files (which the new run replaces whole). Returns the folder
/// (symbolic links resolved) and the sibling to fill first.
fn prepare_folder(dir: &Path) -> Result<(PathBuf, PathBuf), Failure> {
    let bad = |m: String| Failure::BadInput(anyhow!(m));
    let shown = one_line(&dir.display().to_string());
    let kind = folder_kind(dir)
        .map_err(|e| Failure::RunFailed(anyhow!("{shown}: cannot read the output folder: {e}")))?;
    match kind {
        FolderKind::Missing | FolderKind::Empty | FolderKind::Run => {}
        FolderKind::File => return Err(bad(format!("{shown}: --out is a file, not a folder"))),
        FolderKind::Sweep => {
            return Err(bad(format!(
                "{shown}: is the folder of a sweep (it has sweep.json); give the run another --out"
            )));
        }
        FolderKind::Foreign(entry) => {
            return Err(bad(format!(
                "{shown}: holds `{}`, which cclab run does not write; give another --out or empty the folder (a run replaces only an earlier run's files)",
                shorten(&entry)
            )));
        }
    }
    // The folder by its real path, so that the swap below replaces the folder a symbolic
    // link points to, not the link.
    let name = dir
        .file_name()
        .ok_or_else(|| bad(format!("{shown}: --out needs a folder name, e.g. out/run1")))?;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create output folder {}", parent.display()))
        .map_err(Failure::RunFailed)?;
    let real = if dir.exists() {
        std::fs::canonicalize(dir)
    } else {
        std::fs::canonicalize(&parent).map(|p| p.join(name))
    }
    .with_context(|| format!("cannot resolve {shown}"))
    .map_err(Failure::RunFailed)?;
    let real_name = real
        .file_name()
        .ok_or_else(|| bad(format!("{shown}: cannot be an output folder")))?
        .to_string_lossy()
        .into_owned();
    let staging = real.with_file_name(format!(".{real_name}.cclab-run.tmp"));
    Ok((real, staging))
}

/// Put the finished run in place of `dir`: the old folder (an earlier run's, checked by
/// [`prepare_folder`]) is renamed aside, the new one renamed in, the old one removed. A
/// reader sees the old run or the new one, complete, except between the two renames.
fn swap_into_place(staging: TemporaryDir, dir: &Path) -> anyhow::Result<()> {
    let shown = dir.display();
    match folder_kind(dir)? {
        FolderKind::Missing => {
            staging.keep(|from| std::fs::rename(from, dir))?;
        }
        FolderKind::Empty | FolderKind::Run => {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let aside = dir.with_file_name(format!(".{}.cclab-old.tmp", name.unwrap_or_default()));
            if aside.exists() {
                std::fs::remove_dir_all(&aside)?;
            }
            // Both renames under the temporary-file lock, so that Ctrl-C cannot fall between
            // them and leave the earlier run hidden and no new one.
            staging.keep(|from| {
                std::fs::rename(dir, &aside)?;
                std::fs::rename(from, dir).inspect_err(|_| {
                    // Put the earlier run back rather than leave no folder.
                    let _ = std::fs::rename(&aside, dir);
                })
            })?;
            std::fs::remove_dir_all(&aside)?;
        }
        other => {
            return Err(anyhow!(
                "{shown}: changed during the run ({other:?}); the results were not moved in"
            ));
        }
    }
    Ok(())
}

/// What `cclab run` draws after writing its files: the figures (unless `--no-plots`) and
/// report.html (unless `--no-report`; without figures it has the tables only).
pub struct Drawing {
    pub plots: bool,
    pub report: bool,
}

pub fn run(
    file: &Path,
    out: Option<PathBuf>,
    overrides: &[String],
    max_output: Option<&str>,
    quiet: bool,
    drawing: Drawing,
) -> Result<(), Failure> {
    let scenario = load_checked(file, overrides, max_output)?;
    let given = out.unwrap_or_else(|| PathBuf::from("out").join(&scenario.name));
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    let (dir, staging_path) = prepare_folder(&given)?;
    let staging = TemporaryDir::create(staging_path)
        .with_context(|| format!("cannot create a folder beside {}", dir.display()))
        .map_err(failed)?;
    let work = staging.path().to_path_buf();
    let groups = cclab_scenario::sharing::group_names(&scenario);
    let sink = if groups.is_empty() {
        CsvSink::create(&work)
    } else {
        CsvSink::create_with_groups(&work, groups)
    };
    let mut sink = sink
        .and_then(|sink| {
            if scenario.output.trace_packets.is_empty() {
                Ok(sink)
            } else {
                sink.with_packets(&work)
            }
        })
        .and_then(|sink| {
            if scenario.flows.iter().any(|g| g.kind.workload().is_some()) {
                sink.with_flows(&work)
            } else {
                Ok(sink)
            }
        })
        .with_context(|| format!("cannot write in {}", work.display()))
        .map_err(failed)?;
    let mut pcap = PcapSink::create(&work, &scenario)
        .with_context(|| format!("cannot write pcap files in {}", work.display()))
        .map_err(failed)?;
    let started = Instant::now();
    let simulation = Simulation::new(&scenario).give_back_heap_with(give_back_free_heap);
    // The rate series (about 100 B a flow) is made after the network: `Simulation::new`
    // holds every flow's four access links until the link pool takes them out, one of the
    // run's two highest moments with 100 000 flows (docs/performance.md, "Memory per idle
    // flow"). Its bins are packed out of the heap when the run is over, before the results.
    let mut rates = RateSeries::for_scenario(&scenario);
    rates.pack_when_run_over();
    let total_ns = scenario.duration.as_nanos();
    let show_progress = !quiet && std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    let mut progress = |now: cclab_cc::SimTime| {
        if !show_progress {
            return;
        }
        // Only runs longer than a second get a bar.
        if bar.is_none() && started.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(total_ns);
            b.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {percent:>3}% simulated, {elapsed} elapsed, ~{eta} left",
                )
                .expect("the template is valid"),
            );
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(now.as_nanos());
        }
    };
    let mut no_pcap = NullSink;
    let pcap_sink: &mut dyn TraceSink = match &mut pcap {
        Some(p) => p,
        None => &mut no_pcap,
    };
    let result = simulation
        .run(
            &mut Tee(&mut sink, &mut Tee(pcap_sink, &mut rates)),
            &mut progress,
        )
        .with_context(|| format!("{}: the run failed", file.display()))
        .map_err(failed)?;
    let wall = started.elapsed().as_secs_f64();
    // The run's heap is free now but for its results (whose RTT histograms mostly hold no
    // block of their own, `Histogram::compact`) and the rate bins: given back, the bins
    // made again after it, before the summaries are made beside the results, so that they
    // do not come on top of it (docs/performance.md, "Memory per idle flow").
    rates.repack_after_run(give_back_free_heap);
    if let Some(b) = bar {
        b.finish_and_clear();
    }

    sink.commit()
        .with_context(|| format!("cannot write the time series in {}", work.display()))
        .map_err(failed)?;
    if let Some(pcap) = pcap {
        pcap.commit()
            .with_context(|| format!("cannot write the pcap files in {}", work.display()))
            .map_err(failed)?;
    }
    rates
        .write_csv(&work)
        .with_context(|| format!("cannot write {}", work.join("rates.csv").display()))
        .map_err(failed)?;
    let summary = summarize(&scenario, result, &rates, wall);
    write_summary(&work, &summary)
        .with_context(|| format!("cannot write {}", work.join("summary.json").display()))
        .map_err(failed)?;
    swap_into_place(staging, &dir)
        .with_context(|| format!("cannot move the run into {}", dir.display()))
        .map_err(failed)?;
    crate::emit(&summary_table(&summary));
    crate::emit(&format!(
        "{} events, {} packets over the reported links in {:.3} s wall ({:.2} M packets/s), peak memory {}; output in {}\n",
        summary.run.events,
        summary.run.packets,
        wall,
        summary.run.packets as f64 / wall.max(1e-9) / 1e6,
        peak_memory().map_or("unknown".to_string(), |kib| format!(
            "{:.1} MiB",
            kib as f64 / 1024.0
        )),
        given.display()
    ));
    // The figures and the report read the folder back: what the run and its summary left
    // on the heap is given back to the system before they start.
    drop(summary);
    drop(rates);
    give_back_free_heap();
    if drawing.plots {
        crate::commands::plot::plot_run_folder(&dir)
            .context("cannot draw the figures (the run's files are written)")
            .map_err(failed)?;
    }
    if drawing.report {
        crate::commands::report::write(
            &dir,
            &ReportOptions {
                figures: drawing.plots,
                scenario: crate::commands::report::scenario_text(file, overrides),
                sections: Vec::new(),
            },
        )?;
    }
    Ok(())
}

/// Give the free pages inside the heap back to the system. Freeing memory returns only the
/// heap's top to it; the rest stays resident until reused. After a run of many flows most of
/// its heap is free but was pinned, page by page, by the few small blocks of the flows' RTT
/// histograms, which the summary frees: at 100 000 idle flows, 120 MB that the figures and
/// the report would otherwise add to (docs/performance.md, "Memory per idle flow").
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back_free_heap() {
    // SAFETY: `malloc_trim` takes no pointer and touches only the allocator's free memory,
    // under its arenas' locks (glibc's malloc(3), which Rust's global allocator is here).
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_free_heap() {}

/// Peak resident memory of this process in KiB (Linux `VmHWM`), if the platform tells.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
