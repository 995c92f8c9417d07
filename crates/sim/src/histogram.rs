//! A log-linear histogram of durations (nanoseconds) for percentiles without keeping samples.
//!
//! Values below 2^SUB_BITS ns are counted exactly; above, each power-of-two range is split into
//! 2^SUB_BITS equal buckets (the layout of HdrHistogram), so a bucket is at most 1/64 = 1.6 %
//! wide relative to its value and its midpoint is within 0.8 % of every value in it. Values
//! are capped at 2^MAX_BITS ns (about 18 minutes). The bucket array is allocated once, when
//! the histogram is created; recording is a few integer operations and one increment.

/// Sub-buckets per power of two: 2^6 = 64.
const SUB_BITS: u32 = 6;
const SUB_COUNT: u64 = 1 << SUB_BITS;
/// Largest recorded value: 2^40 - 1 ns (about 1100 s).
const MAX_BITS: u32 = 40;
const BUCKETS: usize = ((MAX_BITS - SUB_BITS + 1) as u64 * SUB_COUNT) as usize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

fn bucket_of(value: u64) -> usize {
    let value = value.min((1 << MAX_BITS) - 1);
    if value < SUB_COUNT {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros(); // >= SUB_BITS
    let shift = exponent - SUB_BITS;
    // (value >> shift) is in [SUB_COUNT, 2 SUB_COUNT): its offset picks the sub-bucket.
    ((shift as u64 + 1) * SUB_COUNT + (value >> shift) - SUB_COUNT) as usize
}

/// The range `[low, high)` of values counted in `bucket`.
fn bucket_range(bucket: usize) -> (u64, u64) {
    let bucket = bucket as u64;
    if bucket < SUB_COUNT {
        return (bucket, bucket + 1);
    }
    let shift = bucket / SUB_COUNT - 1;
    let low = (SUB_COUNT + bucket % SUB_COUNT) << shift;
    (low, low + (1 << shift))
}

impl Histogram {
    pub fn record(&mut self, value: u64) {
        self.counts[bucket_of(value)] += 1;
        self.count += 1;
        self.sum += value as u128;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The `q`-quantile (0 < q <= 1): the value of the ⌈q·n⌉-th smallest sample, reported as
    /// the midpoint of its bucket clamped to the exact minimum and maximum; `None` if empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        if rank >= self.count {
            return Some(self.max as f64);
        }
        let mut seen = 0;
        for (bucket, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (low, high) = bucket_range(bucket);
                let mid = (low as f64 + (high - 1) as f64) / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    /// The samples recorded since `earlier` (a snapshot of this histogram): counts and sum
    /// subtract exactly; min and max are those of the buckets (exact min/max are not kept).
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let mut counts = self.counts.clone();
        for (c, e) in counts.iter_mut().zip(earlier.counts.iter()) {
            *c -= e;
        }
        let first = counts.iter().position(|&n| n > 0);
        let last = counts.iter().rposition(|&n| n > 0);
        let (min, max) = match (first, last) {
            (Some(f), Some(l)) => (
                bucket_range(f).0.max(self.min),
                (bucket_range(l).1 - 1).min(self.max),
            ),
            _ => (u64::MAX, 0),
        };
        Histogram {
            counts,
            count: self.count - earlier.count,
            sum: self.sum - earlier.sum,
            min,
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_without_gaps() {
        let mut previous_high = 0;
        for bucket in 0..BUCKETS {
            let (low, high) = bucket_range(bucket);
            assert_eq!(low, previous_high, "bucket {bucket}");
            assert_eq!(bucket_of(low), bucket);
            assert_eq!(bucket_of(high - 1), bucket);
            // Relative width at most 1/64.
            assert!((high - low) as f64 <= low.max(1) as f64 / 64.0 + 1.0);
            previous_high = high;
        }
        assert_eq!(previous_high, 1 << MAX_BITS);
    }

    #[test]
    fn quantiles_of_known_samples() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(0.99), None);
        // 1..=100 ms: the 99th percentile is the 99th value, 99 ms, within 0.8 %.
        for ms in 1..=100u64 {
            h.record(ms * 1_000_000);
        }
        let p99 = h.quantile(0.99).unwrap();
        assert!((p99 / 99e6 - 1.0).abs() < 0.008, "{p99}");
        let p50 = h.quantile(0.5).unwrap();
        assert!((p50 / 50e6 - 1.0).abs() < 0.008, "{p50}");
        assert_eq!(h.quantile(1.0), Some(100e6));
        assert_eq!(h.mean(), Some(50.5e6));
        assert_eq!(
            (h.min(), h.max(), h.count()),
            (Some(1_000_000), Some(100_000_000), 100)
        );
    }

    #[test]
    fn single_value_is_exact() {
        let mut h = Histogram::default();
        h.record(30_123_457);
        assert_eq!(h.quantile(0.99), Some(30_123_457.0));
    }

    #[test]
    fn since_subtracts_a_snapshot() {
        let mut h = Histogram::default();
        for v in [10, 20, 30] {
            h.record(v);
        }
        let snapshot = h.clone();
        for v in [1000, 2000] {
            h.record(v);
        }
        let window = h.since(&snapshot);
        assert_eq!(window.count(), 2);
        assert_eq!(window.mean(), Some(1500.0));
        assert_eq!(window.quantile(1.0), Some(2000.0));
        assert!(window.min().unwrap() >= 992 && window.min().unwrap() <= 1000);
    }
}
