//! A line chart over a numeric x axis (time, mostly): lines per flow, optional markers (drops),
//! title, axis descriptions with units and a legend.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Figure, thick_line};

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
    /// Legend in the lower right rather than the upper right (for lines near the top).
    pub legend_low: bool,
}

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
    }
}

impl Figure for TimeChart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        bitmap: bool,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let (x0, mut x1) = bounds(self.all_points().map(|p| p.0)).unwrap_or((0.0, 1.0));
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let (y_min, y_max) = bounds(self.all_points().map(|p| p.1)).unwrap_or((0.0, 1.0));
        let y0 = y_min.min(0.0);
        let mut y1 = y_max * 1.08;
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
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
        let mut labelled = false;
        for line in &self.lines {
            let color = line.color;
            let style = color.stroke_width(if line.dashed { 1 } else { 2 });
            let points = decimate(&line.points, BUCKETS);
            let series = if line.dashed {
                chart
                    .draw_series(DashedLineSeries::new(points, 6, 4, style))
                    .map_err(e)?
            } else {
                chart
                    .draw_series(thick_line(&points, style, bitmap))
                    .map_err(e)?
            };
            if !line.label.is_empty() {
                labelled = true;
                series
                    .label(&line.label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
            }
        }
        for markers in &self.markers {
            let color = markers.color;
            let series = chart
                .draw_series(
                    markers
                        .points
                        .iter()
                        .map(|&p| Cross::new(p, 4, color.stroke_width(2))),
                )
                .map_err(e)?;
            if !markers.label.is_empty() {
                labelled = true;
                series
                    .label(&markers.label)
                    .legend(move |(x, y)| Cross::new((x + 11, y), 4, color.stroke_width(2)));
            }
        }
        if labelled {
            chart
                .configure_series_labels()
                .position(if self.legend_low {
                    SeriesLabelPosition::LowerRight
                } else {
                    SeriesLabelPosition::UpperRight
                })
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 14))
                .draw()
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
