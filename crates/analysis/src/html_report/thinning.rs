//! Thinning time series for the interactive charts: the run is cut into [`BUCKETS`] equal
//! spans of time, and each series keeps, per span, its minimum and its maximum, in the order
//! they occurred — so peaks, troughs and saw-teeth survive, as in the static figures
//! (figures.md, "Long runs are thinned"). All series share one time axis (the charting
//! library wants aligned columns): a span with samples gives two points, at the times of its
//! first and last sample; a series' earlier extreme is placed at the first, its later one at
//! the second. A point is therefore off in time by less than one span (duration / 1500), and
//! a run with fewer samples than spans is kept exactly.

/// Spans per chart: at most 2 × 1500 = 3000 points per series, as the static figures keep.
pub const BUCKETS: usize = 1500;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    t: f64,
    v: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Extremes {
    min: Option<Sample>,
    max: Option<Sample>,
}

/// Collects samples of several series, span by span.
pub struct Thinner {
    duration_s: f64,
    series: usize,
    /// Per span: the times of its first and last sample (any series).
    spans: Vec<Option<(f64, f64)>>,
    /// `extremes[span * series + s]`.
    extremes: Vec<Extremes>,
}

/// The thinned columns: times, and per series a value (or none) at each time.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub times: Vec<f64>,
    pub values: Vec<Vec<Option<f64>>>,
}

impl Columns {
    /// The times and the value columns `which`, in that order (one pass over a file gives
    /// the columns of several charts).
    pub fn pick(&self, which: &[usize]) -> Columns {
        Columns {
            times: self.times.clone(),
            values: which.iter().map(|&i| self.values[i].clone()).collect(),
        }
    }
}

impl Thinner {
    pub fn new(duration_s: f64, series: usize) -> Thinner {
        Thinner {
            duration_s,
            series,
            spans: vec![None; BUCKETS],
            extremes: vec![Extremes::default(); BUCKETS * series],
        }
    }

    fn span_of(&self, t: f64) -> usize {
        if self.duration_s <= 0.0 || !t.is_finite() || t <= 0.0 {
            return 0;
        }
        ((t / self.duration_s * BUCKETS as f64) as usize).min(BUCKETS - 1)
    }

    /// A sample of series `series` at time `t`; non-finite values are skipped.
    pub fn add(&mut self, series: usize, t: f64, v: f64) {
        if series >= self.series || !v.is_finite() || !t.is_finite() {
            return;
        }
        let span = self.span_of(t);
        let times = &mut self.spans[span];
        *times = Some(match *times {
            None => (t, t),
            Some((first, last)) => (first.min(t), last.max(t)),
        });
        let e = &mut self.extremes[span * self.series + series];
        let sample = Sample { t, v };
        // Strict comparisons keep the earliest of equal extremes (samples come in time order).
        if e.min.is_none_or(|m| v < m.v) {
            e.min = Some(sample);
        }
        if e.max.is_none_or(|m| v > m.v) {
            e.max = Some(sample);
        }
    }

    pub fn finish(self) -> Columns {
        let mut columns = Columns {
            times: Vec::new(),
            values: vec![Vec::new(); self.series],
        };
        for (span, times) in self.spans.iter().enumerate() {
            let Some((first, last)) = *times else {
                continue;
            };
            let two = last > first;
            columns.times.push(first);
            if two {
                columns.times.push(last);
            }
            for s in 0..self.series {
                let e = self.extremes[span * self.series + s];
                let (early, late) = match (e.min, e.max) {
                    (Some(min), Some(max)) if max.t < min.t => (Some(max.v), Some(min.v)),
                    (Some(min), Some(max)) => (Some(min.v), Some(max.v)),
                    _ => (None, None),
                };
                let column = &mut columns.values[s];
                if two {
                    column.push(early);
                    column.push(late);
                } else {
                    // One time in this span: both extremes are the one sample there.
                    column.push(early);
                }
            }
        }
        columns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewer_samples_than_spans_are_kept_exactly() {
        // 10 samples over 10 s, 1500 spans of 6.7 ms: one sample per span.
        let mut t = Thinner::new(10.0, 1);
        for i in 0..10 {
            t.add(0, i as f64, (i * i) as f64);
        }
        let c = t.finish();
        assert_eq!(c.times, (0..10).map(|i| i as f64).collect::<Vec<_>>());
        assert_eq!(
            c.values[0],
            (0..10).map(|i| Some((i * i) as f64)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_long_series_keeps_two_points_per_span_with_its_peaks() {
        // 1 s of 1 µs samples (10⁶) of a saw-tooth rising 0..999 every ms: every 0.667 ms
        // span holds values from near 0 up to near 999, so the thinned series still reaches
        // the tooth's top (999) and bottom (0), with at most 2 × 1500 points.
        let mut t = Thinner::new(1.0, 1);
        for i in 0..1_000_000u32 {
            t.add(0, f64::from(i) * 1e-6, f64::from(i % 1000));
        }
        let c = t.finish();
        assert!(c.times.len() <= 2 * BUCKETS, "{}", c.times.len());
        let values: Vec<f64> = c.values[0].iter().flatten().copied().collect();
        assert_eq!(values.iter().copied().fold(f64::MIN, f64::max), 999.0);
        assert_eq!(values.iter().copied().fold(f64::MAX, f64::min), 0.0);
    }

    #[test]
    fn extremes_keep_their_order_and_missing_series_are_gaps() {
        // One span (duration 1 s, both samples in the first 0.667 ms): series 0 falls from 5
        // to 1, so its maximum comes first; series 1 has no sample there.
        let mut t = Thinner::new(1.0, 2);
        t.add(0, 0.0001, 5.0);
        t.add(0, 0.0002, 1.0);
        let c = t.finish();
        assert_eq!(c.times, vec![0.0001, 0.0002]);
        assert_eq!(c.values[0], vec![Some(5.0), Some(1.0)]);
        assert_eq!(c.values[1], vec![None, None]);
    }
}
