//! Sweep figures: a metric against a swept parameter, one line per algorithm (the figures of
//! the high-speed survey: utilization against bandwidth or RTT, fairness against RTT).
//!
//! The x axis is categorical: the swept values in the order the sweep lists them, equally
//! spaced and labelled as written ("10Mbps", "622Mbps", "1Gbps"), the way such figures are
//! usually drawn. Points are the mean over replicates (seeds); a vertical bar spans their
//! minimum and maximum when there are several.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Figure, Formats, PlotError, color, save, thick_line};
use crate::results::{Row, SweepManifest};

#[derive(Clone, Debug)]
pub struct SweepSeries {
    pub label: String,
    /// Per category: (mean, min, max), or nothing when no run had a value there.
    pub points: Vec<Option<(f64, f64, f64)>>,
}

#[derive(Clone, Debug)]
pub struct SweepChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<SweepSeries>,
}

/// What to draw; empty or `None` fields are chosen from the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepPlotOptions {
    pub formats: Formats,
    /// Metric columns of `results.csv`, e.g. `aggregate.utilization`.
    pub metrics: Vec<String>,
    /// The swept key on the x axis (default: each swept key but the series one in turn).
    pub x: Option<String>,
    /// The swept key that makes the lines (default: the first swept key naming `cc`).
    pub series: Option<String>,
}

/// A readable axis description for the common metrics.
fn describe(metric: &str) -> Option<&'static str> {
    Some(match metric {
        "aggregate.utilization" => "bottleneck utilization (busy time / run time)",
        "aggregate.utilization_steady" => "bottleneck utilization in the steady-state window",
        "aggregate.jain_index" => "Jain's fairness index of goodput",
        "aggregate.jain_index_steady" => "Jain's fairness index (steady state)",
        "aggregate.index_a" => "index A = (x1 - x2) / (x1 + x2)",
        "aggregate.share_ratio" => "bandwidth-share ratio x1 / x2",
        _ => return None,
    })
}

/// The unit conversion for a metric column: (scale, unit text).
fn unit(metric: &str) -> (f64, &'static str) {
    if metric.ends_with("_bps") {
        (1e-6, " (Mbit/s)")
    } else if metric.ends_with("_ms") {
        (1.0, " (ms)")
    } else if metric.ends_with("_s") {
        (1.0, " (s)")
    } else if metric.ends_with("_pkts") {
        (1.0, " (packets)")
    } else {
        (1.0, "")
    }
}

fn file_part(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    out.trim_matches('_').to_string()
}

fn is_algorithm_key(key: &str) -> bool {
    key.split('+')
        .all(|k| k.trim().ends_with(".cc") || k.trim() == "cc")
}

/// Distinct values of `key` over `rows`, in order of first appearance (the sweep's order).
fn distinct(rows: &[Row], key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in rows {
        if let Some((_, v)) = row.params.iter().find(|(k, _)| k == key)
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    }
    out
}

fn param<'a>(row: &'a Row, key: &str) -> Option<&'a str> {
    row.params
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Default metrics: utilization always; fairness when runs have two or more flows; index A
/// when some run has it.
fn default_metrics(rows: &[Row]) -> Vec<String> {
    let has = |column: &str| {
        rows.iter()
            .any(|r| r.get(column).is_some_and(|v| !v.is_empty()))
    };
    let mut metrics = vec!["aggregate.utilization".to_string()];
    if has("flows.1.id") {
        metrics.push("aggregate.jain_index".into());
    }
    if has("aggregate.index_a") {
        metrics.push("aggregate.index_a".into());
    }
    metrics
}

/// Build the charts of a sweep folder's rows.
pub fn charts(
    manifest: &SweepManifest,
    rows: &[Row],
    options: &SweepPlotOptions,
) -> Result<Vec<(String, SweepChart)>, String> {
    let axes = &manifest.axes;
    for key in options.x.iter().chain(&options.series) {
        if !axes.contains(key) {
            return Err(format!(
                "`{key}` is not a swept key; the sweep varies: {}",
                axes.join(", ")
            ));
        }
    }
    let series_key = options
        .series
        .clone()
        .or_else(|| axes.iter().find(|k| is_algorithm_key(k)).cloned());
    let mut x_keys: Vec<String> = match &options.x {
        Some(x) => vec![x.clone()],
        None => axes
            .iter()
            .filter(|k| Some(*k) != series_key.as_ref())
            .cloned()
            .collect(),
    };
    let mut series_key = series_key;
    if x_keys.is_empty() {
        // Only algorithms swept: they go on the x axis.
        x_keys = series_key.take().into_iter().collect();
    }
    let metrics = if options.metrics.is_empty() {
        default_metrics(rows)
    } else {
        options.metrics.clone()
    };
    for metric in &metrics {
        if !rows.iter().any(|r| r.get(metric).is_some()) && !rows.is_empty() {
            return Err(format!(
                "no run has the metric `{metric}`; metrics are the columns of results.csv, e.g. aggregate.utilization"
            ));
        }
    }
    let mut out = Vec::new();
    for x_key in &x_keys {
        let categories = distinct(rows, x_key);
        let others: Vec<&String> = axes
            .iter()
            .filter(|k| *k != x_key && Some(*k) != series_key.as_ref())
            .collect();
        // One figure per combination of the other swept values.
        let mut combos: Vec<Vec<String>> = Vec::new();
        for row in rows {
            let combo: Vec<String> = others
                .iter()
                .map(|k| param(row, k).unwrap_or("").to_string())
                .collect();
            if !combos.contains(&combo) {
                combos.push(combo);
            }
        }
        let series_values = series_key
            .as_ref()
            .map_or(vec![String::new()], |k| distinct(rows, k));
        for metric in &metrics {
            let (scale, unit_text) = unit(metric);
            for (c, combo) in combos.iter().enumerate() {
                let in_combo = |row: &&Row| {
                    others
                        .iter()
                        .zip(combo)
                        .all(|(k, v)| param(row, k).unwrap_or("") == v)
                };
                let series = series_values
                    .iter()
                    .map(|s| SweepSeries {
                        label: s.clone(),
                        points: categories
                            .iter()
                            .map(|x| {
                                let values: Vec<f64> = rows
                                    .iter()
                                    .filter(in_combo)
                                    .filter(|r| param(r, x_key) == Some(x.as_str()))
                                    .filter(|r| {
                                        series_key
                                            .as_ref()
                                            .is_none_or(|k| param(r, k) == Some(s.as_str()))
                                    })
                                    .filter_map(|r| r.get(metric)?.parse::<f64>().ok())
                                    .map(|v| v * scale)
                                    .collect();
                                (!values.is_empty()).then(|| {
                                    let mean = values.iter().sum::<f64>() / values.len() as f64;
                                    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                                    let hi =
                                        values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                                    (mean, lo, hi)
                                })
                            })
                            .collect(),
                    })
                    .collect();
                let fixed: Vec<String> = others
                    .iter()
                    .zip(combo)
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                let mut title = format!("{}: {metric} vs {x_key}", manifest.name);
                if !fixed.is_empty() {
                    title.push_str(&format!(" ({})", fixed.join(", ")));
                }
                let mut name = format!(
                    "{}-vs-{}",
                    file_part(metric.rsplit('.').next().unwrap_or(metric)),
                    file_part(x_key)
                );
                if combos.len() > 1 {
                    name.push_str(&format!("-{}", c + 1));
                }
                out.push((
                    name,
                    SweepChart {
                        title,
                        x_label: x_key.clone(),
                        y_label: describe(metric)
                            .map_or_else(|| format!("{metric}{unit_text}"), str::to_string),
                        categories: categories.clone(),
                        series,
                    },
                ));
            }
        }
    }
    Ok(out)
}

/// Draw the figures of the sweep folder `dir` into `dir/figures`.
pub fn plot_sweep(dir: &Path, options: &SweepPlotOptions) -> Result<Vec<PathBuf>, PlotError> {
    let manifest = SweepManifest::read(dir).map_err(|source| PlotError::Io {
        path: dir.join(SweepManifest::FILE),
        source,
    })?;
    let rows = manifest.rows(dir);
    let charts = charts(&manifest, &rows, options).map_err(|message| PlotError::Data {
        path: dir.join("results.csv"),
        message,
    })?;
    let out = dir.join("figures");
    std::fs::create_dir_all(&out).map_err(|source| PlotError::Io {
        path: out.clone(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, chart) in &charts {
        written.extend(save(chart, &out, name, options.formats)?);
    }
    Ok(written)
}

impl Figure for SweepChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let n = self.categories.len().max(1);
        let values = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().flatten())
            .flat_map(|&(m, lo, hi)| [m, lo, hi]);
        let (lo, hi) = values.fold((0.0f64, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let hi = if hi.is_finite() && hi > lo {
            hi * 1.1
        } else {
            lo + 1.0
        };
        let lo = if lo < 0.0 { lo * 1.1 } else { 0.0 };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(-0.5..(n as f64 - 0.5), lo..hi)
            .map_err(e)?;
        let categories = &self.categories;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_labels(n + 1)
            .x_label_formatter(&|v| {
                // Categories sit at whole positions 0, 1, ...; other ticks stay blank.
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 {
                    categories.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&super::tick)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .max_light_lines(2)
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(215, 215, 215))
            .disable_x_mesh()
            .draw()
            .map_err(e)?;
        let mut labelled = false;
        for (k, series) in self.series.iter().enumerate() {
            let c = color(k);
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.map(|(m, _, _)| (i as f64, m)))
                .collect();
            let drawn = chart
                .draw_series(thick_line(&points, c.stroke_width(2), bitmap))
                .map_err(e)?;
            if !series.label.is_empty() {
                labelled = true;
                drawn.label(&series.label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(2))
                });
            }
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(e)?;
            chart
                .draw_series(series.points.iter().enumerate().filter_map(|(i, p)| {
                    p.filter(|(_, lo, hi)| hi > lo).map(|(_, lo, hi)| {
                        let x = i as f64;
                        PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(1))
                    })
                }))
                .map_err(e)?;
        }
        if labelled {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(e)?;
        }
        Ok(())
    }
}
