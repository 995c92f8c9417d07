//! `cclab compare DIR_A DIR_B`: the summary metrics of two run folders side by side —
//! typically the simulation (`cclab run`) and the emulation (`cclab emulate`) of one
//! scenario — with the absolute and relative difference of each (B − A, (B − A) / A).
//! With `--out DIR`, the table also goes to `DIR/comparison.csv` and the two runs' cwnd,
//! goodput, RTT and queue are drawn on the same axes in `DIR/figures/`.

use std::path::Path;

use anyhow::{Context, anyhow};
use cclab_analysis::plot::Formats;
use cclab_analysis::plot::overlay::plot_overlay;
use cclab_analysis::write_atomic;
use cclab_scenario::one_line;
use serde_json::Value;

use crate::Failure;

/// Per-flow metrics compared, matched by flow `id`.
const FLOW_METRICS: &[&str] = &[
    "goodput_bps",
    "throughput_bps",
    "bytes_acked",
    "packets_sent",
    "retransmissions",
    "timeouts",
    "mean_rtt_ms",
    "min_rtt_ms",
    "fct_s",
];
/// Per-link metrics compared, matched by link `name`.
const LINK_METRICS: &[&str] = &[
    "utilization",
    "drops",
    "packets",
    "mean_queue_pkts",
    "max_queue_pkts",
];
const AGGREGATE_METRICS: &[&str] = &["total_goodput_bps", "utilization", "jain_index"];

/// One compared metric: its name and the two values (`None`: absent or null in that folder).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub metric: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl Row {
    pub fn difference(&self) -> Option<f64> {
        Some(self.b? - self.a?)
    }

    /// (B − A) / A; `None` when A is 0 or either is absent.
    pub fn relative(&self) -> Option<f64> {
        let (a, b) = (self.a?, self.b?);
        (a != 0.0).then(|| (b - a) / a)
    }
}

fn read_summary(dir: &Path) -> Result<Value, Failure> {
    let path = dir.join("summary.json");
    let shown = one_line(&path.display().to_string());
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Failure::BadInput(anyhow!(
            "{shown}: cannot read it ({e}); give the output folder of cclab run or cclab emulate"
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| Failure::BadInput(anyhow!("{shown}: not JSON ({e})")))
}

/// The rows comparing summaries `a` and `b`: flows present in both by `id`, links by
/// `name`, then the aggregate.
pub fn rows(a: &Value, b: &Value) -> Vec<Row> {
    let mut rows = Vec::new();
    let items = |v: &Value, key: &str| v[key].as_array().cloned().unwrap_or_default();
    let (flows_b, links_b) = (items(b, "flows"), items(b, "links"));
    for flow in items(a, "flows") {
        let Some(other) = flows_b.iter().find(|f| f["id"] == flow["id"]) else {
            continue;
        };
        for metric in FLOW_METRICS {
            rows.push(Row {
                metric: format!("flow {} {metric}", flow["id"]),
                a: flow[metric].as_f64(),
                b: other[metric].as_f64(),
            });
        }
    }
    for link in items(a, "links") {
        let Some(other) = links_b.iter().find(|l| l["name"] == link["name"]) else {
            continue;
        };
        let name = link["name"].as_str().unwrap_or("?");
        for metric in LINK_METRICS {
            rows.push(Row {
                metric: format!("{name} {metric}"),
                a: link[metric].as_f64(),
                b: other[metric].as_f64(),
            });
        }
    }
    for metric in AGGREGATE_METRICS {
        rows.push(Row {
            metric: format!("aggregate {metric}"),
            a: a["aggregate"][metric].as_f64(),
            b: b["aggregate"][metric].as_f64(),
        });
    }
    rows
}

/// A number in at most 6 significant digits, without exponent for everyday magnitudes.
fn number(value: Option<f64>) -> String {
    match value {
        None => "-".into(),
        Some(v) if v == v.trunc() && v.abs() < 1e15 => format!("{v:.0}"),
        Some(v) => {
            let digits = (5 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
            format!("{v:.digits$}")
        }
    }
}

pub fn table(a_name: &str, b_name: &str, rows: &[Row]) -> String {
    let header = ["metric", "A", "B", "B - A", "(B - A)/A"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.metric.clone(),
                number(r.a),
                number(r.b),
                number(r.difference()),
                r.relative()
                    .map_or("-".into(), |x| format!("{:+.1} %", 100.0 * x)),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let mut text = format!("A: {a_name}\nB: {b_name}\n");
    let line = |text: &mut String, row: [&str; 5]| {
        text.push_str(&format!("{:<w$}", row[0], w = widths[0]));
        for (c, w) in row[1..].iter().zip(&widths[1..]) {
            text.push_str(&format!("  {c:>w$}"));
        }
        text.push('\n');
    };
    line(&mut text, header);
    for row in &cells {
        line(&mut text, [&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
    text
}

/// How the figures name folder `dir` beside `other`: its own name (whole paths would crowd
/// the legend), with its parent's when both have the same name (`sim/x` and `emu/x`).
fn short_name(dir: &Path, other: &Path) -> String {
    let name = |d: &Path| d.file_name().map(|n| n.to_string_lossy().into_owned());
    let shown = match (name(dir), dir.parent().and_then(name)) {
        (Some(own), Some(parent)) if name(dir) == name(other) => format!("{parent}/{own}"),
        (Some(own), _) => own,
        (None, _) => dir.display().to_string(),
    };
    one_line(&shown)
}

/// The rows as CSV: `metric,a,b,difference,relative` (empty cells where absent).
pub fn csv(rows: &[Row]) -> String {
    let cell = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let mut out = String::from("metric,a,b,difference,relative\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            r.metric,
            cell(r.a),
            cell(r.b),
            cell(r.difference()),
            cell(r.relative())
        ));
    }
    out
}

pub fn compare(a: &Path, b: &Path, out: Option<&Path>) -> Result<(), Failure> {
    let rows = rows(&read_summary(a)?, &read_summary(b)?);
    let names = [
        one_line(&a.display().to_string()),
        one_line(&b.display().to_string()),
    ];
    crate::emit(&table(&names[0], &names[1], &rows));
    if let Some(out) = out {
        let failed = |e: anyhow::Error| Failure::RunFailed(e);
        std::fs::create_dir_all(out)
            .with_context(|| format!("cannot create {}", out.display()))
            .map_err(failed)?;
        let path = out.join("comparison.csv");
        write_atomic(&path, csv(&rows).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(failed)?;
        let labels = [
            format!("A ({})", short_name(a, b)),
            format!("B ({})", short_name(b, a)),
        ];
        let written = plot_overlay(a, b, [&labels[0], &labels[1]], out, Formats::default())
            .map_err(|e| failed(e.into()))?;
        crate::emit(&format!(
            "comparison.csv and {} figures in {}\n",
            written.len(),
            out.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flows_match_by_id_links_by_name_with_differences() {
        let a = json!({
            "flows": [{"id": 0, "goodput_bps": 10e6, "fct_s": null}],
            "links": [{"name": "bottleneck", "drops": 0}],
            "aggregate": {"utilization": 0.8},
        });
        let b = json!({
            "flows": [{"id": 0, "goodput_bps": 9e6, "fct_s": 2.5}, {"id": 1, "goodput_bps": 1e6}],
            "links": [{"name": "bottleneck", "drops": 4}],
            "aggregate": {"utilization": 0.9},
        });
        let rows = rows(&a, &b);
        let goodput = rows
            .iter()
            .find(|r| r.metric == "flow 0 goodput_bps")
            .expect("row");
        // Hand calculation: 9 − 10 = −1 Mbit/s, −1/10 = −10 %.
        assert_eq!(goodput.difference(), Some(-1e6));
        assert_eq!(goodput.relative(), Some(-0.1));
        let fct = rows
            .iter()
            .find(|r| r.metric == "flow 0 fct_s")
            .expect("row");
        assert_eq!((fct.a, fct.b, fct.difference()), (None, Some(2.5), None));
        // Flow 1 is only in B: not compared.
        assert!(!rows.iter().any(|r| r.metric.starts_with("flow 1")));
        let drops = rows
            .iter()
            .find(|r| r.metric == "bottleneck drops")
            .expect("row");
        assert_eq!((drops.difference(), drops.relative()), (Some(4.0), None));
        let utilization = rows
            .iter()
            .find(|r| r.metric == "aggregate utilization")
            .expect("row");
        assert!((utilization.relative().expect("A is not 0") - 0.125).abs() < 1e-12);
    }

    #[test]
    fn figures_name_folders_by_their_names_or_with_their_parents_when_equal() {
        let (sim, emu) = (Path::new("/o/sim/point"), Path::new("/o/emu/point"));
        assert_eq!(short_name(sim, emu), "sim/point");
        assert_eq!(short_name(emu, sim), "emu/point");
        assert_eq!(
            short_name(Path::new("/o/cubic"), Path::new("/o/reno")),
            "cubic"
        );
    }

    #[test]
    fn the_table_aligns_columns_and_marks_what_is_missing() {
        let rows = [
            Row {
                metric: "flow 0 goodput_bps".into(),
                a: Some(10e6),
                b: Some(9.5e6),
            },
            Row {
                metric: "flow 0 fct_s".into(),
                a: None,
                b: Some(2.25),
            },
        ];
        let text = table("sim", "emu", &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "A: sim");
        // Two spaces between columns, each right-aligned to its widest cell: B is 7 wide
        // (9500000), B - A 7 (-500000), (B - A)/A 9 (its header).
        assert!(
            lines[3].ends_with("10000000  9500000  -500000     -5.0 %"),
            "{}",
            lines[3]
        );
        assert!(lines[4].starts_with("flow 0 fct_s      "), "{}", lines[4]);
        assert!(lines[4].ends_with("-"), "{}", lines[4]);
    }
}
