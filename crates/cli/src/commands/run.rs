use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use cclab_analysis::{CsvSink, RateSeries, summarize, summary_table, write_summary};
use cclab_sim::{Simulation, Tee};
use indicatif::{ProgressBar, ProgressStyle};

use crate::Failure;

pub fn run(
    file: &Path,
    out: Option<PathBuf>,
    overrides: &[String],
    quiet: bool,
    no_plots: bool,
) -> Result<(), Failure> {
    let scenario =
        cclab_scenario::load(file, overrides).map_err(|e| Failure::BadInput(e.into()))?;
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scenario.name));
    let failed = |e: anyhow::Error| Failure::RunFailed(e);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))
        .map_err(failed)?;
    let mut sink = CsvSink::create(&dir)
        .and_then(|sink| {
            if scenario.output.trace_packets.is_empty() {
                Ok(sink)
            } else {
                sink.with_packets(&dir)
            }
        })
        .with_context(|| format!("cannot write in {}", dir.display()))
        .map_err(failed)?;
    let mut rates = RateSeries::for_scenario(&scenario);

    let started = Instant::now();
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
    let result = Simulation::new(&scenario)
        .run(&mut Tee(&mut sink, &mut rates), &mut progress)
        .with_context(|| format!("{}: the run failed", file.display()))
        .map_err(failed)?;
    let wall = started.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }

    sink.commit()
        .with_context(|| format!("cannot write the time series in {}", dir.display()))
        .map_err(failed)?;
    rates
        .write_csv(&dir)
        .with_context(|| format!("cannot write {}", dir.join("rates.csv").display()))
        .map_err(failed)?;
    let summary = summarize(&scenario, &result, &rates, wall);
    write_summary(&dir, &summary)
        .with_context(|| format!("cannot write {}", dir.join("summary.json").display()))
        .map_err(failed)?;
    crate::emit(&summary_table(&summary));
    crate::emit(&format!(
        "{} events, {} bottleneck packets in {:.3} s wall ({:.2} M packets/s), peak memory {}; output in {}\n",
        result.events,
        summary.run.packets,
        wall,
        summary.run.packets as f64 / wall.max(1e-9) / 1e6,
        peak_memory().map_or("unknown".to_string(), |kib| format!(
            "{:.1} MiB",
            kib as f64 / 1024.0
        )),
        dir.display()
    ));
    if !no_plots {
        crate::commands::plot::plot_run_folder(&dir)
            .context("cannot draw the figures (the run's files are written)")
            .map_err(failed)?;
    }
    Ok(())
}

/// Peak resident memory of this process in KiB (Linux `VmHWM`), if the platform tells.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
