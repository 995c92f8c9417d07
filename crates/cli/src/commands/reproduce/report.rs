//! A reproduction's report: `report.md` (the setup, the paper's figures re-drawn from our
//! data, the paper's numbers beside ours, the discussion), `results.csv` (that comparison as
//! a table) and `figures/` (each figure as SVG, PNG and the CSV of its points).
//!
//! The experiment appends blocks in order ([`Report::text`], [`Report::figure`],
//! [`Report::table`]); the comparison table goes where [`Report::comparison_table`] is
//! called, or at the end.

use std::fmt::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use cclab_analysis::plot::sweep::{SweepChart, XAxis};
use cclab_analysis::plot::{Figure, Formats, save};
use cclab_analysis::write_atomic;

/// How our number relates to the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Agrees,
    /// Within the tolerance the comparison states.
    WithinTolerance,
    /// The reason found goes in [`Comparison::reason`].
    Disagrees,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Agrees => "agrees",
            Verdict::WithinTolerance => "within tolerance",
            Verdict::Disagrees => "disagrees",
        })
    }
}

/// One published number or claim beside ours.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// What is compared, e.g. "Hybla utilization at 622 Mbit/s, 64 ms".
    pub claim: String,
    /// The paper's number or statement.
    pub paper: String,
    /// Ours, in the same unit.
    pub ours: String,
    pub verdict: Verdict,
    /// The tolerance used, or why we differ (with the evidence in the discussion).
    pub reason: String,
}

enum Block {
    Markdown(String),
    Comparisons,
}

/// The report being built; [`Report::write`] writes it.
pub struct Report {
    dir: PathBuf,
    blocks: Vec<Block>,
    comparisons: Vec<Comparison>,
    figures: Vec<String>,
}

/// `|`, line breaks: what would break a markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

impl Report {
    /// A report whose figures go to `dir/figures`.
    pub fn new(dir: &Path) -> Report {
        Report {
            dir: dir.to_path_buf(),
            blocks: Vec::new(),
            comparisons: Vec::new(),
            figures: Vec::new(),
        }
    }

    /// Markdown: paragraphs, `## headings`, lists.
    pub fn text(&mut self, markdown: impl Into<String>) {
        self.blocks.push(Block::Markdown(markdown.into()));
    }

    /// A markdown table.
    pub fn table(&mut self, header: &[&str], rows: Vec<Vec<String>>) {
        let mut md = format!("| {} |\n", header.join(" | "));
        let _ = writeln!(md, "|{}", " --- |".repeat(header.len()));
        for row in rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            let _ = writeln!(md, "| {} |", cells.join(" | "));
        }
        self.blocks.push(Block::Markdown(md));
    }

    /// A sweep chart (a metric against a value, one line per series), with its points in
    /// `figures/<name>.csv`: `series,x,mean,min,max`.
    pub fn figure(&mut self, name: &str, chart: &SweepChart, caption: &str) -> anyhow::Result<()> {
        let mut csv = String::from("series,x,mean,min,max\n");
        for series in &chart.series {
            for (i, point) in series.points.iter().enumerate() {
                let x = match &chart.x {
                    XAxis::Categories(c) => c[i].clone(),
                    XAxis::Numeric { values, .. } => values[i].to_string(),
                };
                if let Some((mean, lo, hi)) = point {
                    let _ = writeln!(csv, "{},{x},{mean},{lo},{hi}", csv_field(&series.label));
                }
            }
        }
        self.figure_with(name, chart, caption, csv.into_bytes())
    }

    /// Any figure of the analysis crate, with the CSV of what it shows.
    pub fn figure_with(
        &mut self,
        name: &str,
        figure: &impl Figure,
        caption: &str,
        csv: Vec<u8>,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            !self.figures.iter().any(|f| f == name),
            "two figures are named `{name}`"
        );
        let dir = self.dir.join("figures");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        save(figure, &dir, name, Formats::default())?;
        let csv_path = dir.join(format!("{name}.csv"));
        write_atomic(&csv_path, &csv)
            .with_context(|| format!("cannot write {}", csv_path.display()))?;
        self.figures.push(name.to_string());
        self.blocks.push(Block::Markdown(format!(
            "![{caption}](figures/{name}.png)\n\n*{caption}* (data: [figures/{name}.csv](figures/{name}.csv))\n"
        )));
        Ok(())
    }

    /// A published number or claim beside ours.
    pub fn compare(&mut self, comparison: Comparison) {
        self.comparisons.push(comparison);
    }

    /// Place the comparison table here (otherwise it goes at the end).
    pub fn comparison_table(&mut self) {
        self.blocks.push(Block::Comparisons);
    }

    fn comparisons_markdown(&self) -> String {
        let mut md = String::from("| claim | paper | cclab | verdict | tolerance or reason |\n");
        md.push_str("| --- | --- | --- | --- | --- |\n");
        for c in &self.comparisons {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&c.claim),
                cell(&c.paper),
                cell(&c.ours),
                c.verdict,
                cell(&c.reason)
            );
        }
        let count = |v: Verdict| self.comparisons.iter().filter(|c| c.verdict == v).count();
        let _ = writeln!(
            md,
            "\n{} agree, {} within tolerance, {} disagree.",
            count(Verdict::Agrees),
            count(Verdict::WithinTolerance),
            count(Verdict::Disagrees)
        );
        md
    }

    /// `results.csv`: the comparison table.
    fn results_csv(&self) -> String {
        let mut out = String::from("claim,paper,cclab,verdict,reason\n");
        for c in &self.comparisons {
            let fields = [
                &c.claim,
                &c.paper,
                &c.ours,
                &c.verdict.to_string(),
                &c.reason,
            ];
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            let _ = writeln!(out, "{}", fields.join(","));
        }
        out
    }

    /// Write `report.md` (with `head` before the blocks and `tail` after) and `results.csv`.
    pub fn write(&self, head: &str, tail: &str) -> anyhow::Result<PathBuf> {
        let mut md = String::from(head);
        let mut placed = false;
        for block in &self.blocks {
            md.push('\n');
            match block {
                Block::Markdown(text) => md.push_str(text.trim_end()),
                Block::Comparisons => {
                    placed = true;
                    md.push_str("## The paper's numbers beside ours\n\n");
                    md.push_str(self.comparisons_markdown().trim_end());
                }
            }
            md.push('\n');
        }
        if !placed {
            md.push_str("\n## The paper's numbers beside ours\n\n");
            md.push_str(&self.comparisons_markdown());
        }
        md.push('\n');
        md.push_str(tail);
        let results = self.dir.join("results.csv");
        write_atomic(&results, self.results_csv().as_bytes())
            .with_context(|| format!("cannot write {}", results.display()))?;
        let path = self.dir.join("report.md");
        write_atomic(&path, md.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_per_rfc_4180() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn the_comparison_table_counts_verdicts_and_escapes_cells() {
        let dir = std::env::temp_dir().join(format!("cclab-report-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = Report::new(&dir);
        report.text("## Setup\n\nText.");
        report.compare(Comparison {
            claim: "utilization | at 1 Gbit/s".into(),
            paper: "0.1".into(),
            ours: "0.12".into(),
            verdict: Verdict::WithinTolerance,
            reason: "±0.05, stated".into(),
        });
        report.comparison_table();
        report.text("## Discussion");
        let path = report.write("# Title\n", "## Running time\n").unwrap();
        let md = std::fs::read_to_string(path).unwrap();
        let table = md.find("beside ours").unwrap();
        assert!(md.find("## Setup").unwrap() < table && table < md.find("## Discussion").unwrap());
        assert!(md.contains("| utilization \\| at 1 Gbit/s | 0.1 | 0.12 | within tolerance |"));
        assert!(md.contains("0 agree, 1 within tolerance, 0 disagree."));
        let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
        assert_eq!(
            csv,
            "claim,paper,cclab,verdict,reason\nutilization | at 1 Gbit/s,0.1,0.12,within tolerance,\"±0.05, stated\"\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
