//! A line chart over a numeric x axis (time, mostly): lines per flow, optional markers (drops),
//! title, axis descriptions with units and a legend.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::{Entry, Sample, frame};
use super::{Dash, Figure, draw_line};

#[derive(Clone, Debug)]
pub struct Line {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
}

#[derive(Clone, Debug)]
pub struct Markers {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
}

#[derive(Clone, Debug, Default)]
pub struct TimeChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub lines: Vec<Line>,
    pub markers: Vec<Markers>,
    /// Thin grey lines under the others (every flow when the lines are group means), with
    /// one legend entry `background_label` if it is not empty.
    pub background: Vec<Vec<(f64, f64)>>,
    pub background_label: String,
}

/// The grey of background lines.
pub const BACKGROUND: RGBColor = RGBColor(190, 190, 190);

/// Line widths in pixels: lines, dashed lines (ssthresh), background lines.
const WIDTH: u32 = 2;
const DASHED_WIDTH: u32 = 1;
const BACKGROUND_WIDTH: u32 = 1;

/// At most `2 × buckets` points that keep the envelope of `points` (sorted by x): the
/// minimum and maximum of each run of equal length, in x order. Saw-tooth peaks survive;
/// files stay small for long runs.
pub fn decimate(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    if buckets == 0 || points.len() <= 2 * buckets {
        return points.to_vec();
    }
    let chunk = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(2 * buckets);
    for run in points.chunks(chunk) {
        let lowest = run
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.1.total_cmp(&b.1.1))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let highest = run
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.1.total_cmp(&b.1.1))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let (first, second) = if lowest <= highest {
            (lowest, highest)
        } else {
            (highest, lowest)
        };
        out.push(run[first]);
        if second != first {
            out.push(run[second]);
        }
    }
    out
}

/// Points per line kept in a figure (before decimation doubles them).
pub const BUCKETS: usize = 1500;

fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

impl TimeChart {
    fn all_points(&self) -> impl Iterator<Item = &(f64, f64)> {
        self.lines
            .iter()
            .flat_map(|l| &l.points)
            .chain(self.markers.iter().flat_map(|m| &m.points))
            .chain(self.background.iter().flatten())
    }

    /// The legend: labelled lines (ssthresh dashed), the background, the markers.
    pub fn legend(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self
            .lines
            .iter()
            .filter(|l| !l.label.is_empty())
            .map(|l| Entry {
                label: l.label.clone(),
                sample: Sample::Line {
                    color: l.color,
                    width: if l.dashed { DASHED_WIDTH } else { WIDTH },
                    dash: if l.dashed { Dash::Dashed } else { Dash::Solid },
                    marker: None,
                },
            })
            .collect();
        if !self.background.is_empty() && !self.background_label.is_empty() {
            entries.push(Entry {
                label: self.background_label.clone(),
                sample: Sample::Line {
                    color: BACKGROUND,
                    width: BACKGROUND_WIDTH,
                    dash: Dash::Solid,
                    marker: None,
                },
            });
        }
        entries.extend(
            self.markers
                .iter()
                .filter(|m| !m.label.is_empty())
                .map(|m| Entry {
                    label: m.label.clone(),
                    sample: Sample::Cross(m.color),
                }),
        );
        entries
    }
}

/// A value more than this many times the 99th percentile of a figure's values is an
/// outlier the y axis leaves out (a single sample can otherwise flatten everything else).
pub const OFF_SCALE: f64 = 20.0;

impl TimeChart {
    /// The top of the y axis: the largest value, unless some values exceed [`OFF_SCALE`]
    /// times the 99th percentile; then the largest value below that, and the highest point
    /// left off the scale (for the title).
    pub fn y_top(&self) -> (f64, Option<(f64, f64)>) {
        let mut values: Vec<f64> = self
            .all_points()
            .map(|p| p.1)
            .filter(|v| v.is_finite())
            .collect();
        let Some(&max) = values.iter().max_by(|a, b| a.total_cmp(b)) else {
            return (1.0, None);
        };
        let rank = (values.len() - 1) * 99 / 100;
        let p99 = *values.select_nth_unstable_by(rank, f64::total_cmp).1;
        let limit = OFF_SCALE * p99;
        if p99 <= 0.0 || max <= limit {
            return (max, None);
        }
        let top = values
            .iter()
            .copied()
            .filter(|&v| v <= limit)
            .fold(p99, f64::max);
        let peak = self
            .all_points()
            .filter(|p| p.1.is_finite())
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .copied();
        (top, peak)
    }
}

/// Y axis label area width (pixels) of the figures.
pub const Y_AXIS: i32 = 78;

impl Figure for TimeChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let (mut x0, mut x1) = bounds(self.all_points().map(|p| p.0)).unwrap_or((0.0, 1.0));
        // A run's first sample comes one interval after 0: start the axis at 0 then.
        if x0 > 0.0 && x0 <= 0.02 * x1 {
            x0 = 0.0;
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let (y_min, _) = bounds(self.all_points().map(|p| p.1)).unwrap_or((0.0, 1.0));
        let (y_top, off_scale) = self.y_top();
        let y0 = y_min.min(0.0);
        let mut y1 = y_top * 1.05;
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let title = match off_scale {
            Some((t, y)) => {
                // The y label's unit, e.g. "kB" from "cwnd (kB)".
                let unit = self
                    .y_label
                    .rsplit_once('(')
                    .and_then(|(_, u)| u.strip_suffix(')'))
                    .map_or(String::new(), |u| format!(" {u}"));
                let value = if y.abs() >= 100.0 {
                    format!("{y:.0}")
                } else {
                    super::tick(&y)
                };
                format!(
                    "{} (off scale: {value}{unit} at {} s)",
                    self.title,
                    super::tick(&t)
                )
            }
            None => self.title.clone(),
        };
        let (area, _) = frame(root, &title, &self.legend(), Y_AXIS)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(4)
            .x_label_area_size(48)
            .y_label_area_size(Y_AXIS)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&super::tick)
            .y_label_formatter(&super::tick)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .max_light_lines(2)
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()
            .map_err(e)?;
        for points in &self.background {
            let points = decimate(points, BUCKETS);
            draw_line(
                &mut chart,
                &points,
                Dash::Solid,
                BACKGROUND.stroke_width(BACKGROUND_WIDTH),
                bitmap,
            )?;
        }
        for line in &self.lines {
            let (dash, width) = if line.dashed {
                (Dash::Dashed, DASHED_WIDTH)
            } else {
                (Dash::Solid, WIDTH)
            };
            let points = decimate(&line.points, BUCKETS);
            draw_line(
                &mut chart,
                &points,
                dash,
                line.color.stroke_width(width),
                bitmap,
            )?;
        }
        for markers in &self.markers {
            let color = markers.color;
            chart
                .draw_series(
                    markers
                        .points
                        .iter()
                        .map(|&p| Cross::new(p, 4, color.stroke_width(2))),
                )
                .map_err(e)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_the_envelope() {
        let points: Vec<(f64, f64)> = (0..10_000)
            .map(|i| (i as f64, if i % 100 == 37 { 10.0 } else { (i % 7) as f64 }))
            .collect();
        let kept = decimate(&points, 50);
        assert!(kept.len() <= 100);
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(kept.iter().filter(|p| p.1 == 10.0).count(), 50);
        assert_eq!(decimate(&points[..10], 50), &points[..10]);
    }
}
