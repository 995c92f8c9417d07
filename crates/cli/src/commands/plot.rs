//! `cclab plot DIR`: figures from a run folder or a sweep folder, into `DIR/figures`.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use cclab_analysis::plot::sweep::{SweepPlotOptions, plot_sweep};
use cclab_analysis::plot::timeseries::{RunPlotOptions, plot_run};
use cclab_analysis::plot::{Formats, PlotError};
use cclab_analysis::results::SweepManifest;
use cclab_scenario::units::parse_duration;

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
        PlotError::Data { .. } => Failure::BadInput(e.into()),
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
            "--format {other}: expected svg, png or both"
        ))),
    }
}

fn seconds(flag: &str, text: &Option<String>) -> Result<Option<f64>, Failure> {
    text.as_deref()
        .map(|t| {
            parse_duration(t)
                .map(|d| d.as_secs_f64())
                .map_err(|m| Failure::BadInput(anyhow!("{flag} {t}: {m}")))
        })
        .transpose()
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
    let written = if dir.join(SweepManifest::FILE).exists() {
        let options = SweepPlotOptions {
            formats,
            metrics: args.metrics,
            x: args.x,
            series: args.series,
        };
        plot_sweep(dir, &options).map_err(failure)?
    } else if dir.join("summary.json").exists() {
        let options = RunPlotOptions {
            formats,
            from_s: seconds("--from", &args.from)?,
            to_s: seconds("--to", &args.to)?,
        };
        plot_run(dir, &options).map_err(failure)?
    } else {
        return Err(Failure::BadInput(anyhow!(
            "{}: not an output folder of cclab run or cclab sweep (no summary.json or {})",
            dir.display(),
            SweepManifest::FILE
        )));
    };
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
