//! The slowdown figure of a run with workloads (`figures/fct`): every finished short flow's
//! slowdown (FCT over its ideal FCT) against its size, both on log scales, with the median
//! and 99th percentile of each size bucket (docs/metrics.md, "Workloads") drawn through
//! the median size of the bucket's flows. Read from `flows.csv`; the bucket statistics
//! here are exact order statistics of its rows (summary.json's come from histograms, within
//! 0.8 %).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::{for_each_row, required};
use super::frame::{Entry, Sample, frame};
use super::{Dash, Figure, PlotError, draw_line, draw_markers};
use crate::metrics::fct::bucket_bounds;
use cclab_sim::traffic::workload::{BUCKET_UPPER_BYTES, bucket_of};

/// At most this many flows are drawn as points (every k-th row beyond it); the bucket lines
/// use every row.
const MAX_POINTS: usize = 20_000;
const Y_AXIS: i32 = 60;
const POINTS: RGBColor = RGBColor(160, 160, 160);
const MEDIAN: RGBColor = RGBColor(31, 119, 180);
const P99: RGBColor = RGBColor(214, 39, 40);

/// The figure: points and lines in log10 coordinates.
pub struct FctChart {
    pub title: String,
    /// (log10 size in bytes, log10 slowdown) per drawn flow.
    pub points: Vec<(f64, f64)>,
    /// Per non-empty bucket, at log10 of its median size: log10 of the median and p99
    /// slowdown.
    pub medians: Vec<(f64, f64)>,
    pub p99s: Vec<(f64, f64)>,
}

/// The q-quantile of sorted `values`: the ⌈q·n⌉-th smallest (as the histograms define it).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The chart of `flows.csv`; `None` when no flow finished.
pub fn chart(path: &Path) -> Result<Option<FctChart>, PlotError> {
    let mut rows: Vec<(f64, f64)> = Vec::new();
    for_each_row(path, &["size_bytes", "slowdown"], |cells| {
        let size = required(cells[0])?;
        let slowdown = required(cells[1])?;
        if size >= 1.0 && slowdown > 0.0 {
            rows.push((size, slowdown));
        }
        Ok(())
    })?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut buckets: Vec<(Vec<f64>, Vec<f64>)> =
        vec![Default::default(); BUCKET_UPPER_BYTES.len() + 1];
    for &(size, slowdown) in &rows {
        let b = &mut buckets[bucket_of(size as u64)];
        b.0.push(size);
        b.1.push(slowdown);
    }
    let (mut medians, mut p99s) = (Vec::new(), Vec::new());
    for (sizes, slowdowns) in &mut buckets {
        if sizes.is_empty() {
            continue;
        }
        sizes.sort_by(f64::total_cmp);
        slowdowns.sort_by(f64::total_cmp);
        let x = quantile(sizes, 0.5).log10();
        medians.push((x, quantile(slowdowns, 0.5).log10()));
        p99s.push((x, quantile(slowdowns, 0.99).log10()));
    }
    let step = rows.len().div_ceil(MAX_POINTS);
    let points = rows
        .iter()
        .step_by(step)
        .map(|&(s, d)| (s.log10(), d.log10()))
        .collect();
    let buckets = (0..=BUCKET_UPPER_BYTES.len())
        .map(|i| bucket_bounds(i).0)
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Some(FctChart {
        title: format!(
            "slowdown (FCT / ideal FCT) by flow size, {} flows; buckets {buckets}",
            rows.len()
        ),
        points,
        medians,
        p99s,
    }))
}

/// A power of ten of bytes in words: 3 → "1 kB", 6.5 → "3.2 MB".
fn size_label(log: &f64) -> String {
    let bytes = 10f64.powf(*log);
    let (value, unit) = match bytes {
        b if b >= 1e9 => (b / 1e9, "GB"),
        b if b >= 1e6 => (b / 1e6, "MB"),
        b if b >= 1e3 => (b / 1e3, "kB"),
        b => (b, "B"),
    };
    format!("{} {unit}", super::tick(&((value * 10.0).round() / 10.0)))
}

fn slowdown_label(log: &f64) -> String {
    super::tick(&((10f64.powf(*log) * 100.0).round() / 100.0))
}

impl FctChart {
    fn legend(&self) -> Vec<Entry> {
        vec![
            Entry {
                label: "one flow".into(),
                sample: Sample::Ring(POINTS),
            },
            Entry {
                label: "bucket median".into(),
                sample: Sample::Line {
                    color: MEDIAN,
                    width: 2,
                    dash: Dash::Solid,
                    marker: None,
                },
            },
            Entry {
                label: "bucket 99th percentile".into(),
                sample: Sample::Line {
                    color: P99,
                    width: 2,
                    dash: Dash::Dashed,
                    marker: None,
                },
            },
        ]
    }
}

impl Figure for FctChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let all = self.points.iter().chain(&self.medians).chain(&self.p99s);
        let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        // Whole decades around the data; slowdown starts at 1 (10⁰).
        let (x0, x1) = (x0.floor(), (x1.ceil()).max(x0.floor() + 1.0));
        let y1 = y1.ceil().max(1.0);
        let (area, _) = frame(root, &self.title, &self.legend(), Y_AXIS)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(4)
            .x_label_area_size(40)
            .y_label_area_size(Y_AXIS)
            .build_cartesian_2d(x0..x1, 0.0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("flow size (log scale)")
            .y_desc("slowdown (log scale)")
            .x_labels((x1 - x0) as usize + 1)
            .x_label_formatter(&size_label)
            .y_labels(y1 as usize + 1)
            .y_label_formatter(&slowdown_label)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(
                self.points
                    .iter()
                    .map(|&p| Circle::new(p, 2, POINTS.stroke_width(1))),
            )
            .map_err(e)?;
        draw_line(
            &mut chart,
            &self.medians,
            Dash::Solid,
            MEDIAN.stroke_width(3),
            bitmap,
        )?;
        draw_markers(&mut chart, &self.medians, super::Marker::Circle, 4, MEDIAN)?;
        draw_line(
            &mut chart,
            &self.p99s,
            Dash::Dashed,
            P99.stroke_width(3),
            bitmap,
        )?;
        draw_markers(&mut chart, &self.p99s, super::Marker::Square, 4, P99)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_lines_are_the_order_statistics_of_the_rows() {
        // Bucket (0, 10 KB]: 100 flows of 1000 B with slowdowns 1, 2, …, 100: median the
        // 50th (50), p99 the 99th (99). Bucket >1 MB: one 2 MB flow, slowdown 3.
        let dir = std::env::temp_dir().join(format!("cclab-fct-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flows.csv");
        let mut text = String::from("size_bytes,slowdown\n");
        for k in 1..=100 {
            text.push_str(&format!("1000,{k}\n"));
        }
        text.push_str("2000000,3\n");
        std::fs::write(&path, text).unwrap();
        let chart = chart(&path).unwrap().expect("rows");
        assert_eq!(chart.points.len(), 101);
        assert_eq!(
            chart.medians,
            vec![(3.0, 50f64.log10()), (2000000f64.log10(), 3f64.log10())]
        );
        assert_eq!(chart.p99s[0], (3.0, 99f64.log10()));
        let svg = super::super::render_svg(&chart).unwrap();
        assert!(svg.contains("1 kB") && svg.contains("bucket median"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
