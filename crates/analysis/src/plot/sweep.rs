//! Sweep figures: a metric against a swept parameter, one line per algorithm (the figures of
//! the high-speed survey: utilization against bandwidth or RTT, fairness against RTT).
//!
//! Numeric swept values ("10Mbps", "20ms", "0.5bdp", 50) go on a numeric axis in one unit
//! (Mbit/s, ms, × BDP, packets), logarithmic when they span more than a decade, with a tick at
//! each swept value; other values (algorithms, queue kinds) are categories, equally spaced in
//! the sweep's order, each series slightly offset so that their points do not hide each
//! other. Points are the mean over replicates (seeds); a vertical bar spans their minimum and
//! maximum when there are several. Each series has its own colour, dash and marker
//! ([`super::series_style`]); the legend is outside the plot ([`super::frame`]).

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::Y_AXIS;
use super::frame::{Entry, Sample, frame};
use super::labels::{key_words, metric_words, numeric, wants_log, with_unit};
use super::{Figure, Formats, PlotError, draw_line, draw_markers, save, series_style};
use crate::results::{Row, SweepManifest};

#[derive(Clone, Debug)]
pub struct SweepSeries {
    pub label: String,
    /// Per category: (mean, min, max), or nothing when no run had a value there.
    pub points: Vec<Option<(f64, f64, f64)>>,
}

/// The x axis of a sweep figure.
#[derive(Clone, Debug, PartialEq)]
pub enum XAxis {
    /// Values that are not numbers, equally spaced in the sweep's order.
    Categories(Vec<String>),
    /// Numbers in the axis unit, ascending; on a log scale if `log`.
    Numeric { values: Vec<f64>, log: bool },
}

impl XAxis {
    pub fn len(&self) -> usize {
        match self {
            XAxis::Categories(c) => c.len(),
            XAxis::Numeric { values, .. } => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the `i`-th value sits on the (linear) drawing axis.
    fn position(&self, i: usize) -> f64 {
        match self {
            XAxis::Categories(_) => i as f64,
            XAxis::Numeric { values, log: true } => values[i].log10(),
            XAxis::Numeric { values, .. } => values[i],
        }
    }

    fn label(&self, i: usize) -> String {
        match self {
            XAxis::Categories(c) => c[i].clone(),
            XAxis::Numeric { values, .. } => super::tick(&values[i]),
        }
    }
}

#[derive(Clone, Debug)]
pub struct SweepChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x: XAxis,
    /// Points per value of `x`, in the same order.
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
        let mut categories = distinct(rows, x_key);
        let (x_words, plain_unit) = key_words(x_key);
        // Numeric values: ascending on a numeric axis; the rest stay categories in order.
        let (x_axis, x_unit) = match numeric(&categories, plain_unit) {
            Some((values, unit)) => {
                let mut order: Vec<usize> = (0..values.len()).collect();
                order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
                categories = order.iter().map(|&i| categories[i].clone()).collect();
                let values: Vec<f64> = order.iter().map(|&i| values[i]).collect();
                let log = wants_log(&values);
                (XAxis::Numeric { values, log }, unit)
            }
            None => (XAxis::Categories(categories.clone()), None),
        };
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
            let (metric_text, metric_unit, scale) = metric_words(metric);
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
                    .map(|(k, v)| format!("{} = {v}", key_words(k).0))
                    .collect();
                let mut title = format!("{}: {metric_text} vs {x_words}", manifest.name);
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
                        x_label: match (&x_axis, x_unit) {
                            (XAxis::Numeric { log: true, .. }, Some(u)) => {
                                format!("{x_words} ({u}, log scale)")
                            }
                            (XAxis::Numeric { log: true, .. }, None) => {
                                format!("{x_words} (log scale)")
                            }
                            _ => with_unit(&x_words, x_unit),
                        },
                        y_label: with_unit(&metric_text, metric_unit),
                        x: x_axis.clone(),
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

/// Pixels: height of a row of x tick labels, gap between neighbouring labels.
const TICK_ROW: i32 = 16;
const TICK_GAP: i32 = 8;
/// Rows of x tick labels at most (labels that would overlap are staggered).
const TICK_ROWS: usize = 3;

/// The row of each label (given its left and right pixel): the first row where it does not
/// overlap the label before it, so that no two labels overlap while rows last.
fn stagger(spans: &[(i32, i32)]) -> Vec<usize> {
    let mut right_edge = [i32::MIN; TICK_ROWS];
    spans
        .iter()
        .map(|&(left, right)| {
            let row = (0..TICK_ROWS)
                .find(|&r| right_edge[r].saturating_add(TICK_GAP) <= left)
                .unwrap_or_else(|| (0..TICK_ROWS).min_by_key(|&r| right_edge[r]).unwrap_or(0));
            right_edge[row] = right;
            row
        })
        .collect()
}

impl SweepChart {
    /// The legend: each series' colour, dash and marker.
    pub fn legend(&self) -> Vec<Entry> {
        self.series
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.label.is_empty())
            .map(|(k, s)| {
                let style = series_style(k);
                Entry {
                    label: s.label.clone(),
                    sample: Sample::Line {
                        color: style.color,
                        width: 2,
                        dash: style.dash,
                        marker: Some(style.marker),
                    },
                }
            })
            .collect()
    }

    /// Horizontal offset of series `k` at categories, so that equal values stay visible.
    fn dodge(&self, k: usize) -> f64 {
        match self.x {
            XAxis::Categories(_) if self.series.len() > 1 => {
                let n = self.series.len() as f64;
                let step = (0.5 / n).min(0.1);
                (k as f64 - (n - 1.0) / 2.0) * step
            }
            _ => 0.0,
        }
    }
}

impl Figure for SweepChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let n = self.x.len();
        let values = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().flatten())
            .flat_map(|&(m, lo, hi)| [m, lo, hi]);
        let (lo, hi) = values.fold((0.0f64, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let hi = if hi.is_finite() && hi > lo {
            hi * 1.08
        } else {
            lo + 1.0
        };
        let lo = if lo < 0.0 { lo * 1.08 } else { 0.0 };
        let positions: Vec<f64> = (0..n).map(|i| self.x.position(i)).collect();
        let (first, last) = positions
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &p| {
                (a.min(p), b.max(p))
            });
        let (x0, x1) = match self.x {
            _ if !first.is_finite() => (-0.5, 0.5),
            XAxis::Categories(_) => (first - 0.5, last + 0.5),
            XAxis::Numeric { .. } if last > first => {
                let pad = (last - first) * 0.06;
                (first - pad, last + pad)
            }
            XAxis::Numeric { .. } => (first - 0.5, first + 0.5),
        };
        let (area, _) = frame(root, &self.title, &self.legend(), Y_AXIS)?;

        // Tick labels at the swept values, staggered where they would overlap. Their pixel
        // positions are predicted from the plot's width before the chart is built, since the
        // rows decide the height of the label area.
        let label_font = ("sans-serif", 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let labels: Vec<String> = (0..n).map(|i| self.x.label(i)).collect();
        let (area_x, _) = area.get_pixel_range();
        let plot_left = area_x.start + 4 + Y_AXIS;
        let plot_width = (area_x.end - 4 - plot_left).max(1) as f64;
        let to_pixel = |p: f64| plot_left + ((p - x0) / (x1 - x0) * plot_width) as i32;
        let spans: Vec<(i32, i32)> = labels
            .iter()
            .zip(&positions)
            .map(|(l, &p)| {
                let w = root
                    .estimate_text_size(l, &label_font)
                    .map(|(w, _)| w as i32)
                    .unwrap_or(8 * l.len() as i32);
                (to_pixel(p) - w / 2, to_pixel(p) + w / 2)
            })
            .collect();
        let rows = stagger(&spans);
        let used_rows = rows.iter().max().map_or(1, |r| r + 1) as i32;

        let mut chart = ChartBuilder::on(&area)
            .margin(4)
            .x_label_area_size(30 + used_rows * TICK_ROW)
            .y_label_area_size(Y_AXIS)
            .build_cartesian_2d(x0..x1, lo..hi)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_labels(0)
            .y_label_formatter(&super::tick)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .max_light_lines(2)
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(215, 215, 215))
            .disable_x_mesh()
            .draw()
            .map_err(e)?;
        // Grid line, tick mark and label at each swept value.
        chart
            .draw_series(
                positions
                    .iter()
                    .map(|&p| PathElement::new(vec![(p, lo), (p, hi)], RGBColor(225, 225, 225))),
            )
            .map_err(e)?;
        for ((label, &p), row) in labels.iter().zip(&positions).zip(&rows) {
            let (px, py) = chart.backend_coord(&(p, lo));
            root.draw(&PathElement::new(vec![(px, py), (px, py + 5)], BLACK))
                .map_err(e)?;
            root.draw(&Text::new(
                label.clone(),
                (px, py + 8 + *row as i32 * TICK_ROW),
                label_font.clone(),
            ))
            .map_err(e)?;
        }

        let connect = matches!(self.x, XAxis::Numeric { .. });
        for (k, series) in self.series.iter().enumerate() {
            let style = series_style(k);
            let c = style.color;
            let dx = self.dodge(k);
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.map(|(m, _, _)| (positions[i] + dx, m)))
                .collect();
            chart
                .draw_series(series.points.iter().enumerate().filter_map(|(i, p)| {
                    p.filter(|(_, lo, hi)| hi > lo).map(|(_, lo, hi)| {
                        let x = positions[i] + dx;
                        PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(1))
                    })
                }))
                .map_err(e)?;
            // Lines join values along a numeric axis only: categories have no order to
            // follow.
            if connect {
                draw_line(&mut chart, &points, style.dash, c.stroke_width(2), bitmap)?;
            }
            draw_markers(&mut chart, &points, style.marker, 4, c)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staggered_labels_do_not_overlap() {
        // Three labels 40 px wide, 30 px apart: the middle one moves to the second row.
        let rows = stagger(&[(0, 40), (30, 70), (60, 100)]);
        assert_eq!(rows, vec![0, 1, 0]);
        let rows = stagger(&[(0, 10), (100, 110)]);
        assert_eq!(rows, vec![0, 0]);
    }
}
