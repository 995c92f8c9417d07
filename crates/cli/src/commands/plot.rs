//! `cclab plot DIR`: figures from a run folder or a sweep folder, into `DIR/figures`.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use cclab_analysis::output::{FIGURES_DIR, remove_stale_temporaries};
use cclab_analysis::plot::sweep::{SweepPlotOptions, plot_sweep};
use cclab_analysis::plot::timeseries::{RunPlotOptions, plot_run};
use cclab_analysis::plot::{Formats, PlotError};
use cclab_analysis::results::SweepManifest;
use cclab_scenario::units::parse_duration;
use cclab_scenario::{one_line, shorten, shorten_quoted};

use crate::Failure;

pub struct PlotArgs {
    pub dir: PathBuf,
    pub format: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub metrics: Vec<String>,
    pub x: Option<String>,
    pub series: Option<String>,
}

fn failure(e: PlotError) -> Failure {
    match e {
        // Messages quote user values (a --metric name) in backticks: shorten them.
        PlotError::Data { .. } => Failure::BadInput(anyhow!(shorten_quoted(&e.to_string()))),
        PlotError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Failure::BadInput(e.into())
        }
        other => Failure::RunFailed(other.into()),
    }
}

fn formats(text: &str) -> Result<Formats, Failure> {
    match text {
        "svg" => Ok(Formats {
            svg: true,
            png: false,
        }),
        "png" => Ok(Formats {
            svg: false,
            png: true,
        }),
        "both" => Ok(Formats::default()),
        other => Err(Failure::BadInput(anyhow!(
            "--format {}: expected svg, png or both",
            shorten(other)
        ))),
    }
}

fn seconds(flag: &str, text: &Option<String>) -> Result<Option<f64>, Failure> {
    text.as_deref()
        .map(|t| {
            parse_duration(t).map(|d| d.as_secs_f64()).map_err(|m| {
                Failure::BadInput(anyhow!("{flag} {}: {}", shorten(t), shorten_quoted(&m)))
            })
        })
        .transpose()
}

fn bad(message: String) -> Failure {
    Failure::BadInput(anyhow!(message))
}

/// Options that apply to the other kind of folder are errors, not silently ignored.
fn refuse_options(dir: &str, kind: &str, options: &[(&str, bool)]) -> Result<(), Failure> {
    match options.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(bad(format!(
            "{flag} does not apply to {dir}, which is a {kind} folder"
        ))),
        None => Ok(()),
    }
}

/// The run's simulated duration from summary.json, if it can be read.
fn run_duration_s(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("summary.json")).ok()?;
    // `"duration_s": 60.0,` near the top; a full parse is the figure code's job.
    let rest = &text[text.find("\"duration_s\"")? + "\"duration_s\"".len()..];
    let value = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = value.find([',', '\n', '}']).unwrap_or(value.len());
    value[..end].trim().parse().ok()
}

/// Check --from/--to against each other and the run's duration.
fn run_window(
    dir: &Path,
    from: &Option<String>,
    to: &Option<String>,
) -> Result<(Option<f64>, Option<f64>), Failure> {
    let (from_s, to_s) = (seconds("--from", from)?, seconds("--to", to)?);
    if let (Some(f), Some(t)) = (from_s, to_s)
        && f >= t
    {
        return Err(bad(format!(
            "--from {} is not before --to {}; the window would be empty",
            shorten(from.as_deref().unwrap_or_default()),
            shorten(to.as_deref().unwrap_or_default())
        )));
    }
    if let (Some(f), Some(duration)) = (from_s, run_duration_s(dir))
        && f >= duration
    {
        return Err(bad(format!(
            "--from {} is at or after the end of the run ({duration} s); nothing to draw",
            shorten(from.as_deref().unwrap_or_default())
        )));
    }
    Ok((from_s, to_s))
}

/// --x and --series must name different swept keys of this sweep.
fn check_sweep_keys(
    dir: &Path,
    x: &Option<String>,
    series: &Option<String>,
) -> Result<(), Failure> {
    if let (Some(x), Some(series)) = (x, series)
        && x == series
    {
        return Err(bad(format!(
            "--x and --series both name `{}`; the lines must vary another swept key than the x axis",
            shorten(x)
        )));
    }
    let Ok(manifest) = SweepManifest::read(dir) else {
        // Unreadable: the figure code reports it with its path.
        return Ok(());
    };
    for (flag, key) in [("--x", x), ("--series", series)] {
        if let Some(key) = key
            && !manifest.axes.contains(key)
        {
            return Err(bad(format!(
                "{flag} `{}` is not a swept key; the sweep varies: {}",
                shorten(key),
                manifest.axes.join(", ")
            )));
        }
    }
    Ok(())
}

/// After drawing one format only, remove the other format's file of each figure drawn: an
/// SVG left from an earlier run beside a fresh PNG would show another window or data.
fn remove_other_format(written: &[PathBuf], formats: Formats) -> Result<(), Failure> {
    let other = match (formats.svg, formats.png) {
        (true, false) => "png",
        (false, true) => "svg",
        _ => return Ok(()),
    };
    for path in written {
        let stale = path.with_extension(other);
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Failure::RunFailed(anyhow!(
                    "cannot remove the stale {}: {e}",
                    stale.display()
                )));
            }
        }
    }
    Ok(())
}

fn report(written: &[PathBuf], dir: &Path) {
    crate::emit(&format!(
        "{} figures in {}\n",
        written.len(),
        dir.join("figures").display()
    ));
}

pub fn plot(args: PlotArgs) -> Result<(), Failure> {
    let formats = formats(&args.format)?;
    let dir = &args.dir;
    let shown = one_line(&dir.display().to_string());
    let written = if dir.join(SweepManifest::FILE).exists() {
        refuse_options(
            &shown,
            "sweep",
            &[("--from", args.from.is_some()), ("--to", args.to.is_some())],
        )?;
        check_sweep_keys(dir, &args.x, &args.series)?;
        let options = SweepPlotOptions {
            formats,
            metrics: args.metrics,
            x: args.x,
            series: args.series,
        };
        remove_stale_temporaries(&dir.join(FIGURES_DIR))
            .map_err(|e| Failure::RunFailed(e.into()))?;
        plot_sweep(dir, &options).map_err(failure)?
    } else if dir.join("summary.json").exists() {
        refuse_options(
            &shown,
            "run",
            &[
                ("--metric", !args.metrics.is_empty()),
                ("--x", args.x.is_some()),
                ("--series", args.series.is_some()),
            ],
        )?;
        let (from_s, to_s) = run_window(dir, &args.from, &args.to)?;
        let options = RunPlotOptions {
            formats,
            from_s,
            to_s,
        };
        remove_stale_temporaries(&dir.join(FIGURES_DIR))
            .map_err(|e| Failure::RunFailed(e.into()))?;
        plot_run(dir, &options).map_err(failure)?
    } else {
        return Err(Failure::BadInput(anyhow!(
            "{shown}: not an output folder of cclab run or cclab sweep (no summary.json or {})",
            SweepManifest::FILE
        )));
    };
    remove_other_format(&written, formats)?;
    report(&written, dir);
    Ok(())
}

/// The figures `cclab run` draws unless `--no-plots`.
pub fn plot_run_folder(dir: &Path) -> anyhow::Result<()> {
    let written = plot_run(dir, &RunPlotOptions::default())?;
    report(&written, dir);
    Ok(())
}

/// The figures `cclab sweep` draws unless `--no-plots`.
pub fn plot_sweep_folder(dir: &Path) -> anyhow::Result<()> {
    let written = plot_sweep(dir, &SweepPlotOptions::default())?;
    report(&written, dir);
    Ok(())
}
