//! `report.html`: one self-contained page for a run folder or a sweep folder — the scenario,
//! the summary tables, every figure (embedded), interactive charts of the run's time series
//! (uPlot, embedded) and the details of each flow; for a sweep its results table and
//! comparison figures. Nothing is loaded from the network; the page is the same bytes for
//! the same folder (no dates, no wall-clock times), so runs stay reproducible.
//!
//! Other commands add sections ([`ReportOptions::sections`]): a reproduction's "paper vs
//! ours" table and its discussion are [`Section::table`] and [`Section::paragraphs`].
//! docs/report.md describes the page.

mod base64;
mod charts;
mod figures;
pub mod html;
mod run_page;
mod summary_json;
mod sweep_page;
mod thinning;
mod values;

#[cfg(test)]
mod tests;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

pub use charts::MAX_SERIES;
pub use figures::SVG_LIMIT_BYTES;
pub use html::Html;
pub use sweep_page::RESULT_ROWS;
pub use thinning::BUCKETS;

use crate::output::write_atomic;
use crate::results::SweepManifest;

/// The report's file name in an output folder.
pub const REPORT_FILE: &str = "report.html";

/// Rows of a long table shown at a time (the page's script pages through the rest).
pub const PAGE_ROWS: usize = 25;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Data { path: PathBuf, message: String },
    #[error(
        "{dir}: not an output folder of cclab run or cclab sweep (no summary.json or sweep.json)"
    )]
    NotAnOutputFolder { dir: PathBuf },
}

impl ReportError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        ReportError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn data(path: &Path, message: String) -> Self {
        ReportError::Data {
            path: path.to_path_buf(),
            message,
        }
    }

    fn csv(path: &Path, e: csv::Error) -> Self {
        ReportError::data(path, e.to_string())
    }
}

/// The scenario file a folder was made from, when the caller has it (`cclab run` and
/// `cclab sweep` do; `cclab report --scenario FILE`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScenarioText {
    /// The file as given on the command line.
    pub file: String,
    pub text: String,
    /// `--set KEY=VALUE` overrides, as given.
    pub overrides: Vec<String>,
}

/// A section of the page: an anchor id, a title (in the page's table of contents) and its
/// content.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub id: String,
    pub title: String,
    pub body: Html,
}

impl Section {
    pub fn new(id: &str, title: &str, body: Html) -> Section {
        Section {
            id: html::slug(id),
            title: title.to_string(),
            body,
        }
    }

    /// A section of text: paragraphs separated by blank lines (a reproduction's discussion).
    pub fn paragraphs(id: &str, title: &str, text: &str) -> Section {
        Section::new(id, title, Html::paragraphs(text))
    }

    /// A section holding one table, with a sentence above it (a reproduction's "paper vs
    /// ours": quantity, paper, ours, difference).
    pub fn table<R: AsRef<[String]>>(
        id: &str,
        title: &str,
        intro: &str,
        header: &[&str],
        rows: &[R],
    ) -> Section {
        let mut body = Html::default();
        if !intro.is_empty() {
            body.push(Html::paragraphs(intro));
        }
        body.push(Html::table(header, rows));
        Section::new(id, title, body)
    }
}

/// What goes into a report besides the folder's files.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Embed the figures of `DIR/figures` (and their interactive charts). `cclab run
    /// --no-plots` draws none and asks for none: its report has the tables only.
    pub figures: bool,
    pub scenario: Option<ScenarioText>,
    /// Sections placed after the summary (run) or the results (sweep), before the figures.
    pub sections: Vec<Section>,
}

impl ReportOptions {
    /// Figures included, nothing added.
    pub fn with_figures() -> ReportOptions {
        ReportOptions {
            figures: true,
            ..ReportOptions::default()
        }
    }
}

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("report.js");
const UPLOT_JS: &str = include_str!("../../assets/uplot/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../../assets/uplot/uPlot.min.css");
/// uPlot's version and licence, kept beside its code in every report (MIT asks for the notice).
const UPLOT_NOTICE: &str = "uPlot 1.6.32, https://github.com/leeoniya/uPlot — The MIT License (MIT), Copyright (c) 2022 Leon Sorokin. Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the \"Software\"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions: The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.";

/// A whole page: head, title, table of contents, sections, and the scripts.
struct Page {
    title: String,
    subtitle: String,
    sections: Vec<Section>,
    /// `<script type="application/json">` elements of the interactive charts.
    chart_data: Vec<String>,
}

impl Page {
    fn render(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        let title = html::escape(&self.title);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"cclab {}\">\n<title>{title}</title>\n\
             <style>\n{STYLE}</style>\n",
            env!("CARGO_PKG_VERSION")
        );
        if !self.chart_data.is_empty() {
            let _ = write!(out, "<style>\n{UPLOT_CSS}\n</style>\n");
        }
        let _ = write!(
            out,
            "</head>\n<body data-page-rows=\"{PAGE_ROWS}\">\n<header>\n<h1>{title}</h1>\n<p class=\"subtitle\">{}</p>\n<nav>",
            html::escape(&self.subtitle)
        );
        for s in &self.sections {
            let _ = write!(out, "<a href=\"#{}\">{}</a>", s.id, html::escape(&s.title));
        }
        out.push_str("</nav>\n</header>\n<main>\n");
        for s in &self.sections {
            let _ = write!(
                out,
                "<section id=\"{}\">\n<h2>{}</h2>\n{}\n</section>\n",
                s.id,
                html::escape(&s.title),
                s.body.as_str()
            );
        }
        let _ = write!(
            out,
            "</main>\n<footer>Written by cclab {} from the files of this folder; see docs/report.md.</footer>\n",
            env!("CARGO_PKG_VERSION")
        );
        for data in &self.chart_data {
            out.push_str(data);
            out.push('\n');
        }
        if !self.chart_data.is_empty() {
            let _ = write!(
                out,
                "<script>\n/* {} */\n{UPLOT_JS}\n</script>\n",
                UPLOT_NOTICE.replace("*/", "* /")
            );
        }
        let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
        out
    }
}

/// "1 flow", "3 flows".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn read_summary(dir: &Path) -> Result<Value, ReportError> {
    let path = dir.join("summary.json");
    let bytes = std::fs::read(&path).map_err(|e| ReportError::io(&path, e))?;
    summary_json::parse(&bytes).map_err(|e| ReportError::data(&path, e.to_string()))
}

/// The report of `dir` (a run or a sweep folder) as HTML text.
pub fn render_report(dir: &Path, options: &ReportOptions) -> Result<String, ReportError> {
    let figures = if options.figures {
        figures::read_figures(dir)?
    } else {
        Vec::new()
    };
    if dir.join(SweepManifest::FILE).exists() {
        let path = dir.join(SweepManifest::FILE);
        let manifest = SweepManifest::read(dir).map_err(|e| ReportError::io(&path, e))?;
        let mut sections = sweep_page::sweep_sections(dir, &manifest, options.scenario.as_ref())?;
        sections.extend(options.sections.iter().cloned());
        sections.push(run_page::figures_section(&figures, &[], options.figures));
        return Ok(Page {
            title: format!("{} — sweep report", manifest.name),
            subtitle: format!(
                "cclab sweep: {} runs over {}",
                manifest.runs.len(),
                manifest.axes.join(", ")
            ),
            sections,
            chart_data: Vec::new(),
        }
        .render());
    }
    if !dir.join("summary.json").exists() {
        return Err(ReportError::NotAnOutputFolder {
            dir: dir.to_path_buf(),
        });
    }
    let summary = read_summary(dir)?;
    render_run(dir, &summary, &figures, options)
}

/// The page of a run folder, from its summary as [`read_summary`] gives it.
fn render_run(
    dir: &Path,
    summary: &Value,
    figures: &[figures::Figure],
    options: &ReportOptions,
) -> Result<String, ReportError> {
    let stems: Vec<&str> = figures.iter().map(|f| f.stem.as_str()).collect();
    let series = charts::RunSeries::from_summary(summary);
    let charts = charts::run_charts(dir, &series, &stems)?;
    let name = summary["scenario"].as_str().unwrap_or("run").to_string();
    let mut summary_section = run_page::summary_section(summary);
    summary_section.body.push(run_page::captures_note(dir));
    let mut sections = vec![
        run_page::scenario_section(summary, options.scenario.as_ref()),
        summary_section,
    ];
    sections.extend(options.sections.iter().cloned());
    sections.push(run_page::figures_section(figures, &charts, options.figures));
    sections.push(run_page::flow_details_section(dir, summary)?);
    Ok(Page {
        title: format!("{name} — run report"),
        subtitle: format!(
            "cclab run: seed {}, {} s simulated, {}, {}",
            summary["seed"].as_u64().unwrap_or(0),
            values::number(summary["duration_s"].as_f64().unwrap_or(0.0)),
            count(series.flows.len(), "flow"),
            count(series.links.len(), "link")
        ),
        sections,
        chart_data: charts.iter().map(charts::Chart::script_element).collect(),
    }
    .render())
}

/// Write `dir/report.html` atomically; returns its path.
pub fn write_report(dir: &Path, options: &ReportOptions) -> Result<PathBuf, ReportError> {
    let text = render_report(dir, options)?;
    let path = dir.join(REPORT_FILE);
    write_atomic(&path, text.as_bytes()).map_err(|e| ReportError::io(&path, e))?;
    Ok(path)
}
