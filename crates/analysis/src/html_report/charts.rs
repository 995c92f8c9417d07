//! Data of the interactive charts of a run report — the congestion window, RTT, throughput
//! and queue, the time series of the static figures of the same names — read from the CSV
//! files, thinned ([`super::thinning`]) and written as JSON for the page's script.
//!
//! A chart is made only for a run of at most [`MAX_SERIES`] flows (links for the queue):
//! beyond that the static figure draws group means, which tell more than a tangle of lines.

use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use super::ReportError;
use super::html::script_json;
use super::thinning::{Columns, Thinner};
use crate::plot::PALETTE;

/// Most lines (flows, links) an interactive chart draws.
pub const MAX_SERIES: usize = 8;

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub color: usize,
    pub dashed: bool,
}

/// A chart: its id (the static figure it goes with), axis labels, lines and thinned data.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub id: &'static str,
    pub y_label: &'static str,
    pub lines: Vec<Line>,
    pub columns: Columns,
    /// Decimals kept of the values (the times keep six: microseconds).
    pub decimals: usize,
}

/// Where a value is read from: a CSV column and a factor to the chart's unit.
struct Measure {
    column: &'static str,
    factor: f64,
}

/// A number as JSON, rounded to `decimals` and without trailing zeros.
fn number(out: &mut String, v: Option<f64>, decimals: usize) {
    match v {
        Some(v) if v.is_finite() => {
            let text = format!("{v:.decimals$}");
            let text = if text.contains('.') {
                text.trim_end_matches('0').trim_end_matches('.')
            } else {
                &text
            };
            out.push_str(if text == "-0" { "0" } else { text });
        }
        _ => out.push_str("null"),
    }
}

impl Chart {
    /// The chart as JSON: `{"id", "y", "lines": [{"label", "color", "dash"}], "data": [[t…],
    /// [v…]…]}` (uPlot's aligned columns), made safe for a `<script>` element.
    pub fn to_json(&self) -> String {
        let lines: Vec<Value> = self
            .lines
            .iter()
            .map(|l| {
                let c = PALETTE[l.color % PALETTE.len()];
                serde_json::json!({
                    "label": l.label,
                    "color": format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2),
                    "dash": l.dashed,
                })
            })
            .collect();
        let head = serde_json::json!({ "id": self.id, "y": self.y_label, "lines": lines });
        let mut out = head.to_string();
        out.pop(); // the closing brace: the data follows
        out.push_str(",\"data\":[[");
        for (i, t) in self.columns.times.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            number(&mut out, Some(*t), 6);
        }
        out.push(']');
        for column in &self.columns.values {
            out.push_str(",[");
            for (i, v) in column.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                number(&mut out, *v, self.decimals);
            }
            out.push(']');
        }
        out.push_str("]}");
        script_json(&out)
    }

    /// The `<script type="application/json">` element holding the chart's data.
    pub fn script_element(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<script type=\"application/json\" class=\"chart-data\" data-chart=\"{}\">{}</script>",
            self.id,
            self.to_json()
        );
        out
    }
}

/// The flows and links of a run, as the charts label them (from summary.json).
pub struct RunSeries {
    pub duration_s: f64,
    /// TCP flows (they have time-series rows): id and label.
    pub tcp_flows: Vec<(u64, String)>,
    /// Every flow (rates.csv has UDP flows too).
    pub flows: Vec<(u64, String)>,
    pub links: Vec<String>,
}

impl RunSeries {
    pub fn from_summary(summary: &Value) -> RunSeries {
        let empty = Vec::new();
        let flows_json = summary["flows"].as_array().unwrap_or(&empty);
        let mut flows = Vec::new();
        let mut tcp_flows = Vec::new();
        for f in flows_json {
            let Some(id) = f["id"].as_u64() else { continue };
            let label = format!("flow {id} ({})", f["cc"].as_str().unwrap_or("?"));
            if f["kind"].as_str() != Some("udp") {
                tcp_flows.push((id, label.clone()));
            }
            flows.push((id, label));
        }
        let links = summary["links"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter_map(|l| l["name"].as_str().map(str::to_string))
            .collect();
        RunSeries {
            duration_s: summary["duration_s"].as_f64().unwrap_or(0.0),
            tcp_flows,
            flows,
            links,
        }
    }
}

/// Read `file`'s rows: `key` names the series (a flow id or a link name, looked up in
/// `keys`), each measure adds one line per key. Lines are ordered measure-major within each
/// key: key 0's measures, then key 1's.
fn read_series(
    dir: &Path,
    file: &str,
    key_column: &str,
    keys: &[String],
    measures: &[Measure],
    duration_s: f64,
) -> Result<Option<Columns>, ReportError> {
    let path = dir.join(file);
    let mut reader = match csv::Reader::from_path(&path) {
        Ok(r) => r,
        Err(e) if matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(ReportError::csv(&path, e)),
    };
    let headers = reader
        .headers()
        .map_err(|e| ReportError::csv(&path, e))?
        .clone();
    let index = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| ReportError::data(&path, format!("has no column `{name}`")))
    };
    let time = index("time_s")?;
    let key = index(key_column)?;
    let columns: Vec<usize> = measures
        .iter()
        .map(|m| index(m.column))
        .collect::<Result<_, _>>()?;
    let mut thinner = Thinner::new(duration_s, keys.len() * measures.len());
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| ReportError::csv(&path, e))?
    {
        let Some(k) = keys
            .iter()
            .position(|k| Some(k.as_str()) == record.get(key))
        else {
            continue;
        };
        let Some(t) = record.get(time).and_then(|t| t.parse::<f64>().ok()) else {
            continue;
        };
        for (m, (&column, measure)) in columns.iter().zip(measures).enumerate() {
            // Empty cells (ssthresh while unlimited, no RTT sample yet) are gaps.
            if let Some(v) = record.get(column).and_then(|v| v.parse::<f64>().ok()) {
                thinner.add(k * measures.len() + m, t, v * measure.factor);
            }
        }
    }
    Ok(Some(thinner.finish()))
}

fn flow_keys(flows: &[(u64, String)]) -> Vec<String> {
    flows.iter().map(|(id, _)| id.to_string()).collect()
}

/// The charts a run report offers, for the figures in `figure_stems` (a chart goes with its
/// static figure: no figure, no chart).
pub fn run_charts(
    dir: &Path,
    series: &RunSeries,
    figure_stems: &[&str],
) -> Result<Vec<Chart>, ReportError> {
    let mut charts = Vec::new();
    let wanted = |id: &str| figure_stems.contains(&id);
    let tcp = &series.tcp_flows;
    let tcp_charts = !tcp.is_empty() && tcp.len() <= MAX_SERIES;
    // cwnd (and ssthresh, dashed for up to four flows, as in the static figure: figures.md)
    // and RTT come from one pass over timeseries.csv, the largest file of a run.
    let cwnd = wanted("cwnd") && tcp_charts;
    let rtt = wanted("rtt") && tcp_charts;
    let with_ssthresh = cwnd && tcp.len() <= 4;
    let mut measures = Vec::new();
    let mut slot = |on: bool, column: &'static str, factor: f64| {
        on.then(|| {
            measures.push(Measure { column, factor });
            measures.len() - 1
        })
    };
    let cwnd_at = slot(cwnd, "cwnd_bytes", 1e-3);
    let ssthresh_at = slot(with_ssthresh, "ssthresh_bytes", 1e-3);
    let rtt_at = slot(rtt, "rtt_ms", 1.0);
    let timeseries = if measures.is_empty() {
        None
    } else {
        read_series(
            dir,
            "timeseries.csv",
            "flow",
            &flow_keys(tcp),
            &measures,
            series.duration_s,
        )?
    };
    let per_flow = measures.len();
    if let (Some(columns), Some(cwnd_at)) = (&timeseries, cwnd_at) {
        let mut lines = Vec::new();
        let mut picked = Vec::new();
        for (i, (_, label)) in tcp.iter().enumerate() {
            lines.push(Line {
                label: format!("{label} cwnd"),
                color: i,
                dashed: false,
            });
            picked.push(i * per_flow + cwnd_at);
            if let Some(ssthresh_at) = ssthresh_at {
                lines.push(Line {
                    label: format!("{label} ssthresh"),
                    color: i,
                    dashed: true,
                });
                picked.push(i * per_flow + ssthresh_at);
            }
        }
        charts.push(Chart {
            id: "cwnd",
            y_label: "congestion window (kB)",
            lines,
            columns: columns.pick(&picked),
            decimals: 3,
        });
    }
    if wanted("throughput") && !series.flows.is_empty() && series.flows.len() <= MAX_SERIES {
        let measures = [Measure {
            column: "throughput_bps",
            factor: 1e-6,
        }];
        if let Some(columns) = read_series(
            dir,
            "rates.csv",
            "flow",
            &flow_keys(&series.flows),
            &measures,
            series.duration_s,
        )? {
            charts.push(Chart {
                id: "throughput",
                y_label: "throughput (Mbit/s)",
                lines: flow_lines(&series.flows),
                columns,
                decimals: 4,
            });
        }
    }
    if let (Some(columns), Some(rtt_at)) = (&timeseries, rtt_at) {
        let picked: Vec<usize> = (0..tcp.len()).map(|i| i * per_flow + rtt_at).collect();
        charts.push(Chart {
            id: "rtt",
            y_label: "RTT (ms)",
            lines: flow_lines(tcp),
            columns: columns.pick(&picked),
            decimals: 3,
        });
    }
    let links = &series.links;
    if wanted("queue") && !links.is_empty() && links.len() <= MAX_SERIES {
        let measures = [Measure {
            column: "queue_pkts",
            factor: 1.0,
        }];
        if let Some(columns) = read_series(
            dir,
            "queue.csv",
            "link",
            links,
            &measures,
            series.duration_s,
        )? {
            charts.push(Chart {
                id: "queue",
                y_label: "queue (packets)",
                lines: links
                    .iter()
                    .enumerate()
                    .map(|(i, name)| Line {
                        label: name.clone(),
                        color: i,
                        dashed: false,
                    })
                    .collect(),
                columns,
                decimals: 0,
            });
        }
    }
    Ok(charts)
}

fn flow_lines(flows: &[(u64, String)]) -> Vec<Line> {
    flows
        .iter()
        .enumerate()
        .map(|(i, (_, label))| Line {
            label: label.clone(),
            color: i,
            dashed: false,
        })
        .collect()
}
